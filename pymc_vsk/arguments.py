"""What the ``pymc-vsk`` commands share: argparse types (bounded integers, finite floats) and
the ``--quiet`` option."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = [
    "add_quiet_option",
    "finite_float",
    "int_in",
    "non_negative_int",
    "positive_int",
    "probability",
]


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type accepting integers in [low, high].

    Parameters
    ----------
    low : int
        Smallest value accepted.
    high : int, optional
        Largest value accepted; no upper bound when ``None``.

    Returns
    -------
    callable
        ``parse(text) -> int``, raising ``argparse.ArgumentTypeError`` with the bound.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            kind = "a positive integer" if (low, high) == (1, None) else "an integer"
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"in {low}..{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    parse.__name__ = f"int_in_{low}_{high}"
    return parse


#: argparse type: an integer ≥ 1.
positive_int = int_in(1)


def finite_float(text: str) -> float:
    """An argparse type accepting finite floats (not nan or ±inf).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number, or not finite.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


#: argparse type: an integer ≥ 0.
non_negative_int = int_in(0)


def probability(text: str) -> float:
    """An argparse type accepting a number strictly between 0 and 1.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number, or not in (0, 1).
    """
    value = finite_float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text!r}")
    return value


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress messages on stderr, no sampler progress bars.

    The command's ``main`` runs inside :func:`pymc_vsk.progress.quiet` when ``args.quiet`` is
    set and inside :func:`pymc_vsk.progress.show` otherwise (``pymc_vsk.cli`` does this for
    every command that has the option); standard output is the same either way.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of one command.
    """
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress messages on stderr (what is running, compilation, steps of a sweep, "
        "progress bars); the results on stdout are unchanged",
    )
