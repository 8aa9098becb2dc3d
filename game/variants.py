"""Variants as data: each is a frozen `Variant` whose fields are the rule switches of RULES.md s.2.

Move generation, notation and the draw rules read these fields; nothing in `game` tests a
variant's *name* (python-chess style flags, not pydraughts-style `if variant in [...]`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from game.errors import UnknownVariantError


class CaptureChoice(StrEnum):
    """Which capture sequences a player may choose among."""

    FREE = "free"  # any capture sequence (chains must still be completed)
    MAJORITY = "majority"  # most pieces taken
    QUALITY = "quality"  # most pieces, then most kings
    ITALIAN = "italian"  # most pieces, then with a king, then most kings, then earliest king


class ChainPromotion(StrEnum):
    """What happens when a man reaches the far row in the middle of a capture."""

    STAYS_MAN = "stays_man"  # continues as a man; crowned only if the move ends there
    CONTINUES_AS_KING = "continues_as_king"  # Russian: crowned at once, goes on as a king
    ENDS_MOVE = "ends_move"  # English/Italian: the move ends on crowning


@dataclass(frozen=True)
class EndingRule:
    """A material ending that is drawn unless won within `moves` moves of each side.

    `sides` holds two (kings, men) pairs, one per side, in either order.
    """

    sides: tuple[tuple[int, int], tuple[int, int]]
    moves: int


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    width: int = 8
    height: int = 8
    rows_of_men: int = 3
    first: str = "W"  # colour that moves first: "W" (light) or "B" (dark)
    men_capture_backward: bool = True
    men_start_capture_backward: bool = True  # False: "first capture forward" option
    flying_kings: bool = True
    capture_choice: CaptureChoice = CaptureChoice.MAJORITY
    men_capture_kings: bool = True
    chain_promotion: ChainPromotion = ChainPromotion.STAYS_MAN
    giveaway: bool = False
    # Draw rules.  Moves are counted per side, so the ply limits are twice these numbers.
    kings_only_moves: int | None = 20  # successive king-only moves each, no capture, no man move
    no_progress_moves: int | None = None  # moves each with no capture and no man move (any piece)
    endings: tuple[EndingRule, ...] = ()
    # PDN: GameType fields and the notation of squares.
    gametype: int | None = 26
    notation: str = "A0"  # A0 algebraic; N<corner> numeric, corner seen by the first mover
    invert: bool = False  # the board is turned: numbering is mirrored
    capture_separator: str = "x"  # PDN writes Russian captures with ':'
    aliases: tuple[str, ...] = field(default=())

    @property
    def squares(self) -> int:
        return self.width * self.height // 2

    @property
    def men_per_side(self) -> int:
        return self.rows_of_men * self.width // 2

    @property
    def is_algebraic(self) -> bool:
        return self.notation.startswith("A")

    @property
    def gametype_tag(self) -> str | None:
        if self.gametype is None:
            return None
        return (
            f"{self.gametype},{self.first},{self.width},{self.height},"
            f"{self.notation},{int(self.invert)}"
        )


_BRAZILIAN_ENDINGS = (
    EndingRule(((3, 0), (1, 0)), 20),
    EndingRule(((2, 0), (2, 0)), 5),
    EndingRule(((2, 0), (1, 0)), 5),
    EndingRule(((2, 0), (1, 1)), 5),
    EndingRule(((1, 0), (1, 0)), 5),
    EndingRule(((1, 0), (1, 1)), 5),
)

BRAZILIAN = Variant("brazilian", "Brazilian draughts", endings=_BRAZILIAN_ENDINGS,
                    aliases=("brasileiras", "damas", "brazil"))

INTERNATIONAL = Variant(
    "international", "International draughts", width=10, height=10, rows_of_men=4,
    kings_only_moves=25,
    endings=(
        EndingRule(((3, 0), (1, 0)), 16),
        EndingRule(((2, 1), (1, 0)), 16),
        EndingRule(((1, 2), (1, 0)), 16),
        EndingRule(((2, 0), (1, 0)), 5),
        EndingRule(((1, 1), (1, 0)), 5),
        EndingRule(((1, 0), (1, 0)), 5),
    ),
    gametype=20, notation="N2", aliases=("fmjd", "10x10", "polish"),
)

RUSSIAN = Variant(
    "russian", "Russian draughts", capture_choice=CaptureChoice.FREE,
    chain_promotion=ChainPromotion.CONTINUES_AS_KING, kings_only_moves=15,
    endings=(EndingRule(((3, 0), (1, 0)), 15),), gametype=25, capture_separator=":",
    aliases=("shashki",),
)

ENGLISH = Variant(
    "english", "English draughts (American checkers)", first="B", men_capture_backward=False,
    men_start_capture_backward=False, flying_kings=False, capture_choice=CaptureChoice.FREE,
    chain_promotion=ChainPromotion.ENDS_MOVE, kings_only_moves=None, no_progress_moves=40,
    gametype=21, notation="N1", aliases=("checkers", "american"),
)

ITALIAN = Variant(
    "italian", "Italian draughts", men_capture_backward=False, men_start_capture_backward=False,
    flying_kings=False, capture_choice=CaptureChoice.ITALIAN, men_capture_kings=False,
    chain_promotion=ChainPromotion.ENDS_MOVE, kings_only_moves=None, no_progress_moves=40,
    gametype=22, notation="N2", invert=True, aliases=("dama",),
)

SPANISH = Variant(
    "spanish", "Spanish draughts", men_capture_backward=False, men_start_capture_backward=False,
    capture_choice=CaptureChoice.QUALITY, endings=_BRAZILIAN_ENDINGS, gametype=24,
    notation="N1", invert=True,
)

PORTUGUESE = Variant(
    "portuguese", "Portuguese draughts", men_capture_backward=False,
    men_start_capture_backward=False, capture_choice=CaptureChoice.QUALITY,
    endings=_BRAZILIAN_ENDINGS, gametype=28, notation="N1", invert=True,
)

GIVEAWAY = Variant(
    "giveaway", "Giveaway (perde-ganha)", giveaway=True, endings=_BRAZILIAN_ENDINGS,
    gametype=None, aliases=("perde-ganha", "perdeganha", "losing"),
)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (BRAZILIAN, INTERNATIONAL, RUSSIAN, ENGLISH, ITALIAN, SPANISH, PORTUGUESE, GIVEAWAY)
}


def find_variant(name: str) -> Variant:
    """Look a variant up by name or alias (case-insensitive).

    Options are suffixes joined by '+': ``brazilian+forward-start`` is Brazilian with the rule
    that a man may not *start* a capture backwards; ``spanish+free`` lets the player choose
    freely among captures of equal count (seed 002's reading).
    """
    base, *options = name.strip().lower().split("+")
    variant = VARIANTS.get(base)
    if variant is None:
        for v in VARIANTS.values():
            if base in v.aliases:
                variant = v
                break
    if variant is None:
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}")
    for option in options:
        if option == "forward-start":
            variant = replace(variant, name=f"{variant.name}+forward-start",
                              men_start_capture_backward=False)
        elif option == "free":
            variant = replace(variant, name=f"{variant.name}+free",
                              capture_choice=CaptureChoice.MAJORITY)
        else:
            raise UnknownVariantError(
                f"unknown option {option!r} in variant {name!r}; options: forward-start, free")
    return variant
