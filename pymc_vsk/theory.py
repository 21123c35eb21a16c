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
import numpy.typing as npt

from pymc_vsk.arrays import as_float_array, check_finite

__all__ = ["power_function_lower_bounds", "spectral_extremes"]


def spectral_extremes(K: npt.ArrayLike) -> tuple[float, float]:
    """(λ_min, λ_max) of a symmetric matrix.

    Parameters
    ----------
    K : array-like, shape (n, n)
        A symmetric matrix of finite numbers, n ≥ 1.

    Returns
    -------
    lambda_min, lambda_max : float

    Raises
    ------
    ValueError
        If ``K`` is not a square, finite, symmetric matrix (a symmetric eigensolver reads
        one triangle only, so an asymmetric matrix would give the eigenvalues of another).
    TypeError
        If ``K`` holds text or other values that are not numbers.

    Examples
    --------
    >>> spectral_extremes([[2.0, 1.0], [1.0, 2.0]])
    (1.0, 3.0)
    """
    eig = np.linalg.eigvalsh(_symmetric_matrix(K, "K"))
    return float(eig[0]), float(eig[-1])


def power_function_lower_bounds(
    K: npt.ArrayLike,
    k: npt.ArrayLike,
    kxx: npt.ArrayLike,
    K_psi: npt.ArrayLike,
    k_psi: npt.ArrayLike,
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

    Raises
    ------
    ValueError
        If a matrix is not square, finite and symmetric, or is numerically singular; if
        ``K`` and ``K_psi`` differ in size; if a kernel vector array is not (n, m) with
        m the number of points of ``kxx``; or if an input holds NaN or ±inf.
    TypeError
        If an input holds text or other values that are not numbers.
    """
    lam, lam_psi = _smallest_eigenvalue(K, "K"), _smallest_eigenvalue(K_psi, "K_psi")
    n = len(np.asarray(K))
    if np.shape(K_psi) != np.shape(K):
        raise ValueError(
            f"K_psi has shape {np.shape(K_psi)} but K has {np.shape(K)}: pass both kernel "
            "matrices on the same nodes."
        )
    kxx = as_float_array(kxx, "kxx")
    if kxx.ndim > 1:
        raise ValueError(
            f"kxx must be one number or one per evaluation point, shape (m,); got {kxx.shape}."
        )
    check_finite(kxx, "kxx", "pass κ(x, x) = φ(0), a finite number.")
    k, k_psi = _kernel_vectors(k, "k", n, kxx), _kernel_vectors(k_psi, "k_psi", n, kxx)
    kxx = np.broadcast_to(kxx, k.shape[1:])
    inner = kxx - np.sum(np.square(k_psi), axis=0) / lam_psi
    outer = kxx - np.sum(np.square(k), axis=0) / lam
    return inner, outer


def _symmetric_matrix(K: npt.ArrayLike, name: str) -> np.ndarray:
    """``K`` as a float array, refused unless square, non-empty, finite and symmetric."""
    K = as_float_array(K, name)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"{name} must be a square matrix (n, n) with n ≥ 1; got shape {K.shape}.")
    check_finite(K, name, "pass a kernel matrix of finite numbers.")
    scale = float(np.max(np.abs(K)))
    if not np.allclose(K, K.T, rtol=0.0, atol=1e-12 * scale):
        raise ValueError(
            f"{name} is not symmetric: pass the kernel matrix on the nodes (a symmetric "
            "eigensolver reads one triangle only, so the spectrum would be another matrix's)."
        )
    return K


def _smallest_eigenvalue(K: npt.ArrayLike, name: str) -> float:
    """λ_min of a kernel matrix the bounds divide by; refused when not positive definite."""
    K = _symmetric_matrix(K, name)
    eig = np.linalg.eigvalsh(K)
    low, high = float(eig[0]), float(eig[-1])
    if not low > len(K) * np.finfo(float).eps * high:
        raise ValueError(
            f"{name} is numerically singular (smallest eigenvalue {low:.3g}, largest "
            f"{high:.3g}), and the bounds divide by its smallest eigenvalue. Add a nugget λ "
            "to both matrices (K + λI and K_psi + λI: the bounds hold for them, see the "
            "module's notes), e.g. λ = 1e-6 · λ_max."
        )
    return low


def _kernel_vectors(k: npt.ArrayLike, name: str, n: int, kxx: np.ndarray) -> np.ndarray:
    """Kernel vectors as columns (n, m), refused in another layout than ``kxx``'s m points."""
    k = as_float_array(k, name)
    if k.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n, m), one column per evaluation point; got shape "
            f"{k.shape}. For one point pass {name}[:, None]."
        )
    expected = (n, len(kxx) if kxx.ndim else k.shape[1])
    if k.shape != expected:
        rows = k.shape[::-1] == expected
        hint = " (cov(Xnew, X) gives (m, n): pass its transpose)" if rows else ""
        raise ValueError(
            f"{name} must have shape (n, m) = {expected}, one column per evaluation point "
            f"of kxx; got {k.shape}{hint}."
        )
    check_finite(k, name, "pass kernel vectors of finite numbers.")
    return k
