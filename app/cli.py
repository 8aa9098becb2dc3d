"""The `damas` command line.  Each command family lives in its own module under
`app.commands` and exposes `register(subparsers)`; `calibrate` subcommands are registered by
the modules that own them through `register_calibrate(calibrate_subparsers)`.

Errors a person can fix (bad FEN, unknown variant, unreadable file...) end with one clear line
on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "app.commands.rules",
    "app.commands.engine",
    "app.commands.vision",
    "app.commands.robot",
    "app.commands.serve",
    "app.commands.replay",
    "app.commands.table",
    "app.commands.play",
)


# Which module registers each command: a command imports only its own module, so a quick
# command (`bestmove` with a time budget) does not pay for OpenCV or the web server.
MODULE_OF_COMMAND = {
    "perft": "app.commands.rules", "moves": "app.commands.rules",
    "bestmove": "app.commands.engine", "selfplay": "app.commands.engine",
    "detect": "app.commands.vision", "robot": "app.commands.robot",
    "serve": "app.commands.serve", "replay": "app.commands.replay",
    "demo": "app.commands.table", "play": "app.commands.play",
    "record": "app.commands.play", "doctor": "app.commands.play",
}


class CliError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only` (a command name), just the module that command needs."""
    parser = argparse.ArgumentParser(
        prog="damas",
        description="Draughts robot: rules, engine, vision, gantry and the simulated table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    calibrate = sub.add_parser("calibrate", help="calibration wizards (camera, board, gantry)")
    calib_sub = calibrate.add_subparsers(dest="what", metavar="WHAT")
    calib_sub.required = True
    wanted = MODULE_OF_COMMAND.get(only or "")
    for name in COMMAND_MODULES:
        if wanted is not None and name != wanted:
            continue
        module = importlib.import_module(name)
        module.register(sub)
        if hasattr(module, "register_calibrate"):
            module.register_calibrate(calib_sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # FFmpeg (under OpenCV's video reader) prints its own complaints about a file it cannot
    # decode ("moov atom not found") above the one line that says what is wrong; a user who
    # wants them sets the variable.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    try:
        code = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (CliError, ValueError, OSError) as e:
        print(f"damas {args.command}: error: {e}", file=sys.stderr)
        return 2
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
