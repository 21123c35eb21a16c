"""Independent closed-form numpy references for the tests (no pymc_vsk code is used here).

Kernels are written as functions of the Euclidean distance r between (scaled) points, in the
same parameterisation as PyMC's stationary kernels; scaling functions are written out directly
from the paper's formulas.
"""

from __future__ import annotations

import numpy as np

SQ3, SQ5 = np.sqrt(3.0), np.sqrt(5.0)

#: φ(r) of each PyMC base kernel, r = ‖(x − x')/ℓ‖.
RADIAL = {
    "ExpQuad": lambda r: np.exp(-0.5 * r**2),
    "Matern12": lambda r: np.exp(-r),
    "Exponential": lambda r: np.exp(-0.5 * r),
    "Matern32": lambda r: (1 + SQ3 * r) * np.exp(-SQ3 * r),
    "Matern52": lambda r: (1 + SQ5 * r + 5.0 / 3.0 * r**2) * np.exp(-SQ5 * r),
    "RatQuad": lambda r, alpha=2.0: (1 + r**2 / (2 * alpha)) ** (-alpha),
}


def loop_kernel(phi, A: np.ndarray, B: np.ndarray, ls) -> np.ndarray:
    """K_ij = φ(‖(a_i − b_j)/ℓ‖), with explicit loops (GPflow-style reference)."""
    ls = np.broadcast_to(np.asarray(ls, dtype=float), (A.shape[1],))
    K = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            K[i, j] = phi(np.sqrt(np.sum(((a - b) / ls) ** 2)))
    return K


def lift(X: np.ndarray, psi_values: np.ndarray) -> np.ndarray:
    """Ψ(X) = [X, ψ(X)] (eq. 13)."""
    P = np.asarray(psi_values, dtype=float)
    return np.hstack([X, P.reshape(len(X), -1)])


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# ψ references, each a function of an (n, d) array -------------------------------------------
def psi_jump(X, loc=0.5, amp=1.0):
    return np.array([amp if x >= loc else 0.0 for x in X[:, 0]])


def psi_two_jumps(X, locs=(0.3, 0.7), amps=(1.0, -2.0)):
    return np.array([sum(a for t, a in zip(locs, amps, strict=True) if x >= t) for x in X[:, 0]])


def psi_smooth_jump(X, loc=0.5, amp=1.0, width=0.05):
    return amp * sigmoid((X[:, 0] - loc) / width)


def psi_disk(X, center=(0.5, 0.5), radius=0.3, amp=1.0):
    return np.array([amp if np.hypot(*(x - np.array(center))) <= radius else 0.0 for x in X])


def psi_half_plane(X, normal=(1.0, 1.0), offset=1.0):
    return np.array([1.0 if x @ np.array(normal) >= offset else 0.0 for x in X])


def psi_weierstrass(X, K, a=0.5, b=3.0):
    return sum(
        a**k * np.cos(np.pi * b**k * X[:, 0]) * np.cos(np.pi * b**k * X[:, 1]) for k in range(K + 1)
    )


def psi_corner(X, x0=0.5, amp=1.0, decay=0.1, eps=1e-3):
    t = X[:, 0] - x0
    return amp * np.exp(-(np.sqrt(t**2 + eps**2) - eps) / decay)


def exp_cos(X):
    return np.exp(X[:, 0]) - np.cos(2 * np.pi * X[:, 0])


def jump_target(x):
    x = np.asarray(x, dtype=float).ravel()
    out = np.cos(14 * np.pi * (x + 0.5)) / (2 * x + 0.5) + (x - 0.5) ** 4
    return out + 3.0 * (x < 0.5)


#: ψ of each scaling-function class's ``example()``, by class name.
PSI_EXAMPLES = {
    "Jump": psi_jump,
    "SmoothJump": psi_smooth_jump,
    "Corner": psi_corner,
    "FromFunction": lambda X: np.tanh(5 * (X[:, 0] - 0.5)),
    "Stack": lambda X: np.c_[psi_jump(X), psi_corner(X)],
    "Disk": psi_disk,
    "HalfPlane": psi_half_plane,
    "Region": lambda X: (X[:, 0] > X[:, 1]).astype(float),
    "Weierstrass": lambda X: psi_weierstrass(X, 3),
}
