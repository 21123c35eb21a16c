"""NUTS on a VSK model through pm.sample, with nutpie and with PyMC's own sampler."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import xarray as xr

from pymc_vsk import build_model, diagnose, fit_map, predict, targets
from pymc_vsk.scaling import Jump


@pytest.fixture(scope="module")
def jump_model():
    """N = 81: one posterior mode (at N = 27 the posterior straddles both likelihood modes)."""
    X = targets.halton_nodes(81)
    y = targets.jump(X) + 0.25 * np.random.default_rng(7).normal(size=81)
    return build_model(X, y, psi=Jump(0.5))


@pytest.fixture(scope="module", params=["nutpie", "pymc"])
def posterior(request, jump_model):
    model, _ = jump_model
    with model:
        return pm.sample(
            draws=250,
            tune=300,
            chains=2,
            cores=1,
            random_seed=11,
            nuts_sampler=request.param,
            progressbar=False,
        )


def test_nuts_returns_a_datatree_that_diagnoses_and_predicts(jump_model, posterior):
    model, gp = jump_model
    assert isinstance(posterior, xr.DataTree)
    assert {"ls", "sigma_f", "sigma_n", "mean"} <= set(posterior["posterior"].data_vars)
    report = diagnose(posterior, ["ls", "sigma_f", "sigma_n"], ess_min=100)
    assert report.table["r_hat"].max() < 1.02 and report.divergences == 0, str(report)
    # The posterior of ℓ sits in the short mode the MAP finds (NOTES.md: ℓ ≈ 0.06).
    map_ls = fit_map(model, warn=False).point["ls"]
    assert 0.5 * map_ls < float(posterior["posterior"]["ls"].median()) < 2 * map_ls
    grid = np.linspace(0, 1, 101)[:, None]
    pred = predict(gp, grid, idata=posterior, model=model, max_draws=100)
    rmse = np.sqrt(np.mean((pred.mean - targets.jump(grid)) ** 2))
    assert rmse < 0.3 and np.all(pred.std_y > pred.std_f)


def test_posterior_predictive_check(jump_model, posterior):
    model, _ = jump_model
    with model:
        ppc = pm.sample_posterior_predictive(
            posterior, var_names=["y"], random_seed=4, progressbar=False
        )
    y_rep = ppc["posterior_predictive"]["y"].values
    assert y_rep.shape == (2, 250, 81)
    y_obs = model["y_data"].get_value()
    # the observed spread sits inside the replicated spreads
    spreads = y_rep.std(axis=-1).ravel()
    assert np.quantile(spreads, 0.01) < y_obs.std() < np.quantile(spreads, 0.99)
