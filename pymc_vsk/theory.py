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
    kxx : array, shape (m,)
        κ(x, x) (equal for both: φ(0)).

    Returns
    -------
    inner, outer : arrays, shape (m,)
        κ(x,x) − ‖k^Ψ(x)‖²/λ_min(K^Ψ) and κ(x,x) − ‖k(x)‖²/λ_min(K). The first bounds P²
        for any kernel; the second bounds the first under the hypotheses of the module
        docstring (Gaussian base).
    """
    inner = kxx - np.sum(np.square(k_psi), axis=0) / spectral_extremes(K_psi)[0]
    outer = kxx - np.sum(np.square(k), axis=0) / spectral_extremes(K)[0]
    return inner, outer
