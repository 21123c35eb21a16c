"""Prediction from a point and from a posterior, against PyMC and closed-form numpy."""

from __future__ import annotations

import arviz as az
import numpy as np
import pymc as pm
import pytest
import scipy.stats

from pymc_vsk import VSK, Predictor, build_model, fit_map, power_function, predict, targets
from pymc_vsk.paper import table1
from pymc_vsk.prediction import Prediction
from pymc_vsk.scaling import Jump
from tests import reference as ref


@pytest.fixture(scope="module")
def fitted():
    X = targets.halton_nodes(27)
    y = targets.jump(X) + 0.25 * np.random.default_rng(2).normal(size=27)
    model, gp = build_model(X, y, psi=Jump(0.5), priors="flat", standardize=False)
    return X, y, model, gp, fit_map(model, warn=False).point


def numpy_posterior(X, y, Xnew, p):
    """Closed-form eq. (5): constant mean, Matern52 VSK, noise and 1e-6 jitter."""
    ZX, Zn = ref.lift(X, ref.psi_jump(X)), ref.lift(Xnew, ref.psi_jump(Xnew))
    phi = ref.RADIAL["Matern52"]
    K = p["sigma_f"] ** 2 * ref.loop_kernel(phi, ZX, ZX, p["ls"])
    K += (p["sigma_n"] ** 2 + 1e-6) * np.eye(len(X))
    k = p["sigma_f"] ** 2 * ref.loop_kernel(phi, ZX, Zn, p["ls"])
    mean = p["mean"] + k.T @ np.linalg.solve(K, y - p["mean"])
    var_f = p["sigma_f"] ** 2 - np.einsum("ij,ij->j", k, np.linalg.solve(K, k))
    return mean, np.sqrt(var_f), np.sqrt(var_f + p["sigma_n"] ** 2)


def test_point_prediction_equals_closed_form_and_pymc(fitted):
    X, y, model, gp, point = fitted
    Xnew = np.linspace(0, 1, 41)[:, None]
    pred = predict(gp, Xnew, point=point, model=model)
    mean, std_f, std_y = numpy_posterior(X, y, Xnew, point)
    np.testing.assert_allclose(pred.mean, mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(pred.std_f, std_f, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(pred.std_y, std_y, rtol=1e-9, atol=1e-12)
    mu_pm, var_pm = gp.predict(Xnew, point=point, diag=True, pred_noise=True, model=model)
    np.testing.assert_allclose(pred.mean, mu_pm, rtol=1e-10)
    np.testing.assert_allclose(pred.std_y, np.sqrt(var_pm), rtol=1e-9, atol=1e-12)


def test_posterior_prediction_mixes_over_draws(fitted):
    X, y, model, gp, point = fitted
    rng = np.random.default_rng(0)
    draws = {
        "ls": point["ls"] * np.exp(0.1 * rng.normal(size=(2, 3))),
        "sigma_f": point["sigma_f"] * np.exp(0.1 * rng.normal(size=(2, 3))),
        "sigma_n": point["sigma_n"] * np.exp(0.1 * rng.normal(size=(2, 3))),
        "mean": point["mean"] + 0.1 * rng.normal(size=(2, 3)),
    }
    idata = az.from_dict({"posterior": draws})
    Xnew = np.linspace(0, 1, 17)[:, None]
    mixed = predict(gp, Xnew, idata=idata, model=model)
    assert mixed.n_draws == 6
    singles = [
        numpy_posterior(X, y, Xnew, {k: v[c, d] for k, v in draws.items()})
        for c in range(2)
        for d in range(3)
    ]
    means = np.array([s[0] for s in singles])
    var_f = np.mean([s[1] ** 2 for s in singles], axis=0) + means.var(axis=0)
    var_y = np.mean([s[2] ** 2 for s in singles], axis=0) + means.var(axis=0)
    np.testing.assert_allclose(mixed.mean, means.mean(axis=0), rtol=1e-9)
    np.testing.assert_allclose(mixed.std_f, np.sqrt(var_f), rtol=1e-6)
    np.testing.assert_allclose(mixed.std_y, np.sqrt(var_y), rtol=1e-9)
    sub = predict(gp, Xnew, idata=idata, model=model, max_draws=4, seed=1)
    assert sub.n_draws == 4


def test_predictor_is_compiled_once_and_reused(fitted):
    _, _, model, gp, point = fitted
    predict(gp, np.zeros((3, 1)), point=point, model=model)
    from pymc_vsk.caching import cache_entries

    (predictor,) = cache_entries(gp, "predictor")
    predict(gp, np.ones((5, 1)), point=point, model=model)
    assert cache_entries(gp, "predictor") == [predictor]
    assert isinstance(predictor, Predictor)


def test_power_function_is_the_noise_free_posterior_std_of_table_1():
    result = table1.compute()
    X = result.X
    P = power_function(VSK(pm.gp.cov.Matern32(2, ls=1.0), Jump(0.5)), X, result.grid)
    np.testing.assert_allclose(table1.SIGMA_F * P, result.std["vsk"], rtol=1e-6, atol=1e-6)
    assert np.all(power_function(VSK(pm.gp.cov.Matern32(2, ls=1.0), Jump(0.5)), X, X) < 1e-6)


def test_power_function_with_random_parameters_needs_a_point():
    X = targets.uniform_nodes(6)
    with pm.Model():
        ls = pm.HalfNormal("ls", 1.0)
        cov = VSK(pm.gp.cov.Matern32(2, ls=ls), Jump(0.5))
    with pytest.raises(ValueError, match=r"pass point=\{name: value\}"):
        power_function(cov, X, X)
    fixed = power_function(VSK(pm.gp.cov.Matern32(2, ls=0.3), Jump(0.5)), X, np.c_[[0.45]])
    np.testing.assert_allclose(power_function(cov, X, np.c_[[0.45]], point={"ls": 0.3}), fixed)


def test_prediction_errors(fitted):
    _, _, model, gp, point = fitted
    with pytest.raises(ValueError, match="exactly one of point="):
        predict(gp, np.zeros((2, 1)), model=model)
    with pytest.raises(ValueError, match=r"no value for \['sigma_n'\]"):
        predict(
            gp,
            np.zeros((2, 1)),
            point={k: point[k] for k in ("ls", "sigma_f", "mean")},
            model=model,
        )
    with pytest.raises(ValueError, match=r"Xnew has 2 column\(s\)"):
        predict(gp, np.zeros((2, 2)), point=point, model=model)
    with pytest.raises(ValueError, match=r"Xnew contains 1 NaN"):
        predict(gp, np.array([[np.nan]]), point=point, model=model)


def test_a_map_result_stands_for_its_point():
    """predict(gp, X, point=fit) is predict(gp, X, point=fit.point)."""
    X = targets.halton_nodes(15)
    model, gp = build_model(X, targets.jump(X), psi=Jump(0.5), priors="flat")
    fit = fit_map(model, n_starts=2, warn=False)
    Xnew = np.linspace(0, 1, 9)[:, None]
    by_result, by_point = predict(gp, Xnew, point=fit), predict(gp, Xnew, point=fit.point)
    np.testing.assert_array_equal(by_result.mean, by_point.mean)
    np.testing.assert_array_equal(by_result.std_y, by_point.std_y)


def _two_point_mixture(noise: bool = True) -> Prediction:
    means = np.array([[0.0, 1.0], [3.0, -1.0]])
    var_f = np.array([[1.0, 4.0], [0.5, 1.0]])
    return Prediction(means, var_f, var_f + 0.5 if noise else None, np.array([0.3, 0.7]), 2)


@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize(
    ("q", "error", "match"),
    [
        (np.nan, ValueError, r"q must hold probabilities in \(0, 1\)"),
        ([0.5, np.nan], ValueError, r"q must hold probabilities in \(0, 1\)"),
        ([], ValueError, "q is empty"),
        ("0.5", TypeError, "q must hold numbers, not text"),
        (True, TypeError, "not bools"),
    ],
)
def test_quantiles_refuse_probabilities_that_are_not_numbers_in_the_unit_interval(
    single, q, error, match
):
    """A NaN probability gave NaN quantiles without a word, an empty list numpy's "cannot
    reshape array of size 0", and the text '0.5' was parsed as the median."""
    pred = _two_point_mixture()
    if single:
        pred = Prediction(pred.means[:1], pred.var_f[:1], pred.var_y[:1], np.ones(1))
    with pytest.raises(error, match=match):
        pred.quantile(q)


@pytest.mark.parametrize(
    ("prob", "error", "match"),
    [
        ([0.5, 0.9], ValueError, "prob is one probability"),
        ("0.9", TypeError, "prob must hold numbers"),
        (np.nan, ValueError, r"prob must hold probabilities in \(0, 1\)"),
    ],
)
def test_intervals_take_one_probability(prob, error, match):
    """A list or text gave Python's "'<' not supported between instances of 'int' and
    'list'"."""
    for kind in ("eti", "hdi"):
        with pytest.raises(error, match=match):
            _two_point_mixture().interval(prob, kind=kind)


def test_cdf_refuses_text_and_sample_a_size_that_is_not_a_count():
    pred = _two_point_mixture()
    with pytest.raises(TypeError, match="x must hold numbers, not text"):
        pred.cdf("1")
    with pytest.raises(ValueError, match="size is the number of draws"):
        pred.sample(-1)
    with pytest.raises(ValueError, match="size is the number of draws"):
        pred.sample(2.5)


def test_a_mixture_without_a_noise_model_has_no_distribution_of_y():
    """With var_y None for each draw the mixture held an array of NaN of shape (K,) and gave
    std_y NaN instead of saying that y has no predictive distribution here."""
    pred = Prediction.mixture([(np.zeros(2), np.ones(2), None)] * 3)
    assert pred.var_y is None
    np.testing.assert_array_equal(pred.std_f, np.ones(2))
    with pytest.raises(ValueError, match="no Gaussian noise model"):
        pred.std_y  # noqa: B018
    with pytest.raises(ValueError, match="at least one draw"):
        Prediction.mixture([])


def test_one_gaussian_component_agrees_with_scipy():
    mean, var = np.array([0.5, -2.0, 30.0]), np.array([0.04, 2.0, 9.0])
    pred = Prediction(mean[None], var[None], var[None] + 1.0, np.ones(1))
    dist = scipy.stats.norm(mean, np.sqrt(var + 1.0))
    q = np.array([0.01, 0.3, 0.5, 0.97])
    np.testing.assert_allclose(pred.quantile(q), dist.ppf(q[:, None]), rtol=1e-12, atol=1e-12)
    x = np.array([[0.0], [1.0]])
    np.testing.assert_allclose(pred.cdf(x), dist.cdf(x), rtol=1e-12, atol=1e-15)
    lower, upper = pred.interval(0.8, of="f", kind="hdi")
    f = scipy.stats.norm(mean, np.sqrt(var))
    np.testing.assert_allclose([lower, upper], f.ppf([[0.1], [0.9]]), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_mixture_quantiles_and_highest_density_intervals_match_monte_carlo(seed):
    rng = np.random.default_rng(seed)
    K, m, n = 5, 3, 200_000
    means = 2 * rng.normal(size=(K, m))
    var_f = rng.uniform(0.2, 1.0, (K, m))
    weights = rng.dirichlet(np.ones(K))
    pred = Prediction(means, var_f, var_f + 0.3, weights, K)
    which = rng.choice(K, size=n, p=weights)
    draws = means[which] + np.sqrt(var_f[which] + 0.3) * rng.standard_normal((n, m))
    q = np.array([0.1, 0.5, 0.9])
    # a quantile of n draws is off by about sqrt(q (1 - q) / n) / density: < 0.01 here
    np.testing.assert_allclose(pred.quantile(q), np.quantile(draws, q, axis=0), atol=0.03)
    np.testing.assert_allclose(pred.mean, draws.mean(axis=0), atol=0.03)
    np.testing.assert_allclose(pred.std_y, draws.std(axis=0), atol=0.03)
    lower, upper = pred.interval(0.8, kind="hdi")
    inside = np.mean((draws >= lower) & (draws <= upper), axis=0)
    np.testing.assert_allclose(inside, 0.8, atol=0.005)  # binomial sd 0.0009
    eti_lower, eti_upper = pred.interval(0.8)
    assert np.all(upper - lower <= eti_upper - eti_lower + 1e-12)
