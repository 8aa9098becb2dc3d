"""`damas play`, `damas record` and `damas doctor`: the table from a configuration file.

`play` runs a person against the robot; `--resume` continues the newest unfinished game from
its journal after checking the board against it.  `record` scores a game between two people
(camera only).  With `source = "sim"` and `port = "sim"` (the defaults) both run on the
simulated table, so the whole path can be tried on any computer.  `doctor` checks a real set-up
and says what to fix.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from app.config import Config, load_config
from app.game_loop import GameLoop, RobotArm, TableError
from game.board import Board, Color
from game.engine.engine import Engine
from game.pdn import write_game
from game.referee import Policy


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("play", help="play a person against the robot (config: camera, gantry)")
    p.add_argument("--config", default=None, help="table configuration (TOML)")
    p.add_argument("--resume", action="store_true",
                   help="continue the newest unfinished game from its journal")
    p.add_argument("--sim-camera", choices=("rendered", "oracle"), default="rendered",
                   help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-plies", type=int, default=200, help=argparse.SUPPRESS)
    p.add_argument("--movetime", type=float, default=1.0, help="robot's seconds per move")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_play)

    r = sub.add_parser("record", help="score a game between two people (camera only)")
    r.add_argument("--config", default=None, help="table configuration (TOML)")
    r.add_argument("--pdn", default=None, help="also write the PDN here when the game ends")
    r.add_argument("--seed", type=int, default=None, help=argparse.SUPPRESS)
    r.add_argument("--plies", type=int, default=30, help=argparse.SUPPRESS)
    r.set_defaults(func=cmd_record)

    d = sub.add_parser("doctor", help="check a real set-up (camera, serial, GPIO, calibration)")
    d.add_argument("--config", default=None, help="table configuration (TOML)")
    d.set_defaults(func=cmd_doctor)


def _is_sim(config: Config) -> bool:
    return config.camera.source == "sim" and config.gantry.port == "sim"


# -- play ---------------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace) -> int:
    from app.journal import Journal, JournalHeader, load_journal

    config = load_config(args.config)
    if config.game.mode == "record":
        raise ValueError(f"{config.source}: game.mode is \"record\": use `damas record "
                         f"--config {args.config}` to score a game between two people")
    variant = config.game.variant
    robot = Color(config.game.robot_colour)
    jdir = Path(config.journal.dir)
    board = Board(None, variant)
    moves: list[str] = []
    if args.resume:
        path = _newest_unfinished(jdir)
        journal, loaded = Journal.resume(path)
        board = _replay_journal(loaded)
        moves = list(loaded.moves)
        print(f"resuming {path}: {len(moves)} moves, {board.turn.value} to move", flush=True)
    else:
        path = Journal.new_path(jdir)
        journal = Journal.create(path, JournalHeader(
            variant=board.variant.name, robot_colour=robot.value, level=config.game.level,
            white="Robot" if robot is Color.WHITE else "Person",
            black="Robot" if robot is Color.BLACK else "Person", mode=config.game.mode))
        print(f"journal: {path}", flush=True)
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    devices = None
    try:
        if _is_sim(config):
            loop = _sim_loop(config, board, robot, seed, args, journal, moves)
        else:  # pragma: no cover - needs a camera and a GRBL board
            from app.hardware import open_devices

            devices = open_devices(config, board)
            loop = _real_loop(config, board, robot, seed, args, journal, moves, devices)
        result = loop.run(check_board=args.resume)  # a power cut may have stopped a move
    except TableError as e:
        raise OSError(str(e)) from None
    finally:
        journal.close()
        if devices is not None:
            devices.close()
    loaded = load_journal(path)
    pdn = path.with_suffix(".pdn")
    pdn.write_text(write_game(loaded.to_game_record()), encoding="utf-8")
    print(f"result {result.result} moves {len(loaded.moves)} pdn {pdn}", flush=True)
    return 0


def _newest_unfinished(folder: Path) -> Path:
    from app.journal import load_journal

    candidates = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    for p in candidates:
        if not load_journal(p).ended:
            return p
    raise FileNotFoundError(f"{folder}: no unfinished game journal to resume")


def _replay_journal(loaded: Any) -> Board:
    """The game position from the journal: the moves replayed under the rules (a move the
    referee accepted as it stood is taken from its recorded FEN)."""
    h = loaded.header
    board = Board(h.start_fen, h.variant)
    for r in loaded.records:
        if r.get("type") != "move":
            continue
        try:
            board.push_pdn(r["move"])
        except ValueError:
            board = Board(r["fen"], h.variant)
    return board


def _sim_loop(config: Config, board: Board, robot: Color, seed: int, args: Any, journal: Any,
              moves: list[str]) -> GameLoop:
    """The game loop on the simulated table, whose world starts from `board` (after a resume
    the simulated person has the board as the journal says)."""
    from app.commands.table import _calibrated_observer, _oriented, _still
    from app.simtable import OracleStream, SimOptions, SimulatedTable

    rendered = args.sim_camera == "rendered"
    sim = SimulatedTable(board, config.robot.for_grid(board.variant.width), robot.other, seed,
                         SimOptions(render=rendered))
    quiet = args.quiet
    say = (lambda text: None) if quiet else (lambda text: print(text, flush=True))
    holder: dict[str, Any] = {}
    observer = _calibrated_observer(sim, board, say) if rendered else None
    observe = (_oriented(observer.observe, lambda: holder["loop"].referee.board)
               if rendered else (lambda image: None))
    gantry = sim.gantry.__enter__()
    arm = RobotArm(sim.gantry.cfg, gantry.grbl, gantry.magnet, gantry.lift,
                   wait_for_crown=lambda name: sim.crown(board.parse_square(name), robot))
    loop = GameLoop(board, sim.read, observe, robot=robot,
                    engine=Engine(board, config.game.level, seed=seed), arm=arm,
                    policy=Policy(config.game.policy), movetime_s=args.movetime,
                    exhibition=config.game.mode == "exhibition",
                    teaching=config.game.mode == "teaching",
                    max_plies=args.max_plies, journal=journal, say=say, truth=sim.truth,
                    still=lambda: _still(sim, holder), crown=sim.crown,
                    stream=None if rendered else OracleStream(sim.world, sim.variant),
                    locator=observer)
    holder["loop"] = loop
    loop.moves = list(moves)
    # (nobody plays while the loop checks or repairs the board after its move)
    sim.idle = lambda: (sim.table.wait(0.4) if loop.recovering
                        else sim.human.act(loop.referee))
    return loop


def _real_loop(config: Config, board: Board, robot: Color, seed: int, args: Any, journal: Any,
               moves: list[str], devices: Any) -> GameLoop:  # pragma: no cover - needs a Pi
    """The game loop on the real table: the same loop, real devices."""
    def ask(text: str) -> None:
        print(text, flush=True)

    def crown_request(square: str) -> None:
        ask(f"please stack a crown on {square} (the robot's man is crowned)")
        input("press Enter when the crown is on ... ")

    from app.recovery import RecoveryOptions
    from robot.grbl import Grbl

    def reconnect() -> Any:
        grbl = Grbl.open(config.gantry.port, baudrate=config.gantry.baud)
        grbl.connect(unlock=True)
        return grbl

    arm = RobotArm(config.robot.for_grid(board.variant.width), devices.grbl, devices.magnet,
                   devices.lift, wait_for_crown=crown_request, progress=None,
                   reconnect=reconnect)
    loop = GameLoop(board, devices.camera.read, devices.observer.observe, robot=robot,
                    engine=Engine(board, config.game.level, seed=seed), arm=arm,
                    policy=Policy(config.game.policy), movetime_s=args.movetime,
                    exhibition=config.game.mode == "exhibition",
                    teaching=config.game.mode == "teaching",
                    max_plies=args.max_plies, journal=journal, say=ask,
                    still=lambda: loop.stream.invalidate(),
                    recovery=RecoveryOptions(wait_for_person=True, reconnect_wait_s=0.5),
                    locator=devices.observer)
    loop.moves = list(moves)
    if devices.panel.ajeito is not None:
        devices.panel.ajeito.when_pressed = lambda: loop.referee.announce_adjust()
    return loop


# -- record -------------------------------------------------------------------------------------
def cmd_record(args: argparse.Namespace) -> int:
    """Two people play; the camera scores.  On the simulated table the two people are the
    scripted players of `sim.scripted_game`, who break rules now and then."""
    from app.journal import Journal, JournalHeader
    from app.simtable import OracleStream
    from game.referee import Referee, RefereeConfig
    from game.referee_events import comment_text
    from sim.scripted_game import ScriptConfig, script_game

    config = load_config(args.config)
    if config.camera.source != "sim":
        raise OSError("recording from a real camera: use `damas replay` on the saved video, "
                      "or set camera.source = \"sim\" to try the simulated table")
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    script = script_game(seed, config.game.variant, ScriptConfig(plies=args.plies, fps=5.0))
    board = Board(script.start_fen, script.variant)
    path = Journal.new_path(Path(config.journal.dir))
    journal = Journal.create(path, JournalHeader(variant=board.variant.name,
                                                 start_fen=script.start_fen, mode="record"))
    referee = Referee(board, RefereeConfig(policy=Policy.RECORD))
    stream = OracleStream(script.table.world, script.variant)
    written = 0

    def write_moves(upto: int) -> None:
        nonlocal written
        while written < upto:
            m = referee.record[written]
            journal.record_move(m.text, m.fen_after, by=m.color.value)
            print(f"{written + 1:3d}. {m.text}", flush=True)
            written += 1

    for state in script.frames:
        obs, stable = stream.push(state, state.frame, state.time_s)
        for event in referee.observe(obs, stable):
            # In the order they came, each move's irregularities after it: the journal hangs
            # an irregularity on the move before it, as the referee's record (the PDN written
            # below) does.  (One still board may close two moves.)
            if event.type.value == "move":
                write_moves(min(written + 1, len(referee.record)))
            elif event.type.value == "unreadable":  # (the camera's, not the game's: as in play)
                print(f"  ? {event.detail}", flush=True)
            else:
                text = comment_text(event)
                journal.record_irregularity(event.type.value, text,
                                            [board.square_name(s) for s in event.squares])
                print(f"  ! {text}", flush=True)
        write_moves(len(referee.record))
    journal.record_end("*", "recording stopped")
    journal.close()
    pdn_text = write_game(referee.game_record(Event="damas record"))
    out = Path(args.pdn) if args.pdn else path.with_suffix(".pdn")
    out.write_text(pdn_text, encoding="utf-8")
    print(f"recorded {len(referee.record)} moves -> {out}", flush=True)
    return 0


# -- doctor -------------------------------------------------------------------------------------
def cmd_doctor(args: argparse.Namespace) -> int:
    """Check each part of a real set-up and say plainly what to fix."""
    config = load_config(args.config)
    problems = 0

    def report(ok: bool, what: str, fix: str = "") -> None:
        nonlocal problems
        problems += 0 if ok else 1
        print(f"[{'ok' if ok else 'FIX'}] {what}" + ("" if ok else f" -> {fix}"), flush=True)

    report(True, f"configuration {config.source or '(defaults: simulated table)'}")
    src = config.camera.source
    if src == "sim":
        report(True, "camera: simulated")
    elif src == "picamera2":
        try:
            import picamera2  # noqa: F401
            report(True, "camera: picamera2 available")
        except ImportError:
            report(False, "camera: picamera2 is not installed",
                   "sudo apt install python3-picamera2, and create the venv with "
                   "--system-site-packages")
    elif src.startswith("opencv:"):
        import cv2

        dev = src.split(":", 1)[1]
        cap = cv2.VideoCapture(int(dev) if dev.isdigit() else dev)
        ok = bool(cap.isOpened()) and cap.read()[0]
        cap.release()
        report(ok, f"camera: {src}", "check the cable and the device number (v4l2-ctl "
                                     "--list-devices)")
    elif src.startswith("folder:"):
        folder = Path(src.split(":", 1)[1])
        report(folder.is_dir(), f"camera: folder {folder}", "no such folder")
    port = config.gantry.port
    if port == "sim":
        report(True, "gantry: simulated")
    else:
        from robot.errors import GantryError
        from robot.grbl import Grbl

        try:
            grbl = Grbl.open(port, baudrate=config.gantry.baud)
            try:
                grbl.connect()
                report(True, f"gantry: {grbl.banner} on {port}")
            finally:
                grbl.close()
        except (GantryError, OSError) as e:
            report(False, f"gantry: {port}: {e}", "check the USB cable, the port name "
                   "(ls /dev/serial/by-id) and that nothing else holds the port")
    cal = Path(config.calibration.file)
    if not cal.exists():
        report(False, f"calibration: {cal} missing", "run `damas calibrate board` and "
               "`damas calibrate gantry`")
    else:
        age_days = (time.time() - cal.stat().st_mtime) / 86400
        report(age_days < 30, f"calibration: {cal} ({age_days:.0f} days old)",
               "recalibrate: the camera or the board may have moved")
    if config.gpio.pin_factory != "mock":
        try:
            from gpiozero import Device
            from gpiozero.pins.lgpio import LGPIOFactory  # noqa: F401

            Device.pin_factory = None
            report(True, f"gpio: {config.gpio.pin_factory}")
        except Exception as e:  # noqa: BLE001 - any failure here is the user's to fix
            report(False, f"gpio: {config.gpio.pin_factory}: {e}",
                   "on a Pi: sudo apt install python3-lgpio")
    print(f"doctor: {problems} problem(s)", flush=True)
    return 0 if problems == 0 else 1
