r"""Numerical forms of the bounds of Section 3.2 (VSK Kriging variance), with their hypotheses.

Notation: K = [κ_ℓ(x_i, x_j)] is the stationary kernel matrix on the nodes, K^Ψ the VSK
matrix, k(x) and k^Ψ(x) the kernel vectors at x.

* **Proposition 3.6** (elementwise bound). If φ is radially non-increasing, then
  (K^Ψ)_ij ≤ K_ij, because ‖Ψ(x) − Ψ(x')‖ ≥ ‖x − x'‖. Holds for every base kernel here.
* **Spectral radius.** If moreover φ ≥ 0, K^Ψ and K are non-negative matrices with
  0 ≤ K^Ψ ≤ K elementwise, so λ_max(K^Ψ) ≤ λ_max(K) (monotonicity of the Perron root,
  Berman and Plemmons, ref. [3]).
* **Smallest eigenvalue.** λ_min(K^Ψ) ≥ λ_min(K) holds for the **Gaussian** base: there
  K^Ψ = K ∘ K_ψ (Hadamard product) with K_ψ positive semi-definite and unit diagonal, and
  Schur's theorem gives λ_min(A ∘ B) ≥ λ_min(A) min_i B_ii. It can fail for other bases
  (seen for Matérn 1/2 with a jump ψ, by about 1e-6).
* **Power-function lower bound** (eq. 9 and the chain of inequalities of Section 3.2). Under
  both hypotheses (Gaussian base, so ‖k^Ψ(x)‖ ≤ ‖k(x)‖ and λ_min(K^Ψ) ≥ λ_min(K)),

  .. math::

      P^2_{\kappa^\Psi, X}(x) \ge \kappa(x, x) - \frac{\|k^\Psi(x)\|^2}{\lambda_{\min}(K^\Psi)}
          \ge \kappa(x, x) - \frac{\|k(x)\|^2}{\lambda_{\min}(K)}.

  With a nugget λ both spectra shift by λ and the bounds hold for K + λI, K^Ψ + λI.
"""

from __future__ import annotations

import numpy as np

__all__ = ["power_function_lower_bounds", "spectral_extremes"]


def spectral_extremes(K: np.ndarray) -> tuple[float, float]:
    """(λ_min, λ_max) of a symmetric matrix.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        A symmetric matrix.

    Returns
    -------
    lambda_min, lambda_max : float
    """
    eig = np.linalg.eigvalsh(np.asarray(K, dtype=float))
    return float(eig[0]), float(eig[-1])


def power_function_lower_bounds(
    K: np.ndarray, k: np.ndarray, kxx: np.ndarray, K_psi: np.ndarray, k_psi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    r"""The two lower bounds on P²_{κ^Ψ,X}(x) of Section 3.2.

    Parameters
    ----------
    K, K_psi : array, shape (n, n)
        Stationary and VSK kernel matrices on the nodes.
    k, k_psi : array, shape (n, m)
        Stationary and VSK kernel vectors at m evaluation points (columns).
    kxx : float or array, shape (m,)
        κ(x, x) (equal for both: φ(0)); one number stands for every point.

    Returns
    -------
    inner, outer : arrays, shape (m,)
        κ(x,x) − ‖k^Ψ(x)‖²/λ_min(K^Ψ) and κ(x,x) − ‖k(x)‖²/λ_min(K). The first bounds P²
        for any kernel; the second bounds the first under the hypotheses of the module
        docstring (Gaussian base).
    """
    lam_psi, lam = _smallest_eigenvalue(K_psi, "K_psi"), _smallest_eigenvalue(K, "K")
    n, m = len(K), np.shape(k)[-1] if np.ndim(k) == 2 else 0
    kxx = np.asarray(kxx, dtype=float)
    kxx = np.full(m, float(kxx)) if kxx.ndim == 0 else kxx
    k, k_psi = _kernel_vectors(k, "k", n, kxx.shape), _kernel_vectors(k_psi, "k_psi", n, kxx.shape)
    inner = kxx - np.sum(np.square(k_psi), axis=0) / lam_psi
    outer = kxx - np.sum(np.square(k), axis=0) / lam
    return inner, outer


def _smallest_eigenvalue(K: np.ndarray, name: str) -> float:
    """λ_min of a kernel matrix the bounds divide by; refused when not positive definite."""
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix (n, n); got shape {K.shape}.")
    scale = float(np.max(np.abs(K))) if K.size else 0.0
    if not np.allclose(K, K.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError(f"{name} is not symmetric: pass the kernel matrix on the nodes.")
    low, high = spectral_extremes(K)
    if not low > len(K) * np.finfo(float).eps * high:
        raise ValueError(
            f"{name} is numerically singular (smallest eigenvalue {low:.3g}, largest "
            f"{high:.3g}), and the bounds divide by its smallest eigenvalue. Add a nugget λ "
            "to both matrices (K + λI and K_psi + λI: the bounds hold for them, see the "
            "module's notes), e.g. λ = 1e-6 · λ_max."
        )
    return low


def _kernel_vectors(k: np.ndarray, name: str, n: int, points: tuple[int, ...]) -> np.ndarray:
    """Kernel vectors as columns (n, m), refused in another layout than ``kxx``'s m points."""
    k, expected = np.asarray(k, dtype=float), (n, *points)
    if k.shape != expected:
        rows = k.shape[::-1] == expected
        hint = " (cov(Xnew, X) gives (m, n): pass its transpose)" if rows else ""
        raise ValueError(
            f"{name} must have shape (n, m) = {expected}, one column per evaluation point "
            f"of kxx; got {k.shape}{hint}."
        )
    return k
