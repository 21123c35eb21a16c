"""Hilbert-space approximation of a VSK with fixed ψ, and its collapsed Gaussian likelihood."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import scipy.stats

from pymc_vsk import VSK, targets
from pymc_vsk.hsgp import CollapsedLiftedHSGP, LiftedHSGP
from pymc_vsk.scaling import Jump, SmoothJump


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 1, n))[:, None]
    return X, targets.jump(X) + 0.25 * rng.normal(size=n)


def test_lifted_basis_approximates_the_dense_vsk_covariance():
    X, _ = _data(80)
    base = pm.gp.cov.ExpQuad(2, ls=[0.2, 0.6])
    hs = LiftedHSGP([40, 12], Jump(0.5), cov_func=base, L=[1.0, 2.5])
    phi, sqrt_psd = (v.eval() for v in hs.prior_linearized(X))
    K_hsgp = (phi * sqrt_psd**2) @ phi.T
    K = VSK(base, Jump(0.5))(X).eval()
    assert np.abs(K_hsgp - K).max() < 1e-3
    assert K[0, -1] < 0.01 and K_hsgp[0, 1] > 0.9  # across the jump vs neighbours


def test_collapsed_likelihood_equals_the_gaussian_of_the_basis_covariance():
    X, y = _data()
    cov = 1.5**2 * pm.gp.cov.Matern52(2, ls=[0.08, 0.5])
    with pm.Model() as model:
        hs = CollapsedLiftedHSGP([50, 8], Jump(0.5), cov_func=cov, c=1.5)
        hs.marginal_likelihood("y", X, y, sigma=0.3, mean=1.2)
    phi, sqrt_psd = (v.eval() for v in hs.prior_linearized(X))
    C = (phi * sqrt_psd**2) @ phi.T + 0.09 * np.eye(len(X))
    expected = scipy.stats.multivariate_normal(np.full(len(X), 1.2), C).logpdf(y)
    np.testing.assert_allclose(model.compile_logp()({}), expected, rtol=1e-9)
    Xnew = np.linspace(0, 1, 9)[:, None]
    mean, var = (v.eval() for v in hs.predict_moments(Xnew))
    phin = hs.prior_linearized(Xnew)[0].eval()
    Knx = (phin * sqrt_psd**2) @ phi.T
    np.testing.assert_allclose(mean, 1.2 + Knx @ np.linalg.solve(C, y - 1.2), rtol=1e-8)
    Knn = (phin * sqrt_psd**2) @ phin.T
    np.testing.assert_allclose(var, np.diag(Knn - Knx @ np.linalg.solve(C, Knx.T)), atol=1e-10)


def test_collapsed_likelihood_approaches_the_dense_vsk_likelihood():
    X, y = _data(150, seed=1)
    kernel = pm.gp.cov.ExpQuad(2, ls=[0.1, 0.5])
    K = 1.4**2 * VSK(kernel, Jump(0.5))(X).eval() + 0.25**2 * np.eye(len(X))
    exact = scipy.stats.multivariate_normal(np.full(len(X), 1.3), K).logpdf(y)
    errors = []
    for m in ([12, 4], [24, 8], [48, 12]):
        with pm.Model() as model:
            hs = CollapsedLiftedHSGP(m, Jump(0.5), cov_func=1.4**2 * kernel, L=[0.8, 2.5])
            hs.marginal_likelihood("y", X, y, sigma=0.25, mean=1.3)
        errors.append(abs(model.compile_logp()({}) - exact))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-3 * abs(exact)


def test_random_psi_is_refused_with_a_clear_error():
    with pm.Model():
        loc = pm.Uniform("loc", 0.1, 0.9)
        with pytest.raises(ValueError, match=r"fixed ψ.*frozen at one draw.*MarginalApprox"):
            LiftedHSGP([10, 4], SmoothJump(loc), cov_func=pm.gp.cov.ExpQuad(2, ls=0.1), c=1.5)


def test_a_vsk_given_to_pymc_hsgp_points_to_lifted_hsgp():
    X, _ = _data(20)
    vsk = VSK(pm.gp.cov.ExpQuad(2, ls=0.1), Jump(0.5))
    with pytest.raises(NotImplementedError, match="LiftedHSGP"):
        pm.gp.HSGP(m=[10], c=1.5, cov_func=vsk).prior_linearized(X)


def test_prior_and_conditional_on_lifted_inputs():
    X, y = _data(60)
    with pm.Model() as model:
        hs = LiftedHSGP([20, 6], Jump(0.5), cov_func=pm.gp.cov.Matern32(2, ls=0.2), c=1.5)
        f = hs.prior("f", X=X)
        pm.Normal("y", mu=f, sigma=0.3, observed=y)
        hs.conditional("f_new", Xnew=np.linspace(0, 1, 11)[:, None])
    draw = pm.draw(model["f_new"], random_seed=1)
    assert draw.shape == (11,) and np.all(np.isfinite(draw))
    assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_public_names_of_the_module():
    import pymc_vsk.hsgp

    assert set(pymc_vsk.hsgp.__all__) == {"CollapsedLiftedHSGP", "LiftedHSGP"}
