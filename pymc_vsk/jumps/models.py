r"""Bayesian jump detection: random jump locations and amplitudes in ψ.

The paper fixes ψ. Here ψ's jump location t and amplitude a get priors and NUTS samples them,
which turns a VSK GP into a Bayesian jump detector. A hard step ψ(x) = a·1[x ≥ t] has zero
derivative in t, so two routes are offered:

**Exact marginalisation** (:class:`MarginalJumpGP`, ``method="marginal"``). With a hard step
the likelihood depends on t only through which nodes lie on either side of it, i.e. through
the gap (x_k, x_{k+1}] between consecutive nodes that contains t. Summing over the gaps,

.. math::

    p(y \mid \theta) = \sum_{g} P(t \in G_g)\; \mathcal{N}\big(y \mid m, K^{\Psi_g}_\theta
        + \sigma_n^2 I\big),

is the *exact* marginal of a continuous location prior (a log-sum-exp over the gaps), and
NUTS samples only the continuous θ = (ℓ, σ_f, σ_n, a, m). The gap probabilities
p(G_g | y, θ) are recorded per draw, so the location posterior is Rao–Blackwellised. Cost:
one Cholesky factorisation per gap, O(M n³) per log density — use it for one jump and up to a
few dozen gaps (n ≲ 60 nodes inside the prior range, or a coarse candidate grid).

**Differentiable relaxation** (``method="smooth"``): ψ(x) = Σ_k a_k σ((x − t_k)/w) with a
logistic step of width ``w`` (fixed or with its own prior). One Cholesky per log density, so
it scales to many nodes and several jumps (ordered locations). The same relaxation draws 2-D
discontinuity curves: :func:`pymc_vsk.build_model` with a :class:`pymc_vsk.scaling.Disk` or
:class:`pymc_vsk.scaling.HalfPlane` ψ whose parameters are random and which has a ``width``.

Either way the data identify a jump only up to the gap between the two nodes around it: inside
that gap every location explains the data equally well and the posterior there is the prior.
:class:`LocationPosterior` therefore reports, besides quantiles, the **credible set of gaps**
— the fewest gaps holding the requested mass — whose hull is the location interval that
answers "between which nodes is the jump?".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import pytensor.tensor as pt
import scipy.special
import xarray as xr
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.arrays import as_float_array, as_probabilities, check_count, check_finite, check_flag
from pymc_vsk.caching import cached
from pymc_vsk.draws import draw_points, posterior
from pymc_vsk.fitting import record_units
from pymc_vsk.jumps.formatting import digits_for
from pymc_vsk.lifting import kernel_from_sq_dist, scaled_sq_dist
from pymc_vsk.likelihood import gaussian_logp, gaussian_logp_from_cholesky
from pymc_vsk.memory import check_dense
from pymc_vsk.models import build_model, check_data, require_float64
from pymc_vsk.prediction import Prediction
from pymc_vsk.priors import (
    PriorSpec,
    base_kernel,
    is_dist,
    mean_function,
    node_scales,
    parameter,
    resolve_priors,
    signal_and_noise,
    x_scale,
    y_scale,
)
from pymc_vsk.scaling import SmoothJump, Stack

__all__ = [
    "Gaps",
    "LocationPosterior",
    "MarginalJumpGP",
    "build_jump_model",
    "check_location_range",
    "location_posterior",
]


def _mass(prob: float) -> float:
    """``prob`` as a posterior mass, refused unless one number in (0, 1]."""
    values = as_probabilities(prob, "prob", closed=True)
    if values.ndim != 0 or not values > 0:
        raise ValueError(
            f"prob must be one posterior mass in (0, 1], e.g. 0.94; got {values.tolist()}."
        )
    return float(values)


def _bound(value: object, name: str) -> float:
    """A bound of the location prior as a float, refused unless one finite number."""
    if value is None or np.asarray(value).dtype == bool:
        raise TypeError(f"{name} must be a number (in the units of x); got {value!r}.")
    array = as_float_array(value, name)
    if array.ndim != 0 and array.size != 1:
        raise ValueError(f"{name} must be one number (in the units of x); got shape {array.shape}.")
    number = float(array.reshape(()))
    check_finite(np.array([number]), name, "give a finite bound in the units of x.")
    return number


@dataclass(frozen=True)
class Gaps:
    """The partition of a location prior's range [lower, upper] by the nodes.

    A jump at t ∈ (left[g], right[g]] puts node x_i on the right branch iff
    ``x_i >= right[g]`` (the convention of :class:`pymc_vsk.scaling.Jump`).

    Attributes
    ----------
    left, right : array, shape (M,)
        Open left and closed right ends of each gap.
    side : array, shape (M, n)
        1.0 where node i is on the right of a jump in gap g.
    log_weights : array, shape (M,)
        Log prior probability of each gap.
    """

    left: np.ndarray
    right: np.ndarray
    side: np.ndarray
    log_weights: np.ndarray

    @classmethod
    def from_nodes(
        cls,
        x: np.ndarray,
        lower: float,
        upper: float,
        cdf: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> Gaps:
        """Gaps of [lower, upper] cut by the nodes ``x`` (1-D), weighted by a prior ``cdf``.

        Parameters
        ----------
        x : array, shape (n,)
        lower, upper : float
            Range of the location prior.
        cdf : callable, optional
            CDF of the location prior (default: uniform on [lower, upper]).
        """
        x = np.asarray(x, dtype=float).ravel()
        if not lower < upper:
            raise ValueError(f"Need lower < upper for the location prior; got {lower}, {upper}.")
        inner = np.unique(x[(x > lower) & (x < upper)])
        edges = np.concatenate([[lower], inner, [upper]])
        left, right = edges[:-1], edges[1:]
        if cdf is None:

            def cdf(t):
                return (np.clip(t, lower, upper) - lower) / (upper - lower)

        weights = np.asarray(cdf(right), dtype=float) - np.asarray(cdf(left), dtype=float)
        keep = weights > 0
        left, right, weights = left[keep], right[keep], weights[keep]
        side = (x[None, :] >= right[:, None]).astype(float)
        with np.errstate(divide="ignore"):
            return cls(left, right, side, np.log(weights / weights.sum()))

    def __len__(self) -> int:
        return len(self.left)

    def index(self, t: np.ndarray) -> np.ndarray:
        """The gap holding each location ``t`` (−1 outside [lower, upper]).

        Parameters
        ----------
        t : array-like
            Locations.

        Returns
        -------
        ndarray of int
        """
        t = np.asarray(t, dtype=float)
        g = np.searchsorted(self.right, t, side="left")
        inside = (t > self.left[0]) & (t <= self.right[-1])
        return np.where(inside, np.minimum(g, len(self) - 1), -1)


@dataclass
class LocationPosterior:
    """Posterior of one jump location, over the gaps between nodes.

    Attributes
    ----------
    gaps : Gaps
    probs : array, shape (M,)
        Posterior probability of each gap.
    draws : array, optional
        Posterior draws of t (relaxation), used for quantiles; without draws the location is
        uniform inside each gap (the exact posterior under a uniform prior).
    """

    gaps: Gaps
    probs: np.ndarray
    draws: np.ndarray | None = None

    def quantile(self, q: float | np.ndarray) -> np.ndarray:
        """Posterior quantiles of t.

        Parameters
        ----------
        q : float or array
            Probabilities.

        Returns
        -------
        ndarray

        Raises
        ------
        ValueError
            Probabilities outside [0, 1] (NaN included).
        """
        q = as_probabilities(q, "q", closed=True)
        if self.draws is not None:
            return np.quantile(self.draws, q)
        # only gaps with posterior mass hold quantiles: the 0 and 1 quantiles are the ends of
        # the posterior's support, not those of the prior range
        held = self.probs > 0
        left, right, probs = self.gaps.left[held], self.gaps.right[held], self.probs[held]
        cum = np.concatenate([[0.0], np.cumsum(probs)])
        shape = np.shape(q)  # a number gives a 0-d array, as np.quantile does
        q = np.atleast_1d(q)
        g = np.clip(np.searchsorted(cum, q, side="right") - 1, 0, len(probs) - 1)
        frac = np.clip((q - cum[g]) / probs[g], 0, 1)
        return (left[g] + frac * (right[g] - left[g])).reshape(shape)

    @property
    def mean(self) -> float:
        """Posterior mean of the location."""
        if self.draws is not None:
            return float(np.mean(self.draws))
        return float(np.sum(self.probs * 0.5 * (self.gaps.left + self.gaps.right)))

    def eti(self, prob: float = 0.94) -> tuple[float, float]:
        """Equal-tailed interval of t.

        Parameters
        ----------
        prob : float, default 0.94
            Posterior mass.
        """
        prob = _mass(prob)
        lo, hi = self.quantile([(1 - prob) / 2, (1 + prob) / 2])
        return float(lo), float(hi)

    def credible_gaps(self, prob: float = 0.94) -> np.ndarray:
        """Indices of the fewest gaps holding posterior mass ``prob``, most probable first.

        Parameters
        ----------
        prob : float, default 0.94
            Posterior mass.
        """
        prob = _mass(prob)
        order = np.argsort(-self.probs, kind="stable")
        n = int(np.searchsorted(np.cumsum(self.probs[order]), prob - 1e-12) + 1)
        return order[: min(n, len(order))]

    def interval(self, prob: float = 0.94) -> tuple[float, float]:
        """Hull of the credible set of gaps: the jump lies between these nodes with ``prob``.

        Parameters
        ----------
        prob : float, default 0.94
            Posterior mass.
        """
        g = self.credible_gaps(prob)
        return float(self.gaps.left[g].min()), float(self.gaps.right[g].max())

    def covers(self, t: float, prob: float = 0.94) -> bool:
        """Whether ``t`` lies in one of the credible gaps (left end open, right end closed).

        Parameters
        ----------
        t : float
            A location.
        prob : float, default 0.94
            Posterior mass of the credible gaps.

        Returns
        -------
        bool
        """
        g = self.credible_gaps(prob)
        return bool(np.any((t > self.gaps.left[g]) & (t <= self.gaps.right[g])))

    def summary(self, prob: float = 0.94) -> str:
        """One line: mean, equal-tailed interval, credible gaps and the most probable gap.

        Parameters
        ----------
        prob : float, default 0.94
            Posterior mass of the interval and the credible gaps.

        Returns
        -------
        str
        """
        prob = _mass(prob)
        lo, hi = self.interval(prob)
        elo, ehi = self.eti(prob)
        best = int(np.argmax(self.probs))
        d = digits_for(np.r_[self.gaps.left, self.gaps.right], least=4)
        return (
            f"location: mean {self.mean:.{d}g}; {prob:.0%} ETI [{elo:.{d}g}, {ehi:.{d}g}]; "
            f"{prob:.0%} credible gaps span [{lo:.{d}g}, {hi:.{d}g}] "
            f"(most probable gap ({self.gaps.left[best]:.{d}g}, {self.gaps.right[best]:.{d}g}] "
            f"with p = {self.probs[best]:.3f})"
        )


class MarginalJumpGP:
    r"""GP regression with a VSK whose hard jump location is marginalised exactly.

    ψ(x) = a · 1[x ≥ t] in the one input column; t has a prior on [lower, upper] and is summed
    out over the gaps between nodes (see the module docstring). Parameters may be random.

    Parameters
    ----------
    cov_func : pm.gp.cov.Stationary
        Base kernel on the lifted inputs [x, ψ(x)] (``input_dim=2``; ``ls`` a scalar or
        [ℓ_x, ℓ_ψ]).
    sigma_f : float or random variable
        Signal standard deviation.
    amplitude : float or random variable, default 1.0
        Jump size a of ψ (the decorrelation across the jump grows with s·a / ℓ).
    mean_func : pm.gp.mean.Mean, default Zero
    psi_scale : float, default 1.0
        The factor s of the lifted coordinate [x, s·a·1[x ≥ t]], as in :class:`pymc_vsk.VSK`;
        :func:`build_jump_model` sets it to the x-range, so ``amplitude`` is relative to it.
    """

    def __init__(
        self,
        cov_func: pm.gp.cov.Stationary,
        *,
        sigma_f: pt.TensorLike = 1.0,
        amplitude: pt.TensorLike = 1.0,
        mean_func: pm.gp.mean.Mean | None = None,
        psi_scale: float = 1.0,
    ) -> None:
        if not isinstance(cov_func, pm.gp.cov.Stationary) or cov_func.input_dim != 2:
            raise TypeError(
                "MarginalJumpGP needs a stationary base kernel on [x, ψ(x)] (input_dim=2), e.g. "
                f"pm.gp.cov.Matern52(2, ls=ls); got {cov_func!r}."
            )
        self.cov_func = cov_func
        self.sigma_f = sigma_f
        self.amplitude = amplitude
        self.psi_scale = float(psi_scale)
        self.mean_func = mean_func if mean_func is not None else pm.gp.mean.Zero()

    def _gap_moments(
        self, X: pt.TensorLike, Xnew: pt.TensorLike | None = None
    ) -> TensorVariable | tuple[TensorVariable, TensorVariable]:
        """Per-gap covariance (M, n, n) of the data and, with ``Xnew``, the cross-covariance.

        In gap g the lifted inputs are [x, a·1[x ≥ right_g]]: the lifting of
        :mod:`pymc_vsk.lifting` with one ψ column per gap.
        """
        amplitude = self.psi_scale * pt.as_tensor_variable(self.amplitude)
        x = pt.as_tensor_variable(X)[:, 0]
        columns = [x, amplitude * pt.as_tensor_variable(self.gaps.side)]
        scale = pt.square(self.sigma_f)
        K = scale * kernel_from_sq_dist(self.cov_func, scaled_sq_dist(self.cov_func, columns))
        if Xnew is None:
            return K
        xs = pt.as_tensor_variable(Xnew)[:, 0]
        right = pt.as_tensor_variable(self.gaps.right)
        side_new = pt.cast(pt.ge(xs[None, :], right[:, None]), "float64")
        columns_s = [xs, amplitude * side_new]
        r2 = scaled_sq_dist(self.cov_func, columns, columns_s)
        return K, scale * kernel_from_sq_dist(self.cov_func, r2)

    def marginal_likelihood(
        self,
        name: str,
        X: npt.ArrayLike | pt.TensorLike,
        y: pt.TensorLike,
        sigma: pt.TensorLike,
        *,
        lower: float,
        upper: float,
        cdf: Callable[[np.ndarray], np.ndarray] | None = None,
        jitter: float = 1e-6,
    ) -> pt.TensorVariable:
        """Add the location-marginalised likelihood of ``y`` to the model.

        Creates a potential ``name`` (the log marginal likelihood) and a deterministic
        ``{name}_gap_probs`` (posterior gap probabilities given θ, for the location posterior).
        ``X`` must have one column and numeric values (the gaps are built from them).

        Parameters
        ----------
        name : str
            Name of the potential.
        X : array or data container, shape (n, 1)
            Inputs.
        y : tensor-like, shape (n,)
            Observations.
        sigma : tensor-like
            Noise standard deviation σ_n.
        lower, upper : float
            Range of the location prior.
        cdf : callable, optional
            CDF of the location prior (default: uniform on [lower, upper]).
        jitter : float, default 1e-6
            Added to the diagonal of each covariance.

        Returns
        -------
        TensorVariable
            The potential.
        """
        X_np = np.asarray(X.get_value() if hasattr(X, "get_value") else X, dtype=float)
        if X_np.ndim != 2 or X_np.shape[1] != 1:
            raise ValueError(
                f"MarginalJumpGP needs 1-D inputs as a column (n, 1); got shape {X_np.shape}. "
                "For a discontinuity curve in d >= 2, give pymc_vsk.build_model a "
                "scaling.Disk or scaling.HalfPlane ψ with random parameters and a width."
            )
        self.gaps = Gaps.from_nodes(X_np[:, 0], lower, upper, cdf)
        check_dense(
            len(self.gaps) * len(X_np), len(X_np), f"MarginalJumpGP ({len(self.gaps)} gaps)"
        )
        self.X, self.y, self.sigma, self.jitter, self.name = X, y, sigma, jitter, name
        self.model = pm.modelcontext(None)  # so that predictions need no model context
        logp_g = self._gap_logps()
        log_post = pt.as_tensor_variable(self.gaps.log_weights) + logp_g
        pm.Deterministic(f"{name}_gap_probs", pt.special.softmax(log_post))
        return pm.Potential(name, pt.logsumexp(log_post))

    def _noise(self, n: pt.TensorLike) -> TensorVariable:
        return (pt.square(pt.as_tensor_variable(self.sigma)) + self.jitter) * pt.eye(n)

    def _gap_logps(self) -> TensorVariable:
        X = pt.as_tensor_variable(self.X)
        K = self._gap_moments(X) + self._noise(X.shape[0])[None]
        return gaussian_logp(self.y, self.mean_func(X), K)

    # -- summaries --------------------------------------------------------------------------
    def location_posterior(self, idata: xr.DataTree) -> LocationPosterior:
        """Rao–Blackwellised location posterior: the gap probabilities averaged over draws.

        Parameters
        ----------
        idata : DataTree
            Posterior draws of the model (with ``{name}_gap_probs``).

        Returns
        -------
        LocationPosterior
        """
        post = posterior(idata)
        probs = np.asarray(post[f"{self.name}_gap_probs"].values)
        probs = probs.reshape(-1, probs.shape[-1]).mean(axis=0)
        return LocationPosterior(self.gaps, probs / probs.sum())

    def predict(
        self,
        Xnew: npt.ArrayLike,
        point: Mapping[str, npt.ArrayLike] | None = None,
        idata: xr.DataTree | None = None,
        *,
        model: pm.Model | None = None,
        max_draws: int | None = 200,
        seed: int = 0,
    ) -> Prediction:
        """Predictive mean and std of f and y, mixed over gaps (and over draws with ``idata``).

        Parameters
        ----------
        Xnew : array-like, shape (m, 1)
            Where to predict.
        point : dict, optional
            One parameter point, by variable name (a MAP fit's ``point``).
        idata : DataTree, optional
            A posterior; the prediction mixes over its draws.
        model : pm.Model, optional
            The model holding the GP's parameters (default: the one in context); the predictor
            is compiled once per model.
        max_draws : int or None, default 200
            Cap on the number of draws mixed (``None``: no cap).
        seed : int, default 0
            Seed choosing the draws when capped.

        Returns
        -------
        Prediction
        """
        if (point is None) == (idata is None):
            raise ValueError("Pass exactly one of point= or idata=.")
        Xnew = as_float_array(Xnew, "Xnew")
        if Xnew.ndim != 2 or Xnew.shape[1] != 1:
            raise ValueError(
                f"Xnew must be a column of inputs, shape (m, 1), as X; got shape {Xnew.shape}. "
                "For a 1-D array pass Xnew[:, None]."
            )
        check_finite(Xnew, "Xnew", "predict at finite inputs only.")
        fn, names = self._predictor(pm.modelcontext(model))
        points = [point] if point is not None else draw_points(idata, names, max_draws, seed)
        moments = []
        for p in points:
            missing = [n for n in names if n not in p]
            if missing:
                raise ValueError(f"The point has no value for {missing}.")
            mu_g, varf_g, noise, logw = fn(Xnew, *(p[n] for n in names))
            w = scipy.special.softmax(logw)[:, None]
            mu = np.sum(w * mu_g, axis=0)
            spread = np.sum(w * (mu_g - mu) ** 2, axis=0)
            var_f = np.sum(w * np.clip(varf_g, 0, None), axis=0) + spread
            moments.append((mu, var_f, var_f + noise))
        return Prediction.mixture(moments)

    def _predictor(self, model: pm.Model) -> tuple[Callable, list[str]]:
        """The compiled per-gap predictive moments for ``model``, built once per model."""
        return cached(self, "predictor", model, lambda: self._compile_predictor(model))

    def _compile_predictor(self, model: pm.Model) -> tuple[Callable, list[str]]:
        Xnew = pt.matrix("Xnew", dtype="float64")
        X = pt.as_tensor_variable(self.X)
        r = pt.as_tensor_variable(self.y) - self.mean_func(X)
        K, Ks = self._gap_moments(X, Xnew)
        L = pt.linalg.cholesky(K + self._noise(X.shape[0])[None])
        A = pt.linalg.solve_triangular(L, Ks, lower=True)
        v = pt.linalg.solve_triangular(
            L, pt.broadcast_to(r[None, :, None], (L.shape[0], r.shape[0], 1)), lower=True
        )
        mu = self.mean_func(Xnew)[None, :] + pt.sum(A * v, axis=1)
        var_f = pt.square(self.sigma_f) - pt.sum(pt.square(A), axis=1)
        logw = pt.as_tensor_variable(self.gaps.log_weights) + gaussian_logp_from_cholesky(r, L)
        noise = pt.square(pt.as_tensor_variable(self.sigma))
        outputs = [mu, var_f, noise, logw]
        ancestors = set(pytensor.graph.ancestors(outputs))
        inputs = [v for v in model.free_RVs + model.deterministics if v in ancestors]
        fn = pytensor.function([Xnew, *inputs], outputs, on_unused_input="ignore")
        return fn, [v.name for v in inputs]


def location_posterior(
    idata: xr.DataTree, X: npt.ArrayLike, lower: float, upper: float, name: str = "location"
) -> list[LocationPosterior]:
    """Location posteriors of the relaxation (``method="smooth"``), one per jump, from draws.

    Each draw of t_k is assigned to its gap between nodes, which gives the gap probabilities
    and the credible set of gaps; quantiles come from the draws themselves.

    Parameters
    ----------
    idata : DataTree
        Posterior draws.
    X : array-like, shape (n, 1) or (n,)
        Nodes.
    lower, upper : float
        Range of the location prior.
    name : str, default "location"
        Name of the location variable.

    Returns
    -------
    list of LocationPosterior

    Raises
    ------
    KeyError
        The posterior has no variable ``name``.
    ValueError
        Draws outside [lower, upper] (a range other than the model's), nodes that are not
        finite, or bounds that are not one finite number each.
    """
    x = as_float_array(X, "X")
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"X must hold one input per node, shape (n, 1) or (n,); got {x.shape}.")
    check_finite(x, "X", "pass the nodes the model was built on.")
    lower, upper = _bound(lower, "lower"), _bound(upper, "upper")
    gaps = Gaps.from_nodes(x, lower, upper)
    post = posterior(idata)
    if name not in post:
        marginal = (
            " A model of method='marginal' has no location draws: its gaps' probabilities"
            " are gp.location_posterior(idata)."
            if any(str(v).endswith("_gap_probs") for v in post)
            else ""
        )
        raise KeyError(
            f"The posterior has no variable {name!r}; it has {sorted(map(str, post))}.{marginal}"
        )
    draws = np.asarray(post[name].values, dtype=float)
    draws = draws.reshape(-1, *draws.shape[2:])
    if draws.ndim == 1:
        draws = draws[:, None]
    outside = ~((draws >= lower) & (draws <= upper))  # NaN draws too
    if outside.any():
        raise ValueError(
            f"{int(outside.sum())} draw(s) of {name!r} lie outside [lower, upper] = "
            f"[{lower:g}, {upper:g}] (the draws span [{np.nanmin(draws):g}, "
            f"{np.nanmax(draws):g}]): pass the lower and upper the model was built with."
        )
    draws = np.maximum(draws, np.nextafter(lower, np.inf))  # t = lower is the first gap's
    out = []
    for k in range(draws.shape[1]):
        g = gaps.index(draws[:, k])
        probs = np.bincount(g[g >= 0], minlength=len(gaps)).astype(float)
        out.append(LocationPosterior(gaps, probs / probs.sum(), draws[:, k]))
    return out


def check_location_range(
    x: np.ndarray,
    lower: float,
    upper: float,
    n_jumps: int,
    names: tuple[str, str] = ("lower", "upper"),
) -> None:
    """Raise ``ValueError`` unless the prior range (lower, upper) of the jump locations is an
    interval holding at least ``n_jumps`` distinct inputs (the data tell jumps apart only
    between inputs).

    Parameters
    ----------
    x : array, shape (n,)
        The inputs.
    lower, upper : float
        The range.
    n_jumps : int
        The number of jumps.
    names : tuple of str, default ("lower", "upper")
        How the message names the two bounds (the command's options, say).
    """
    low, high = names
    n_jumps = check_count(n_jumps, "n_jumps", 1)
    if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
        raise ValueError(f"{low} must be below {high}; got {lower:g} and {upper:g}.")
    inside = np.unique(x[(x > lower) & (x < upper)])
    if len(inside) < n_jumps:
        raise ValueError(
            f"{len(inside)} distinct x value(s) lie inside the location range "
            f"({lower:g}, {upper:g}) while x spans [{x.min():g}, {x.max():g}]; {n_jumps} "
            f"jump(s) need at least {n_jumps} to be told apart: widen {low}/{high}."
        )


def build_jump_model(
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    n_jumps: int = 1,
    method: str = "smooth",
    lower: float | None = None,
    upper: float | None = None,
    width: PriorSpec | None = None,
    amplitude: PriorSpec | None = None,
    kernel: str = "matern52",
    priors: str | Mapping[str, PriorSpec] = "default",
    mean: str | PriorSpec = "constant",
    standardize: bool = True,
    **overrides: PriorSpec,
) -> tuple[pm.Model, pm.gp.Marginal | MarginalJumpGP]:
    """A VSK GP with ``n_jumps`` jumps of unknown location and amplitude in 1-D.

    Parameters
    ----------
    X : array, shape (n, 1)
    y : array, shape (n,)
    n_jumps : int, default 1
        Known number of jumps K (ordered locations ``location`` of shape (K,) for K > 1).
    method : {"smooth", "marginal"}, default "smooth"
        Logistic relaxation sampled by NUTS, or exact marginalisation of one hard jump over
        the gaps between nodes (see the module docstring for when to use which).
    lower, upper : float, optional
        Uniform prior range of the locations (default: the inner 80 % of the x range).
    width : float or ``.dist()``, optional
        Logistic width of the relaxation (default: a quarter of the smallest node spacing).
    amplitude : float or ``.dist()``, optional
        ψ's jump size(s), one per jump. With ``standardize=True`` relative to the x-range s
        (the lifted coordinate is s·ψ; default prior HalfNormal(1)); with
        ``standardize=False`` in the units of x (default HalfNormal(s)). Both defaults are
        the same prior on the jump in the lifted space.
    kernel, priors, mean, **overrides
        As in :func:`pymc_vsk.build_model`.
    standardize : bool, default True
        Free of units, as in :func:`pymc_vsk.build_model`: under x → a·x + b and
        y → c·y + d the location maps as t → a·t + b, the amplitude is unchanged, the other
        hyper-parameters scale as in :func:`pymc_vsk.build_model`, and the jitter is
        relative to sd(y)².

    Returns
    -------
    model : pm.Model
    gp : pm.gp.Marginal (``"smooth"``) or MarginalJumpGP (``"marginal"``)
    """
    require_float64("build_jump_model")
    X_np, y_np = check_data(X, y, sigma_n=overrides.get("sigma_n"))
    if X_np.shape[1] != 1:
        raise ValueError(
            f"build_jump_model takes 1-D inputs (n, 1); got {X_np.shape[1]} columns. For a "
            "discontinuity curve in 2-D, give pymc_vsk.build_model a scaling.Disk or "
            "scaling.HalfPlane ψ with random parameters and a width, inside a pm.Model that "
            "holds their priors."
        )
    if isinstance(n_jumps, bool) or not isinstance(n_jumps, int | np.integer) or n_jumps < 1:
        raise ValueError(f"n_jumps must be an integer (int) of at least 1; got {n_jumps!r}.")
    n_jumps = int(n_jumps)  # a numpy integer is no shape for PyMC
    standardize = check_flag(standardize, "standardize")
    spacing, span = node_scales(X_np)
    x0 = float(X_np.min())
    lower = x0 + 0.1 * span if lower is None else _bound(lower, "lower")
    upper = x0 + 0.9 * span if upper is None else _bound(upper, "upper")
    check_location_range(X_np[:, 0], lower, upper, n_jumps)
    context = pm.Model.get_context(error_if_none=False)
    with context if context is not None else pm.Model() as model:
        amp_scale = 1.0 if standardize else span
        amp_spec = pm.HalfNormal.dist(sigma=amp_scale) if amplitude is None else amplitude
        amp_spec = _amplitudes(amp_spec, n_jumps)
        if method == "smooth":
            return _smooth(
                X_np,
                y_np,
                n_jumps,
                lower,
                upper,
                width,
                spacing,
                amp_spec,
                kernel,
                priors,
                mean,
                standardize,
                overrides,
            )
        if method == "marginal":
            if n_jumps != 1:
                raise NotImplementedError(
                    "Exact marginalisation is implemented for one jump (its cost grows as "
                    f"M^K Cholesky factorisations); for n_jumps={n_jumps} use method='smooth'."
                )
            return model, _marginal(
                X_np, y_np, lower, upper, amp_spec, kernel, priors, mean, standardize, overrides
            )
    raise ValueError(f"method must be 'smooth' or 'marginal'; got {method!r}.")


def _amplitudes(spec: PriorSpec, n_jumps: int) -> PriorSpec:
    """A fixed amplitude as one value per jump (one number is every jump's); a prior as it
    is.

    Raises
    ------
    ValueError
        Fixed values that are neither one number nor one per jump.
    """
    if is_dist(spec) or isinstance(spec, pt.Variable) or spec is None:
        return spec
    if np.asarray(spec).dtype == bool:
        return spec  # refused by parameter, with its message
    value = as_float_array(spec, "amplitude")
    if value.size == 1:
        return np.full(n_jumps, float(value.reshape(()))) if n_jumps > 1 else value.reshape(())
    if value.ndim != 1 or value.size != n_jumps:
        raise ValueError(
            f"amplitude must be one number or one per jump ({n_jumps}); got shape {value.shape}."
        )
    return value


def _smooth(
    X, y, K, lower, upper, width, spacing, amp_spec, kernel, priors, mean, standardize, overrides
):
    initval = lower + (upper - lower) * (np.arange(K) + 1) / (K + 1)
    if K == 1:
        location = pm.Uniform("location", lower, upper, initval=float(initval[0]))
        locations = [location]
    else:
        location = pm.Uniform(
            "location",
            lower,
            upper,
            shape=K,
            initval=initval,
            transform=pm.distributions.transforms.ordered,
        )
        locations = [location[k] for k in range(K)]
    amps = parameter("amplitude", amp_spec, (K,) if K > 1 else None, nonnegative=False)
    amps = [amps[k] for k in range(K)] if K > 1 else [amps]
    w = parameter("width", 0.25 * spacing if width is None else width)
    psi = Stack([SmoothJump(t, a, width=w) for t, a in zip(locations, amps, strict=True)])
    return build_model(
        X,
        y,
        psi=psi,
        kernel=kernel,
        priors=priors,
        mean=mean,
        standardize=standardize,
        **overrides,
    )


def _marginal(X, y, lower, upper, amp_spec, kernel, priors, mean, standardize, overrides):
    specs = resolve_priors(priors, X, y, overrides)
    pm.Data("X", X)
    y_data = pm.Data("y_data", y)
    base = base_kernel(kernel, 2, specs)
    sigma_f, sigma_n = signal_and_noise(specs)
    amplitude = parameter("amplitude", amp_spec, nonnegative=False)
    mean_func = mean_function(mean, specs, y if standardize else None)
    psi_scale = x_scale(X) if standardize else 1.0
    gp = MarginalJumpGP(
        base, sigma_f=sigma_f, amplitude=amplitude, mean_func=mean_func, psi_scale=psi_scale
    )
    gp.jitter_unit = y_scale(y) ** 2 if standardize else 1.0  # as build_model's
    gp.marginal_likelihood(
        "y", X, y_data, sigma_n, lower=lower, upper=upper, jitter=1e-6 * gp.jitter_unit
    )
    if standardize:
        record_units(pm.modelcontext(None), {"mean": y_scale(y)})
    return gp
