r"""One-call GP regression models: VSK or stationary, with priors scaled to the data.

:func:`build_model` returns an ordinary ``pm.Model`` and the GP (a ``pm.gp.Marginal``), with
the model of eq. (15)

.. math::

    y_i = m + f(x_i) + \varepsilon_i, \quad
    f \sim \mathcal{GP}\big(0,\ \sigma_f^2\,\kappa^{\Psi}_{\ell}\big), \quad
    \varepsilon_i \sim \mathcal{N}(0, \sigma_n^2),

where κ^Ψ is a VSK (or the stationary base kernel when ``psi=None``, so every comparison is
like for like). Users who write their own PyMC model need none of this module.

Default priors (``priors="default"``), scaled to the data given at build time:

* ``ls`` ~ InverseGamma(α, β), with 1 % of its mass below the smallest distance between two
  nodes and 1 % above the largest (the span of the data): length scales the data cannot
  inform are unlikely, and the tails are light at both ends;
* ``sigma_f`` ~ HalfNormal(2 · sd(y));
* ``sigma_n`` ~ HalfNormal(sd(y));
* ``mean`` (constant mean m) ~ Normal(mean(y), 2 · sd(y)).

``priors="flat"`` puts improper flat priors (``HalfFlat``/``Flat``) on all of them: MAP is
then maximum likelihood (as MATLAB's ``fitrgp`` in the paper). Any entry can be overridden
by a number (fixed value; ``sigma_n=0`` is interpolation) or a ``.dist()`` distribution.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import scipy.optimize
import scipy.spatial
import scipy.stats
from pymc.distributions.dist_math import check_parameters
from pymc.distributions.distribution import SymbolicRandomVariable
from pymc.distributions.shape_utils import change_dist_size
from pytensor.compile.builders import OpFromGraph
from pytensor.tensor.random.basic import MvNormalRV
from pytensor.tensor.random.op import RandomVariable

from pymc_vsk._linalg import cholesky_inverse
from pymc_vsk.covariance import VSK
from pymc_vsk.scaling import as_scaling_function
from pymc_vsk.validation import check_finite, check_inputs

__all__ = [
    "KERNELS",
    "DataWarning",
    "Marginal",
    "MarginalNormal",
    "build_model",
    "check_data",
    "default_priors",
    "gaussian_logp",
    "inverse_gamma_for_range",
    "node_scales",
    "set_data",
]

#: Base kernels by name.
KERNELS: dict[str, type[pm.gp.cov.Stationary]] = {
    "expquad": pm.gp.cov.ExpQuad,
    "matern12": pm.gp.cov.Matern12,
    "matern32": pm.gp.cov.Matern32,
    "matern52": pm.gp.cov.Matern52,
    "exponential": pm.gp.cov.Exponential,
    "ratquad": pm.gp.cov.RatQuad,
}

PARAMETERS = ("ls", "sigma_f", "sigma_n", "mean")


class DataWarning(UserWarning):
    """Data that can be fitted but probably not as intended (constant y, ...)."""


def check_data(X: Any, y: Any, sigma_n: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Check training data and return them as float arrays ``X (n, d)``, ``y (n,)``.

    Raises
    ------
    ValueError
        ``X`` not 2-D or not finite, ``y`` not 1-D, of another length than ``X`` or not
        finite, or duplicate rows of ``X`` with ``sigma_n = 0`` (a singular covariance).

    Warns
    -----
    DataWarning
        Constant ``y`` (σ_f and ℓ are then not identified).
    """
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        raise ValueError(
            f"X must be a 2-D array of shape (n, d); got shape {X.shape}. "
            "For 1-D inputs pass X[:, None] (a column)."
        )
    check_inputs(X, X.shape[1] if X.ndim == 2 else 0, name="X", owner="the model")
    y = np.asarray(y, dtype=float)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D with one value per row of X; got shape {y.shape}.")
    if len(y) != len(X):
        raise ValueError(
            f"y has {len(y)} values but X has {len(X)} rows; give one observation per input row."
        )
    check_finite(y, "y", "drop those rows (from X too) or impute them before fitting.")
    if len(y) > 1 and np.ptp(y) == 0:
        warnings.warn(
            f"y is constant ({y[0]:g}): the signal variance and length scale are not "
            "identified and a fit will push σ_f to 0. Check the data.",
            DataWarning,
            stacklevel=2,
        )
    if sigma_n is not None and not isinstance(sigma_n, pt.Variable) and np.all(sigma_n == 0):
        _, index, counts = np.unique(X, axis=0, return_index=True, return_counts=True)
        if np.any(counts > 1):
            row = int(index[np.argmax(counts > 1)])
            raise ValueError(
                f"X has duplicate nodes (e.g. row {row}: {X[row].tolist()}) and sigma_n = 0: "
                "interpolating two observations at one node makes the covariance singular. "
                "Average duplicates first, or let sigma_n be positive."
            )
    return X, y


def inverse_gamma_for_range(lower: float, upper: float, tail: float = 0.01) -> tuple[float, float]:
    """InverseGamma(α, β) with probability ``tail`` below ``lower`` and ``tail`` above ``upper``.

    Solved with scipy in log-parameters; used for the default length-scale prior.
    """
    if not 0 < lower < upper:
        raise ValueError(f"Need 0 < lower < upper; got lower={lower}, upper={upper}.")

    def residual(log_params: np.ndarray) -> np.ndarray:
        a, b = np.exp(log_params)
        dist = scipy.stats.invgamma(a, scale=b)
        return np.array([np.log(dist.cdf(lower) / tail), np.log(dist.sf(upper) / tail)])

    guess = np.log([3.0, 2.0 * lower * upper / (lower + upper) * 2.0])
    sol = scipy.optimize.root(residual, guess, method="hybr")
    if not sol.success or np.max(np.abs(residual(sol.x))) > 1e-6:
        sol = scipy.optimize.least_squares(residual, guess)
    a, b = np.exp(sol.x)
    return float(a), float(b)


def node_scales(X: np.ndarray) -> tuple[float, float]:
    """Smallest distance between two distinct nodes and the span (diameter of the bounding box).

    O(n log n) with a k-d tree, so it is cheap for large n.
    """
    X = np.asarray(X, dtype=float)
    span = float(np.linalg.norm(np.ptp(X, axis=0)))
    unique = np.unique(X, axis=0)
    if len(unique) < 2:
        raise ValueError("X needs at least two distinct nodes to set length-scale scales.")
    nearest, _ = scipy.spatial.cKDTree(unique).query(unique, k=2)
    return float(nearest[:, 1].min()), span


def default_priors(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """The weakly-informative default priors for data ``X, y``, as ``.dist()`` objects."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    alpha, beta = inverse_gamma_for_range(*node_scales(X))
    scale = float(np.std(y)) if np.std(y) > 0 else 1.0
    return {
        "ls": pm.InverseGamma.dist(alpha=alpha, beta=beta),
        "sigma_f": pm.HalfNormal.dist(sigma=2.0 * scale),
        "sigma_n": pm.HalfNormal.dist(sigma=scale),
        "mean": pm.Normal.dist(mu=float(np.mean(y)), sigma=2.0 * scale),
    }


def _flat_priors() -> dict[str, Any]:
    return {
        "ls": pm.HalfFlat.dist(),
        "sigma_f": pm.HalfFlat.dist(),
        "sigma_n": pm.HalfFlat.dist(),
        "mean": pm.Flat.dist(),
    }


def _parameter(name: str, spec: Any, width: int | None = None) -> Any:
    """A model variable from a prior spec: a ``.dist()`` (registered as ``name``, with
    ``width`` independent copies if given), a tensor (used as is) or a number (fixed)."""
    if _is_dist(spec):
        if width is not None:
            spec = change_dist_size(spec, (width,))
        return pm.modelcontext(None).register_rv(spec, name)
    if isinstance(spec, pt.Variable):
        return spec
    value = np.asarray(spec, dtype=float)
    if not np.all(np.isfinite(value)) or (np.any(value < 0) and name != "mean"):
        raise ValueError(f"A fixed {name} must be finite and >= 0; got {value.tolist()}.")
    return value


def _is_dist(spec: Any) -> bool:
    """True for an unregistered distribution made with ``pm.<Dist>.dist(...)``."""
    if not isinstance(spec, pt.TensorVariable) or spec.owner is None:
        return False
    model = pm.Model.get_context(error_if_none=False)
    if model is not None and spec in model.named_vars.values():
        return False
    return isinstance(spec.owner.op, RandomVariable | SymbolicRandomVariable)


# -- the Gaussian marginal likelihood with a cheap gradient ------------------------------------
_LOG_2PI = float(np.log(2.0 * np.pi))


def _gaussian_logp_graph(r: pt.TensorVariable, cov: pt.TensorVariable) -> pt.TensorVariable:
    chol = pt.linalg.cholesky(cov, lower=True)
    v = pt.linalg.solve_triangular(chol, r, lower=True, b_ndim=1)
    n = pt.cast(r.shape[0], "float64")
    return -0.5 * (pt.sum(pt.square(v)) + n * _LOG_2PI) - pt.sum(pt.log(pt.diagonal(chol)))


def _gaussian_logp_pullback(inputs: list, outputs: list, output_grads: list) -> list:
    r"""∂/∂r = −α and ∂/∂K = ½(ααᵀ − K⁻¹), α = K⁻¹ r, from one Cholesky factor."""
    r, cov = inputs
    (g,) = output_grads
    chol = pt.linalg.cholesky(cov, lower=True)
    alpha = pt.linalg.cho_solve((chol, True), r, b_ndim=1)
    return [-g * alpha, (0.5 * g) * (pt.outer(alpha, alpha) - cholesky_inverse(chol))]


_r = pt.vector("r", dtype="float64")
_cov = pt.matrix("cov", dtype="float64")
_GaussianLogp = OpFromGraph(
    [_r, _cov],
    [_gaussian_logp_graph(_r, _cov)],
    pullback=_gaussian_logp_pullback,
    inline=True,
    name="GaussianLogp",
)


def gaussian_logp(value: Any, mu: Any, cov: Any) -> pt.TensorVariable:
    r"""log N(value | mu, cov) for one vector, with a gradient that costs one inverse.

    .. math::

        \log p = -\tfrac12 r^\top K^{-1} r - \tfrac12 \log\det K - \tfrac n2 \log 2\pi,
        \qquad \frac{\partial \log p}{\partial K} = \tfrac12(\alpha\alpha^\top - K^{-1}),

    with r = value − mu and α = K⁻¹ r. The value equals ``pm.MvNormal``'s; the gradient is
    written out (one Cholesky factor, reused, and K⁻¹ by ``cho_solve``) instead of being
    propagated through the Cholesky factorisation, which costs about twice the floating
    point work and makes a much larger graph (slower to compile). -inf where ``cov`` is not
    positive definite, as ``pm.MvNormal``.
    """
    value, mu, cov = (pt.as_tensor_variable(v) for v in (value, mu, cov))
    if value.ndim != 1 or cov.ndim != 2:
        return pm.MvNormal.logp(value, mu, cov)
    r = pt.cast(value - mu, "float64")
    cov = pt.cast(cov, "float64")
    posdef = pt.all(pt.gt(pt.diagonal(pt.linalg.cholesky(cov, lower=True)), 0.0))
    return check_parameters(_GaussianLogp(r, cov), posdef, msg="posdef covariance")


class _MarginalNormalRV(MvNormalRV):
    """``MvNormalRV`` under its own type, so that its log density can be :func:`gaussian_logp`."""

    _print_name = ("MvNormal", "\\operatorname{MvNormal}")


class MarginalNormal(pm.MvNormal):
    """``pm.MvNormal`` (same draws, same density) whose log density is :func:`gaussian_logp`."""

    rv_op = _MarginalNormalRV(method="cholesky")

    @staticmethod
    def logp(value: Any, mu: Any, cov: Any) -> pt.TensorVariable:
        return gaussian_logp(value, mu, cov)


class Marginal(pm.gp.Marginal):
    """``pm.gp.Marginal`` whose likelihood is :class:`MarginalNormal` (cheaper gradient).

    Everything else (``conditional``, ``predict``, the stored ``X``, ``y``, ``sigma``) is
    PyMC's. :func:`build_model` uses it.
    """

    def marginal_likelihood(
        self, name: str, X: Any, y: Any, sigma: Any, jitter: float = 1e-6, **kwargs: Any
    ) -> pt.TensorVariable:
        """As ``pm.gp.Marginal.marginal_likelihood``, with :class:`MarginalNormal` for y."""
        noise = (
            sigma if isinstance(sigma, pm.gp.cov.BaseCovariance) else pm.gp.cov.WhiteNoise(sigma)
        )
        mu, cov = self._build_marginal_likelihood(X=X, noise_func=noise, jitter=jitter)
        self.X, self.y, self.sigma = X, y, noise
        return MarginalNormal(name, mu=mu, cov=cov, observed=y, **kwargs)


def build_model(
    X: Any,
    y: Any,
    *,
    psi: Any = None,
    kernel: str | type[pm.gp.cov.Stationary] | pm.gp.cov.Covariance = "matern52",
    priors: str | Mapping[str, Any] = "default",
    mean: str = "constant",
    ard: bool = False,
    jitter: float = 1e-6,
    name: str = "y",
    **overrides: Any,
) -> tuple[pm.Model, pm.gp.Marginal]:
    r"""Build a GP regression model with a VSK (or stationary) covariance.

    Parameters
    ----------
    X : array, shape (n, d)
        Training inputs (a column for 1-D data).
    y : array, shape (n,)
        Observations.
    psi : ScalingFunction or callable, optional
        Scaling function; ``None`` gives the stationary model with the same base kernel and
        priors.
    kernel : str, Stationary class or Covariance instance, default "matern52"
        Base kernel by name (``"expquad"``, ``"matern12"``, ``"matern32"``, ``"matern52"``,
        ``"exponential"``, ``"ratquad"``) or class: the model puts a prior on its length
        scale. A covariance *instance* is used as it is (its ``input_dim`` must fit the
        lifted inputs) and no length-scale variable is created.
    priors : {"default", "flat"} or dict, default "default"
        Prior family (see the module docstring) or a dict with entries ``ls``, ``sigma_f``,
        ``sigma_n``, ``mean`` overriding the defaults.
    mean : {"constant", "zero"}, default "constant"
        Constant mean with a prior (as ``fitrgp``), or zero mean.
    ard : bool, default False
        One length scale per lifted coordinate ([x, ψ(x)]: d + q of them) instead of one.
    jitter : float, default 1e-6
        Added to the diagonal of the covariance for numerical stability (PyMC's default).
    name : str, default "y"
        Name of the observed variable; the data containers are ``X`` and ``{name}_data``.
    **overrides
        ``ls=``, ``sigma_f=``, ``sigma_n=``, ``mean=`` as numbers (fixed; ``sigma_n=0`` for
        interpolation) or ``.dist()`` priors; they take precedence over ``priors``.

    Returns
    -------
    model : pm.Model
        Built inside the current model context if there is one (so ψ's parameters can be
        random variables created beforehand), else a new model.
    gp : Marginal
        The GP, a ``pm.gp.Marginal`` whose likelihood has a cheaper gradient (:class:`Marginal`);
        use it for ``conditional``/``predict`` or with :mod:`pymc_vsk.prediction`.

    Examples
    --------
    >>> from pymc_vsk import build_model, targets
    >>> from pymc_vsk.scaling import Jump
    >>> X = targets.halton_nodes(27)
    >>> model, gp = build_model(X, targets.jump(X), psi=Jump(0.5), priors="flat")
    >>> sorted(v.name for v in model.free_RVs)
    ['ls', 'mean', 'sigma_f', 'sigma_n']
    """
    unknown = set(overrides) - set(PARAMETERS)
    if unknown:
        raise TypeError(f"Unknown keyword(s) {sorted(unknown)}; parameters are {list(PARAMETERS)}.")
    if mean not in ("constant", "zero"):
        if "mean" not in overrides:
            raise ValueError(f"mean must be 'constant' or 'zero'; got {mean!r}.")
    X_np, y_np = check_data(X, y, sigma_n=overrides.get("sigma_n"))
    d = X_np.shape[1]
    specs = _resolve_priors(priors, X_np, y_np)
    specs.update(overrides)

    model = pm.Model.get_context(error_if_none=False)
    context = model if model is not None else pm.Model()
    with context as model:
        X_data = pm.Data("X", X_np)
        y_data = pm.Data(f"{name}_data", y_np)
        cov = _covariance(kernel, psi, d, specs, ard)
        sigma_f = _parameter("sigma_f", specs["sigma_f"])
        sigma_n = _parameter("sigma_n", specs["sigma_n"])
        if isinstance(sigma_n, np.ndarray):  # fixed: a data container, changeable later
            sigma_n = pm.Data("sigma_n", sigma_n)
        if mean == "constant":
            mean_func = pm.gp.mean.Constant(_parameter("mean", specs["mean"]))
        else:
            mean_func = pm.gp.mean.Zero()
        gp = Marginal(mean_func=mean_func, cov_func=sigma_f**2 * cov)
        gp.marginal_likelihood(name, X=X_data, y=y_data, sigma=sigma_n, jitter=jitter)
    return model, gp


def _resolve_priors(priors: str | Mapping[str, Any], X: np.ndarray, y: np.ndarray) -> dict:
    if isinstance(priors, str):
        if priors == "default":
            return default_priors(X, y)
        if priors == "flat":
            return _flat_priors()
        raise ValueError(f"priors must be 'default', 'flat' or a dict; got {priors!r}.")
    unknown = set(priors) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"Unknown prior(s) {sorted(unknown)}; parameters are {list(PARAMETERS)}.")
    return {**default_priors(X, y), **priors}


def _covariance(kernel: Any, psi: Any, d: int, specs: dict, ard: bool) -> pm.gp.cov.Covariance:
    q = 0 if psi is None else as_scaling_function(psi).q
    if isinstance(kernel, pm.gp.cov.Covariance):
        base = kernel
    else:
        cls = _kernel_class(kernel)
        ls = _parameter("ls", specs["ls"], width=d + q if ard else None)
        extra = {"alpha": 2.0} if cls is pm.gp.cov.RatQuad else {}
        base = cls(d + q, ls=ls, **extra)
    return base if psi is None else VSK(base, psi)


def _kernel_class(kernel: Any) -> type[pm.gp.cov.Stationary]:
    if isinstance(kernel, str):
        key = kernel.lower().replace("_", "").replace("-", "")
        if key not in KERNELS:
            raise ValueError(f"Unknown kernel {kernel!r}; choose one of {sorted(KERNELS)}.")
        return KERNELS[key]
    if isinstance(kernel, type) and issubclass(kernel, pm.gp.cov.Stationary):
        return kernel
    raise TypeError(
        "kernel must be a name, a pm.gp.cov.Stationary subclass or a covariance instance; "
        f"got {kernel!r}."
    )


def set_data(model: pm.Model, X: Any, y: Any, name: str = "y") -> None:
    """Swap the training data of a :func:`build_model` model without rebuilding or recompiling.

    ``X`` and ``y`` may change length. They are checked as in :func:`build_model`. Priors
    scaled to the data keep the scales of the data the model was built with.
    """
    sigma_n = model.named_vars.get("sigma_n")
    fixed = sigma_n.get_value() if sigma_n in model.data_vars else None
    X_np, y_np = check_data(X, y, sigma_n=fixed)
    old = model["X"].get_value()
    if X_np.shape[1] != old.shape[1]:
        raise ValueError(
            f"X has {X_np.shape[1]} column(s) but the model was built for {old.shape[1]}."
        )
    pm.set_data({"X": X_np, f"{name}_data": y_np}, model=model)
