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
implements ``_formula(X, xp, **params)`` once for both numpy and pytensor (``xp`` is
:data:`NUMPY` or :data:`PYTENSOR`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytensor.tensor as pt
import scipy.special
from pymc.pytensorf import constant_fold, rvs_in_graph
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph import Variable, ancestors, graph_inputs
from pytensor.graph.basic import Constant

__all__ = [
    "NUMPY",
    "PYTENSOR",
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
]


@dataclass(frozen=True)
class ArrayNamespace:
    """The handful of array functions the scaling formulas need, for one backend."""

    name: str
    where: Callable
    exp: Callable
    cos: Callable
    sqrt: Callable
    abs: Callable
    sigmoid: Callable
    stack: Callable
    asarray: Callable


NUMPY = ArrayNamespace(
    "numpy",
    np.where,
    np.exp,
    np.cos,
    np.sqrt,
    np.abs,
    scipy.special.expit,
    np.stack,
    lambda v: np.asarray(v, dtype=float),
)
PYTENSOR = ArrayNamespace(
    "pytensor",
    pt.where,
    pt.exp,
    pt.cos,
    pt.sqrt,
    pt.abs,
    pt.sigmoid,
    pt.stack,
    pt.as_tensor_variable,
)


def _is_symbolic(value: Any) -> bool:
    return isinstance(value, Variable)


def numeric_value(value: Any, point: Mapping[str, Any] | None = None) -> np.ndarray | None:
    """Return the numeric value of a parameter, or ``None`` if it is random and not in ``point``.

    Plain numbers and arrays are returned as float arrays; pytensor constants and shared
    variables give their stored value; any other expression (a PyMC random variable or a
    function of some) is evaluated with the named variables in ``point`` substituted.
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
        return np.asarray(value.eval(), dtype=float)  # depends on shared variables only
    try:
        return np.asarray(value.eval(givens, on_unused_input="ignore"), dtype=float)
    except Exception:
        return None


class ScalingFunction:
    r"""Base class of scaling functions :math:`\psi` (paper, Section 3).

    Attributes
    ----------
    q : int
        Number of output columns (the dimension added by the lifting).
    params : dict
        Named parameters; numbers, arrays, pytensor expressions or PyMC random variables.
    """

    q: int = 1

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = params

    # -- the one method a subclass implements -------------------------------------------------
    def _formula(self, X: Any, xp: ArrayNamespace, **params: Any) -> Any:
        raise NotImplementedError

    # -- evaluation ---------------------------------------------------------------------------
    @property
    def is_random(self) -> bool:
        """True when a parameter is symbolic and not a constant (e.g. a PyMC random variable)."""
        return any(numeric_value(v) is None for v in self.params.values())

    def __call__(self, X: Any) -> Any:
        """Evaluate ψ on ``X``: numpy in, numpy out (fixed parameters); otherwise a tensor."""
        if isinstance(X, np.ndarray) and not self.is_random:
            return self.numpy(X)
        X = pt.as_tensor_variable(X)
        params = {k: pt.as_tensor_variable(v) for k, v in self.params.items()}
        return self._formula(X, PYTENSOR, **params)

    def numpy(self, X: np.ndarray, point: Mapping[str, Any] | None = None) -> np.ndarray:
        """Evaluate ψ on a numpy array ``X`` of shape ``(n, d)``.

        Parameters
        ----------
        X : ndarray, shape (n, d)
        point : dict, optional
            Values of random parameters by name, e.g. a MAP point or one posterior draw.

        Returns
        -------
        ndarray, shape (n,) if ``q == 1`` else (n, q)
        """
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(
                f"psi takes a 2-D array of shape (n, d); got shape {X.shape}. "
                "For 1-D inputs pass x[:, None]."
            )
        params = {}
        for name, value in self.params.items():
            num = numeric_value(value, point)
            if num is None:
                raise ValueError(
                    f"{type(self).__name__} parameter {name!r} is random; pass its value with "
                    f"point={{name: value}} (e.g. a MAP estimate or one posterior draw)."
                )
            params[name] = num
        return np.asarray(self._formula(X, NUMPY, **params), dtype=float)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


def _short(v: Any) -> str:
    if _is_symbolic(v):
        return v.name or type(v).__name__
    return repr(np.asarray(v).tolist())


def _column(X: Any, dim: int) -> Any:
    return X[:, dim]


class Jump(ScalingFunction):
    r"""Piecewise-constant ψ in one coordinate: the variably scaled *discontinuous* kernel case.

    .. math::

        \psi(x) = \sum_{k=1}^{K} a_k \, \mathbb{1}[x_{\mathrm{dim}} \ge t_k],

    so ψ is constant between jumps and changes by ``a_k`` across location ``t_k``. A point
    exactly at a location belongs to the **right** branch (``x >= t_k``), as the target of
    Section 4.1 does. Only differences ``|ψ(x) − ψ(x')|`` enter a radial VSK, so the paper's
    ψ = 1 for x < 0.5, 0 otherwise (NOTES.md) is ``Jump(0.5)`` up to a constant.

    A hard step has zero derivative in its location; to sample a random location use
    :class:`SmoothJump`.

    Parameters
    ----------
    locations : float or sequence of float
        Jump locations :math:`t_k`.
    amplitudes : float or sequence of float, default 1.0
        Jump sizes :math:`a_k` (broadcast to the number of locations).
    dim : int, default 0
        Column of ``X`` the jump acts on.
    """

    def __init__(self, locations: Any, amplitudes: Any = 1.0, dim: int = 0) -> None:
        super().__init__(locations=_vector(locations), amplitudes=_vector(amplitudes))
        self.dim = int(dim)

    def _formula(self, X, xp, locations, amplitudes):
        x = _column(X, self.dim)
        steps = xp.where(x[:, None] >= locations[None, :], 1.0, 0.0)
        return (steps * amplitudes[None, :]).sum(axis=1)


class SmoothJump(ScalingFunction):
    r"""Logistic relaxation of :class:`Jump`, differentiable in location, amplitude and width.

    .. math::

        \psi(x) = \sum_{k=1}^{K} a_k \, \sigma\!\left(\frac{x_{\mathrm{dim}} - t_k}{w}\right),
        \qquad \sigma(z) = \frac{1}{1 + e^{-z}}.

    As ``w → 0`` it tends to :class:`Jump` (with value ``a_k / 2`` exactly at ``t_k``). Use it
    when ``t_k`` is a random variable: the hard step has zero gradient in its location.

    Parameters
    ----------
    locations, amplitudes : float, sequence or random variable
        As in :class:`Jump`.
    width : float or random variable, default 0.01
        Transition width ``w`` (same units as ``x``); about 90 % of the step happens within
        ``±2.2 w`` of the location.
    dim : int, default 0
    """

    def __init__(
        self, locations: Any, amplitudes: Any = 1.0, width: Any = 0.01, dim: int = 0
    ) -> None:
        super().__init__(locations=_vector(locations), amplitudes=_vector(amplitudes), width=width)
        self.dim = int(dim)

    def _formula(self, X, xp, locations, amplitudes, width):
        x = _column(X, self.dim)
        steps = xp.sigmoid((x[:, None] - locations[None, :]) / width)
        return (steps * amplitudes[None, :]).sum(axis=1)


class Region(ScalingFunction):
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

    def __init__(self, predicate: Callable[[Any], Any], amplitude: Any = 1.0) -> None:
        if not callable(predicate):
            raise TypeError(
                f"Region needs a callable predicate(X); got {type(predicate).__name__}."
            )
        super().__init__(amplitude=amplitude)
        self.predicate = predicate

    def _formula(self, X, xp, amplitude):
        return amplitude * xp.where(self.predicate(X), 1.0, 0.0)


class _SignedDistanceRegion(ScalingFunction):
    """A region {x : s(x) < 0} given by a signed distance s, hard or with a logistic edge."""

    def _signed_distance(self, X, xp, **params):
        raise NotImplementedError

    def _formula(self, X, xp, amplitude, width, **params):
        s = self._signed_distance(X, xp, **params)
        if self.hard:
            return amplitude * xp.where(s <= 0, 1.0, 0.0)
        return amplitude * xp.sigmoid(-s / width)

    @property
    def hard(self) -> bool:
        return self._hard


class Disk(_SignedDistanceRegion):
    r"""ψ(x) = a · 1[‖x − c‖₂ ≤ ρ] in 2-D (or any d), with an optional logistic edge.

    The boundary belongs to the inside. With ``width`` set, ψ(x) = a σ((ρ − ‖x − c‖)/w),
    differentiable in centre, radius and amplitude (for inferring a discontinuity curve).

    Parameters
    ----------
    center : sequence of float or random variable, shape (d,)
    radius : float or random variable
    amplitude : float or random variable, default 1.0
    width : float or random variable, optional
        Edge width; ``None`` (default) gives a hard indicator.
    """

    def __init__(self, center: Any, radius: Any, amplitude: Any = 1.0, width: Any = None) -> None:
        super().__init__(
            center=_vector(center),
            radius=radius,
            amplitude=amplitude,
            width=1.0 if width is None else width,
        )
        self._hard = width is None

    def _signed_distance(self, X, xp, center, radius):
        return xp.sqrt(((X - center[None, :]) ** 2).sum(axis=1)) - radius


class HalfPlane(_SignedDistanceRegion):
    r"""ψ(x) = a · 1[nᵀx ≥ b]: the side of a hyperplane the normal points to.

    Parameters
    ----------
    normal : sequence of float or random variable, shape (d,)
        Normal vector ``n`` (need not have unit length; the edge width is in units of nᵀx).
    offset : float or random variable
        ``b``.
    amplitude : float or random variable, default 1.0
    width : float or random variable, optional
        Edge width for a logistic edge; ``None`` (default) gives a hard indicator.
    """

    def __init__(self, normal: Any, offset: Any, amplitude: Any = 1.0, width: Any = None) -> None:
        super().__init__(
            normal=_vector(normal),
            offset=offset,
            amplitude=amplitude,
            width=1.0 if width is None else width,
        )
        self._hard = width is None

    def _signed_distance(self, X, xp, normal, offset):
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

    def __init__(self, K: int, a: Any = 0.5, b: Any = 3.0) -> None:
        if int(K) != K or K < 0:
            raise ValueError(f"Weierstrass needs an integer K >= 0; got {K!r}.")
        super().__init__(a=a, b=b)
        self.K = int(K)

    def _formula(self, X, xp, a, b):
        x1, x2 = X[:, 0], X[:, 1]
        total = 0.0
        for k in range(self.K + 1):
            total = total + a**k * xp.cos(np.pi * b**k * x1) * xp.cos(np.pi * b**k * x2)
        return total


class Corner(ScalingFunction):
    r"""A smooth scaling function for a corner (gradient discontinuity) at ``x0`` (Section 4.3).

    .. math::

        \psi(x) = A \exp\!\left(-\frac{\sqrt{(x - x_0)^2 + \varepsilon^2}
            - \varepsilon}{\delta}\right).

    The paper asks for a ψ that is globally smooth, mimics the corner and decays fast away from
    it, without giving one; this is our choice, for three reasons.

    * **Smooth:** for ε > 0, ψ is C^∞; as ε → 0 it tends to :math:`A e^{-|x - x_0|/\delta}`.
    * **Mimics the corner:** near ``x0``, ψ ≈ A(1 − |x − x0|/δ), so
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
        x0: Any = 0.5,
        amplitude: Any = 1.0,
        decay: Any = 0.1,
        smoothing: Any = 1e-3,
        dim: int = 0,
    ) -> None:
        super().__init__(x0=x0, amplitude=amplitude, decay=decay, smoothing=smoothing)
        self.dim = int(dim)

    def _formula(self, X, xp, x0, amplitude, decay, smoothing):
        t = _column(X, self.dim) - x0
        return amplitude * xp.exp(-(xp.sqrt(t**2 + smoothing**2) - smoothing) / decay)


class FromFunction(ScalingFunction):
    r"""ψ from any function: a known function of the target (ψ = f, Section 4.4) or any
    pytensor expression.

    Parameters
    ----------
    fn : callable
        ``fn(X) -> (n,) or (n, q)``. Write it with operators and functions that work on
        pytensor tensors (``pt.exp``, ``pt.switch`` ...). If it also works on numpy arrays
        (as the targets in :mod:`pymc_vsk.targets` do), numpy evaluation is direct; otherwise
        it is evaluated through pytensor.
    q : int, default 1
        Number of output columns.
    params : dict, optional
        Named parameters passed to ``fn`` as keyword arguments (may be random variables); they
        are listed so that :attr:`is_random` and ``numpy(X, point)`` can see them.
    """

    def __init__(
        self, fn: Callable[..., Any], q: int = 1, params: Mapping[str, Any] | None = None
    ) -> None:
        if not callable(fn):
            raise TypeError(f"FromFunction needs a callable; got {type(fn).__name__}.")
        super().__init__(**dict(params or {}))
        self.fn = fn
        self.q = int(q)

    def _formula(self, X, xp, **params):
        out = self.fn(X, **params)
        if xp is NUMPY and _is_symbolic(out):
            out = out.eval()
        return out

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", type(self.fn).__name__)
        return f"FromFunction({name}, q={self.q})"


class Stack(ScalingFunction):
    r"""Several scaling functions as the columns of one ψ : R^d → R^q, q = Σ q_i.

    Parameters
    ----------
    parts : sequence of ScalingFunction or callables
    """

    def __init__(self, parts: Sequence[Any]) -> None:
        parts = [as_scaling_function(p) for p in parts]
        if not parts:
            raise ValueError("Stack needs at least one scaling function.")
        self.parts = parts
        self.q = sum(p.q for p in parts)
        params = {}
        for i, p in enumerate(parts):
            params.update({f"{i}.{k}": v for k, v in p.params.items()})
        super().__init__(**params)

    def _formula(self, X, xp, **params):
        cols = []
        for i, p in enumerate(self.parts):
            own = {k.split(".", 1)[1]: v for k, v in params.items() if k.startswith(f"{i}.")}
            out = p._formula(X, xp, **own)
            cols.append(out[:, None] if out.ndim == 1 else out)
        if xp is NUMPY:
            return np.concatenate(cols, axis=1)
        return pt.concatenate(cols, axis=1)

    def __repr__(self) -> str:
        return f"Stack({self.parts!r})"


def as_scaling_function(psi: Any, q: int | None = None) -> ScalingFunction:
    """Return ``psi`` as a ScalingFunction; a plain callable becomes :class:`FromFunction`."""
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


def _vector(value: Any) -> Any:
    """Make a scalar or sequence parameter 1-D (symbolic values keep their shape, raised to 1-D)."""
    if _is_symbolic(value):
        return pt.atleast_1d(value)
    return np.atleast_1d(np.asarray(value, dtype=float))
