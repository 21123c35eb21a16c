r"""MAP fits with several starts, compiled once per model.

The VSK marginal likelihood of the jump data of Section 4.1 is bimodal: besides the short
length-scale mode the paper reports (ℓ ≈ 0.06) there is a long length-scale, high-noise mode
that smooths the jump away. :func:`fit_map` therefore optimises from several starts, reports every
distinct local optimum with its log density, warns when starts disagree and returns the best.

The objective is the model's log density **without** the Jacobian of the transforms, as in
``pm.find_MAP``: the optimum is the mode in the original parameterisation, and with flat
priors (``build_model(..., priors="flat")``) it is the maximum-likelihood estimate.

The log density and its gradient are compiled once per model and cached
(:mod:`pymc_vsk.caching`); data swapped with
:func:`pymc_vsk.models.set_data` (or ``pm.set_data``) is picked up by the compiled function,
so sweeps over seeds, node counts and starts never recompile.

The compilation is chosen by the workload. A fit from a few starts evaluates the objective a
few hundred times, which pytensor's Python/NumPy ``perform`` path (:data:`CHEAP_MODE`)
compiles in a fraction of a second, with no C compiler and no on-disk cache; Numba
(:data:`FAST_MODE`) runs each evaluation faster but compiles for seconds (tens of seconds with
an empty cache). The objective starts in the cheap mode and moves to Numba, between two fits,
once the time Numba would have saved so far (:func:`numba_saving` per evaluation) exceeds
:data:`SWITCH_SECONDS`: sweeps over seeds and node counts end up compiled, one-off fits never
wait for it. An explicit ``mode`` is used as given.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import scipy.optimize
from pymc.blocking import DictToArrayBijection, RaveledVars
from pymc.initial_point import make_initial_point_expression
from pymc.pytensorf import find_rng_nodes, replace_rng_nodes, reseed_rngs
from pymc.util import get_default_varnames
from pytensor.compile.mode import Mode
from pytensor.graph import Variable, ancestors
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.blas import blas_threads
from pymc_vsk.caching import cache_entries, cached, model_structure
from pymc_vsk.covariance import psi_reach, warn_if_negligible, x_reach
from pymc_vsk.lifting import psi_columns
from pymc_vsk.likelihood import check_data_lengths
from pymc_vsk.memory import keep_large_temporaries
from pymc_vsk.modes import PYTHON_MODE
from pymc_vsk.priors import Standardized, coordinate_scales, node_scales, y_scale
from pymc_vsk.progress import detail
from pymc_vsk.scaling import numeric_value
from pymc_vsk.validation import not_positive_definite, require_float64

__all__ = [
    "CHEAP_MODE",
    "FAST_MODE",
    "SWITCH_SECONDS",
    "MapResult",
    "MultimodalWarning",
    "NotConvergedWarning",
    "Optimum",
    "Units",
    "compiled_objective",
    "fit_map",
    "initial_point",
    "numba_saving",
    "record_units",
    "recorded_units",
]


class MultimodalWarning(UserWarning):
    """Starts of a MAP fit reached different local optima."""


class NotConvergedWarning(UserWarning):
    """The best end point of a MAP fit is not a stationary point of the log density."""


@dataclass
class Optimum:
    """One local optimum of the log density.

    Attributes
    ----------
    point : dict
        Values of every free variable, constrained (``ls``) and transformed (``ls_log__``),
        ready for ``gp.predict`` and :func:`pymc_vsk.prediction.predict`.
    logp : float
        Log density at the optimum (without Jacobian; the log likelihood with flat priors).
    starts : list of int
        Indices of the starts that converged here.
    converged : bool
        Whether the optimiser reported convergence for the best of those starts.
    """

    point: dict[str, np.ndarray]
    logp: float
    starts: list[int] = field(default_factory=list)
    converged: bool = True

    def describe(self, names: Sequence[str]) -> str:
        """One line: the log density and the values of ``names``.

        Parameters
        ----------
        names : sequence of str
            Variables to show.

        Returns
        -------
        str
        """
        values = ", ".join(f"{n}={_fmt(self.point[n])}" for n in names if n in self.point)
        unfinished = "" if self.converged else ", not converged"
        return f"logp {self.logp:.6g} ({values}; {len(self.starts)} start(s){unfinished})"


@dataclass
class MapResult:
    """Result of :func:`fit_map`: the best optimum and every distinct one found."""

    optima: list[Optimum]
    starts: list[dict[str, np.ndarray]]
    failed_starts: list[int]
    names: list[str]

    @property
    def point(self) -> dict[str, np.ndarray]:
        """The best optimum's point."""
        return self.optima[0].point

    @property
    def logp(self) -> float:
        """The best optimum's log density."""
        return self.optima[0].logp

    @property
    def multimodal(self) -> bool:
        """True when the starts reached more than one distinct optimum."""
        return len(self.optima) > 1

    def summary(self) -> str:
        """One line per distinct optimum, best first."""
        lines = [f"{len(self.starts)} starts, {len(self.optima)} distinct optimum/optima:"]
        lines += [f"  {i}: {opt.describe(self.names)}" for i, opt in enumerate(self.optima)]
        if self.failed_starts:
            lines.append(f"  {len(self.failed_starts)} start(s) failed: {self.failed_starts}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()


def _fmt(value: np.ndarray) -> str:
    value = np.asarray(value)
    if value.ndim == 0:
        return f"{float(value):.4g}"
    return "[" + ", ".join(f"{v:.4g}" for v in value.ravel()) + "]"


#: Compilation for a few hundred evaluations: pytensor's Python/NumPy ``perform`` path
#: (:data:`pymc_vsk.modes.PYTHON_MODE`), no C compiler and no on-disk cache.
CHEAP_MODE = PYTHON_MODE
#: Compilation for thousands of evaluations: Numba (pytensor's default backend).
FAST_MODE = "NUMBA"
#: Move an objective to :data:`FAST_MODE` once Numba would have saved this many seconds (a few
#: times its compilation with warm on-disk caches).
SWITCH_SECONDS = 5.0


def numba_saving(n: int) -> float:
    """Estimated seconds Numba saves per objective evaluation on ``n`` observations.

    The Python path pays a fixed cost per graph node (≈ 1.4 ms for the objective of
    :func:`pymc_vsk.build_model`) and unfused n × n elementwise passes (≈ 2.2e-8 n² s); the
    LAPACK calls cost the same in both. Measured on the models of :func:`pymc_vsk.build_model`
    at n = 81 and 800 (``benchmarks/run.py`` times both modes).

    Parameters
    ----------
    n : int
        Number of observations.

    Returns
    -------
    float
        Seconds per evaluation.
    """
    return 1.4e-3 + 2.2e-8 * float(n) ** 2


class _Objective:
    """Negative log density and gradient on a flat vector of the model's value variables.

    The vector is PyMC's raveled point (``pymc.blocking.DictToArrayBijection``), in the order
    of ``model.continuous_value_vars``. With ``mode=None`` it is compiled in
    :data:`CHEAP_MODE` and moves to :data:`FAST_MODE` when :meth:`prepare` finds the workload
    large enough (see the module docstring).
    """

    def __init__(self, model: pm.Model, mode: Mode | str | None = None) -> None:
        self.model = model
        self.value_vars = list(model.continuous_value_vars)
        if len(self.value_vars) != len(model.value_vars):
            raise TypeError("fit_map supports continuous free variables only.")
        self._names_in = [v.name for v in self.value_vars]
        point = initial_point(model)
        self._info = DictToArrayBijection.map({n: point[n] for n in self._names_in}).point_map_info
        logp = model.logp(jacobian=False)
        self._outputs = [logp, *pytensor.grad(logp, self.value_vars)]
        self.adaptive = mode is None
        self.mode = CHEAP_MODE if mode is None else mode
        self._fn = pm.pytensorf.compile(self.value_vars, self._outputs, mode=self.mode)
        keep_large_temporaries()  # n × n temporaries reused between evaluations
        outputs = get_default_varnames(model.unobserved_value_vars, include_transformed=True)
        self._names = [v.name for v in outputs]
        self._values = pm.pytensorf.compile(
            self.value_vars, outputs, mode=self.mode, on_unused_input="ignore"
        )
        self.n_evals = 0
        self._saving = numba_saving(1)
        self._would_have_saved = 0.0

    def prepare(self, n: int) -> None:
        """Before a fit on ``n`` observations: move to Numba if the workload has earned it.

        Parameters
        ----------
        n : int
            Number of observations of the coming fit.
        """
        self._saving = numba_saving(n)
        if self.adaptive and self._would_have_saved >= SWITCH_SECONDS:
            self._fn = pm.pytensorf.compile(self.value_vars, self._outputs, mode=FAST_MODE)
            self.mode, self.adaptive = FAST_MODE, False

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        """Shapes of the value variables, in the order of the flat vector."""
        return [shape for _, shape, _, _ in self._info]

    @property
    def sizes(self) -> list[int]:
        """Sizes of the value variables, in the order of the flat vector."""
        return [int(size) for _, _, size, _ in self._info]

    def split(self, theta: np.ndarray) -> list[np.ndarray]:
        """The value variables' values from the flat vector ``theta``."""
        raveled = RaveledVars(np.asarray(theta, dtype=float), self._info)
        point = DictToArrayBijection.rmap(raveled)
        return [point[n] for n in self._names_in]

    def flatten(self, point: Mapping[str, npt.ArrayLike]) -> np.ndarray:
        """The flat vector of a point given by value-variable names."""
        values = {n: np.asarray(point[n], dtype=float) for n in self._names_in}
        return DictToArrayBijection.map(values).data

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """−log p and its gradient at ``theta`` (1e300 and zeros where log p is not finite)."""
        self.n_evals += 1
        if self.adaptive:
            self._would_have_saved += self._saving
        logp, *grads = self._fn(*self.split(theta))
        if not np.isfinite(logp):
            return 1e300, np.zeros_like(theta)
        return -float(logp), -self.flatten(dict(zip(self._names_in, grads, strict=True)))

    def point(self, theta: np.ndarray) -> dict[str, np.ndarray]:
        """Every free variable, constrained and transformed, at ``theta``."""
        values = self._values(*self.split(theta))
        return {n: np.asarray(v) for n, v in zip(self._names, values, strict=True)}


@dataclass
class Units:
    """Scales recorded by a model builder so that :func:`fit_map` works free of units.

    Attributes
    ----------
    scales : dict
        Typical magnitude of untransformed free variables by name (e.g. ``{"mean": sd(y)}``);
        the optimiser works in value / scale. Unlisted variables have scale 1 (log- and
        interval-transformed variables are free of units already).
    vsk : VSK or None
        The model's VSK, whose ψ is checked against the fitted length scales.
    gp : GP or None
        The model's GP, whose inputs and observations are checked to agree in length.
    """

    scales: dict[str, float]
    vsk: Any = None
    gp: Any = None


def record_units(
    model: pm.Model, scales: Mapping[str, float], vsk: Any = None, gp: Any = None
) -> None:
    """Record the scales of a model's free variables (and its VSK) for :func:`fit_map`.

    Parameters
    ----------
    model : pm.Model
    scales : dict
        Typical magnitude of untransformed free variables by name.
    vsk : VSK, optional
        The VSK whose ψ :func:`fit_map` checks against the fitted length scales.
    gp : GP, optional
        The GP whose data :func:`fit_map` checks before fitting
        (:func:`pymc_vsk.likelihood.check_data_lengths`).
    """
    cached(model, "units", None, lambda: Units(dict(scales), vsk, gp))


def recorded_units(model: pm.Model) -> Units:
    """The :class:`Units` recorded for ``model`` (scale 1 for everything if none were).

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    Units
    """
    entries = cache_entries(model, "units")
    return entries[0] if entries else Units({})


def _preconditioner(model: pm.Model, objective: _Objective) -> np.ndarray:
    """Per-coordinate scales D of the flat vector: the optimiser works in θ / D."""
    scales = recorded_units(model).scales
    value_to_rv = {model.rvs_to_values[rv].name: rv for rv in model.free_RVs}
    parts = []
    for name, size in zip(objective._names_in, objective.sizes, strict=True):
        rv = value_to_rv.get(name)
        transform = None if rv is None else model.rvs_to_transforms.get(rv)
        if rv is not None and transform is None:
            scale = scales.get(rv.name, 1.0)
        elif isinstance(transform, Standardized):
            # in units of the data the model was built with: of the data now, after set_data
            scale = scales.get(rv.name, transform.scale) / transform.scale
        else:
            scale = 1.0
        parts.append(np.full(size, float(scale)))
    return np.concatenate(parts) if parts else np.ones(0)


def _check_reach(model: pm.Model, point: Mapping[str, np.ndarray]) -> None:
    """Warn when the fitted length scales make the model's ψ negligible."""
    vsk = recorded_units(model).vsk
    if vsk is None or "X" not in model.named_vars:
        return

    def build() -> Callable:
        X = model["X"][:, vsk.active_dims]
        outputs = [X, psi_columns(vsk.psi, X), vsk.cov_func.ls]
        outputs = [pytensor.tensor.as_tensor_variable(o) for o in outputs]
        inputs = [v for v in model.free_RVs if v in set(ancestors(outputs))]
        fn = pytensor.function(inputs, outputs, on_unused_input="ignore", mode=PYTHON_MODE)
        return lambda p: fn(*(p[v.name] for v in inputs))

    X, values, ls = cached(model, "psi_reach", model_structure(model), build)(point)
    scale = numeric_value(vsk.psi_scale)
    where = "the fit (ℓ = " + _fmt(ls) + ")"
    reach = psi_reach(values, float(scale), ls)
    warn_if_negligible(reach, where, stacklevel=4, x_span=x_reach(X, ls))


def compiled_objective(model: pm.Model, mode: Mode | str | None = None) -> _Objective:
    """The model's compiled objective, built on first use and cached with the model.

    Parameters
    ----------
    model : pm.Model
    mode : pytensor mode, optional
        Compilation mode; default: chosen by the workload (see the module docstring).

    Returns
    -------
    _Objective
        Callable ``theta -> (−log p, −∇ log p)`` on the flat vector of value variables.
    """
    # a mode by itself (a name, or the Mode object: by identity), not by its text, which
    # is long and holds memory addresses
    key = (model_structure(model), tuple(v.name for v in model.value_vars), mode)
    return cached(model, "objective", key, lambda: _Objective(model, mode))


def initial_point(model: pm.Model) -> dict[str, np.ndarray]:
    """``model.initial_point()``, with its compiled function cached per model.

    ``pm.Model.initial_point`` compiles a new function on every call (with pytensor's
    ``FAST_COMPILE`` mode, which compiles C code on a first run); a fit needs the point
    several times, and sweeps fit the same model many times. Here PyMC's initial-point
    expression is compiled once per model in :data:`pymc_vsk.modes.PYTHON_MODE`. The cache is
    keyed on the model's initial-value settings, so ``model.set_initval`` is honoured; the
    function reads data containers when called, so swapped data are seen; a random initial
    value (the ``"prior"`` strategy) is drawn anew at each call, as PyMC's is.

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    dict
        Values by value-variable name (transformed, e.g. ``ls_log__``).
    """
    key = (
        model_structure(model),
        tuple((rv.name, _initval_key(v)) for rv, v in model.rvs_to_initial_values.items()),
    )

    def build() -> Callable[[], list[np.ndarray]]:
        values = make_initial_point_expression(
            free_rvs=model.free_RVs,
            rvs_to_transforms=model.rvs_to_transforms,
            initval_strategies=model.rvs_to_initial_values,
            return_transformed=True,
        )
        fn = pm.pytensorf.compile([], replace_rng_nodes(values), mode=PYTHON_MODE)
        rngs = find_rng_nodes(fn.maker.fgraph.outputs)

        def point() -> list[np.ndarray]:
            reseed_rngs(rngs, None)
            return fn()

        return point

    fn = cached(model, "initial_point", key, build)
    names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    return {name: np.asarray(value) for name, value in zip(names, fn(), strict=True)}


def _initval_key(value: object) -> Hashable:
    """A key of an initial value that tells any two values apart: an array by its bytes
    (its text rounds to 8 digits and elides long arrays), a strategy name by itself, a
    symbolic value by identity."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Variable):
        return ("variable", id(value))
    array = np.asarray(value)
    return ("array", array.dtype.str, array.shape, array.tobytes())


def _to_value_space(
    model: pm.Model,
    start: Mapping[str, npt.ArrayLike],
    initial: Mapping[str, np.ndarray],
    index: int,
) -> dict[str, np.ndarray]:
    """Map a start given by constrained names (``ls``) or value names (``ls_log__``).

    A scalar fills a vector variable; another shape than the variable's, or a value outside
    its support, is a ValueError naming the start.
    """
    out = {}
    for rv in model.free_RVs:
        value_var = model.rvs_to_values[rv]
        name = value_var.name if value_var.name in start else rv.name
        if name not in start:
            continue
        shape = np.shape(initial[value_var.name])
        value = np.asarray(start[name], dtype=float)
        if value.shape != shape:
            if value.ndim:
                raise ValueError(
                    f"start {index} gives {name} the shape {value.shape}; the model's {rv.name} "
                    f"has shape {shape}: give one value per element (or one for all)."
                )
            value = np.full(shape, float(value))
        if name == rv.name and model.rvs_to_transforms.get(rv) is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                value = np.asarray(_forward_transform(model, rv)(value), dtype=float)
        if not np.all(np.isfinite(value)):
            raise ValueError(
                f"start {index} gives {name} = {_fmt(np.asarray(start[name], dtype=float))}, "
                f"outside the support of {rv.name}'s prior (or not a finite number): start "
                "inside it, e.g. a positive length scale or noise level."
            )
        out[value_var.name] = value
    return out


def _forward_transform(model: pm.Model, rv: TensorVariable) -> Callable:
    """``rv``'s forward transform (constrained -> value space), compiled once per model."""

    def build() -> Callable:
        x = rv.type()
        forward = model.rvs_to_transforms[rv].forward(x, *rv.owner.inputs)
        return pm.pytensorf.compile([x], forward, on_unused_input="ignore", mode=PYTHON_MODE)

    return cached(model, "forward_transform", rv.name, build)


def default_starts(model: pm.Model, n_starts: int, seed: int | None) -> list[dict[str, np.ndarray]]:
    """Starts spread over length scales, for models made by :func:`pymc_vsk.build_model`.

    Length scales are log-spaced from max(2 × smallest node spacing, span / 50) to the span
    (so both modes of the VSK likelihood are reached), each of several length scales (ARD)
    over its own coordinate's range (:func:`pymc_vsk.priors.coordinate_scales`); σ_f starts
    at sd(y), σ_n alternates between 0.1 and 0.5 sd(y), the mean at mean(y). A seed
    multiplies each by exp(U(−¼, ¼)). Other free variables start at the model's initial
    point, jittered by U(−1, 1) in the unconstrained space when a seed is given (as
    ``pm.sample`` does).

    Parameters
    ----------
    model : pm.Model
        The model (its data container ``X`` and observed data set the scales).
    n_starts : int
        Number of starts.
    seed : int or None
        Seed of the jitter; ``None`` gives unjittered starts.

    Returns
    -------
    list of dict
        Starts by constrained names (``ls``) or value names (``ls_log__``).

    Raises
    ------
    ValueError
        ``n_starts`` is not a whole number of at least 1.
    """
    _check_starts(model, n_starts, None)
    n_starts = int(n_starts)
    rng = np.random.default_rng(seed)
    initial = initial_point(model)
    y = _observed_values(model)
    ls = next((rv for rv in model.free_RVs if rv.name == "ls"), None)
    ls_shape = () if ls is None else np.shape(initial[model.rvs_to_values[ls].name])
    if "X" in model.named_vars:
        X = model["X"].get_value()
        width = int(np.prod(ls_shape)) if ls_shape else None
        spacing, span = coordinate_scales(X, width) if width else node_scales(X)
        ls_grid = np.geomspace(np.maximum(2 * spacing, span / 50), span, n_starts)
    else:
        ls_grid = np.geomspace(0.05, 1.0, n_starts)
    sd = y_scale(y) if y is not None else 1.0
    starts = []
    for i in range(n_starts):
        wiggle = np.exp(rng.uniform(-0.25, 0.25, size=3)) if seed is not None else np.ones(3)
        start: dict[str, Any] = {}
        for rv in model.free_RVs:
            value_name = model.rvs_to_values[rv].name
            shape = np.shape(initial[value_name])
            if rv.name == "ls":
                start["ls"] = np.broadcast_to(ls_grid[i] * wiggle[0], shape).copy()
            elif rv.name == "sigma_f":
                start["sigma_f"] = np.full(shape, sd * wiggle[1])
            elif rv.name == "sigma_n":
                start["sigma_n"] = np.full(shape, (0.1 if i % 2 == 0 else 0.5) * sd * wiggle[2])
            elif rv.name == "mean" and y is not None:
                start["mean"] = np.full(shape, float(np.mean(y)))
            else:
                jitter = rng.uniform(-1, 1, size=shape) if seed is not None and i > 0 else 0.0
                start[value_name] = initial[value_name] + jitter
        starts.append(start)
    return starts


def _observed_values(model: pm.Model) -> np.ndarray | None:
    for obs in model.observed_RVs:
        data = model.rvs_to_values[obs]
        value = data.get_value() if hasattr(data, "get_value") else getattr(data, "data", None)
        if value is not None:
            return np.asarray(value, dtype=float)
    return None


def fit_map(
    model: pm.Model | None = None,
    *,
    n_starts: int = 8,
    seed: int | None = 0,
    starts: Sequence[Mapping[str, npt.ArrayLike]] | None = None,
    tol: float = 1e-10,
    maxiter: int = 5000,
    distinct_atol: float = 1e-2,
    warn: bool = True,
    mode: Mode | str | None = None,
    threads: int | None = 1,
) -> MapResult:
    """Maximise the log density from several starts with L-BFGS-B.

    Parameters
    ----------
    model : pm.Model, optional
        Defaults to the model in context.
    n_starts : int, default 8
        Number of default starts (ignored when ``starts`` is given).
    seed : int or None, default 0
        Seed of the start jitter; the same seed gives the same result.
    starts : sequence of dict, optional
        Explicit starts, by constrained names (``{"ls": 0.06}``) or value names
        (``{"ls_log__": -2.8}``); missing variables start at the model's initial point.
    tol : float, default 1e-10
        Gradient and relative function tolerance of L-BFGS-B.
    maxiter : int, default 5000
        Most L-BFGS-B iterations from each start. A best end point that is still not an
        optimum after them is returned with a :class:`NotConvergedWarning`.
    distinct_atol : float, default 1e-2
        Two optima are the same if their unconstrained coordinates, divided by the recorded
        scales, differ by less than this (1 % in a log-transformed parameter).
    warn : bool, default True
        Emit :class:`MultimodalWarning` when starts reach different optima.
    mode : pytensor mode, optional
        Compilation mode of the objective; default: chosen by the workload, the Python/NumPy
        path for a first fit, Numba once a sweep of fits on the model has earned its
        compilation (see the module docstring).
    threads : int or None, default 1
        BLAS threads during the fit (:func:`pymc_vsk.blas.blas_threads`); ``None`` leaves
        the pool alone (for n in the thousands).

    Returns
    -------
    MapResult
        ``.point``: the best optimum, a dict of parameter values by name in the user's units
        (``ls`` in the units of x, ``sigma_f``, ``sigma_n`` and ``mean`` in those of y, for
        a model of :func:`pymc_vsk.build_model`), each a numpy array, with PyMC's
        transformed values as well (``ls_log__``); pass it, or the result itself, as
        ``point`` to :func:`pymc_vsk.predict`. Also ``.logp`` (the best log density),
        ``.optima`` (every distinct :class:`Optimum`, best first), ``.multimodal`` and
        ``.summary()``.

    Warns
    -----
    MultimodalWarning
        Starts reached different optima (with ``warn=True``).
    NotConvergedWarning
        The best end point is not a stationary point (``maxiter`` too small, or a parameter
        running off to a boundary).
    NegligibleScalingWarning
        The best optimum's length scales make ψ negligible (a VSK equal to the stationary
        kernel; for models of :func:`pymc_vsk.build_model`).

    Notes
    -----
    The optimiser works on θ / D, with θ the unconstrained vector and D the scales recorded by
    the model builder (:func:`record_units`: sd(y) for the constant mean, 1 for log- and
    interval-transformed variables), so the tolerances, the starts' spread and
    ``distinct_atol`` mean the same in any units of x and y.

    Each start is reported (``MAP start 3 of 8``) as a detail message of
    :mod:`pymc_vsk.progress`; on stderr it shows only when the previous line is a second old,
    so fast fits print nothing per start.

    Examples
    --------
    A jump of 1 at x = 0.5 on a sine, with noise of std 0.1:

    >>> import numpy as np
    >>> from pymc_vsk import build_model, fit_map
    >>> from pymc_vsk.scaling import Jump
    >>> rng = np.random.default_rng(0)
    >>> X = np.linspace(0, 1, 30)[:, None]
    >>> y = np.sin(2 * np.pi * X[:, 0]) + (X[:, 0] >= 0.5) + 0.1 * rng.normal(size=30)
    >>> model, gp = build_model(X, y, psi=Jump(0.5))
    >>> fit = fit_map(model)
    >>> {name: round(float(fit.point[name]), 2) for name in ("ls", "sigma_f", "sigma_n", "mean")}
    {'ls': 0.15, 'sigma_f': 0.43, 'sigma_n': 0.07, 'mean': 0.48}

    The values are in the units of the data: with x in units 100 times smaller
    (``100 * X``, the jump at 50), the length scale is 100 times as large and the other
    parameters are unchanged.

    >>> model_100, _ = build_model(100 * X, y, psi=Jump(50.0))
    >>> round(float(fit_map(model_100).point["ls"]), 1)
    14.8
    """
    model = pm.modelcontext(model)
    require_float64("fit_map", model)
    if not model.value_vars:
        raise ValueError(
            "The model has no free variables, so there is nothing to fit: every parameter is "
            "fixed. Predict directly with point={} (pymc_vsk.predict(gp, Xnew, point={})), or "
            "give a parameter a prior."
        )
    _check_starts(model, n_starts, starts)
    check_data_lengths(recorded_units(model).gp)
    objective = compiled_objective(model, mode)
    y = _observed_values(model)
    objective.prepare(int(np.shape(y)[0]) if y is not None and np.ndim(y) else 1)
    if starts is None:
        starts = default_starts(model, n_starts, seed)
    scale = _preconditioner(model, objective)
    with blas_threads(threads):
        runs, failed = _run_starts(model, objective, starts, tol, maxiter, scale)
        if not runs:
            raise RuntimeError(
                f"All {len(starts)} MAP starts failed (non-finite log density): "
                + not_positive_definite("the covariance of the data", certain=False)
                + " Otherwise check the data and priors, or pass starts=[...] inside the support."
            )
        optima = _distinct(runs, objective, distinct_atol, scale)
    names = [rv.name for rv in model.free_RVs]
    result = MapResult(optima, [dict(s) for s in starts], failed, names)
    if warn and result.multimodal:
        warnings.warn(
            "MAP starts disagree: " + result.summary().replace("\n", " ") + " Returning the best.",
            MultimodalWarning,
            stacklevel=2,
        )
    if not result.optima[0].converged:
        best = result.optima[0].describe(names)
        warnings.warn(
            f"The best MAP end point is not an optimum: the gradient of the log density is "
            f"still large there after maxiter={maxiter} iterations ({best}). "
            "Raise maxiter; if that does not help, a parameter is running off to a boundary "
            "(σ_n to 0 on data a curve interpolates, ℓ past the span): give it a prior.",
            NotConvergedWarning,
            stacklevel=2,
        )
    _check_reach(model, result.point)
    return result


def _check_starts(
    model: pm.Model, n_starts: int, starts: Sequence[Mapping[str, Any]] | None
) -> None:
    """A ValueError for no starts, or a start that names no free variable of the model."""
    if starts is None:
        try:
            whole = not isinstance(n_starts, bool) and int(n_starts) == n_starts >= 1
        except (TypeError, ValueError, OverflowError):  # None, nan, inf, text
            whole = False
        if not whole:
            raise ValueError(f"n_starts must be a whole number >= 1; got {n_starts!r}.")
        return
    if len(starts) == 0:
        raise ValueError("starts is empty: pass at least one start, or starts=None.")
    known = {rv.name for rv in model.free_RVs} | {v.name for v in model.value_vars}
    for i, start in enumerate(starts):
        unknown = sorted(set(start) - known)
        if unknown:
            raise ValueError(
                f"start {i} names {', '.join(map(repr, unknown))}, not a free variable of the "
                f"model; its free variables are "
                f"{', '.join(repr(rv.name) for rv in model.free_RVs)}."
            )


def _run_starts(
    model: pm.Model,
    objective: _Objective,
    starts: Sequence[Mapping[str, Any]],
    tol: float,
    maxiter: int,
    scale: np.ndarray,
) -> tuple[list, list[int]]:
    """Minimise from each start in the coordinates u = θ / scale; results are in θ."""
    initial = initial_point(model)
    runs = []
    failed = []

    def scaled(u: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = objective(u * scale)
        return f, g * scale

    for i, start in enumerate(starts):
        detail(f"MAP start {i + 1} of {len(starts)}")
        theta0 = objective.flatten({**initial, **_to_value_space(model, start, initial, i)})
        f0, _ = objective(theta0)
        if f0 >= 1e300:
            failed.append(i)
            continue
        res = _minimize(scaled, theta0 / scale, tol, maxiter)
        if not np.isfinite(res.fun) or res.fun >= 1e300:
            failed.append(i)
            continue
        res.x = res.x * scale
        runs.append((i, res))
    return runs, failed


def _minimize(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    theta0: np.ndarray,
    tol: float,
    maxiter: int,
    restarts: int = 5,
) -> scipy.optimize.OptimizeResult:
    """L-BFGS-B, restarted (fresh curvature memory) while the gradient is not small.

    L-BFGS-B also stops when one step barely lowers f, which after a poor first step can leave
    it far from a stationary point; a restart from there fixes that.
    """
    options = {"maxiter": maxiter, "gtol": tol, "ftol": tol, "maxcor": 20}

    def run(theta: np.ndarray) -> scipy.optimize.OptimizeResult:
        return scipy.optimize.minimize(
            objective, theta, jac=True, method="L-BFGS-B", options=options
        )

    def stationary(res: scipy.optimize.OptimizeResult) -> bool:
        return bool(np.max(np.abs(res.jac)) <= 1e-5 * max(1.0, abs(res.fun)))

    res = run(theta0)
    for _ in range(restarts):
        if not np.isfinite(res.fun) or stationary(res):
            break
        res = run(res.x)
    res.success = stationary(res)
    return res


def _distinct(
    runs: list, objective: _Objective, atol: float, scale: np.ndarray | float = 1.0
) -> list[Optimum]:
    """Group optimiser end points into distinct optima, best first.

    Two end points belong to one optimum if their unconstrained coordinates agree to ``atol``,
    (in the coordinates θ / scale of the optimiser), or if the straight path between them
    never dips below the worse of the two (no barrier):
    the latter merges points that stopped at different places of a flat ridge, such as
    σ_n → 0 in an interpolating fit, where log σ_n moves freely at constant log density.
    """
    runs = sorted(runs, key=lambda r: r[1].fun)
    groups: list[tuple[np.ndarray, float, Optimum]] = []
    for i, res in runs:
        for theta, fun, opt in groups:
            close = np.max(np.abs(res.x - theta) / scale) < atol
            if close or _no_barrier(objective, theta, fun, res):
                opt.starts.append(i)
                break
        else:
            opt = Optimum(objective.point(res.x), -float(res.fun), [i], bool(res.success))
            groups.append((res.x, float(res.fun), opt))
    return [opt for _, _, opt in groups]


def _no_barrier(
    objective: _Objective, theta: np.ndarray, fun: float, res: scipy.optimize.OptimizeResult
) -> bool:
    """True if −log p stays within 1e-3 of the worse end along the segment between two ends."""
    worst = max(fun, float(res.fun))
    for s in np.linspace(0.0, 1.0, 9)[1:-1]:
        f, _ = objective(theta + s * (res.x - theta))
        if f > worst + 1e-3:
            return False
    return True
