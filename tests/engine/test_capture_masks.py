"""The search's mask-only capture generator gives exactly the legal captures of game.movegen
(the rules' generator, itself checked against published perft), on random positions."""

from __future__ import annotations

import random

import pytest

from game.engine.capture_masks import mask_captures, supports
from game.geometry import geometry
from game.movegen import generator_for
from game.variants import VARIANTS, find_variant


def _random_position(variant_name: str, rng: random.Random) -> tuple[int, int, int]:
    v = find_variant(variant_name)
    geo = geometry(v.width, v.height)
    squares = list(range(geo.squares))
    rng.shuffle(squares)
    n_white, n_black = rng.randrange(1, 13), rng.randrange(1, 13)
    white = black = kings = 0
    for sq in squares[:n_white]:
        white |= geo.mask_of[sq]
    for sq in squares[n_white:n_white + n_black]:
        black |= geo.mask_of[sq]
    for sq in squares[:n_white + n_black]:
        if rng.random() < 0.25:
            kings |= geo.mask_of[sq]
    # men never stand on their own crowning row
    kings |= white & geo.rank_masks[-1]
    kings |= black & geo.rank_masks[0]
    return white, black, kings


@pytest.mark.parametrize("name", ["brazilian", "international", "giveaway"])
def test_same_captures_as_the_rules_generator(name: str) -> None:
    variant = find_variant(name)
    assert supports(variant)
    fast = mask_captures(variant)
    gen = generator_for(variant)
    rng = random.Random(17)
    with_captures = 0
    for _ in range(3000):
        w, b, k = _random_position(name, rng)
        for wtm in (True, False):
            want = {(m[0], m[1], m[2], bool(m[3])) for m in gen.captures(w, b, k, wtm)}
            got = [(m[0], m[1], m[2], bool(m[3])) for m in fast(w, b, k, wtm)]
            assert len(got) == len(set(got))
            assert set(got) == want, (w, b, k, wtm)
            with_captures += bool(want)
    assert with_captures > 1000  # the sample did exercise captures


def test_other_rules_are_refused() -> None:
    for v in VARIANTS.values():
        if v.name in ("russian", "english", "italian", "spanish", "portuguese"):
            assert not supports(v)
            with pytest.raises(ValueError):
                mask_captures(v)
