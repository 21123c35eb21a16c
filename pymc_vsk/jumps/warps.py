r"""Log warps of the observations, for noise that grows with the level.

In many real series the noise and the seasonal swing grow with the level (passengers,
earnings, counts). The segment model (:mod:`pymc_vsk.jumps.segments`) would explain each
stretch of larger swings by a piece with its own, larger noise scale; on ``z = ±log(u + λ)``,
with u the observations rescaled to [0, 1], the swings are even and no piece is needed.
:func:`choose_warp` picks the sign and λ whose first differences are the most even (a
Box–Cox profile likelihood, Box and Cox, 1964), and :func:`~pymc_vsk.jumps.find_jumps` weighs
that warp against y itself by the evidence, the Jacobian included. The warp of
``a·y + b`` (a ≠ 0) is that of y, up to its sign, so any answer computed from it is the same
in any units, with any origin, and for ``-y``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pymc_vsk.arrays import as_float_array, check_finite

__all__ = [
    "WARP_OFFSETS",
    "choose_warp",
    "describe_warp",
    "log_unwarp",
    "log_warp",
    "resolution",
    "warp_candidates",
]


#: Offsets λ of the log warps, in units of the range of y (see :func:`log_warp`).
WARP_OFFSETS = (0.01, 0.03, 0.1, 0.3, 1.0)


def resolution(y: np.ndarray) -> float:
    """The smallest step between distinct values of y (1 for counts), 0 for a constant y.

    Examples
    --------
    >>> resolution(np.array([3.0, 1.0, 3.0, 2.0, 1.0]))
    1.0
    """
    values = np.unique(np.asarray(y, dtype=float))
    return float(np.min(np.diff(values))) if len(values) > 1 else 0.0


def _observations(y: npt.ArrayLike) -> np.ndarray:
    """y as a 1-D float array, refused with NaN, infinite values, text or another shape."""
    y = as_float_array(y, "y")
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of observations; got shape {y.shape}.")
    check_finite(y, "y", "drop or impute the missing observations first.")
    return y


def _bounds(y: np.ndarray) -> tuple[float, float, float]:
    """min y, max y and the range (1 for a constant y)."""
    lo, hi = float(np.min(y)), float(np.max(y))
    return lo, hi, hi - lo if hi > lo else 1.0


def log_warp(y: np.ndarray, sign: int, offset: float) -> tuple[np.ndarray, float]:
    r"""``z = ±log(u + λ)`` and ``log |dz/dy|`` summed over the observations.

    ``u = (y - min y) / (max y - min y)`` for ``sign = +1`` and ``(max y - y) / (max y -
    min y)`` for ``sign = -1``, so the warp, and any answer computed from z, is the same
    whatever the units, origin and sign of y; a small λ = ``offset`` makes the spread of z
    shrink as y grows away from its minimum (noise proportional to the level, as in
    multiplicative seasonality or counts), a large one leaves y almost as it is.
    """
    y = np.asarray(y, dtype=float)
    lo, hi, span = _bounds(y)
    u = (y - lo) / span if sign > 0 else (hi - y) / span
    z = sign * np.log(u + offset)
    return z, float(-np.sum(np.log(u + offset)) - len(y) * np.log(span))


def log_unwarp(
    z: np.ndarray, y: np.ndarray, sign: int, offset: float
) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`log_warp` for the data ``y``, and its derivative ``dy/dz``.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([3.0, 5.0, 11.0])
    >>> z, _ = log_warp(y, -1, 0.1)
    >>> bool(np.allclose(log_unwarp(z, y, -1, 0.1)[0], y))
    True
    """
    lo, hi, span = _bounds(y)
    grow = np.exp(sign * np.asarray(z, dtype=float))  # u + λ
    u = grow - offset
    return (lo + span * u if sign > 0 else hi - span * u), span * grow


def describe_warp(warp: tuple[int, float] | None) -> str:
    """The warp in words, for progress messages and summaries."""
    if warp is None:
        return "y as it is"
    sign, offset = warp
    u = "(y - min y)" if sign > 0 else "(max y - y)"
    return f"{'' if sign > 0 else '-'}log({u} / range + {offset:g})"


def warp_candidates(y: np.ndarray) -> list[tuple[int, float]]:
    """The (sign, offset) pairs :func:`choose_warp` chooses among (none for fewer than 4
    values or a constant y).

    Both signs, and every offset of ``WARP_OFFSETS`` no smaller than the data's resolution in
    units of their range: a smaller offset (as for counts) would reward stretching the few
    lowest values apart.

    Examples
    --------
    >>> warp_candidates(np.arange(11.0))  # resolution: a tenth of the range
    [(1, 0.1), (1, 0.3), (1, 1.0), (-1, 0.1), (-1, 0.3), (-1, 1.0)]
    """
    y = _observations(y)
    span = float(np.ptp(y))
    if span == 0 or len(y) < 4:
        return []
    smallest = resolution(y) / span
    return [(sign, offset) for sign in (1, -1) for offset in WARP_OFFSETS if offset >= smallest]


def choose_warp(y: np.ndarray) -> tuple[int, float] | None:
    """The log warp that best evens out the size of y's first differences, or None.

    Each candidate (:func:`warp_candidates`, and y itself) is scored by the Laplace log
    likelihood of its first differences with their mean absolute value as the scale, plus
    its log Jacobian: the Box–Cox profile likelihood of a random walk, little moved by a few
    jumps. Only the winner is weighed against y itself, by the evidence.

    Raises
    ------
    ValueError
        NaN or infinite values in y, or a y that is not 1-D.
    TypeError
        Text or other values that are not numbers.
    """
    y = _observations(y)
    candidates = warp_candidates(y)
    if not candidates:
        return None
    span = float(np.ptp(y))

    def score(z: np.ndarray, log_jacobian: float) -> float:
        scale = float(np.mean(np.abs(np.diff(z))))
        return -(len(z) - 1) * np.log(scale) + log_jacobian if scale > 0 else -np.inf

    best, best_score = None, score(y / span, -len(y) * np.log(span))
    for candidate in candidates:
        value = score(*log_warp(y, *candidate))
        if value > best_score:
            best, best_score = candidate, value
    return best
