"""A GRBL 1.1 controller, byte for byte, without the serial port.

Feed it the bytes a host writes (`feed`), read back what GRBL would answer (`read`).  It keeps
GRBL's rules that a host must respect or suffer from: a 128-byte serial receive buffer (bytes
beyond it are lost, as GRBL's interrupt drops them - counted in `rx_overflows`), a 15-block
planner (a motion line is acknowledged only once it fits), real-time bytes (`?`, `!`, `~`,
0x18, 0x85) acted on at once, `ok` / `error:N` per line, `ALARM:N`, `$` commands, coolant and
spindle changes synchronised with the motion queue, and G4 dwells that wait for the queue to
empty.  Responses use GRBL 1.1's documented text and `\r\n` line ends.

Time is virtual (see `sim.grbl.motion`).  With `realtime_factor=None` time only passes when
something waits for it - a full planner, a synchronising command, or a `?` (which advances the
clock by `poll_step_s`) - so a test runs as fast as the bytes flow and deterministically.  With
a factor, `tick()` follows the wall clock (the pty server calls it).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.grbl.motion import Hand, Motion
from sim.grbl.parsing import DEFAULT_SETTINGS, INT_SETTINGS, clean_line, words_of
from sim.world import World

BANNER = "Grbl 1.1h ['$' for help]"
RX_BUFFER_BYTES = 128
PLANNER_BLOCKS = 15
LINE_MAX = 80

@dataclass
class Faults:
    """Faults to inject, each at the start of the n-th block (1-based) of its kind."""

    drop_at_carry_block: int | None = None  # the carried piece falls off the magnet
    missed_step_at_block: int | None = None
    missed_step_mm: tuple[float, float] = (3.0, 0.0)
    alarm_at_block: int | None = None
    alarm_code: int = 1
    disconnect_at_block: int | None = None
    homing_failures: int = 0  # the next n `$H` cycles fail with ALARM:9 (switch not found)
    fired: list[str] = field(default_factory=list)


class GrblEmulator:
    def __init__(self, world: World | None = None, hand: Hand | None = None,
                 settings: dict[int, float] | None = None, faults: Faults | None = None,
                 realtime_factor: float | None = None, poll_step_s: float = 0.05) -> None:
        self.world = world if world is not None else World()
        self.motion = Motion(self.world, hand)
        self.settings = dict(DEFAULT_SETTINGS)
        self.settings.update(settings or {})
        self.faults = faults or Faults()
        self.realtime_factor = realtime_factor
        self.poll_step_s = poll_step_s
        self.lock = threading.RLock()
        self.rx = bytearray()
        self.out = bytearray()
        self.rx_overflows = 0
        self.rx_peak = 0
        self.lines_received: list[str] = []
        self.alarm: int | None = None
        self.critical = False  # hard/soft limit: everything but reset is ignored
        self.disconnected = False
        self.on_disconnect: Callable[[], None] | None = None
        self.coolant_flood = self.coolant_mist = False
        self.spindle_on = False
        self.external_magnet = False
        self.feed_mm_min: float | None = None
        self.spindle_rpm = 0.0
        self._flushes = 0  # receive-buffer flushes (alarm, reset, power loss)
        self.absolute = True
        self.inches = False
        self._reports = 0
        self.motion.block_hooks.append(self._fault_hook)
        self._power_up()

    # -- host side ------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        with self.lock:
            if self.disconnected:
                return
            for byte in data:
                if byte in (0x3F, 0x21, 0x7E, 0x18) or byte >= 0x80:
                    self._realtime(byte)
                    if self.disconnected:
                        return
                    continue
                if self.critical:
                    continue
                if len(self.rx) >= RX_BUFFER_BYTES:
                    self.rx_overflows += 1
                    continue
                self.rx.append(byte)
                self.rx_peak = max(self.rx_peak, len(self.rx))
            self.process()

    def read(self) -> bytes:
        with self.lock:
            data = bytes(self.out)
            self.out.clear()
            return data

    def tick(self, dt_wall_s: float) -> None:
        """Real-time mode: let `dt_wall_s * realtime_factor` of machine time pass."""
        with self.lock:
            if self.realtime_factor is None or self.disconnected:
                return
            self.motion.advance(dt_wall_s * self.realtime_factor)
            self.process()

    def set_external_magnet(self, on: bool) -> None:
        """The Pi's GPIO pin (wired by the simulated table) switching the magnet."""
        with self.lock:
            self.external_magnet = on
            self._update_magnet()

    def set_external_lift(self, down: bool) -> None:
        with self.lock:
            self.motion.lift_down = down

    @property
    def state(self) -> str:
        m = self.motion
        if self.alarm is not None:
            return "Alarm"
        if m.held:
            return "Hold:0"
        if m.queue:
            return "Jog" if m.queue[0].jog else "Run"
        return "Idle"

    # -- internals ------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.out += (text + "\r\n").encode("ascii")

    def _power_up(self) -> None:
        self._say("")
        self._say(BANNER)
        if self.settings[22]:
            self.alarm = 0  # homing required: Alarm state without a code
            self._say("[MSG:'$H'|'$X' to unlock]")

    def _realtime(self, byte: int) -> None:
        m = self.motion
        if byte == 0x18:
            moving = bool(m.queue) and not m.held
            m.halt()
            self.rx.clear()
            self._flushes += 1
            self.critical = False
            self._outputs_off()
            self.feed_mm_min = None
            if moving:
                self.alarm = 3
                self._say("ALARM:3")
            self._say("")
            self._say(BANNER)
            if self.alarm is not None or self.settings[22]:
                self.alarm = self.alarm if self.alarm is not None else 0
                self._say("[MSG:'$H'|'$X' to unlock]")
            return
        if byte == 0x3F:  # '?'
            if self.realtime_factor is None and m.queue and not m.held:
                m.advance(self.poll_step_s)
                self.process()
            self._status()
            return
        if byte == 0x21:  # '!'
            if m.queue and m.queue[0].jog:
                m.halt()
            elif m.queue:
                m.hold()
            return
        if byte == 0x7E:  # '~'
            if m.held:
                m.resume()
                self.process()
            return
        if byte == 0x85:  # jog cancel
            if m.queue and m.queue[0].jog:
                m.halt()
            return

    def _status(self) -> None:
        x, y, z = self.motion.pos
        feed = 0.0
        if self.motion.queue and not self.motion.held:
            b = self.motion.queue[0]
            feed = b.speed_at(b.elapsed_s) * 60.0
        parts = [self.state, f"MPos:{x:.3f},{y:.3f},{z:.3f}"]
        if int(self.settings[10]) & 2:
            parts.append(f"Bf:{PLANNER_BLOCKS - len(self.motion.queue)},"
                         f"{RX_BUFFER_BYTES - len(self.rx)}")
        speed = self.spindle_rpm if self.spindle_on else 0
        parts.append(f"FS:{feed:.0f},{speed:.0f}")
        if self._reports % 10 == 0:
            parts.append("WCO:0.000,0.000,0.000")
        self._reports += 1
        self._say("<" + "|".join(parts) + ">")

    def _outputs_off(self) -> None:
        self.coolant_flood = self.coolant_mist = self.spindle_on = False
        self._update_magnet()

    def _update_magnet(self) -> None:
        grbl = (self.coolant_flood or self.coolant_mist or self.spindle_on) \
            and not self.disconnected
        self.motion.set_magnet(grbl or self.external_magnet)

    def _fault_hook(self, motion: Motion, block: object, carrying: bool) -> None:
        f = self.faults
        n = motion.blocks_done + 1
        if f.drop_at_carry_block is not None and carrying and \
                motion.carry_blocks == f.drop_at_carry_block:
            f.drop_at_carry_block = None
            f.fired.append("drop")
            motion.drop()
        if f.missed_step_at_block == n:
            f.missed_step_at_block = None
            f.fired.append("missed_step")
            motion.slip = (motion.slip[0] + f.missed_step_mm[0],
                           motion.slip[1] + f.missed_step_mm[1])
        if f.alarm_at_block == n:
            f.alarm_at_block = None
            f.fired.append("alarm")
            self._raise_alarm(f.alarm_code)
        if f.disconnect_at_block == n:
            f.disconnect_at_block = None
            f.fired.append("disconnect")
            self.disconnect()

    def disconnect(self) -> None:
        """The link dies and the controller loses power: motion stops, outputs go off."""
        with self.lock:
            self.motion.halt()
            self.disconnected = True
            self.coolant_flood = self.coolant_mist = self.spindle_on = False
            self._update_magnet()  # a magnet on the Pi's pin stays as the Pi left it
            self.rx.clear()
            self._flushes += 1
            if self.on_disconnect is not None:
                self.on_disconnect()

    def power_up(self) -> None:
        """The cable is plugged back in after `disconnect`: GRBL boots again.  Its position
        counter restarts at zero wherever the carriage stands (the physical offset is kept
        as slip, so only homing puts the two back together)."""
        with self.lock:
            m = self.motion
            m.halt()
            m.slip = (m.slip[0] + m.pos[0], m.slip[1] + m.pos[1])
            m.set_position((0.0, 0.0, m.pos[2]))
            self.disconnected = False
            self.critical = False
            self.alarm = None
            self.rx.clear()
            self.out.clear()
            self.feed_mm_min = None
            self._outputs_off()
            self._power_up()

    def _raise_alarm(self, code: int) -> None:
        self.motion.halt()
        self.rx.clear()
        self._flushes += 1
        self._outputs_off()
        self.alarm = code
        self._say(f"ALARM:{code}")
        if code in (1, 2):
            self.critical = True
            self._say("[MSG:Reset to continue]")

    # -- line processing ----------------------------------------------------------------------
    def process(self) -> None:
        """Execute complete lines from the receive buffer until one has to wait."""
        while not self.disconnected:
            nl = self.rx.find(b"\n")
            if nl < 0:
                cr = self.rx.find(b"\r")
                if cr < 0:
                    return
                nl = cr
            raw = self.rx[:nl].decode("ascii", "replace")
            flushes = self._flushes
            if not self._execute(raw):
                return  # blocked: leave the line in the buffer
            if flushes != self._flushes:
                continue  # an alarm or reset emptied the buffer while the line ran
            del self.rx[: nl + 1]
            if self.rx[:1] == b"\n" and raw.endswith("\r"):
                del self.rx[:1]

    def _wait_queue(self, space: bool = False) -> bool:
        """True when the queue has room (space) or is empty; advances time if instant."""
        m = self.motion
        if self.realtime_factor is None and not m.held:
            if space:
                m.run_until_space(PLANNER_BLOCKS)
            else:
                m.run_until_idle()
        if self.disconnected or self.critical:
            return False
        return (len(m.queue) < PLANNER_BLOCKS) if space else not m.queue

    def _execute(self, raw: str) -> bool:
        line = clean_line(raw)
        if len(line) > LINE_MAX:
            self.lines_received.append(line)
            self._say("error:11")
            return True
        if line.startswith("$"):
            return self._system(line)
        if not line:
            self._say("ok")
            return True
        if self.alarm is not None or (self.motion.queue and self.motion.queue[0].jog):
            self.lines_received.append(line)
            self._say("error:9")  # G-code is locked out in the Alarm and Jog states
            return True
        flushes = self._flushes
        result = self._gcode(line)
        if result is None:
            return False
        self.lines_received.append(line)
        if flushes == self._flushes:  # no response for a line lost to an alarm
            self._say(result)
        return True

    def _system(self, line: str) -> bool:
        m = self.motion
        if line.startswith("$J="):
            if self.alarm is not None:
                self._say("error:9")
                return True
            return self._jog(line[3:])
        if line in ("$", "$$", "$I", "$G", "$#", "$X", "$H", "$N") or "=" in line:
            if m.queue and line not in ("$", "$G", "$I"):
                self._say("error:8")
                return True
        self.lines_received.append(line)
        if line == "$":
            self._say("[HLP:$$ $# $G $I $N $x=val $Nx=line $J=line $SLP $C $X $H ~ ! ? ctrl-x]")
        elif line == "$$":
            for k in sorted(self.settings):
                v = self.settings[k]
                self._say(f"${k}={int(v)}" if k in INT_SETTINGS else f"${k}={v:.3f}")
        elif line == "$I":
            self._say("[VER:1.1h.20190830:]")
            self._say("[OPT:V,15,128]")
        elif line == "$G":
            coolant = "M8" if self.coolant_flood else "M7" if self.coolant_mist else "M9"
            self._say(f"[GC:G1 G54 G17 G21 G{90 if self.absolute else 91} G94 "
                      f"M{3 if self.spindle_on else 5} {coolant} T0 "
                      f"F{self.feed_mm_min or 0:.0f} S0]")
        elif line == "$#":
            self._say("[G54:0.000,0.000,0.000]")
        elif line == "$X":
            if self.alarm is not None:
                self._say("[MSG:Caution: Unlocked]")
            self.alarm = None
        elif line == "$H":
            if not self.settings[22]:
                self._say("error:5")
                return True
            if self.faults.homing_failures > 0:
                self.faults.homing_failures -= 1
                self.faults.fired.append("homing")
                self._raise_alarm(9)  # GRBL: no `ok` for a failed cycle, only the alarm
                self.critical = True
                self._say("[MSG:Reset to continue]")
                return True
            m.set_position((0.0, 0.0, 0.0))
            m.slip = (0.0, 0.0)
            self.alarm = None
        elif "=" in line and line[1:line.index("=")].isdigit():
            key = int(line[1:line.index("=")])
            try:
                value = float(line[line.index("=") + 1:])
            except ValueError:
                self._say("error:2")
                return True
            if key not in self.settings:
                self._say("error:3")
                return True
            if value < 0:
                self._say("error:4")
                return True
            self.settings[key] = value
        else:
            self._say("error:3")
            return True
        self._say("ok")
        return True

    def _axis_limits(self, delta: tuple[float, float, float], feed_mm_min: float,
                     ) -> tuple[float, float]:
        length = math.sqrt(sum(d * d for d in delta))
        rate, accel = feed_mm_min, math.inf
        for i, d in enumerate(delta):
            u = abs(d) / length if length else 0.0
            if u > 1e-12:
                rate = min(rate, self.settings[110 + i] / u)
                accel = min(accel, self.settings[120 + i] / u)
        return rate / 60.0, (accel if accel < math.inf else self.settings[120])

    def _queue_move(self, target: tuple[float, float, float], feed: float, jog: bool) -> None:
        m = self.motion
        start = m.queue[-1].end if m.queue else m.pos
        delta = tuple(t - s for t, s in zip(target, start, strict=False))
        if math.sqrt(sum(d * d for d in delta)) < 1e-6:
            return
        rate, accel = self._axis_limits(delta, feed)  # type: ignore[arg-type]
        m.add_block(target, rate, accel, jog)

    def _soft_limit_ok(self, target: tuple[float, float, float]) -> bool:
        if not self.settings[20]:
            return True
        return all(-self.settings[130 + i] <= target[i] <= 0.0 for i in range(3))

    def _jog(self, body: str) -> bool:
        if not self._wait_queue(space=True):
            return False
        words = words_of(body)
        if words is None or "F" not in words:
            self._say("error:16")
            return True
        gs = words.get("G", [])
        relative = 91 in gs or (not self.absolute and 90 not in gs)
        base = (self.motion.queue[-1].end if self.motion.queue else self.motion.pos)
        target = list(base)
        for i, ax in enumerate("XYZ"):
            if ax in words:
                v = words[ax][0]
                target[i] = base[i] + v if relative else v
        t = (target[0], target[1], target[2])
        if not self._soft_limit_ok(t):
            self._say("error:15")
            return True
        self._queue_move(t, words["F"][0], jog=True)
        self.lines_received.append("$J=" + body)
        self._say("ok")
        return True

    def _gcode(self, line: str) -> str | None:
        """Execute one G-code block; its response, or None if it must wait."""
        if not line[0].isalpha():
            return "error:1"
        words = words_of(line)
        if words is None:
            return "error:2"
        for letter in words:
            if letter not in "GMXYZFSPNT":
                return "error:20"
        for letter, vals in words.items():
            if letter != "G" and letter != "M" and len(vals) > 1:
                return "error:25"
        gs = [int(g) if float(g).is_integer() else g for g in words.get("G", [])]
        ms = [int(v) for v in words.get("M", [])]
        for g in gs:
            if g not in (0, 1, 4, 17, 21, 20, 90, 91, 94, 54):
                return "error:20"
        for mc in ms:
            if mc not in (0, 2, 3, 4, 5, 7, 8, 9, 30):
                return "error:20"
        motion_g = [g for g in gs if g in (0, 1)]
        if len(motion_g) > 1:
            return "error:21"
        if 4 in gs:
            if "P" not in words:
                return "error:28"
            if not self._wait_queue():
                return None
            self.motion.advance(max(0.0, words["P"][0]))
            return "ok"
        if ms and any(mc in (3, 4, 5, 7, 8, 9) for mc in ms):
            if not self._wait_queue():
                return None
        if 21 in gs:
            self.inches = False
        if 20 in gs:
            self.inches = True
        if 90 in gs:
            self.absolute = True
        if 91 in gs:
            self.absolute = False
        if "F" in words:
            self.feed_mm_min = words["F"][0] * (25.4 if self.inches else 1.0)
        if "S" in words:
            self.spindle_rpm = words["S"][0]
        axes = [a for a in "XYZ" if a in words]
        if axes:
            if not self._wait_queue(space=True):
                return None
            g = motion_g[0] if motion_g else 1
            if g == 1 and not self.feed_mm_min:
                return "error:22"
            base = self.motion.queue[-1].end if self.motion.queue else self.motion.pos
            scale = 25.4 if self.inches else 1.0
            target = list(base)
            for i, ax in enumerate("XYZ"):
                if ax in words:
                    v = words[ax][0] * scale
                    target[i] = v if self.absolute else base[i] + v
            t = (target[0], target[1], target[2])
            if not self._soft_limit_ok(t):
                self._raise_alarm(2)
                return "ok"  # not sent: the alarm flushed the line
            feed = self.settings[110] * 10 if g == 0 else (self.feed_mm_min or 0.0)
            self._queue_move(t, feed, jog=False)
        for mc in ms:
            if mc in (3, 4):
                self.spindle_on = self.spindle_rpm > 0
            elif mc == 5:
                self.spindle_on = False
            elif mc == 8:
                self.coolant_flood = True
            elif mc == 7:
                self.coolant_mist = True
            elif mc == 9:
                self.coolant_flood = self.coolant_mist = False
            elif mc in (2, 30):
                if not self._wait_queue():
                    return None
                self.coolant_flood = self.coolant_mist = self.spindle_on = False
        self._update_magnet()
        return "ok"
