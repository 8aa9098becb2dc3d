"""Whole games played by two simulated people, with irregularities planted on purpose.

`script_game(seed, ...)` plays random moves with the hands of `sim.opponent` and, now and then,
breaks a rule the way people do (RULES.md s.1): touches one piece and plays another, ignores a
capture, captures too few or stops a chain short, leaves captured pieces on the board or stops
removing them half-way, removes a piece that was not captured or one of their own, moves a man
backward or two squares, moves the opponent's piece, plays twice in a row, takes a move back,
nudges pieces.  The result is the table recorded frame by frame plus the ground truth: every
move as a scorer would write it and every planted irregularity with its squares.

After an irregular move the game goes on from the position as it stands (the opponent's next
move accepts it), as a scorer records it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from game.board import BaseBoard, Board, Color, Move, Piece
from game.movegen import generator_for
from game.referee import played_name
from game.referee_match import capture_paths
from game.variants import Variant, find_variant
from sim.opponent import Hand, Table, TableState, displaced_squares
from sim.world import World

KINDS = ("touch_move", "mandatory_capture", "majority", "not_removed", "interrupted_removal",
         "extra_removed", "own_removed", "illegal_step", "out_of_turn", "two_in_a_row",
         "takeback", "nudge")

# The `damas replay` event type each planted irregularity should produce.
EVENT_OF_KIND = {
    "touch_move": "touch_move", "mandatory_capture": "mandatory_capture",
    "majority": "majority", "not_removed": "removal", "interrupted_removal": "removal",
    "extra_removed": "removal", "own_removed": "removal", "illegal_step": "illegal",
    "out_of_turn": "illegal", "two_in_a_row": "illegal", "takeback": "illegal",
    "nudge": "touch_move",
}


@dataclass(frozen=True)
class TrueMove:
    """A move that changed the position, as a scorer writes it."""

    ply: int
    text: str
    color: Color
    path: tuple[int, ...]
    captured: tuple[int, ...]  # the pieces the move captured (removed or not)
    hand_gone_frame: int  # first frame after the move with no hand in view


@dataclass(frozen=True)
class Planted:
    kind: str  # one of KINDS
    event: str  # the event type `damas replay` should report
    ply: int
    move: str  # the move it belongs to
    squares: tuple[int, ...]
    penalised: bool = True  # False: informational (a touched piece that could not move...)


@dataclass
class GameScript:
    variant: Variant
    start_fen: str
    table: Table
    moves: list[TrueMove] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)

    @property
    def frames(self) -> list:  # type: ignore[type-arg]
        return self.table.frames


@dataclass(frozen=True)
class ScriptConfig:
    plies: int = 20
    irregularity_rate: float = 0.3
    kinds: tuple[str, ...] = KINDS
    warmup_plies: tuple[int, int] = (0, 16)  # random legal plies before the recording starts
    fps: float = 15.0
    removal_break_probability: float = 0.3  # the hand leaves between two removals
    announce_probability: float = 0.0  # a nudge is announced ("ajeito") by a button press
    idle_s: tuple[float, float] = (0.8, 1.5)
    final_wait_s: float = 8.0  # long enough for an unfinished removal to be called


def script_game(seed: int, variant: str | Variant = "brazilian",
                config: ScriptConfig | None = None) -> GameScript:
    cfg = config or ScriptConfig()
    v = find_variant(variant) if isinstance(variant, str) else variant
    rng = random.Random(seed)
    board = Board(None, v)
    for _ in range(rng.randint(*cfg.warmup_plies)):
        legal = board.legal_moves
        if not legal or board.outcome() is not None:
            break
        board.push(rng.choice(legal))
    world = World.from_board(board)
    table = Table(world, v, cfg.fps)
    script = GameScript(v, board.fen(), table)
    player = _Player(script, cfg, rng, board)
    table.wait(1.0)
    for _ in range(cfg.plies):
        if not player.step():
            break
    table.wait(cfg.final_wait_s)
    return script


class _Player:
    """Both people at the table, taking turns."""

    def __init__(self, script: GameScript, cfg: ScriptConfig, rng: random.Random,
                 board: Board) -> None:
        self.s = script
        self.cfg = cfg
        self.rng = rng
        self.board = board.copy(stack=False)
        self.table = script.table
        self.hands = {c: Hand(self.table, c, rng) for c in Color}
        self.crown_due: int | None = None
        self.ply = 0

    # -- one turn -----------------------------------------------------------------------------
    def step(self) -> bool:
        b = self.board
        if not b.legal_moves or b.outcome() is not None:
            return False
        hand = self.hands[b.turn]
        if self.crown_due is not None:  # the opponent crowns the man that reached the far row
            crowned = b.piece_at(self.crown_due)
            assert crowned is not None
            hand.grab_from_tray(crowned.color)
            hand.put(self.crown_due, on_top=True)
            self.crown_due = None
        kind = None
        if self.rng.random() < self.cfg.irregularity_rate:
            options = [k for k in self.cfg.kinds if self._applicable(k)]
            if options:
                kind = self.rng.choice(options)
        if kind is None:
            self._play(hand, self.rng.choice(b.legal_moves))
        else:
            getattr(self, "_plant_" + kind)(hand)
        self._rest(hand)
        return True

    def _rest(self, hand: Hand) -> None:
        if self.table.hand_pose is not None:
            hand.leave()
        self.table.wait(self.rng.uniform(*self.cfg.idle_s))

    def _applicable(self, kind: str) -> bool:
        b = self.board
        legal = b.legal_moves
        captures = [m for m in legal if m.captured]
        if kind == "touch_move":
            return len({m.from_square for m in legal}) >= 2
        if kind == "mandatory_capture":
            return bool(captures) and bool(self._quiet_raw())
        if kind == "majority":
            return bool(self._short_captures())
        if kind in ("not_removed", "extra_removed"):
            return bool(captures) and (kind == "not_removed" or self._spare_opponent(captures))
        if kind == "interrupted_removal":
            return any(len(m.captured) >= 2 for m in captures)
        if kind == "own_removed":
            return any(self._own_spare(m) for m in legal)
        if kind == "illegal_step":
            return bool(self._illegal_steps())
        if kind in ("out_of_turn", "two_in_a_row"):
            return not captures and bool(self._other_side_quiet(b))
        if kind == "takeback":
            return not captures
        if kind == "nudge":
            return len(legal) >= 1 and len(b.piece_map()) >= 3
        raise ValueError(f"unknown irregularity {kind!r}")

    # -- the physical move ------------------------------------------------------------------------
    def _play(self, hand: Hand, move: Move, remove: tuple[int, ...] | None = None,
              extra: tuple[int, ...] = (), careless: bool = False, kind: str = "",
              color: Color | None = None) -> TrueMove:
        """Carry the piece along `move.path`, then take off `remove` (default: the captured
        pieces, in jump order) and then `extra` pieces; record the move as the scorer would."""
        b = self.board
        before = b.copy(stack=False)
        mover = color or b.turn
        hand.grab(move.path[0])
        for sq in move.path[1:-1]:
            hand.travel(*self.table.centre_of(sq))
        hand.put(move.path[-1], hand.careless_offset() if careless else None)
        to_remove = move.captured if remove is None else remove
        for i, sq in enumerate(tuple(to_remove) + tuple(extra)):
            # A break only between captured pieces: once they are all off, the move is over.
            if 0 < i < len(to_remove) and self.rng.random() < self.cfg.removal_break_probability:
                hand.leave()
                self.table.wait(self.rng.uniform(0.5, 1.0))
            hand.grab(sq)
            hand.put_in_tray()
        text = played_name(before, move.path, move.captured)
        piece = before.piece_at(move.path[0])
        assert piece is not None
        promotes = self._promotes(before, piece, move, kind)
        after = self.table.placement()
        # Kings: what the rules say, not what is stacked yet.
        for sq, p in before.piece_map().items():
            if p.is_king and after.piece_at(sq) is not None and sq != move.path[0]:
                after.set_piece_at(sq, p)
        moved = Piece.of(piece.color, piece.is_king or promotes)
        after.set_piece_at(move.path[-1], moved)
        if promotes:
            self.crown_due = move.path[-1]
        next_turn = b.turn.other if mover is b.turn else b.turn
        self.board = Board.from_base(after, next_turn)
        # The frame at which the hand is gone is known only after it leaves: filled in below.
        true = TrueMove(self.ply, text, mover, move.path, move.captured, -1)
        self.s.moves.append(true)
        self.ply += 1
        hand.leave()
        gone = len(self.table.frames) - 1
        self.s.moves[-1] = TrueMove(true.ply, text, mover, move.path, move.captured, gone)
        return self.s.moves[-1]

    def _promotes(self, before: Board, piece: Piece, move: Move, kind: str) -> bool:
        if piece.is_king:
            return False
        far = before.geometry.height - 1 if piece.color is Color.WHITE else 0
        if before.geometry.coords[move.path[-1]][1] != far:
            return False
        return kind != "stopped_short"

    def _plant(self, kind: str, move: TrueMove, squares: tuple[int, ...],
               penalised: bool = True) -> None:
        self.s.planted.append(Planted(kind, EVENT_OF_KIND[kind], move.ply, move.text,
                                      tuple(squares), penalised))

    # -- irregularities ---------------------------------------------------------------------------
    def _plant_touch_move(self, hand: Hand) -> None:
        b = self.board
        legal = b.legal_moves
        move = self.rng.choice(legal)
        others = sorted({m.from_square for m in legal} - {move.from_square})
        touched = self.rng.choice(others)
        hand.hesitate(touched)  # lifted and held: its square is seen empty
        hand.put(touched, hand.careless_offset())
        played = self._play(hand, move)
        self._plant("touch_move", played, (touched,))

    def _plant_nudge(self, hand: Hand) -> None:
        b = self.board
        legal = b.legal_moves
        move = self.rng.choice(legal)
        # A piece already off-centre would not look nudged to a camera that judges centring.
        off = self._off_centre()
        candidates = sorted(s for s in b.piece_map() if s != move.from_square
                            and s not in move.captured and s not in off)
        if not candidates:
            self._play(hand, move)
            return
        sq = self.rng.choice(candidates)
        announced = self.rng.random() < self.cfg.announce_probability
        if announced:
            self.table.announce_adjust()
        hand.nudge(sq)
        if announced:
            hand.leave()
            self.table.wait(0.8)
        played = self._play(hand, move)
        if not announced:
            p = b.piece_at(sq)
            assert p is not None
            own = p.color is b.turn
            movable = own and any(m.from_square == sq for m in legal)
            self._plant("nudge", played, (sq,), penalised=movable)

    def _off_centre(self) -> frozenset[int]:
        t = self.table
        state = TableState(0, 0.0, tuple(t.world.discs), None)
        return displaced_squares(state, t.world, t.variant)

    def _quiet_raw(self) -> list[tuple[int, int]]:
        b = self.board
        g = b.geometry
        raw = generator_for(b.variant).quiet_moves(b.white, b.black, b.kings,
                                                   b.turn is Color.WHITE)
        return [(g.square_of_mask(r[0]), g.square_of_mask(r[1])) for r in raw]

    def _plant_mandatory_capture(self, hand: Hand) -> None:
        frm, to = self.rng.choice(self._quiet_raw())
        played = self._play(hand, Move((frm, to)), kind="mandatory_capture")
        self._plant("mandatory_capture", played, (frm, to))

    def _short_captures(self) -> list[tuple[tuple[int, ...], tuple[int, ...], bool]]:
        b = self.board
        legal_keys = {m.key for m in b.legal_moves}
        out = []
        for sq, p in b.piece_map().items():
            if p.color is not b.turn:
                continue
            for path, order, more in capture_paths(b, b.turn, sq):
                if (path[0], path[-1], frozenset(order)) not in legal_keys:
                    out.append((path, order, more))
        return out

    def _plant_majority(self, hand: Hand) -> None:
        path, order, more = self.rng.choice(self._short_captures())
        kind = "stopped_short" if more else "fewer"
        played = self._play(hand, Move(path, order), kind=kind)
        self._plant("majority", played, (path[0], path[-1]) + order)

    def _plant_not_removed(self, hand: Hand) -> None:
        move = self.rng.choice([m for m in self.board.legal_moves if m.captured])
        played = self._play(hand, move, remove=())
        self._plant("not_removed", played, move.captured)

    def _plant_interrupted_removal(self, hand: Hand) -> None:
        move = self.rng.choice([m for m in self.board.legal_moves if len(m.captured) >= 2])
        k = self.rng.randint(1, len(move.captured) - 1)
        played = self._play(hand, move, remove=move.captured[:k])
        self._plant("interrupted_removal", played, move.captured[k:])

    def _spare_opponent(self, captures: list[Move]) -> bool:
        return any(self._opp_spare(m) for m in captures)

    def _opp_spare(self, move: Move) -> list[int]:
        b = self.board
        return sorted(s for s, p in b.piece_map().items()
                      if p.color is not b.turn and s not in move.captured)

    def _own_spare(self, move: Move) -> list[int]:
        b = self.board
        return sorted(s for s, p in b.piece_map().items()
                      if p.color is b.turn and s != move.from_square)

    def _plant_extra_removed(self, hand: Hand) -> None:
        move = self.rng.choice([m for m in self.board.legal_moves
                                if m.captured and self._opp_spare(m)])
        extra = self.rng.choice(self._opp_spare(move))
        played = self._play(hand, move, extra=(extra,))
        self._plant("extra_removed", played, (extra,))

    def _plant_own_removed(self, hand: Hand) -> None:
        move = self.rng.choice([m for m in self.board.legal_moves if self._own_spare(m)])
        own = self.rng.choice(self._own_spare(move))
        played = self._play(hand, move, extra=(own,))
        self._plant("own_removed", played, (own,))

    def _illegal_steps(self) -> list[tuple[int, int]]:
        """A man one square backward, or two squares forward over an empty square."""
        b = self.board
        g = b.geometry
        occ = b.white | b.black
        fwd = 1 if b.turn is Color.WHITE else -1
        out = []
        legal_ends = {(m.from_square, m.to_square) for m in b.legal_moves}
        for sq, p in b.piece_map().items():
            if p.color is not b.turn or p.is_king:
                continue
            f, r = g.coords[sq]
            for df in (-1, 1):
                back = g.square_at(f + df, r - fwd)
                if back is not None and not occ & g.mask_of[back]:
                    out.append((sq, back))
                mid = g.square_at(f + df, r + fwd)
                two = g.square_at(f + 2 * df, r + 2 * fwd)
                if (mid is not None and two is not None and not occ & g.mask_of[mid]
                        and not occ & g.mask_of[two]):
                    out.append((sq, two))
        return [s for s in out if s not in legal_ends]

    def _plant_illegal_step(self, hand: Hand) -> None:
        frm, to = self.rng.choice(self._illegal_steps())
        played = self._play(hand, Move((frm, to)), kind="illegal")
        self._plant("illegal_step", played, (frm, to))

    def _other_side_quiet(self, b: Board) -> list[Move]:
        flipped = b.copy(stack=False)
        flipped.turn = b.turn.other
        return [m for m in flipped.legal_moves if not m.captured]

    def _plant_out_of_turn(self, hand: Hand) -> None:
        b = self.board
        move = self.rng.choice(self._other_side_quiet(b))
        played = self._play(hand, move, color=b.turn.other)
        self._plant("out_of_turn", played, (move.from_square, move.to_square))

    def _plant_two_in_a_row(self, hand: Hand) -> None:
        first = self.rng.choice(self.board.legal_moves)
        self._play(hand, first)
        self.table.wait(self.rng.uniform(*self.cfg.idle_s))
        b = self.board  # the other side to move now; the same person plays again
        options = self._other_side_quiet(b)
        if not options:
            return
        move = self.rng.choice(options)
        played = self._play(self.hands[b.turn.other], move, color=b.turn.other)
        self._plant("two_in_a_row", played, (move.from_square, move.to_square))

    def _plant_takeback(self, hand: Hand) -> None:
        b = self.board
        move = self.rng.choice(b.legal_moves)
        self._play(hand, move)
        self.table.wait(self.rng.uniform(*self.cfg.idle_s))
        back = Move((move.to_square, move.from_square))
        played = self._play(hand, back, color=b.turn)
        # A take-back restores the earlier position, with the same player to move.
        restored = b.copy(stack=False)
        self.board = restored
        self.crown_due = None  # a man crowned and taken back is a man again
        self._plant("takeback", played, (move.from_square, move.to_square))
        self.table.wait(self.rng.uniform(*self.cfg.idle_s))
        self._play(hand, self.rng.choice(self.board.legal_moves))


def start_placement(script: GameScript) -> BaseBoard:
    return Board(script.start_fen, script.variant).placement()


# -- rendering a scripted game ------
def game_scene(seed: int, script: GameScript, width_px: int = 640) -> object:
    """A random scene (board, pieces, light, camera pose) for rendering a scripted game, at
    `width_px` (the focal length scales with it, so the view is the same)."""
    from dataclasses import replace as dc_replace

    from sim.scene import sample_scene

    spec = script.table.world.spec
    scene = sample_scene(random.Random(seed), spec, hand_probability=0.0)
    cam = scene.camera
    k = width_px / cam.width_px
    cam = dc_replace(cam, width_px=width_px, height_px=round(cam.height_px * k),
                     focal_px=cam.focal_px * k)
    return dc_replace(scene, camera=cam)


def render_script(script: GameScript, scene: object, seed: int = 0,  # type: ignore[no-untyped-def]
                  bump: tuple[int, object] | None = None):
    """Yield `(frame_index, sim.render.Frame)` for every recorded state.  A state identical to
    the previous one (no hand, nothing moved) reuses its image, as a still camera would give
    nearly the same picture; everything else is drawn afresh.  `bump` (frame index, camera):
    from that frame on the camera stands there (somebody knocked it)."""
    from dataclasses import replace as dc_replace

    from sim.opponent import scene_hand
    from sim.render import render

    table = script.table
    spec = table.world.spec
    previous_key = None
    frame = None
    for state in script.frames:
        if bump is not None and state.frame == bump[0]:
            scene = dc_replace(scene, camera=bump[1])  # type: ignore[type-var]
            frame = None
        key = (tuple((d.color, round(d.x_mm, 2), round(d.y_mm, 2), d.level)
                     for d in state.discs), state.hand)
        if frame is None or key != previous_key or state.hand is not None:
            world = World(spec, [dc_replace(d) for d in state.discs])
            sc = scene
            if state.hand is not None:
                sc = dc_replace(scene, hand=scene_hand(state.hand, scene, table.extent_mm))
            frame = render(world, sc, script.variant, seed=seed * 100003 + state.frame)
        previous_key = key
        yield state.frame, frame
