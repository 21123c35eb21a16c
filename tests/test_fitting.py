"""Multi-start MAP: deterministic by seed, every distinct optimum reported, best returned."""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest

from pymc_vsk import VSK, MultimodalWarning, build_model, fit_map, targets
from pymc_vsk.fitting import NotConvergedWarning, compiled_objective, default_starts
from pymc_vsk.scaling import Jump


@pytest.fixture(scope="module")
def jump81():
    X = targets.halton_nodes(81)
    y = targets.jump(X) + 0.25 * np.random.default_rng(1).normal(size=81)
    model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
    return model


def test_same_seed_same_result_other_seed_other_starts(jump81):
    a = fit_map(jump81, seed=5, warn=False)
    b = fit_map(jump81, seed=5, warn=False)
    c = fit_map(jump81, seed=6, warn=False)
    for name in ("ls", "sigma_f", "sigma_n", "mean"):
        assert a.point[name] == b.point[name]
    assert a.starts[0]["ls"] != c.starts[0]["ls"]
    assert a.logp == pytest.approx(c.logp, rel=1e-8)  # same best optimum from other starts


def test_both_modes_of_the_vsk_likelihood_are_reported_and_the_best_returned(jump81):
    with pytest.warns(MultimodalWarning, match=r"MAP starts disagree: 8 starts, 2 distinct"):
        result = fit_map(jump81, seed=0)
    assert result.multimodal and len(result.optima) == 2
    short, long = result.optima
    assert short.logp > long.logp
    assert short.point["ls"] < 0.1 < 0.5 < long.point["ls"]  # the two modes: ℓ ≈ 0.06 and 0.6-0.9
    assert long.point["sigma_n"] > 2 * short.point["sigma_n"]  # the long mode is noisy
    assert result.point is short.point and result.logp == short.logp
    assert sorted(short.starts + long.starts) == list(range(8))
    assert "ls=0.06" in result.summary()


def test_every_reported_optimum_is_a_stationary_point(jump81):
    """Regression: L-BFGS-B once stopped on a tiny f decrease with |grad| ≈ 50 (now restarted)."""
    X = targets.halton_nodes(81)
    y = targets.jump(X) + 0.25 * np.random.default_rng(0).normal(size=81)
    with pm.Model() as readme_model:
        ls = pm.InverseGamma("ls", alpha=3, beta=0.2)
        sigma_f = pm.HalfNormal("sigma_f", 2.0)
        sigma_n = pm.HalfNormal("sigma_n", 0.5)
        cov = sigma_f**2 * VSK(pm.gp.cov.Matern52(2, ls=ls), Jump(0.5))
        pm.gp.Marginal(cov_func=cov).marginal_likelihood("y", X=X, y=y, sigma=sigma_n)
    for model in (jump81, readme_model):
        result = fit_map(model, warn=False)
        objective = compiled_objective(model)
        for optimum in result.optima:
            _, grad = objective(objective.flatten(optimum.point))
            assert optimum.converged and np.max(np.abs(grad)) < 1e-3, optimum


def test_an_end_point_that_is_no_optimum_is_said_so(jump81):
    """With too few iterations the end points were listed as optima, with no word."""
    with pytest.warns(NotConvergedWarning, match=r"after maxiter=1 iterations"):
        result = fit_map(jump81, n_starts=2, maxiter=1, warn=False)
    assert "not converged" in result.summary()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotConvergedWarning)
        assert "not converged" not in fit_map(jump81, n_starts=2, warn=False).summary()


def test_a_scalar_start_fills_a_vector_variable():
    X = targets.halton_nodes(30)
    model, _ = build_model(X, targets.jump(X), psi=Jump(0.5), ard=True)
    result = fit_map(model, starts=[{"ls": 0.1}])
    assert result.starts[0] == {"ls": 0.1} and result.point["ls"].shape == (2,)


def test_explicit_starts_by_constrained_or_value_names(jump81):
    by_name = fit_map(jump81, starts=[{"ls": 0.7, "sigma_f": 1.3, "sigma_n": 0.7}])
    by_value = fit_map(
        jump81,
        starts=[{"ls_log__": np.log(0.7), "sigma_f_log__": np.log(1.3), "sigma_n": 0.7}],
    )
    assert by_name.point["ls"] == pytest.approx(by_value.point["ls"], rel=1e-8)
    assert by_name.point["ls"] > 0.5  # a long start stays in the long mode
    assert not by_name.multimodal


def test_default_starts_span_the_length_scales(jump81):
    starts = default_starts(jump81, 8, seed=None)
    ls = np.array([float(s["ls"]) for s in starts])
    span = 126 / 128
    assert ls.min() == pytest.approx(max(2 / 128, span / 50)) and ls.max() == pytest.approx(span)
    assert np.all(np.diff(np.log(ls)) > 0)


def test_failed_starts_are_reported_and_all_failed_is_an_error():
    with pm.Model() as model:
        x = pm.Normal("x", mu=0, sigma=1)
        pm.Potential("wall", pt.switch(x > 5, -np.inf, 0.0))  # log density -inf beyond 5
    result = fit_map(model, starts=[{"x": 10.0}, {"x": 1.0}])
    assert result.failed_starts == [0]
    assert result.point["x"] == pytest.approx(0.0, abs=1e-6)
    assert "1 start(s) failed: [0]" in result.summary()
    with pytest.raises(RuntimeError, match="All 1 MAP starts failed"):
        fit_map(model, starts=[{"x": 10.0}])


def test_works_on_a_hand_written_pymc_model():
    """No builder needed: fit_map takes any model with continuous free variables."""
    rng = np.random.default_rng(0)
    data = rng.normal(3.0, 2.0, size=200)
    with pm.Model() as model:
        mu = pm.Flat("mu")
        sigma = pm.HalfFlat("sigma")
        pm.Normal("obs", mu=mu, sigma=sigma, observed=data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = fit_map(model, n_starts=3)
    assert result.point["mu"] == pytest.approx(data.mean(), rel=1e-6)
    assert result.point["sigma"] == pytest.approx(data.std(), rel=1e-6)
