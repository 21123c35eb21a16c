r"""One-call GP regression models: VSK or stationary, with priors scaled to the data.

:func:`build_model` returns an ordinary ``pm.Model`` and the GP (a ``pm.gp.Marginal``), with
the model of eq. (15)

.. math::

    y_i = m + f(x_i) + \varepsilon_i, \quad
    f \sim \mathcal{GP}\big(0,\ \sigma_f^2\,\kappa^{\Psi}_{\ell}\big), \quad
    \varepsilon_i \sim \mathcal{N}(0, \sigma_n^2),

where κ^Ψ is a VSK (or the stationary base kernel when ``psi=None``, so every comparison is
like for like). Users who write their own PyMC model need none of this module.

The hyper-parameters and their default priors, scaled to the data, are made by
:mod:`pymc_vsk.priors` (shared with :mod:`pymc_vsk.jumps`); the Gaussian likelihood with its
cheaper gradient is :class:`pymc_vsk.likelihood.Marginal`. ``priors="flat"`` makes the MAP
estimate the maximum-likelihood estimate, as MATLAB's ``fitrgp`` in the paper.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor.tensor as pt
import scipy.spatial

from pymc_vsk.arrays import as_float_array, check_finite, check_flag
from pymc_vsk.covariance import VSK, exact_distances, warn_if_constant
from pymc_vsk.fitting import record_units, recorded_units
from pymc_vsk.kernels import is_radial
from pymc_vsk.likelihood import Marginal, MarginalNormal, gaussian_logp
from pymc_vsk.memory import check_dense
from pymc_vsk.priors import (
    PARAMETERS,
    UNIT_DRIFT,
    PriorSpec,
    Standardized,
    base_kernel,
    check_mean,
    data_prior_values,
    data_priors,
    default_priors,
    defaulted,
    inverse_gamma_for_range,
    mean_function,
    node_scales,
    positive_scale,
    resolve_priors,
    signal_and_noise,
    y_scale,
)
from pymc_vsk.scaling import ScalingFunction, as_scaling_function
from pymc_vsk.validation import check_inputs, check_jitter, require_float64

__all__ = [
    "DataWarning",
    "Marginal",
    "MarginalNormal",
    "build_model",
    "check_data",
    "default_priors",
    "gaussian_logp",
    "inverse_gamma_for_range",
    "node_scales",
    "require_float64",
    "set_data",
]


class DataWarning(UserWarning):
    """Data that can be fitted but probably not as intended (constant y, ...)."""


def check_data(
    X: npt.ArrayLike, y: npt.ArrayLike, sigma_n: PriorSpec | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Check training data and return them as float arrays ``X (n, d)``, ``y (n,)``.

    Parameters
    ----------
    X : array-like, shape (n, d)
        Training inputs.
    y : array-like, shape (n,) or (n, 1)
        Observations.
    sigma_n : number or tensor, optional
        The noise standard deviation if fixed; ``0`` makes duplicate nodes an error.

    Returns
    -------
    X : ndarray, shape (n, d)
    y : ndarray, shape (n,)

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
    X = as_float_array(X, "X")
    if X.ndim == 1:
        raise ValueError(
            f"X must be a 2-D array of shape (n, d); got shape {X.shape}. "
            "For 1-D inputs pass X[:, None] (a column)."
        )
    check_inputs(X, X.shape[1] if X.ndim == 2 else 0, name="X", owner="the model")
    y = as_float_array(y, "y")
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
        _check_near_duplicates(X)
    return X, y


#: Nodes closer than this fraction of the span of X count as near-duplicates when σ_n = 0.
NEAR_DUPLICATE = 1e-8


def _check_near_duplicates(X: np.ndarray) -> None:
    """Refuse nodes closer than ``NEAR_DUPLICATE`` × span when the model interpolates (σ_n = 0)."""
    span = float(np.max(np.ptp(X, axis=0))) if len(X) > 1 else 0.0
    if span == 0.0:
        return
    dist, index = scipy.spatial.cKDTree(X).query(X, k=2)
    i = int(np.argmin(dist[:, 1]))
    if dist[i, 1] < NEAR_DUPLICATE * span:
        j = int(index[i, 1])
        raise ValueError(
            f"X has near-duplicate nodes (rows {min(i, j)} and {max(i, j)} are "
            f"{dist[i, 1]:.3g} apart, {dist[i, 1] / span:.2g} of the span of X) and sigma_n = 0: "
            "interpolating two observations that close makes the covariance numerically "
            "singular. Average or merge near-duplicate nodes, let σ_n be positive or raise the "
            "jitter."
        )


def build_model(
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    psi: ScalingFunction | Callable | None = None,
    kernel: str | type[pm.gp.cov.Stationary] | pm.gp.cov.Covariance = "matern52",
    priors: str | Mapping[str, PriorSpec] = "default",
    mean: str | PriorSpec = "constant",
    ard: bool = False,
    jitter: float | None = None,
    standardize: bool = True,
    name: str = "y",
    **overrides: PriorSpec,
) -> tuple[pm.Model, Marginal]:
    r"""Build a GP regression model with a VSK (or stationary) covariance.

    Parameters
    ----------
    X : array-like, shape (n, d)
        Training inputs (a column for 1-D data).
    y : array-like, shape (n,)
        Observations.
    psi : ScalingFunction or callable, optional
        Scaling function; ``None`` gives the stationary model with the same base kernel and
        priors.
    kernel : str, Stationary class or Covariance instance, default "matern52"
        Base kernel by name (any of :func:`pymc_vsk.kernels.base_kernels`: ``"expquad"``,
        ``"matern12"``, ``"matern32"``, ``"matern52"``, ``"exponential"``, ``"ratquad"``
        with α = 2, ...) or class: the model puts a prior on its length scale. A covariance
        *instance* is used as it is (its ``input_dim`` must fit the lifted inputs) and no
        length-scale variable is created: ``ls`` and ``ard=True`` are then refused.
    priors : {"default", "flat"} or dict, default "default"
        Prior family (see :mod:`pymc_vsk.priors`; ``"flat"`` makes MAP the maximum-likelihood
        fit of MATLAB's ``fitrgp``) or a dict with entries ``ls``, ``sigma_f``, ``sigma_n``,
        ``mean`` overriding the defaults.
    mean : {"constant", "zero"}, number, tensor, ``.dist()`` or Mean, default "constant"
        ``"constant"``: a constant mean with a prior (as ``fitrgp``'s constant basis);
        ``"zero"``: zero mean; a number: a constant mean fixed at that value; a tensor or
        ``.dist()``: a constant mean given by it (one value); a ``pm.gp.mean.Mean``
        (``Linear``, ...) is used as it is.
    ard : bool, default False
        One length scale per lifted coordinate ([x, ψ(x)]: d + q of them) instead of one;
        the default prior of each spans its own coordinate's range (a column's length scale
        follows that column's units, :func:`pymc_vsk.priors.coordinate_scales`).
    jitter : float, optional
        Nugget added to the diagonal of the covariance for numerical stability; a warning
        (:class:`DataWarning`) says when it exceeds 1 % of the variance of y. With
        ``standardize=True`` it is relative to the data: the diagonal gets ``jitter · sd(y)²``
        (sd of the current data container, so :func:`set_data` updates it)
        (default ``jitter=1e-6``: 10⁻⁶ of the variance of y, the same share of the data at
        any units). With ``standardize=False`` it is absolute (default 1e-6, PyMC's). The
        value used (a number, or a tensor of the data) is ``gp.jitter``, which
        :func:`pymc_vsk.prediction.predict` and :func:`pymc_vsk.loo.add_log_likelihood` reuse;
        a ``jitter`` given to them is relative in the same way (``gp.jitter_unit``).
    standardize : bool, default True
        Make the model free of units (see Notes). ``False`` gives the paper's model as
        written: the kernel sees [x, ψ(x)], PyMC's stationary kernels and an absolute jitter.
    name : str, default "y"
        Name of the observed variable; the data containers are ``X`` and ``{name}_data``.
        The other variables keep their names (``ls``, ``sigma_f``, ``sigma_n``, ``mean``,
        ``{parameter}_prior_{i}``), so one model context holds one :func:`build_model`.
    **overrides
        ``ls=``, ``sigma_f=``, ``sigma_n=`` as numbers (fixed; ``sigma_n=0`` for
        interpolation; a fixed ``sigma_n`` may be one value per observation), tensors or
        ``.dist()`` priors; they take precedence over ``priors``. ``sigma_f``, ``sigma_n``
        and the mean take one value each, ``ls`` one or (``ard=True``) one per lifted
        coordinate.

    Returns
    -------
    model : pm.Model
        Built inside the current model context if there is one (so ψ's parameters can be
        random variables created beforehand), else a new model.
    gp : Marginal
        The GP, a ``pm.gp.Marginal`` whose likelihood has a cheaper gradient (:class:`Marginal`);
        use it for ``conditional``/``predict`` or with :mod:`pymc_vsk.prediction`.

    Raises
    ------
    MemoryError
        If the dense n × n covariance, stationary or VSK, exceeds the memory limit
        (:mod:`pymc_vsk.memory`).
    RuntimeError
        If pytensor's ``floatX`` is not float64 (:func:`require_float64`).
    TypeError
        An unknown keyword, ``standardize`` not a bool, or a fixed ``ls``, ``sigma_f``,
        ``sigma_n`` or mean that is not
        numeric (text such as ``"0.1"``, a bool, ``None``), or text in ``X`` or ``y``.
    ValueError
        Bad data (:func:`check_data`), a ``jitter`` that is not one number of at least 0,
        several values for a one-value hyper-parameter, ``ls``
        or ``ard=True`` with a kernel instance, or a variable name that ``name`` or the model
        in context already uses.

    Warns
    -----
    DataWarning
        Constant ``y``, or a jitter above 1 % of the variance of y (a noise floor larger
        than a tenth of sd(y): with ``standardize=False`` PyMC's absolute 1e-6 on y of sd
        below 0.01).
    NegligibleScalingWarning
        When a fixed ψ is constant over ``X`` (a jump outside the data or in other units), and
        from the VSK when a fixed ``ls`` makes ψ negligible (see :class:`pymc_vsk.VSK`).

    Notes
    -----
    With ``standardize=True`` (the default) the model gives the same answer in any units:
    under x → a·x + b and y → c·y + d the fitted ℓ scales by ``|a|``, σ_f and σ_n by ``|c|``, the
    mean maps as m → c·m + d and predictions map back exactly. The free variables stay in
    the user's units, with priors scaled to the data (:func:`pymc_vsk.priors.default_priors`);
    what is standardised is internal:

    * the lifted coordinate is s·ψ(x) with s the largest column span of X
      (:func:`pymc_vsk.priors.x_scale`, of the current data container), so ψ's amplitude
      is relative to the data's x-range (amplitude 1: a jump as large as the x-range) and
      the kernel of eq. (13) compares s·ψ with ℓ in the same units (see
      :class:`pymc_vsk.VSK`);
    * kernel distances, stationary ones included (:class:`pymc_vsk.covariance.ExactDistances`),
      are summed from coordinate differences (x − x')/ℓ, exact at any offset b;
    * the jitter is relative to sd(y)²;
    * a random constant mean is sampled and optimised as z = (m − mean(y)) / sd(y)
      (:class:`pymc_vsk.priors.Standardized`; its draws are m, in the user's units), so that
      the samplers' initial jitter is a few sd(y) in any units; the scale sd(y) of the mean is
      recorded for :func:`pymc_vsk.fit_map`, which optimises in coordinates free of units.

    Examples
    --------
    >>> from pymc_vsk import build_model, targets
    >>> from pymc_vsk.scaling import Jump
    >>> X = targets.halton_nodes(27)
    >>> model, gp = build_model(X, targets.jump(X), psi=Jump(0.5), priors="flat")
    >>> sorted(v.name for v in model.free_RVs)
    ['ls', 'mean', 'sigma_f', 'sigma_n']
    >>> model, gp = build_model(X, targets.jump(X), psi=Jump(0.5), mean=1.5)
    >>> sorted(v.name for v in model.free_RVs)
    ['ls', 'sigma_f', 'sigma_n']
    """
    unknown = set(overrides) - set(PARAMETERS)
    if unknown:
        raise TypeError(f"Unknown keyword(s) {sorted(unknown)}; parameters are {list(PARAMETERS)}.")
    check_mean(mean)
    standardize = check_flag(standardize, "standardize")
    instance = isinstance(kernel, pm.gp.cov.Covariance)
    if instance and ("ls" in overrides or (isinstance(priors, Mapping) and "ls" in priors) or ard):
        raise ValueError(
            "A kernel instance brings its own length scale(s): ls= (or priors['ls']) and "
            "ard=True apply to a kernel given by name or class. Set the length scale in the "
            "instance, or pass the class (kernel=pm.gp.cov.Matern52) to give ls a prior."
        )
    if not isinstance(name, str) or not name:
        raise ValueError(
            f"name must be the observed variable's name, a non-empty string; got {name!r}."
        )
    if name in ("X", *PARAMETERS):
        raise ValueError(
            f"name={name!r} is one of build_model's own variable names (X, "
            f"{', '.join(PARAMETERS)}); choose another name for the observed variable."
        )
    require_float64("build_model")
    given = priors if isinstance(priors, Mapping) else {}
    X_np, y_np = check_data(X, y, sigma_n=overrides.get("sigma_n", given.get("sigma_n")))
    check_dense(len(X_np), len(X_np), f"A dense GP on {len(X_np)} points")
    psi = None if psi is None else as_scaling_function(psi)  # once per model
    if psi is not None:
        warn_if_constant(psi, X_np)
    q = 0 if psi is None else psi.q
    ard_width = X_np.shape[1] + q if ard else None
    specs = resolve_priors(priors, X_np, y_np, overrides, ard_width)
    jitter = 1e-6 if jitter is None else check_jitter(jitter, "the default 1e-6")
    _warn_if_jitter_swamps(jitter, y_np, standardize)

    model = pm.Model.get_context(error_if_none=False)
    context = model if model is not None else pm.Model()
    with context as model:
        _check_names_free(model, name)
        X_data = pm.Data("X", X_np)
        y_data = pm.Data(f"{name}_data", y_np)
        used = [
            name
            for name in defaulted(priors, overrides)
            if not (name == "mean" and not (isinstance(mean, str) and mean == "constant"))
            and not (name == "ls" and isinstance(kernel, pm.gp.cov.Covariance))
        ]
        specs |= data_priors(specs, used)  # set_data renews them
        cov = base_kernel(kernel, X_np.shape[1] + q, specs, ard)
        # relative to sd(y)², read from the data containers, so set_data updates it
        jitter_unit = pt.square(positive_scale(pt.std(y_data))) if standardize else 1.0
        jitter = jitter * jitter_unit
        if psi is not None:
            s = positive_scale(pt.max(pt.ptp(X_data, axis=0))) if standardize else 1.0
            cov = VSK(cov, psi, psi_scale=s)
        elif standardize and _is_radial_instance(cov):
            cov = exact_distances(cov)
        sigma_f, sigma_n = signal_and_noise(specs, len(y_np))
        if isinstance(sigma_n, np.ndarray):  # fixed: a data container, changeable later
            sigma_n = pm.Data("sigma_n", sigma_n)
        # ``cov * σ_f²`` rather than ``σ_f² * cov``: the tensor's ``__mul__`` would first try
        # to convert the kernel to a tensor, building an error message from its repr, which
        # evaluates the kernel's parameters (a compilation) before giving up.
        mean_func = mean_function(mean, specs, y_np if standardize else None)
        gp = Marginal(mean_func=mean_func, cov_func=cov * sigma_f**2)
        gp.marginal_likelihood(name, X=X_data, y=y_data, sigma=sigma_n, jitter=jitter)
        gp.jitter_unit = jitter_unit  # what a jitter given to predict is relative to
    scales = {"mean": y_scale(y_np)} if standardize else {}
    record_units(model, scales, cov if isinstance(cov, VSK) else None, gp)
    return model, gp


#: The largest jitter, as a share of the variance of y, that :func:`build_model` takes silently.
JITTER_SHARE = 0.01


def _warn_if_jitter_swamps(jitter: float, y: np.ndarray, standardize: bool) -> None:
    """Warn when the nugget exceeds :data:`JITTER_SHARE` of the variance of y.

    The jitter adds to σ_n² on the diagonal of eq. (15)'s covariance: above 1 % of var(y) it is
    a noise floor of more than 0.1 sd(y), which smooths the fit whatever σ_n is.
    """
    variance = float(np.var(y))
    if variance == 0.0:  # constant y: check_data has warned
        return
    share = jitter if standardize else jitter / variance
    if share > JITTER_SHARE:
        kind, fix = (
            ("relative to the variance of y", "leave jitter out (1e-6 of the variance of y)")
            if standardize
            else (
                "absolute with standardize=False",
                "pass standardize=True (a jitter relative to the variance of y) or "
                "jitter=1e-6 * np.var(y)",
            )
        )
        warnings.warn(
            f"The jitter is {share:.3g} times the variance of y ({kind}): a noise floor of "
            f"{np.sqrt(share):.2g} sd(y) on the diagonal of the covariance, which swamps the "
            f"data's own spread. Unless that is meant, {fix}.",
            DataWarning,
            stacklevel=3,
        )


def _check_names_free(model: pm.Model, name: str) -> None:
    """Refuse, before anything is built, a model in context that already has the data
    containers and the observed variable that :func:`build_model` creates first (a second
    :func:`build_model` in one model)."""
    clash = [v for v in ("X", f"{name}_data", name) if v in model.named_vars]
    if clash:
        raise ValueError(
            f"The model in context already has {clash}, which build_model would create: build "
            "one build_model per pm.Model (a second GP in one model can be written with "
            "pymc_vsk.VSK and pm.gp.Marginal), or rename your variable."
        )


def _is_radial_instance(cov: pm.gp.cov.Covariance) -> bool:
    return isinstance(cov, pm.gp.cov.Stationary) and is_radial(type(cov))


def set_data(model: pm.Model, X: npt.ArrayLike, y: npt.ArrayLike, name: str = "y") -> None:
    """Swap the training data of a :func:`build_model` model without rebuilding or recompiling.

    ``X`` and ``y`` may change length. They are checked as in :func:`build_model`. The
    default priors are scaled to the new data (their parameters are data containers,
    :func:`pymc_vsk.priors.data_priors`); priors you gave stay as they are. The model's own
    units (the jitter, ψ's scale) follow the new data, and :func:`pymc_vsk.fit_map`
    optimises the mean in units of the new sd(y), so that a MAP fit is that of a model
    built on the new data. NUTS samples the mean in units of the sd(y) the model was built
    with (:class:`pymc_vsk.priors.Standardized`): a warning says so when the new sd differs
    by more than a factor of :data:`~pymc_vsk.priors.UNIT_DRIFT` (4).

    Parameters
    ----------
    model : pm.Model
        A model made by :func:`build_model`.
    X : array-like, shape (n, d)
        New inputs, with the model's number of columns.
    y : array-like, shape (n,)
        New observations.
    name : str, default "y"
        The ``name`` the model was built with.

    Raises
    ------
    ValueError
        Bad data (as :func:`check_data`), another number of columns, a model without the data
        container ``{name}_data``, or a fixed ``sigma_n`` of one value per observation and
        data of another length.
    TypeError
        If ``model`` is not a ``pm.Model``.
    """
    if not isinstance(model, pm.Model):
        raise TypeError(
            "set_data takes the model made by build_model (the first value it returns); got "
            f"{type(model).__name__}."
        )
    if f"{name}_data" not in model.named_vars:
        built = [v.name for v in model.observed_RVs if f"{v.name}_data" in model.named_vars]
        fix = (
            f"pass the name it was built with (name={built[0]!r})"
            if built
            else "was it made by build_model?"
        )
        raise ValueError(f"The model has no data container {name + '_data'!r}: {fix}.")
    sigma_n = model.named_vars.get("sigma_n")
    fixed = sigma_n.get_value() if sigma_n in model.data_vars else None
    X_np, y_np = check_data(X, y, sigma_n=fixed)
    if np.size(fixed) > 1 and np.size(fixed) != len(y_np):
        raise ValueError(
            f"sigma_n is fixed at {np.size(fixed)} values, one per observation, but the new data "
            f"have {len(y_np)} observations: build a new model on these data (build_model)."
        )
    old = model["X"].get_value()
    if X_np.shape[1] != old.shape[1]:
        raise ValueError(
            f"X has {X_np.shape[1]} column(s) but the model was built for {old.shape[1]}."
        )
    priors = data_prior_values(model, X_np, y_np)
    pm.set_data({"X": X_np, f"{name}_data": y_np, **priors}, model=model)
    units = recorded_units(model)
    if units.vsk is not None:
        warn_if_constant(units.vsk.psi, X_np)
    scales = units.scales
    if "mean" in scales:  # the scale fit_map divides the mean by, as build_model records it
        scales["mean"] = y_scale(y_np)
    mean = model.named_vars.get("mean")
    transform = model.rvs_to_transforms.get(mean) if mean is not None else None
    if isinstance(transform, Standardized):
        ratio = y_scale(y_np) / transform.scale
        if not 1 / UNIT_DRIFT <= ratio <= UNIT_DRIFT:
            warnings.warn(
                f"The new y's sd is {ratio:.3g} times that of the data the model was built "
                "with, and the model samples its mean in units of the old sd: fit_map "
                "adapts to the new data, but NUTS's first steps would start many sds away. "
                "For NUTS, build a new model on these data (build_model).",
                UserWarning,
                stacklevel=2,
            )
