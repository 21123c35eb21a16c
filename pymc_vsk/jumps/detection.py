r"""How many jumps, where, and how sure: the exact posterior of the segment model.

:func:`find_jumps` computes P(K = k | y) for every number of jumps k (the model and its priors
are in :mod:`pymc_vsk.jumps.segments`), decides K by the largest posterior expected F1 score
(or the most probable count), and describes
each jump by independent exact draws: the posterior median location, the shortest run of
gaps holding 94 % of its mass, and the probability that a jump lies there at all. The
continuous shape of the smooth part (ℓ, r) is integrated over a grid; levels, slopes and
scales of the segments in closed form; the partitions by dynamic programming. Nothing is
sampled by a Markov chain, so the posterior is converged by construction: r̂ and ESS of the
draws are reported to show it.
"""

from __future__ import annotations

import inspect
import itertools
import numbers
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt
import pandas as pd
import xarray as xr
from scipy.linalg import cho_factor, cho_solve
from scipy.special import logsumexp

from pymc_vsk.arrays import check_count
from pymc_vsk.diagnostics import ESS_MIN, Diagnostics, diagnose
from pymc_vsk.jumps.dates import DateScale, date_labels, date_scale, is_dates
from pymc_vsk.jumps.formatting import PROB, digits_for
from pymc_vsk.jumps.scores import f1_score
from pymc_vsk.jumps.seasons import find_period
from pymc_vsk.jumps.segments import (
    SMOOTHNESS,
    SegmentModel,
    Shape,
    count_limit,
    matern_kernel,
    sample_partitions,
)
from pymc_vsk.jumps.warps import choose_warp, describe_warp, log_unwarp
from pymc_vsk.memory import check_dense
from pymc_vsk.progress import report

__all__ = ["Jump", "JumpPosterior", "find_jumps"]


#: Draws the number of jumps is decided on, and their seed: fixed, so that the count is the
#: same whatever ``seed``, ``draws`` and ``chains`` (with the defaults, the reported draws are
#: these very draws).
DECISION_DRAWS, DECISION_SEED = 4000, 0


#: The range of y's spread (max y - min y) whose variance floating point holds, with room
#: for sums over many observations: outside it the variance of y under- or overflows.
SPREAD_LIMITS = (1e-140, 1e140)


#: The settings of :class:`~pymc_vsk.jumps.segments.SegmentModel` that :func:`find_jumps`
#: passes on as ``**options`` (it sets the others itself).
SEGMENT_OPTIONS = tuple(
    name
    for name, parameter in inspect.signature(SegmentModel).parameters.items()
    if parameter.kind is parameter.KEYWORD_ONLY
    and name not in ("min_size", "max_jumps", "warp", "period", "shared_trend")
)


@dataclass
class Jump:
    """One jump of :class:`JumpPosterior`.

    Attributes
    ----------
    location : float
        Posterior median location, in x units (a jump between nodes ``x[c-1]`` and ``x[c]``
        sits at the middle of the gap), over the draws that hold this jump (each draw's
        jump nearest to it; see ``find_jumps``).
    interval : tuple of float
        Shortest run of consecutive gaps holding 94 % of the location's mass
        (:data:`~pymc_vsk.jumps.formatting.PROB`), in x units.
    probability : float
        Posterior probability that some jump lies in ``interval`` (whatever the count).
    gaps : array
        Midpoints of the gaps the location visits.
    gap_probs : array
        Their posterior probabilities given the chosen number of jumps.
    """

    location: float
    interval: tuple[float, float]
    probability: float
    gaps: np.ndarray
    gap_probs: np.ndarray

    def as_dict(self) -> dict:
        """``{"location", "interval", "probability"}`` as plain floats (for JSON)."""
        return {
            "location": float(self.location),
            "interval": [float(self.interval[0]), float(self.interval[1])],
            "probability": float(self.probability),
        }


@dataclass
class JumpPosterior:
    """Result of :func:`find_jumps`.

    Attributes
    ----------
    x, y : array, shape (n,)
        The data, sorted by x, in the user's units.
    p_n_jumps : array, shape (max_jumps + 1,)
        P(K = k | y), also when the count was fixed.
    n_jumps : int
        The decided K (see ``decision`` of :func:`find_jumps`), or the count asked for.
    jumps : list of Jump
        The jumps of the decision, in increasing order of location (given K = ``n_jumps``
        when the count was fixed, as are the draws).
    idata : DataTree
        Posterior draws: ``n_jumps``, ``lengthscale`` (x units), ``ratio`` (σ_f/σ_n),
        ``smoothness`` (the Matérn ν of the smooth part: 2.5, or 0.5 for the
        Ornstein–Uhlenbeck process; ℓ and ν are NaN in draws without a smooth part) over all
        counts, and ``location`` (dim ``jump``) given K = ``n_jumps``.
    diagnostics : Diagnostics
        r̂ and ESS of the draws (no divergences: nothing is integrated numerically).
    model : SegmentModel
        Priors and grid.
    log_evidence : array, shape (n_grid, max_jumps + 1)
        log p(y, K = k, shape g), the shapes of every model in ``models`` one after the other.
    models : list of SegmentModel
        y as it is, its log warp when one was weighed against it, and each of these less a
        seasonal profile when a season was found.
    p_models : array
        Their posterior probabilities.
    dates : DateScale or None
        When x held dates, how they map to the decimal years of the answer's locations
        (:func:`~pymc_vsk.jumps.dates.date_scale`); :meth:`mean` maps dates with it.
    """

    x: np.ndarray
    y: np.ndarray
    p_n_jumps: np.ndarray
    n_jumps: int
    jumps: list[Jump]
    idata: xr.DataTree
    diagnostics: Diagnostics
    model: SegmentModel
    log_evidence: np.ndarray = field(repr=False)
    models: list[SegmentModel] = field(default_factory=list, repr=False)
    p_models: np.ndarray = field(default_factory=lambda: np.ones(1), repr=False)
    dates: DateScale | None = None
    fixed: bool = False

    @property
    def change_points(self) -> list[int]:
        """The index of the first observation after each jump, in the data sorted by x.

        A jump between ``x[c-1]`` and ``x[c]`` starts a new segment at index ``c``: the
        convention of ruptures and of the scores of :mod:`pymc_vsk.jumps.scores`.

        Examples
        --------
        >>> x = np.arange(60.0)
        >>> y = np.where(x < 30, 0.0, 4.0) + np.random.default_rng(0).normal(size=60)
        >>> post = find_jumps(x, y, draws=100, chains=2)
        >>> post.jumps[0].location, post.change_points
        (29.5, [30])
        """
        return [int(np.searchsorted(self.x, j.location)) for j in self.jumps]

    @property
    def converged(self) -> bool:
        """Whether every r̂ ≤ 1.01 and every ESS ≥ 400."""
        return self.diagnostics.ok

    def as_dict(self) -> dict:
        """The answer as plain JSON types.

        Returns
        -------
        dict
            ``{"n_jumps", "p_n_jumps": {"0": p, ...}, "jumps": [...], "diagnostics":
            {"max_rhat", "min_ess_bulk", "divergences"}}``.
        """
        return {
            "n_jumps": int(self.n_jumps),
            "p_n_jumps": {str(k): float(p) for k, p in enumerate(self.p_n_jumps)},
            "jumps": [j.as_dict() for j in self.jumps],
            "diagnostics": self.diagnostics.as_dict(),
        }

    def summary(self) -> str:
        """The count probabilities, each jump and the diagnostics, as text."""
        ks = ", ".join(f"P(K={k}) = {p:.3f}" for k, p in enumerate(self.p_n_jumps) if p >= 5e-4)
        d = digits_for(self.x)
        first = f"{len(self.x)} observations, x in [{self.x[0]:.{d}g}, {self.x[-1]:.{d}g}]"
        if self.dates is not None:
            first += " ({} to {}, in decimal years)".format(*self._dates(self.x[[0, -1]]))
        asked = ", as asked" if self.fixed else ""
        lines = [first, f"number of jumps: {self.n_jumps}{asked}   ({ks})"]
        lines.append(
            "smooth part: "
            + ", ".join(f"{name} (P = {p:.3f})" for name, p in self.p_smooth_part.items())
        )
        if len(self.models) > 1:
            lines.append(
                "modelled: "
                + ", ".join(
                    f"{_describe_model(m)} (P = {p:.3f})"
                    for m, p in zip(self.models, self.p_models, strict=True)
                )
            )
        for k, jump in enumerate(self.jumps, 1):
            lo, hi = jump.interval
            at, within = f"{jump.location:.{d}g}", f"[{lo:.{d}g}, {hi:.{d}g}]"
            if self.dates is not None:
                c = int(np.searchsorted(self.x, jump.location))  # x[c - 1] < location <= x[c]
                at += " (between {} and {})".format(*self._dates(self.x[[c - 1, c]]))
                within += " ({} to {})".format(*self._dates([lo, hi]))
            lines.append(
                f"jump {k}: at {at}, {PROB:.0%} interval {within}, "
                f"P(a jump there) = {jump.probability:.3f}"
            )
        wild = self.outliers
        if len(wild):
            lines.append(
                "left out as gross errors (wild values, not jumps): x = "
                + ", ".join(f"{v:.{d}g}" for v in wild)
            )
        lines += ["", "diagnostics of the draws:", str(self.diagnostics)]
        return "\n".join(lines)

    def _dates(self, years: npt.ArrayLike) -> list[str]:
        """Inputs in decimal years written as the dates of x, to their resolution."""
        assert self.dates is not None
        return date_labels(self.dates, np.asarray(years, dtype=float), self.x)

    @cached_property
    def p_smooth_part(self) -> dict[str, float]:
        """Posterior probabilities of the smooth part's kind, over every count and model.

        Returns
        -------
        dict
            ``{"none": P(r = 0 | y), "Matérn 5/2": ..., "Ornstein–Uhlenbeck": ...}``: no
            smooth part (each segment a level and trend plus noise), a twice differentiable
            one, or a rough one that wanders like a random walk at long ℓ. A priori 1/2, 3/8
            and 1/8 (``smooth_weight`` and ``ou_weight`` of
            :class:`~pymc_vsk.jumps.segments.SegmentModel`).
        """
        shapes = [m.grid[g] for m, g in _shapes(self.models or [self.model])]
        kind = np.array([0 if s.ratio == 0 else 1 if s.nu == SMOOTHNESS[0] else 2 for s in shapes])
        mass = _shape_mass(self.log_evidence)
        names = ("none", "Matérn 5/2", "Ornstein–Uhlenbeck")
        return {name: float(mass[kind == i].sum()) for i, name in enumerate(names)}

    @cached_property
    def outliers(self) -> np.ndarray:
        """The observations (their x) that the answer treats as gross errors, not as data.

        An observation far outside what the earlier observations of its segment predict (see
        ``outlier_prob`` of :class:`~pymc_vsk.jumps.segments.SegmentModel`), for the decided
        jumps at their median locations and the most probable shape on the grid.
        """
        model, shape = _point_shape(self)
        edges = [0, *self.change_points, len(self.x)]
        return self.x[model.gross_errors(edges, shape.lengthscale, shape.ratio, shape.nu)]

    def mean(self, xnew: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and std of the smooth-plus-level signal at ``xnew``.

        Computed for the decided jumps at their median locations and the most probable
        shape on the grid (a point summary for plots, not a mixture over draws).

        Parameters
        ----------
        xnew : array, shape (m,)
            Inputs, in x units: numbers, or dates when x held dates (read on the scale of
            x's dates, the attribute ``dates``; numbers are then decimal years).

        Returns
        -------
        mean, std : array, shape (m,)

        Raises
        ------
        ValueError
            ``xnew`` holds NaN or inf, or dates when x held numbers.
        """
        if is_dates(xnew):
            if self.dates is None:
                raise ValueError(
                    "xnew holds dates but x held numbers; pass xnew in the units of x."
                )
            xnew = self.dates(xnew)
        else:
            xnew = _numbers(xnew, "xnew")
        bad = np.flatnonzero(~np.isfinite(xnew))
        if len(bad):
            raise ValueError(
                f"xnew must be finite; it holds {xnew[bad[0]]} at position {bad[0]}: drop "
                "those inputs first."
            )
        return _segment_means(self, xnew)


def find_jumps(
    x: np.ndarray,
    y: np.ndarray,
    *,
    n_jumps: int | None = None,
    max_jumps: int | None = None,
    min_size: int = 3,
    draws: int = 1000,
    chains: int = 4,
    seed: int = 0,
    decision: str = "f1",
    margin: int = 5,
    warp: bool = True,
    season: bool = True,
    trend: bool = False,
    **options: float,
) -> JumpPosterior:
    """Posterior over the number and locations of jumps in a series.

    Parameters
    ----------
    x, y : array, shape (n,)
        Inputs and observations, any order and units; ties in x are allowed; durations
        (``timedelta64``, pandas timedeltas) are read in seconds. Dates
        (``datetime64``, pandas datetimes) are read as decimal years
        (:func:`~pymc_vsk.jumps.dates.decimal_years`), the units of the answer's locations.
    n_jumps : int, optional
        Fix the number of jumps; by default it is decided by ``decision``.
    max_jumps : int, optional
        Largest count considered (default ``min(20, max(2, n // 10))``).
    min_size : int, default 3
        Fewest observations between two jumps (and before the first, after the last).
    draws, chains : int, default 1000, 4
        Independent draws, arranged as chains for the diagnostics.
    seed : int, default 0
        Seed of the draws (a non-negative integer; ``None`` or a ``numpy.random.Generator``
        as in numpy). The probabilities are exact and do not depend on it, nor does the
        number of jumps: ``decision="f1"`` is taken on 4 000 draws of a seed of their own.
    decision : {"f1", "mode"}, default "f1"
        How the number of jumps is decided when ``n_jumps`` is not given: ``"f1"`` takes the
        count of the answer with the largest posterior expected F1 score (the Bayes decision
        for that score: where P(K | y) is flat over several counts, the count whose jumps
        are surest), ``"mode"`` the most probable count. The candidate answers of a count
        are the median places of its jumps and its most often drawn partitions.
    margin : int, default 5
        Largest distance, in observations, at which a reported jump counts as the true one
        in the expected F1 score.
    warp : bool, default True
        Also model a log warp of y, ``±log(u + λ)`` with u the data rescaled to [0, 1]
        (:func:`~pymc_vsk.jumps.warps.choose_warp` picks the sign and λ that best even out
        the size of the steps of y), and weigh it against y itself by the evidence, with prior
        probability 1/2 each (Box and Cox, 1964). Noise and seasonal swings that grow with the
        level (multiplicative data, counts) then need no jumps to explain them. The warp
        of a·y + b (a ≠ 0) is that of y, so the answer is the same in any units.
        False models y as it is.
    season : bool, default True
        For regularly spaced x (missing observations allowed, up to half of the grid), also
        fit the model to y (and to its warp) less one seasonal profile for the whole series,
        with the period the
        data show best (:func:`~pymc_vsk.jumps.seasons.find_period`), weighed by the
        evidence with the Schwarz penalty of the profile's effects
        (:class:`~pymc_vsk.jumps.seasons.Season`): every segment then shares the season, so
        a new segment need not learn it again, and the smooth part need not follow it with
        a short length scale that would also absorb a shift. False fits no season.
    trend : bool, default False
        For a series that rises or falls steadily by many noise sds (economic levels: a
        GDP, a population, prices): when the steps of y show a steady drift (their median
        more than three standard errors from 0, a test the jumps do not sway), also fit each
        of the models above with that drift shared by all segments
        (:func:`~pymc_vsk.jumps.segments.shared_drift`), weighed by the evidence with the
        Schwarz penalty of its one parameter. A segment's slope is then drawn around the
        series' drift, not around 0, so that a shift in such a series (a crisis in a GDP)
        is paid for by a new level alone, not by a new level and a steep slope. It is not the
        default: a smooth curve that steepens (CO₂ at Mauna Loa) is then cheaper to cut into
        pieces than to bend.
    **options
        Priors and grid of :class:`~pymc_vsk.jumps.segments.SegmentModel` (``level_sd``,
        ``slope_sd`` and ``slope_weights``: gentle and steep trends, ``a0``,
        ``n_lengthscales``, ``min_lengthscale``, ``ratios``, ``outlier_prob``: a wild value
        far outside what its segment predicts is a gross error, left out and listed by
        :attr:`JumpPosterior.outliers`, not two jumps; ``count_decay``: the prior
        P(K = k) ∝ ``count_decay**k``, uniform by default; ``ou_weight``: the prior
        probability of a rough, Ornstein–Uhlenbeck smooth part, which follows a series that
        wanders as a random walk without cutting it into pieces; ``smooth_weight``: the
        prior probability of a smooth part at all, 1/2).

    Returns
    -------
    JumpPosterior
        The answer (see :class:`JumpPosterior` for all of it). Mainly:

        * ``n_jumps``: the decided number of jumps K (or the count asked for);
        * ``p_n_jumps``: the posterior probabilities P(K = k | y), k = 0, 1, ...;
        * ``jumps``: list of :class:`Jump` in increasing order of location, each with its
          ``location`` (posterior median, in x units: decimal years when x held dates), its
          94 % ``interval`` and the ``probability`` that a jump lies there;
        * :attr:`~JumpPosterior.change_points`: the index of the first observation after
          each jump, in the data sorted by x;
        * :meth:`summary() <JumpPosterior.summary>`: all of this as text, and
          :meth:`as_dict() <JumpPosterior.as_dict>`: as plain JSON types;
        * :meth:`mean(xnew) <JumpPosterior.mean>`: posterior mean and std of the signal
          (levels and smooth part, without the noise) at new inputs ``xnew``, for plots;
        * ``idata``: the draws (an ``xarray.DataTree``): ``n_jumps``, the smooth part's
          ``lengthscale``, ``ratio`` and ``smoothness``, and the jumps' ``location``;
        * ``diagnostics``: r̂ and ESS of the draws (a
          :class:`~pymc_vsk.diagnostics.Diagnostics`), and
          :attr:`~JumpPosterior.converged` whether they pass;
        * :attr:`~JumpPosterior.outliers`: the x of observations left out as gross errors,
          and :attr:`~JumpPosterior.p_smooth_part`: the posterior probabilities of no,
          a Matérn 5/2 or an Ornstein–Uhlenbeck smooth part.

    Raises
    ------
    ValueError
        Non-finite, complex or mismatched inputs, fewer than ``min_size`` observations, a
        constant x, a spread of y (max − min) beyond 1e-140 to 1e140, whose variance floating
        point cannot hold (rescale y), a negative ``seed``, or ``n_jumps`` larger than the
        data allow.
    TypeError
        A count or ``seed`` that is not an integer, or an unknown option.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.arange(60.0)
    >>> y = np.where(x < 30, 0.0, 2.0) + 0.3 * rng.normal(size=60)
    >>> post = find_jumps(x, y, draws=200, chains=2)
    >>> post.n_jumps, round(post.jumps[0].location, 1)
    (1, 29.5)
    """
    for name, value, low in (
        ("draws", draws, 1),
        ("chains", chains, 1),
        ("min_size", min_size, 1),
        ("margin", margin, 0),
        ("n_jumps", n_jumps, 0),
        ("max_jumps", max_jumps, 0),
    ):
        _check_count(name, value, low)
    _check_seed(seed)
    if decision not in ("mode", "f1"):
        raise ValueError(f"decision must be 'f1' or 'mode'; got {decision!r}.")
    unknown = sorted(set(options) - set(SEGMENT_OPTIONS))
    if unknown:
        raise TypeError(
            f"find_jumps got unknown option(s) {', '.join(map(repr, unknown))}; the options of "
            f"the segment model are {', '.join(SEGMENT_OPTIONS)}."
        )
    scale = date_scale(x) if is_dates(x) else None
    x, y = _check(x if scale is None else scale(x), y, min_size)
    # the n × (n + 1) segment evidence of a shape: the process grows by about twice that
    # (300 MB at 4 000 observations, where one is 128 MB)
    check_dense(
        len(x),
        len(x) + 1,
        f"Jump detection on {len(x)} observations (the evidence of every run as a segment)",
        copies=2,
        fix="Analyse a shorter stretch of the series, or its means over groups of a few "
        "observations (the time grows as n², about 3 minutes at 4 000 on 2 cores).",
    )
    if n_jumps is not None and not 0 <= n_jumps <= len(x) // min_size - 1:
        raise ValueError(
            f"{n_jumps} jumps need at least {(n_jumps + 1) * min_size} observations "
            f"({min_size} per segment); there are {len(x)}: ask for fewer jumps or lower "
            "min_size."
        )
    chosen = choose_warp(y) if warp else None
    period = find_period(x, y) if season else None
    variants = [
        (w, p, t)
        for w in ([None] if chosen is None else [None, chosen])
        for p in ([None] if period is None else [None, period])
        for t in ([False, True] if trend else [False])
    ]
    # a fixed count above the default limit raises the limit
    if n_jumps is not None and n_jumps > count_limit(len(x), min_size, max_jumps):
        max_jumps = n_jumps
    models = [
        SegmentModel(
            x,
            y,
            min_size=min_size,
            max_jumps=max_jumps,
            warp=w,
            period=p,
            shared_trend=t,
            **options,
        )
        for w, p, t in variants
    ]
    # a shared drift asked for where the series shows none is the model without it
    models = [m for m in models if m.drift is not None]
    report(
        f"evidence of every partition into at most {models[0].max_jumps + 1} segments, "
        f"{len(models[0].grid)} smooth-part shapes"
        + (f"; {', '.join(_describe_model(m) for m in models)}" if len(models) > 1 else "")
    )
    # the shapes of every model side by side, each model with prior mass 1 / len(models)
    # (the prior of the partitions depends on x alone: counted once for every model)
    prior_k = models[0].log_prior_counts()
    if n_jumps is not None and prior_k[n_jumps] == -np.inf:
        raise ValueError(
            f"{n_jumps} jumps do not fit between the {len(np.unique(x))} distinct values of x "
            f"with at least {min_size} observations per segment (jumps fall between distinct "
            f"inputs); at most {int(np.flatnonzero(np.isfinite(prior_k)).max())} do: ask for "
            "fewer jumps or lower min_size."
        )
    parts = [m.count_evidence(prior_k) for m in models]
    logp = np.vstack([lp for lp, _ in parts]) - np.log(len(models))
    Es = [E for _, model_Es in parts for E in model_Es]
    entries = _shapes(models)
    p_k = np.exp(logsumexp(logp, axis=0) - logsumexp(logp))
    if n_jumps is not None:  # the draws are given K; p_k stays P(K | y)
        logp = np.where(np.arange(logp.shape[1]) == n_jumps, logp, -np.inf)
    rng = np.random.default_rng(seed)
    total = draws * chains
    report(f"{total} exact draws ({chains} chains × {draws})")
    # unconditional draws: (shape, count) jointly, then a partition
    g_all, k_all = _shapes_and_counts(logp, total, rng)
    if n_jumps is not None or decision == "mode":
        # the count is known before any draw: one pass over the shapes draws both sets
        k_hat = int(np.argmax(p_k)) if n_jumps is None else int(n_jumps)
        g_cond = _shapes_given(logp, k_hat, total, rng)
        counts = np.r_[k_all, np.full(total, k_hat)]
        (both,) = _draw(entries, Es, [(np.r_[g_all, g_cond], counts, rng)])
        cuts_all, cuts_cond = both[:total], both[total:, :k_hat]
    else:
        if seed == DECISION_SEED and total == DECISION_DRAWS:
            (cuts_all,) = _draw(entries, Es, [(g_all, k_all, rng)])
            cuts_dec, k_dec = cuts_all, k_all
        else:
            # the decision's own draws, taken as the defaults take theirs
            rng_dec = np.random.default_rng(DECISION_SEED)
            g_dec, k_dec = _shapes_and_counts(logp, DECISION_DRAWS, rng_dec)
            cuts_all, cuts_dec = _draw(entries, Es, [(g_all, k_all, rng), (g_dec, k_dec, rng_dec)])
        k_hat = _best_f1_count(cuts_dec, k_dec, p_k, margin)
        g_cond = _shapes_given(logp, k_hat, total, rng)
        (cuts_cond,) = _draw(entries, Es, [(g_cond, np.full(total, k_hat), rng)])
    mids = 0.5 * (x[:-1] + x[1:])  # cut c (first node of a segment) -> gap c - 1
    locs = mids[cuts_cond - 1] if k_hat else np.empty((total, 0))
    all_locs = np.where(cuts_all > 0, mids[np.maximum(cuts_all, 1) - 1], np.nan)
    jumps = [_describe(own, all_locs, x, mids) for own in _per_jump(locs)]
    shapes = np.array([(m.grid[g].lengthscale, m.grid[g].ratio, m.grid[g].nu) for m, g in entries])
    ell, ratio, nu = shapes[g_all].T
    posterior = {
        "n_jumps": k_all.reshape(chains, draws).astype(float),
        "lengthscale": np.where(ratio > 0, ell * (x[-1] - x[0]), np.nan).reshape(chains, draws),
        "ratio": ratio.reshape(chains, draws),
        "smoothness": np.where(ratio > 0, nu, np.nan).reshape(chains, draws),
    }
    if k_hat:
        posterior["location"] = locs.reshape(chains, draws, k_hat)
    from arviz_base import from_dict  # imported on use: arviz loads slowly

    idata = from_dict({"posterior": posterior}, dims={"location": ["jump"]})
    owner = np.repeat(np.arange(len(models)), [len(m.grid) for m in models])
    p_models = np.bincount(owner, weights=_shape_mass(logp), minlength=len(models))
    model = models[int(np.argmax(p_models))]
    return JumpPosterior(
        x,
        y,
        p_k,
        k_hat,
        jumps,
        idata,
        _diagnostics(idata),
        model,
        logp,
        models,
        p_models,
        scale,
        fixed=n_jumps is not None,
    )


def _describe_model(model: SegmentModel) -> str:
    """What the model fits to, in words: y or its warp, less a season and a drift or not."""
    text = describe_warp(model.warp)
    if model.season is not None:
        text += f" less a season of {model.season.period} observations"
    if model.drift:
        text += " less a shared drift"
    return text


def _shapes(models: list[SegmentModel]) -> list[tuple[SegmentModel, int]]:
    """Every shape of every model, in the order of the rows of the log evidence."""
    return [(m, g) for m in models for g in range(len(m.grid))]


def _shape_mass(log_evidence: np.ndarray) -> np.ndarray:
    """Posterior probability of each shape (a row of ``log_evidence``), over every count."""
    rows = logsumexp(log_evidence, axis=1)
    return np.exp(rows - logsumexp(rows))


def _shapes_and_counts(
    logp: np.ndarray, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Joint draws of the shape (grid point) and the count: ``P(g, K = k | y)``."""
    flat = np.exp(logp.ravel() - logsumexp(logp))
    return np.unravel_index(rng.choice(flat.size, size=size, p=flat / flat.sum()), logp.shape)


def _shapes_given(logp: np.ndarray, k: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of the shape (grid point) given K = k: ``P(g | y, K = k)``."""
    cond = np.exp(logp[:, k] - logsumexp(logp[:, k]))
    return rng.choice(len(cond), size=size, p=cond / cond.sum())


def _draw(
    entries: list[tuple[SegmentModel, int]],
    Es: list[np.ndarray],
    requests: list[tuple[np.ndarray, np.ndarray, np.random.Generator]],
) -> list[np.ndarray]:
    """Exact partitions for sets of draws of (shape, count); -1 pads draws with fewer jumps.

    Each request is the shapes and counts of a set of draws and the generator they are drawn
    with; shape ``g`` is shape ``entries[g][1]`` of the model ``entries[g][0]``. The segment
    evidence of each shape is computed once, for all the draws of every set that use it, and
    each generator is called as if its set were drawn alone.
    """
    out = []
    for _, counts, _ in requests:
        width = int(counts.max()) if counts.size else 0
        out.append(np.full((counts.size, width), -1, dtype=int))
    for g in np.unique(np.concatenate([shapes for shapes, _, _ in requests])):
        model, local = entries[g]
        shape = model.grid[local]
        P = model.evidence(shape.lengthscale, shape.ratio, shape.nu)
        for (shapes, counts, rng), cuts in zip(requests, out, strict=True):
            idx = np.flatnonzero(shapes == g)
            if idx.size:
                drawn = sample_partitions(P, Es[g], counts[idx], model.min_size, rng)
                cuts[idx, : drawn.shape[1]] = drawn
    return out


def _best_f1_count(
    cuts: np.ndarray,
    counts: np.ndarray,
    p_k: np.ndarray,
    margin: int,
    n_eval: int = 1000,
    n_frequent: int = 5,
) -> int:
    """The count of the candidate answer with the largest posterior expected F1.

    For each count k with P(K = k | y) ≥ 0.01, the candidate answers are the per-jump median
    of the draws with k jumps and the ``n_frequent`` partitions drawn most often among them;
    the F1 of each (:func:`~pymc_vsk.jumps.scores.f1_score`, in observation indices, with
    ``margin``) is averaged over up to ``n_eval`` posterior draws taken as the truth.
    """
    # the draws repeat partitions: score each distinct one once, weighted by its repeats
    distinct, repeats = np.unique(cuts[:n_eval], axis=0, return_counts=True)
    truths = [set(c[c > 0].tolist()) for c in distinct]
    weights = repeats / repeats.sum()
    best, best_k = -1.0, 0
    for k in np.flatnonzero(p_k >= 0.01):
        answers: list[list[int]] = [[]]
        if k > 0:
            same = cuts[counts == k][:, :k]
            if not len(same):
                continue
            rows, freq = np.unique(same, axis=0, return_counts=True)
            answers = [np.median(same, axis=0).round().astype(int).tolist()]
            answers += [row.tolist() for row in rows[np.argsort(-freq, kind="stable")[:n_frequent]]]
        for answer in answers:
            expected = float(weights @ [f1_score([t], answer, margin) for t in truths])
            if expected > best:
                best, best_k = expected, int(k)
    return best_k


def _numbers(values: object, name: str) -> np.ndarray:
    """``values`` as a flat float array, or an error that shows one value that is not (or
    that says the values are not one series)."""
    if np.ma.is_masked(values):  # a numpy masked array, or pandas' nullable arrays
        k = int(np.flatnonzero(np.ma.getmaskarray(values))[0])
        what = (
            "is a masked array with masked values (first at position {k}), whose masks are not read"
            if isinstance(values, np.ma.MaskedArray)
            else "holds missing values (pd.NA, first at position {k})"
        )
        raise ValueError(
            f"{name} {what.format(k=k)}: drop those rows, in x and y, first (with pandas, "
            "data.dropna())."
        )
    complex_values = ValueError(
        f"{name} holds complex numbers; pass real numbers (the real part, the modulus or the "
        "phase, as meant)."
    )
    if pd.api.types.is_complex_dtype(getattr(values, "dtype", None)):
        raise complex_values
    if pd.api.types.is_timedelta64_dtype(getattr(values, "dtype", None)):
        values = np.asarray(values, dtype="timedelta64[ns]") / np.timedelta64(1, "s")
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        cells = pd.Series(np.asarray(values, dtype=object).ravel())
        if any(isinstance(cell, complex | np.complexfloating) for cell in cells):
            raise complex_values from None
        bad = cells[pd.to_numeric(cells, errors="coerce").isna() & cells.notna()]
        hint = " (dates: pass them as datetimes, e.g. pandas.to_datetime(x))" if name == "x" else ""
        shown = f"; it holds {bad.iloc[0]!r}" if len(bad) else ""
        raise ValueError(f"{name} must hold numbers{hint}{shown}.") from None
    if sum(size > 1 for size in array.shape) > 1:
        raise ValueError(
            f"{name} has shape {array.shape}: it must be one series, one value per observation "
            "(a row or column vector is fine); fit each column on its own."
        )
    return array.ravel()


def _check_count(name: str, value: object, low: int) -> None:
    """Raise unless ``value`` is None or a whole number (not a bool) of at least ``low``."""
    if value is None and name in ("n_jumps", "max_jumps"):
        return
    check_count(value, name, low)


def _check_seed(seed: object) -> None:
    """Raise unless ``seed`` is a non-negative integer, None, a Generator or a SeedSequence."""
    allowed = (numbers.Integral, np.random.Generator, np.random.SeedSequence)
    if isinstance(seed, bool) or not (seed is None or isinstance(seed, allowed)):
        raise TypeError(
            f"seed must be a non-negative integer (or None, or a numpy Generator); got {seed!r}."
        )
    if isinstance(seed, numbers.Integral) and seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}.")


def _check(x: np.ndarray, y: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    x = _numbers(x, "x")
    y = _numbers(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x has {x.size} values and y {y.size}; pass one y per x.")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite: drop or fill the rows with NaN or inf first.")
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1; got {min_size}.")
    if x.size < max(min_size, 2):
        raise ValueError(f"{x.size} observation(s): at least {max(min_size, 2)} are needed.")
    spread = float(np.ptp(y))
    if spread > 0 and not SPREAD_LIMITS[0] <= spread <= SPREAD_LIMITS[1]:
        raise ValueError(
            f"y spans {spread:.3g}: too {'little' if spread < 1 else 'much'} for the squares of "
            "its deviations in floating point; rescale y (e.g. y / y.std()), which leaves the "
            "answer unchanged."
        )
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    if x[0] == x[-1]:
        raise ValueError(f"x holds a single distinct value ({x[0]:g}); the inputs must vary.")
    return x, y


def _per_jump(locs: np.ndarray) -> list[np.ndarray]:
    """The draws of each jump's location, from draws of k locations in increasing order.

    The k-th smallest location of a draw is not always the same jump: a draw without one of
    the jumps, and with another one elsewhere, shifts the labels of every jump after it, and
    the k-th locations then mix neighbouring jumps. A jump's draws are instead, in each draw,
    the location nearest to the median of the k-th locations among those nearer to it than
    to the neighbouring jumps' medians; a draw with none there lacks this jump and is left
    out (the usual relabelling of mixture draws by the nearest reference).

    Parameters
    ----------
    locs : array, shape (draws, k)
        Each row sorted.

    Returns
    -------
    list of k arrays

    Examples
    --------
    >>> locs = np.array([[10.0, 20.0, 30.0], [10.0, 20.0, 30.0], [20.0, 30.0, 70.0]])
    >>> [own.tolist() for own in _per_jump(locs)]  # the third draw lacks the jump at 10
    [[10.0, 10.0], [20.0, 20.0, 20.0], [30.0, 30.0, 30.0]]
    """
    median = np.median(locs, axis=0)
    edges = np.r_[-np.inf, 0.5 * (median[1:] + median[:-1]), np.inf]
    rows = np.arange(len(locs))
    out = []
    for k in range(locs.shape[1]):
        inside = (locs > edges[k]) & (locs <= edges[k + 1])
        distance = np.where(inside, np.abs(locs - median[k]), np.inf)
        nearest = np.argmin(distance, axis=1)
        kept = np.isfinite(distance[rows, nearest])
        out.append(locs[rows, nearest][kept] if kept.any() else locs[:, k])
    return out


def _describe(locs: np.ndarray, all_locs: np.ndarray, x: np.ndarray, mids: np.ndarray) -> Jump:
    """Median, credible interval and existence probability of one jump's location draws.

    The draws are gap midpoints ``mids``; the gap of midpoint ``mids[i]`` is (x[i], x[i+1]].
    The interval is the shortest run of consecutive gaps that holds ``PROB`` of the draws
    (the most mass among equally short ones): a few stray draws far from the jump do not
    stretch it, as they would the hull of the most probable gaps.
    """
    gaps, counts = np.unique(locs, return_counts=True)
    probs = counts / counts.sum()
    index = np.searchsorted(mids, gaps)  # gap i spans (x[i], x[i + 1]]
    cum = np.concatenate([[0.0], np.cumsum(probs)])
    # for every first gap a, the fewest following gaps b with mass(a..b) >= PROB
    ends = np.searchsorted(cum, cum[:-1] + PROB - 1e-12, side="left") - 1
    valid = ends < len(gaps)
    starts = np.flatnonzero(valid)
    ends = ends[valid]
    width = x[index[ends] + 1] - x[index[starts]]
    mass = cum[ends + 1] - cum[starts]
    best = np.lexsort((-mass, width))[0]
    lo, hi = float(x[index[starts[best]]]), float(x[index[ends[best]] + 1])
    inside = np.mean(np.any((all_locs >= lo) & (all_locs <= hi), axis=1))
    return Jump(float(np.median(locs)), (lo, hi), float(inside), gaps, probs)


def _diagnostics(idata: xr.DataTree) -> Diagnostics:
    """diagnose() on the draws; a quantity, or an element of one, that never varies is exact
    and left out of the table (diagnose() names them)."""
    post = idata["posterior"]
    names = []
    for name in post.data_vars:
        values = np.asarray(post[name].values)
        if np.all(np.isnan(values)):
            continue
        if name == "smoothness" or (name == "lengthscale" and np.any(np.isnan(values))):
            continue  # ν takes two values, ℓ is undefined where r = 0: "ratio" shows the mixing
        names.append(name)
    if names:
        report = diagnose(idata, names)
        report.table = report.table.drop(report.exact)  # e.g. a jump in one gap in every draw
        if len(report.table):
            return report
    # exact and independent draws of one answer: as many as there are
    n = int(post.sizes["chain"] * post.sizes["draw"])
    table = pd.DataFrame(
        {"r_hat": [1.0], "ess_bulk": [float(n)], "ess_tail": [np.nan], "mcse_mean": [0.0]},
        index=["n_jumps"],
    )
    problems = [] if n >= ESS_MIN else [f"n_jumps: ess_bulk = {n} < {ESS_MIN:g}"]
    return Diagnostics(table, 0, n, problems=problems)


def _point_shape(post: JumpPosterior) -> tuple[SegmentModel, Shape]:
    """The model and the shape of the grid with the largest posterior mass."""
    model, g = _shapes(post.models or [post.model])[int(np.argmax(_shape_mass(post.log_evidence)))]
    return model, model.grid[g]


def _segment_means(post: JumpPosterior, xnew: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    model, (ell, r, _, nu) = _point_shape(post)
    wild = np.isin(post.x, post.outliers)
    span = post.x[-1] - post.x[0]
    xs = model.x  # the inputs scaled to [0, 1], as the model sees them
    xn = (xnew - post.x[0]) / span
    edges = [-np.inf, *[(j.location - post.x[0]) / span for j in post.jumps], np.inf]
    mean = np.empty_like(xn)
    std = np.empty_like(xn)
    for lo, hi in itertools.pairwise(edges):
        seg = (xs > lo) & (xs <= hi) & ~wild
        new = (xn > lo) & (xn <= hi)
        if not np.any(new) or not np.any(seg):
            continue
        ys = model.y[seg]
        x0 = xs[seg][0]
        ds, dn = xs[seg] - x0, xn[new] - x0
        smooth = r**2 * matern_kernel(xs[seg], xs[seg], ell, nu) + np.eye(seg.sum())
        cross = r**2 * matern_kernel(xn[new], xs[seg], ell, nu)
        # each slope prior of the mixture: its posterior weight, mean and variance here
        parts = []
        for lw, slope_var in model.slope_prior:
            R = model.level_var + slope_var * np.outer(ds, ds) + smooth
            Ks = model.level_var + slope_var * np.outer(dn, ds) + cross
            factor = cho_factor(R, lower=True)
            alpha = cho_solve(factor, ys)
            a_n, b_n = model.a0 + 0.5 * seg.sum(), model.b0 + 0.5 * float(ys @ alpha)
            # log multivariate t evidence, less what all slope priors share
            logz = lw - np.sum(np.log(np.diag(factor[0]))) - a_n * np.log(b_n)
            prior = model.level_var + slope_var * dn**2 + r**2
            var = prior - np.einsum("ij,ji->i", Ks, cho_solve(factor, Ks.T))
            var = np.maximum(var, 0.0) * b_n / max(a_n - 1.0, 0.5)
            parts.append((logz, Ks @ alpha, var))
        logz = np.array([p[0] for p in parts])
        post_w = np.exp(logz - logsumexp(logz))
        mean[new] = sum(w * m for w, (_, m, _) in zip(post_w, parts, strict=True))
        second = sum(w * (v + m * m) for w, (_, m, v) in zip(post_w, parts, strict=True))
        std[new] = np.sqrt(np.maximum(second - mean[new] ** 2, 0.0))
    mean = mean * model.y_scale + model.y_center + (model.drift or 0.0) * xn
    if model.season is not None:
        mean = mean + model.season(xnew)
    std = std * model.y_scale
    if model.warp is None:
        return mean, std
    # back to y: the median of the warped normal, its sd to first order
    y_mean, slope = log_unwarp(mean, post.y, *model.warp)
    return y_mean, std * slope
