r"""A season shared by every segment: its period, its profile, and its cost.

Monthly, quarterly and weekly series repeat a pattern every year. The segment model
(:mod:`pymc_vsk.jumps.segments`) gives each piece its own smooth part, so a new piece would
have to learn the season again, and a short length scale that follows the season also
absorbs a shift of the level. The season of a series is instead one profile for the whole
series (classical decomposition: the mean, per phase, of y less its centred moving average
over one period), subtracted before the segments are fitted;
:func:`~pymc_vsk.jumps.find_jumps` weighs the series with and without it by the evidence,
the profile's ``period - 1`` free effects paid for by the Schwarz (1978) penalty
``(period - 1) / 2 · log n``, and the choice of its period among ``m`` by ``log m``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Season", "find_period"]

#: Fewest whole periods a series must span for its season to be estimated.
MIN_CYCLES = 3

#: Longest period tried, in observations (a weekly series' year is 52).
MAX_PERIOD = 120


def _grid(x: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Positions of x on a regular grid and its spacing (the median step), or None when x is
    irregular.

    Missing nodes are allowed (a skipped week), up to half of the grid: a series with longer
    gaps (two runs of readings a day apart) has no season to estimate. Ties and nodes off
    the grid are not allowed.
    """
    steps = np.diff(x)
    if np.any(steps <= 0):
        return None
    h = float(np.median(steps))
    t = (x - x[0]) / h
    if t[-1] + 1 > 2 * len(x):
        return None
    index = np.rint(t)
    if np.max(np.abs(t - index)) > 0.1:
        return None
    return index.astype(np.int64), h


def find_period(x: np.ndarray, y: np.ndarray) -> int | None:
    """The period, in observations, of the season of y, or None.

    Every period from 2 to :data:`MAX_PERIOD` (and at most a third of the series) is a candidate;
    the period is the one whose profile (:class:`Season`) gains the most by the Schwarz
    criterion, if it gains at all. A multiple of the period explains little more than the
    period itself and pays for more effects, so the period itself wins. x must be regular
    (missing nodes allowed).

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations.

    Returns
    -------
    int or None

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(120.0)
    >>> y = np.sin(2 * np.pi * x / 12) + 0.5 * np.random.default_rng(0).normal(size=120)
    >>> find_period(x, y)
    12
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    grid = _grid(x)
    if grid is None:
        return None
    t = grid[0]
    periods = range(2, min(MAX_PERIOD, (t[-1] + 1) // MIN_CYCLES) + 1)
    gains = {p: Season(x, y, p).gain for p in periods}
    best = max(gains, key=gains.__getitem__, default=None)
    return best if best is not None and gains[best] > 0 else None


class Season:
    """The seasonal profile of a series with a known period (classical decomposition).

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted, regular inputs (missing nodes allowed) and observations.
    period : int
        Period in observations (:func:`find_period`).

    Attributes
    ----------
    effects : array, shape (period,)
        Seasonal effect of each phase, in units of y, summing to zero over the phases.
    penalty : float
        ``(period - 1) / 2 · log n + log m``: the Schwarz penalty of the effects, and the
        prior odds of one period among the ``m`` that :func:`find_period` tries.
    gain : float
        How much the profile explains of y less its moving average, by the Schwarz criterion:
        ``n/2 · log(Σ r² / Σ (r - s)²) - penalty``, r the detrended y and s the profile.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, period: int) -> None:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        grid = _grid(x)
        if grid is None:
            raise ValueError("a season needs regularly spaced x (missing nodes allowed).")
        t, self.step = grid
        self.period = int(period)
        self.x0 = float(x[0])
        # centred moving average over one period (2 × period for an even one), where its
        # window lies inside the series; missing nodes leave their weight out
        weights = np.ones(self.period + 1 - self.period % 2)
        if self.period % 2 == 0:
            weights[[0, -1]] = 0.5
        full = np.zeros(t[-1] + 1)
        seen = np.zeros(t[-1] + 1)
        full[t], seen[t] = y, 1.0
        half = len(weights) // 2
        inside = (t >= half) & (t <= t[-1] - half)
        if not np.any(inside):
            raise ValueError(
                f"a season of period {self.period} needs a series longer than {2 * half} steps."
            )
        trend = np.convolve(full, weights, "same") / np.maximum(
            np.convolve(seen, weights, "same"), 1e-12
        )
        n = len(y)
        candidates = max(1, min(MAX_PERIOD, (t[-1] + 1) // MIN_CYCLES) - 1)
        t, y = t[inside], y[inside]
        phase = t % self.period
        residual = y - trend[t]
        counts = np.bincount(phase, minlength=self.period)
        sums = np.bincount(phase, weights=residual, minlength=self.period)
        effects = sums / np.maximum(counts, 1)
        self.effects = effects - effects.mean()
        self.penalty = 0.5 * (self.period - 1) * np.log(n) + np.log(candidates)
        rest = residual - self.effects[phase]
        explained = float(residual @ residual) / max(float(rest @ rest), 1e-300)
        self.gain = 0.5 * len(y) * np.log(max(explained, 1.0)) - self.penalty

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Seasonal effect at x, interpolated linearly between phases (periodically)."""
        phase = ((np.asarray(x, dtype=float) - self.x0) / self.step) % self.period
        lo = np.floor(phase).astype(np.int64) % self.period
        frac = phase - np.floor(phase)
        return (1 - frac) * self.effects[lo] + frac * self.effects[(lo + 1) % self.period]
