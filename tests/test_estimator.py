"""VSKRegressor: scikit-learn's estimator checks, compile-once, units, and scikit-learn's GPR.

scikit-learn's own checks (``parametrize_with_checks``) run with ``n_starts=1`` to keep them
quick; every check passes (``EXPECTED_FAILED_CHECKS`` is empty). Compilations are counted at
pytensor's ``FunctionMaker``, as in ``tests/test_compile_once.py``.
"""

from __future__ import annotations

import copy
import functools
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from pymc_vsk import VSKRegressor, diagnose, targets
from pymc_vsk.estimator import EXPECTED_FAILED_CHECKS, METHODS, PRIORS
from pymc_vsk.fitting import MultimodalWarning, NotConvergedWarning, fit_map
from pymc_vsk.scaling import Jump
from tests import test_compile_once
from tests.conftest import seed

#: Counts pytensor compilations (the fixture of tests/test_compile_once.py).
compilations = test_compile_once.compilations


def smooth_data(n: int, seed: int, d: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """A smooth target with noise of sd 0.1 on uniform random inputs in [0, 1]^d."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, d))
    y = np.sin(6 * X[:, 0]) + 0.5 * X.sum(axis=1) + 0.1 * rng.normal(size=n)
    return X, y


def jump_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


@pytest.fixture(autouse=True)
def _quiet_multimodal():
    """Few starts on noisy data may disagree; the tests look at the best optimum."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MultimodalWarning)
        yield


@parametrize_with_checks(
    [VSKRegressor(n_starts=1)], expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- compile once -----------------------------------------------------------------------------
def test_second_fit_on_new_data_of_the_same_width_compiles_nothing(compilations):
    X, y = jump_data(27, seed(0))
    first = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X, y)
    grid = np.linspace(0, 1, 7)[:, None]
    first.predict(grid, return_std=True)
    first.predict(grid, return_cov=True)
    before = first.predict(grid)
    compilations.clear()

    X2, y2 = jump_data(40, seed(1))
    second = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X2, y2)
    ours = second.predict(grid, return_std=True)
    second.predict(grid, return_cov=True)
    second.sample_y(grid, 3)
    second.score(X2, y2)
    again = first.predict(grid)  # the first estimator's data are swapped back in
    assert compilations == []
    assert second.model_ is first.model_
    np.testing.assert_allclose(again, before, rtol=1e-12)

    # the shared model gives what a model of its own gives (another psi object: its own model)
    fresh = VSKRegressor(psi=Jump(0.5, amplitudes=1.0 + 1e-12), n_starts=2, random_state=0)
    fresh.fit(X2, y2)
    assert fresh.model_ is not second.model_
    reference = fresh.predict(grid, return_std=True)
    np.testing.assert_allclose(ours[0], reference[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours[1], reference[1], rtol=1e-5)


def test_grid_search_over_kernels_compiles_once_per_kernel_not_per_fold(compilations):
    """Flat priors at width 2: a configuration no other test fits, so nothing is cached."""
    kernels = ["matern32", "matern52"]
    X, y = smooth_data(40, seed(3), d=2)
    estimator = VSKRegressor(priors="flat", n_starts=1, random_state=0)
    compilations.clear()
    estimator.fit(X[:30], y[:30]).score(X[30:], y[30:])  # kernel="matern52"
    one_model = len(compilations)
    assert one_model > 0

    compilations.clear()
    search = GridSearchCV(estimator, {"kernel": kernels}, cv=4).fit(X, y)
    # 2 kernels x 4 folds + the refit = 9 fits and 8 scores; only matern32's model is new
    assert 0 < len(compilations) <= one_model
    assert search.best_params_["kernel"] in kernels
    assert search.best_estimator_.score(X, y) > 0.9

    compilations.clear()
    GridSearchCV(estimator, {"kernel": kernels}, cv=3).fit(X, y)
    assert compilations == []


# -- pipelines and units ----------------------------------------------------------------------
def test_pipeline_with_standard_scaler_gives_the_fit_on_raw_inputs():
    X, y = smooth_data(30, seed(4))
    X = 250.0 * X - 40.0
    grid = np.linspace(-40, 210, 9)[:, None]
    pipe = make_pipeline(StandardScaler(), VSKRegressor(n_starts=3, random_state=0)).fit(X, y)
    raw = VSKRegressor(n_starts=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(pipe.predict(grid), raw.predict(grid), rtol=1e-3, atol=1e-6)
    assert pipe.score(X, y) == pytest.approx(raw.score(X, y), rel=1e-6)


@pytest.mark.parametrize("psi", [None, 0.5], ids=["stationary", "jump"])
def test_rescaled_and_shifted_data_give_the_same_predictions_back_scaled(psi):
    a, b, c, d = 1e3, -7.0, 1e-2, 5.0
    X, y = jump_data(31, seed(5))
    grid = np.linspace(0, 1, 11)[:, None]
    kwargs = {"n_starts": 4, "random_state": 0}
    unit = VSKRegressor(psi=None if psi is None else Jump(psi), **kwargs).fit(X, y)
    moved = VSKRegressor(psi=None if psi is None else Jump(a * psi + b), **kwargs)
    moved.fit(a * X + b, c * y + d)
    mean, std = unit.predict(grid, return_std=True)
    mean2, std2 = moved.predict(a * grid + b, return_std=True)
    np.testing.assert_allclose(mean2, c * mean + d, rtol=1e-3)
    np.testing.assert_allclose(std2, abs(c) * std, rtol=1e-3)
    assert moved.lengthscale_ == pytest.approx(a * unit.lengthscale_, rel=1e-3)
    assert moved.amplitude_ == pytest.approx(c * unit.amplitude_, rel=1e-3)
    assert moved.noise_ == pytest.approx(c * unit.noise_, rel=1e-3, abs=1e-3 * c * np.std(y))
    assert moved.mean_ == pytest.approx(c * unit.mean_ + d, rel=1e-3)


def test_float32_input_is_fitted_as_float64():
    X, y = smooth_data(25, seed(6))
    X32, y32 = X.astype(np.float32), y.astype(np.float32)
    ours = VSKRegressor(n_starts=2, random_state=0).fit(X32, y32)
    assert ours.X_train_.dtype == np.float64 and ours.y_train_.dtype == np.float64
    reference = VSKRegressor(n_starts=2, random_state=0).fit(X32.astype(float), y32.astype(float))
    grid = np.linspace(0, 1, 5, dtype=np.float32)[:, None]
    np.testing.assert_allclose(ours.predict(grid), reference.predict(grid), rtol=1e-10)


# -- an independent reference: scikit-learn's GaussianProcessRegressor --------------------------
def _sklearn_gpr(X, y, alpha, normalize_y):
    kernel = ConstantKernel(1.0, (1e-8, 1e8)) * Matern(0.2, (1e-5, 1e5), nu=2.5)
    kernel = kernel + WhiteKernel(0.01, (1e-12, 1e3))
    gpr = GaussianProcessRegressor(
        kernel, alpha=alpha, normalize_y=normalize_y, n_restarts_optimizer=4, random_state=0
    )
    return gpr.fit(X, y)


def test_stationary_map_fit_equals_sklearn_gpr():
    """With ``priors="flat"`` the MAP fit is the MLE of the model sklearn's GPR fits.

    The one difference is the constant mean: ours is estimated with the other parameters,
    normalize_y fixes it at the sample mean. Given our fitted mean, a zero-mean GPR on
    y − m̂ (with our jitter 1e-6·sd(y)² as ``alpha``) is the same model, fitted from its own
    starts. Over 8 seed offsets its parameters agreed to 6.7e-7, its mean to 8.7e-8·sd(y)
    and its std to 6.8e-7; the test asks for 1e-4, 1e-5·sd(y) and 1e-4 (sklearn's L-BFGS
    stops at a gradient of 1e-5, so its optimum is not exact). The user's GPR with
    normalize_y=True differed by at most 0.016·sd(y) (the mean's treatment alone); that
    comparison is loose, 0.1·sd(y).
    """
    X, y = smooth_data(40, seed(7))
    grid = np.linspace(0, 1, 50)[:, None]
    ours = VSKRegressor(kernel="matern52", priors="flat", n_starts=6, random_state=0).fit(X, y)
    mean, std = ours.predict(grid, return_std=True)
    sd_y = np.std(y)

    same = _sklearn_gpr(X, y - ours.mean_, alpha=1e-6 * sd_y**2, normalize_y=False)
    p = same.kernel_.get_params()
    assert ours.lengthscale_ == pytest.approx(p["k1__k2__length_scale"], rel=1e-4)
    assert ours.amplitude_ == pytest.approx(np.sqrt(p["k1__k1__constant_value"]), rel=1e-4)
    assert ours.noise_ == pytest.approx(np.sqrt(p["k2__noise_level"]), rel=1e-4)
    their_mean, their_std = same.predict(grid, return_std=True)
    their_std_f = np.sqrt(their_std**2 - p["k2__noise_level"])  # WhiteKernel adds σ_n²
    np.testing.assert_allclose(mean, their_mean + ours.mean_, rtol=0, atol=1e-5 * sd_y)
    np.testing.assert_allclose(std, their_std_f, rtol=1e-4)

    usual = _sklearn_gpr(X, y, alpha=1e-6, normalize_y=True)
    np.testing.assert_allclose(mean, usual.predict(grid), rtol=0, atol=0.1 * sd_y)


# -- NUTS, draws, errors, pickling --------------------------------------------------------------
def test_nuts_fit_predicts_held_out_data_with_consistent_moments():
    X, y = smooth_data(40, seed(8))
    reg = VSKRegressor(method="nuts", draws=200, tune=200, chains=2, random_state=seed(8))
    reg.fit(X[:30], y[:30])
    assert reg.idata_["posterior"]["ls"].shape == (2, 200)
    assert not hasattr(reg, "map_")
    assert reg.score(X[30:], y[30:]) > 0.9
    mean, std = reg.predict(X[30:], return_std=True)
    mean_c, cov = reg.predict(X[30:], return_cov=True)
    np.testing.assert_allclose(mean_c, mean, rtol=1e-10)
    np.testing.assert_allclose(np.diag(cov), std**2, rtol=1e-10)
    assert np.all(np.linalg.eigvalsh(cov) > -1e-10 * np.max(std) ** 2)


def test_a_map_fit_that_is_no_optimum_says_so_at_the_caller_s_line(monkeypatch):
    import pymc_vsk.estimator as estimator_module

    monkeypatch.setattr(estimator_module, "fit_map", functools.partial(fit_map, maxiter=1))
    X, y = jump_data(20, seed(11))
    with pytest.warns(NotConvergedWarning, match=r"priors='default', or more n_starts") as got:
        VSKRegressor(psi=Jump(0.5), n_starts=1).fit(X, y)
    assert [w.filename for w in got if w.category is NotConvergedWarning] == [__file__]


def test_a_nuts_fit_that_has_not_converged_says_so():
    """30 tuning steps and 100 draws: r̂ of ℓ about 1.3 and a bulk ESS of 6, and the fit said
    nothing (nutpie's path logs no diagnostics of its own)."""
    X, y = jump_data(27, seed(10))
    # Matérn 3/2: a configuration of its own, so that other tests' compilations stay theirs
    reg = VSKRegressor(psi=Jump(0.5), kernel="matern32", method="nuts", draws=30, tune=10)
    with pytest.warns(ConvergenceWarning, match=r"NUTS has not converged \(.*ess_bulk = "):
        reg.set_params(nuts_sampler="nutpie", random_state=seed(10)).fit(X, y)
    assert not diagnose(reg.idata_).ok


def test_sample_y_draws_have_the_predicted_mean_and_covariance():
    X, y = jump_data(25, seed(9))
    reg = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X, y)
    grid = np.array([[0.2], [0.45], [0.55], [0.8]])
    mean, cov = reg.predict(grid, return_cov=True)
    draws = reg.sample_y(grid, n_samples=4000, random_state=seed(9))
    assert draws.shape == (4, 4000)
    sd = np.sqrt(np.diag(cov))
    # the sample mean is within 5 standard errors; the sample sd within 10 %
    assert np.all(np.abs(draws.mean(axis=1) - mean) < 5 * sd / np.sqrt(4000))
    np.testing.assert_allclose(draws.std(axis=1), sd, rtol=0.1)
    np.testing.assert_array_equal(reg.sample_y(grid, 2, random_state=1), reg.sample_y(grid, 2, 1))


@pytest.mark.parametrize(
    ("params", "names"),
    [
        ({"kernel": "matern42"}, ["matern32", "matern52", "expquad"]),
        ({"method": "vi"}, list(METHODS)),
        ({"priors": "wide"}, list(PRIORS)),
    ],
    ids=["kernel", "method", "priors"],
)
def test_unknown_names_are_refused_listing_the_valid_ones(params, names):
    X, y = smooth_data(10, 0)
    with pytest.raises(ValueError, match="choose one of") as info:
        VSKRegressor(**params).fit(X, y)
    for name in names:
        assert repr(name) in str(info.value)


def test_predict_before_fit_raises_not_fitted_and_std_with_cov_is_refused():
    with pytest.raises(NotFittedError):
        VSKRegressor().predict(np.zeros((2, 1)))
    X, y = smooth_data(10, 0)
    reg = VSKRegressor(n_starts=1, random_state=0).fit(X, y)
    with pytest.raises(RuntimeError, match="At most one"):
        reg.predict(X, return_std=True, return_cov=True)


@pytest.mark.parametrize("change", [{}, {"psi": None}, {"kernel": "expquad"}])
def test_pickled_estimator_predicts_the_same(change):
    """A fitted estimator predicts with the model it was fitted with, pickled, copied or not,
    even after set_params (which takes effect at the next fit, as in scikit-learn). Pickling
    used to rebuild the model from the changed parameters and keep the old MAP point."""
    X, y = jump_data(20, seed(10))
    reg = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X, y)
    grid = np.linspace(0, 1, 6)[:, None]
    fitted = reg.predict(grid)
    reg.set_params(**change)
    for same in (reg, pickle.loads(pickle.dumps(reg)), copy.deepcopy(reg)):
        np.testing.assert_allclose(same.predict(grid), fitted, rtol=1e-12)


# -- inputs as a scikit-learn user gives them ---------------------------------------------------
@pytest.fixture(scope="module")
def fitted() -> VSKRegressor:
    X, y = smooth_data(12, 0)
    return VSKRegressor(n_starts=1, random_state=0).fit(X, y)


_X, _Y = smooth_data(12, 0)
_DAYS = np.datetime64("2001-01-01") + np.arange(12).astype("timedelta64[D]")


@pytest.mark.parametrize(
    ("method", "args", "problem"),
    [
        ("fit", (_X.astype(str), _Y), r"X must hold numbers, not text"),
        ("fit", (_X.astype(str).astype(bytes), _Y), r"X must hold numbers, not text"),
        ("fit", ([*_X.tolist(), ["1.5"]], [*_Y, 0.0]), r"X must hold numbers, not text"),
        ("fit", (_X, _Y.astype(str)), r"y must hold numbers, not text"),
        ("fit", (_X, [str(v) for v in _Y]), r"y must hold numbers, not text"),
        ("fit", (_X, _DAYS), r"Dates or durations in y \(dtype datetime64\[D\]\)"),
        (
            "fit",
            (_X, pd.Series(pd.to_timedelta(1e3 * _Y, unit="s"))),
            r"Dates or durations in y \(dtype timedelta64",
        ),
        ("predict", (_X.astype(str),), r"X must hold numbers, not text"),
        ("sample_y", (_X.astype(str),), r"X must hold numbers, not text"),
    ],
    ids=[
        "X-text",
        "X-bytes",
        "X-list-with-text",
        "y-text",
        "y-list-of-text",
        "y-dates",
        "y-durations-series",
        "predict-X-text",
        "sample_y-X-text",
    ],
)
def test_text_dates_and_durations_are_refused_as_build_model_refuses_them(
    fitted, method, args, problem
):
    """scikit-learn's checks parse text that reads as a number and count the ticks of dates
    and durations (durations in a Series became nanoseconds, a y of dates days since 1970):
    the estimator fitted those silently, while build_model refuses them."""
    estimator = VSKRegressor(n_starts=1) if method == "fit" else fitted
    with pytest.raises(TypeError, match=problem):
        getattr(estimator, method)(*args)


def test_numbers_in_lists_objects_bools_and_pandas_are_still_accepted(fitted):
    X, y = smooth_data(12, 0)
    grid = np.linspace(0, 1, 5)[:, None]
    expected = fitted.predict(grid)
    for X_as, y_as in [
        (X.tolist(), y.tolist()),
        (X.astype(object), y.astype(object)),
        (pd.DataFrame({"x": X[:, 0]}), pd.Series(y, name="y")),
        (pd.DataFrame({"x": X[:, 0].astype(object)}), pd.Series(y.astype(object))),
    ]:
        ours = clone(fitted).fit(X_as, y_as)
        at = pd.DataFrame({"x": grid[:, 0]}) if isinstance(X_as, pd.DataFrame) else grid
        np.testing.assert_allclose(ours.predict(at), expected, rtol=1e-10)
    assert clone(fitted).fit(X, y > 0).y_train_.dtype == np.float64


@pytest.mark.parametrize("value", ["no", None, 1, 0.0])
def test_standardize_must_be_a_bool(value):
    """``bool("no")`` is True: a string or a number used to be read by its truth value."""
    X, y = smooth_data(10, 0)
    with pytest.raises(TypeError, match=r"standardize must be True or False; got"):
        VSKRegressor(standardize=value, n_starts=1).fit(X, y)


@pytest.mark.parametrize("n_samples", [2.7, -1, True, "3"])
def test_sample_y_refuses_a_count_that_is_not_a_whole_number(fitted, n_samples):
    """2.7 draws used to give 2 without a word."""
    with pytest.raises(ValueError, match=r"n_samples must be an integer >= 0; got"):
        fitted.sample_y(np.zeros((3, 1)), n_samples)


def test_sample_y_takes_any_whole_count(fitted):
    grid = np.zeros((3, 1))
    assert fitted.sample_y(grid, 0).shape == (3, 0)
    assert fitted.sample_y(grid, np.int64(2)).shape == (3, 2)


def test_a_pickled_estimator_predicts_the_same_in_a_fresh_process(tmp_path):
    """No model travels in the pickle: the new process builds it again from the fitted
    configuration and must give the same mean, std, covariance and draws."""
    X, y = jump_data(20, seed(12))
    reg = VSKRegressor(psi=Jump(0.5), n_starts=2, random_state=0).fit(X, y)
    grid = np.linspace(0, 1, 6)[:, None]
    mean, std = reg.predict(grid, return_std=True)
    _, cov = reg.predict(grid, return_cov=True)
    draws = reg.sample_y(grid, 3, random_state=1)
    (tmp_path / "fitted.pkl").write_bytes(pickle.dumps(reg))
    script = (
        "import pickle, sys\n"
        "import numpy as np\n"
        "reg = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "grid = np.linspace(0, 1, 6)[:, None]\n"
        "mean, std = reg.predict(grid, return_std=True)\n"
        "_, cov = reg.predict(grid, return_cov=True)\n"
        "draws = reg.sample_y(grid, 3, random_state=1)\n"
        "np.savez(sys.argv[2], mean=mean, std=std, cov=cov, draws=draws)\n"
    )
    subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "fitted.pkl"), str(tmp_path / "out.npz")],
        check=True,
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    got = np.load(tmp_path / "out.npz")
    for name, ours in [("mean", mean), ("std", std), ("cov", cov), ("draws", draws)]:
        np.testing.assert_allclose(got[name], ours, rtol=1e-10, atol=1e-14, err_msg=name)
