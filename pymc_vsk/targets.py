r"""The paper's test functions (Section 4) and node sets.

Targets take ``x`` of shape ``(n,)`` or ``(n, d)`` (the first ``d`` columns are used) and
work on numpy arrays and on pytensor tensors alike, so that a target can serve as its own
scaling function (ψ = f, Section 4.4) through :class:`pymc_vsk.scaling.FromFunction`.

Node sets return arrays of shape ``(N, d)`` ready for ``pm.gp`` (a column for 1-D).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pytensor.graph import Variable
from scipy.stats import qmc

from pymc_vsk.scaling import NUMPY, PYTENSOR, ArrayNamespace

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


def _xp(x: Any) -> ArrayNamespace:
    return PYTENSOR if isinstance(x, Variable) else NUMPY


def _first_column(x: Any) -> Any:
    if not isinstance(x, Variable):
        x = np.asarray(x, dtype=float)
    return x[:, 0] if x.ndim == 2 else x


def jump(x: Any) -> Any:
    r"""Discontinuous target of Section 4.1 on Ω = [0, 1]; jump of height 3 at x0 = 0.5.

    .. math::

        f(x) = \frac{\cos(14\pi(x + 0.5))}{2x + 0.5} + (x - 0.5)^4 + 3\cdot\mathbb{1}[x < 0.5].

    x = 0.5 belongs to the right branch (``x >= 0.5``), as in the paper.
    """
    xp = _xp(x)
    x = _first_column(x)
    smooth = xp.cos(14 * np.pi * (x + 0.5)) / (2 * x + 0.5) + (x - 0.5) ** 4
    return smooth + xp.where(x < JUMP_LOCATION, 3.0, 0.0)


def weierstrass(x: Any, a: float = 0.5, b: float = 3.0, K: int = 12) -> Any:
    r"""Truncated 2-D Weierstrass target of Section 4.2 (a = 0.5, b = 3, K = 12).

    .. math::

        f(x_1, x_2) = \sum_{k=0}^{K} a^k \cos(\pi b^k x_1) \cos(\pi b^k x_2).
    """
    xp = _xp(x)
    x1, x2 = x[:, 0], x[:, 1]
    if xp is NUMPY:
        x1, x2 = np.asarray(x1, dtype=float), np.asarray(x2, dtype=float)
    total = 0.0
    for k in range(K + 1):
        total = total + a**k * xp.cos(np.pi * b**k * x1) * xp.cos(np.pi * b**k * x2)
    return total


def corner(x: Any) -> Any:
    r"""Target with a corner (gradient jump) at x0 = 0.5, Section 4.3, on Ω = [0, 1].

    .. math::

        f(x) = \exp\!\left(-\tfrac12\big(5(2x - 1) \mp 0.5\big)^2\right), \quad
        - \text{ for } x \ge 0.5,\ + \text{ for } x < 0.5.

    f is continuous with a downward kink at 0.5 (value e^{-1/8}).
    """
    xp = _xp(x)
    x = _first_column(x)
    shift = xp.where(x >= JUMP_LOCATION, -0.5, 0.5)
    return xp.exp(-0.5 * (5 * (2 * x - 1) + shift) ** 2)


def exp_cos(x: Any) -> Any:
    r"""Smooth target of Section 4.4 on Ω = [−1, 1]: f(x) = exp(x) − cos(2πx)."""
    xp = _xp(x)
    x = _first_column(x)
    return xp.exp(x) - xp.cos(2 * np.pi * x)


# -- node sets ----------------------------------------------------------------------------------
def _check_count(n: int, name: str = "n") -> int:
    if int(n) != n or n < 1:
        raise ValueError(f"{name} must be a positive integer; got {n!r}.")
    return int(n)


def uniform_nodes(n: int, lower: float = 0.0, upper: float = 1.0) -> np.ndarray:
    """``n`` equispaced nodes on [lower, upper], both ends included, shape (n, 1)."""
    return np.linspace(lower, upper, _check_count(n))[:, None]


def halton_nodes(
    n: int, d: int = 1, lower: float | np.ndarray = 0.0, upper: float | np.ndarray = 1.0
) -> np.ndarray:
    """The first ``n`` points of the unscrambled Halton sequence, starting at 0, shape (n, d).

    This is MATLAB's ``haltonset`` default (NOTES.md), as used for Tables 2–3: in 1-D the
    points are the base-2 van der Corput sequence 0, 1/2, 1/4, 3/4, ... so x = 0.5 is always
    a node. Points are mapped affinely from [0, 1)^d to [lower, upper]^d.
    """
    points = qmc.Halton(d=_check_count(d, "d"), scramble=False).random(_check_count(n))
    return np.asarray(lower) + points * (np.asarray(upper) - np.asarray(lower))


def chebyshev_nodes(
    n: int, lower: float = -1.0, upper: float = 1.0, kind: str = "gauss"
) -> np.ndarray:
    r"""Chebyshev nodes on [lower, upper], increasing, shape (n, 1).

    Parameters
    ----------
    n : int
    lower, upper : float
    kind : {"gauss", "lobatto"}
        ``"gauss"`` (default): roots of T_n, cos((2k − 1)π / (2n)), k = 1..n, interior points;
        ``"lobatto"``: extrema cos(kπ / (n − 1)), k = 0..n−1, including both ends.
        For odd ``n`` both contain the centre of the interval.
    """
    n = _check_count(n)
    if kind == "gauss":
        t = np.cos((2 * np.arange(1, n + 1) - 1) * np.pi / (2 * n))
    elif kind == "lobatto":
        t = np.cos(np.arange(n) * np.pi / (n - 1)) if n > 1 else np.zeros(1)
    else:
        raise ValueError(f"kind must be 'gauss' or 'lobatto'; got {kind!r}.")
    t = np.sort(t)
    t[np.abs(t) < 1e-15] = 0.0
    return (0.5 * (lower + upper) + 0.5 * (upper - lower) * t)[:, None]


def grid_nodes(n_per_dim: int, lower: float = 0.0, upper: float = 1.0, d: int = 2) -> np.ndarray:
    """Tensor grid of ``n_per_dim**d`` equispaced nodes on [lower, upper]^d, shape (n, d)."""
    axis = np.linspace(lower, upper, _check_count(n_per_dim, "n_per_dim"))
    mesh = np.meshgrid(*([axis] * _check_count(d, "d")), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)
