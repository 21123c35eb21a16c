"""Gibbs and Paciorek–Schervish covariances, and their local equivalence with VSKs (§3.1)."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest

from pymc_vsk import VSK, scaling, targets
from pymc_vsk.gibbs import Gibbs, PaciorekSchervish, psi_gradient
from tests import reference as ref
from tests.conftest import evaluate


def gibbs_reference(phi, X, Y, lx, ly):
    d = X.shape[1]
    K = np.empty((len(X), len(Y)))
    for i, (x, a) in enumerate(zip(X, lx, strict=True)):
        for j, (y, b) in enumerate(zip(Y, ly, strict=True)):
            l2 = a**2 + b**2
            K[i, j] = (2 * a * b / l2) ** (d / 2) * phi(np.sqrt(2 * np.sum((x - y) ** 2) / l2))
    return K


def ps_reference(phi, X, Y, SX, SY):
    K = np.empty((len(X), len(Y)))
    for i, (x, A) in enumerate(zip(X, SX, strict=True)):
        for j, (y, B) in enumerate(zip(Y, SY, strict=True)):
            avg = 0.5 * (A + B)
            h = x - y
            pre = np.linalg.det(A) ** 0.25 * np.linalg.det(B) ** 0.25 / np.sqrt(np.linalg.det(avg))
            K[i, j] = pre * phi(np.sqrt(h @ np.linalg.solve(avg, h)))
    return K


def ell(X):  # a smooth positive length-scale field usable in numpy and pytensor
    return 0.15 + 0.1 * X[:, 0] ** 2


def sigma_field(X):  # Σ(x): rotated anisotropic, positive definite
    a = 0.04 + 0.02 * X[:, 0]
    b = 0.01 + 0.01 * X[:, 1]
    c = 0.01 * X[:, 0] * X[:, 1]
    if isinstance(X, np.ndarray):
        return np.stack([np.stack([a, c], -1), np.stack([c, b], -1)], -2)
    return pt.stack([pt.stack([a, c], -1), pt.stack([c, b], -1)], -2)


def test_gibbs_expquad_in_1d_equals_pymc_gibbs():
    X = np.sort(np.random.default_rng(0).uniform(0, 1, 20))[:, None]
    ours, theirs = evaluate(Gibbs(1, ell)(X), pm.gp.cov.Gibbs(1, ell)(X))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kernel", ["expquad", "matern32", "matern52", "exponential"])
def test_gibbs_in_2d_equals_closed_form(kernel):
    rng = np.random.default_rng(1)
    X, Y = rng.uniform(0, 1, (12, 2)), rng.uniform(0, 1, (5, 2))
    cov = Gibbs(2, ell, kernel)
    K, Ks, Kd = evaluate(cov(X), cov(X, Y), cov(X, diag=True))
    phi = ref.RADIAL[
        {
            "expquad": "ExpQuad",
            "matern32": "Matern32",
            "matern52": "Matern52",
            "exponential": "Exponential",
        }[kernel]
    ]
    np.testing.assert_allclose(K, gibbs_reference(phi, X, X, ell(X), ell(X)), rtol=1e-12)
    np.testing.assert_allclose(Ks, gibbs_reference(phi, X, Y, ell(X), ell(Y)), rtol=1e-12)
    np.testing.assert_allclose(Kd, np.diag(K), rtol=1e-14)


@pytest.mark.parametrize("kernel", ["expquad", "matern32", "matern12"])
def test_paciorek_schervish_in_2d_equals_closed_form(kernel):
    rng = np.random.default_rng(2)
    X, Y = rng.uniform(0, 1, (10, 2)), rng.uniform(0, 1, (4, 2))
    cov = PaciorekSchervish(2, sigma_field, kernel)
    K, Ks = evaluate(cov(X), cov(X, Y))
    phi = ref.RADIAL[{"expquad": "ExpQuad", "matern32": "Matern32", "matern12": "Matern12"}[kernel]]
    np.testing.assert_allclose(
        K, ps_reference(phi, X, X, sigma_field(X), sigma_field(X)), rtol=1e-11
    )
    np.testing.assert_allclose(
        Ks, ps_reference(phi, X, Y, sigma_field(X), sigma_field(Y)), rtol=1e-11
    )


def test_paciorek_schervish_with_isotropic_sigma_is_gibbs():
    X = np.random.default_rng(3).uniform(0, 1, (15, 2))
    iso = PaciorekSchervish(2, lambda X: pt.square(ell(X))[:, None, None] * pt.eye(2)[None])
    K_ps, K_g = evaluate(iso(X), Gibbs(2, ell)(X))
    np.testing.assert_allclose(K_ps, K_g, rtol=1e-12)


@pytest.mark.parametrize(
    "cov",
    [
        Gibbs(2, ell, "matern32"),
        PaciorekSchervish(2, sigma_field, "matern52"),
        PaciorekSchervish.from_psi(scaling.Weierstrass(2), 0.2, 2, kernel="expquad"),
        Gibbs.from_psi(scaling.FromFunction(targets.exp_cos), 0.5, kernel="matern52"),
    ],
    ids=["gibbs", "ps", "ps_from_psi", "gibbs_from_psi"],
)
def test_gram_matrices_are_positive_semidefinite(cov):
    for seed in range(3):
        X = np.random.default_rng(10 + seed).uniform(0, 1, (40, cov.input_dim))
        (K,) = evaluate(cov(X))
        np.testing.assert_allclose(K, K.T, atol=1e-14)
        assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.trace(K)


def test_from_psi_length_scales_use_the_autodiff_gradient():
    x = np.linspace(-1, 1, 9)[:, None]
    fprime = np.exp(x[:, 0]) + 2 * np.pi * np.sin(2 * np.pi * x[:, 0])
    (G,) = evaluate(psi_gradient(scaling.FromFunction(targets.exp_cos), pt.as_tensor_variable(x)))
    np.testing.assert_allclose(G[:, 0, 0], fprime, rtol=1e-12)
    gibbs = Gibbs.from_psi(scaling.FromFunction(targets.exp_cos), 0.5)
    (ls,) = evaluate(gibbs.lengthscale_func(pt.as_tensor_variable(x)))
    np.testing.assert_allclose(ls, 0.5 / np.sqrt(1 + fprime**2), rtol=1e-12)
    # 2-D: Σ = ℓ²(I + ∇ψ∇ψᵀ)⁻¹ with the analytic gradient of ψ = cos(πx1)cos(πx2)
    X = np.random.default_rng(4).uniform(0, 1, (6, 2))
    ps = PaciorekSchervish.from_psi(scaling.Weierstrass(0), 0.3, 2)
    (S,) = evaluate(ps.sigma_func(pt.as_tensor_variable(X)))
    g = (
        -np.pi
        * np.c_[
            np.sin(np.pi * X[:, 0]) * np.cos(np.pi * X[:, 1]),
            np.cos(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]),
        ]
    )
    expected = [0.09 * np.linalg.inv(np.eye(2) + np.outer(v, v)) for v in g]
    np.testing.assert_allclose(S, expected, rtol=1e-12)


def _convergence_slope(vsk, local, X0, directions, hs):
    errors = []
    for h in hs:
        err = 0.0
        for u in directions:
            Xh = X0 + h * u
            K_vsk, K_loc = evaluate(vsk(X0, Xh), local(X0, Xh))
            err = max(err, np.max(np.abs(np.diag(K_vsk) - np.diag(K_loc))))
        errors.append(err)
    slope = np.polyfit(np.log(hs), np.log(errors), 1)[0]
    return np.array(errors), slope


@pytest.mark.parametrize("kernel", ["ExpQuad", "Matern32", "Matern52", "Exponential"])
def test_corollary_3_3_vsk_approaches_gibbs_as_x_prime_tends_to_x(kernel):
    """|κ^Ψ(x, x+h) − κ^Gibbs(x, x+h)| → 0 as O(h²): the o(1) of Corollary 3.3, with a rate.

    The rate: d_Ψ² − hᵀM̄h = O(h³) (Taylor expansion of ψ, Theorem 3.2) and the Gibbs
    prefactor is 1 − O(h²), so the kernels differ by O(h²).
    """
    psi = scaling.FromFunction(targets.exp_cos)
    ls = 0.8
    vsk = VSK(getattr(pm.gp.cov, kernel)(2, ls=ls), psi)
    gibbs = Gibbs.from_psi(psi, ls, kernel=kernel.lower())
    X0 = np.linspace(-0.9, 0.9, 7)[:, None]
    hs = np.geomspace(1e-2, 1e-4, 5)
    errors, slope = _convergence_slope(vsk, gibbs, X0, [np.ones((1, 1)), -np.ones((1, 1))], hs)
    assert errors[-1] < 1e-5
    assert 1.9 < slope < 2.1, (errors, slope)


@pytest.mark.parametrize("kernel", ["ExpQuad", "Matern52"])
def test_corollary_3_4_vsk_approaches_paciorek_schervish_in_2d(kernel):
    psi = scaling.Weierstrass(1)
    ls = 0.5
    vsk = VSK(getattr(pm.gp.cov, kernel)(3, ls=ls), psi)
    ps = PaciorekSchervish.from_psi(psi, ls, 2, kernel=kernel.lower())
    X0 = np.random.default_rng(5).uniform(0.1, 0.9, (6, 2))
    dirs = [np.array([[1.0, 0.0]]), np.array([[0.6, 0.8]]), np.array([[-0.8, 0.6]])]
    errors, slope = _convergence_slope(vsk, ps, X0, dirs, np.geomspace(1e-2, 1e-4, 5))
    assert errors[-1] < 1e-5
    assert 1.9 < slope < 2.1, (errors, slope)


def test_bad_arguments():
    with pytest.raises(TypeError, match="lengthscale_func must be callable"):
        Gibbs(1, 0.3)
    with pytest.raises(TypeError, match="kernel must be a name"):
        Gibbs(1, ell, kernel="gauss")
    with pytest.raises(TypeError, match="not an isotropic positive definite"):
        Gibbs(1, ell, kernel=pm.gp.cov.Cosine(1, ls=1.0))
    with pytest.raises(ValueError, match=r"q = 1"):
        Gibbs.from_psi(scaling.Stack([scaling.Corner(), scaling.Corner(0.3)]), 0.3)
    with pytest.raises(ValueError, match="NaN"):
        Gibbs(1, ell)(np.array([[np.nan]]))


def test_length_scales_as_a_column_or_a_scalar_are_one_per_row():
    """PyMC's own style ``lambda X: 0.1 + 0.3 * X**2`` returns (n, 1): the kernel was a
    silent (n, n, n) tensor; a constant ``lambda X: 0.2`` raised an IndexError."""
    X = np.linspace(0, 1, 6)[:, None]
    reference = pm.gp.cov.Gibbs(1, lambda X: 0.1 + 0.3 * X[:, 0] ** 2)(X).eval()
    for func in (lambda X: 0.1 + 0.3 * X**2, lambda X: 0.1 + 0.3 * X[:, 0] ** 2):
        np.testing.assert_allclose(Gibbs(1, func)(X).eval(), reference, rtol=1e-12)
    stationary = pm.gp.cov.ExpQuad(1, ls=0.2)(X).eval()
    np.testing.assert_allclose(Gibbs(1, lambda X: 0.2)(X).eval(), stationary, rtol=1e-12)
    with pytest.raises(ValueError, match=r"one length scale per row of X, shape \(n,\)"):
        Gibbs(1, lambda X: pt.ones((X.shape[0], 2, 2)))(X)


def test_from_psi_refuses_a_step_and_takes_the_vsk_s_psi_scale():
    """A hard jump has ψ' = 0: the kernel was the stationary one (k = 0.80 across the jump,
    where the VSK gives 0.003). With x in other units the VSK's lifted coordinate is s·ψ,
    and the Gibbs kernel must see the same s."""
    with pytest.raises(ValueError, match=r"needs a differentiable ψ; Jump\(.*SmoothJump"):
        Gibbs.from_psi(scaling.Jump(0.5), 0.3)
    hard_disk = scaling.Disk([0.5, 0.5], 0.3)
    with pytest.raises(ValueError, match=r"needs a differentiable ψ; Disk"):
        PaciorekSchervish.from_psi(scaling.Stack([hard_disk, scaling.Weierstrass(2)]), 0.3, 2)
    x0, h = np.array([[0.48]]), 1e-3
    answers = []
    for a, b in ((1.0, 0.0), (1000.0, -7.0)):
        psi = scaling.SmoothJump(a * 0.5 + b, width=a * 0.05)
        vsk = VSK(pm.gp.cov.ExpQuad(2, ls=0.3 * a), psi, psi_scale=a)
        gibbs = Gibbs.from_psi(psi, 0.3 * a, psi_scale=a)
        pair = (a * x0 + b, a * (x0 + h) + b)
        answers.append([vsk(*pair).eval()[0, 0], gibbs(*pair).eval()[0, 0]])
    np.testing.assert_allclose(answers[0], answers[1], rtol=1e-9)
    assert abs(answers[0][0] - answers[0][1]) < 1e-4  # and the two agree at small h


def test_from_psi_differentiates_integer_inputs_as_floats():
    """The gradient with respect to an integer tensor is zero: with day numbers or years as
    integers, ψ'(x) was 0 and both kernels were the stationary one, without a word."""
    psi = scaling.SmoothJump(1.0, width=1.0)
    Xi = np.array([[0], [1], [2], [3]])
    X = Xi.astype(float)
    s = 1.0 / (1.0 + np.exp(-(X[:, 0] - 1.0)))  # the logistic step and its derivative
    lx = 0.8 / np.sqrt(1.0 + (s * (1.0 - s)) ** 2)
    expected = gibbs_reference(lambda r: np.exp(-0.5 * r**2), X, X, lx, lx)
    np.testing.assert_allclose(psi_gradient(psi, Xi).eval()[:, 0, 0], s * (1.0 - s), rtol=1e-12)
    gibbs, ps = Gibbs.from_psi(psi, 0.8), PaciorekSchervish.from_psi(psi, 0.8, 1)
    for K in evaluate(gibbs(Xi), ps(Xi), gibbs(X, Xi)):
        np.testing.assert_allclose(K, expected, rtol=1e-12)


@pytest.mark.parametrize("cls", [Gibbs, PaciorekSchervish])
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"ls": 0.0}, ValueError, r"ls must be positive; got 0"),
        ({"ls": -0.3}, ValueError, r"ls must be positive; got -0.3"),
        ({"ls": np.nan}, ValueError, r"ls contains 1 NaN"),
        ({"ls": "0.3"}, TypeError, r"ls must hold numbers, not text"),
        ({"ls": True}, TypeError, r"ls must be a number; got True"),
        ({"ls": [0.3, 0.4]}, ValueError, r"ls must be one number; got shape \(2,\)"),
        ({"psi_scale": np.inf}, ValueError, r"psi_scale contains 1 infinite"),
        ({"psi_scale": -2.0}, ValueError, r"psi_scale must be positive"),
    ],
)
def test_from_psi_refuses_a_length_scale_or_scale_that_is_not_one_positive_number(
    cls, kwargs, error, match
):
    """ℓ = 0 or a NaN gave a matrix of NaN, text failed inside pytensor, and a negative ℓ
    was taken for its absolute value."""
    kwargs = {"psi": scaling.SmoothJump(0.5, width=0.05), "ls": 0.3, "input_dim": 1} | kwargs
    with pytest.raises(error, match=match):
        cls.from_psi(**kwargs)


def test_a_sigma_field_of_the_wrong_size_and_one_dimensional_inputs_are_refused():
    """A (n, 2, 2) field for a 1-D kernel gave numbers; a 1-D X failed inside pytensor."""
    X = np.linspace(0.0, 1.0, 5)[:, None]
    with pytest.raises(ValueError, match=r"shape \(n, 1, 1\) .* got static shape \(5, 2, 2\)"):
        PaciorekSchervish(1, lambda X: pt.ones((X.shape[0], 2, 2)))(X)
    with pytest.raises(ValueError, match=r"2-D .* got 1 dimension\(s\)"):
        psi_gradient(scaling.SmoothJump(0.5, width=0.05), np.linspace(0.0, 1.0, 5))
