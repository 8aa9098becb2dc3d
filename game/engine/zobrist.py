"""Zobrist keys for positions on raw bitboards.

A key is the XOR of one fixed random 64-bit number per (piece kind, square) plus one for the
side to move, so the search can update it with a few XORs per move instead of hashing the
whole position.  Tables are dicts keyed by the square's *bit mask*, the form in which raw moves
carry their squares.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from game.geometry import geometry


@dataclass(frozen=True)
class ZobristKeys:
    white_man: dict[int, int]
    white_king: dict[int, int]
    black_man: dict[int, int]
    black_king: dict[int, int]
    black_to_move: int

    def key(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        """The key of a whole position (the search updates keys incrementally instead)."""
        h = 0 if white_to_move else self.black_to_move
        for bb, men, kk in ((white, self.white_man, self.white_king),
                            (black, self.black_man, self.black_king)):
            while bb:
                low = bb & -bb
                bb ^= low
                h ^= kk[low] if kings & low else men[low]
        return h


@cache
def zobrist_keys(width: int, height: int) -> ZobristKeys:
    geo = geometry(width, height)
    rng = random.Random(0x5EED_D4A5 + width * 100 + height)  # fixed: keys are reproducible
    tables = []
    for _ in range(4):
        tables.append({m: rng.getrandbits(64) for m in geo.mask_of})
    return ZobristKeys(tables[0], tables[1], tables[2], tables[3], rng.getrandbits(64))
