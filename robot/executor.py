"""Run a plan on the gantry: stream the G-code, switch the magnet, wait for crowns.

A magnet on GRBL's coolant/spindle output is switched by streamed `M8`/`M9` (`M3`/`M5`) lines,
which GRBL itself synchronises with the motion.  A magnet (or servo lift) on a Pi pin is not in
GRBL's queue, so before switching it the executor waits until every move has finished (`G4 P0`
acknowledged, then an Idle report): a piece is never released, or grabbed, on the way.

On any error - GRBL alarm or error, timeout, lost link, Ctrl-C - the magnet is switched off
before the error propagates, and a controller still reachable is stopped (feed hold, soft
reset) so nothing keeps moving with queued lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from robot.errors import GantryDisconnected, GantryError
from robot.gcode import magnet_line, op_line
from robot.grbl import Grbl
from robot.motion import Op, estimate, program
from robot.planner import Plan


@dataclass(frozen=True)
class ExecutionResult:
    travel_mm: float
    elapsed_s: float
    segments: int
    lines_sent: int


class Executor:
    def __init__(self, grbl: Grbl, magnet: Any, lift: Any = None,
                 wait_for_crown: Callable[[str], None] | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.grbl = grbl
        self.magnet = magnet
        self.lift = lift
        self.wait_for_crown = wait_for_crown
        self.progress = progress or (lambda text: None)
        self._pick_up_pulse = False

    def run(self, plan: Plan) -> ExecutionResult:
        cfg = plan.config
        ops = program(plan)
        est = estimate(plan, ops)
        in_grbl = magnet_line(cfg, True) is not None
        t0 = time.monotonic()
        sent = 0
        try:
            for op in ops:
                sent += self._do(op, cfg, in_grbl)
            self.grbl.drain()
            self.grbl.wait_idle()
        except BaseException as e:
            self._emergency(e)
            raise
        finally:
            self._magnet_off()
        return ExecutionResult(est.travel_mm, time.monotonic() - t0, est.segments, sent)

    def _do(self, op: Op, cfg: Any, in_grbl: bool) -> int:
        if op.kind == "note":
            self.progress(op.text)
            return 0
        if op.kind in ("move", "dwell"):
            line = op_line(cfg, op)
            if line is None:
                return 0
            self.grbl.send(line)
            if op.kind == "dwell" and self._pick_up_pulse:
                # PWM magnet: full power for the settle dwell, then the holding duty.
                self._pick_up_pulse = False
                self.grbl.drain()
                self.grbl.wait_idle()
                self.magnet.hold()
            return 1
        if op.kind == "magnet":
            if in_grbl:
                line = magnet_line(cfg, op.on)
                assert line is not None
                self.grbl.send(line)
                if hasattr(self.magnet, "mark"):
                    self.magnet.mark(op.on)
                return 1
            self.grbl.drain()
            self.grbl.wait_idle()
            if op.on:
                self.magnet.on()
                self._pick_up_pulse = hasattr(self.magnet, "hold_duty")
            else:
                self.magnet.off()
            return 0
        if op.kind == "lift":
            if self.lift is None:
                raise GantryError("the plan needs a servo lift but none is configured")
            self.grbl.drain()
            self.grbl.wait_idle()
            if op.on:
                self.lift.down()
            else:
                self.lift.up()
            self.grbl.send(f"G4 P{cfg.lift.servo_settle_s:.3f}")
            return 1
        if op.kind == "ask":
            self.grbl.drain()
            self.grbl.wait_idle()
            self.progress(f"waiting for the crown on {op.text}")
            if self.wait_for_crown is not None:
                self.wait_for_crown(op.text)
            return 0
        raise ValueError(f"unknown operation {op.kind!r}")

    def _magnet_off(self) -> None:
        try:
            self.magnet.off()
        except Exception:  # noqa: BLE001 - the magnet must be off whatever else failed
            pass

    def _emergency(self, error: BaseException) -> None:
        self._magnet_off()
        if isinstance(error, GantryDisconnected):
            return
        try:
            self.grbl.feed_hold()
            self.grbl.soft_reset(timeout_s=2.0)
        except Exception:  # noqa: BLE001 - best effort: the original error is what matters
            pass
