"""`python -m sim.grbl --world-fen FEN`: a simulated GRBL gantry on a pseudo-terminal.

Prints the device path on the first line (open it with any serial program, or
`damas robot execute --port PATH --magnet grbl-coolant`), serves until interrupted, then prints
the position the simulated board ended in as a FEN line.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from game.board import BaseBoard, Board, Color
from sim.grbl.emulator import Faults, GrblEmulator
from sim.grbl.motion import Hand
from sim.grbl.pty_server import PtyGrbl
from sim.world import World


def _spare(text: str) -> tuple[Color, float, float]:
    try:
        colour, _, xy = text.partition(":")
        x, y = (float(v) for v in xy.split(","))
        return Color(colour), x, y
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected COLOUR:X,Y, e.g. white:-40,20") from None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.grbl", description=__doc__)
    p.add_argument("--world-fen", default=None, help="position on the simulated board")
    p.add_argument("--variant", default="brazilian")
    p.add_argument("--carriage", choices=("under-board", "overhead-lift"), default="under-board")
    p.add_argument("--spare", type=_spare, action="append", default=[],
                   help="a spare disc in the tray, COLOUR:X,Y in board mm (repeatable)")
    p.add_argument("--realtime", type=float, default=None, metavar="FACTOR",
                   help="run machine time at FACTOR x the wall clock (default: instant)")
    p.add_argument("--homing", action="store_true", help="$22=1: start locked in Alarm")
    p.add_argument("--alarm-at-block", type=int, default=None)
    p.add_argument("--disconnect-at-block", type=int, default=None)
    p.add_argument("--drop-at-carry-block", type=int, default=None)
    args = p.parse_args(argv)
    board = Board(args.world_fen, args.variant) if args.world_fen else BaseBoard.starting(
        args.variant)
    world = World.from_board(board)
    for colour, x, y in args.spare:
        world.add_disc(colour, x, y)
    faults = Faults(alarm_at_block=args.alarm_at_block,
                    disconnect_at_block=args.disconnect_at_block,
                    drop_at_carry_block=args.drop_at_carry_block)
    emu = GrblEmulator(world, Hand(carriage=args.carriage),
                       settings={22: 1} if args.homing else None, faults=faults,
                       realtime_factor=args.realtime)
    server = PtyGrbl(emu).start()
    print(server.path, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.2):
            if emu.disconnected:
                break
    except KeyboardInterrupt:
        pass
    server.close()
    turn = board.turn if isinstance(board, Board) else Color.WHITE
    print(world.placement(board).board_fen(turn), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
