r"""Scaling functions :math:`\psi : \Omega \subset \mathbb{R}^d \to \mathbb{R}^q`.

A variably scaled kernel (VSK) evaluates a stationary kernel on the lifted inputs
:math:`\Psi(x) = (x, \psi(x))` (paper, eq. 13). The scaling function :math:`\psi` is where
prior knowledge about the target goes: the location of a jump, of a corner, or the rough
shape of the target itself.

Every scaling function here is a small class with one interface:

* ``psi(X)`` on a pytensor tensor of shape ``(n, d)`` returns a tensor of shape ``(n,)``
  (``q = 1``) or ``(n, q)``; parameters may be PyMC random variables and gradients flow
  through them;
* ``psi(X)`` on a numpy array, and ``psi.numpy(X, point=None)``, return a numpy array (for
  plotting and for checks); parameters that are random variables take their values from
  ``point``, a ``{name: value}`` dict such as a MAP estimate or one posterior draw.

A new scaling function is one subclass that stores its parameters in ``self.params`` and
implements ``_formula(X, **params)`` once, with pytensor operations (any elementwise function
of ``pytensor.tensor``: ``pt.sin``, ``pt.log``, ``pt.tanh``, ``pt.sigmoid``, ...). On numpy
arrays the same formula is compiled once per scaling function, in milliseconds, into a small
pytensor function that runs numpy on each operation (:data:`pymc_vsk.modes.PYTHON_MODE`). A
class that needs constructor arguments declares an example instance with the classmethod
``example()``; the tests evaluate every class returned by :func:`scaling_functions` through
it.

Units: locations, widths, radii, offsets and decay lengths are in the units of x, and change
with them (under x → a·x + b a jump at t moves to a·t + b and a width w becomes ``|a| w``).
The values of ψ (amplitudes) are compared with x: :func:`pymc_vsk.build_model` multiplies
them by the x-range, so the same amplitude gives the same model in any units of x, while a
:class:`pymc_vsk.VSK` with ``psi_scale=1`` and :class:`pymc_vsk.hsgp.LiftedHSGP` take them in
the units of x. A ψ made from the target itself (ψ = f, :class:`FromFunction`) has values in
the units of y: divide it by a scale of y (such as its sd) for a model that is the same in
any units of y.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytensor
import pytensor.tensor as pt
from pymc.pytensorf import constant_fold, rvs_in_graph
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph import Variable, ancestors, graph_inputs
from pytensor.graph.basic import Constant
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.arrays import as_float_array, check_finite
from pymc_vsk.caching import cached
from pymc_vsk.modes import PYTHON_MODE
from pymc_vsk.validation import PSI_ON_TENSORS

__all__ = [
    "Corner",
    "Disk",
    "FromFunction",
    "HalfPlane",
    "Jump",
    "Region",
    "ScalingFunction",
    "SmoothJump",
    "Stack",
    "Weierstrass",
    "as_scaling_function",
    "numeric_value",
    "numpy_or_tensor",
    "scaling_functions",
]


#: A parameter of a scaling function: a number, an array, or a tensor (e.g. a random variable).
Parameter = float | npt.ArrayLike | TensorVariable


def _is_symbolic(value: Any) -> bool:
    return isinstance(value, Variable)


def numeric_value(
    value: Parameter, point: Mapping[str, npt.ArrayLike] | None = None
) -> np.ndarray | None:
    """Return the numeric value of a parameter, or ``None`` if it is random and not in ``point``.

    Plain numbers and arrays are returned as float arrays; pytensor constants and shared
    variables give their stored value; any other expression (a PyMC random variable or a
    function of some) is evaluated with the named variables in ``point`` substituted.

    Parameters
    ----------
    value : number, array or tensor
        The parameter.
    point : dict, optional
        Values of named random variables, e.g. a MAP point or one posterior draw.

    Returns
    -------
    ndarray or None
    """
    if not _is_symbolic(value):
        return np.asarray(value, dtype=float)
    if isinstance(value, Constant):
        return np.asarray(value.data, dtype=float)
    if isinstance(value, SharedVariable):
        return np.asarray(value.get_value(), dtype=float)
    point = point or {}
    givens = {
        v: point[v.name] for v in ancestors([value]) if v.name is not None and v.name in point
    }
    if not givens:
        if rvs_in_graph(value) or any(
            not isinstance(v, Constant | SharedVariable) for v in graph_inputs([value])
        ):
            return None
        (folded,) = constant_fold([value], raise_not_constant=False)
        if not _is_symbolic(folded):
            return np.asarray(folded, dtype=float)
        # depends on shared variables only
        return np.asarray(value.eval(mode=PYTHON_MODE), dtype=float)
    try:
        return np.asarray(
            value.eval(givens, on_unused_input="ignore", mode=PYTHON_MODE), dtype=float
        )
    except Exception:
        return None


class ScalingFunction:
    r"""Base class of scaling functions :math:`\psi` (paper, Section 3).

    Parameters
    ----------
    **params
        Named parameters: numbers, arrays, pytensor expressions or PyMC random variables.

    Attributes
    ----------
    q : int
        Number of output columns (the dimension added by the lifting).
    params : dict
        The named parameters.
    example_dim : int
        Input dimension of :meth:`example` (for the tests).
    example_args : tuple
        Constructor arguments of :meth:`example`.
    """

    q: int = 1
    example_dim: int = 1
    example_args: tuple = ()

    def __init__(self, **params: Parameter) -> None:
        self.params: dict[str, Parameter] = params

    @classmethod
    def example(cls) -> ScalingFunction:
        """An instance for the tests: ``cls(*cls.example_args)`` unless a class overrides it.

        Returns
        -------
        ScalingFunction
        """
        return cls(*cls.example_args)

    # -- the one method a subclass implements -------------------------------------------------
    def _formula(self, X: TensorVariable, **params: TensorVariable) -> TensorVariable:
        raise NotImplementedError

    # -- evaluation ---------------------------------------------------------------------------
    @property
    def columns_needed(self) -> int:
        """The fewest columns X must have: one more than the highest column ψ reads."""
        return int(getattr(self, "dim", 0)) + 1

    def _check_columns(self, columns: int | None) -> None:
        need = self.columns_needed
        if columns is not None and columns < need:
            raise ValueError(
                f"{self!r} reads column {need - 1} of X, which has {columns} column(s): pass "
                f"inputs with at least {need} columns, or a ψ for {columns}-D inputs."
            )

    @property
    def is_random(self) -> bool:
        """True when a parameter is symbolic and not a constant (e.g. a PyMC random variable)."""
        return any(numeric_value(v) is None for v in self.params.values())

    @property
    def reads_data(self) -> bool:
        """True when a parameter depends on a data container (``pm.Data``): ``pm.set_data``
        changes it later, so its present value is not the one ψ keeps."""
        symbolic = [v for v in self.params.values() if isinstance(v, Variable)]
        return any(isinstance(v, SharedVariable) for v in graph_inputs(symbolic))

    #: True when ψ is constant between its steps (a hard jump or region indicator): its
    #: derivative is 0 wherever it exists. Unknown (a user's function) counts as False.
    piecewise_constant: bool = False

    def value_range(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Bounds of ψ(x) over every x and every value of the random parameters, if known.

        Returns
        -------
        (lower, upper) : arrays of shape (q,), or None
            None when the bounds depend on a random parameter or are not known in closed
            form (the default).
        """
        return None

    def __call__(self, X: npt.ArrayLike | pt.TensorLike) -> np.ndarray | TensorVariable:
        """Evaluate ψ on ``X``: numpy in, numpy out (fixed parameters); otherwise a tensor.

        Parameters
        ----------
        X : ndarray or tensor-like, shape (n, d)

        Returns
        -------
        ndarray or TensorVariable, shape (n,) or (n, q)
        """
        if isinstance(X, np.ndarray) and not self.is_random:
            return self.numpy(X)
        X = pt.as_tensor_variable(X)
        if X.ndim == 2:
            self._check_columns(X.type.shape[1])
        params = {k: pt.as_tensor_variable(v) for k, v in self.params.items()}
        return self._formula(X, **params)

    def numpy(
        self, X: npt.ArrayLike, point: Mapping[str, npt.ArrayLike] | None = None
    ) -> np.ndarray:
        """Evaluate ψ on a numpy array ``X`` of shape ``(n, d)``.

        The formula is compiled once per scaling function and shape of its parameters, with
        :data:`pymc_vsk.modes.PYTHON_MODE`; new inputs and new parameter values reuse it.

        Parameters
        ----------
        X : array-like, shape (n, d)
            Inputs.
        point : dict, optional
            Values of random parameters by name, e.g. a MAP point or one posterior draw.

        Returns
        -------
        ndarray, shape (n,) if ``q == 1`` else (n, q)
        """
        X = as_float_array(X, "X")
        if X.ndim != 2:
            raise ValueError(
                f"psi takes a 2-D array of shape (n, d); got shape {X.shape}. "
                "For 1-D inputs pass x[:, None]."
            )
        self._check_columns(X.shape[1])
        check_finite(X, "X", "ψ is defined at finite inputs only: remove or impute those rows.")
        values = {}
        for name, value in self.params.items():
            num = numeric_value(value, point)
            if num is None:
                raise ValueError(
                    f"{type(self).__name__} parameter {name!r} is random; pass its value with "
                    f"point={{name: value}} (e.g. a MAP estimate or one posterior draw)."
                )
            values[name] = num
        # static shapes: length-1 axes broadcast, others are free
        key = tuple(tuple(1 if n == 1 else None for n in np.shape(v)) for v in values.values())
        fn = cached(self, "numpy", key, lambda: self._compile_numpy(key))
        out = np.asarray(fn(X, *values.values()), dtype=float)
        if out.shape not in ({(len(X),), (len(X), 1)} if self.q == 1 else {(len(X), self.q)}):
            raise ValueError(_wrong_shape(self, out.shape, X.shape))
        return out

    def _compile_numpy(self, shapes: tuple[tuple[int | None, ...], ...]) -> Callable:
        X = pt.matrix("X", dtype="float64")
        params = {
            name: pt.tensor(name=name, dtype="float64", shape=shape)
            for name, shape in zip(self.params, shapes, strict=True)
        }
        out = pt.as_tensor_variable(self._formula(X, **params))
        return pytensor.function(
            [X, *params.values()], out, mode=PYTHON_MODE, on_unused_input="ignore"
        )

    def __repr__(self) -> str:
        args = [f"{k}={_short(v)}" for k, v in self.params.items()]
        if getattr(self, "dim", 0):  # the column, when it is not the first
            args.append(f"dim={self.dim}")
        return f"{type(self).__name__}({', '.join(args)})"


def _wrong_shape(psi: ScalingFunction, shape: tuple[int, ...], X_shape: tuple[int, ...]) -> str:
    """The message for a ψ whose values do not have one row of q columns per input row."""
    n = X_shape[0]
    expected = f"({n},) or ({n}, 1)" if psi.q == 1 else f"({n}, {psi.q})"
    return (
        f"ψ = {psi!r} returned shape {shape} for X of shape {X_shape}; expected {expected}: "
        f"one value (or a row of q={psi.q} values) per input row. Make ψ map an (n, d) array "
        "to (n,) or (n, q), and pass q= for q > 1."
    )


def _short(v: Any) -> str:
    if _is_symbolic(v):
        return v.name or type(v).__name__
    return repr(np.asarray(v).tolist())


class _UnitSteps:
    """Mixin of a ψ that is Σ_k a_k s_k(x) with every s_k(x) in [0, 1]: steps and regions.

    Its bounds follow from numeric amplitudes alone, wherever the steps are and however the
    region is drawn. One amplitude per location (``amplitudes``, broadcast to the locations,
    whose number a random vector must fix in its static shape), or a single ``amplitude``.
    """

    params: dict[str, Parameter]

    def value_range(self) -> tuple[np.ndarray, np.ndarray] | None:
        """[sum of the negative amplitudes, sum of the positive ones]; None if one is random."""
        a = numeric_value(self.params.get("amplitudes", self.params.get("amplitude")))
        if a is None:
            return None
        a = np.ravel(a)
        if "locations" in self.params and a.size == 1:
            t = numeric_value(self.params["locations"])
            count = (
                t.size
                if t is not None
                else pt.as_tensor_variable(self.params["locations"]).type.shape[0]
            )
            if count is None:
                return None
            a = np.full(int(count), float(a[0]))
        return np.array([a[a < 0].sum()]), np.array([a[a > 0].sum()])


def _column(X: Any, dim: int) -> Any:
    return X[:, dim]


def _column_index(dim: Any, owner: str) -> int:
    """``dim`` as a column index of X, or a ValueError naming it."""
    whole = isinstance(dim, int | np.integer) and not isinstance(dim, bool)
    if not (whole or (isinstance(dim, float) and dim.is_integer())) or dim < 0:
        raise ValueError(f"{owner}'s dim is a column index of X (0, 1, ...); got {dim!r}.")
    return int(dim)


class Jump(_UnitSteps, ScalingFunction):
    r"""Piecewise-constant ψ in one coordinate: the variably scaled *discontinuous* kernel case.

    .. math::

        \psi(x) = \sum_{k=1}^{K} a_k \, \mathbb{1}[x_{\mathrm{dim}} \ge t_k],

    so ψ is constant between jumps and changes by ``a_k`` across location ``t_k``. A point
    exactly at a location belongs to the **right** branch (``x >= t_k``), as the target of
    Section 4.1 does; in reflected units (x → −x, the jump at −t_k) it belongs to the other
    branch, which changes the model only for points exactly at the jump. Only differences
    ``|ψ(x) − ψ(x')|`` enter a radial VSK, so the paper's ψ(x) = 1 for x < 0.5 and 0
    otherwise (Section 4.1) is ``Jump(0.5)`` up to a constant.

    A hard step has zero derivative in its location; to sample a random location use
    :class:`SmoothJump`.

    Parameters
    ----------
    locations : float or sequence of float
        Jump locations :math:`t_k`, in the units of column ``dim`` of ``X`` (the data's
        units: ``Jump(0.5)`` jumps at x = 0.5, whatever the range of x).
    amplitudes : float or sequence of float, default 1.0
        Jump sizes :math:`a_k` (broadcast to the number of locations). They are compared with
        the length scale in the units of x, times the VSK's ``psi_scale``: in
        :func:`pymc_vsk.build_model` amplitude 1 is a jump as large as the data's x-range;
        in a hand-built :class:`pymc_vsk.VSK` (``psi_scale=1``) it is one x unit.
    dim : int, default 0
        Column of ``X`` the jumps act on; ψ does not depend on the other columns.
    """

    piecewise_constant = True

    def __init__(self, locations: Parameter, amplitudes: Parameter = 1.0, dim: int = 0) -> None:
        locations = _vector(locations, "locations", "Jump")
        amplitudes = _vector(amplitudes, "amplitudes", "Jump")
        _same_count(locations, amplitudes, "Jump")
        super().__init__(locations=locations, amplitudes=amplitudes)
        self.dim = _column_index(dim, "Jump")

    example_args = (0.5,)  # the jump of Section 4.1

    def _formula(self, X, locations, amplitudes):
        x = _column(X, self.dim)
        steps = pt.where(x[:, None] >= locations[None, :], 1.0, 0.0)
        return (steps * amplitudes[None, :]).sum(axis=1)


class SmoothJump(_UnitSteps, ScalingFunction):
    r"""Logistic relaxation of :class:`Jump`, differentiable in location, amplitude and width.

    .. math::

        \psi(x) = \sum_{k=1}^{K} a_k \, \sigma\!\left(\frac{x_{\mathrm{dim}} - t_k}{w}\right),
        \qquad \sigma(z) = \frac{1}{1 + e^{-z}}.

    As ``w → 0`` it tends to :class:`Jump` (with value ``a_k / 2`` exactly at ``t_k``). Use it
    when ``t_k`` is a random variable: the hard step has zero gradient in its location.

    Parameters
    ----------
    locations : float, sequence of float or random variable
        Jump locations :math:`t_k`, in the units of column ``dim`` of ``X`` (a random
        variable, e.g. ``pm.Uniform("t", 0, 1)`` for x in [0, 1], sets their prior in those
        units).
    amplitudes : float, sequence of float or random variable, default 1.0
        Jump sizes :math:`a_k`, as in :class:`Jump`.
    width : float, sequence of float or random variable, default 0.01
        Transition width ``w``, in the units of column ``dim`` of ``X`` like the locations,
        one for all locations or one per location: the step is σ((x − t)/w), so 90 % of it
        happens within ``±2.95 w`` of the location t (a fraction tanh(a/2) within ``±a w``).
    dim : int, default 0
        Column of ``X`` the steps act on (the coordinate :math:`x_{\mathrm{dim}}` above); ψ
        does not depend on the other columns.
    """

    def __init__(
        self,
        locations: Parameter,
        amplitudes: Parameter = 1.0,
        width: Parameter = 0.01,
        dim: int = 0,
    ) -> None:
        locations = _vector(locations, "locations", "SmoothJump")
        amplitudes = _vector(amplitudes, "amplitudes", "SmoothJump")
        _same_count(locations, amplitudes, "SmoothJump")
        count = pt.as_tensor_variable(locations).type.shape[0]
        _check_value(width, "width", "SmoothJump", positive=True, sizes=(1, count or 1))
        super().__init__(locations=locations, amplitudes=amplitudes, width=width)
        self.dim = _column_index(dim, "SmoothJump")

    @classmethod
    def example(cls) -> SmoothJump:
        """``SmoothJump(0.5, width=0.05)``."""
        return cls(0.5, width=0.05)

    def _formula(self, X, locations, amplitudes, width):
        x = _column(X, self.dim)
        steps = pt.sigmoid((x[:, None] - locations[None, :]) / width)
        return (steps * amplitudes[None, :]).sum(axis=1)


class Region(_UnitSteps, ScalingFunction):
    r"""Indicator of a region in d dimensions: ψ(x) = a · 1[x ∈ R].

    Parameters
    ----------
    predicate : callable
        ``predicate(X) -> boolean (n,)``, written with operators that work on numpy arrays
        and pytensor tensors alike, e.g. ``lambda X: X[:, 0] + X[:, 1] > 1``.
    amplitude : float or random variable, default 1.0

    See Also
    --------
    Disk, HalfPlane : regions given by a signed distance, with an optional smooth edge.
    """

    def __init__(
        self, predicate: Callable[[TensorVariable], TensorVariable], amplitude: Parameter = 1.0
    ) -> None:
        if not callable(predicate):
            raise TypeError(
                f"Region needs a callable predicate(X); got {type(predicate).__name__}."
            )
        _check_value(amplitude, "amplitude", "Region")
        super().__init__(amplitude=amplitude)
        self.predicate = predicate

    piecewise_constant = True

    example_dim = 2

    @classmethod
    def example(cls) -> Region:
        """The region x₁ > x₂ of the unit square."""
        return cls(lambda X: X[:, 0] > X[:, 1])

    def _formula(self, X, amplitude):
        return amplitude * pt.where(_call_user_function(self.predicate, X), 1.0, 0.0)


class _SignedDistanceRegion(_UnitSteps, ScalingFunction):
    """A region {x : s(x) < 0} given by a signed distance s, hard or with a logistic edge."""

    example_dim = 2

    def __init__(self, amplitude: Parameter, width: Parameter | None, **params: Parameter) -> None:
        owner = type(self).__name__
        _check_value(amplitude, "amplitude", owner)
        _check_value(width, "width", owner, positive=True)
        super().__init__(**params, amplitude=amplitude, width=1.0 if width is None else width)
        self._hard = width is None

    def _signed_distance(self, X, **params):
        raise NotImplementedError

    def _formula(self, X, amplitude, width, **params):
        s = self._signed_distance(X, **params)
        if self.hard:
            return amplitude * pt.where(s <= 0, 1.0, 0.0)
        return amplitude * pt.sigmoid(-s / width)

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.params.items() if not (self._hard and k == "width")}
        args = ", ".join(f"{k}={_short(v)}" for k, v in shown.items())
        return f"{type(self).__name__}({args}{', width=None' if self._hard else ''})"

    @property
    def hard(self) -> bool:
        """True for a hard indicator (no edge width)."""
        return self._hard

    @property
    def piecewise_constant(self) -> bool:  # type: ignore[override]
        """True for a hard indicator."""
        return self._hard

    def _check_columns(self, columns: int | None) -> None:
        """One coordinate of the centre or normal per column of X (they used to broadcast)."""
        name = "center" if "center" in self.params else "normal"
        known = pt.as_tensor_variable(self.params[name]).type.shape[0]
        if columns is not None and known is not None and columns != known:
            raise ValueError(
                f"{type(self).__name__}'s {name} has {known} coordinate(s) but X has {columns} "
                f"column(s): give one per column of X (a VSK's active_dims choose the columns "
                "ψ sees)."
            )


class Disk(_SignedDistanceRegion):
    r"""ψ(x) = a · 1[‖x − c‖₂ ≤ ρ] in 2-D (or any d), with an optional logistic edge.

    The boundary belongs to the inside. With ``width`` set, ψ(x) = a σ((ρ − ‖x − c‖)/w),
    differentiable in centre, radius and amplitude (for inferring a discontinuity curve).

    Parameters
    ----------
    center : sequence of float or random variable, shape (d,)
        Centre ``c``.
    radius : float or random variable
        Radius ρ.
    amplitude : float or random variable, default 1.0
        ``a``.
    width : float or random variable, optional
        Edge width; ``None`` (default) gives a hard indicator.
    """

    def __init__(
        self,
        center: Parameter,
        radius: Parameter,
        amplitude: Parameter = 1.0,
        width: Parameter | None = None,
    ) -> None:
        _check_value(radius, "radius", "Disk", positive=True)
        super().__init__(amplitude, width, center=_vector(center, "center", "Disk"), radius=radius)

    example_args = ([0.5, 0.5], 0.3)

    @property
    def columns_needed(self) -> int:
        """The centre's dimension (1 when it is random with an unknown shape)."""
        return pt.as_tensor_variable(self.params["center"]).type.shape[0] or 1

    def _signed_distance(self, X, center, radius):
        squared = ((X - center[None, :]) ** 2).sum(axis=1)
        # the norm's derivative 0 at the centre itself (sqrt's is infinite there, 0 · ∞ = NaN)
        safe = pt.where(squared > 0, squared, 1.0)
        return pt.where(squared > 0, pt.sqrt(safe), 0.0) - radius


class HalfPlane(_SignedDistanceRegion):
    r"""ψ(x) = a · 1[nᵀx ≥ b]: the side of a hyperplane the normal points to.

    Parameters
    ----------
    normal : sequence of float or random variable, shape (d,)
        Normal vector ``n`` (need not have unit length; the edge width is in units of nᵀx).
    offset : float or random variable
        ``b``.
    amplitude : float or random variable, default 1.0
        ``a``.
    width : float or random variable, optional
        Edge width for a logistic edge; ``None`` (default) gives a hard indicator.
    """

    def __init__(
        self,
        normal: Parameter,
        offset: Parameter,
        amplitude: Parameter = 1.0,
        width: Parameter | None = None,
    ) -> None:
        normal = _vector(normal, "normal", "HalfPlane")
        value = numeric_value(normal)
        if value is not None and not np.any(value):
            raise ValueError("HalfPlane's normal must not be zero: it gives the plane's direction.")
        _check_value(offset, "offset", "HalfPlane")
        super().__init__(amplitude, width, normal=normal, offset=offset)

    example_args = ([1.0, 1.0], 1.0)  # x₁ + x₂ ≥ 1

    @property
    def columns_needed(self) -> int:
        """The normal's dimension (1 when it is random with an unknown shape)."""
        return pt.as_tensor_variable(self.params["normal"]).type.shape[0] or 1

    def _signed_distance(self, X, normal, offset):
        return offset - (X * normal[None, :]).sum(axis=1)


class Weierstrass(ScalingFunction):
    r"""Truncated Weierstrass scaling function ψ^{K_VSK} of Section 4.2.

    .. math::

        \psi^{K_{\mathrm{VSK}}}(x_1, x_2) = \sum_{k=0}^{K_{\mathrm{VSK}}}
            a^k \cos(\pi b^k x_1) \cos(\pi b^k x_2).

    Parameters
    ----------
    K : int
        Number of terms minus one (``K_VSK``); ``K = 12`` equals the target of Section 4.2.
    a : float, default 0.5
    b : float, default 3.0
    """

    def __init__(self, K: int, a: Parameter = 0.5, b: Parameter = 3.0) -> None:
        whole = isinstance(K, int | float | np.integer | np.floating) and not isinstance(K, bool)
        if not (whole and np.isfinite(K) and int(K) == K and K >= 0):
            raise ValueError(f"Weierstrass needs an integer K >= 0; got {K!r}.")
        _check_value(a, "a", "Weierstrass")
        _check_value(b, "b", "Weierstrass")
        super().__init__(a=a, b=b)
        self.K = int(K)

    example_dim = 2

    example_args = (3,)

    @property
    def columns_needed(self) -> int:
        """Two: ψ reads x₁ and x₂."""
        return 2

    def __repr__(self) -> str:
        return (
            f"Weierstrass(K={self.K}, a={_short(self.params['a'])}, b={_short(self.params['b'])})"
        )

    def _formula(self, X, a, b):
        x1, x2 = X[:, 0], X[:, 1]
        total = 0.0
        for k in range(self.K + 1):
            total = total + a**k * pt.cos(np.pi * b**k * x1) * pt.cos(np.pi * b**k * x2)
        return total


class Corner(ScalingFunction):
    r"""A smooth scaling function for a corner (gradient discontinuity) at ``x0`` (Section 4.3).

    .. math::

        \psi(x) = A \exp\!\left(-\frac{\sqrt{(x - x_0)^2 + \varepsilon^2}
            - \varepsilon}{\delta}\right).

    The paper asks for a ψ that is globally smooth, mimics the corner and decays fast away from
    it, without giving one; this is our choice, for three reasons.

    * **Smooth:** for ε > 0, ψ is C^∞; as ε → 0 it tends to :math:`A e^{-|x - x_0|/\delta}`.
    * **Mimics the corner:** near ``x0``, ``ψ ≈ A(1 − |x − x0|/δ)``, so
      :math:`|x - x_0| \approx \delta (1 - \psi/A)`. A target of the form
      :math:`f(x) = G(x - x_0, |x - x_0|)` with ``G`` smooth (the corner target of Section 4.3
      is exactly of this form) is then a smooth function of the lifted point (x, ψ(x)), which a
      smooth stationary kernel in the lifted space represents well.
    * **Decays fast:** ψ and ψ' vanish like :math:`e^{-|x - x_0|/\delta}`, so away from the
      corner the local length scale ℓ / sqrt(1 + ψ'(x)²) (Corollary 3.3) returns to ℓ and the
      VSK behaves like the stationary kernel.

    Parameters
    ----------
    x0 : float or random variable, default 0.5
        Corner location.
    amplitude : float or random variable, default 1.0
        ``A``; the slope just beside the corner is about ``A / δ``.
    decay : float, default 0.1
        ``δ``, the decay length.
    smoothing : float, default 1e-3
        ``ε``, the radius over which the cusp of ψ is rounded.
    dim : int, default 0
    """

    def __init__(
        self,
        x0: Parameter = 0.5,
        amplitude: Parameter = 1.0,
        decay: Parameter = 0.1,
        smoothing: Parameter = 1e-3,
        dim: int = 0,
    ) -> None:
        _check_value(x0, "x0", "Corner")
        _check_value(amplitude, "amplitude", "Corner")
        _check_value(decay, "decay", "Corner", positive=True)
        _check_value(smoothing, "smoothing", "Corner", positive=True)
        super().__init__(x0=x0, amplitude=amplitude, decay=decay, smoothing=smoothing)
        self.dim = _column_index(dim, "Corner")

    def _formula(self, X, x0, amplitude, decay, smoothing):
        t = _column(X, self.dim) - x0
        return amplitude * pt.exp(-(pt.sqrt(t**2 + smoothing**2) - smoothing) / decay)


def _call_user_function(fn: Callable, X: TensorVariable, **params: TensorVariable):
    """``fn(X, **params)`` on tensors, with an explanation when ``fn`` was written for numpy."""
    name = getattr(fn, "__name__", type(fn).__name__)
    try:
        out = fn(X, **params)
    except (TypeError, ValueError, AttributeError, NotImplementedError) as err:
        raise TypeError(
            f"ψ's function {name} failed on a tensor ({err}). {PSI_ON_TENSORS}"
        ) from err
    if isinstance(out, np.ndarray) and out.dtype == object:
        raise TypeError(f"ψ's function {name} returned a numpy object array. {PSI_ON_TENSORS}")
    return out


class FromFunction(ScalingFunction):
    r"""ψ from any function: a known function of the target (ψ = f, Section 4.4) or any
    pytensor expression.

    Parameters
    ----------
    fn : callable
        ``fn(X, **params) -> (n,) or (n, q)``, written with operators and functions that work
        on pytensor tensors (``pt.exp``, ``pt.tanh``, ``pt.switch`` ...); on numpy arrays it
        is compiled as every scaling function is. The targets of :mod:`pymc_vsk.targets` are
        such functions.
    q : int, default 1
        Number of output columns.
    params : dict, optional
        Named parameters passed to ``fn`` as keyword arguments (may be random variables); they
        are listed so that :attr:`~ScalingFunction.is_random` and ``numpy(X, point)`` can see
        them.
    """

    def __init__(
        self,
        fn: Callable[..., TensorVariable],
        q: int = 1,
        params: Mapping[str, Parameter] | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"FromFunction needs a callable; got {type(fn).__name__}.")
        if isinstance(q, bool) or not isinstance(q, int | np.integer) or q < 1:
            raise ValueError(f"q, the number of ψ's columns, must be an integer >= 1; got {q!r}.")
        super().__init__(**dict(params or {}))
        self.fn = fn
        self.q = int(q)
        self._refuse_hidden_random_variables()

    def _refuse_hidden_random_variables(self) -> None:
        """Refuse a function that reads a random variable it was not given in ``params``.

        Such a ψ looked fixed (:attr:`~ScalingFunction.is_random` sees ``params`` only), so it
        was evaluated at one draw of the variable, which the model then sampled to no effect.
        """
        try:
            out = pt.as_tensor_variable(self(pt.matrix("X", dtype="float64")))
        except Exception:  # a function for numpy: its own error comes when it is evaluated
            return
        given = {id(pt.as_tensor_variable(v)) for v in self.params.values()}
        hidden = [v for v in rvs_in_graph(out) if id(v) not in given]
        if hidden:
            names = ", ".join(sorted(repr(v.name) for v in hidden))
            raise ValueError(
                f"ψ's function reads the random variable(s) {names} without taking them as "
                "parameters, so ψ would be evaluated at one draw of them and the model would "
                "sample them to no effect. Pass them in params= and take them as keyword "
                "arguments: FromFunction(lambda X, c: ..., params={'c': c})."
            )

    @classmethod
    def example(cls) -> FromFunction:
        """ψ(x) = tanh(5 (x − 0.5)), a pytensor expression."""
        return cls(_tanh_example)

    def _formula(self, X, **params):
        out = pt.as_tensor_variable(_call_user_function(self.fn, X, **params))
        if out.ndim not in (1, 2):
            raise ValueError(
                f"ψ = {self!r} returned a {out.ndim}-D tensor; it must return (n,) or (n, q)."
            )
        columns = 1 if out.ndim == 1 else out.type.shape[1]
        if columns is not None and columns != self.q:
            raise ValueError(
                f"ψ = {self!r} returns {columns} column(s) but declares q = {self.q}: make them "
                "agree (FromFunction(fn, q=...))."
            )
        return out

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", type(self.fn).__name__)
        return f"FromFunction({name}, q={self.q})"


def _tanh_example(X: TensorVariable) -> TensorVariable:
    return pt.tanh(5 * (X[:, 0] - 0.5))


class Stack(ScalingFunction):
    r"""Several scaling functions as the columns of one ψ : R^d → R^q, q = Σ q_i.

    Parameters
    ----------
    parts : sequence of ScalingFunction or callables
        The columns' scaling functions (callables become :class:`FromFunction`).
    """

    def __init__(self, parts: Sequence[ScalingFunction | Callable]) -> None:
        parts = [as_scaling_function(p) for p in parts]
        if not parts:
            raise ValueError("Stack needs at least one scaling function.")
        self.parts = parts
        self.q = sum(p.q for p in parts)
        params = {}
        for i, p in enumerate(parts):
            params.update({f"{i}.{k}": v for k, v in p.params.items()})
        super().__init__(**params)

    @classmethod
    def example(cls) -> Stack:
        """A jump and a corner at 0.5 as two columns."""
        return cls([Jump(0.5), Corner()])

    @property
    def columns_needed(self) -> int:
        """The most columns any part reads."""
        return max(p.columns_needed for p in self.parts)

    def _check_columns(self, columns: int | None) -> None:
        """Each part's own check (a Disk needs exactly one centre coordinate per column)."""
        for part in self.parts:
            part._check_columns(columns)

    @property
    def piecewise_constant(self) -> bool:  # type: ignore[override]
        """True when every part is."""
        return all(p.piecewise_constant for p in self.parts)

    def value_range(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The parts' bounds, column by column, when every part knows its own."""
        ranges = [p.value_range() for p in self.parts]
        if any(r is None for r in ranges):
            return None
        return np.concatenate([r[0] for r in ranges]), np.concatenate([r[1] for r in ranges])

    def _formula(self, X, **params):
        cols = []
        for i, p in enumerate(self.parts):
            own = {k.split(".", 1)[1]: v for k, v in params.items() if k.startswith(f"{i}.")}
            out = pt.as_tensor_variable(p._formula(X, **own))
            cols.append(out[:, None] if out.ndim == 1 else out)
        return pt.concatenate(cols, axis=1)

    def __repr__(self) -> str:
        return f"Stack({self.parts!r})"


def as_scaling_function(psi: ScalingFunction | Callable, q: int | None = None) -> ScalingFunction:
    """Return ``psi`` as a ScalingFunction; a plain callable becomes :class:`FromFunction`.

    Parameters
    ----------
    psi : ScalingFunction or callable
    q : int, optional
        Output width of a callable (default 1); checked against a scaling function's.

    Returns
    -------
    ScalingFunction
    """
    if isinstance(psi, ScalingFunction):
        if q is not None and q != psi.q:
            raise ValueError(f"q={q} was given but {psi!r} has q={psi.q}.")
        return psi
    if callable(psi):
        return FromFunction(psi, q=1 if q is None else q)
    raise TypeError(
        "psi must be a callable (n, d) -> (n,) or (n, q), or a pymc_vsk.scaling function; "
        f"got {type(psi).__name__}."
    )


def _vector(value: Any, name: str = "parameter", owner: str = "ψ") -> Any:
    """Make a scalar or sequence parameter 1-D (symbolic values keep their shape, raised to 1-D).

    A number or sequence must be finite and at most 1-D (one value per jump or coordinate).
    """
    if _is_symbolic(value):
        return pt.atleast_1d(value)
    array = np.atleast_1d(as_float_array(value, f"{owner}'s {name}"))
    if array.ndim > 1:
        raise ValueError(
            f"{owner}'s {name} must be a number or a flat sequence; got shape {array.shape}."
        )
    if array.size == 0:
        raise ValueError(f"{owner}'s {name} is empty: give at least one value.")
    _check_value(array, name, owner, sizes=(array.size,))
    return array


def _check_value(
    value: Any, name: str, owner: str, *, positive: bool = False, sizes: Sequence[int] = (1,)
) -> None:
    """A ValueError naming the parameter unless its numeric value is fit for ψ.

    The value must hold numbers (not text), as many as one of ``sizes`` (one number by
    default), all finite and, with ``positive``, all above 0. Random parameters (PyMC
    variables) are not checked: their priors say where they lie.
    """
    if value is None:
        return
    if not _is_symbolic(value):
        if np.asarray(value).dtype == bool:  # True would be the number 1
            raise TypeError(f"{owner}'s {name} must be a number, not a bool; got {value!r}.")
        value = as_float_array(value, f"{owner}'s {name}")
    number = numeric_value(value)
    if number is None:
        return
    shown = np.ravel(number).tolist()
    shown = shown[0] if len(shown) == 1 else shown
    if number.size not in sizes or number.ndim > 1:
        more = " or ".join(str(k) for k in sorted(set(sizes) - {1}))
        what = f"one number or {more} numbers" if more else "one number"
        raise ValueError(f"{owner}'s {name} must be {what}; got {shown} (shape {number.shape}).")
    if not np.all(np.isfinite(number)):
        raise ValueError(f"{owner}'s {name} must be finite; got {shown}.")
    if positive and not np.all(number > 0):
        raise ValueError(f"{owner}'s {name} must be positive; got {shown}.")


def _same_count(locations: Any, amplitudes: Any, owner: str) -> None:
    """One amplitude, or one per location (when both counts are known)."""
    count = pt.as_tensor_variable(locations).type.shape[0]
    sizes = pt.as_tensor_variable(amplitudes).type.shape[0]
    if count is not None and sizes is not None and sizes not in (1, count):
        raise ValueError(
            f"{owner} has {count} location(s) and {sizes} amplitudes: give one amplitude, "
            "or one per location."
        )


def scaling_functions() -> dict[str, type[ScalingFunction]]:
    """Every public scaling-function class defined so far, by class name.

    Classes are found as the subclasses of :class:`ScalingFunction` (recursively); private
    ones (a leading underscore) are left out. Each has an :meth:`ScalingFunction.example`.

    Returns
    -------
    dict of str to type
    """
    found: dict[str, type[ScalingFunction]] = {}
    todo = list(ScalingFunction.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        if not cls.__name__.startswith("_"):
            found.setdefault(cls.__name__, cls)
    return found


def numpy_or_tensor(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Let a function written with pytensor operations take numpy arrays too.

    The decorated ``fn(x, *options)`` is called as it is on a tensor. On anything else
    ``x`` becomes a float array and ``fn`` is compiled once per number of dimensions of ``x``
    and ``options`` (with :data:`pymc_vsk.modes.PYTHON_MODE`), then evaluated: numpy in, numpy out.

    Parameters
    ----------
    fn : callable
        ``fn(x, **options)``, with ``options`` hashable constants.

    Returns
    -------
    callable
    """

    @functools.wraps(fn)
    def wrapper(x: Any, *args: Any, **options: Any) -> Any:
        if _is_symbolic(x):
            return fn(x, *args, **options)
        x = np.asarray(x, dtype=float)
        key = (x.ndim, args, tuple(sorted(options.items())))

        def build() -> Callable:
            inp = pt.tensor("x", dtype="float64", shape=(None,) * x.ndim)
            out = pt.as_tensor_variable(fn(inp, *args, **options))
            return pytensor.function([inp], out, mode=PYTHON_MODE)

        return np.asarray(cached(fn, "numpy", key, build)(x), dtype=float)

    return wrapper
