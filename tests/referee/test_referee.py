"""The referee on hand-built observation sequences.  Every expected move, square and verdict is
worked out by hand from RULES.md s.1 (Brazilian draughts), not taken from the code."""

from __future__ import annotations

from game.board import BaseBoard, Color, Piece
from game.observation import Observation
from game.referee import EventType, Policy, Referee, RefereeConfig
from tests.referee.helpers import Clock, game, place, sq, sqs

START = BaseBoard.starting("brazilian")


def moved(board: BaseBoard, frm: str, to: str, remove: str = "") -> BaseBoard:
    out = board.placement()
    piece = out.remove_piece_at(sq(frm))
    out.set_piece_at(sq(to), piece)
    for name in remove.split():
        out.set_piece_at(sq(name), None)
    return out


def without(board: BaseBoard, names: str) -> BaseBoard:
    out = board.placement()
    for name in names.split():
        out.set_piece_at(sq(name), None)
    return out


class Run:
    """Feeds frames to a referee the way `vision.stream` does."""

    def __init__(self, fen: str | None = None, policy: Policy = Policy.RECORD,
                 **config: object) -> None:
        self.ref = Referee(game(fen), RefereeConfig(policy=policy, **config))  # type: ignore[arg-type]
        self.clock = Clock()
        self.events: list = []

    def still(self, board: BaseBoard, n: int = 3, displaced: str = "",
              occluded: str = "") -> None:
        for _ in range(n):
            self.events += self.ref.observe(
                self.clock.obs(board, displaced=displaced, occluded=occluded), True)

    def hand(self, board: BaseBoard, occluded: str = "", displaced: str = "") -> None:
        self.events += self.ref.observe(
            self.clock.obs(board, occluded=occluded, displaced=displaced, hand=True), False)

    def play(self, before: BaseBoard, after: BaseBoard, frm: str, to: str) -> None:
        """A hand reaches over `frm`, carries the piece (its square seen empty) to `to`."""
        self.hand(before, occluded=frm)
        self.hand(without(before, frm), occluded=to)
        self.hand(after, occluded=to)
        self.still(after)

    def types(self) -> list[str]:
        return [e.type.value for e in self.events]

    def moves(self) -> list[str]:
        return [e.move for e in self.events if e.type is EventType.MOVE]

    def removals(self) -> list[set[str]]:
        """The squares each removal event names, in order."""
        return [names(e.squares) for e in self.events if e.type is EventType.REMOVAL]


def names(squares: tuple[int, ...]) -> set[str]:
    b = BaseBoard.empty("brazilian")
    return {b.square_name(s) for s in squares}


# -- legal moves -----
def test_quiet_move_from_the_start() -> None:
    run = Run()
    run.still(START)
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move"]
    assert run.moves() == ["c3-d4"]
    assert run.ref.board.turn is Color.BLACK
    assert run.ref.board.piece_at(sq("d4")) is Piece.WHITE_MAN


def test_hand_over_squares_is_not_a_move() -> None:
    # While the hand covers c3 and d4 those squares are unknown, not empty: nothing happens.
    run = Run()
    run.still(START)
    for _ in range(5):
        run.hand(START, occluded="c3 d4 b4 e3")
    assert run.events == []
    assert run.ref.board.fen() == game().fen()


def test_flying_king_landing_square_is_the_one_seen() -> None:
    # White king a1 slides along the long diagonal; it stops on e5 (b2, c3, d4 are empty).
    fen = "W:WKa1:Bh8"
    run = Run(fen)
    before = place("Ka1", "h8")
    run.play(before, moved(before, "a1", "e5"), "a1", "e5")
    assert run.moves() == ["a1-e5"]
    assert run.ref.board.piece_at(sq("e5")) is Piece.WHITE_KING


def test_crowning_a_man_on_the_far_row_without_its_crown_yet() -> None:
    # c7-d8 ends on White's far row: the man becomes a king (the crown is put on later).
    run = Run("W:Wc7:Ba3")
    before = place("c7", "a3")
    after = moved(before, "c7", "d8")  # seen as a man: nobody has stacked the crown yet
    run.play(before, after, "c7", "d8")
    assert run.moves() == ["c7-d8"]
    assert run.ref.board.piece_at(sq("d8")) is Piece.WHITE_KING
    # The crown goes on: same position, no new event.
    run.hand(after, occluded="d8")
    run.still(place("Kd8", "a3"))
    assert run.types() == ["move"]


def test_multi_capture_with_pieces_removed_one_by_one() -> None:
    # c3 jumps d4 (landing e5) then f6 (landing g7): c3xg7, captured d4 then f6.
    run = Run("W:Wc3:Bd4,f6,a7")
    before = place("c3", "d4 f6 a7")
    landed = moved(before, "c3", "g7")
    run.play(before, landed, "c3", "g7")  # captured pieces still on the board: not yet a move
    assert run.events == []
    run.hand(landed, occluded="d4")
    run.still(without(landed, "d4"))  # first removal done, hand gone for a moment
    assert run.events == []
    run.hand(without(landed, "d4"), occluded="f6")
    run.still(without(landed, "d4 f6"))
    assert run.types() == ["move"]
    assert run.moves() == ["c3xg7"]
    assert set(run.events[0].squares) == set(sqs("c3 g7"))
    assert run.ref.board.piece_at(sq("g7")) is Piece.WHITE_MAN
    assert run.ref.board.piece_at(sq("d4")) is None and run.ref.board.piece_at(sq("f6")) is None


def test_two_captures_with_the_same_ends_told_apart_by_the_removed_pieces() -> None:
    # King e7 takes three either way, ending on a5 (worked by hand):
    #   e7 x f6 -> g5, x e3 -> d2, x b4 -> a5   captures f6, e3, b4
    #   e7 x f6 -> h4, x f2 -> e1, x b4 -> a5   captures f6, f2, b4
    # Seen: the king on a5, then f6, e3, b4 removed: it was the first one.
    fen = "W:WKe7:Bf2,e3,b4,d6,f6"
    before = place("Ke7", "f2 e3 b4 d6 f6")
    landed = moved(before, "e7", "a5")
    for removed, expected, gone in (("f6 e3 b4", "e7xg5xd2xa5", "e3"),
                                    ("f6 f2 b4", "e7xh4xe1xa5", "f2")):
        run = Run(fen)
        run.play(before, landed, "e7", "a5")
        partial = ""
        for name in removed.split():
            partial += " " + name
            assert run.events == []
            run.hand(without(landed, partial.strip()), occluded=name)
            run.still(without(landed, partial.strip()))
        assert run.types() == ["move"], run.events
        assert run.moves() == [expected]
        b = run.ref.board
        assert b.piece_at(sq(gone)) is None
        other = "f2" if gone == "e3" else "e3"
        assert b.piece_at(sq(other)) is Piece.BLACK_MAN
        assert b.piece_at(sq("d6")) is Piece.BLACK_MAN


def test_ambiguous_until_removal_says_which() -> None:
    # Same position: with only f6 and b4 removed (common to both captures) the move is unknown;
    # the referee keeps waiting and reports nothing.
    run = Run("W:WKe7:Bf2,e3,b4,d6,f6")
    before = place("Ke7", "f2 e3 b4 d6 f6")
    run.play(before, without(moved(before, "e7", "a5"), "f6 b4"), "e7", "a5")
    assert run.events == []


# -- touch-move and adjusting ---------------------------------------------------------------------
def test_touch_one_piece_and_play_another() -> None:
    # White lifts e3 (its square seen empty while the hand holds it), puts it back off-centre,
    # then plays c3-d4.  e3 could legally move (e3-d4, e3-f4): touch-move.
    run = Run()
    run.still(START)
    run.hand(START, occluded="e3")
    run.hand(without(START, "e3"), occluded="f4 g5")
    run.hand(without(START, "e3"), occluded="f4 g5")
    run.hand(START, occluded="d4", displaced="e3")
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move", "touch_move"]
    touch = run.events[1]
    assert names(touch.squares) == {"e3"}
    assert "could legally move" in touch.detail and touch.move == "c3-d4"
    assert touch.penalised


def test_touched_piece_that_could_not_move_is_no_penalty() -> None:
    # a1 is blocked by b2 at the start: touching it and playing c3-d4 is not punished.
    run = Run()
    run.still(START)
    run.hand(START, occluded="a1", displaced="")
    run.hand(START, occluded="b2", displaced="a1")
    run.hand(START, occluded="b2", displaced="a1")
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move", "touch_move"]
    assert names(run.events[1].squares) == {"a1"}
    assert "could not legally move" in run.events[1].detail
    assert not run.events[1].penalised
    assert run.ref.record[-1].legal


def test_single_noisy_frame_is_not_a_touch() -> None:
    run = Run()
    run.still(START)
    run.hand(without(START, "e3"), occluded="c3")  # one frame only: classifier noise
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move"]


def test_announced_adjustment_is_not_a_touch() -> None:
    run = Run()
    run.still(START)
    run.ref.announce_adjust()
    run.hand(START, occluded="e3 f2")
    run.hand(START, occluded="f4", displaced="e3")
    run.hand(START, occluded="f4", displaced="e3")
    run.still(START, displaced="e3")
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move"]


def test_unannounced_adjustment_of_opponent_piece_is_informational() -> None:
    # White nudges Black's f6 without saying "ajeito", then plays c3-d4.
    run = Run()
    run.still(START)
    run.hand(START, occluded="e7")
    run.hand(START, occluded="e5", displaced="f6")
    run.hand(START, occluded="e5", displaced="f6")
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["move", "touch_move"]
    assert names(run.events[1].squares) == {"f6"}
    assert "adjusted without announcing" in run.events[1].detail
    assert not run.events[1].penalised


def test_insist_touch_move_restore_then_play_the_touched_piece() -> None:
    run = Run(policy=Policy.INSIST)
    run.still(START)
    run.hand(START, occluded="e3")
    run.hand(without(START, "e3"), occluded="g5")
    run.hand(without(START, "e3"), occluded="g5")
    run.hand(START, occluded="d4")
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    assert run.types() == ["touch_move"]  # not accepted: no move event
    assert {run.ref.board.square_name(s): p for s, p in run.ref.restore.items()} == {
        "c3": Piece.WHITE_MAN, "d4": None}
    assert names(tuple(run.ref.must_play)) == {"e3"}
    run.play(moved(START, "c3", "d4"), START, "d4", "c3")  # put back
    assert run.ref.restore == {}
    run.play(START, moved(START, "e3", "f4"), "e3", "f4")
    assert run.types() == ["touch_move", "move"]
    assert run.moves() == ["e3-f4"]


# -- captures against the rules -----
def test_non_capture_while_a_capture_is_due() -> None:
    # c3 must take d4 (c3xe5); White plays g3-h4 instead.
    run = Run("W:Wc3,g3:Bd4")
    before = place("c3 g3", "d4")
    run.play(before, moved(before, "g3", "h4"), "g3", "h4")
    assert run.types() == ["move", "mandatory_capture"]
    assert run.moves() == ["g3-h4"]
    assert names(run.events[1].squares) == {"g3", "h4"}
    assert "c3xe5" in run.events[1].detail
    assert run.ref.board.turn is Color.BLACK  # RECORD: play on as it stands
    assert "mandatory-capture" in run.ref.record[-1].comments[0]


def test_capture_of_fewer_pieces_than_the_majority() -> None:
    # c3xe5xg7 takes two (d4, f6); e3xc5 takes only d4.  White plays e3xc5.
    run = Run("W:Wc3,e3:Bd4,f6")
    before = place("c3 e3", "d4 f6")
    run.play(before, moved(before, "e3", "c5", remove="d4"), "e3", "c5")
    assert run.types() == ["move", "majority"]
    assert run.moves() == ["e3xc5"]
    assert "1" in run.events[1].detail and "2" in run.events[1].detail
    assert sq("d4") in run.events[1].squares


def test_chain_stopped_short() -> None:
    # c3xe5 must go on over f6 to g7; White stops on e5 and removes d4.
    run = Run("W:Wc3,e3:Bd4,f6")
    before = place("c3 e3", "d4 f6")
    run.play(before, moved(before, "c3", "e5", remove="d4"), "c3", "e5")
    assert run.types() == ["move", "majority"]
    assert run.moves() == ["c3xe5"]
    assert "continue" in run.events[1].detail


# -- removal of captured pieces -----
def test_captured_piece_not_removed_then_opponent_moves() -> None:
    # f6xh8 takes g7 and crowns on h8; g7 is left on the board, then Black plays a7-b6.
    run = Run("W:Wf6:Bg7,a7")
    before = place("f6", "g7 a7")
    landed = moved(before, "f6", "h8")
    run.play(before, landed, "f6", "h8")
    assert run.events == []
    run.play(landed, moved(landed, "a7", "b6"), "a7", "b6")
    assert run.types() == ["move", "removal", "move"]
    assert run.moves() == ["f6xh8", "a7-b6"]
    assert names(run.events[1].squares) == {"g7"}
    assert "not removed" in run.events[1].detail
    b = run.ref.board
    assert b.piece_at(sq("h8")) is Piece.WHITE_KING and b.piece_at(sq("g7")) is Piece.BLACK_MAN
    assert b.turn is Color.WHITE


def test_removal_interrupted_is_called_after_stillness() -> None:
    # c3xg7 takes d4 and f6; only d4 is removed, then the board stays still.
    run = Run("W:Wc3:Bd4,f6,a7", removal_timeout_s=2.0)
    before = place("c3", "d4 f6 a7")
    half = moved(before, "c3", "g7", remove="d4")
    run.play(before, half, "c3", "g7")
    run.still(half, n=40)  # 40 frames at 15 fps: more than 2 s
    assert run.types() == ["move", "removal"]
    assert names(run.events[1].squares) == {"f6"}
    assert "interrupted" in run.events[1].detail and "d4" in run.events[1].detail


def test_pieces_removed_that_were_not_captured() -> None:
    run = Run("W:Wc3:Bd4,h8,b8")
    before = place("c3", "d4 h8 b8")
    run.play(before, moved(before, "c3", "e5", remove="d4 h8"), "c3", "e5")
    assert run.types() == ["move", "removal"]
    assert run.moves() == ["c3xe5"]
    assert names(run.events[1].squares) == {"h8"}
    assert "not captured" in run.events[1].detail


def test_own_piece_removed() -> None:
    run = Run("W:Wc3,a1:Bd4,h8")
    before = place("c3 a1", "d4 h8")
    run.play(before, moved(before, "c3", "e5", remove="d4 a1"), "c3", "e5")
    assert run.types() == ["move", "removal"]
    assert names(run.events[1].squares) == {"a1"}
    assert "own" in run.events[1].detail


def test_piece_removed_before_the_capture_was_complete() -> None:
    run = Run("W:Wc3:Bd4,h8")
    before = place("c3", "d4 h8")
    run.hand(before, occluded="d4")
    run.still(without(before, "d4"))  # d4 taken off first, c3 has not moved
    assert run.events == []
    run.play(without(before, "d4"), moved(before, "c3", "e5", remove="d4"), "c3", "e5")
    assert run.types() == ["move", "removal"]
    assert names(run.events[1].squares) == {"d4"}
    assert "before the capture" in run.events[1].detail


# -- other illegal moves -----
def test_man_moved_backward() -> None:
    run = Run("W:Wd4:Bh8")
    before = place("d4", "h8")
    run.play(before, moved(before, "d4", "c3"), "d4", "c3")
    assert run.types() == ["move", "illegal"]
    assert "backward" in run.events[1].detail


def test_man_moved_two_squares() -> None:
    run = Run("W:Wc3:Bh8")
    before = place("c3", "h8")
    run.play(before, moved(before, "c3", "e5"), "c3", "e5")
    assert run.types() == ["move", "illegal"]
    assert "2 squares" in run.events[1].detail


def test_opponent_piece_moved() -> None:
    # White to move, but a black man goes b6-a5.
    run = Run()
    run.play(START, moved(START, "b6", "a5"), "b6", "a5")
    assert run.types() == ["move", "illegal"]
    assert run.moves() == ["b6-a5"]
    assert run.ref.board.turn is Color.WHITE  # still White's move


def test_two_moves_in_a_row() -> None:
    run = Run()
    one = moved(START, "c3", "d4")
    run.play(START, one, "c3", "d4")
    run.play(one, moved(one, "d4", "e5"), "d4", "e5")
    assert run.types() == ["move", "move", "illegal"]
    assert run.moves() == ["c3-d4", "d4-e5"]
    assert "two moves in a row" in run.events[2].detail


def test_move_taken_back() -> None:
    run = Run()
    one = moved(START, "c3", "d4")
    run.play(START, one, "c3", "d4")
    run.play(one, START, "d4", "c3")
    assert run.types() == ["move", "move", "illegal"]
    assert "taken back" in run.events[2].detail
    assert run.ref.board.turn is Color.WHITE
    assert run.ref.board.placement_equals(START)


def test_insist_illegal_move_must_be_put_back() -> None:
    run = Run("W:Wc3:Bh8", policy=Policy.INSIST)
    before = place("c3", "h8")
    bad = moved(before, "c3", "e5")
    run.play(before, bad, "c3", "e5")
    assert run.types() == ["illegal"]
    assert names(tuple(run.ref.restore)) == {"c3", "e5"}
    assert run.ref.board.turn is Color.WHITE
    run.play(bad, before, "e5", "c3")
    run.play(before, moved(before, "c3", "d4"), "c3", "d4")
    assert run.types() == ["illegal", "move"]
    # Put back before any move stood: the record says so before its first move.
    record = run.ref.game_record()
    assert [p.text for p in record.plies] == ["c3-d4"] and record.plies[0].comments == []
    assert len(record.pre_comments) == 1 and record.pre_comments[0].startswith("illegal")


def test_insist_put_back_is_noted_after_the_move_before() -> None:
    # White c3-d4 stands; Black tries h8-f6 (a man steps one square: RULES.md s.1), puts it
    # back and plays h8-g7.  The scorer writes the attempt after White's move, which is where
    # the journal of `damas play` puts it (app.journal), and not on h8-g7.
    run = Run("W:Wc3:Bh8", policy=Policy.INSIST)
    before = place("c3", "h8")
    after_white = moved(before, "c3", "d4")
    bad = moved(after_white, "h8", "f6")
    run.play(before, after_white, "c3", "d4")
    run.play(after_white, bad, "h8", "f6")
    assert run.types() == ["move", "illegal"]
    run.play(bad, after_white, "f6", "h8")
    run.play(after_white, moved(after_white, "h8", "g7"), "h8", "g7")
    assert run.moves() == ["c3-d4", "h8-g7"]
    record = run.ref.game_record()
    assert [p.text for p in record.plies] == ["c3-d4", "h8-g7"]
    assert [len(p.comments) for p in record.plies] == [1, 0]
    assert record.plies[0].comments[0].startswith("illegal") and not record.pre_comments


def test_accept_policy_plays_on_with_a_comment() -> None:
    run = Run("W:Wc3:Bh8", policy=Policy.ACCEPT)
    before = place("c3", "h8")
    run.play(before, moved(before, "c3", "e5"), "c3", "e5")
    assert run.types() == ["move", "illegal"]
    assert run.ref.board.piece_at(sq("e5")) is Piece.WHITE_MAN
    assert run.ref.board.turn is Color.BLACK
    assert not run.ref.record[-1].legal and run.ref.record[-1].comments


# -- what cannot be read -----
def test_two_pieces_moved_at_once_is_unreadable_then_corrected() -> None:
    run = Run()
    both = moved(moved(START, "c3", "d4"), "g3", "h4")
    run.hand(START, occluded="c3 g3")
    run.still(both)
    assert run.types() == ["unreadable"]
    assert names(run.events[0].squares) == {"c3", "d4", "g3", "h4"}
    assert "c3: expected white man, seen empty" in run.events[0].detail
    run.play(both, moved(START, "c3", "d4"), "h4", "g3")
    # g3 was seen gone on the still boards: that man was touched (moved, even) and c3-d4 was
    # played, which is touch-move (RULES.md s.1).
    assert run.types() == ["unreadable", "move", "touch_move"]
    assert run.moves() == ["c3-d4"]
    assert names(run.events[2].squares) == {"g3"}


def test_low_confidence_square_is_unknown() -> None:
    # The destination is read with low confidence: wait; once read well, the move is reported.
    run = Run()
    after = moved(START, "c3", "d4")
    o = Observation.from_board(after, frame=1, time_s=1.0)
    conf = tuple(0.2 if s == sq("d4") else 0.99 for s in range(32))
    assert run.ref.read(o.replace(confidence=conf)) == []
    ev = run.ref.read(Observation.from_board(after, frame=2, time_s=1.1))
    assert [e.move for e in ev] == ["c3-d4"]


def test_event_json_uses_the_variant_square_names() -> None:
    run = Run()
    run.play(START, moved(START, "c3", "d4"), "c3", "d4")
    js = run.events[0].as_json(run.ref.board)
    assert js == {"frame": js["frame"], "type": "move", "move": "c3-d4",
                  "squares": ["c3", "d4"], "detail": ""}


def test_a_square_that_reads_a_piece_not_there_is_ignored_while_it_does() -> None:
    # Glare makes e5 read as a white piece from the first frame on.  The referee notes it once
    # (about the camera), then judges c3-d4 normally; when e5 reads empty again it is trusted.
    run = Run()
    phantom = START.placement()
    phantom.set_piece_at(sq("e5"), Piece.WHITE_KING)
    run.still(phantom)
    assert run.types() == []  # a note about the camera, not an event of the game
    assert [names(n.squares) for n in run.ref.notes] == [{"e5"}]
    after = moved(phantom, "c3", "d4")
    run.play(phantom, after, "c3", "d4")
    assert run.types() == ["move"]
    assert run.moves() == ["c3-d4"]
    run.still(moved(START, "c3", "d4"))  # the glare is gone: nothing to report
    assert run.types() == ["move"]
    assert len(run.ref.notes) == 1


def test_a_piece_played_away_but_still_read_there_is_resolved_by_the_rules() -> None:
    # c3xe5 takes d4 (Brazilian: the capture is compulsory).  After the move, glare on c3
    # still reads a white piece there, but its picture changed (displaced).  Read as empty,
    # c3 gives the one legal move, c3xe5, with d4 removed: the move, with a note, no
    # irregularity.  A square whose picture did not change is not set aside (control).
    fen = "W:Wc3,a1:Bd4,h8"
    before = place("c3 a1", "d4 h8")
    glare = moved(before, "c3", "e5", remove="d4")
    glare.set_piece_at(sq("c3"), Piece.WHITE_MAN)
    run = Run(fen)
    run.still(before)
    run.hand(before, occluded="c3")
    run.hand(glare, occluded="d4")
    run.still(glare, displaced="c3")
    assert run.moves() == ["c3xe5"]
    assert run.types() == ["move"]
    assert "c3" in run.events[0].detail
    assert run.ref.board.piece_at(sq("c3")) is None
    # Later still boards that read the glare the same way report nothing new.
    run.still(glare)
    assert run.types() == ["move"]

    control = Run(fen)
    control.still(before)
    control.hand(before, occluded="c3")
    control.hand(glare, occluded="d4")
    control.still(glare)  # same reading, but c3's picture did not change
    assert control.moves() == []


def test_a_piece_played_where_the_camera_reads_empty_is_resolved_by_the_rules() -> None:
    # Black plays c7-d6 (a man's step forward; no capture anywhere).  A dark piece on a dark
    # square: d6 still reads empty, but its picture changed (displaced).  Read as Black's
    # piece, d6 gives the one legal move c7-d6: the move, with a note, no irregularity.
    fen = "B:Wa1,c1:Bc7,h8"
    before = place("a1 c1", "c7 h8")
    unseen = without(before, "c7")  # c7 left; d6 not seen
    run = Run(fen)
    run.still(before)
    run.hand(before, occluded="c7")
    run.hand(unseen, occluded="d6")
    run.still(unseen, displaced="d6")
    assert run.moves() == ["c7-d6"]
    assert run.types() == ["move"]
    assert "d6" in run.events[0].detail
    assert run.ref.board.piece_at(sq("d6")) is Piece.BLACK_MAN
    run.still(unseen)  # it keeps reading empty: nothing new
    assert run.types() == ["move"]

    control = Run(fen)  # the picture did not change: only a piece taken off, keep waiting
    control.still(before)
    control.hand(before, occluded="c7")
    control.still(unseen)
    assert control.moves() == []


def test_a_square_left_unreadable_by_the_move_is_resolved_by_the_rules() -> None:
    # Black plays a7-b6.  Glare washes a7 out once the piece has gone: it reads occluded on
    # the still board.  Taking a7 as empty gives the one legal move a7-b6: the move, with a
    # note.  Control: if b6 shows nothing new, an unreadable a7 alone is no move.
    fen = "B:Wa1,c1:Ba7,h8"
    before = place("a1 c1", "a7 h8")
    after = moved(before, "a7", "b6")
    run = Run(fen)
    run.still(before)
    run.hand(before, occluded="a7")
    run.still(after, occluded="a7")
    assert run.moves() == ["a7-b6"]
    assert run.types() == ["move"]
    assert "a7" in run.events[0].detail

    control = Run(fen)
    control.still(before)
    control.still(before, occluded="a7")
    assert control.moves() == []


def test_a_move_onto_an_unreadable_square_is_judged_as_usual() -> None:
    # White plays a1-b2 and (irregularly) takes its own man off d4; b2 reads occluded on the
    # still board (the camera cannot read it).  Taking b2 as the white piece that came, the
    # rules give a1-b2 with its own-piece removal called, as if b2 had been read.
    fen = "W:Wa1,d4:Bh8,f8"
    before = place("a1 d4", "h8 f8")
    after = moved(before, "a1", "b2", remove="d4")
    run = Run(fen)
    run.still(before)
    run.hand(before, occluded="a1")
    run.still(after, occluded="b2")
    assert run.moves() == ["a1-b2"]
    assert run.removals() == [{"d4"}]
    assert run.ref.board.piece_at(sq("b2")) is Piece.WHITE_MAN


def test_a_legal_move_from_an_unreadable_square_beats_an_illegal_step() -> None:
    # White plays c3-d4 and (irregularly) takes its own man off d2; c3 reads occluded on the
    # still board.  Read as it stands, only d2-d4 explains it, a step not along a diagonal
    # (one fault); taking c3 as left, the rules give the legal c3-d4 with d2's removal called
    # (one fault too).  The referee must not call an illegal step that a square it cannot
    # read may explain away: c3-d4, and the removal.
    fen = "W:Wc3,d2,a1:Bh8,f8"
    before = place("a1 c3 d2", "h8 f8")
    after = moved(before, "c3", "d4", remove="d2")
    run = Run(fen)
    run.still(before)
    run.hand(before, occluded="c3")
    run.still(after, occluded="c3")
    assert run.moves() == ["c3-d4"]
    assert "illegal" not in run.types()
    assert run.removals() == [{"d2"}]

    # Control: with c3 read (still there), d2-d4 is the illegal step it looks like.
    seen = moved(before, "d2", "d4")
    control = Run(fen)
    control.still(before)
    control.hand(before, occluded="d2")
    control.still(seen)
    assert control.moves() == ["d2-d4"]
    assert "illegal" in control.types()


def test_slow_removal_is_not_called_while_it_goes_on() -> None:
    # c3xg7 takes d4 and f6; the player pauses 4 s before each removal (timeout 6 s): the
    # stillness is counted from the latest change, so no removal irregularity is called.
    run = Run("W:Wc3:Bd4,f6,a7", removal_timeout_s=6.0)
    before = place("c3", "d4 f6 a7")
    landed = moved(before, "c3", "g7")
    run.play(before, landed, "c3", "g7")
    run.still(landed, n=60)  # 4 s
    run.hand(landed, occluded="d4")
    run.still(without(landed, "d4"), n=60)  # 4 s more: 8 s since the move, 4 s since d4
    assert run.events == []
    run.hand(without(landed, "d4"), occluded="f6")
    run.still(without(landed, "d4 f6"))
    assert run.types() == ["move"]
    assert run.moves() == ["c3xg7"]


def test_squares_misread_from_the_start_are_ignored_while_they_read_so() -> None:
    # Before any hand, the camera reads h2 as black and a1 as empty (a piece set it confuses,
    # say).  The referee notes it once (about the camera: nothing was played) and still judges
    # g3-h4; when a1 reads right it is trusted.
    run = Run()
    wrong = START.placement()
    wrong.set_piece_at(sq("h2"), Piece.BLACK_MAN)
    wrong.set_piece_at(sq("a1"), None)
    run.still(wrong)
    assert run.types() == []
    assert [names(n.squares) for n in run.ref.notes] == [{"h2", "a1"}]
    run.play(wrong, moved(wrong, "g3", "h4"), "g3", "h4")
    assert run.types() == ["move"]
    assert run.moves() == ["g3-h4"]


def test_a_piece_read_in_the_wrong_colour_after_a_move() -> None:
    # White plays g3-h4, but the camera reads the man on h4 as black.  Pieces do not change
    # colour: only g3-h4 fits, which the referee takes, noting on the move that h4 reads wrong
    # (the rules explain the board: nothing is left unexplained, so no `unreadable`).
    run = Run()
    run.still(START)
    seen = moved(START, "g3", "h4")
    seen.set_piece_at(sq("h4"), Piece.BLACK_MAN)
    run.play(START, seen, "g3", "h4")
    assert run.types() == ["move"]
    assert "h4 reads a black piece" in run.events[0].detail
    assert run.ref.events == run.events
    assert run.moves() == ["g3-h4"]
    assert run.ref.board.piece_at(sq("h4")) is Piece.WHITE_MAN
    # Black replies f6-g5 while h4 still reads black: judged normally.
    after = moved(seen, "f6", "g5")
    run.play(seen, after, "f6", "g5")
    assert run.moves() == ["g3-h4", "f6-g5"]
