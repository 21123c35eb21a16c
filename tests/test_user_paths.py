"""What users of PyMC and scikit-learn do with the high-level entry points, and what they get.

Each test follows a path a user takes with their own data (PyMC's ``pm.set_data`` idiom,
leave-one-out after swapping data, estimators sharing a model) and checks the answer against
an independent reference or a message that names the problem and the fix.
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSKRegressor, build_model, fit_map, predict, set_data, targets
from pymc_vsk.loo import add_log_likelihood, gaussian_loo
from pymc_vsk.scaling import Jump

#: Fixed hyper-parameters of the small models below (no fit needed to predict).
FIXED = {"ls": 0.1, "sigma_f": 1.2, "sigma_n": 0.2}


def _data(n=16, seed=3):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


@pytest.fixture(scope="module")
def fixed_model():
    X, y = _data()
    model, gp = build_model(X, y, psi=Jump(0.5), mean=1.0, **FIXED)
    return model, gp, X, y


@pytest.fixture(scope="module")
def free_model():
    X, y = _data()
    model, gp = build_model(X, y, psi=Jump(0.5))
    return model, gp, X, y


def _matern52_lifted(A, B, ls, sigma_f, s):
    """σ_f² Matérn 5/2 on the lifted inputs [x, s·ψ(x)] with ψ = Jump(0.5), by numpy."""
    lift = lambda Z: np.c_[Z, s * (Z[:, 0] >= 0.5)]  # noqa: E731
    r = np.sqrt(((lift(A)[:, None] - lift(B)[None]) ** 2).sum(-1)) / ls
    return sigma_f**2 * (1 + np.sqrt(5) * r + 5 * r**2 / 3) * np.exp(-np.sqrt(5) * r)


def _restore(model, X, y):
    pm.set_data({"X": X, "y_data": y}, model=model)


def test_pm_set_data_of_new_inputs_alone_is_refused_naming_predict(fixed_model, free_model):
    """PyMC's way to predict a regression (pm.set_data({"X": Xnew}), then predict) leaves the
    GP with new inputs and old observations; numpy's broadcasting error came out of pytensor.
    """
    Xnew = np.linspace(0, 1, 5)[:, None]
    for model, gp, X, y in (fixed_model, free_model):
        pm.set_data({"X": Xnew}, model=model)
        try:
            with pytest.raises(ValueError, match=r"X have 5 rows but .* y have 16.*predict\(gp"):
                predict(gp, Xnew, point={} if model is fixed_model[0] else FIXED | {"mean": 1.0})
            if model is free_model[0]:
                with pytest.raises(ValueError, match=r"set_data\(model, X, y\)"):
                    fit_map(model, n_starts=1)
        finally:
            _restore(model, X, y)


def test_joint_prediction_and_loo_refuse_inputs_and_observations_of_other_lengths(fixed_model):
    model, gp, X, y = fixed_model
    pm.set_data({"X": X[:7]}, model=model)
    try:
        with pytest.raises(ValueError, match="7 rows but"):
            predict(gp, X[:3], point={}).sample(2)
    finally:
        _restore(model, X, y)
    _, free_gp, *_ = build_model(X, y, psi=Jump(0.5))
    posterior = az.from_dict({"posterior": {k: np.full((1, 2), v) for k, v in FIXED.items()}})
    pm.set_data({"X": X[:7]}, model=free_gp.model)
    with pytest.raises(ValueError, match="7 rows but"):
        add_log_likelihood(posterior, free_gp)


def test_the_same_data_predict_as_the_closed_form_after_a_round_trip(fixed_model):
    """After swapping the data back the prediction is eq. (5) of the paper by numpy."""
    model, gp, X, y = fixed_model
    pm.set_data({"X": X[:4], "y_data": y[:4]}, model=model)
    _restore(model, X, y)
    Xnew = np.array([[0.3], [0.7]])
    pred = predict(gp, Xnew, point={})

    kernel = lambda A, B: _matern52_lifted(A, B, FIXED["ls"], FIXED["sigma_f"], np.ptp(X))  # noqa: E731
    C = kernel(X, X) + (FIXED["sigma_n"] ** 2 + 1e-6 * np.std(y) ** 2) * np.eye(len(X))
    k = kernel(X, Xnew)
    np.testing.assert_allclose(pred.mean, 1.0 + k.T @ np.linalg.solve(C, y - 1.0), rtol=1e-9)


def _posterior_of(X, y, draws):
    """Draws as pm.sample records them: with the data they were sampled on."""
    return az.from_dict(
        {
            "posterior": draws,
            "observed_data": {"y": y},
            "constant_data": {"X": X, "y_data": y},
        }
    )


DRAWS = {
    "ls": np.full((1, 3), 0.08),
    "sigma_f": np.full((1, 3), 1.4),
    "sigma_n": np.full((1, 3), 0.3),
    "mean": np.full((1, 3), 1.3),
}


def test_loo_of_draws_on_other_data_than_the_model_holds_is_refused(free_model):
    """add_log_likelihood read the data the model holds now, whatever the draws were fitted to:
    after set_data to 10 of the 16 points it returned 10 densities, silently."""
    model, gp, X, y = free_model
    idata = _posterior_of(X, y, DRAWS)
    try:
        set_data(model, X[:10], y[:10])
        with pytest.raises(ValueError, match=r"not those the draws were sampled on.*set_data"):
            add_log_likelihood(idata, gp)
        set_data(model, X + 0.01, y)  # the same y at other inputs
        with pytest.raises(ValueError, match="its X"):
            add_log_likelihood(idata, gp)
    finally:
        set_data(model, X, y)
    # the data sampled on: the densities are the closed form's
    ll = add_log_likelihood(idata, gp)["log_likelihood"]["y"].values[0, 0]
    point = {k: float(v[0, 0]) for k, v in DRAWS.items()}
    C = _matern52_lifted(X, X, point["ls"], point["sigma_f"], np.ptp(X))
    C += (point["sigma_n"] ** 2 + 1e-6 * np.std(y) ** 2) * np.eye(len(X))
    np.testing.assert_allclose(ll, gaussian_loo(C, y - point["mean"]), rtol=1e-8)


def test_loo_of_an_estimator_s_draws_after_another_estimator_used_the_shared_model():
    """Estimators of one configuration share a model: the second fit swaps its data in, and
    the first estimator's draws must not be scored on them."""
    X, y = _data(20, seed=5)
    Xb, yb = _data(24, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = VSKRegressor(psi=Jump(0.5), n_starts=1, random_state=0).fit(X, y)
        VSKRegressor(psi=Jump(0.5), n_starts=1, random_state=0).fit(Xb, yb)
    idata = _posterior_of(X, y, DRAWS)
    with pytest.raises(ValueError, match="another VSKRegressor"):
        add_log_likelihood(idata, a.gp_)


def test_the_posterior_group_itself_gives_the_draws_and_stacked_draws_are_named():
    """``idata.posterior`` (a node or its Dataset) was refused as "without a posterior group";
    draws stacked by ``arviz.extract`` lose the chains the diagnostics compare."""
    from pymc_vsk.draws import posterior

    idata = _posterior_of(*_data(), DRAWS)
    whole = posterior(idata)
    for part in (idata["posterior"], idata["posterior"].to_dataset()):
        assert posterior(part).identical(whole)
    with pytest.raises(TypeError, match=r"stacked into one 'sample' dimension.*whole result"):
        posterior(az.extract(idata))
    with pytest.raises(TypeError, match=r"got dict without one"):
        posterior({"ls": DRAWS["ls"]})
