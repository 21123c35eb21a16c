"""Hilbert-space approximation of a VSK with fixed or random ψ, and its collapsed likelihood."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pymc as pm
import pytensor
import pytest
import scipy.stats

from pymc_vsk import VSK, predict, targets
from pymc_vsk.hsgp import CollapsedLiftedHSGP, LiftedHSGP
from pymc_vsk.scaling import Jump, SmoothJump, Stack
from tests.conftest import seed


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


def test_a_data_container_moves_the_basis_with_set_data():
    """On a pm.Data X the basis follows pm.set_data (new inputs, another length), on the box
    of the first inputs, as pm.gp.HSGP's does; it used to keep the first inputs' values."""
    X, _ = _data(40)
    Xnew = np.linspace(0.05, 0.95, 7)[:, None]
    with pm.Model():
        X_data = pm.Data("X", X)
        hs = LiftedHSGP([20, 4], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=[0.2, 0.5]), c=1.5)
        phi, _ = hs.prior_linearized(X_data)
        np.testing.assert_allclose(phi.eval(), hs.prior_linearized(X)[0].eval(), rtol=1e-12)
        pm.set_data({"X": Xnew})
        expected = hs.prior_linearized(Xnew)[0].eval()  # numeric inputs, the same box
    assert phi.eval().shape == expected.shape == (7, 80)
    np.testing.assert_allclose(phi.eval(), expected, rtol=1e-12)


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


def _as_function_of(variable, *outputs):
    """Compile outputs as functions of one random variable's value (no transform)."""
    return pytensor.function([variable], list(outputs), on_unused_input="ignore")


def test_random_jump_location_moves_the_basis_with_it():
    X, _ = _data(80)
    base = pm.gp.cov.ExpQuad(2, ls=[0.2, 0.6])
    with pm.Model():
        t = pm.Uniform("t", 0.2, 0.8)
        hs = LiftedHSGP([40, 12], SmoothJump(t, width=0.01), cov_func=base, L=[1.0, 2.5])
        phi, sqrt_psd = hs.prior_linearized(X)
    np.testing.assert_array_equal(hs.psi_range, [[0.0, 1.0]])  # the jump's own bounds
    np.testing.assert_allclose(hs._X_center, [(X.min() + X.max()) / 2, 0.5])
    kernel = _as_function_of(t, (phi * sqrt_psd**2) @ phi.T)
    approximations = []
    for value in (0.3, 0.6):
        (K_hsgp,) = kernel(value)
        K = VSK(base, SmoothJump(value, width=0.01))(X).eval()
        assert np.abs(K_hsgp - K).max() < 1e-4
        approximations.append(K_hsgp)
    # between 0.3 and 0.6 the pairs are across one jump or the other: far from equal
    assert np.abs(approximations[0] - approximations[1]).max() > 0.5


def test_random_amplitude_needs_psi_range_and_then_follows_it():
    X, _ = _data(60)
    base = pm.gp.cov.ExpQuad(2, ls=[0.2, 0.8])
    with pm.Model():
        a = pm.Uniform("a", 0.0, 3.0)
        with pytest.raises(ValueError, match=r"no known bounds.*psi_range=\(lower, upper\)"):
            LiftedHSGP([30, 12], Jump(0.5, a), cov_func=base, c=2.0)
        hs = LiftedHSGP([40, 16], Jump(0.5, a), cov_func=base, L=[1.0, 4.5], psi_range=(0, 3))
        phi, sqrt_psd = hs.prior_linearized(X)
    (K_hsgp,) = _as_function_of(a, (phi * sqrt_psd**2) @ phi.T)(2.0)
    K = VSK(base, Jump(0.5, 2.0))(X).eval()
    assert np.abs(K_hsgp - K).max() < 1e-3


@pytest.mark.parametrize(
    ("psi_range", "match"),
    [
        ((0.0, 1.0, 2.0), "one \\(lower, upper\\) pair per ψ coordinate"),
        ((1.0, 1.0), "lower < upper"),
        ((0.0, np.inf), "finite"),
    ],
)
def test_psi_range_is_checked(psi_range, match):
    with pytest.raises(ValueError, match=match):
        LiftedHSGP(
            [10, 4], Jump(0.5), cov_func=pm.gp.cov.ExpQuad(2, ls=0.1), c=1.5, psi_range=psi_range
        )


def test_collapsed_likelihood_with_a_random_psi_is_the_gaussian_at_each_value():
    X, y = _data(70, seed=2)
    cov = 1.2**2 * pm.gp.cov.Matern52(2, ls=[0.1, 0.5])
    with pm.Model():
        t = pm.Uniform("t", 0.2, 0.8)
        hs = CollapsedLiftedHSGP([30, 8], SmoothJump(t, width=0.02), cov_func=cov, c=3.0)
        potential = hs.marginal_likelihood("y", X, y, sigma=0.3, mean=0.5)
    phi, sqrt_psd = hs.prior_linearized(X)
    logp_and_basis = _as_function_of(t, potential, phi * sqrt_psd)
    values = []
    for value in (0.35, 0.5):
        got, G = logp_and_basis(value)
        C = G @ G.T + 0.09 * np.eye(len(X))
        expected = scipy.stats.multivariate_normal(np.full(len(X), 0.5), C).logpdf(y)
        np.testing.assert_allclose(got, expected, rtol=1e-9)
        values.append(float(got))
    assert values[1] > values[0] + 5  # the data's jump is at 0.5


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


def test_inputs_outside_the_box_of_the_basis_are_named():
    """The basis functions vanish at the box's edge: beyond it a prediction fell to the mean
    with a small sd (x = 1.5 with a box up to 1.25: mean 3.2, sd 0.09, where the dense VSK
    gives 1.4 and 2.2), and an L shorter than the data gave errors of 96 sd, silently."""
    X, y = _data(60)
    inside, outside = np.linspace(0, 1, 11)[:, None], np.array([[0.5], [1.5], [2.0]])
    with pm.Model():
        gp = CollapsedLiftedHSGP([20, 4], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=0.2), c=1.5)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gp.marginal_likelihood("y", X=X, y=y, sigma=0.3)
            predict(gp, inside, point={})
        with pytest.warns(UserWarning, match=r"2 of 3 lifted inputs lie outside the box") as got:
            predict(gp, outside, point={})
    box = r"coordinate 0: box \[-0\.2\d*, 1\.2\d*\], inputs reach \[0\.5, 2\]"
    assert re.search(box, str(got[0].message)), got[0].message
    assert got[0].filename == __file__  # the user's line, not the package's
    with (
        pm.Model(),
        pytest.warns(UserWarning, match=r"of 60 lifted inputs lie outside the box") as got,
    ):
        small = LiftedHSGP([20, 4], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=0.2), L=[0.3, 1])
        small.prior("f", X=X)  # PyMC's method, which calls the package's
    assert got[0].filename == __file__


def test_public_names_of_the_module():
    import pymc_vsk.hsgp

    assert set(pymc_vsk.hsgp.__all__) == {"CollapsedLiftedHSGP", "LiftedHSGP"}


@pytest.mark.slow
def test_nuts_finds_a_random_jump_location_in_the_collapsed_hsgp():
    """Over seed offsets 0–5 the posterior mean of t was within 0.0013 of the jump, r̂ ≤ 1.015."""
    import nutpie

    import pymc_vsk

    X, y = _data(300, seed=seed(3))
    with pm.Model() as model:
        t = pm.Uniform("t", 0.1, 0.9)
        ls = pm.InverseGamma("ls", 3.0, 0.3)
        sigma_f = pm.HalfNormal("sigma_f", 3.0)
        sigma_n = pm.HalfNormal("sigma_n", 1.0)
        cov = sigma_f**2 * pm.gp.cov.ExpQuad(2, ls=pm.math.stack([ls, 0.5]))
        hs = CollapsedLiftedHSGP([30, 6], SmoothJump(t, width=0.003), cov_func=cov, L=[0.7, 1.5])
        hs.marginal_likelihood("y", X, y, sigma=sigma_n, mean=float(np.mean(y)))
    idata = nutpie.sample(
        nutpie.compile_pymc_model(model), draws=300, tune=300, chains=2, seed=seed(11),
        progress_bar=False,
    )  # fmt: skip
    draws = idata["posterior"]["t"].values.ravel()
    lo, hi = np.quantile(draws, [0.03, 0.97])
    assert lo <= 0.5 <= hi + 1 / 300 and abs(np.mean(draws) - 0.5) < 0.01
    assert pymc_vsk.diagnose(idata, ["t", "ls", "sigma_f", "sigma_n"]).table["r_hat"].max() < 1.05


def test_the_box_of_a_random_psi_is_centred_on_its_bounds_and_scaled_by_c():
    X, _ = _data(40)
    with pm.Model():
        t = pm.Uniform("t", 0.2, 0.8)
        psi = Stack([SmoothJump(t), Jump(0.7, 2.0)])
        hs = LiftedHSGP([8, 3, 3], psi, cov_func=pm.gp.cov.ExpQuad(3, ls=0.3), c=2.0)
        hs.prior_linearized(X)
        with pytest.raises(ValueError, match="pass them as numbers"):
            LiftedHSGP(
                [8, 3, 3], psi, cov_func=pm.gp.cov.ExpQuad(3, ls=0.3), c=2.0
            ).prior_linearized(pm.math.constant(X) * t)
    centre = (X.min() + X.max()) / 2
    np.testing.assert_allclose(hs._X_center, [centre, 0.5, 1.0])
    np.testing.assert_allclose(
        np.asarray(hs.L.eval()), 2.0 * np.array([X.max() - centre, 0.5, 1.0])
    )


def test_a_basis_too_coarse_for_the_length_scale_is_named():
    """m = 8 basis functions on a box of half-width 0.75 cannot follow ℓ = 0.05 (the rule
    m ≥ 2.65·L/ℓ asks for 40): the prediction is far stiffer than the dense VSK's, silently."""
    X, y = _data(120)
    Xnew = np.linspace(0, 1, 41)[:, None]
    dense = VSK(pm.gp.cov.Matern52(2, ls=0.05), Jump(0.5))
    K = dense(X).eval() + 0.3**2 * np.eye(len(X))
    reference = dense(Xnew, X).eval() @ np.linalg.solve(K, y)
    errors = {}
    for m in (8, 40):
        with pm.Model():
            cov = pm.gp.cov.Matern52(2, ls=0.05)
            gp = CollapsedLiftedHSGP([m, 6], Jump(0.5), cov_func=cov, c=1.5)
            gp.marginal_likelihood("y", X=X, y=y, sigma=0.3, mean=0.0)
            if m == 8:
                with pytest.warns(UserWarning, match=r"coordinate 0: m = 8 .* m ≥ 40") as got:
                    mean = predict(gp, Xnew, point={}).mean
                assert got[0].filename == __file__
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    mean = predict(gp, Xnew, point={}).mean
        errors[m] = np.sqrt(np.mean((mean - reference) ** 2))
    assert errors[8] > 5 * errors[40], errors
    with pm.Model():  # a random length scale: its value at the point is read
        ls = pm.Gamma("ls", 2, 20)
        gp = CollapsedLiftedHSGP([8, 6], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=ls), c=1.5)
        gp.marginal_likelihood("y", X=X, y=y, sigma=0.3, mean=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            predict(gp, Xnew, point={"ls": 0.5})
        with pytest.warns(UserWarning, match=r"the kernel's ℓ is 0\.05"):
            predict(gp, Xnew, point={"ls": 0.05})
