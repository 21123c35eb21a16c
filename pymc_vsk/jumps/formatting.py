"""How answers about jumps are written: the credible mass of their intervals, and the
significant digits that print places on the x axis of a series distinctly."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["PROB", "digits_for"]

#: Credible mass of the reported location intervals.
PROB = 0.94


def digits_for(x: np.ndarray, least: int = 6) -> int:
    """Significant digits that resolve the median spacing of x, at least ``least``.

    Six digits print years and indices exactly, but not hours as decimal years (2020.01 for
    every hour of a week) or seconds since 1970 (1.60002e+08): the digits grow with the ratio
    of the largest magnitude in x to its median spacing, with one more for half a spacing,
    as a jump sits mid-gap, and large x print whole.

    Parameters
    ----------
    x : array
        Inputs, any order.
    least : int, default 6
        Fewest digits.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> digits_for(np.arange(1871.0, 1971.0))
    6
    >>> digits_for(2020 + np.arange(168) / (365.25 * 24))  # hours as decimal years
    9
    >>> digits_for(1.6e9 + 60.0 * np.arange(60))  # seconds since 1970, a reading a minute
    10
    """
    x = np.unique(np.asarray(x, dtype=float))
    if len(x) < 2:
        return least
    spacing = float(np.median(np.diff(x)))
    top = float(np.max(np.abs(x)))
    if spacing <= 0 or top == 0:
        return least
    whole = math.floor(math.log10(top)) + 1  # no exponent for large x: 1600001770, not 1.6e+09
    return min(17, max(least, whole, math.ceil(math.log10(top / spacing)) + 1))
