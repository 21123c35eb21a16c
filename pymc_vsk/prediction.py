r"""Prediction at new points from a MAP point or the whole posterior, and the power function.

For a ``pm.gp.Marginal`` GP, the predictive mean and variance of the latent f at new points
(eq. 5 of the paper, with the noise term of eq. 3) are

.. math::

    \mu(x) = m + k(x)^\top (K + \sigma_n^2 I)^{-1} (y - m), \qquad
    s_f^2(x) = k(x, x) - k(x)^\top (K + \sigma_n^2 I)^{-1} k(x),

and s_y² = s_f² + σ_n² for a new noisy observation. The other GPs have their own Gaussian
conditionals: ``pm.gp.MarginalApprox`` its sparse one (VFE, FITC, DTC), ``pm.gp.Latent`` the
conditional f* | f of each draw of f, the lifted HSGPs theirs in the basis weights, and the
jump model with its location summed out one per gap between nodes.

Over posterior draws θ_s the prediction is the equal-weight mixture of those Gaussians
(:class:`Prediction`): mean = avg_s μ_s, var = avg_s s_s² + var_s μ_s, and its quantiles and
intervals come from the mixture CDF itself, not from a Gaussian with those moments.

:class:`Predictor` compiles the conditional once per GP with the new inputs as a function
argument, so predicting at other points, other draws or after ``set_data`` never recompiles.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import pytensor.tensor as pt
import scipy.linalg
import scipy.special
import xarray as xr
from pymc.logprob.transforms import LogTransform
from pytensor.graph import ancestors

from pymc_vsk.arrays import as_float_array, as_probabilities
from pymc_vsk.blas import blas_threads
from pymc_vsk.caching import cached
from pymc_vsk.covariance import exact_distances
from pymc_vsk.draws import check_draw_shape, draw_points
from pymc_vsk.hsgp import CollapsedLiftedHSGP, LiftedHSGP
from pymc_vsk.kernels import is_radial
from pymc_vsk.likelihood import check_data_lengths
from pymc_vsk.memory import check_dense
from pymc_vsk.modes import PYTHON_MODE
from pymc_vsk.scaling import numeric_value
from pymc_vsk.validation import (
    as_numeric,
    check_inputs,
    check_jitter,
    not_positive_definite,
    require_float64,
)

__all__ = ["Prediction", "Predictor", "fitted_jitter", "model_of", "power_function", "predict"]


@dataclass
class Prediction:
    r"""The predictive distribution at new points: a mixture of Gaussians.

    Each component is the Gaussian conditional of one posterior draw (one component for a
    point; for the jump model with its location summed out, one per draw and gap). Point
    summaries (mean, std) are the mixture's moments; quantiles and intervals are exact
    (root-finding on the mixture CDF); joint draws sample the components' full covariances.

    Attributes
    ----------
    means : ndarray, shape (K, m)
        Component means (the same for f and for y).
    var_f : ndarray, shape (K, m)
        Component variances of the latent f.
    var_y : ndarray, shape (K, m), or None
        Component variances of a new noisy observation y (σ_n² included); ``None`` for a
        GP without a Gaussian noise model (``pm.gp.Latent``, :class:`~pymc_vsk.hsgp.LiftedHSGP`).
    weights : ndarray, shape (K,)
        Component weights (summing to 1).
    n_draws : int
        Number of posterior draws mixed (1 for a point).
    sampler : callable, optional
        ``sampler(size, rng, of) -> (size, m)`` joint draws (see :meth:`sample`); ``None``
        where only per-point moments are known.
    """

    means: np.ndarray
    var_f: np.ndarray
    var_y: np.ndarray | None
    weights: np.ndarray
    n_draws: int = 1
    sampler: Callable[[int, np.random.Generator, str], np.ndarray] | None = field(
        default=None, repr=False, compare=False
    )

    @classmethod
    def mixture(cls, moments: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> Prediction:
        """The equal-weight mixture of per-draw Gaussians given by (mean, var_f, var_y).

        Parameters
        ----------
        moments : sequence of (mean, var_f, var_y)
            Per-draw predictive mean and variances, each of shape (m,); ``var_y`` is
            ``None`` for every draw of a GP without a Gaussian noise model.

        Returns
        -------
        Prediction
        """
        moments = list(moments)
        if not moments:
            raise ValueError("A mixture needs the moments of at least one draw.")
        means, var_f, var_y = (list(m) for m in zip(*moments, strict=True))
        if any(v is None for v in var_y) and not all(v is None for v in var_y):
            raise ValueError("Give var_y for every draw, or None for every draw (no noise model).")
        var_y = None if var_y[0] is None else np.asarray(var_y, dtype=float)
        means, var_f = np.asarray(means, dtype=float), np.asarray(var_f, dtype=float)
        return cls(means, var_f, var_y, np.full(len(means), 1.0 / len(means)), len(means))

    # -- moments ----------------------------------------------------------------------------
    @property
    def mean(self) -> np.ndarray:
        """Predictive mean, shape (m,) (the same for f and for y)."""
        return self.weights @ self.means

    @property
    def std_f(self) -> np.ndarray:
        """Predictive standard deviation of the latent f, shape (m,)."""
        return np.sqrt(self._variance(self.var_f))

    @property
    def std_y(self) -> np.ndarray:
        """Predictive standard deviation of a new noisy observation y, shape (m,)."""
        return np.sqrt(self._variance(self._component_var("y")))

    def _variance(self, var: np.ndarray) -> np.ndarray:
        spread = self.weights @ np.square(self.means - self.mean)
        return np.clip(self.weights @ var + spread, 0.0, None)

    def _component_var(self, of: str) -> np.ndarray:
        if of == "f":
            return self.var_f
        if of != "y":
            raise ValueError(f"of must be 'f' (the latent function) or 'y' (noisy); got {of!r}.")
        if self.var_y is None:
            raise ValueError(
                "This GP has no Gaussian noise model (its likelihood is yours), so the "
                "predictive distribution of y is not defined here; use of='f'."
            )
        return self.var_y

    # -- quantiles and intervals -------------------------------------------------------------
    def cdf(self, x: npt.ArrayLike, of: str = "y") -> np.ndarray:
        """The predictive CDF at values ``x`` (broadcast against the m points).

        Parameters
        ----------
        x : array-like, shape (..., m)
            Values, one per point (or broadcastable to that).
        of : {"y", "f"}, default "y"
            A new noisy observation or the latent function.

        Returns
        -------
        ndarray, shape (..., m)
        """
        x = as_float_array(x, "x")
        m = self.means.shape[-1]
        try:
            x = np.broadcast_to(x, np.broadcast_shapes(x.shape, (m,)))
        except ValueError:
            raise ValueError(
                f"x has shape {x.shape}, which does not broadcast against the {m} points "
                "predicted: give one value per point, or one value for all."
            ) from None
        return self._cdf(x, np.sqrt(self._component_var(of)))

    def _cdf(self, x: np.ndarray, std: np.ndarray) -> np.ndarray:
        # components of zero variance (a latent GP's deterministic draws) are point masses
        z = x[..., None, :] - self.means
        step = np.where(z >= 0, np.inf, -np.inf)
        z = np.divide(z, std, out=step, where=std > 0)
        return np.einsum("k,...km->...m", self.weights, scipy.special.ndtr(z))

    def quantile(self, q: float | npt.ArrayLike, of: str = "y") -> np.ndarray:
        """Quantiles of the predictive distribution, exact for the mixture over draws.

        Solves F(x) = q on the mixture CDF by bisection to machine precision (closed form for
        one Gaussian component).

        Parameters
        ----------
        q : float or array-like
            Probabilities in (0, 1).
        of : {"y", "f"}, default "y"
            A new noisy observation or the latent function.

        Returns
        -------
        ndarray, shape (m,) for a scalar ``q``, else ``q.shape + (m,)``

        Raises
        ------
        ValueError
            If a probability is NaN or not inside (0, 1), or ``q`` is empty.
        TypeError
            If ``q`` holds text or other values that are not numbers.
        """
        q = as_probabilities(q, "q")
        std = np.sqrt(self._component_var(of))
        flat = q.reshape(-1, 1)
        if len(self.weights) == 1:
            out = self.means[0] + std[0] * scipy.special.ndtri(flat)
        else:
            out = self._solve_cdf(np.broadcast_to(flat, (len(flat), self.means.shape[1])), std)
        return out.reshape(*q.shape, -1)

    def _solve_cdf(
        self, q: np.ndarray, std: np.ndarray, start: np.ndarray | None = None
    ) -> np.ndarray:
        """x with F(x) = q per point: Newton's method kept inside a shrinking bisection bracket.

        The bracket's margin and the tolerance are relative to the bracket's own size, so that
        the quantiles are the same in any units of y.
        """
        low, high = (self.means - 40 * std).min(axis=0), (self.means + 40 * std).max(axis=0)
        size = np.maximum(high - low, np.maximum(np.abs(low), np.abs(high)))
        low = np.broadcast_to(low - 1e-12 * size, q.shape).copy()
        high = np.broadcast_to(high + 1e-12 * size, q.shape).copy()
        if start is None:
            start = self.mean + np.sqrt(self._variance(std**2)) * scipy.special.ndtri(q)
        x = np.clip(start, low, high)
        for _ in range(200):
            F, dens = self._cdf(x, std), self._pdf(x, std)
            below = F < q
            low, high = np.where(below, x, low), np.where(below, high, x)
            step = np.divide(F - q, dens, out=np.zeros_like(x), where=dens > 0)
            newton = x - step
            inside = (dens > 0) & (newton > low) & (newton < high)
            new = np.where(inside, newton, 0.5 * (low + high))
            done = (np.abs(F - q) <= 1e-15) | (high - low <= 4e-16 * size)
            if np.all(done | (new == x)):
                break
            x = np.where(done, x, new)
        return x

    def interval(
        self, prob: float = 0.94, of: str = "y", kind: str = "eti"
    ) -> tuple[np.ndarray, np.ndarray]:
        """A pointwise credible interval of probability ``prob``.

        Parameters
        ----------
        prob : float, default 0.94
            Probability inside the interval.
        of : {"y", "f"}, default "y"
            A new noisy observation or the latent function.
        kind : {"eti", "hdi"}, default "eti"
            Equal-tailed, or highest-density: the interval of mass ``prob`` whose ends have
            equal density, the shortest such interval for a unimodal predictive density (which
            each Gaussian component and mixtures of nearby components are).

        Returns
        -------
        lower, upper : ndarray, shape (m,)
        """
        prob = as_probabilities(prob, "prob")
        if prob.ndim:
            raise ValueError(
                f"prob is one probability (call interval once per probability); got shape "
                f"{prob.shape}."
            )
        prob = float(prob)
        if kind == "eti":
            lower, upper = self.quantile([(1 - prob) / 2, (1 + prob) / 2], of=of)
            return lower, upper
        if kind != "hdi":
            raise ValueError(f"kind must be 'eti' or 'hdi'; got {kind!r}.")
        if len(self.weights) == 1:
            return self.interval(prob, of=of, kind="eti")
        std = np.sqrt(self._component_var(of))
        m = self.means.shape[1]
        # the lower tail mass a solves g(a) = p(Q(a)) - p(Q(a + prob)) = 0, g increasing for a
        # unimodal density: Newton's method on a inside a bisection bracket
        a_low, a_high = np.zeros(m), np.full(m, 1.0 - prob)
        a = np.full(m, (1.0 - prob) / 2)
        ends = self._solve_cdf(np.stack([a, a + prob]), std)
        for _ in range(100):
            dens, slope = self._pdf(ends, std, slope=True)
            g = dens[0] - dens[1]
            left = g < 0
            a_low, a_high = np.where(left, a, a_low), np.where(left, a_high, a)
            # dQ/da = 1/p(Q), so g'(a) = p'(Q(a))/p(Q(a)) - p'(Q(a + prob))/p(Q(a + prob))
            with np.errstate(divide="ignore", invalid="ignore"):
                dg = slope[0] / dens[0] - slope[1] / dens[1]
                newton = a - g / dg
            inside = np.isfinite(newton) & (newton > a_low) & (newton < a_high)
            new = np.where(inside, newton, 0.5 * (a_low + a_high))
            if np.all(np.abs(new - a) <= 1e-13):
                break
            a = new
            ends = self._solve_cdf(np.stack([a, a + prob]), std, start=ends)
        return ends[0], ends[1]

    def _pdf(self, x: np.ndarray, std: np.ndarray, slope: bool = False):
        """The mixture density at ``x`` (point masses count 0), and its derivative if ``slope``."""
        safe = np.where(std > 0, std, 1.0)
        z = (x[..., None, :] - self.means) / safe
        dens = np.where(std > 0, np.exp(-0.5 * z**2) / (safe * np.sqrt(2 * np.pi)), 0.0)
        total = np.einsum("k,...km->...m", self.weights, dens)
        if not slope:
            return total
        return total, np.einsum("k,...km->...m", self.weights, -dens * z / safe)

    # -- joint draws -------------------------------------------------------------------------
    def sample(self, size: int, of: str = "f", seed: int | None = 0) -> np.ndarray:
        """Joint draws of the predictive distribution at all m points.

        Each draw picks a component (a posterior draw) by weight and samples its Gaussian
        with the full m × m covariance, so draws carry the correlation between points.

        Parameters
        ----------
        size : int
            Number of draws.
        of : {"f", "y"}, default "f"
            The latent function or new noisy observations.
        seed : int or None, default 0
            Seed of the draws.

        Returns
        -------
        ndarray, shape (size, m)
        """
        self._component_var(of)
        whole = isinstance(size, int | np.integer) and not isinstance(size, bool)
        if not whole or size < 0:
            raise ValueError(f"size is the number of draws, a whole number >= 0; got {size!r}.")
        if self.sampler is None:
            raise NotImplementedError(
                "This prediction has no joint covariance (the jump model with its location "
                "summed out keeps per-point moments only); use quantile()/interval(), or "
                "build_jump_model(method='smooth') for joint draws."
            )
        return self.sampler(int(size), np.random.default_rng(seed), of)


class Predictor:
    """Compiled predictive distribution of a GP at arbitrary new inputs.

    Supported GPs: ``pm.gp.Marginal`` (and :func:`pymc_vsk.build_model`'s), ``pm.gp.Latent``
    (the conditional f* | f of each draw of f), ``pm.gp.MarginalApprox`` (VFE, FITC, DTC),
    :class:`~pymc_vsk.hsgp.LiftedHSGP`, :class:`~pymc_vsk.hsgp.CollapsedLiftedHSGP` and
    :class:`~pymc_vsk.jumps.MarginalJumpGP`.

    Parameters
    ----------
    gp : GP
        A GP whose likelihood or prior was set up.
    model : pm.Model, optional
        The model the GP lives in (default: the model the GP recorded, else the model in
        context).
    jitter : float, optional
        Added to the training covariance; 0 for exact interpolation with σ_n = 0. Default: the
        jitter the model was fitted with (``gp.jitter``), else PyMC's 1e-6. A value given is
        read as the model reads its own (:func:`fitted_jitter`): relative to sd(y)² for
        :func:`pymc_vsk.build_model`'s standardised model, absolute otherwise. A
        ``pm.gp.MarginalApprox`` does not record the jitter of its ``marginal_likelihood``:
        give the same one here (:mod:`pymc_vsk.sparse`).
    """

    def __init__(self, gp: object, model: pm.Model | None = None, jitter: float | None = None):
        check_supported(gp)
        self.model = model_of(gp, model)
        jitter = fitted_jitter(gp, jitter)
        self.gp = gp
        self.jitter = jitter
        if _is_jump_gp(gp):
            self._fn, self.names = gp._predictor(self.model)
            self._positive: set[str] = set()
            self._joint = None
            self.input_dim = 1
            return
        X_value = as_numeric(_training_inputs(gp))
        self._n_train = 0 if X_value is None or isinstance(gp, LiftedHSGP) else len(X_value)
        if isinstance(gp, LiftedHSGP):  # new inputs are x, before lifting
            self.input_dim = gp.d
        else:
            self.input_dim = None if X_value is None else int(X_value.shape[1])
        Xnew = pt.matrix("Xnew", dtype="float64")
        outputs = [o for o in _conditional(gp, Xnew, diag=True, jitter=jitter) if o is not None]
        self.inputs = _inputs(self.model, outputs)
        self.names = [v.name for v in self.inputs]
        self._positive = {
            v.name
            for v in self.inputs
            if isinstance(self.model.rvs_to_transforms.get(v), LogTransform)
        }
        self._fn = self._compile([Xnew, *self.inputs], outputs)
        self._joint = None

    @staticmethod
    def _compile(inputs: list, outputs: list) -> Callable:
        # pytensor's Python/NumPy path: compiled in a fraction of a second with no C and no
        # on-disk cache, and the prediction's cost is its LAPACK calls
        return pytensor.function(
            inputs, outputs, on_unused_input="ignore", allow_input_downcast=True, mode=PYTHON_MODE
        )

    def components(
        self, Xnew: np.ndarray, point: Mapping[str, npt.ArrayLike]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        """Gaussian components at ``Xnew`` for one parameter point.

        Parameters
        ----------
        Xnew : ndarray, shape (m, d)
            New inputs.
        point : dict
            Values of the free variables the prediction depends on, by name.

        Returns
        -------
        means, var_f : ndarray, shape (G, m)
        var_y : ndarray, shape (G, m), or None
        weights : ndarray, shape (G,)
            One component (G = 1) except for the jump model, one per gap.
        """
        values = self._values(point)
        check_data_lengths(self.gp)
        with blas_threads(1):
            out = self._fn(Xnew, *values)
        if not all(np.all(np.isfinite(o)) for o in out):
            raise ValueError(not_positive_definite("The training covariance at this point"))
        if _is_jump_gp(self.gp):
            mu, var_f, noise, logw = out
            var_f = np.clip(var_f, 0.0, None)
            return mu, var_f, var_f + noise, scipy.special.softmax(logw)
        mu, var_f, *rest = out
        var_f = np.clip(var_f, 0.0, None)[None]
        var_y = var_f + np.clip(rest[0], 0.0, None) if rest else None
        return np.asarray(mu)[None], var_f, var_y, np.ones(1)

    def moments(
        self, Xnew: np.ndarray, point: Mapping[str, npt.ArrayLike]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean, var_f, var_y at ``Xnew`` for one parameter point (constrained names).

        Parameters
        ----------
        Xnew : ndarray, shape (m, d)
            New inputs.
        point : dict
            Values of the free variables the prediction depends on, by name.

        Returns
        -------
        mean, var_f, var_y : ndarray, shape (m,)
            ``var_y`` is NaN for a GP without a Gaussian noise model.
        """
        pred = self._mix([self.components(Xnew, point)], 1, Xnew, [point])
        var_y = pred.std_y**2 if pred.var_y is not None else np.full_like(pred.mean, np.nan)
        return pred.mean, pred.std_f**2, var_y

    def __call__(self, Xnew: npt.ArrayLike, point: Mapping[str, npt.ArrayLike]) -> Prediction:
        """The prediction at ``Xnew`` for one parameter point.

        Parameters
        ----------
        Xnew : array-like, shape (m, d)
            New inputs.
        point : dict
            Values of the free variables by name.

        Returns
        -------
        Prediction
        """
        Xnew = self._check(Xnew)
        return self._mix([self.components(Xnew, point)], 1, Xnew, [point])

    def from_posterior(
        self, Xnew: npt.ArrayLike, idata: xr.DataTree, max_draws: int | None = 500, seed: int = 0
    ) -> Prediction:
        """Mix the predictive over posterior draws (at most ``max_draws``, chosen at random).

        Parameters
        ----------
        Xnew : array-like, shape (m, d)
            New inputs.
        idata : DataTree
            Posterior draws.
        max_draws : int or None, default 500
            Most draws mixed; ``None`` for all.
        seed : int, default 0
            Seed of the draw subsample.

        Returns
        -------
        Prediction
        """
        Xnew = self._check(Xnew)
        points = draw_points(idata, self.names, max_draws, seed)
        return self._mix([self.components(Xnew, p) for p in points], len(points), Xnew, points)

    def _mix(self, parts: list, n_draws: int, Xnew: np.ndarray, points: list) -> Prediction:
        if isinstance(self.gp, LiftedHSGP):
            self.gp.check_basis(points)
        means, var_f, var_y, weights = zip(*parts, strict=True)
        weights = np.concatenate(weights) / n_draws
        sampler = None if _is_jump_gp(self.gp) else self._sampler(Xnew, points)
        return Prediction(
            np.concatenate(means),
            np.concatenate(var_f),
            None if var_y[0] is None else np.concatenate(var_y),
            weights,
            n_draws,
            sampler,
        )

    def _sampler(self, Xnew: np.ndarray, points: list) -> Callable:
        def sample(size: int, rng: np.random.Generator, of: str) -> np.ndarray:
            which = rng.choice(len(points), size=size)
            out = np.empty((size, len(Xnew)))
            for k in np.unique(which):
                mean, cov = self.joint(Xnew, points[k], of)
                rows = np.flatnonzero(which == k)
                out[rows] = rng.multivariate_normal(mean, cov, size=len(rows), method="eigh")
            return out

        return sample

    def joint(
        self, Xnew: npt.ArrayLike, point: Mapping[str, npt.ArrayLike], of: str = "f"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and full covariance at ``Xnew`` for one point (compiled on first use).

        Parameters
        ----------
        Xnew : array-like, shape (m, d)
            New inputs.
        point : dict
            Values of the free variables by name.
        of : {"f", "y"}, default "f"
            The latent function, or new noisy observations (noise covariance added).

        Returns
        -------
        mean : ndarray, shape (m,)
        cov : ndarray, shape (m, m)
        """
        if _is_jump_gp(self.gp):
            raise NotImplementedError("The jump model keeps per-point moments only.")
        if self._joint is None:
            Xs = pt.matrix("Xnew", dtype="float64")
            outputs = _conditional(self.gp, Xs, diag=False, jitter=self.jitter)
            self._joint = self._compile([Xs, *self.inputs], [o for o in outputs if o is not None])
        Xnew = self._check(Xnew)
        check_data_lengths(self.gp)
        check_dense(
            len(Xnew),
            len(Xnew) + self._n_train,
            f"A joint prediction at {len(Xnew)} inputs",
            fix="Ask for the marginal moments instead (predict, Predictor.moments), or for "
            "fewer inputs.",
        )
        with blas_threads(1):
            mean, cov, *noise = self._joint(Xnew, *self._values(point))
        if of == "y":
            if not noise:
                raise ValueError("This GP has no Gaussian noise model; use of='f'.")
            cov = cov + noise[0]
        return np.asarray(mean), 0.5 * (cov + cov.T)

    def _values(self, point: Mapping[str, npt.ArrayLike]) -> list:
        missing = [n for n in self.names if n not in point]
        if missing:
            raise ValueError(
                f"The point has no value for {missing}; pass a MAP point (MapResult.point) or "
                "a posterior draw with every free variable."
            )
        for variable in getattr(self, "inputs", []):  # a posterior of another model
            check_draw_shape(variable, np.shape(point[variable.name]))
        for name in sorted(self._positive):
            value = np.asarray(point[name], dtype=float)
            if not np.all(value > 0):
                raise ValueError(
                    f"The point's {name} = {value.min():g} is not positive, but {name} is "
                    "(its prior lives on the positive numbers); pass a MAP point or a "
                    "posterior draw, or positive values."
                )
        return [point[n] for n in self.names]

    def _check(self, Xnew: npt.ArrayLike) -> np.ndarray:
        Xnew = as_float_array(Xnew, "Xnew")
        width = self.input_dim if self.input_dim is not None else np.shape(Xnew)[-1]
        check_inputs(Xnew, width, name="Xnew", owner="the GP")
        if isinstance(self.gp, LiftedHSGP):
            self.gp.check_inside_box(Xnew)
        return Xnew


#: What :func:`predict` takes, for messages.
SUPPORTED = (
    "pm.gp.Marginal (and build_model's GP), pm.gp.Latent, pm.gp.MarginalApprox (VFE, FITC, "
    "DTC), pymc_vsk.hsgp.LiftedHSGP, pymc_vsk.hsgp.CollapsedLiftedHSGP and "
    "pymc_vsk.jumps.MarginalJumpGP"
)


def check_supported(gp: object) -> None:
    """Raise ``TypeError`` naming the supported GP types if :func:`predict` cannot take ``gp``.

    Parameters
    ----------
    gp : object
    """
    supported = (pm.gp.Marginal, LiftedHSGP)
    latent = isinstance(gp, pm.gp.Latent) and not isinstance(gp, pm.gp.TP)
    if not (isinstance(gp, supported) or latent or _is_jump_gp(gp)):
        raise TypeError(f"predict does not support {type(gp).__name__}; it supports {SUPPORTED}.")


def _is_jump_gp(gp: object) -> bool:
    """A GP mixing over jump gaps (:class:`~pymc_vsk.jumps.MarginalJumpGP`, which imports this
    module): its compiled per-gap moments come from its ``_predictor``."""
    return hasattr(gp, "gaps") and callable(getattr(gp, "_predictor", None))


def _training_inputs(gp: object) -> object:
    X = getattr(gp, "X", None)
    if X is None and not isinstance(gp, LiftedHSGP):
        raise ValueError(
            f"The {type(gp).__name__} has no data yet: call gp.marginal_likelihood(...) (or "
            "gp.prior(...) for a latent GP) before predicting."
        )
    return X


def _conditional(
    gp: object, Xnew: pt.TensorVariable, diag: bool, jitter: float
) -> tuple[pt.TensorVariable, pt.TensorVariable, pt.TensorVariable | None]:
    """Symbolic mean, variance (or covariance) of f and of the noise at ``Xnew``."""
    if isinstance(gp, CollapsedLiftedHSGP):
        mean, var = gp.predict_moments(Xnew, diag=diag)
        s2 = pt.square(pt.as_tensor_variable(gp.sigma))
        return mean, var, s2 * (pt.ones(Xnew.shape[0]) if diag else pt.eye(Xnew.shape[0]))
    if isinstance(gp, LiftedHSGP):
        if not hasattr(gp, "_beta"):
            raise ValueError(
                "The LiftedHSGP has no prior yet: call gp.prior(name, X) before predicting "
                "(a prior_linearized model predicts through its own basis weights)."
            )
        mean = gp._build_conditional(Xnew)
        zero = pt.zeros(Xnew.shape[0]) if diag else pt.zeros((Xnew.shape[0], Xnew.shape[0]))
        return mean, zero, None
    if isinstance(gp, pm.gp.MarginalApprox):
        _training_inputs(gp)
        mean, var = gp._build_conditional(Xnew, False, diag, *gp._get_given_vals(None), jitter)
        s2 = pt.square(pt.as_tensor_variable(gp.sigma))
        return mean, var, s2 * (pt.ones(Xnew.shape[0]) if diag else pt.eye(Xnew.shape[0]))
    if isinstance(gp, pm.gp.Marginal):
        _training_inputs(gp)
        mean, var = gp._predict_at(Xnew, diag=diag, pred_noise=False, jitter=jitter)
        return mean, var, gp.sigma(Xnew, diag=diag)
    check_supported(gp)  # what is left is a pm.gp.Latent
    if getattr(gp, "f", None) is None:
        _training_inputs(gp)
    X, f, cov_total, mean_total = gp._get_given_vals(None)
    mean, cov = gp._build_conditional(Xnew, X, f, cov_total, mean_total, jitter)
    return mean, pt.diagonal(cov) if diag else cov, None


def _inputs(model: pm.Model, outputs: list) -> list:
    """The model's free variables and deterministics the outputs depend on directly.

    A variable reached only through another one (``pm.gp.Latent``'s ``f_rotated_`` behind its
    deterministic ``f``) is not needed: the point gives the other one's value.
    """
    upstream = set(ancestors(outputs))
    found = [v for v in model.free_RVs + model.deterministics if v in upstream]
    return [
        v for v in found if v in set(ancestors(outputs, blockers=[u for u in found if u is not v]))
    ]


def model_of(gp: object, model: pm.Model | None = None) -> pm.Model:
    """The model a GP lives in: ``model`` if given, else the one it recorded, else the context.

    GPs made by :func:`pymc_vsk.build_model`, :func:`pymc_vsk.jumps.build_jump_model` and
    :mod:`pymc_vsk.hsgp` record their model, so they predict outside ``with model:``.

    Parameters
    ----------
    gp : GP
    model : pm.Model, optional

    Returns
    -------
    pm.Model
    """
    if model is not None:
        return model
    recorded = getattr(gp, "model", None)
    if isinstance(recorded, pm.Model):
        return recorded
    context = pm.Model.get_context(error_if_none=False)
    if context is None:
        raise ValueError(
            f"This {type(gp).__name__} does not record its model and no model is in context: "
            "pass model=model, or call predict inside `with model:`."
        )
    return context


def predict(
    gp: object,
    Xnew: npt.ArrayLike,
    point: Mapping[str, npt.ArrayLike] | None = None,
    idata: xr.DataTree | None = None,
    *,
    model: pm.Model | None = None,
    jitter: float | None = None,
    max_draws: int | None = 500,
    seed: int = 0,
) -> Prediction:
    """The predictive distribution of f and of noisy y at ``Xnew``.

    Give either ``point`` (e.g. ``fit_map(model).point``) or ``idata`` (the DataTree of
    ``pm.sample``; the prediction mixes over up to ``max_draws`` draws). The compiled
    predictor is cached with the GP, so repeated calls do not recompile.

    Parameters
    ----------
    gp : GP
        ``pm.gp.Marginal`` (e.g. from :func:`pymc_vsk.build_model`), ``pm.gp.Latent`` (the
        conditional f* | f of each draw of f), ``pm.gp.MarginalApprox`` (VFE, FITC, DTC),
        :class:`~pymc_vsk.hsgp.LiftedHSGP`, :class:`~pymc_vsk.hsgp.CollapsedLiftedHSGP`, or
        :class:`~pymc_vsk.jumps.MarginalJumpGP`; any other type raises ``TypeError``.
    Xnew : array-like, shape (m, d)
        New inputs.
    point : dict or MapResult, optional
        Values of the free variables by name (constrained names such as ``ls``), e.g.
        ``fit_map(model).point`` or one posterior draw; the result of
        :func:`~pymc_vsk.fitting.fit_map` itself stands for its point.
    idata : DataTree, optional
        Posterior draws; the prediction is the mixture over them.
    model : pm.Model, optional
        The model of the GP (default: the model the GP recorded, else the model in context).
    jitter : float, optional
        Added to the training covariance; 0 for exact interpolation with σ_n = 0. Default: the
        jitter the model was fitted with (``gp.jitter``), else PyMC's 1e-6. A value given is
        read as the model reads its own (:func:`fitted_jitter`): relative to sd(y)² for
        :func:`pymc_vsk.build_model`'s standardised model, absolute otherwise. A
        ``pm.gp.MarginalApprox`` does not record the jitter of its ``marginal_likelihood``:
        give the same one here (:mod:`pymc_vsk.sparse`).
    max_draws : int or None, default 500
        Most draws mixed (a random subset of the posterior); ``None`` for all.
    seed : int, default 0
        Seed of the draw subsample.

    Returns
    -------
    Prediction
        The predictive distribution at the m rows of ``Xnew`` (for ``idata``, the mixture
        over the draws), in the units of y:

        * :attr:`~Prediction.mean`: the predictive mean, shape (m,), the same for f and y;
        * :attr:`~Prediction.std_f`: the standard deviation of the latent f, shape (m,);
        * :attr:`~Prediction.std_y`: that of a new noisy observation y (σ_n included),
          shape (m,); a ``ValueError`` for a GP without Gaussian noise (``pm.gp.Latent``,
          :class:`~pymc_vsk.hsgp.LiftedHSGP`);
        * :meth:`quantile(q, of="y") <Prediction.quantile>`: shape (m,) for one ``q``;
        * :meth:`interval(prob=0.94, of="y", kind="eti") <Prediction.interval>`: the bounds
          ``lower, upper``, each of shape (m,);
        * :meth:`sample(size, of="f") <Prediction.sample>`: joint draws, shape (size, m).

    Examples
    --------
    Every parameter is given a fixed value here (``ls=0.1`` and so on, instead of a prior),
    so the model has no free variables and the point that fixes them is empty:
    ``point={}``. After :func:`~pymc_vsk.fitting.fit_map` it is ``point=fit.point``.

    >>> import numpy as np
    >>> from pymc_vsk import build_model, predict, targets
    >>> from pymc_vsk.scaling import Jump
    >>> X = targets.halton_nodes(15)
    >>> model, gp = build_model(X, targets.jump(X), psi=Jump(0.5), ls=0.1, sigma_f=1.0,
    ...                         sigma_n=0.1, mean=0.0)
    >>> model.free_RVs
    []
    >>> pred = predict(gp, np.array([[0.25], [0.75]]), point={})
    >>> pred.mean.shape, pred.std_f.shape, pred.std_y.shape
    ((2,), (2,), (2,))
    >>> lower, upper = pred.interval(0.9)
    >>> bool(np.all(lower < pred.mean) and np.all(pred.mean < upper))
    True
    """
    if (point is None) == (idata is None):
        raise ValueError("Pass exactly one of point= (a MAP point) or idata= (a posterior).")
    point = _as_point(point)
    check_supported(gp)
    model = model_of(gp, model)
    require_float64("predict", model)
    key = (model, "fitted" if jitter is None else float(jitter))  # the model itself: ids recur
    predictor = cached(gp, "predictor", key, lambda: Predictor(gp, model, jitter))
    if point is not None:
        return predictor(Xnew, point)
    return predictor.from_posterior(Xnew, idata, max_draws=max_draws, seed=seed)


def _as_point(point: object) -> Mapping[str, npt.ArrayLike] | None:
    """``point`` as a mapping of values by name; a MAP result stands for its ``.point``."""
    if point is None:
        return None
    if isinstance(point, xr.DataTree):
        raise TypeError("point= takes one set of values; pass a posterior as idata= instead.")
    point = getattr(point, "point", point)
    if not isinstance(point, Mapping):
        raise TypeError(
            f"point must map each free variable's name to its value (a dict such as "
            f"fit_map(model).point); got {type(point).__name__}."
        )
    return point


def fitted_jitter(gp: object, jitter: float | None = None) -> float | pt.TensorVariable:
    """The jitter to add to a GP's training covariance.

    By default the one its likelihood was built with (``gp.jitter``), else PyMC's 1e-6. A
    ``jitter`` given is in the model's own terms, as :func:`pymc_vsk.build_model` reads its
    argument: times ``gp.jitter_unit`` (sd(y)² for its standardised model), absolute for
    a GP without one, so that the same number means the same at any units of y.

    Parameters
    ----------
    gp : GP
        E.g. from :func:`pymc_vsk.build_model`.
    jitter : float, optional

    Returns
    -------
    float or TensorVariable
        A tensor when the jitter is relative to data containers (read when called).
    """
    if jitter is None:
        return getattr(gp, "jitter", 1e-6)
    return check_jitter(jitter, "the model's own") * getattr(gp, "jitter_unit", 1.0)


def power_function(
    cov_func: pm.gp.cov.Covariance,
    X: npt.ArrayLike,
    Xnew: npt.ArrayLike,
    point: Mapping[str, npt.ArrayLike] | None = None,
) -> np.ndarray:
    r"""Power function of kernel interpolation (eq. 9), noise-free.

    .. math::

        P_{\kappa, X}(x) = \sqrt{\kappa(x, x) - \mathrm{k}(x)^\top K^{-1} \mathrm{k}(x)}.

    For a VSK ``cov_func`` this is the VSK power function of Section 3.2; for
    ``sigma_f**2 * kappa`` it is the posterior std of the noise-free GP, σ_f P(x).

    The radial stationary kernels of PyMC in ``cov_func`` (alone or in sums and products)
    are evaluated with distances from coordinate differences
    (:class:`~pymc_vsk.covariance.ExactDistances`, on a copy), so that the power function is
    the same at any offset of X. PyMC's own kernels expand ‖x‖² − 2 xᵀx' + ‖x'‖², which
    loses the digits of X's spread to its offset (x in years, for instance).

    Parameters
    ----------
    cov_func : pm.gp.cov.Covariance
    X : array, shape (n, d)
        Nodes (pairwise distinct).
    Xnew : array, shape (m, d)
    point : dict, optional
        Values of random parameters of ``cov_func`` by name.

    Returns
    -------
    array, shape (m,)
    """
    X = as_float_array(X, "X")
    Xnew = as_float_array(Xnew, "Xnew")
    check_inputs(Xnew, X.shape[1] if X.ndim == 2 else 1, name="Xnew", owner="the nodes X")
    cov_func = _exact_distances(cov_func)
    K, k, kxx = (
        _evaluate(expr, point)
        for expr in (cov_func(X), cov_func(X, Xnew), cov_func(Xnew, diag=True))
    )
    try:
        chol = scipy.linalg.cho_factor(K, lower=True)
    except np.linalg.LinAlgError as err:
        raise ValueError(
            not_positive_definite("The kernel matrix at X")
            + " The power function is noise-free: it needs pairwise distinct nodes."
        ) from err
    var = kxx - np.einsum("ij,ij->j", k, scipy.linalg.cho_solve(chol, k))
    return np.sqrt(np.clip(var, 0.0, None))


def _exact_distances(cov_func: pm.gp.cov.Covariance) -> pm.gp.cov.Covariance:
    """``cov_func``, or a copy whose radial stationary parts compute exact distances.

    Parameters
    ----------
    cov_func : pm.gp.cov.Covariance
        A kernel; sums and products are searched for radial stationary factors.

    Returns
    -------
    pm.gp.cov.Covariance
        The same kernel up to rounding; ``cov_func`` itself is not changed.
    """
    if isinstance(cov_func, pm.gp.cov.Stationary) and is_radial(type(cov_func)):
        return exact_distances(copy.copy(cov_func))
    if isinstance(cov_func, pm.gp.cov.Combination):
        out = copy.copy(cov_func)
        out._factor_list = [_exact_distances(f) for f in cov_func._factor_list]
        return out
    return cov_func


def _evaluate(expr: pt.TensorVariable, point: Mapping[str, npt.ArrayLike] | None) -> np.ndarray:
    value = numeric_value(expr, point)
    if value is None:
        point = point or {}
        names = sorted({v.name for v in pm.pytensorf.rvs_in_graph(expr) if v.name})
        missing = [name for name in names if name not in point]
        hint = ""
        if any(str(key).endswith("__") for key in point):
            hint = (
                " The point's names are of the transformed values (such as ls_log__): give "
                "the variables' own names and values, as fit_map(model).point holds them."
            )
        raise ValueError(
            "The covariance has random parameters; pass point={name: value} for each of them "
            f"(missing: {', '.join(map(repr, missing)) or 'a value the point does not fit'})."
            + hint
        )
    return value
