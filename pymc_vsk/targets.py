r"""The paper's test functions (Section 4) and node sets.

Targets take ``x`` of shape ``(n,)`` or ``(n, d)`` (the first ``d`` columns are used). They
are written once with pytensor operations and take numpy arrays too (numpy in, numpy out;
see :func:`pymc_vsk.scaling.numpy_or_tensor`), so that a target can serve as its own scaling
function (ψ = f, Section 4.4) through :class:`pymc_vsk.scaling.FromFunction`.

Node sets return arrays of shape ``(N, d)`` ready for ``pm.gp`` (a column for 1-D).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytensor.tensor as pt
from pytensor.graph import Variable
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.scaling import numpy_or_tensor

__all__ = [
    "JUMP_LOCATION",
    "chebyshev_nodes",
    "corner",
    "exp_cos",
    "grid_nodes",
    "halton_nodes",
    "jump",
    "uniform_nodes",
    "weierstrass",
]

#: Location of the jump of :func:`jump` and of the corner of :func:`corner`.
JUMP_LOCATION = 0.5


#: What a target takes and returns: a numpy array or a pytensor tensor.
ArrayOrTensor = npt.ArrayLike | TensorVariable


def _first_column(x: TensorVariable) -> TensorVariable:
    if x.ndim > 2:
        raise ValueError(f"A target takes x of shape (n,) or (n, d); got a {x.ndim}-D array.")
    return x[:, 0] if x.ndim == 2 else x


@numpy_or_tensor
def jump(x: ArrayOrTensor) -> ArrayOrTensor:
    r"""Discontinuous target of Section 4.1 on Ω = [0, 1]; jump of height 3 at x0 = 0.5.

    .. math::

        f(x) = \frac{\cos(14\pi(x + 0.5))}{2x + 0.5} + (x - 0.5)^4 + 3\cdot\mathbb{1}[x < 0.5].

    x = 0.5 belongs to the right branch (``x >= 0.5``), as in the paper.

    Parameters
    ----------
    x : array or tensor, shape (n,) or (n, d)
        Points of Ω = [0, 1]; the first column is used.

    Returns
    -------
    array or tensor, shape (n,)
        The values of :func:`jump` at ``x``.
    """
    x = _first_column(x)
    smooth = pt.cos(14 * np.pi * (x + 0.5)) / (2 * x + 0.5) + (x - 0.5) ** 4
    return smooth + pt.where(x < JUMP_LOCATION, 3.0, 0.0)


def weierstrass(x: ArrayOrTensor, a: float = 0.5, b: float = 3.0, K: int = 12) -> ArrayOrTensor:
    r"""Truncated 2-D Weierstrass target of Section 4.2 (a = 0.5, b = 3, K = 12).

    .. math::

        f(x_1, x_2) = \sum_{k=0}^{K} a^k \cos(\pi b^k x_1) \cos(\pi b^k x_2).

    Parameters
    ----------
    x : array or tensor, shape (n, 2)
        Points (x₁, x₂).
    a, b : float, default 0.5 and 3.0
        Amplitude ratio and frequency ratio of consecutive terms.
    K : int, default 12
        Last term.

    Returns
    -------
    array or tensor, shape (n,)
    """
    shape = x.type.shape if isinstance(x, Variable) else np.shape(x)
    if len(shape) != 2 or (shape[1] is not None and shape[1] < 2):
        raise ValueError(
            f"weierstrass takes points (x₁, x₂) as an array of shape (n, 2); got shape {shape}."
        )
    return _weierstrass(x, a, b, K)


@numpy_or_tensor
def _weierstrass(x: ArrayOrTensor, a: float, b: float, K: int) -> ArrayOrTensor:
    x1, x2 = x[:, 0], x[:, 1]
    total = 0.0
    for k in range(K + 1):
        total = total + a**k * pt.cos(np.pi * b**k * x1) * pt.cos(np.pi * b**k * x2)
    return total


@numpy_or_tensor
def corner(x: ArrayOrTensor) -> ArrayOrTensor:
    r"""Target with a corner (gradient jump) at x0 = 0.5, Section 4.3, on Ω = [0, 1].

    .. math::

        f(x) = \exp\!\left(-\tfrac12\big(5(2x - 1) \mp 0.5\big)^2\right), \quad
        - \text{ for } x \ge 0.5,\ + \text{ for } x < 0.5.

    f is continuous with a downward kink at 0.5 (value e^{-1/8}).

    Parameters
    ----------
    x : array or tensor, shape (n,) or (n, d)
        Points of Ω = [0, 1] (a column, or the first column of a matrix).

    Returns
    -------
    array or tensor, shape (n,)
        f(x), continuous with a kink at 0.5.
    """
    x = _first_column(x)
    shift = pt.where(x >= JUMP_LOCATION, -0.5, 0.5)
    return pt.exp(-0.5 * (5 * (2 * x - 1) + shift) ** 2)


@numpy_or_tensor
def exp_cos(x: ArrayOrTensor) -> ArrayOrTensor:
    r"""Smooth target of Section 4.4 on Ω = [−1, 1]: f(x) = exp(x) − cos(2πx).

    Parameters
    ----------
    x : array or tensor, shape (n,) or (n, d)
        Points of Ω = [−1, 1]; the first column is used.

    Returns
    -------
    array or tensor, shape (n,)
        The values of :func:`exp_cos` at ``x``.
    """
    x = _first_column(x)
    return pt.exp(x) - pt.cos(2 * np.pi * x)


# -- node sets ----------------------------------------------------------------------------------
def _check_count(n: int, name: str = "n") -> int:
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n.item()
    number = isinstance(n, int | float | np.integer | np.floating) and not isinstance(n, bool)
    if not (number and np.isfinite(n) and int(n) == n and n >= 1):
        raise ValueError(f"{name} must be a positive integer; got {n!r}.")
    return int(n)


def uniform_nodes(n: int, lower: float = 0.0, upper: float = 1.0) -> np.ndarray:
    """``n`` equispaced nodes on [lower, upper], both ends included.

    Parameters
    ----------
    n : int
        Number of nodes.
    lower, upper : float, default 0 and 1
        Ends of the interval.

    Returns
    -------
    ndarray, shape (n, 1)
    """
    return np.linspace(lower, upper, _check_count(n))[:, None]


def _primes(k: int) -> list[int]:
    """The first ``k`` primes (the bases of a k-dimensional Halton sequence)."""
    primes: list[int] = []
    candidate = 2
    while len(primes) < k:
        if all(candidate % p for p in primes if p * p <= candidate):
            primes.append(candidate)
        candidate += 1
    return primes


def _radical_inverse(n: int, base: int) -> np.ndarray:
    """The van der Corput sequence in ``base``: i's digits mirrored about the point, i < n.

    The same numbers as ``scipy.stats.qmc.Halton(scramble=False)`` to the last bit, without
    importing ``scipy.stats`` (which takes a third of a second).
    """
    i = np.arange(n, dtype=np.int64)
    out = np.zeros(n)
    scale = 1.0
    while np.any(i):
        scale /= base
        i, digit = np.divmod(i, base)
        out += digit * scale
    return out


def halton_nodes(
    n: int, d: int = 1, lower: float | np.ndarray = 0.0, upper: float | np.ndarray = 1.0
) -> np.ndarray:
    """The first ``n`` points of the unscrambled Halton sequence, starting at 0, shape (n, d).

    This is MATLAB's ``haltonset`` default (no scrambling, no skipped or leaped points), the
    node sets of Tables 2–3: the first N points. In 1-D they are the base-2 van der Corput
    sequence 0, 1/2, 1/4, 3/4, ... so x = 0.5 is always a node. Points are mapped affinely
    from [0, 1)^d to [lower, upper]^d.

    Parameters
    ----------
    n : int
        Number of points.
    d : int, default 1
        Dimension.
    lower, upper : float or array, default 0 and 1
        Bounds of the box, per coordinate or for all.

    Returns
    -------
    ndarray, shape (n, d)
    """
    n, d = _check_count(n), _check_count(d, "d")
    points = np.column_stack([_radical_inverse(n, base) for base in _primes(d)])
    bounds = []
    for value, name in ((lower, "lower"), (upper, "upper")):
        value = np.asarray(value, dtype=float)
        if value.ndim > 1 or value.size not in (1, d):
            raise ValueError(
                f"{name} must be one number or one per coordinate ({d}); got shape {value.shape}."
            )
        bounds.append(value)
    return bounds[0] + points * (bounds[1] - bounds[0])


def chebyshev_nodes(
    n: int, lower: float = -1.0, upper: float = 1.0, kind: str = "gauss"
) -> np.ndarray:
    r"""Chebyshev nodes on [lower, upper], increasing, shape (n, 1).

    Parameters
    ----------
    n : int
        Number of nodes.
    lower, upper : float, default -1 and 1
        Ends of the interval.
    kind : {"gauss", "lobatto"}
        ``"gauss"`` (default): roots of T_n, cos((2k − 1)π / (2n)), k = 1..n, interior points;
        ``"lobatto"``: extrema cos(kπ / (n − 1)), k = 0..n−1, including both ends.
        For odd ``n`` both contain the centre of the interval.

    Returns
    -------
    ndarray, shape (n, 1)
    """
    n = _check_count(n)
    if kind == "gauss":
        t = np.cos((2 * np.arange(1, n + 1) - 1) * np.pi / (2 * n))
    elif kind == "lobatto":
        t = np.cos(np.arange(n) * np.pi / (n - 1)) if n > 1 else np.zeros(1)
    else:
        raise ValueError(f"kind must be 'gauss' or 'lobatto'; got {kind!r}.")
    t[np.abs(t) < 1e-15] = 0.0
    return np.sort(0.5 * (lower + upper) + 0.5 * (upper - lower) * t)[:, None]


def grid_nodes(n_per_dim: int, lower: float = 0.0, upper: float = 1.0, d: int = 2) -> np.ndarray:
    """Tensor grid of ``n_per_dim**d`` equispaced nodes on [lower, upper]^d.

    Parameters
    ----------
    n_per_dim : int
        Nodes per coordinate.
    lower, upper : float, default 0 and 1
        Ends of the interval in each coordinate.
    d : int, default 2
        Dimension.

    Returns
    -------
    ndarray, shape (n_per_dim**d, d)
    """
    axis = np.linspace(lower, upper, _check_count(n_per_dim, "n_per_dim"))
    mesh = np.meshgrid(*([axis] * _check_count(d, "d")), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)
