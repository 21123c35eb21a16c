r"""Hyper-parameters of the GP regression models: default priors scaled to the data.

The models of :func:`pymc_vsk.build_model` and :func:`pymc_vsk.jumps.build_jump_model` have
the hyper-parameters of eq. (15): the length scale(s) ``ls`` of the base kernel, the signal
standard deviation ``sigma_f``, the noise standard deviation ``sigma_n`` and a constant mean
``mean``. This module creates them, for both.

Default priors (``priors="default"``), scaled to the data (those given at build time, and
those :func:`pymc_vsk.set_data` swaps in: their parameters sit in data containers
``{name}_prior_{i}``, :func:`data_priors`):

* ``ls`` ~ InverseGamma(α, β), with 1 % of its mass below the smallest distance between two
  nodes and 1 % above the largest (the span of the data): length scales the data cannot
  inform are unlikely, and the tails are light at both ends;
* ``sigma_f`` ~ HalfNormal(2 · sd(y));
* ``sigma_n`` ~ HalfNormal(sd(y));
* ``mean`` ~ Normal(mean(y), 2 · sd(y)).

``priors="flat"`` puts improper flat priors (``HalfFlat``/``Flat``) on all of them. The MAP
estimate is then the maximum-likelihood estimate, which is what MATLAB's ``fitrgp`` computes
(its default fit method maximises the marginal likelihood over the kernel parameters, the
noise standard deviation and the constant basis coefficient), the fits of the paper. Any
entry can be overridden by a number (a fixed value; ``sigma_n=0`` is interpolation), a
tensor, or a ``.dist()`` distribution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor.tensor as pt
import scipy.optimize
import scipy.spatial
import scipy.special
from pymc.distributions.distribution import SymbolicRandomVariable
from pymc.distributions.shape_utils import change_dist_size
from pymc.distributions.transforms import _default_transform
from pymc.logprob.transforms import Transform
from pytensor.graph.replace import clone_replace
from pytensor.tensor.random.op import RandomVariable

from pymc_vsk.arrays import as_float_array
from pymc_vsk.kernels import kernel_class, make_base_kernel

__all__ = [
    "MEAN_TYPES",
    "PARAMETERS",
    "UNIT_DRIFT",
    "PriorSpec",
    "Standardized",
    "base_kernel",
    "check_one_value",
    "coordinate_scales",
    "data_priors",
    "default_priors",
    "defaulted",
    "flat_priors",
    "inverse_gamma_for_range",
    "is_dist",
    "mean_function",
    "node_scales",
    "parameter",
    "positive_scale",
    "resolve_priors",
    "signal_and_noise",
    "x_scale",
    "y_scale",
]

#: The hyper-parameters of the models, by name.
PARAMETERS = ("ls", "sigma_f", "sigma_n", "mean")

#: The kinds of mean function by name: a constant with a prior, or zero.
MEAN_TYPES = ("constant", "zero")

#: A prior specification: a ``.dist()`` distribution, a tensor or a fixed number/array.
PriorSpec = pt.TensorVariable | float | npt.ArrayLike


def inverse_gamma_for_range(lower: float, upper: float, tail: float = 0.01) -> tuple[float, float]:
    """InverseGamma(α, β) with probability ``tail`` below ``lower`` and ``tail`` above ``upper``.

    Solved with scipy in log-parameters; used for the default length-scale prior.

    Parameters
    ----------
    lower, upper : float
        The range, ``0 < lower < upper``.
    tail : float, default 0.01
        Probability of each tail.

    Returns
    -------
    alpha, beta : float
        Shape and scale of the inverse gamma distribution.
    """
    if not 0 < lower < upper:
        raise ValueError(f"Need 0 < lower < upper; got lower={lower}, upper={upper}.")

    def residual(log_params: np.ndarray) -> np.ndarray:
        a, b = np.exp(log_params)
        # InverseGamma(a, b) cdf at x: Q(a, b/x), sf: P(a, b/x) (scipy.stats is slow to import)
        cdf, sf = scipy.special.gammaincc(a, b / lower), scipy.special.gammainc(a, b / upper)
        # a trial step may underflow a tail to 0 (log −inf): the solvers step back from it
        with np.errstate(divide="ignore"):
            return np.array([np.log(cdf / tail), np.log(sf / tail)])

    guess = np.log([3.0, 2.0 * lower * upper / (lower + upper) * 2.0])
    sol = scipy.optimize.root(residual, guess, method="hybr")
    if not sol.success or np.max(np.abs(residual(sol.x))) > 1e-6:
        sol = scipy.optimize.least_squares(residual, guess)
    a, b = np.exp(sol.x)
    return float(a), float(b)


def node_scales(X: npt.ArrayLike) -> tuple[float, float]:
    """Smallest distance between two distinct nodes and the span (diameter of the bounding box).

    O(n log n) with a k-d tree, so it is cheap for large n.

    Parameters
    ----------
    X : array-like, shape (n, d)

    Returns
    -------
    spacing, span : float
    """
    X = np.asarray(X, dtype=float)
    span = float(np.linalg.norm(np.ptp(X, axis=0)))
    unique = np.unique(X, axis=0)
    if len(unique) < 2:
        raise ValueError(
            "X needs at least two distinct nodes to set length-scale scales; give more data, "
            "or fix the length scale (ls=0.1) or give it a prior (ls=pm.InverseGamma.dist(...))."
        )
    nearest, _ = scipy.spatial.cKDTree(unique).query(unique, k=2)
    return float(nearest[:, 1].min()), span


def coordinate_scales(X: npt.ArrayLike, width: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`node_scales` per lifted coordinate, for one length scale per coordinate (ARD).

    Coordinate j < d is column j of ``X``: its smallest distance between two distinct values
    and its span, so that a column's length scale follows that column's units. A column with
    fewer than three distinct values, and the ψ coordinates j ≥ d, take the scales of the
    nodes (:func:`node_scales`).

    Parameters
    ----------
    X : array-like, shape (n, d)
    width : int
        Number of coordinates, d + q.

    Returns
    -------
    spacing, span : ndarray, shape (width,)

    Examples
    --------
    >>> X = np.c_[np.arange(5.0), 1000 * np.arange(5.0)]
    >>> spacing, span = coordinate_scales(X, 3)
    >>> spacing.round(4).tolist(), span.round(3).tolist()
    ([1.0, 1000.0, 1000.0005], [4.0, 4000.0, 4000.002])
    """
    X = np.asarray(X, dtype=float)
    spacing, span = np.full(width, np.nan), np.full(width, np.nan)
    for j in range(min(width, X.shape[1])):
        values = np.unique(X[:, j])
        if len(values) >= 3:
            spacing[j], span[j] = np.diff(values).min(), values[-1] - values[0]
    if np.isnan(spacing).any():
        spacing[np.isnan(spacing)], span[np.isnan(span)] = node_scales(X)
    return spacing, span


def x_scale(X: npt.ArrayLike) -> float:
    """The scale of the inputs: the largest span max_j (max x_j − min x_j) of a column.

    Parameters
    ----------
    X : array-like, shape (n, d)

    Returns
    -------
    float
        1 when every column is constant.
    """
    spans = np.ptp(np.asarray(X, dtype=float), axis=0)
    span = float(np.max(spans)) if spans.size else 0.0
    return _usable(span, "x's span", "X") if span > 0 else 1.0


def y_scale(y: npt.ArrayLike) -> float:
    """The scale of the observations: their standard deviation (1 for constant ``y``).

    Parameters
    ----------
    y : array-like, shape (n,)

    Returns
    -------
    float
    """
    y = np.asarray(y, dtype=float)
    with np.errstate(over="ignore", under="ignore"):
        sd = float(np.std(y))
        top = float(np.max(np.abs(y))) if y.size else 0.0
        if not USABLE_SCALES[0] < sd < USABLE_SCALES[1] and 0 < top < np.inf:
            sd = top * float(np.std(y / top))  # its square over- or underflowed
    return _usable(sd, "y's standard deviation", "y") if sd > 0 else 1.0


#: Scales of the data whose squares float64 holds with room to spare.
USABLE_SCALES = (1e-150, 1e150)


def _usable(scale: float, what: str, name: str) -> float:
    """``scale`` when its square (a variance, a squared distance) is a normal float64."""
    lo, hi = USABLE_SCALES
    if not lo < scale < hi:
        value = f"{scale:.3g}" if np.isfinite(scale) else "beyond float64's range"
        raise ValueError(
            f"{what} is {value}; the computations square it, so it must lie between {lo:g} "
            f"and {hi:g}: express {name} in other units (divide it by a power of ten) and "
            "convert the answers back."
        )
    return scale


def positive_scale(value: pt.TensorLike) -> pt.TensorVariable:
    """A scale of the data as a tensor (:func:`x_scale`, :func:`y_scale`): 1 where it is 0."""
    value = pt.as_tensor_variable(value)
    return pt.switch(pt.gt(value, 0.0), value, 1.0)


def default_priors(
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    ard_width: int | None = None,
    names: Sequence[str] = PARAMETERS,
) -> dict[str, pt.TensorVariable]:
    """The weakly-informative default priors for data ``X, y``, as ``.dist()`` objects.

    Parameters
    ----------
    X : array-like, shape (n, d)
    y : array-like, shape (n,)
    ard_width : int, optional
        With one length scale per lifted coordinate (ARD), their number d + q: each gets
        the range of its own coordinate (:func:`~pymc_vsk.priors.coordinate_scales`) instead
        of that of the nodes.
    names : sequence of str, default all of :data:`~pymc_vsk.priors.PARAMETERS`
        The priors wanted (the length scale's needs three distinct nodes; the others do not).

    Returns
    -------
    dict
        ``ls``, ``sigma_f``, ``sigma_n``, ``mean`` (see the module docstring), those of
        ``names``.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    x_scale(X)  # refuses a span whose square float64 cannot hold
    scale = y_scale(y)
    specs = {
        "sigma_f": pm.HalfNormal.dist(sigma=2.0 * scale),
        "sigma_n": pm.HalfNormal.dist(sigma=scale),
        "mean": pm.Normal.dist(mu=float(np.mean(y)), sigma=2.0 * scale),
    }
    if "ls" in names:
        specs["ls"] = _length_scale_prior(X, ard_width)
    return {name: specs[name] for name in PARAMETERS if name in names}


def _length_scale_prior(X: np.ndarray, ard_width: int | None) -> pt.TensorVariable:
    """InverseGamma with 1 % below the smallest node spacing and 1 % above the span."""
    spacing, span = node_scales(X)
    if not spacing < span:
        raise ValueError(
            f"The default length-scale prior needs at least three distinct nodes (it spans the "
            f"smallest node spacing to the span of X, both {span:g} here). Give more data, or "
            "fix the length scale (ls=0.1), give it a prior (ls=pm.InverseGamma.dist(...)) or "
            "use priors='flat'."
        )
    if ard_width is None:
        alpha, beta = inverse_gamma_for_range(spacing, span)
    else:
        ranges = zip(*coordinate_scales(X, ard_width), strict=True)
        alpha, beta = np.array([inverse_gamma_for_range(lo, hi) for lo, hi in ranges]).T
    return pm.InverseGamma.dist(alpha=alpha, beta=beta)


def defaulted(
    priors: str | Mapping[str, PriorSpec], overrides: Mapping[str, PriorSpec] | None = None
) -> list[str]:
    """The parameters whose prior :func:`resolve_priors` takes from :func:`default_priors`.

    Parameters
    ----------
    priors : {"default", "flat"} or dict
    overrides : dict, optional

    Returns
    -------
    list of str

    Examples
    --------
    >>> defaulted({"ls": 0.1}, {"sigma_n": 0.0})
    ['sigma_f', 'mean']
    >>> defaulted("flat")
    []
    """
    if isinstance(priors, str) and priors != "default":
        return []
    given = {} if isinstance(priors, str) else priors
    return [n for n in PARAMETERS if n not in given and n not in (overrides or {})]


def data_priors(
    specs: Mapping[str, pt.TensorVariable], names: Sequence[str]
) -> dict[str, pt.TensorVariable]:
    """The default priors ``specs[name]`` of ``names`` with each parameter in a data container.

    The containers, ``{name}_prior_{i}`` in the model in context, hold the parameters of
    :func:`default_priors`; ``data_prior_values`` (used by :func:`pymc_vsk.set_data`) gives them
    for new data.

    Parameters
    ----------
    specs : dict
        ``.dist()`` priors by name, those of ``names`` from :func:`default_priors`.
    names : sequence of str
        Names of :data:`PARAMETERS`.

    Returns
    -------
    dict
        ``.dist()`` priors by name.
    """
    out = {}
    for name in names:
        spec = specs[name]
        params = spec.owner.op.dist_params(spec.owner)
        swap = {
            p: pt.cast(pm.Data(f"{name}_prior_{i}", value), p.dtype)
            for i, (p, value) in enumerate(zip(params, _parameter_values(spec), strict=True))
        }
        out[name] = clone_replace(spec, swap)
    return out


def _parameter_values(spec: pt.TensorVariable) -> list[np.ndarray]:
    """The numeric parameters of a ``.dist()`` with constant parameters, in order."""
    return [np.asarray(p.data, dtype=float) for p in spec.owner.op.dist_params(spec.owner)]


def data_prior_values(model: pm.Model, X: npt.ArrayLike, y: npt.ArrayLike) -> dict[str, np.ndarray]:
    """New values of the containers of :func:`data_priors` in ``model``, for data ``X, y``.

    Parameters
    ----------
    model : pm.Model
    X : array-like, shape (n, d)
    y : array-like, shape (n,)

    Returns
    -------
    dict
        Container name → value (empty when the model has none).
    """
    names = [name for name in PARAMETERS if f"{name}_prior_0" in model.named_vars]
    if not names:
        return {}
    ls = model.named_vars.get("ls_prior_0")
    width = None if ls is None or np.ndim(ls.get_value()) == 0 else np.size(ls.get_value())
    values = {}
    for name, spec in default_priors(X, y, width, names).items():
        for i, value in enumerate(_parameter_values(spec)):
            if f"{name}_prior_{i}" in model.named_vars:
                values[f"{name}_prior_{i}"] = value
    return values


def flat_priors() -> dict[str, pt.TensorVariable]:
    """Improper flat priors on every hyper-parameter: MAP = maximum likelihood (``fitrgp``).

    Returns
    -------
    dict
        ``HalfFlat`` for ``ls``, ``sigma_f``, ``sigma_n``; ``Flat`` for ``mean``.
    """
    return {
        "ls": pm.HalfFlat.dist(),
        "sigma_f": pm.HalfFlat.dist(),
        "sigma_n": pm.HalfFlat.dist(),
        "mean": pm.Flat.dist(),
    }


def resolve_priors(
    priors: str | Mapping[str, PriorSpec],
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    overrides: Mapping[str, PriorSpec] | None = None,
    ard_width: int | None = None,
) -> dict[str, PriorSpec]:
    """The prior specification of every hyper-parameter.

    Parameters
    ----------
    priors : {"default", "flat"} or dict
        Prior family, or a dict of entries overriding the defaults.
    X, y : array-like
        Training data (for the default priors' scales).
    overrides : dict, optional
        Entries that take precedence over ``priors``.
    ard_width : int, optional
        See :func:`default_priors`.

    Returns
    -------
    dict
        One specification per name of :data:`PARAMETERS`.

    Raises
    ------
    ValueError
        An unknown family or parameter name.
    TypeError
        ``priors`` neither a name nor a dict.
    """
    if not isinstance(priors, str | Mapping):
        raise TypeError(
            "priors must be 'default', 'flat' or a dict of priors by parameter name "
            f"({', '.join(PARAMETERS)}); got {priors!r}."
        )
    for given in (priors if not isinstance(priors, str) else {}), (overrides or {}):
        unknown = set(given) - set(PARAMETERS)
        if unknown:
            raise ValueError(
                f"Unknown prior(s) {sorted(unknown)}; parameters are {list(PARAMETERS)}."
            )
    if isinstance(priors, str) and priors not in ("default", "flat"):
        raise ValueError(f"priors must be 'default', 'flat' or a dict; got {priors!r}.")
    if priors == "flat":
        return {**flat_priors(), **(overrides or {})}
    # only the defaults that are used: a fixed ℓ needs no length-scale prior from the nodes
    specs = default_priors(X, y, ard_width, defaulted(priors, overrides))
    return {**specs, **({} if isinstance(priors, str) else priors), **(overrides or {})}


def is_dist(spec: object) -> bool:
    """True for an unregistered distribution made with ``pm.<Dist>.dist(...)``.

    Parameters
    ----------
    spec : object
        A prior specification.

    Returns
    -------
    bool
        False for a variable already registered in the model in context.
    """
    if not isinstance(spec, pt.TensorVariable) or spec.owner is None:
        return False
    model = pm.Model.get_context(error_if_none=False)
    if model is not None and spec in model.named_vars.values():
        return False
    return isinstance(spec.owner.op, RandomVariable | SymbolicRandomVariable)


def parameter(
    name: str,
    spec: PriorSpec,
    shape: tuple[int, ...] | None = None,
    *,
    nonnegative: bool = True,
    positive: bool = False,
) -> pt.TensorVariable | np.ndarray:
    """A model variable from a prior specification, in the model in context.

    Parameters
    ----------
    name : str
        Name of the variable.
    spec : distribution, tensor or number
        A ``.dist()`` is registered as ``name`` (with ``shape`` if given); a tensor is used
        as it is; a number or array is a fixed value.
    shape : tuple of int, optional
        Shape of a registered distribution (e.g. one length scale per lifted coordinate).
    nonnegative : bool, default True
        Whether a fixed value must be >= 0.
    positive : bool, default False
        Whether a fixed value must be > 0 (a length scale).

    Returns
    -------
    TensorVariable or ndarray

    Raises
    ------
    TypeError
        A fixed value that is not numeric: ``None``, a bool, text (``"0.1"``), complex.
    ValueError
        A fixed value that is not finite, or below its bound.
    """
    if is_dist(spec):
        if shape:
            spec = change_dist_size(spec, shape)
        return pm.modelcontext(None).register_rv(spec, name)
    if isinstance(spec, pt.Variable):
        return spec
    if spec is None or np.asarray(spec).dtype == bool:  # True would be a value of 1
        raise TypeError(
            f"{name} must be a number (a fixed value), a tensor or a .dist() prior; got "
            f"{spec!r}. Leave {name} out for its default prior."
        )
    value = as_float_array(spec, name)
    if positive and not np.all(value > 0):
        raise ValueError(f"A fixed {name} must be > 0; got {value.tolist()}.")
    if not np.all(np.isfinite(value)) or (nonnegative and np.any(value < 0)):
        bound = "finite and >= 0" if nonnegative else "finite"
        raise ValueError(f"A fixed {name} must be {bound}; got {value.tolist()}.")
    return value


def check_one_value(name: str, spec: PriorSpec, n: int | None = None) -> None:
    """Refuse several values for a hyper-parameter that takes one (σ_f, σ_n, the mean).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    spec : distribution, tensor or number
        Its specification; a tensor of unknown static shape passes.
    n : int, optional
        A number of values allowed besides one (σ_n may be one per observation).

    Raises
    ------
    ValueError
        If ``spec`` holds more than one value (and not ``n``).
    """
    if isinstance(spec, pt.Variable):
        shape = spec.type.shape
        if any(s is None for s in shape):
            return
    else:
        shape = np.shape(spec)
    size = int(np.prod(shape))
    if size == 1 or size == n:
        return
    per_observation = "" if n is None else f" (or one per observation, {n} here)"
    raise ValueError(
        f"{name} takes one value{per_observation}; got {size} (shape {tuple(shape)}). Give one "
        "number to fix it, or a .dist() prior without shape= or size=."
    )


def base_kernel(
    kernel: str | type[pm.gp.cov.Stationary] | pm.gp.cov.Covariance,
    input_dim: int,
    specs: Mapping[str, PriorSpec],
    ard: bool = False,
) -> pm.gp.cov.Covariance:
    """The base kernel with its length-scale variable ``ls``.

    Parameters
    ----------
    kernel : str, Stationary subclass or Covariance
        Kernel by name or class (see :func:`pymc_vsk.kernels.base_kernels`); an instance is
        returned as it is, and no length-scale variable is made.
    input_dim : int
        Width of the kernel's inputs (d + q for a VSK).
    specs : dict
        Prior specifications (:func:`resolve_priors`).
    ard : bool, default False
        One length scale per input coordinate instead of one.

    Returns
    -------
    pm.gp.cov.Covariance

    Raises
    ------
    ValueError
        If ``specs["ls"]`` holds neither one value nor ``input_dim`` values.
    """
    if isinstance(kernel, pm.gp.cov.Covariance):
        return kernel
    cls = kernel_class(kernel)
    spec = specs["ls"]
    shape = spec.type.shape if isinstance(spec, pt.Variable) else np.shape(spec)
    if None not in shape and int(np.prod(shape)) not in (1, input_dim):
        raise ValueError(
            f"ls has {int(np.prod(shape))} values but the base kernel acts on {input_dim} "
            "coordinate(s) (the columns of X, then ψ's); give one length scale, or one per "
            "coordinate (ard=True gives each its own default prior)."
        )
    ls = parameter("ls", spec, (input_dim,) if ard else None, positive=True)
    return make_base_kernel(cls, input_dim, ls)


def signal_and_noise(specs: Mapping[str, PriorSpec], n: int | None = None) -> tuple:
    """The signal and noise standard deviations ``sigma_f`` and ``sigma_n``.

    Parameters
    ----------
    specs : dict
        Prior specifications (:func:`resolve_priors`).
    n : int, optional
        The number of observations: a fixed ``sigma_n`` may then also be one value per
        observation (without ``n`` its length is not checked).

    Returns
    -------
    sigma_f, sigma_n : TensorVariable or ndarray

    Raises
    ------
    ValueError
        If ``sigma_f`` has several values, or ``sigma_n`` several but not ``n``.
    """
    check_one_value("sigma_f", specs["sigma_f"])
    if n is not None:
        check_one_value("sigma_n", specs["sigma_n"], n)
    return parameter("sigma_f", specs["sigma_f"]), parameter("sigma_n", specs["sigma_n"])


def check_mean(mean: str | PriorSpec) -> None:
    """Raise ``ValueError`` for a mean given by an unknown name.

    Parameters
    ----------
    mean : str, number, tensor, distribution or pm.gp.mean.Mean
        See :func:`mean_function`.
    """
    if mean is None or (isinstance(mean, str) and mean not in MEAN_TYPES):
        raise ValueError(
            f"mean must be 'constant', 'zero', a number (a fixed constant mean), a .dist() "
            f"prior or a pm.gp.mean.Mean; got {mean!r}."
        )


#: How far sd(y) may drift, as a factor either way, from the data a :class:`Standardized`
#: mean was built with before NUTS's first steps (±2 of the old sd) start many sds away.
UNIT_DRIFT = 4.0


class Standardized(Transform):
    """The unconstrained value of a variable in units of the data: z = (m − c) / s.

    A constant mean in the user's units is sampled and optimised as z, so that the samplers'
    first steps and initial jitter (±1 or ±2 in the unconstrained space) are ±1 or ±2 sd(y),
    whatever the units of y: on y of order 10⁻¹² a jitter of ±1 in m itself lies 10¹² sds
    away. Its log Jacobian is the constant ``log s``.

    Parameters
    ----------
    center, scale : float
        c and s > 0 (the mean and sd of y). Numbers, fixed when the model is built: a graph
        of the model's data would not survive PyMC's model transformations
        (``freeze_dims_and_data``, ``pm.do``), which replace the data containers. After
        ``set_data`` to data of another scale, :func:`pymc_vsk.fit_map` rescales its
        coordinates by the new sd(y) / s.
    """

    name = "standardized"
    ndim_supp = 0

    def __init__(self, center: float, scale: float) -> None:
        self.center, self.scale = float(center), float(scale)

    def forward(self, value: pt.TensorVariable, *inputs: object) -> pt.TensorVariable:
        return (value - self.center) / self.scale

    def backward(self, value: pt.TensorVariable, *inputs: object) -> pt.TensorVariable:
        return self.center + self.scale * value

    def log_jac_det(self, value: pt.TensorVariable, *inputs: object) -> pt.TensorVariable:
        return pt.zeros_like(value) + np.log(self.scale)


def mean_function(
    mean: str | PriorSpec,
    specs: Mapping[str, PriorSpec],
    y: npt.ArrayLike | None = None,
) -> pm.gp.mean.Mean:
    """The mean function: a constant m with a prior, a fixed constant, or zero.

    Parameters
    ----------
    mean : {"constant", "zero"}, number, tensor, distribution or pm.gp.mean.Mean
        ``"constant"``: a constant mean with the prior ``specs["mean"]``; ``"zero"``: zero
        mean; a number, tensor or ``.dist()``: a constant mean with that fixed value or prior
        (one value); a ``pm.gp.mean.Mean`` is used as it is.
    specs : dict
        Prior specifications (:func:`resolve_priors`).
    y : array-like, shape (n,), optional
        The observations: a random mean whose prior has unbounded support is then sampled in
        units of their mean and :func:`y_scale` (:class:`Standardized`), the same in any
        units of y.

    Returns
    -------
    pm.gp.mean.Mean
    """
    check_mean(mean)
    if isinstance(mean, pm.gp.mean.Mean):
        return mean
    if isinstance(mean, str):
        if mean == "zero":
            return pm.gp.mean.Zero()
        mean = specs["mean"]
    check_one_value("mean", mean)
    if y is not None and is_dist(mean) and _default_transform(mean.owner.op, mean) is None:
        units = Standardized(float(np.mean(y)), y_scale(y))
        model = pm.modelcontext(None)
        return pm.gp.mean.Constant(model.register_rv(mean, "mean", transform=units))
    return pm.gp.mean.Constant(parameter("mean", mean, nonnegative=False))
