r"""Prediction at new points from a MAP point or the whole posterior, and the power function.

For a ``pm.gp.Marginal`` GP, the predictive mean and variance of the latent f at new points
(eq. 5 of the paper, with the noise term of eq. 3) are

.. math::

    \mu(x) = m + k(x)^\top (K + \sigma_n^2 I)^{-1} (y - m), \qquad
    s_f^2(x) = k(x, x) - k(x)^\top (K + \sigma_n^2 I)^{-1} k(x),

and s_y² = s_f² + σ_n² for a new noisy observation. Over posterior draws θ_s the prediction is
the mixture: mean = avg_s μ_s, var = avg_s s_s² + var_s μ_s.

:class:`Predictor` compiles the conditional once per GP with the new inputs as a function
argument, so predicting at other points, other draws or after ``set_data`` never recompiles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import pytensor.tensor as pt
import scipy.linalg
import xarray as xr
from pytensor.graph import ancestors

from pymc_vsk.blas import blas_threads
from pymc_vsk.caching import cached
from pymc_vsk.draws import draw_points
from pymc_vsk.scaling import numeric_value
from pymc_vsk.validation import as_numeric, check_inputs

__all__ = ["Prediction", "Predictor", "fitted_jitter", "power_function", "predict"]


@dataclass
class Prediction:
    """Predictive summaries at new points, each of shape (m,).

    Attributes
    ----------
    mean : array
        Predictive mean (the same for f and for y).
    std_f : array
        Standard deviation of the latent f.
    std_y : array
        Standard deviation of a new noisy observation y (includes σ_n).
    n_draws : int
        Number of posterior draws mixed (1 for a point).
    """

    mean: np.ndarray
    std_f: np.ndarray
    std_y: np.ndarray
    n_draws: int = 1

    @classmethod
    def mixture(cls, moments: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> Prediction:
        """The equal-weight mixture of per-draw (mean, var_f, var_y): total variance.

        Var = E[var] + Var[mean] over the draws, for f and for y alike.

        Parameters
        ----------
        moments : sequence of (mean, var_f, var_y)
            Per-draw predictive mean and variances, each of shape (m,).

        Returns
        -------
        Prediction
        """
        means, var_f, var_y = (np.asarray(m) for m in zip(*moments, strict=True))
        spread = means.var(axis=0)
        return cls(
            means.mean(axis=0),
            np.sqrt(var_f.mean(axis=0) + spread),
            np.sqrt(var_y.mean(axis=0) + spread),
            len(means),
        )


class Predictor:
    """Compiled predictive mean and variances of a Marginal GP at arbitrary new inputs.

    Parameters
    ----------
    gp : pm.gp.Marginal
        A GP whose ``marginal_likelihood`` was set up.
    model : pm.Model, optional
        The model the GP lives in (default: the model in context).
    jitter : float, optional
        Added to the training covariance; 0 for exact interpolation with σ_n = 0. Default: the
        jitter the model was fitted with (``gp.jitter``, relative to the data for
        :func:`pymc_vsk.build_model`), else PyMC's 1e-6.
    """

    def __init__(
        self, gp: pm.gp.Marginal, model: pm.Model | None = None, jitter: float | None = None
    ):
        self.model = pm.modelcontext(model)
        if not hasattr(gp, "X"):
            raise ValueError(
                "The GP has no data yet: call gp.marginal_likelihood(...) before predicting."
            )
        jitter = fitted_jitter(gp) if jitter is None else float(jitter)
        self.gp = gp
        X_value = as_numeric(gp.X)
        self.input_dim = None if X_value is None else int(X_value.shape[1])
        Xnew = pt.matrix("Xnew", dtype="float64")
        mu, var_f = gp._predict_at(Xnew, diag=True, pred_noise=False, jitter=jitter)
        var_y = var_f + gp.sigma(Xnew, diag=True)
        outputs = [mu, var_f, var_y]
        self.inputs = [
            v
            for v in self.model.free_RVs + self.model.deterministics
            if v in set(ancestors(outputs))
        ]
        self.names = [v.name for v in self.inputs]
        self._fn = pytensor.function(
            [Xnew, *self.inputs], outputs, on_unused_input="ignore", allow_input_downcast=True
        )

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
        """
        missing = [n for n in self.names if n not in point]
        if missing:
            raise ValueError(
                f"The point has no value for {missing}; pass a MAP point (MapResult.point) or "
                "a posterior draw with every free variable."
            )
        with blas_threads(1):
            mu, var_f, var_y = self._fn(Xnew, *(point[n] for n in self.names))
        return mu, np.clip(var_f, 0.0, None), np.clip(var_y, 0.0, None)

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
        mu, var_f, var_y = self.moments(Xnew, point)
        return Prediction(mu, np.sqrt(var_f), np.sqrt(var_y), 1)

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
        return Prediction.mixture([self.moments(Xnew, p) for p in points])

    def _check(self, Xnew: npt.ArrayLike) -> np.ndarray:
        Xnew = np.asarray(Xnew, dtype=float)
        width = self.input_dim if self.input_dim is not None else np.shape(Xnew)[-1]
        check_inputs(Xnew, width, name="Xnew", owner="the GP")
        return Xnew


def predict(
    gp: pm.gp.Marginal,
    Xnew: npt.ArrayLike,
    point: Mapping[str, npt.ArrayLike] | None = None,
    idata: xr.DataTree | None = None,
    *,
    model: pm.Model | None = None,
    jitter: float | None = None,
    max_draws: int | None = 500,
    seed: int = 0,
) -> Prediction:
    """Predictive mean and std of f and of noisy y at ``Xnew``.

    Give either ``point`` (e.g. ``fit_map(model).point``) or ``idata`` (the DataTree of
    ``pm.sample``; the prediction mixes over up to ``max_draws`` draws). The compiled
    predictor is cached with the GP, so repeated calls do not recompile.

    Parameters
    ----------
    gp : pm.gp.Marginal
        A GP whose ``marginal_likelihood`` was set up (e.g. from :func:`pymc_vsk.build_model`).
    Xnew : array-like, shape (m, d)
        New inputs.
    point : dict, optional
        Values of the free variables by name (constrained names such as ``ls``), e.g.
        ``fit_map(model).point`` or one posterior draw.
    idata : DataTree, optional
        Posterior draws; the prediction is the mixture over them.
    model : pm.Model, optional
        The model of the GP (default: the model in context).
    jitter : float, optional
        Added to the training covariance; 0 for exact interpolation with σ_n = 0. Default: the
        jitter the model was fitted with (``gp.jitter``), else PyMC's 1e-6.
    max_draws : int or None, default 500
        Most draws mixed (a random subset of the posterior); ``None`` for all.
    seed : int, default 0
        Seed of the draw subsample.

    Returns
    -------
    Prediction
        Mean and standard deviations of f and y at ``Xnew``.
    """
    if (point is None) == (idata is None):
        raise ValueError("Pass exactly one of point= (a MAP point) or idata= (a posterior).")
    model = pm.modelcontext(model)
    key = (id(model), "fitted" if jitter is None else float(jitter))
    predictor = cached(gp, "predictor", key, lambda: Predictor(gp, model, jitter))
    if point is not None:
        return predictor(Xnew, point)
    return predictor.from_posterior(Xnew, idata, max_draws=max_draws, seed=seed)


def fitted_jitter(gp: object) -> float | pt.TensorVariable:
    """The jitter a GP's likelihood was built with (``gp.jitter``), else PyMC's 1e-6.

    Parameters
    ----------
    gp : GP
        E.g. from :func:`pymc_vsk.build_model`.

    Returns
    -------
    float or TensorVariable
        A tensor when the jitter is relative to data containers (read when called).
    """
    return getattr(gp, "jitter", 1e-6)


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
    X = np.asarray(X, dtype=float)
    Xnew = np.asarray(Xnew, dtype=float)
    K, k, kxx = (
        _evaluate(expr, point)
        for expr in (cov_func(X), cov_func(X, Xnew), cov_func(Xnew, diag=True))
    )
    try:
        chol = scipy.linalg.cho_factor(K, lower=True)
    except np.linalg.LinAlgError as err:
        raise ValueError(
            "The kernel matrix at X is not positive definite (duplicate nodes?); the power "
            "function needs pairwise distinct nodes."
        ) from err
    var = kxx - np.einsum("ij,ij->j", k, scipy.linalg.cho_solve(chol, k))
    return np.sqrt(np.clip(var, 0.0, None))


def _evaluate(expr: pt.TensorVariable, point: Mapping[str, npt.ArrayLike] | None) -> np.ndarray:
    value = numeric_value(expr, point)
    if value is None:
        raise ValueError(
            "The covariance has random parameters; pass point={name: value} for each of them."
        )
    return value
