r"""A season shared by every segment: its period, its profile, and its cost.

Monthly, quarterly and weekly series repeat a pattern every year. The segment model
(:mod:`pymc_vsk.jumps.segments`) gives each piece its own smooth part, so a new piece would
have to learn the season again, and a short length scale that follows the season also
absorbs a shift of the level. The season of a series is instead one profile for the whole
series (classical decomposition: the mean, per phase, of y less its centred moving average
over one period, smoothed to its lowest Fourier harmonics), subtracted before the segments
are fitted; :func:`~pymc_vsk.jumps.find_jumps` weighs the series with and without it by the
evidence, the profile's k free effects paid for by the Schwarz (1978) penalty
``k / 2 · log n`` (k = 2 per harmonic, ``period - 1`` for all of them), the choice of its
period among ``m`` by ``log m`` and that of its number of harmonics likewise.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pymc_vsk.arrays import as_float_array, check_count, check_finite

__all__ = ["Season", "find_period"]

#: Fewest whole periods a series must span for its season to be estimated.
MIN_CYCLES = 3

#: Longest period tried, in observations (a weekly series' year is 52).
MAX_PERIOD = 120


#: Largest distance, in steps, of an input from its node of the regular grid: months written
#: as decimal years to four places lie up to 0.0012 steps off.
OFF_GRID = 0.1


def _on_grid(t: np.ndarray) -> np.ndarray:
    """Whether each position t (in steps from the first input) lies within ``OFF_GRID`` of
    a node."""
    return np.abs(t - np.rint(t)) <= OFF_GRID


def _series(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """x and y as float arrays, refused unless 1-D, of one length, finite and x sorted."""
    x, y = as_float_array(x, "x"), as_float_array(y, "y")
    if x.ndim != 1 or y.shape != x.shape:
        raise ValueError(
            f"x and y must be 1-D arrays of one length; got shapes {x.shape} and {y.shape}."
        )
    check_finite(x, "x", "drop the rows without an input first.")
    check_finite(y, "y", "drop or impute the missing observations first.")
    if np.any(np.diff(x) < 0):
        raise ValueError("x must be sorted in increasing order (sort x and y together).")
    return x, y


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
    if not np.all(_on_grid(t)):
        return None
    return np.rint(t).astype(np.int64), h


def find_period(x: np.ndarray, y: np.ndarray) -> int | None:
    """The period, in observations, of the season of y, or None.

    Every period from 2 to ``MAX_PERIOD`` = 120 (and at most a third of the series) is a
    candidate; the period is the one whose classical profile (:class:`Season` with all its
    harmonics) gains the most by the Schwarz criterion, if it gains at all. (A profile of one
    or two harmonics would find a period in most random walks: y less a moving average over
    the period still wanders at that scale, and a single sine of that period fits the wander.)
    A multiple of the period explains little more than the period itself and pays for more
    effects, so the period itself wins. Each candidate's gain is measured on y less its own
    moving average, which keeps part of a longer season (a moving average over two quarters
    keeps half of a yearly wave): a divisor of the period can then gain the most. The winner
    is therefore weighed against each of its multiples on the same footing, y less the
    multiple's moving average, where its profile is the multiple's with fewer effects
    (:meth:`Season.gain_over`, less log m for the choice among m multiples); the multiple
    that gains the most, if any gains, is the period. x must be regular (missing nodes
    allowed).

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        x and y of other shapes than one 1-D length, NaN or infinite values, x not sorted.
    TypeError
        Text, dates or other values that are not numbers.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(120.0)
    >>> y = np.sin(2 * np.pi * x / 12) + 0.5 * np.random.default_rng(0).normal(size=120)
    >>> find_period(x, y)
    12
    """
    x, y = _series(x, y)
    grid = _grid(x)
    if grid is None:
        return None
    t = grid[0]
    longest = min(MAX_PERIOD, (t[-1] + 1) // MIN_CYCLES)
    seasons = {p: Season(x, y, p, harmonics=p // 2) for p in range(2, longest + 1)}
    best = max(seasons, key=lambda p: seasons[p].gain, default=None)
    if best is None or seasons[best].gain <= 0:
        return None
    # the choice among the m multiples has prior odds 1/m, as the period's among its candidates
    multiples = range(2 * best, longest + 1, best)
    nested = {q: seasons[q].gain_over(best) - np.log(len(multiples)) for q in multiples}
    refined = max(nested, key=nested.__getitem__, default=None)
    return refined if refined is not None and nested[refined] > 0 else best


def _parameters(period: int, harmonics: int) -> int:
    """Free effects of a profile of ``harmonics`` harmonics: two each (a sine and a cosine),
    one for the highest harmonic of an even period; all of them hold ``period - 1``."""
    return min(2 * harmonics, period - 1)


def _profile(
    t: np.ndarray, residual: np.ndarray, period: int, n: int, harmonics: int | None = None
) -> tuple[np.ndarray, int, float]:
    """The seasonal profile of ``residual`` with the Schwarz-best number of harmonics.

    The classical profile (the mean of the residual per phase, centred) is smoothed by
    keeping its lowest ``h`` Fourier harmonics, for every h from 1 to ``period // 2`` (all of
    them: the classical profile itself), and the h that gains the most by the Schwarz
    criterion, ``len(residual)/2 · log(Σ r² / Σ (r - s_h)²) - k_h/2 · log n`` with ``k_h``
    free effects, is kept (or the given ``harmonics``).

    Returns
    -------
    effects : array, shape (period,)
        The profile, summing to zero over the phases.
    harmonics : int
    log_fit : float
        ``len(residual)/2 · log(Σ r² / Σ (r - s)²) - k/2 · log n`` of the kept profile.
    """
    phase = t % period
    counts = np.bincount(phase, minlength=period)
    sums = np.bincount(phase, weights=residual, minlength=period)
    means = sums / np.maximum(counts, 1)
    coefficients = np.fft.rfft(means - means.mean())
    total = max(float(residual @ residual), 1e-300)
    choices = range(1, period // 2 + 1) if harmonics is None else [harmonics]
    best: tuple[np.ndarray, int, float] | None = None
    for h in choices:
        kept = coefficients.copy()
        kept[h + 1 :] = 0.0
        effects = np.fft.irfft(kept, n=period)
        # Σ (r - s)² from the sums per phase: Σ r² - 2 Σ_φ sums_φ s_φ + Σ_φ counts_φ s_φ²
        rest = total - 2.0 * float(sums @ effects) + float(counts @ effects**2)
        log_fit = 0.5 * len(residual) * np.log(
            max(total / max(rest, 1e-300), 1.0)
        ) - 0.5 * _parameters(period, h) * np.log(n)
        if best is None or log_fit > best[2]:
            best = (effects, h, log_fit)
    assert best is not None
    return best


class Season:
    """The seasonal profile of a series with a known period (classical decomposition).

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted, regular inputs (missing nodes allowed) and observations.
    period : int
        Period in observations (:func:`find_period`).
    harmonics : int, optional
        Keep this many of the profile's lowest Fourier harmonics (``period // 2``: the
        classical profile, as statsmodels' ``seasonal_decompose``); by default the number
        that gains the most by the Schwarz criterion. A season is mostly smooth (a yearly
        wave, a summer peak): a weekly profile of 52 free effects pays 25.5 · log n in the
        criterion, its three lowest harmonics 3 · log n.

    Raises
    ------
    ValueError
        x and y of other shapes than one 1-D length, NaN or infinite values, x not sorted
        or irregular, a period below 2, a number of harmonics outside 1 to ``period // 2``,
        or a series too short for the period.
    TypeError
        A period or number of harmonics that is not an int (2.5, a bool), or x or y that
        are not numbers.

    Attributes
    ----------
    effects : array, shape (period,)
        Seasonal effect of each phase, in units of y, summing to zero over the phases.
    harmonics : int
        The number of harmonics kept.
    penalty : float
        ``k/2 · log n + log m + log(period // 2)``: the Schwarz penalty of the profile's k free
        effects (a sine and a cosine per harmonic, k = ``min(2 * harmonics, period - 1)``),
        the prior odds of one period among the ``m`` that
        :func:`find_period` tries, and of its number of harmonics (when chosen).
    gain : float
        How much the profile explains of y less its moving average, by the Schwarz criterion:
        ``n/2 · log(Σ r² / Σ (r - s)²) - penalty``, r the detrended y and s the profile.
    """

    def __init__(
        self, x: np.ndarray, y: np.ndarray, period: int, harmonics: int | None = None
    ) -> None:
        x, y = _series(x, y)
        self.period = check_count(period, "period", 2)
        if harmonics is not None:
            harmonics = check_count(harmonics, "harmonics", 1)
        grid = _grid(x)
        if grid is None:
            raise ValueError("a season needs regularly spaced x (missing nodes allowed).")
        t, self.step = grid
        if harmonics is not None and not 1 <= harmonics <= self.period // 2:
            raise ValueError(
                f"a season of period {self.period} has 1 to {self.period // 2} harmonics; "
                f"got {harmonics}."
            )
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
        t = t[inside]
        residual = y[inside] - trend[t]
        self._t, self._residual, self._n = t, residual, n
        self.effects, self.harmonics, self._log_fit = _profile(
            t, residual, self.period, n, harmonics
        )
        choice = np.log(self.period // 2) if harmonics is None else 0.0
        self.penalty = (
            0.5 * _parameters(self.period, self.harmonics) * np.log(n) + np.log(candidates) + choice
        )
        self.gain = self._log_fit - np.log(candidates) - choice

    def gain_over(self, divisor: int) -> float:
        """Schwarz gain of this profile over the profile of a divisor of its period.

        Both are fitted to y less this season's moving average (which removes the seasons
        of both periods), each with its own best number of harmonics:
        ``n/2 · log(Σ (r - s_d)² / Σ (r - s)²) - (k - k_d)/2 · log n``, with k and k_d their
        free effects. Positive when the longer profile's extra effects pay for themselves.

        Parameters
        ----------
        divisor : int
            A divisor of ``period``.

        Returns
        -------
        float
        """
        if self.period % divisor:
            raise ValueError(f"{divisor} does not divide the period {self.period}.")
        _, _, shorter = _profile(self._t, self._residual, divisor, self._n, divisor // 2)
        return self._log_fit - shorter

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Seasonal effect at x, interpolated linearly between phases (periodically).

        An input within ``OFF_GRID`` steps of a node of the grid gets that node's effect:
        inputs rounded in print (months as decimal years) get the same season as their row
        numbers would.
        """
        t = (np.asarray(x, dtype=float) - self.x0) / self.step
        t = np.where(_on_grid(t), np.rint(t), t)
        phase = t % self.period
        lo = np.floor(phase).astype(np.int64) % self.period
        frac = phase - np.floor(phase)
        return (1 - frac) * self.effects[lo] + frac * self.effects[(lo + 1) % self.period]
