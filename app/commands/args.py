"""Argument types shared by the commands: a nonsense value is a one-line usage error."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def int_range(lo: int, hi: int, what: str = "whole number") -> Callable[[str], int]:
    """An argparse type: an integer in lo..hi."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what}") from None
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"{n} is out of range {lo}..{hi}")
        return n
    return parse


def positive_float(what: str = "number") -> Callable[[str], float]:
    """An argparse type: a number above zero (seconds, a share...)."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what}") from None
        if not x > 0 or x != x or x == float("inf"):
            raise argparse.ArgumentTypeError(f"{text} must be a positive {what}")
        return x
    return parse
