"""Units: every entry point gives the same answer under x -> a x + b and y -> c y + d.

Each case fits the same data at unit scale and after a change of units, then maps the rescaled
fit back: predictions (m - d) / c and std / |c|, length scales / a, σ_f and σ_n / |c|. A model
free of units gives the same numbers up to the optimiser's tolerance; before the models were
standardised internally, y in units of 1e-6 gave an RMSE of 1.62 instead of 0.22 (the data sat
below an absolute jitter) and x in units of 1e6 turned the VSK into the stationary fit (ψ's
amplitude was one x unit).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pymc as pm
import pytensor
import pytest

from pymc_vsk import VSK, VSKRegressor, build_model, fit_map, predict, set_data, targets
from pymc_vsk.covariance import NegligibleScalingWarning
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.prediction import fitted_jitter
from pymc_vsk.scaling import Disk, Jump, numeric_value
from tests.conftest import seed

#: (a, c) pairs: scales of x and of y, with offsets b = 3a + 1 and d = -2c + 5.
SCALES = [(1e-6, 1.0), (1e6, 1.0), (1.0, 1e-6), (1.0, 1e6), (3.7e-4, 2.2e5), (2.5e5, 4e-5)]
#: The default run: both scales extreme at once, in both directions.
FAST = {
    "stationary": (1e6, 1e-6),
    "vsk": (1e6, 1e-6),
    "vsk_ard": (1e-6, 1e6),
    "vsk_2d": (1e-6, 1e6),
}


def _one_d(n: int = 40):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(0).normal(size=n)


def _two_d(n: int = 60):
    X = targets.halton_nodes(n, d=2)
    inside = np.sum((X - 0.5) ** 2, axis=1) < 0.3**2
    return X, np.sin(3 * X[:, 0]) + inside + 0.05 * np.random.default_rng(1).normal(size=n)


CASES = {
    "stationary": (_one_d, lambda a, b: None, {}),
    "vsk": (_one_d, lambda a, b: Jump(a * 0.5 + b), {}),
    "vsk_ard": (_one_d, lambda a, b: Jump(a * 0.5 + b), {"ard": True}),
    "vsk_2d": (_two_d, lambda a, b: Disk([a * 0.5 + b, a * 0.5 + b], a * 0.3), {}),
}


def _fit(X, y, psi, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, gp = build_model(X, y, psi=psi, **options)
        fit = fit_map(model, n_starts=2, seed=0, warn=False)
    return model, gp, fit


@functools.cache
def _reference(case):
    data, make_psi, options = CASES[case]
    X, y = data()
    return (X, y, *_fit(X, y, make_psi(1.0, 0.0), options))


def _check_case(case, a, c):
    _, make_psi, options = CASES[case]
    X, y, model1, gp1, fit1 = _reference(case)
    b, d = 3.0 * a + 1.0, -2.0 * c + 5.0
    grid = X[:7] * 0.9 + 0.05
    model2, gp2, fit2 = _fit(a * X + b, c * y + d, make_psi(a, b), options)
    p1 = predict(gp1, grid, point=fit1.point, model=model1)
    p2 = predict(gp2, a * grid + b, point=fit2.point, model=model2)
    scale = float(np.std(y))
    np.testing.assert_allclose((p2.mean - d) / c, p1.mean, atol=1e-3 * scale)
    np.testing.assert_allclose(p2.std_f / abs(c), p1.std_f, rtol=1e-3, atol=1e-4 * scale)
    np.testing.assert_allclose(p2.std_y / abs(c), p1.std_y, rtol=1e-3)
    np.testing.assert_allclose(np.asarray(fit2.point["ls"]) / a, fit1.point["ls"], rtol=1e-3)
    for name in ("sigma_f", "sigma_n"):
        np.testing.assert_allclose(fit2.point[name] / abs(c), fit1.point[name], rtol=1e-3)
    np.testing.assert_allclose((fit2.point["mean"] - d) / c, fit1.point["mean"], atol=1e-3 * scale)


@pytest.mark.parametrize("case", ["stationary", "vsk", "vsk_2d"])
def test_fit_and_prediction_are_the_same_in_other_units(case):
    _check_case(case, *FAST[case])


def test_ard_fits_the_same_with_each_column_in_its_own_units():
    """One length scale per column (ARD), default priors: a column in metres and another in
    kilometres give the fit in either units. The priors and the MAP starts took every ℓ from
    the span of all of X; with column 0 × 1000 four starts all stopped at ℓ₀ = 2.4 and
    σ_n = 0.23 (truth 0.05)."""
    X, y = _two_d()
    units = np.array([1000.0, 1.0]), np.array([0.0, 5.0])
    grid = X[:9] * 0.9 + 0.05
    fits = []
    for a, b in ((np.ones(2), np.zeros(2)), units):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, gp = build_model(a * X + b, y, ard=True)
            fit = fit_map(model, n_starts=4, seed=0, warn=False)
        fits.append((fit, predict(gp, a * grid + b, point=fit.point)))
    (fit1, p1), (fit2, p2) = fits
    np.testing.assert_allclose(fit2.point["ls"] / units[0], fit1.point["ls"], rtol=1e-3)
    for name in ("sigma_f", "sigma_n", "mean"):
        np.testing.assert_allclose(fit2.point[name], fit1.point[name], rtol=1e-3)
    np.testing.assert_allclose(p2.mean, p1.mean, atol=1e-3 * np.std(y))
    np.testing.assert_allclose(p2.std_y, p1.std_y, rtol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize(("a", "c"), SCALES)
@pytest.mark.parametrize("case", list(CASES))
def test_fit_and_prediction_are_the_same_in_other_units_sweep(case, a, c):
    _check_case(case, a, c)


@pytest.mark.slow
def test_the_vsk_still_beats_the_stationary_fit_in_large_x_units():
    """Reference: the jump target. In x units of 1e6 the VSK must keep its unit-scale lead."""
    X, y = _one_d()
    grid = np.linspace(0.0, 1.0, 101)[:, None]
    a, b = 1e6, 3e6
    errors = []
    for psi in (None, Jump(a * 0.5 + b)):
        model, gp, fit = _fit(a * X + b, y, psi, {})
        mean = predict(gp, a * grid + b, point=fit.point, model=model).mean
        errors.append(np.sqrt(np.mean((mean - targets.jump(grid)) ** 2)))
    stationary, vsk = errors
    assert vsk < 0.7 * stationary


@functools.cache
def _jump_fit(a, c):
    X, y = _one_d(60)
    b, d = 3.0 * a + 1.0, -2.0 * c + 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, _ = build_jump_model(a * X + b, c * y + d, n_jumps=1, method="smooth")
        return fit_map(model, n_starts=2, seed=0, warn=False).point


#: Offsets of the reference fit at a = c = 1.
B1, D1 = 4.0, 3.0


@pytest.mark.parametrize(
    ("a", "c"), [(2.5e5, 4e-5), pytest.param(3.7e-4, 2.2e5, marks=pytest.mark.slow)]
)
def test_jump_model_map_is_the_same_in_other_units(a, c):
    b, d = 3.0 * a + 1.0, -2.0 * c + 5.0
    ref, other = _jump_fit(1.0, 1.0), _jump_fit(a, c)
    np.testing.assert_allclose((other["location"] - b) / a, ref["location"] - B1, atol=1e-4)
    np.testing.assert_allclose(other["amplitude"], ref["amplitude"], rtol=1e-3)
    np.testing.assert_allclose(other["ls"] / a, ref["ls"], rtol=1e-3)
    np.testing.assert_allclose(other["sigma_n"] / c, ref["sigma_n"], rtol=1e-3)
    np.testing.assert_allclose((other["mean"] - d) / c, (ref["mean"] - D1), atol=1e-3)


def test_marginal_jump_model_is_the_same_in_other_units():
    """The location posterior given θ (gap probabilities) at a point and its image."""
    X, y = _one_d(60)
    a, c = 2.5e5, 4e-5
    b, d = 3.0 * a + 1.0, -2.0 * c + 5.0
    point = {"ls": 0.05, "sigma_f": 1.0, "sigma_n": 0.25, "amplitude": 0.5, "mean": 0.3}
    image = {"ls": a * 0.05, "sigma_f": c, "sigma_n": c * 0.25, "amplitude": 0.5}
    image["mean"] = c * 0.3 + d
    probs = []
    for Xs, ys, p in ((X, y, point), (a * X + b, c * y + d, image)):
        model, _ = build_jump_model(Xs, ys, method="marginal")
        probs.append(numeric_value(model["y_gap_probs"], p))
    assert probs[0].max() > 10 / len(probs[0])  # the data pick gaps: a test that can fail
    np.testing.assert_allclose(probs[1], probs[0], atol=1e-6)


def test_nuts_is_the_same_on_y_of_order_1e_minus_12():
    """Every chain finds the posterior of σ_n and the mean on y × 10⁻¹² + 5·10⁻¹², as on y.

    The constant mean is sampled in units of sd(y) (:class:`pymc_vsk.priors.Standardized`):
    sampled in the user's units, nutpie's initial jitter put it 10¹² sds away and one chain
    stayed in a mode with 30 times the noise (σ_n 0.71 instead of 0.027 on this data).
    """
    X = np.linspace(0, 1, 40)[:, None]
    y = targets.jump(X) + 0.05 * np.random.default_rng(seed(61)).normal(size=40)
    medians = []
    for c, d in ((1.0, 0.0), (1e-12, 5e-12)):
        model, _ = build_model(X, c * y + d, psi=Jump(0.5))
        with model:
            idata = pm.sample(
                draws=200,
                tune=200,
                chains=2,
                nuts_sampler="nutpie",
                random_seed=3,
                progressbar=False,
            )
        post = idata.posterior
        medians.append(
            (
                post["sigma_n"].median("draw").values / c,
                (post["mean"].median("draw").values - d) / c,
            )
        )
    (noise, mean), (noise_c, mean_c) = medians
    # within a factor of 2: the failure was a factor of 30
    assert np.all((noise_c > np.median(noise) / 2) & (noise_c < 2 * np.median(noise))), noise_c
    np.testing.assert_allclose(mean_c, np.median(mean), atol=0.5)


@pytest.mark.parametrize("priors", ["flat", "default"])
def test_a_model_fed_new_data_in_other_units_fits_them_as_a_new_model(priors):
    """set_data to y × 10⁻⁹ gives the MAP fit of a model built on it.

    fit_map optimised the mean in units of the data the model was built with: a model built
    on y and fed 10⁻⁹ y stopped at ℓ = 0.32 (log density 838.8, not converged) where a
    model built on 10⁻⁹ y reaches ℓ = 0.70 (850.3). The default priors kept the scales of
    the first data (σ_n ~ HalfNormal(sd(y))): on y × 1000, σ_n came out 9.8 against 66.9.
    NUTS still samples in the old units, which set_data says.
    """
    X, y = _one_d()
    fits = []
    for c in (1e-9, 1e9):
        fresh, _ = build_model(X, c * y, psi=Jump(0.5), priors=priors)
        swapped, _ = build_model(X, y, psi=Jump(0.5), priors=priors)
        with pytest.warns(UserWarning, match=r"times that of the data the model was built"):
            set_data(swapped, X, c * y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits.append([fit_map(m, n_starts=4, seed=0, warn=False) for m in (fresh, swapped)])
    for fresh_fit, swapped_fit in fits:
        assert swapped_fit.optima[0].converged
        np.testing.assert_allclose(swapped_fit.logp, fresh_fit.logp, rtol=1e-6, atol=1e-4)
        for name in ("ls", "sigma_f", "sigma_n", "mean"):
            np.testing.assert_allclose(swapped_fit.point[name], fresh_fit.point[name], rtol=1e-3)


def test_the_estimator_fits_in_any_units_whatever_it_fitted_before():
    """A VSKRegressor fit on 10⁻⁹ y after one on y (which builds the shared model) is the
    fit on y in other units; it reached ℓ = 0.066 instead of 0.102, not converged, when the
    mean was sampled in the units of the first fit. The estimator keeps its own copy of X."""
    from pymc_vsk import VSKRegressor

    X, y = _one_d()
    first = VSKRegressor(psi=Jump(0.5), n_starts=4, random_state=0).fit(X, y)
    scaled = VSKRegressor(psi=Jump(0.5), n_starts=4, random_state=0).fit(X, 1e-9 * y)
    assert scaled.map_.optima[0].converged
    np.testing.assert_allclose(scaled.lengthscale_, first.lengthscale_, rtol=1e-3)
    np.testing.assert_allclose(scaled.noise_ / 1e-9, first.noise_, rtol=1e-3)
    grid = np.linspace(0.05, 0.95, 7)[:, None]
    np.testing.assert_allclose(
        scaled.predict(grid) / 1e-9, first.predict(grid), atol=1e-3 * np.std(y)
    )
    mine = X.copy()
    kept = VSKRegressor(psi=Jump(0.5), n_starts=4, random_state=0).fit(mine, y)
    before = kept.predict(grid)
    mine[:] = mine[::-1]  # the caller reuses its buffer, then another fit swaps the data
    VSKRegressor(psi=Jump(0.5), n_starts=4, random_state=0).fit(X[:30], y[:30])
    np.testing.assert_allclose(kept.predict(grid), before, rtol=1e-9)


def test_pymc_model_transformations_keep_a_standardized_mean():
    """freeze_dims_and_data, a clone and pm.do work on build_model's model: the mean's
    transform holds numbers (a graph of the data container failed with "mean is not in
    list": the transformations replace the container)."""
    from pymc.model.fgraph import clone_model
    from pymc.model.transform.optimization import freeze_dims_and_data

    X, y = _one_d()
    model, _ = build_model(X, 1e-6 * y, psi=Jump(0.5))
    point = model.initial_point()
    logp = model.compile_logp()(point)
    for other in (freeze_dims_and_data(model), clone_model(model)):
        np.testing.assert_allclose(other.compile_logp()(point), logp)
    fixed = pm.do(model, {"sigma_n": 1e-7})
    assert np.isfinite(fixed.compile_logp()(fixed.initial_point()))


def test_jitter_is_relative_to_the_data_and_shared_with_prediction():
    """Reference: interpolation (σ_n = 0) reproduces the data at the nodes."""
    X, y = _one_d()
    c = 1e-6
    model, gp = build_model(
        X, c * y, psi=Jump(0.5), mean="zero", sigma_n=0.0, sigma_f=2.0 * c, ls=0.1
    )
    assert numeric_value(gp.jitter) == pytest.approx(1e-6 * np.std(c * y) ** 2)
    pred = predict(gp, X, point={}, model=model)
    np.testing.assert_allclose(pred.mean / c, y, atol=1e-3)
    assert np.max(pred.std_f) < 1e-2 * c
    mu, _ = gp.predict(X, point={}, diag=True, model=model)  # PyMC's path: the same jitter
    np.testing.assert_allclose(mu / c, y, atol=1e-3)


def test_a_jitter_given_to_predict_is_read_as_build_model_reads_it():
    """``jitter=`` is relative to sd(y)² in build_model; predict took the same number as an
    absolute one, so on y × 0.001 + 5 the mean moved by 0.35 and std_y grew 4.5-fold."""
    X, y = _one_d()
    Xnew = np.linspace(0, 1, 7)[:, None]
    answers = []
    for a, b in ((1.0, 0.0), (1e-3, 5.0)):
        model, gp = build_model(X, a * y + b, psi=Jump(0.5), ls=0.1, sigma_f=2.0 * a)
        fit = fit_map(model, n_starts=2, warn=False)
        pred = predict(gp, Xnew, point=fit, jitter=1e-4)
        answers.append(((pred.mean - b) / a, pred.std_y / a))
        assert numeric_value(fitted_jitter(gp, 1e-4)) == pytest.approx(1e-4 * np.var(a * y))
    np.testing.assert_allclose(answers[0][0], answers[1][0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(answers[0][1], answers[1][1], rtol=1e-4)


def test_memory_guard_covers_the_stationary_model():
    X = np.linspace(0.0, 1.0, 20_000)[:, None]
    y = np.sin(6 * X[:, 0])
    messages = []
    for psi in (None, Jump(0.5)):
        with pytest.raises(MemoryError, match="dense 20000 x 20000") as err:
            build_model(X, y, psi=psi)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_float32_is_refused_at_model_build():
    X, y = _one_d()
    with pytensor.config.change_flags(floatX="float32"):
        with pytest.raises(RuntimeError, match=r'floatX = "float64"'):
            build_model(X, y, psi=Jump(0.5))
        with pytest.raises(RuntimeError, match="float64"):
            build_jump_model(X, y)


def test_float32_user_model_is_refused_by_fit_map_and_predict():
    """A model written by hand under float32 gets the same message from fit_map and predict."""
    X, y = _one_d()
    with pytensor.config.change_flags(floatX="float32"):
        with pm.Model() as model:
            ls = pm.InverseGamma("ls", 3.0, 0.2)
            sigma = pm.HalfNormal("sigma", 0.5)
            gp = pm.gp.Marginal(cov_func=VSK(pm.gp.cov.Matern52(2, ls=ls), Jump(0.5)))
            gp.marginal_likelihood("y", X=X, y=y, sigma=sigma)
        with pytest.raises(RuntimeError, match=r"fit_map needs float64.*floatX = \"float64\""):
            fit_map(model)
        with pytest.raises(RuntimeError, match=r"predict needs float64"):
            predict(gp, X[:3], point={"ls": 0.1, "sigma": 0.1}, model=model)
    # built under float32, used under float64: the free variables are still float32
    with pytest.raises(RuntimeError, match=r"free variables in float32"):
        fit_map(model)


def test_vsk_warns_when_psi_is_negligible_against_the_length_scale():
    a = 1e6
    X = a * targets.halton_nodes(20)
    base = pm.gp.cov.Matern52(2, ls=0.1 * a)
    with pytest.warns(NegligibleScalingWarning, match="too small to matter"):
        VSK(base, Jump(0.5 * a))(X).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NegligibleScalingWarning)
        VSK(base, Jump(0.5 * a), psi_scale=a)(X).eval()


def test_a_psi_constant_over_the_data_is_named_at_build_and_at_set_data():
    """A jump outside the data (here given in other units than X) makes ψ constant: the VSK
    is then the stationary kernel, which build_model, set_data and the estimator say. A jump
    inside the data gives no such warning."""
    X, y = _one_d()
    with pytest.warns(NegligibleScalingWarning, match=r"constant over the training inputs"):
        build_model(X, y, psi=Jump(50.0))  # the place in per cent, x in [0, 1]
    with pytest.warns(NegligibleScalingWarning, match=r"inside its range"):
        VSKRegressor(psi=Jump(-1.0), n_starts=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NegligibleScalingWarning)
        model, _ = build_model(X, y, psi=Jump(0.5))
        with pm.Model():  # a location in a data container is judged when it is set, not now
            build_model(X, y, psi=Jump(pm.Data("place", 5.0) * 1.0))
    left = X[:, 0] < 0.5
    with pytest.warns(NegligibleScalingWarning, match=r"X spans 0 to 0\.4\d+\)"):
        set_data(model, X[left], y[left])


def test_fit_map_warns_when_the_fitted_length_scale_makes_psi_negligible():
    X, y = _one_d()
    a = 1e6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, _ = build_model(a * X, y, psi=Jump(0.5 * a), standardize=False)
    with pytest.warns(NegligibleScalingWarning, match="fit"):
        fit_map(model, n_starts=1, seed=0, warn=False)


def test_mixture_quantiles_and_intervals_are_the_same_in_small_units_of_y():
    """Quantiles of a mixture solve F(x) = q on a bracket and to a tolerance that were
    absolute (10⁻¹² and 4·10⁻¹⁶): on y × 10⁻²⁰ a quantile of this mixture was off by 0.28
    sd (the HDI's ends of another one by 10⁻³ sd)."""
    from pymc_vsk.prediction import Prediction

    rng = np.random.default_rng(0)
    moments = [(rng.normal(size=5), rng.uniform(0.1, 1, 5) ** 2, rng.uniform(0.5, 1.2, 5) ** 2)]
    moments += [(m + 1.5, vf, vy) for m, vf, vy in moments] * 2
    ref = Prediction.mixture(moments)
    probs = [0.03, 0.5, 0.97]
    for c, d in ((1e-20, 0.0), (1e-40, 3e-39), (1e12, 5e13)):
        scaled = Prediction.mixture([(c * m + d, c**2 * vf, c**2 * vy) for m, vf, vy in moments])
        np.testing.assert_allclose(
            (scaled.quantile(probs) - d) / c, ref.quantile(probs), atol=1e-9 * np.max(ref.std_y)
        )
        ends, ends_ref = scaled.interval(0.9, kind="hdi"), ref.interval(0.9, kind="hdi")
        for end, end_ref in zip(ends, ends_ref, strict=True):
            np.testing.assert_allclose((end - d) / c, end_ref, atol=1e-9 * np.max(ref.std_y))


def test_the_estimator_s_covariance_is_the_same_with_y_far_from_zero():
    """predict(return_cov=True) took E[f fᵀ] − E[f] E[f]ᵀ: with y around 10⁸ (sd 0.6) the two
    terms are 10¹⁶ and the covariance of 10⁻² was lost to rounding."""
    X, y = _one_d()
    grid = np.linspace(0.05, 0.95, 6)[:, None]
    covs = []
    for d in (0.0, 1e8):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X, y + d)
        covs.append(est.predict(grid, return_cov=True)[1])
    np.testing.assert_allclose(covs[1], covs[0], atol=1e-6 * np.max(covs[0]))


def test_the_collapsed_hsgp_likelihood_is_the_same_in_other_units_of_y():
    """The collapsed likelihood summed yᵀy − 2m Σy + n m²: with y around 10⁶ (noise 0.05) the
    terms are 10¹⁵ and the log density was off by 9.6 (by 85 000 around 10⁸). In units of
    10⁻⁴ it was off by 9·10⁻⁴: σ_n = 500.0 became a float32 constant and n log σ² was
    computed in single precision. Around 10⁸, y itself is rounded by 10⁻⁸ (10⁻⁵ in the log
    density)."""
    from pymc_vsk.hsgp import CollapsedLiftedHSGP

    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(0, 1, 400))[:, None]
    y = targets.jump(X) + 0.05 * rng.normal(size=400)
    grid = np.linspace(0.05, 0.95, 6)[:, None]
    answers = []
    for c, d in ((1.0, 0.0), (1.0, 1e6), (1.0, 1e8), (1e4, 0.0)):
        with pm.Model() as model:
            cov = (1.5 * c) ** 2 * pm.gp.cov.Matern52(2, ls=[0.08, 0.5])
            hs = CollapsedLiftedHSGP([30, 5], Jump(0.5), cov_func=cov, c=1.5)
            hs.marginal_likelihood("lik", X=X, y=c * y + d, sigma=0.05 * c, mean=1.3 * c + d)
        pred = predict(hs, grid, point={}, model=model)
        logp = model.compile_logp()({}) + len(y) * np.log(c)
        answers.append((logp, (pred.mean - d) / c, pred.std_y / c))
    (logp, mean, sd), *others = answers
    for logp_c, mean_c, sd_c in others:
        assert logp_c == pytest.approx(logp, abs=1e-4)
        np.testing.assert_allclose(mean_c, mean, atol=1e-6 * np.max(sd))
        np.testing.assert_allclose(sd_c, sd, rtol=1e-9)


def test_the_sparse_recipe_is_the_same_in_other_units():
    """pymc_vsk.sparse's recipe: a jitter relative to var(y), given to marginal_likelihood and
    to predict, and ψ scaled by the x-range. With PyMC's absolute 10⁻⁶ instead, y × 10⁻⁴
    moves the predictive mean by 2.2 sds."""
    from pymc_vsk.sparse import inducing_points

    X, y = _one_d(60)
    grid = np.linspace(0.05, 0.95, 6)[:, None]
    answers = []
    for a, b, c, d in ((1.0, 0.0, 1.0, 0.0), (1e6, 3e6, 1e-4, 5.0)):
        Xs, ys, psi = a * X + b, c * y + d, Jump(a * 0.5 + b)
        jitter = 1e-6 * np.var(ys)
        with pm.Model() as model:
            vsk = VSK(pm.gp.cov.Matern52(2, ls=0.06 * a), psi, psi_scale=np.ptp(Xs, axis=0).max())
            gp = pm.gp.MarginalApprox(
                approx="VFE",
                cov_func=(1.5 * c) ** 2 * vsk,
                mean_func=pm.gp.mean.Constant(1.3 * c + d),
            )
            Xu = inducing_points(Xs, 20, psi)
            gp.marginal_likelihood("y", X=Xs, Xu=Xu, y=ys, sigma=0.25 * c, jitter=jitter)
        pred = predict(gp, a * grid + b, point={}, model=model, jitter=jitter)
        answers.append(((pred.mean - d) / c, pred.std_y / c))
    np.testing.assert_allclose(answers[1][0], answers[0][0], atol=1e-6 * np.max(answers[0][1]))
    np.testing.assert_allclose(answers[1][1], answers[0][1], rtol=1e-6)


def test_the_power_function_of_a_pymc_kernel_is_the_same_at_any_offset_of_x():
    """PyMC's stationary kernels expand ‖x − x'‖² = ‖x‖² − 2 xᵀx' + ‖x'‖²: with X in [2000,
    2001] the power function was off by 0.5 %, in [10⁶, 10⁶ + 1] the kernel matrix was not
    positive definite. A product (σ_f² k) is covered, and the kernel given is left as it
    was."""
    from pymc_vsk import power_function

    X = targets.halton_nodes(30)
    grid = np.linspace(0.03, 0.97, 7)[:, None]
    ref = power_function(pm.gp.cov.Matern52(1, ls=0.2), X, grid)
    for b in (2000.0, 1e6):
        kernel = pm.gp.cov.Matern52(1, ls=0.2)
        for cov, sigma_f in ((kernel, 1.0), (1.5**2 * kernel, 1.5)):
            values = power_function(cov, X + b, grid + b) / sigma_f
            np.testing.assert_allclose(values, ref, rtol=1e-6, atol=1e-6 * np.max(ref))
        assert type(kernel) is pm.gp.cov.Matern52
