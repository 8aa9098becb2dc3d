"""`damas demo`: whole games on the simulated table, robot against a simulated person.

Each game builds the simulated hardware (world, rendered camera, GRBL emulator on a pty,
gpiozero mock pins, a person who plays with a hand and sometimes breaks a rule), finds the board
in the first camera image, and runs the same `GameLoop` as the real table.  It prints a live
status, writes each game's PDN and journal to `--out`, and ends with the line
`games <n> moves <m> irregularities <k> mismatches <j>` (mismatches: times the board the camera
saw differed from the true simulated board).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from app.commands.args import int_range, positive_float
from app.game_loop import GameLoop, RobotArm, TableError
from game.board import WHITE, Board, Color
from game.engine.engine import Engine
from game.pdn import write_game
from game.referee import EventType, Policy
from robot.config import RobotConfig


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("demo", help="play whole games on the simulated table")
    p.add_argument("--games", type=int_range(1, 10_000), default=1)
    p.add_argument("--level", type=int_range(1, 10), default=6, help="the robot's level, 1..10")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--web", type=int_range(1, 65535, "port number"), default=None,
                   metavar="PORT",
                   help="also serve the live page on 127.0.0.1:PORT")
    p.add_argument("--out", default="out/demo", help="folder for the PDN and journals")
    p.add_argument("--movetime", type=positive_float("number of seconds"), default=0.3,
                   help="robot's seconds per move")
    p.add_argument("--max-plies", type=int_range(1, 10_000), default=120,
                   help="adjudicate a draw after this many plies")
    p.add_argument("--irregularities", type=_share, default=0.1,
                   help="share of the simulated person's moves that break a rule")
    p.add_argument("--fps", type=positive_float("frame rate"), default=5.0,
                   help="simulated camera frame rate")
    p.add_argument("--camera", choices=("rendered", "oracle"), default="rendered",
                   help="rendered: the 3D-rendered camera and the real vision pipeline; "
                        "oracle: a flawless camera (fast, for tests)")
    p.add_argument("--quiet", action="store_true", help="only the summary lines")
    p.set_defaults(func=cmd_demo)


def _share(text: str) -> float:
    x = positive_float("share")(text) if text.strip() not in ("0", "0.0") else 0.0
    if x > 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share between 0 and 1")
    return x


def cmd_demo(args: argparse.Namespace) -> int:
    from app.events import EventBus

    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bus = EventBus("brazilian")
    server = None
    if args.web is not None:
        from app.commands.serve import announce
        from app.web.server import WebServer

        server = WebServer(bus, "127.0.0.1", args.web).start_in_thread()
        announce(server)
    totals = {"moves": 0, "irregularities": 0, "mismatches": 0}
    games_done = 0
    try:
        for game in range(args.games):
            if game and server is not None:
                time.sleep(2.0)  # viewers see the end of a game before the next one clears it
            stats = play_demo_game(game, seed, args, bus, out)
            games_done += 1
            for k in totals:
                totals[k] += stats[k]
    finally:
        if server is not None:
            server.stop()
    print(f"games {games_done} moves {totals['moves']} irregularities "
          f"{totals['irregularities']} mismatches {totals['mismatches']}", flush=True)
    return 0


def play_demo_game(game: int, seed: int, args: argparse.Namespace, bus: Any, out: Path
                   ) -> dict[str, Any]:
    from app.journal import Journal, JournalHeader
    from app.simtable import OracleStream, SimOptions, SimulatedTable

    game_seed = seed * 1000 + game
    board = Board()
    human: Color = WHITE if game % 2 == 0 else WHITE.other
    robot = human.other
    cfg = RobotConfig().for_grid(board.variant.width)
    sim = SimulatedTable(board, cfg, human, game_seed,
                         SimOptions(fps=args.fps, irregularity_rate=args.irregularities,
                                    render=args.camera == "rendered"))
    quiet = args.quiet

    def say(text: str) -> None:
        if not quiet:
            print(f"[game {game + 1}] {text}", flush=True)

    rendered = args.camera == "rendered"
    holder: dict[str, Any] = {}
    observer = _calibrated_observer(sim, board, say) if rendered else None
    observe = (_publishing(_oriented(observer.observe, lambda: holder["loop"].referee.board),
                           bus)
               if rendered else (lambda image: None))
    stream = None if rendered else OracleStream(sim.world, sim.variant)
    white_name, black_name = ("Person (simulated)", "Robot") if human is WHITE else (
        "Robot", "Person (simulated)")
    journal = Journal.create(Journal.new_path(out), JournalHeader(
        variant=board.variant.name, white=white_name, black=black_name,
        robot_colour=robot.value, level=args.level, mode="demo"))
    bus.new_game(board.variant.name, None, args.level, White=white_name, Black=black_name,
                 Event="damas demo")
    engine = Engine(board, args.level, seed=game_seed)
    t0 = time.perf_counter()
    with sim.gantry as gantry:
        arm = RobotArm(cfg, gantry.grbl, gantry.magnet, gantry.lift,
                       wait_for_crown=lambda name: sim.crown(board.parse_square(name), robot))
        loop = GameLoop(board, sim.read, observe, robot=robot, engine=engine, arm=arm,
                        policy=Policy.INSIST, movetime_s=args.movetime,
                        max_plies=args.max_plies, journal=journal, bus=bus, say=say,
                        truth=sim.truth, still=lambda: _still(sim, holder), crown=sim.crown,
                        stream=stream, locator=observer)
        holder["loop"] = loop
        # (nobody plays while the loop checks or repairs the board after its move)
        sim.idle = lambda: (sim.table.wait(0.4) if loop.recovering
                            else sim.human.act(loop.referee))
        try:
            result = loop.run()
        except TableError as e:
            journal.close()
            raise OSError(f"game {game + 1}: {e}") from None
    journal.close()
    wall = time.perf_counter() - t0
    machine_s = sim.gantry.emulator.motion.now_s  # the gantry's own (simulated) clock
    record = result.referee.game_record(Event="damas demo", White=white_name, Black=black_name,
                                        Round=str(game + 1))
    record.result = result.result
    pdn_path = out / f"game-{seed}-{game + 1}.pdn"
    pdn_path.write_text(write_game(record), encoding="utf-8")
    s = result.stats
    print(f"game {game + 1}: {result.result} ({result.reason}), {s.moves} moves, "
          f"{s.irregularities} irregularities ({len(sim.human.planted)} planted), "
          f"{s.mismatches} mismatches, wall {wall:.1f} s (vision {s.vision_s:.1f} s, "
          f"engine {s.engine_s:.1f} s, motion {s.motion_s:.1f} s) -> {pdn_path}",
          flush=True)
    reports = [e for e in s.events if e.type not in (EventType.MOVE, EventType.UNREADABLE)]
    penalised = [e for e in reports if e.penalised]
    # A report is of a planted irregularity when it is of its kind, names its squares and
    # comes after it began (the camera's frames and the person's are one clock).
    seen = [p for p in sim.human.planted if any(
        e.type.value == p[1] and e.frame >= p[2] and set(e.squares) & set(p[3])
        for e in penalised)]
    false_alarms = [e for e in penalised if not any(
        e.type.value == p[1] and e.frame >= p[2] and set(e.squares) & set(p[3])
        for p in sim.human.planted)]
    return {"moves": s.moves, "irregularities": s.irregularities, "mismatches": s.mismatches,
            "planted": len(sim.human.planted), "planted_seen": len(seen),
            "false_alarms": len(false_alarms),
            # (reports that are no irregularity: a touched piece that could not have moved, an
            # unannounced adjustment; the simulated person makes neither)
            "notes": sum(1 for e in reports if not e.penalised),
            "unreadable": sum(1 for e in s.events if e.type is EventType.UNREADABLE),
            "wall_s": wall, "vision_s": s.vision_s,
            "engine_s": s.engine_s, "motion_s": s.motion_s, "machine_s": machine_s,
            "result": result}


def _calibrated_observer(sim: Any, board: Board, say: Any) -> Any:
    """Find the board in the first image (as `damas calibrate board` does on a real table):
    the `BoardObserver` that reads every later frame with those corners fixed."""
    from vision.errors import VisionError
    from vision.pipeline import BoardObserver

    image, _, _ = sim.read()
    finder = BoardObserver(board.variant)
    try:
        located = finder.locate(image)
        corners = located.pose.corners_px
        say(f"board found (confidence {located.confidence:.2f})")
    except VisionError as e:
        print(f"board not found automatically ({e}); using the corners a person would click",
              file=sys.stderr)
        from sim.render import render

        corners = render(sim.world, sim.scene, board.variant).corners_px
    corners = oriented_corners(image, corners, board)
    return learned_observer(image, corners, board)


def learned_observer(image: Any, corners: Any, board: Board) -> Any:
    """An observer with the corners fixed and the colours learned from `image` of the known
    placement `board` (the start position, as `damas calibrate board` does)."""
    from calibration.store import Calibration
    from vision.colour_learn import learn_colours
    from vision.pipeline import BoardObserver

    fixed = BoardObserver(board.variant, corners_px=corners)
    pose = fixed.locate(image).pose
    colours = learn_colours(image, pose, board)
    return BoardObserver(board.variant, calibration=Calibration(colours=colours),
                         corners_px=corners)


def oriented_corners(image: Any, corners: Any, board: Board) -> Any:
    """Which corner of the found grid is a1: the board alone cannot say (turned half-way it
    looks the same), the start position can: the light set stands on ranks 1-3.  Tries the
    four turns of the corner list and keeps the one that reads most like `board`."""
    import numpy as np

    from vision.errors import VisionError
    from vision.pipeline import BoardObserver

    c = np.asarray(corners, np.float64).reshape(4, 2)
    best, best_wrong = c, None
    for turn in range(4):
        candidate = np.roll(c, -turn, axis=0)
        try:
            reading = BoardObserver(board.variant, corners_px=candidate).observe(image)
        except VisionError:
            continue
        wrong = len(reading.board.differences(board))
        if best_wrong is None or wrong < best_wrong:
            best, best_wrong = candidate, wrong
    return best


def _publishing(observe: Any, bus: Any, every_s: float = 0.5) -> Any:
    """`observe`, also showing the camera picture with the grid and the pieces it read on the
    web page (at most every `every_s` seconds: encoding costs a few milliseconds)."""
    from app.web.frames import page_jpeg
    from vision.annotate import annotate

    last = [0.0]

    def run(image: Any) -> Any:
        obs = observe(image)
        now = time.monotonic()
        if now - last[0] >= every_s:
            last[0] = now
            bus.publish_frame(page_jpeg(annotate(image, obs)))
        return obs
    return run


def _still(sim: Any, holder: dict[str, Any]) -> None:
    """The robot has finished: film the still table, and read it afresh (a slid piece may be
    too close in colour to its square for the motion meter to notice)."""
    sim.record_still()
    stream = getattr(holder.get("loop"), "stream", None)
    if hasattr(stream, "invalidate"):
        stream.invalidate()


def _oriented(observe: Any, expected: Any) -> Any:
    """`observe`, with the two piece sets named, and kings told, as the game knows them.

    Vision calls the lighter set "white"; with two sets of nearly the same lightness the
    naming can flip from one frame to the next.  The game knows where each colour stands, and
    a move changes a few squares while a flipped naming changes nearly all: so a reading is
    taken in the naming closer to the game's position.
    """
    from dataclasses import replace as dc_replace

    from game.board import BaseBoard

    def run(image: Any) -> Any:
        reading = observe(image)
        board = reading.board
        swapped = BaseBoard(board.variant)
        swapped.white, swapped.black, swapped.kings = board.black, board.white, board.kings
        target = expected()
        visible = [sq for sq in board.squares if sq not in reading.occluded]
        same = sum(1 for sq in visible if board.piece_at(sq) != target.piece_at(sq))
        flip = sum(1 for sq in visible if swapped.piece_at(sq) != target.piece_at(sq))
        chosen = swapped if flip < same else board
        # Kings as the game knows them: a piece only becomes a king by a crowning move, and
        # the stacked-vs-single reading is not reliable enough (bench/vision_eval.py: 96.7% of
        # pieces, 86% under a camera looking straight down), so a piece of the colour the game
        # expects takes the game's man/king (as a scorer does).
        kings = chosen.kings
        for sq in visible:
            seen, want = chosen.piece_at(sq), target.piece_at(sq)
            if seen is not None and want is not None and seen.color is want.color:
                m = chosen.geometry.mask_of[sq]
                kings = (kings | m) if want.is_king else (kings & ~m)
        if chosen is board and kings == board.kings:
            return reading
        fixed = BaseBoard(board.variant)
        fixed.white, fixed.black, fixed.kings = chosen.white, chosen.black, kings
        return dc_replace(reading, board=fixed)
    return run
