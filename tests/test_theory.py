"""The bounds of Section 3.2, checked numerically where their hypotheses hold."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSK, power_function
from pymc_vsk.scaling import Jump
from pymc_vsk.theory import power_function_lower_bounds, spectral_extremes
from tests import reference as ref
from tests.conftest import BASE_KERNELS, SCALINGS, evaluate, inputs


def _matrices(kernel, psi_name, n, seed, ls=0.3):
    d, make_psi, _ = SCALINGS[psi_name]
    X = inputs(d, n, seed)
    psi = make_psi()
    K_psi, K = evaluate(
        VSK(BASE_KERNELS[kernel](d + psi.q, ls), psi)(X), BASE_KERNELS[kernel](d, ls)(X)
    )
    return X, K, K_psi, psi


@pytest.mark.parametrize("kernel", list(BASE_KERNELS))
@pytest.mark.parametrize("psi_name", ["jump", "two_jumps", "corner", "disk", "weierstrass"])
def test_largest_eigenvalue_of_the_vsk_matrix_is_smaller(kernel, psi_name):
    """φ ≥ 0 and non-increasing: 0 ≤ K^Ψ ≤ K elementwise, so λ_max(K^Ψ) ≤ λ_max(K)."""
    for seed in range(3):
        _, K, K_psi, _ = _matrices(kernel, psi_name, 25, seed)
        assert spectral_extremes(K_psi)[1] <= spectral_extremes(K)[1] * (1 + 1e-10)


@pytest.mark.parametrize("psi_name", ["jump", "two_jumps", "corner", "disk", "weierstrass"])
def test_smallest_eigenvalue_grows_for_the_gaussian_base(psi_name):
    """Gaussian base: K^Ψ = K ∘ K_ψ (Schur), so λ_min(K^Ψ) ≥ λ_min(K), also with a nugget."""
    for seed in range(5):
        _, K, K_psi, _ = _matrices("ExpQuad", psi_name, 12, seed, ls=0.4)
        assert spectral_extremes(K_psi)[0] >= spectral_extremes(K)[0] - 1e-13
        nugget = 1e-3 * np.eye(len(K))
        assert spectral_extremes(K_psi + nugget)[0] >= spectral_extremes(K + nugget)[0] - 1e-13


def test_smallest_eigenvalue_bound_needs_its_hypothesis():
    """For Matérn 1/2 the Schur argument is unavailable and the bound can fail."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = rng.integers(3, 15)
        X = rng.uniform(0, 1, (n, 1))
        P = rng.choice([0.0, 1.0], size=n) * rng.uniform(0.1, 2)
        ls = rng.uniform(0.05, 1)
        phi = ref.RADIAL["Matern12"]
        K = ref.loop_kernel(phi, X, X, ls)
        K_psi = ref.loop_kernel(phi, ref.lift(X, P), ref.lift(X, P), ls)
        if spectral_extremes(K_psi)[0] < spectral_extremes(K)[0] - 1e-9:
            return
    pytest.fail("no counterexample found: the hypothesis may be unnecessary")


@pytest.mark.parametrize("psi_name", ["jump", "corner", "weierstrass"])
def test_power_function_lower_bounds_of_section_3_2(psi_name):
    d, make_psi, _ = SCALINGS[psi_name]
    X = inputs(d, 10, seed=7)
    Xnew = inputs(d, 30, seed=8)
    psi = make_psi()
    base_psi = pm.gp.cov.ExpQuad(d + psi.q, ls=0.4)
    base = pm.gp.cov.ExpQuad(d, ls=0.4)
    vsk = VSK(base_psi, psi)
    K_psi, k_psi, K, k = evaluate(vsk(X), vsk(X, Xnew), base(X), base(X, Xnew))
    P2 = power_function(vsk, X, Xnew) ** 2
    inner, outer = power_function_lower_bounds(K, k, np.ones(len(Xnew)), K_psi, k_psi)
    assert np.all(P2 >= inner - 1e-10)
    assert np.all(inner >= outer - 1e-10)


def test_the_bounds_refuse_a_singular_matrix_and_kernel_vectors_in_rows():
    """On 15 equispaced nodes with ℓ = 0.5, λ_min(K) rounds to −1e-16: dividing by it gave an
    "outer bound" of 1e17 where P² ≤ 4e-14. cov(Xnew, X) gives (m, n) rows, not columns."""
    X, Xnew = np.linspace(0, 1, 15)[:, None], np.linspace(0, 1, 7)[:, None]
    base, vsk = pm.gp.cov.ExpQuad(1, ls=0.5), VSK(pm.gp.cov.ExpQuad(2, ls=0.5), Jump(0.5))
    K_psi, k_psi, K, k = evaluate(vsk(X), vsk(X, Xnew), base(X), base(X, Xnew))
    kxx = np.ones(len(Xnew))
    with pytest.raises(ValueError, match=r"K is numerically singular .* Add a nugget"):
        power_function_lower_bounds(K, k, kxx, K_psi, k_psi)
    nugget = 1e-6 * np.eye(len(X))
    P2 = kxx - np.einsum("ij,ij->j", k_psi, np.linalg.solve(K_psi + nugget, k_psi))
    inner, outer = power_function_lower_bounds(K + nugget, k, kxx, K_psi + nugget, k_psi)
    assert np.all(P2 >= inner - 1e-10) and np.all(inner >= outer - 1e-10)
    one = power_function_lower_bounds(K + nugget, k, 1.0, K_psi + nugget, k_psi)  # φ(0) once
    np.testing.assert_array_equal(one[0], inner)
    with pytest.raises(ValueError, match=r"k must have shape \(n, m\) = \(15, 7\).*transpose"):
        power_function_lower_bounds(K + nugget, k.T, kxx, K_psi + nugget, k_psi)
    lopsided = K + nugget
    lopsided[0, 5] += 0.5
    with pytest.raises(ValueError, match=r"K is not symmetric"):
        power_function_lower_bounds(lopsided, k, kxx, K_psi + nugget, k_psi)


def test_spectral_extremes_refuse_an_asymmetric_matrix_instead_of_reading_one_triangle():
    """eigvalsh reads the lower triangle only: [[1, 5], [0, 1]] gave (1.0, 1.0) silently."""
    with pytest.raises(ValueError, match="K is not symmetric"):
        spectral_extremes(np.array([[1.0, 5.0], [0.0, 1.0]]))
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(spectral_extremes(A), np.linalg.eigvals(A).real[[1, 0]])


@pytest.mark.parametrize(
    ("K", "error", "match"),
    [
        (np.ones((2, 3)), ValueError, r"square matrix \(n, n\).*\(2, 3\)"),
        (np.ones(3), ValueError, r"square matrix .*\(3,\)"),
        (np.zeros((0, 0)), ValueError, r"n ≥ 1"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), ValueError, "K contains 2 NaN"),
        (np.array([["1", "0"], ["0", "1"]]), TypeError, "not text"),
    ],
)
def test_spectral_extremes_explain_bad_matrices(K, error, match):
    with pytest.raises(error, match=match):
        spectral_extremes(K)


def test_the_bounds_refuse_nan_mismatched_sizes_and_one_dimensional_vectors():
    """NaN in K was reported as "not symmetric", NaN in k or kxx gave NaN bounds, K_psi of
    another size was blamed on k_psi, and one point as a 1-D k asked for shape (n, 0)."""
    X, Xnew = np.linspace(0, 1, 9)[:, None], np.array([[0.3], [0.6]])
    K = np.exp(-0.5 * (X - X.T) ** 2 / 0.2**2) + 1e-6 * np.eye(9)
    k = np.exp(-0.5 * (X - Xnew.T) ** 2 / 0.2**2)
    bad = K.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="K contains 1 NaN"):
        power_function_lower_bounds(bad, k, 1.0, K, k)
    bad = k.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"k_psi contains 1 NaN value\(s\) \(first in row 3\)"):
        power_function_lower_bounds(K, k, 1.0, K, bad)
    with pytest.raises(ValueError, match="kxx contains 1 NaN"):
        power_function_lower_bounds(K, k, np.nan, K, k)
    with pytest.raises(ValueError, match=r"K_psi has shape \(8, 8\) but K has \(9, 9\)"):
        power_function_lower_bounds(K, k, 1.0, K[:8, :8], k[:8])
    with pytest.raises(ValueError, match=r"k must be a 2-D array.*k\[:, None\]"):
        power_function_lower_bounds(K, k[:, 0], 1.0, K, k[:, 0])
    one = power_function_lower_bounds(K, k[:, :1], 1.0, K, k[:, :1])
    both = power_function_lower_bounds(K, k, [1.0, 1.0], K, k)
    np.testing.assert_allclose(one[0], both[0][:1], rtol=1e-12)
