r"""Exact posterior over jumps: independent GP segments, summed over every partition.

A VSK with a step scaling function ψ(x) = a·Σₖ H(x − tₖ) lifts the two sides of each jump
apart by ``a``; as ``a`` grows, a Matérn kernel on the lifted inputs (eq. 13 of the paper)
decays to zero across the jump, and the GP splits into independent pieces. This module takes
that limit as the model for jump detection and lets each piece shift its level and trend:

.. math::

    y_i = c_s + d_s (x_i - x_{s,0}) + \sigma_s\,(r\,f_s(x_i) + \varepsilon_i), \qquad
    f_s \sim \mathcal{GP}(0, k_\ell), \quad \varepsilon_i \sim \mathcal N(0, 1),

for the observations of segment ``s`` (the nodes between two consecutive jumps, the first at
``x_{s,0}``), with ``k_ℓ`` the Matérn kernel of unit variance and smoothness 5/2 or 1/2 (the
Ornstein–Uhlenbeck process: a smooth part that wanders like a random walk), the level ``c_s | σ_s ~
N(0, κ² σ_s²)``, the slope ``d_s | σ_s ~ N(0, κ_d² σ_s²)`` (or a scale mixture of such
normals: gentle trends and a few steep ones) and the scale ``σ_s² ~ InvGamma(a₀, b₀)`` (all
integrated out in closed form: a multivariate t evidence per segment, or a weighted sum of
them), and the shape (ν, ℓ, r) shared by all segments, on a grid. A jump is thus paid for by
what it buys: a new level, trend and scale (a shift of the mean or of its slope, a change of
the noise), and a smooth part that need not bend to follow the jump. For a series that rises
or falls steadily, ``shared_trend`` first subtracts the drift the pieces share
(:func:`shared_drift`), so that each slope is drawn around it and a new piece pays for its
level alone. The jump locations get
a uniform prior on the gaps between nodes given their number K, and K a uniform prior on
``0..max_jumps`` by default (without the cap: each gap holds a jump with probability p,
p ~ Beta(1, 1)) or a geometric one (``count_decay``); no segment is shorter than ``min_size`` nodes.

The sum over partitions is exact (Fearnhead, 2006): with ``P[i, j]`` the log evidence of
nodes ``i..j-1`` as one segment, ``E[k, j] = logsumexp_i(E[k-1, i] + P[i, j])`` gives the
evidence of every K in ``O(K n²)``, and partitions are drawn exactly by running it backwards.
``P`` comes from Kalman filters (both kernels are linear SDEs, state dimension 3 and 1, held
in the same 3 states, plus the level and the slope), one from each start node: ``O(n²)`` per
grid point and ``O(n)`` memory per start, for any spacing of the nodes. Draws are
independent, so r̂ and ESS only measure how many were taken.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np
from scipy.special import gammaln, logsumexp

from pymc_vsk.jumps.seasons import Season
from pymc_vsk.jumps.warps import log_warp, resolution
from pymc_vsk.progress import detail

__all__ = [
    "SegmentModel",
    "Shape",
    "count_limit",
    "gross_errors",
    "log_configurations",
    "matern52_kernel",
    "matern52_transitions",
    "matern_kernel",
    "median_slope",
    "noise_variance",
    "partition_evidence",
    "pooled_slope",
    "sample_partitions",
    "segment_evidence",
    "shared_drift",
    "state_space",
]

#: Smoothness ν of the smooth part's Matérn kernels: 5/2 (twice differentiable paths) and 1/2
#: (the Ornstein–Uhlenbeck process: continuous, rough paths, a random walk at long ℓ).
SMOOTHNESS = (2.5, 0.5)


def matern52_transitions(dx: np.ndarray, lengthscale: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Transition matrices and process noise of the Matérn 5/2 SDE over the steps ``dx``.

    The state is (f, f′, f″) with stationary covariance
    ``P∞ = [[1, 0, -λ²/3], [0, λ²/3, 0], [-λ²/3, 0, λ⁴]]``, λ = √5/ℓ (Hartikainen and
    Särkkä, 2010); over a step Δ, ``A = expm(F Δ)`` and ``Q = P∞ - A P∞ Aᵀ``. F's
    characteristic polynomial is (s + λ)³, so ``N = F + λI`` is nilpotent and
    ``A = e^{-λΔ} (I + Δ N + Δ² N² / 2)`` in closed form.

    Parameters
    ----------
    dx : array, shape (m,)
        Non-negative steps between consecutive inputs.
    lengthscale : float
        ℓ > 0.

    Returns
    -------
    A, Q : array, shape (m, 3, 3)

    Examples
    --------
    >>> import numpy as np
    >>> A, Q = matern52_transitions(np.array([0.0, 0.3]), 1.0)
    >>> bool(np.allclose(A[0], np.eye(3)) and np.allclose(Q[0], 0.0))
    True
    """
    lam = np.sqrt(5.0) / lengthscale
    F = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-(lam**3), -3 * lam**2, -3 * lam]])
    N = F + lam * np.eye(3)
    d = np.asarray(dx, dtype=float)[:, None, None]
    A = np.exp(-lam * d) * (np.eye(3) + d * N + 0.5 * d**2 * (N @ N))
    Q = stationary_covariance(lengthscale) - A @ stationary_covariance(lengthscale) @ A.transpose(
        0, 2, 1
    )
    return A, 0.5 * (Q + Q.transpose(0, 2, 1))


def matern52_kernel(a: np.ndarray, b: np.ndarray, lengthscale: float) -> np.ndarray:
    """Matérn 5/2 kernel of unit variance between the 1-D inputs ``a`` and ``b``."""
    d = np.sqrt(5.0) * np.abs(np.subtract.outer(a, b)) / lengthscale
    return (1.0 + d + d * d / 3.0) * np.exp(-d)


def stationary_covariance(lengthscale: float) -> np.ndarray:
    """P∞ of the Matérn 5/2 SDE with unit variance (see :func:`matern52_transitions`)."""
    lam2 = 5.0 / lengthscale**2
    return np.array([[1.0, 0.0, -lam2 / 3], [0.0, lam2 / 3, 0.0], [-lam2 / 3, 0.0, lam2**2]])


def matern_kernel(a: np.ndarray, b: np.ndarray, lengthscale: float, nu: float = 2.5) -> np.ndarray:
    """Matérn kernel of unit variance and smoothness ν (5/2 or 1/2) between 1-D inputs.

    ν = 1/2 is the Ornstein–Uhlenbeck kernel ``exp(-|a - b| / ℓ)``.

    Examples
    --------
    >>> float(matern_kernel(np.array([0.0]), np.array([0.5]), 0.5, nu=0.5)[0, 0])
    0.36787944117144233
    """
    if nu == 2.5:
        return matern52_kernel(a, b, lengthscale)
    if nu == 0.5:
        return np.exp(-np.abs(np.subtract.outer(a, b)) / lengthscale)
    raise ValueError(f"the smooth part's smoothness nu must be one of {SMOOTHNESS}; got {nu}.")


def state_space(
    dx: np.ndarray, lengthscale: float, nu: float = 2.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Transitions ``A``, process noise ``Q`` and stationary covariance ``P∞`` of the smooth
    part's SDE, in the filter's state of three components.

    ν = 5/2: :func:`matern52_transitions` and ``stationary_covariance``. ν = 1/2: the
    Ornstein–Uhlenbeck process df = -f/ℓ dt + √(2/ℓ) dW in the first component,
    ``A = e^{-Δ/ℓ}``, ``Q = 1 - e^{-2Δ/ℓ}``; the other two are 0, and the filter leaves them
    out.

    Parameters
    ----------
    dx, lengthscale
        As for :func:`matern52_transitions`.
    nu : {2.5, 0.5}
        Smoothness of the Matérn kernel.

    Returns
    -------
    A, Q : array, shape (m, 3, 3)
    Pinf : array, shape (3, 3)

    Examples
    --------
    >>> A, Q, Pinf = state_space(np.array([0.0, 0.3]), 0.3, nu=0.5)
    >>> [round(float(A[1, 0, 0]), 4), round(float(Q[1, 0, 0]), 4), float(Pinf[0, 0])]
    [0.3679, 0.8647, 1.0]
    """
    if nu == 2.5:
        return (*matern52_transitions(dx, lengthscale), stationary_covariance(lengthscale))
    matern_kernel(np.zeros(1), np.zeros(1), lengthscale, nu)  # refuses any other ν
    decay = np.exp(-np.asarray(dx, dtype=float) / lengthscale)
    A = np.zeros((decay.size, 3, 3))
    Q = np.zeros((decay.size, 3, 3))
    A[:, 0, 0] = decay
    Q[:, 0, 0] = 1.0 - decay * decay
    Pinf = np.zeros((3, 3))
    Pinf[0, 0] = 1.0
    return A, Q, Pinf


@numba.njit(cache=True)
def _filter_from(start, y, dx, A, Q, Pinf, prior, tgain, min_size, out, gated):  # pragma: no cover
    """Log evidence of y[start:j] for every j > start (written to out[j]); Kalman filter.

    The state is (level, slope, f, f', f''): the level moves by slope·Δx and the slope stays
    (a straight line, prior variances level_var and slope_var at the segment's first node);
    f follows the Matérn SDE. Only the components of f with a positive stationary variance
    are carried (f alone for the Ornstein–Uhlenbeck process, none when r = 0). σ² is
    integrated out one observation at a time: each predictive is a Student t with 2a degrees
    of freedom (a = a₀ + inliers/2). With
    ``prior = (r, level_var, slope_var, a₀, b₀, log(1 - ε), log ε + log p_out)``, each
    observation is a gross error with probability ε: its evidence is the mixture of both,
    and an observation more likely a gross error than not leaves the state as it was
    (treated as missing). ``tgain[k]`` is
    ``lgamma(a₀ + (k + 1)/2) - lgamma(a₀ + k/2)``. When ``gated`` has room, ``gated[j]`` is set
    to 1 for each observation left out that way.
    """
    ratio, level_var, slope_var, a0, b0, log_inlier, log_gross = prior
    n = y.shape[0]
    # f's components with a positive stationary variance (3 for Matérn 5/2, 1 for the
    # Ornstein–Uhlenbeck process); none when r = 0, as f then never reaches y
    q = 0
    if ratio != 0.0:
        while q < 3 and Pinf[q, q] > 0.0:
            q += 1
    d = 2 + q
    m = np.zeros(5)
    P = np.zeros((5, 5))
    T = np.zeros((5, 5))
    g = np.zeros(5)
    P[0, 0] = level_var
    P[1, 1] = slope_var
    # element by element: Numba's slice assignment checks the shapes with an error message
    # whose string formatting takes seconds to compile on a first call
    for u in range(q):
        for w in range(q):
            P[2 + u, 2 + w] = Pinf[u, w]
    lev = 0.0
    b = b0
    inliers = 0
    log_2pi = np.log(2.0 * np.pi)
    for j in range(start, n):
        if j > start:
            # m <- S m; P <- S P S' + blockdiag(0, 0, Q), S = blockdiag([[1, Δx], [0, 1]], A)
            h = dx[j - 1]
            Aj = A[j - 1]
            m[0] += h * m[1]
            for u in range(q):
                acc = 0.0
                for v in range(q):
                    acc += Aj[u, v] * m[2 + v]
                g[u] = acc
            for u in range(q):
                m[2 + u] = g[u]
            for w in range(d):  # T = S P
                T[0, w] = P[0, w] + h * P[1, w]
                T[1, w] = P[1, w]
                for u in range(q):
                    acc = 0.0
                    for v in range(q):
                        acc += Aj[u, v] * P[2 + v, w]
                    T[2 + u, w] = acc
            for u in range(d):  # P = T S'
                P[u, 0] = T[u, 0] + h * T[u, 1]
                P[u, 1] = T[u, 1]
                for w in range(q):
                    acc = 0.0
                    for v in range(q):
                        acc += T[u, 2 + v] * Aj[w, v]
                    P[u, 2 + w] = acc
            for u in range(q):
                for w in range(q):
                    P[2 + u, 2 + w] += Q[j - 1, u, w]
        s = P[0, 0] + 2.0 * ratio * P[0, 2] + ratio * ratio * P[2, 2] + 1.0
        v = y[j] - m[0] - ratio * m[2]
        a = a0 + 0.5 * inliers
        lt = (
            log_inlier
            + tgain[inliers]
            - 0.5 * (log_2pi + np.log(s * b))
            - (a + 0.5) * np.log1p(0.5 * v * v / (s * b))
        )
        if lt >= log_gross:
            lev += lt + np.log1p(np.exp(log_gross - lt))
            b += 0.5 * v * v / s
            inliers += 1
            for u in range(d):
                g[u] = (P[u, 0] + ratio * P[u, 2]) / s
            for u in range(d):
                m[u] += g[u] * v
            for u in range(d):
                for w in range(d):
                    P[u, w] -= s * g[u] * g[w]
        else:
            lev += log_gross + np.log1p(np.exp(lt - log_gross))
            if gated.shape[0] > j:
                gated[j] = 1
        if j - start + 1 >= min_size:
            out[j + 1] = lev


#: Series of at least this many nodes run the filters and the partition recursion on every
#: core. Shorter ones run single-core loops: compiling Numba's parallel loops adds to the
#: first call after installing (the compiled code is then cached on disk), while on a series
#: of a few hundred values the second core saves a fifth of the time (half a second).
PARALLEL_FROM = 500


@numba.njit(cache=True)
def _evidence_row(i, y, dx, A, Q, Pinf, prior, slopes, tgain, min_size, out):  # pragma: no cover
    """Row i of the evidence matrix (the filter started at node i) into ``out``; with several
    rows of ``slopes`` (log weight, slope variance), the weighted sum of the evidences under
    each slope prior."""
    n = y.shape[0]
    row = np.full(n + 1, -np.inf)
    none = np.zeros(0, dtype=np.int8)
    p = prior.copy()
    for c in range(slopes.shape[0]):
        p[2] = slopes[c, 1]
        row[:] = -np.inf
        _filter_from(i, y, dx, A, Q, Pinf, p, tgain, min_size, row, none)
        for j in range(i + min_size, n + 1):
            a = row[j] + slopes[c, 0]
            b = out[j]
            hi = max(a, b)
            if hi > -np.inf:
                out[j] = hi + np.log(np.exp(a - hi) + np.exp(b - hi))


@numba.njit(cache=True)
def _evidence_matrix(y, dx, A, Q, Pinf, prior, slopes, tgain, min_size):  # pragma: no cover
    """Every filter's log evidence, one row after another (:func:`_evidence_row`).

    The matrix is stored by columns (the array returned is the transpose of a C-ordered one):
    the partition recursions read ``P[i, j]`` over i for each end j.
    """
    n = y.shape[0]
    out = np.full((n + 1, n), -np.inf)
    for i in range(n):
        _evidence_row(i, y, dx, A, Q, Pinf, prior, slopes, tgain, min_size, out[:, i])
    return out.T


@numba.njit(cache=True, parallel=True)
def _evidence_matrix_parallel(  # pragma: no cover
    y, dx, A, Q, Pinf, prior, slopes, tgain, min_size
):
    """:func:`_evidence_matrix` with its rows shared among the cores."""
    n = y.shape[0]
    out = np.full((n + 1, n), -np.inf)
    for i in numba.prange(n):  # int64 start, as above (prange counts in uint64): one version
        _evidence_row(np.int64(i), y, dx, A, Q, Pinf, prior, slopes, tgain, min_size, out[:, i])
    return out.T


def segment_evidence(
    x: np.ndarray,
    y: np.ndarray,
    *,
    lengthscale: float,
    ratio: float,
    level_var: float,
    a0: float,
    b0: float,
    min_size: int,
    slope_var: float | Sequence[float] = 0.0,
    slope_weights: Sequence[float] | None = None,
    outlier_prob: float = 0.0,
    outlier_log_density: float = 0.0,
    nu: float = 2.5,
) -> np.ndarray:
    r"""Log evidence of every run of consecutive nodes as one segment.

    ``P[i, j] = log p(y[i:j])`` under ``y = c + d (x - x_i) + σ (r f + ε)`` with
    ``f ~ GP(0, k_ℓ)`` (Matérn 5/2, or 1/2 with ``nu=0.5``), ``c | σ ~ N(0, κ² σ²)``,
    ``d | σ ~ N(0, κ_d² σ²)``, ``σ² ~ InvGamma(a₀, b₀)``: a multivariate t density,
    ``Γ(a₀ + m/2) b₀^{a₀} / (Γ(a₀) (2π)^{m/2} |R|^{1/2} (b₀ + yᵀR⁻¹y/2)^{a₀+m/2})``
    with ``R = κ² 11ᵀ + κ_d² (x - x_i)(x - x_i)ᵀ + r² K_ℓ + I``; ``-inf`` where
    ``j - i < min_size``.

    With ``outlier_prob`` ε > 0, each observation is instead a gross error with probability
    ε, drawn from the density ``exp(outlier_log_density)`` whatever the segment: its
    evidence is ``(1 - ε) t + ε p_out``, with ``t`` its Student t predictive given the
    segment's earlier observations, and one more likely a gross error than not is left out of
    the segment's later predictions (assumed-density filtering with a hard decision). A single
    wild value then costs ``log ε + log p_out`` instead of two jumps around it, while a shift
    that lasts is still cheaper as a new segment after one or two observations. ε = 0 is the
    closed form above exactly.

    With several slope variances, the prior of a segment's slope is their scale mixture,
    ``d | σ ~ Σ_c w_c N(0, κ_{d,c}² σ²)``, and its evidence the weighted sum
    ``log Σ_c w_c p_c(y[i:j])`` of the evidences under each: most segments may have gentle
    trends while a few are steep, each segment choosing its own.

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations (already scaled).
    lengthscale, ratio : float
        ℓ and r = σ_f/σ_n.
    level_var : float
        κ², the prior variance of a segment's level in units of σ².
    a0, b0 : float
        Shape and scale of the inverse-gamma prior of σ².
    min_size : int
        Fewest nodes in a segment.
    slope_var : float or sequence of float, default 0.0
        κ_d², the prior variance of a segment's slope in units of σ² (0: no trend), or the
        variances of a scale mixture.
    slope_weights : sequence of float, optional
        The mixture's weights, one per slope variance (default: equal); they are normalised.
    outlier_prob : float, default 0.0
        ε, the prior probability that an observation is a gross error.
    outlier_log_density : float, default 0.0
        Log density of a gross error, in the units of ``y``.
    nu : {2.5, 0.5}
        Smoothness of the Matérn kernel of ``f`` (:func:`state_space`).

    Returns
    -------
    array, shape (n, n + 1)
    """
    matrix = _evidence_matrix_parallel if len(y) >= PARALLEL_FROM else _evidence_matrix
    return matrix(
        *_filter_arguments(
            x,
            y,
            lengthscale=lengthscale,
            ratio=ratio,
            level_var=level_var,
            a0=a0,
            b0=b0,
            min_size=min_size,
            slope_var=slope_var,
            slope_weights=slope_weights,
            outlier_prob=outlier_prob,
            outlier_log_density=outlier_log_density,
            nu=nu,
        )
    )


def _filter_arguments(
    x: np.ndarray,
    y: np.ndarray,
    *,
    lengthscale: float,
    ratio: float,
    level_var: float,
    a0: float,
    b0: float,
    min_size: int,
    slope_var: float | Sequence[float] = 0.0,
    slope_weights: Sequence[float] | None = None,
    outlier_prob: float = 0.0,
    outlier_log_density: float = 0.0,
    nu: float = 2.5,
) -> tuple:
    """The arguments of :func:`_evidence_matrix`: those of :func:`_filter_from` after ``start``
    and before ``out``."""
    x = np.asarray(x, dtype=float)
    dx = np.diff(x)
    A, Q, Pinf = state_space(dx, lengthscale, nu)
    if not 0.0 <= outlier_prob < 1.0:
        raise ValueError(f"outlier_prob must lie in [0, 1); got {outlier_prob}.")
    log_gross = np.log(outlier_prob) + outlier_log_density if outlier_prob > 0 else -np.inf
    slopes = _slope_mixture(slope_var, slope_weights)
    prior = np.array([ratio, level_var, slopes[0, 1], a0, b0, np.log1p(-outlier_prob), log_gross])
    half = 0.5 * np.arange(len(x) + 1)
    tgain = gammaln(a0 + half + 0.5) - gammaln(a0 + half)
    return (
        np.asarray(y, dtype=float),
        np.ascontiguousarray(dx),
        np.ascontiguousarray(A),
        np.ascontiguousarray(Q),
        Pinf,
        prior,
        slopes,
        tgain,
        int(min_size),
    )


def _slope_mixture(
    slope_var: float | Sequence[float], slope_weights: Sequence[float] | None
) -> np.ndarray:
    """Rows (log weight, variance) of the slope prior's scale mixture, checked."""
    variances = np.atleast_1d(np.asarray(slope_var, dtype=float))
    weights = np.ones(variances.size) if slope_weights is None else np.asarray(slope_weights)
    weights = np.atleast_1d(weights.astype(float))
    if variances.ndim != 1 or variances.size == 0 or weights.shape != variances.shape:
        raise ValueError(
            f"slope_weights needs one weight per slope variance; got {weights.size} weights "
            f"for {variances.size} variances."
        )
    finite = np.all(np.isfinite(variances) & (variances >= 0))
    if not (finite and np.all(np.isfinite(weights) & (weights > 0))):
        raise ValueError(
            "slope_sd must be finite and >= 0 and slope_weights finite and > 0; got "
            f"slope variances {variances.tolist()} and weights {weights.tolist()}."
        )
    return np.column_stack([np.log(weights / weights.sum()), variances])


def gross_errors(x: np.ndarray, y: np.ndarray, edges: list[int], **priors: float) -> np.ndarray:
    """The observations that the filters of :func:`segment_evidence` leave out as gross errors.

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations (already scaled).
    edges : list of int
        The first node of each segment and ``n``: ``[0, c₁, ..., n]``.
    **priors
        The keywords of :func:`segment_evidence` (``lengthscale``, ``ratio``, ``level_var``,
        ``a0``, ``b0``, ``min_size``; ``slope_var``, ``slope_weights``, ``outlier_prob``,
        ``outlier_log_density``, ``nu``).

    Returns
    -------
    array of bool, shape (n,)
        True where an observation is more likely a gross error than not, given the earlier
        observations of its segment (under the slope prior of the mixture that explains
        the segment best).

    Examples
    --------
    >>> x = np.linspace(0.0, 1.0, 30)
    >>> y = 0.1 * np.sin(7 * x)
    >>> y[12] += 5.0
    >>> flags = gross_errors(x, y, [0, 30], lengthscale=0.3, ratio=1.0, level_var=9.0,
    ...                      a0=12.0, b0=0.12, min_size=3, outlier_prob=1e-4,
    ...                      outlier_log_density=-np.log(15.0))
    >>> np.flatnonzero(flags).tolist()
    [12]
    """
    ys, dx, A, Q, Pinf, prior, slopes, tgain, min_size = _filter_arguments(x, y, **priors)
    flags = np.zeros(len(ys), dtype=np.int8)
    for a, b in itertools.pairwise(edges):
        sub = (ys[:b], dx[: b - 1], A[: b - 1], Q[: b - 1])
        best, chosen = -np.inf, np.zeros(b, dtype=np.int8)
        for log_w, slope_var in slopes:  # the slope prior most probable for this segment
            out, mark = np.full(b + 1, -np.inf), np.zeros(b, dtype=np.int8)
            _filter_from(
                a, *sub, Pinf, np.r_[prior[:2], slope_var, prior[3:]], tgain, min_size, out, mark
            )
            if out[b] + log_w > best:
                best, chosen = out[b] + log_w, mark
        flags[a:b] = chosen[a:b]
    return flags.astype(bool)


@numba.njit(cache=True)
def _forward_cell(PT, prev, k, min_size, j):  # pragma: no cover
    """logsumexp_i(prev[i] + P[i, j]) over the cuts i allowed for k jumps; ``PT`` is Pᵀ, so
    that the sum runs along a row in memory."""
    best = -np.inf
    total = 0.0
    column = PT[j]
    for i in range(k * min_size, j - min_size + 1):
        v = prev[i] + column[i]
        if v == -np.inf:
            continue
        if v <= best:
            total += np.exp(v - best)
        else:  # rescale the running sum to the new maximum
            total = total * np.exp(best - v) + 1.0
            best = v
    return best + np.log(total) if best > -np.inf else -np.inf


@numba.njit(cache=True)
def _forward_step(PT, prev, k, min_size, out):  # pragma: no cover
    """out[j] = :func:`_forward_cell` for every end j allowed for k jumps."""
    for j in range((k + 1) * min_size, PT.shape[0]):
        out[j] = _forward_cell(PT, prev, k, min_size, j)


@numba.njit(cache=True, parallel=True)
def _forward_step_parallel(PT, prev, k, min_size, out):  # pragma: no cover
    """:func:`_forward_step` with the ends shared among the cores."""
    for j in numba.prange((k + 1) * min_size, PT.shape[0]):
        out[j] = _forward_cell(PT, prev, k, min_size, np.int64(j))


def partition_evidence(P: np.ndarray, max_jumps: int, min_size: int) -> np.ndarray:
    """``E[k, j]``: log of the sum over partitions of nodes ``0..j-1`` into k + 1 segments.

    Parameters
    ----------
    P : array, shape (n, n + 1)
        Segment log evidence (:func:`segment_evidence`).
    max_jumps : int
        Largest number of jumps.
    min_size : int
        Fewest nodes in a segment.

    Returns
    -------
    array, shape (max_jumps + 1, n + 1)
    """
    PT = np.ascontiguousarray(P.T)  # no copy for the column-ordered P of segment_evidence
    n = P.shape[0]
    E = np.full((max_jumps + 1, n + 1), -np.inf)
    E[0, min_size:] = P[0, min_size:]
    step = _forward_step_parallel if n >= PARALLEL_FROM else _forward_step
    for k in range(1, max_jumps + 1):
        step(PT, E[k - 1], k, int(min_size), E[k])
    return E


def log_configurations(n: int, k: int, min_size: int) -> float:
    """Log of the number of ways to cut ``n`` ordered nodes into ``k + 1`` runs of ≥ ``min_size``.

    Parameters
    ----------
    n, k, min_size : int

    Returns
    -------
    float
        ``log C(n - (k+1)·min_size + k, k)``; ``-inf`` when no such partition exists.

    Examples
    --------
    >>> import math
    >>> round(math.exp(log_configurations(10, 1, 3)))  # cuts after nodes 3, 4, 5, 6, 7
    5
    """
    free = n - (k + 1) * min_size + k
    if free < k:
        return -np.inf
    return float(gammaln(free + 1) - gammaln(k + 1) - gammaln(free - k + 1))


@numba.njit(cache=True)
def _backward(PT, E, counts, min_size, u):  # pragma: no cover
    """The draws of :func:`sample_partitions`, with ``PT`` = Pᵀ."""
    n = PT.shape[1]
    cuts = np.full((counts.shape[0], u.shape[1]), -1, dtype=np.int64)
    w = np.empty(n + 1)
    for d in range(counts.shape[0]):
        j = n
        for kk in range(counts[d], 0, -1):
            lo = kk * min_size
            hi = j - min_size
            best = -np.inf
            for i in range(lo, hi + 1):
                v = E[kk - 1, i] + PT[j, i]
                w[i] = v
                if v > best:
                    best = v
            total = 0.0
            for i in range(lo, hi + 1):
                w[i] = np.exp(w[i] - best)
                total += w[i]
            target = u[d, kk - 1] * total
            acc = 0.0
            pick = hi
            for i in range(lo, hi + 1):
                acc += w[i]
                if acc >= target:
                    pick = i
                    break
            cuts[d, kk - 1] = pick
            j = pick
    return cuts


def sample_partitions(
    P: np.ndarray,
    E: np.ndarray,
    counts: np.ndarray,
    min_size: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw partitions exactly, backwards through :func:`partition_evidence`.

    The last jump is drawn given the count, then each earlier one given the later ones:
    ``P(cut = i | next cut j) ∝ exp(E[k-1, i] + P[i, j])``.

    Parameters
    ----------
    P, E : array
        Segment and partition log evidence.
    counts : array of int
        Number of jumps of each draw.
    min_size : int
        Fewest nodes in a segment.
    rng : numpy.random.Generator

    Returns
    -------
    array of int, shape (len(counts), max(counts))
        Per draw, the first node of each segment after a jump, increasing; -1 pads draws
        with fewer jumps.
    """
    counts = np.asarray(counts, dtype=np.int64)
    width = int(counts.max()) if counts.size else 0
    u = rng.uniform(size=(counts.size, width))
    PT = np.ascontiguousarray(P.T)  # no copy for the column-ordered P of segment_evidence
    return _backward(PT, np.ascontiguousarray(E), counts, int(min_size), u)


def noise_variance(y: np.ndarray) -> float:
    r"""Noise variance of a series from its first differences, robust to jumps and to rounding.

    For independent noise of variance σ², ``(y[i+1] - y[i])² / (2σ²)`` is χ²₁, whose median
    is 0.4549; the median ignores the few large differences at the jumps. Data recorded to a
    resolution h (counts, ratings, rounded values; h the smallest step between distinct
    values) have many differences that are exactly 0, which would make that median 0: each
    difference is therefore spread over the error of rounding its two ends (a triangular
    distribution on (−h, h)), the median is taken over that mixture, and the rounding's own
    variance h²/12 (Sheppard's correction) is removed. For continuous data h is negligible and
    the estimate is the plain median. It is at least a tenth of the mean square difference
    over 2 (a series of a few values repeated many times).

    Parameters
    ----------
    y : array, shape (n,)
        Observations in input order.

    Returns
    -------
    float
        The estimate of σ² (0 for a constant series).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.poisson(0.3, 2000).astype(float)  # variance 0.3: most steps are 0
    >>> float(np.median(np.diff(y) ** 2)), round(noise_variance(y), 2)
    (0.0, 0.26)
    """
    y = np.asarray(y, dtype=float)
    d = np.diff(y)
    h = resolution(y)
    p = (np.arange(16) + 0.5) / 16  # quantiles of the triangular distribution on (-h, h)
    w = h * np.where(p < 0.5, np.sqrt(2 * p) - 1, 1 - np.sqrt(2 * (1 - p)))
    spread = ((d[:, None] + w[None, :]) ** 2).ravel()
    median = float(np.median(spread)) / (2 * 0.4549) - h * h / 12
    return max(median, 0.1 * float(np.mean(d * d)) / 2)


def median_slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The median slope between neighbours and its standard error: the drift of a series,
    unswayed by its jumps.

    The slopes ``(y[i+1] - y[i]) / (x[i+1] - x[i])`` over distinct neighbours are the drift
    plus noise, apart from the few that span a jump; their median ignores those. Its
    standard error is that of the median of normal samples, ``1.2533 s √(c / m)``, with
    ``s`` the slopes' spread from their median absolute deviation (``1.4826 MAD``), ``m``
    their number and ``c = 1 + 2 r₁`` (at least 1/3) for their dependence, ``r₁`` the
    lag-one correlation of their signs about the median: the steps of white noise about a
    trend are differences, whose signs correlate by −1/3 at lag one (c = 1/3), those of a
    random walk are independent (c = 1). A staircase (flat pieces and jumps) has median
    slope 0 whatever its jumps.

    Parameters
    ----------
    x, y : array, shape (n,)
        Increasing inputs (ties allowed) and observations.

    Returns
    -------
    slope, se : float
        ``(0, inf)`` with fewer than three distinct neighbours.

    Examples
    --------
    >>> import numpy as np
    >>> slope, se = median_slope(np.arange(6.0), np.array([0.0, 2, 4, 16, 18, 20]))
    >>> slope, se
    (2.0, 0.0)
    """
    dx, dy = np.diff(x), np.diff(y)
    moving = dx > 0
    if moving.sum() < 3:
        return 0.0, np.inf
    slopes = dy[moving] / dx[moving]
    slope = float(np.median(slopes))
    spread = 1.4826 * float(np.median(np.abs(slopes - slope)))
    signs = np.sign(slopes - slope)
    r1 = float(signs[1:] @ signs[:-1]) / max(float(signs @ signs), 1.0)
    factor = max(1.0 + 2.0 * r1, 1.0 / 3.0)
    return slope, float(1.2533 * spread * np.sqrt(factor / slopes.size))


def pooled_slope(x: np.ndarray, y: np.ndarray, edges: Sequence[int]) -> float:
    """The least-squares slope shared by the segments ``edges`` (``[0, c₁, ..., n]``), each
    with its own intercept: the slope within the segments, unmoved by the steps between
    them (0 when no segment has two distinct inputs)."""
    num = den = 0.0
    for a, b in itertools.pairwise(edges):
        xs, ys = x[a:b] - x[a:b].mean(), y[a:b] - y[a:b].mean()
        num += float(xs @ ys)
        den += float(xs @ xs)
    return num / den if den > 0 else 0.0


def shared_drift(x: np.ndarray, y: np.ndarray, z: float = 3.0, **priors: float) -> float | None:
    r"""The drift shared by the segments of a series, or None when its steps show none.

    A drift is taken to be there when the median slope between neighbours lies more than
    ``z`` standard errors from 0 (:func:`median_slope`: a robust test that the jumps do not
    sway, and that a staircase of flat pieces fails). It is then estimated, starting from
    that median slope, as the slope common to the segments of the most probable partition
    of the series less the drift (lines plus noise, :meth:`SegmentModel.best_partition`),
    each segment with its own level (:func:`pooled_slope`), iterated until the partition
    repeats (at most four times): a least-squares slope over the whole series would instead
    take a shift for part of the trend.

    Parameters
    ----------
    x, y : array, shape (n,)
        Increasing inputs and observations.
    z : float, default 3.0
        Standard errors of the median slope from 0 for a drift to be seen.
    **priors
        :class:`SegmentModel` settings of the partition (``min_size``, ``max_jumps``,
        ``level_sd``, ``slope_sd``, ``slope_weights``, ``a0``, ``count_decay``).

    Returns
    -------
    float or None
        The drift, in units of y per unit of x.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> x = np.arange(40.0)
    >>> y = 3.0 * x - 8.0 * (x >= 20) + rng.normal(size=40)  # a drop in a steady rise
    >>> round(shared_drift(x, y), 1)
    3.0
    >>> print(shared_drift(x, np.where(x < 20, 0.0, 8.0) + rng.normal(size=40)))
    None
    """
    slope, se = median_slope(x, y)
    if not abs(slope) > z * se:
        return None
    drift, seen = slope, []
    for _ in range(4):
        edges = SegmentModel(x, y - drift * x, outlier_prob=0.0, **priors).best_partition()
        if edges in seen:
            break
        seen.append(edges)
        drift += pooled_slope(x, y - drift * x, edges)
    return float(drift)


def count_limit(n: int, min_size: int, max_jumps: int | None = None) -> int:
    """The largest number of jumps a :class:`SegmentModel` of n nodes considers:
    ``max_jumps`` (default ``min(20, max(2, n // 10))``), at most what ``min_size`` allows."""
    if max_jumps is None:
        max_jumps = min(20, max(2, n // 10))
    return int(max(0, min(max_jumps, n // int(min_size) - 1)))


class Shape(NamedTuple):
    """One shape of the smooth part on the grid of :class:`SegmentModel`."""

    #: ℓ, in the scaled x (the x-range is 1).
    lengthscale: float
    #: r = σ_f/σ_n (0: no smooth part).
    ratio: float
    #: Log prior probability of the shape.
    log_weight: float
    #: Smoothness ν of the Matérn kernel: 2.5 (ν = 5/2) or 0.5 (ν = 1/2, Ornstein–Uhlenbeck).
    nu: float = 2.5


def _check_options(
    *,
    n_lengthscales: int,
    ratios: tuple[float, ...],
    level_sd: float,
    a0: float,
    min_lengthscale: float,
    outlier_prob: float,
    count_decay: float,
    smooth_weight: float,
    ou_weight: float,
) -> None:
    """A ValueError naming the option of :class:`SegmentModel` that is out of its range."""
    if isinstance(n_lengthscales, bool) or not isinstance(n_lengthscales, int | np.integer):
        raise ValueError(f"n_lengthscales must be an integer (int); got {n_lengthscales!r}.")
    if n_lengthscales < 1:
        raise ValueError(f"n_lengthscales must be at least 1 (default 8); got {n_lengthscales}.")
    for name, value in (
        ("level_sd", level_sd),
        ("a0", a0),
        ("min_lengthscale", min_lengthscale),
        ("outlier_prob", outlier_prob),
        ("count_decay", count_decay),
        ("smooth_weight", smooth_weight),
        ("ou_weight", ou_weight),
    ):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a number; got {value!r}.")
    grid = np.asarray(ratios, dtype=float)
    if grid.ndim != 1 or not np.all(np.isfinite(grid) & (grid >= 0)):
        raise ValueError(
            f"ratios must be a flat sequence of numbers ≥ 0 (σ_f/σ_n of the smooth part; 0: "
            f"none); got {ratios!r}."
        )
    for name, value in (("level_sd", level_sd), ("a0", a0), ("min_lengthscale", min_lengthscale)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number; got {value!r}.")
    if not 0.0 <= outlier_prob < 1.0:
        raise ValueError(
            f"outlier_prob must lie in [0, 1) (the prior probability of a gross error; 0: "
            f"none); got {outlier_prob!r}."
        )
    if not (np.isfinite(count_decay) and count_decay > 0):
        raise ValueError(
            f"count_decay must be a positive number (1: every number of jumps equally "
            f"likely a priori); got {count_decay}."
        )
    if not 0.0 <= smooth_weight <= 1.0:
        raise ValueError(
            f"smooth_weight must lie in [0, 1] (the prior probability of a smooth part; "
            f"0: each segment a line plus noise); got {smooth_weight}."
        )
    if not 0.0 <= ou_weight < 1.0:
        raise ValueError(
            f"ou_weight must lie in [0, 1) (the prior probability of a rough, "
            f"Ornstein-Uhlenbeck smooth part; 0: Matérn 5/2 alone); got {ou_weight}."
        )


class SegmentModel:
    """Priors of the segment model and its grid of shapes, scaled to the data.

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations, in the user's units.
    min_size : int, default 3
        Fewest nodes in a segment.
    max_jumps : int, optional
        Largest number of jumps considered (default ``min(20, max(2, n // 10))``, at most what
        ``min_size`` allows).
    n_lengthscales : int, default 8
        Grid points of ℓ, geometrically spaced from ``min_lengthscale`` median node spacings
        to twice the x-range.
    ratios : sequence of float, default (0, 0.1, 0.3, 1, 3, 10)
        Grid of r = σ_f/σ_n of the smooth part, each ≥ 0; r = 0 (a line plus noise in each
        segment, no smooth part) is always on the grid, with prior probability
        ``1 - smooth_weight`` (all of it when no ratio is positive).
    level_sd : float, default 3.0
        Prior sd of a segment's level, in units of sd(y) at the typical noise scale: every
        new segment pays about ``log(level_sd)`` in evidence for its level.
    slope_sd : float or tuple of float, default (0.5, 8.0)
        Prior sd of a segment's slope, in sd(y) per x-range at the typical noise scale
        (0: every segment is flat apart from its smooth part), or the sds of a scale mixture
        (:func:`segment_evidence`). A trend within a segment is then a line, not something
        the smooth part must bend to follow or a chain of jumps must imitate. The default
        mixes gentle trends with a few steep ones, so that a break of a steep trend (a kink)
        can be a change point when the data show it clearly, while a gentle segment pays
        only ``log(1/0.9)`` for the steep alternative.
    slope_weights : tuple of float, default (0.9, 0.1)
        Weights of the mixture, one per sd of ``slope_sd`` (equal when None); unused when
        ``slope_sd`` is a single number.
    a0 : float, default 12.0
        Shape of the inverse-gamma prior of σ²; its scale, ``a0`` times the noise variance
        estimated from first differences, puts the prior's mode near that estimate, with
        the weight of ``2 a0`` observations. Each segment's noise scale is thus drawn
        toward the series' own: a change of the noise is still a change point when a
        segment holds enough data to show it, but a short segment is not charged for
        learning its scale afresh, and stretches of larger swings (noise that is not as
        independent as the model's) are not cut off as pieces of their own.
        ``level_sd`` and ``a0`` were chosen together on the jump benchmark of the
        documentation, when it held 19 annotated real series and 60 synthetic ones: 3 and
        12 lie on a plateau (``a0`` from 8 to 24) that scored better on every group of
        series than free noise scales with a vague prior of the levels (``a0=1``,
        ``level_sd=32``).
    min_lengthscale : float, default 1.0
        Shortest ℓ of the grid, in median node spacings. Short length scales let cycles with
        sharp peaks (sunspots, population cycles, seasons) be smooth rather than cut into
        pieces; the evidence still tells a jump from a fast bend when the rest of the
        series is smoother.
    warp : (sign, offset), optional
        Model the log warp of y (:func:`log_warp`) instead of y itself; ``log_jacobian``
        then holds ``log |dz/dy|`` summed over the observations, so that the evidence is that
        of y.
    period : int, optional
        Subtract the seasonal profile of this period, in observations
        (:class:`~pymc_vsk.jumps.seasons.Season`, computed after the warp); its penalty is
        ``log_penalty``, charged to the evidence. x must then be regular.
    outlier_prob : float, default 1e-4
        Prior probability that an observation is a gross error (a wild value, uniform over
        the data's range widened by that range on each side), not a sample of its segment
        (:func:`segment_evidence`). A single wild value, or two in a row, then costs
        ``log ε`` and is left out of its segment, instead of being cut off by two jumps.
        At 1e-4 an observation is left out only when it lies about 5 predictive sds or more
        from what its segment predicts; 0 turns this off.
    count_decay : float, default 1.0
        Prior of the number of jumps: P(K = k) ∝ ``count_decay**k`` on ``0..max_jumps``
        (given K, every placement is equally likely). 1 is uniform; a value below 1 is a
        geometric prior that expects fewer jumps (0.5: each further jump halves the prior
        odds), above 1 more.
    ou_weight : float, default 0.25
        Prior probability, given a smooth part, that it is an Ornstein–Uhlenbeck process
        (Matérn 1/2: continuous but rough, a random walk at long ℓ) rather than a Matérn 5/2
        one, shared out over the same grid of ℓ and r > 0. Real series often wander as a random
        walk or carry errors correlated from one observation to the next (prices, rates,
        levels, measurements of a slow process); a smooth part that cannot follow that
        wandering cuts it into pieces, and a rough one follows it without jumps. 0 keeps
        the Matérn 5/2 smooth part alone.
    smooth_weight : float, default 0.5
        Prior probability that the segments have a smooth part (r > 0), shared out evenly
        over the grid of ℓ and r > 0; the rest goes to r = 0, each segment a line plus
        noise. Whether there is a smooth part is a question for the evidence, as whether
        there is a warp or a season is (each 1/2 a priori), and its prior probability does
        not depend on how finely the grid of r is drawn (an even spread over the default
        six ratios, 0 among them, would give 5/6). A smooth part of short length scale can
        follow a step, so a prior that favours one also favours fewer jumps: at 5/6, short
        series with several clean steps lost more of them.
    shared_trend : bool, default False
        Subtract the series' drift (:func:`shared_drift`, after the warp and the season) and
        draw each segment's slope around it rather than around 0: a new segment of a
        steadily rising or falling series then pays for its level alone, not for a steep
        slope as well. The priors keep the scale of y; the drift, one parameter fitted to
        the data, is charged the Schwarz penalty ``log(n) / 2`` (``log_penalty``). When the
        series shows no drift, the attribute ``drift`` is None and the model is the one
        without.

    Attributes
    ----------
    drift : float or None
        The shared drift in units of the model's y (after the warp, less the season) per
        x-range: 0 without ``shared_trend``, None when one was asked for and the series
        shows none.
    spacing : float
        The median spacing of distinct inputs, in the scaled x: the shortest length scale
        of the grid is ``min_lengthscale`` times it.

    Notes
    -----
    x is scaled to [0, 1] and y (or its warp) to zero mean and unit sd before anything is
    computed, and the noise scale is estimated from the median squared first difference,
    allowing for data recorded to a resolution (:func:`noise_variance`), so the answer is the
    same in any units.
    """

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        *,
        min_size: int = 3,
        max_jumps: int | None = None,
        n_lengthscales: int = 8,
        ratios: tuple[float, ...] = (0.0, 0.1, 0.3, 1.0, 3.0, 10.0),
        level_sd: float = 3.0,
        slope_sd: float | tuple[float, ...] = (0.5, 8.0),
        slope_weights: tuple[float, ...] | None = (0.9, 0.1),
        a0: float = 12.0,
        min_lengthscale: float = 1.0,
        warp: tuple[int, float] | None = None,
        period: int | None = None,
        outlier_prob: float = 1e-4,
        count_decay: float = 1.0,
        ou_weight: float = 0.25,
        smooth_weight: float = 0.5,
        shared_trend: bool = False,
    ) -> None:
        _check_options(
            n_lengthscales=n_lengthscales,
            ratios=ratios,
            level_sd=level_sd,
            a0=a0,
            min_lengthscale=min_lengthscale,
            outlier_prob=outlier_prob,
            count_decay=count_decay,
            smooth_weight=smooth_weight,
            ou_weight=ou_weight,
        )
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        n = len(x)
        self.n = n
        self.min_size = int(min_size)
        self.max_jumps = count_limit(n, self.min_size, max_jumps)
        self.count_decay = float(count_decay)
        span = x[-1] - x[0]
        self.x = (x - x[0]) / span
        self.warp = warp
        # log p(y) = log p(the model's y) + log_jacobian
        self.log_jacobian = 0.0
        if warp is not None:
            y, self.log_jacobian = log_warp(y, *warp)
        self.season = None if period is None else Season(x, y, period)
        self.log_penalty = 0.0 if self.season is None else self.season.penalty
        if self.season is not None:
            y = y - self.season(x)
        sd = y.std()  # the priors' scale: that of y, whatever its drift
        self.drift: float | None = 0.0
        if shared_trend:
            self.drift = shared_drift(
                self.x,
                y,
                min_size=min_size,
                max_jumps=self.max_jumps,
                level_sd=level_sd,
                slope_sd=slope_sd,
                slope_weights=slope_weights,
                a0=a0,
                count_decay=count_decay,
            )
        if self.drift:
            y = y - self.drift * self.x
            self.log_penalty += 0.5 * np.log(n)
        self.y_center, self.y_scale = float(y.mean()), float(sd if sd > 0 else 1.0)
        self.log_jacobian -= n * np.log(self.y_scale)
        self.y = (y - self.y_center) / self.y_scale
        self.noise_var = max(noise_variance(self.y), 1e-6)
        self.a0 = float(a0)
        self.b0 = self.a0 * self.noise_var
        self.level_var = level_sd**2 / self.noise_var
        self.slope_var = np.atleast_1d(np.asarray(slope_sd, dtype=float)) ** 2 / self.noise_var
        self.slope_weights = None if self.slope_var.size == 1 else slope_weights
        self.outlier_prob = float(outlier_prob)
        # a gross error is uniform over the data's range widened by that range on each side
        # (at unit sd the range is at least 2; a constant series gets that much, not 0)
        self.outlier_log_density = -float(np.log(3.0 * max(np.ptp(self.y), 2.0)))
        spacing = np.diff(self.x)
        self.spacing = float(np.median(spacing[spacing > 0])) if np.any(spacing > 0) else 1 / n
        ells = np.geomspace(min_lengthscale * self.spacing, 2.0, n_lengthscales)
        positive = sorted({float(r) for r in ratios if r > 0})
        if not positive:
            smooth_weight = 0.0
        # ℓ and ν are irrelevant when r = 0
        grid = [Shape(1.0, 0.0, np.log(1.0 - smooth_weight))] if smooth_weight < 1 else []
        kernels = [(2.5, 1.0 - ou_weight), (0.5, ou_weight)]
        for nu, weight in kernels:
            if weight > 0 and smooth_weight > 0:
                log_w = np.log(smooth_weight * weight / len(positive) / len(ells))
                grid += [Shape(ell, r, log_w, nu) for r in positive for ell in ells]
        self.grid: list[Shape] = grid

    @property
    def slope_prior(self) -> np.ndarray:
        """Rows (log weight, variance in units of σ²) of the slope prior's scale mixture."""
        return _slope_mixture(self.slope_var, self.slope_weights)

    def _priors(self, lengthscale: float, ratio: float, nu: float) -> dict:
        return {
            "lengthscale": lengthscale,
            "ratio": ratio,
            "nu": nu,
            "level_var": self.level_var,
            "slope_var": self.slope_var,
            "slope_weights": self.slope_weights,
            "a0": self.a0,
            "b0": self.b0,
            "min_size": self.min_size,
            "outlier_prob": self.outlier_prob,
            "outlier_log_density": self.outlier_log_density,
        }

    def evidence(self, lengthscale: float, ratio: float, nu: float = 2.5) -> np.ndarray:
        """Segment log evidence ``P`` at one grid point (:func:`segment_evidence`).

        A segment starts only where x increases: a jump lies between two distinct inputs,
        never between repeated observations at one x.
        """
        P = segment_evidence(self.x, self.y, **self._priors(lengthscale, ratio, nu))
        P[1:][np.diff(self.x) == 0] = -np.inf
        return P

    def gross_errors(
        self, edges: list[int], lengthscale: float, ratio: float, nu: float = 2.5
    ) -> np.ndarray:
        """The observations left out as gross errors by a partition at one grid point.

        Parameters
        ----------
        edges : list of int
            ``[0, c₁, ..., n]``, the first node of each segment and n.
        lengthscale, ratio : float
            A shape of the grid (ℓ in the scaled x).
        nu : {2.5, 0.5}
            Its smoothness.

        Returns
        -------
        array of bool, shape (n,)
            :func:`gross_errors`.
        """
        return gross_errors(self.x, self.y, edges, **self._priors(lengthscale, ratio, nu))

    def best_partition(self, lengthscale: float = 1.0, ratio: float = 0.0) -> list[int]:
        """The most probable partition at one shape, count included: ``[0, c₁, ..., n]``.

        The largest prior (of the count and the placement) times evidence over every
        partition, by the forward recursion of :func:`partition_evidence` with the sum
        replaced by a maximum (Viterbi); by default at r = 0 (lines plus noise).
        """
        P = self.evidence(lengthscale, ratio)
        n, K = self.n, self.max_jumps
        best = np.full((K + 1, n + 1), -np.inf)
        back = np.zeros((K + 1, n + 1), dtype=np.int64)
        best[0] = P[0]
        for k in range(1, K + 1):
            for lo in range(0, n + 1, 512):  # columns in blocks: memory O(512 n)
                cand = best[k - 1][:n, None] + P[:, lo : lo + 512]
                back[k, lo : lo + 512] = np.argmax(cand, axis=0)
                best[k, lo : lo + 512] = np.max(cand, axis=0)
        count = int(np.argmax(best[:, n] + self.log_prior_counts()))
        edges = [n]
        for k in range(count, 0, -1):
            edges.append(int(back[k, edges[-1]]))
        return [0, *edges[::-1]]

    def log_prior_counts(self) -> np.ndarray:
        """log P(K = k) + log P(partition | K = k) for k = 0..max_jumps.

        P(K = k) ∝ ``count_decay**k`` (uniform by default) over the counts that the data
        allow: with ties in x, a count may have no partition (jumps fall between distinct
        inputs), and its prior is then 0 (−inf here).

        The partitions of each K are counted by the same forward recursion as the evidence
        (every allowed segment weighing 1), so ties in x and ``min_size`` are accounted for;
        without ties the count is :func:`log_configurations`.
        """
        n = self.n
        ones = np.full((n, n + 1), -np.inf, order="F")
        sizes = np.arange(n + 1)[None, :] - np.arange(n)[:, None]
        ones[sizes >= self.min_size] = 0.0
        ones[1:][np.diff(self.x) == 0] = -np.inf
        logc = partition_evidence(ones, self.max_jumps, self.min_size)[:, n]
        possible = np.isfinite(logc)
        log_k = np.where(
            possible, np.arange(self.max_jumps + 1) * np.log(self.count_decay), -np.inf
        )
        return np.where(possible, log_k - logsumexp(log_k) - np.where(possible, logc, 0.0), -np.inf)

    def count_evidence(
        self, prior_k: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """log p(y, K = k, grid point g) for every g and k, and E per grid point.

        Reports progress (:mod:`pymc_vsk.progress`) every tenth of the grid.

        Parameters
        ----------
        prior_k : array, optional
            :meth:`log_prior_counts`, when already computed for the same x (it does not
            depend on y or its warp).

        Returns
        -------
        logp : array, shape (n_grid, max_jumps + 1)
        Es : list of array
            :func:`partition_evidence` of each grid point.
        """
        if prior_k is None:
            prior_k = self.log_prior_counts()
        logp = np.empty((len(self.grid), self.max_jumps + 1))
        Es = []
        step = max(1, len(self.grid) // 10)
        for g, shape in enumerate(self.grid):
            if g % step == 0:
                detail(f"smooth-part shape {g + 1} of {len(self.grid)}")
            P = self.evidence(shape.lengthscale, shape.ratio, shape.nu)
            E = partition_evidence(P, self.max_jumps, self.min_size)
            Es.append(E)
            logp[g] = shape.log_weight + prior_k + E[:, self.n]
            logp[g] += self.log_jacobian - self.log_penalty
        return logp, Es
