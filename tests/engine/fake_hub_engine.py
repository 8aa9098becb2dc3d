"""A scripted Hub engine for tests: speaks the Hub protocol (v2, as Scan does) on stdin/stdout.

Usage: fake_hub_engine.py TRANSCRIPT VARIANTS MOVE [MOVE...]
- TRANSCRIPT: file where every received line is appended (the test reads it back);
- VARIANTS: space-separated values it declares for the `variant` parameter ("normal");
- MOVE...: the replies to successive `go` commands, in Hub notation ("32-28", "28x19x23").
It does not know the rules: it answers what it is told to, so tests can script bad replies too.
"""

from __future__ import annotations

import sys


def main() -> None:
    transcript, variants, *replies = sys.argv[1:]
    out = sys.stdout
    with open(transcript, "a") as log:
        for raw in sys.stdin:
            line = raw.strip()
            log.write(line + "\n")
            log.flush()
            cmd = line.split(" ", 1)[0] if line else ""
            if cmd == "hub":
                out.write('id name=FakeScan version=0.1 author="damas tests" country=BR\n')
                first = variants.split()[0] if variants else "normal"
                out.write(f'param name=variant value={first} type=enum values="{variants}"\n')
                out.write("param name=book value=false type=bool\n")
                out.write("wait\n")
            elif cmd == "init":
                out.write("ready\n")
            elif cmd == "ping":
                out.write("pong\n")
            elif cmd == "go":
                move = replies.pop(0) if replies else "0-0"
                out.write(f'info depth=3 mean-depth=3.0 score=0.12 nodes=4242 time=0.01 '
                          f'nps=0.4 pv="{move}"\n')
                out.write(f"done move={move}\n")
            elif cmd == "quit":
                break
            out.flush()


if __name__ == "__main__":
    main()
