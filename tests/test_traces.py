"""Traces round-trip through netCDF in the plain install, and predict from a reloaded trace
equals predict from the original exactly."""

from __future__ import annotations

import tomllib
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm

from pymc_vsk import build_model, predict, targets
from pymc_vsk.scaling import Jump

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_a_netcdf_backend_is_a_runtime_dependency():
    deps = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    assert any(d.startswith("h5netcdf[h5py]") for d in deps)


def test_sampled_trace_round_trips_and_predicts_identically(tmp_path):
    X = targets.halton_nodes(20)
    y = targets.jump(X) + 0.25 * np.random.default_rng(3).normal(size=20)
    model, gp = build_model(X, y, psi=Jump(0.5))
    with model:
        idata = pm.sample(
            draws=40,
            tune=40,
            chains=2,
            cores=1,
            nuts_sampler="pymc",
            random_seed=2,
            progressbar=False,
            compute_convergence_checks=False,
        )
    path = tmp_path / "trace.nc"
    idata.to_netcdf(path)
    loaded = az.from_netcdf(path)
    for name in ("ls", "sigma_f", "sigma_n", "mean"):
        np.testing.assert_array_equal(
            loaded["posterior"][name].values, idata["posterior"][name].values
        )
    Xnew = np.linspace(0, 1, 25)[:, None]
    before = predict(gp, Xnew, idata=idata, max_draws=30, seed=4)
    after = predict(gp, Xnew, idata=loaded, max_draws=30, seed=4)
    np.testing.assert_array_equal(after.means, before.means)
    np.testing.assert_array_equal(after.var_y, before.var_y)
    np.testing.assert_array_equal(after.interval(0.9)[0], before.interval(0.9)[0])
