"""``predict`` for every GP a user builds, each against an independent reference.

References: closed-form numpy conditionals (Rasmussen and Williams eq. 2.23-2.24; the sparse
predictive equations of Quiñonero-Candela and Rasmussen 2005), PyMC's own ``gp.conditional``
through ``pm.sample_posterior_predictive`` (Monte Carlo, tolerances sized by its error) and
scipy for the mixture's quantiles.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pymc as pm
import pytest
import scipy.optimize
import scipy.stats

from pymc_vsk import VSK, build_model, predict, targets
from pymc_vsk.hsgp import CollapsedLiftedHSGP, LiftedHSGP
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.prediction import Prediction
from pymc_vsk.scaling import Jump, SmoothJump
from tests import reference as ref

LS, SF, SN = 0.15, 1.3, 0.2
X = np.sort(np.random.default_rng(0).uniform(0, 1, 30))[:, None]
Y = targets.jump(X) + SN * np.random.default_rng(1).normal(size=30)
XNEW = np.linspace(0.02, 0.98, 13)[:, None]


def vsk_matrix(A, B, ls=LS, sf=SF):
    """σ_f² Matérn 5/2 on the lifted inputs [x, 1[x ≥ 0.5]], in numpy."""
    ZA, ZB = ref.lift(A, ref.psi_jump(A)), ref.lift(B, ref.psi_jump(B))
    return sf**2 * ref.loop_kernel(ref.RADIAL["Matern52"], ZA, ZB, ls)


def vsk():
    return SF**2 * VSK(pm.gp.cov.Matern52(2, ls=LS), Jump(0.5))


def test_plain_pymc_marginal_equals_the_closed_form_and_needs_its_model():
    with pm.Model() as model:
        gp = pm.gp.Marginal(cov_func=vsk())
        gp.marginal_likelihood("y", X=X, y=Y, sigma=SN)
    K = vsk_matrix(X, X) + (SN**2 + 1e-6) * np.eye(len(X))
    k = vsk_matrix(X, XNEW)
    mean = k.T @ np.linalg.solve(K, Y)
    cov = vsk_matrix(XNEW, XNEW) - k.T @ np.linalg.solve(K, k)
    with pytest.raises(ValueError, match=r"does not record its model.*pass model=model"):
        predict(gp, XNEW, point={})
    pred = predict(gp, XNEW, point={}, model=model)
    np.testing.assert_allclose(pred.mean, mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pred.std_f, np.sqrt(np.diag(cov)), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(pred.std_y, np.sqrt(np.diag(cov) + SN**2), rtol=1e-8)
    with model:  # the model in context works too
        np.testing.assert_array_equal(predict(gp, XNEW, point={}).mean, pred.mean)
    # joint draws: their covariance is the closed-form one, to Monte Carlo error
    draws = pred.sample(20000, seed=3)
    assert draws.shape == (20000, len(XNEW))
    tol = 5 * np.sqrt(2.0 / 20000) * np.outer(np.sqrt(np.diag(cov)), np.sqrt(np.diag(cov)))
    assert np.all(np.abs(np.cov(draws.T) - cov) < tol + 1e-12)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * np.sqrt(np.diag(cov) / 20000) + 1e-12)


def test_build_model_gp_predicts_outside_the_model_context():
    model, gp = build_model(
        X, Y, psi=Jump(0.5), ls=LS, sigma_f=SF, sigma_n=SN, mean=0.0, standardize=False
    )
    pred = predict(gp, XNEW, point={})  # no `with model:`, no model=; the paper's model
    np.testing.assert_allclose(pred.mean, predict(gp, XNEW, point={}, model=model).mean)
    K = vsk_matrix(X, X) + (SN**2 + 1e-6) * np.eye(len(X))
    np.testing.assert_allclose(
        pred.mean, vsk_matrix(X, XNEW).T @ np.linalg.solve(K, Y), rtol=1e-9, atol=1e-12
    )


def latent_model():
    with pm.Model() as model:
        gp = pm.gp.Latent(cov_func=vsk())
        f = gp.prior("f", X=X)
        pm.Normal("y", mu=f, sigma=SN, observed=Y)
        f_star = gp.conditional("f_star", XNEW)
    return model, gp, f_star


def test_latent_gp_mixes_the_conditional_of_each_draw_of_f():
    model, gp, _ = latent_model()
    rng = np.random.default_rng(4)
    L = np.linalg.cholesky(vsk_matrix(X, X) + 1e-6 * np.eye(len(X)))
    f_draws = (L @ rng.normal(size=(len(X), 6))).T.reshape(2, 3, -1)
    idata = az.from_dict({"posterior": {"f": f_draws}})
    pred = predict(gp, XNEW, idata=idata, model=model)
    assert pred.n_draws == 6 and pred.var_y is None
    K = vsk_matrix(X, X) + 1e-6 * np.eye(len(X))
    k = vsk_matrix(X, XNEW)
    means = np.array([k.T @ np.linalg.solve(K, f) for f in f_draws.reshape(6, -1)])
    var = np.diag(vsk_matrix(XNEW, XNEW) - k.T @ np.linalg.solve(K, k))
    np.testing.assert_allclose(pred.mean, means.mean(axis=0), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(pred.std_f**2, var + means.var(axis=0), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match=r"no Gaussian noise model.*of='f'"):
        pred.quantile(0.5)


def test_latent_gp_agrees_with_pymc_conditional_and_posterior_predictive():
    model, gp, _ = latent_model()
    rng = np.random.default_rng(5)
    L = np.linalg.cholesky(vsk_matrix(X, X) + 1e-6 * np.eye(len(X)))
    z_two = rng.normal(size=(2, len(X)))  # PyMC's f = L f_rotated_
    z_draws = np.repeat(z_two, 2000, axis=0)[None]  # 4000 draws of two distinct f
    idata = az.from_dict({"posterior": {"f_rotated_": z_draws, "f": z_draws @ L.T}})
    pred = predict(gp, XNEW, idata=idata, model=model, max_draws=None)
    ppc = pm.sample_posterior_predictive(
        idata, model=model, var_names=["f_star"], random_seed=6, progressbar=False
    )
    sims = ppc["posterior_predictive"]["f_star"].values.reshape(-1, len(XNEW))
    se = pred.std_f / np.sqrt(len(sims))
    assert np.all(np.abs(sims.mean(axis=0) - pred.mean) < 5 * se)
    assert np.all(np.abs(sims.std(axis=0) / pred.std_f - 1) < 5 / np.sqrt(2 * len(sims)))
    lower, upper = pred.interval(0.8, of="f")
    inside = np.mean((sims > lower) & (sims < upper), axis=0)
    assert np.all(np.abs(inside - 0.8) < 5 * np.sqrt(0.8 * 0.2 / len(sims)))


def sparse_reference(approx, Xu, mean=0.0):
    """Predictive mean and var of f of the DTC/VFE/FITC approximations, in numpy."""
    Kuu = vsk_matrix(Xu, Xu) + 1e-6 * np.eye(len(Xu))
    Kuf, Kus = vsk_matrix(Xu, X), vsk_matrix(Xu, XNEW)
    Qff = Kuf.T @ np.linalg.solve(Kuu, Kuf)
    lam = SN**2 + (np.diag(vsk_matrix(X, X) - Qff) if approx == "FITC" else 0.0)
    Sigma = np.linalg.inv(Kuu + (Kuf / lam) @ Kuf.T)
    mu = mean + Kus.T @ Sigma @ (Kuf @ ((Y - mean) / lam))
    Qss = Kus.T @ np.linalg.solve(Kuu, Kus)
    var = np.diag(vsk_matrix(XNEW, XNEW) - Qss + Kus.T @ Sigma @ Kus)
    return mu, var


@pytest.mark.parametrize("approx", ["VFE", "FITC", "DTC"])
def test_marginal_approx_equals_the_sparse_closed_form(approx):
    Xu = np.r_[np.linspace(0, 1, 8), [0.49, 0.51]][:, None]
    with pm.Model() as model:
        gp = pm.gp.MarginalApprox(approx=approx, cov_func=vsk())
        gp.marginal_likelihood("y", X=X, Xu=Xu, y=Y, sigma=SN)
    pred = predict(gp, XNEW, point={}, model=model)
    mu, var = sparse_reference(approx, Xu)
    np.testing.assert_allclose(pred.mean, mu, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(pred.std_f**2, var, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(pred.std_y**2, var + SN**2, rtol=1e-6, atol=1e-8)


def test_lifted_hsgp_draws_equal_pymc_posterior_predictive_of_its_conditional():
    with pm.Model() as model:
        hs = LiftedHSGP([20, 6], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=LS), c=1.5)
        f = hs.prior("f", X=X)
        pm.Normal("y", mu=f, sigma=SN, observed=Y)
        hs.conditional("f_new", Xnew=XNEW)
    beta_name = next(v.name for v in model.free_RVs)
    size = model[beta_name].type.shape[0] or int(model.initial_point()[beta_name].size)
    beta = np.random.default_rng(7).normal(size=(1, 5, size))
    idata = az.from_dict({"posterior": {beta_name: beta}})
    pred = predict(hs, XNEW, idata=idata)  # the GP recorded its model
    ppc = pm.sample_posterior_predictive(idata, model=model, var_names=["f_new"], progressbar=False)
    sims = ppc["posterior_predictive"]["f_new"].values[0]
    np.testing.assert_allclose(pred.means, sims, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pred.std_f, sims.std(axis=0), rtol=1e-8, atol=1e-12)


def test_collapsed_lifted_hsgp_equals_the_basis_closed_form():
    cov = 1.5**2 * pm.gp.cov.Matern52(2, ls=[0.08, 0.5])
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", 1.0)
        hs = CollapsedLiftedHSGP([50, 8], Jump(0.5), cov_func=cov, c=1.5)
        hs.marginal_likelihood("y", X, Y, sigma=sigma, mean=0.3)
    phi, sqrt_psd = (v.eval() for v in hs.prior_linearized(X))
    phin = hs.prior_linearized(XNEW)[0].eval()
    C = (phi * sqrt_psd**2) @ phi.T + 0.25**2 * np.eye(len(X))
    Knx = (phin * sqrt_psd**2) @ phi.T
    Knn = (phin * sqrt_psd**2) @ phin.T - Knx @ np.linalg.solve(C, Knx.T)
    pred = predict(hs, XNEW, point={"sigma": 0.25}, model=model)
    np.testing.assert_allclose(pred.mean, 0.3 + Knx @ np.linalg.solve(C, Y - 0.3), rtol=1e-8)
    np.testing.assert_allclose(pred.std_f**2, np.diag(Knn), rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(pred.std_y**2, np.diag(Knn) + 0.25**2, rtol=1e-8)
    draws = pred.sample(20000, of="y", seed=9)
    cov_y = Knn + 0.25**2 * np.eye(len(XNEW))
    sd = np.sqrt(np.diag(cov_y))
    assert np.all(np.abs(np.cov(draws.T) - cov_y) < 5 * np.sqrt(2.0 / 20000) * np.outer(sd, sd))


@pytest.fixture(scope="module")
def jump_posterior():
    rng = np.random.default_rng(8)
    return {
        "ls": 0.1 * np.exp(0.1 * rng.normal(size=(1, 4))),
        "sigma_f": 1.0 * np.exp(0.1 * rng.normal(size=(1, 4))),
        "sigma_n": 0.2 * np.exp(0.1 * rng.normal(size=(1, 4))),
        "mean": 0.1 * rng.normal(size=(1, 4)),
        "amplitude": 1.0 + 0.1 * rng.normal(size=(1, 4)),
    }


def test_jump_marginal_prediction_equals_its_own_gap_mixture(jump_posterior):
    model, gp = build_jump_model(X, Y, method="marginal", lower=0.2, upper=0.8)
    idata = az.from_dict({"posterior": jump_posterior})
    pred = predict(gp, XNEW, idata=idata)
    own = gp.predict(XNEW, idata=idata, model=model)
    np.testing.assert_allclose(pred.mean, own.mean, rtol=1e-10)
    np.testing.assert_allclose(pred.std_f, own.std_f, rtol=1e-10)
    np.testing.assert_allclose(pred.std_y, own.std_y, rtol=1e-10)
    assert len(pred.weights) == 4 * len(gp.gaps) and np.isclose(pred.weights.sum(), 1.0)
    with pytest.raises(NotImplementedError, match=r"method='smooth'"):
        pred.sample(3)


def test_jump_smooth_model_is_a_marginal_gp_and_predicts():
    model, gp = build_jump_model(X, Y, method="smooth", lower=0.2, upper=0.8)
    assert isinstance(gp, pm.gp.Marginal)
    point = {**model.initial_point(), "location": 0.5, "amplitude": 1.0, "ls": 0.1}
    point.update({"sigma_f": 1.0, "sigma_n": 0.2, "mean": 0.0, "width": 0.01})
    pred = predict(gp, XNEW, point=point)
    assert pred.mean.shape == (len(XNEW),) and np.all(pred.std_y > pred.std_f)


def test_unsupported_gp_types_name_what_is_supported():
    with pm.Model() as model:
        tp = pm.gp.TP(scale_func=vsk(), nu=3)
        tp.prior("f", X=X)
    with pytest.raises(TypeError, match=r"does not support TP.*pm.gp.Marginal.*MarginalJumpGP"):
        predict(tp, XNEW, point={}, model=model)
    with pytest.raises(TypeError, match=r"does not support str"):
        predict("gp", XNEW, point={}, model=model)


def mixture():
    means = np.array([[0.0, 1.0], [2.0, 1.5], [3.0, 1.2]])
    var = np.array([[1.0, 0.2], [0.5, 0.3], [0.25, 0.1]])
    return Prediction(means, var, var + 0.04, np.array([0.5, 0.3, 0.2]), 3)


def test_mixture_quantiles_match_scipy_root_finding():
    pred = mixture()
    for j in range(2):
        dists = [scipy.stats.norm(pred.means[k, j], np.sqrt(pred.var_y[k, j])) for k in range(3)]

        def cdf(x, dists=dists):
            return sum(w * d.cdf(x) for w, d in zip(pred.weights, dists, strict=True))

        for q in (0.03, 0.5, 0.97):
            root = scipy.optimize.brentq(lambda x, q=q, cdf=cdf: cdf(x) - q, -20, 20, xtol=1e-14)
            assert abs(pred.quantile(q)[j] - root) < 1e-10
    lower, upper = pred.interval(0.9)
    np.testing.assert_allclose(lower, pred.quantile(0.05), rtol=1e-12)
    np.testing.assert_allclose(upper, pred.quantile(0.95), rtol=1e-12)
    assert pred.quantile([0.1, 0.9], of="f").shape == (2, 2)


def test_the_cdf_broadcasts_one_value_against_every_point():
    """``cdf(1.0)`` raised an IndexError, though x is documented to broadcast."""
    pred = mixture()
    np.testing.assert_allclose(pred.cdf(1.0), pred.cdf([1.0, 1.0]))
    np.testing.assert_allclose(pred.cdf([[0.5], [2.0]]), pred.cdf([[0.5, 0.5], [2.0, 2.0]]))
    expected = sum(
        w * scipy.stats.norm(pred.means[k, 0], np.sqrt(pred.var_f[k, 0])).cdf(1.0)
        for k, w in enumerate(pred.weights)
    )
    assert pred.cdf(1.0, of="f")[0] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match=r"shape \(3,\).*against the 2 points"):
        pred.cdf([0.0, 1.0, 2.0])


def test_hdi_holds_the_mass_with_equal_end_densities_and_is_shortest():
    pred = mixture()
    lo, hi = pred.interval(0.8, kind="hdi")
    np.testing.assert_allclose(pred.cdf(hi) - pred.cdf(lo), 0.8, atol=1e-9)
    std = np.sqrt(pred.var_y)
    np.testing.assert_allclose(pred._pdf(lo, std), pred._pdf(hi, std), rtol=1e-6)
    for a in np.linspace(0.01, 0.19, 10):  # every other interval of mass 0.8 is longer
        width = np.diff(pred.quantile([a, a + 0.8]), axis=0)[0]
        assert np.all(width >= hi - lo - 1e-9)
    single = Prediction(pred.means[:1], pred.var_f[:1], pred.var_y[:1], np.ones(1))
    eti, hdi = single.interval(0.9), single.interval(0.9, kind="hdi")
    np.testing.assert_allclose(eti, hdi)
    expected = scipy.stats.norm([0.0, 1.0], np.sqrt([1.04, 0.24])).ppf(0.95)
    np.testing.assert_allclose(eti[1], expected, rtol=1e-12)


def test_summary_arguments_are_checked():
    pred = mixture()
    with pytest.raises(ValueError, match=r"probabilities in \(0, 1\)"):
        pred.quantile(1.0)
    with pytest.raises(ValueError, match=r"'eti' or 'hdi'"):
        pred.interval(0.9, kind="hpd")
    with pytest.raises(ValueError, match=r"of must be 'f'"):
        pred.quantile(0.5, of="z")


def test_collapsed_lifted_hsgp_with_a_random_jump_predicts_as_the_fixed_one_at_each_draw():
    cov = 1.5**2 * pm.gp.cov.Matern52(2, ls=[0.08, 0.5])
    with pm.Model() as random_model:
        t = pm.Uniform("t", 0.2, 0.8)
        random_gp = CollapsedLiftedHSGP([50, 8], SmoothJump(t, width=0.01), cov_func=cov, c=3.0)
        random_gp.marginal_likelihood("y", X, Y, sigma=0.25, mean=0.3)
    for value in (0.45, 0.5):
        with pm.Model() as fixed_model:  # the same box, given by the same bounds of ψ
            fixed_gp = CollapsedLiftedHSGP(
                [50, 8], SmoothJump(value, width=0.01), cov_func=cov, c=3.0, psi_range=(0, 1)
            )
            fixed_gp.marginal_likelihood("y", X, Y, sigma=0.25, mean=0.3)
        got = predict(random_gp, XNEW, point={"t": value}, model=random_model)
        expected = predict(fixed_gp, XNEW, point={}, model=fixed_model)
        np.testing.assert_allclose(got.mean, expected.mean, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got.std_f, expected.std_f, rtol=1e-8, atol=1e-12)
