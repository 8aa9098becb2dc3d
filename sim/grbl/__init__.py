"""The simulated gantry: a GRBL 1.1 emulator (`emulator`) moving the discs of a `sim.world.World`
(`motion`), served on a pseudo-terminal (`pty_server`) so the real pyserial driver talks to it.
Run `python -m sim.grbl --world-fen FEN` to start one and print its device path."""

from sim.grbl.emulator import BANNER, Faults, GrblEmulator
from sim.grbl.motion import Hand, Motion
from sim.grbl.pty_server import PtyGrbl

__all__ = ["BANNER", "Faults", "GrblEmulator", "Hand", "Motion", "PtyGrbl"]
