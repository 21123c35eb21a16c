"""The NUTS sampler chosen by workload: the rule's behaviour, and each entry point using it.

The rule is tested by what it decides (never by a time); the entry points by the arguments
they hand the rule and the sampler they then run (``pm.sample`` is stopped before sampling
where the sampling itself is not the point).
"""

from __future__ import annotations

import argparse

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSKRegressor, build_model, samplers, set_data, targets
from pymc_vsk import estimator as estimator_module
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.jumps.cli import detect_jumps
from pymc_vsk.paper import tables2_3
from pymc_vsk.samplers import (
    SamplerChoice,
    choose_sampler,
    compiled_nutpie,
    has_compiled_nutpie,
    observation_count,
)
from pymc_vsk.scaling import Jump
from tests.conftest import seed


def jump_data(n: int, noise_seed: int) -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(noise_seed).normal(size=n)


# -- the rule ---------------------------------------------------------------------------------
def test_short_runs_of_small_models_take_pymc_and_long_runs_of_large_models_nutpie():
    assert choose_sampler(81, 300, 300, 2, cores=2).sampler == "pymc"
    assert choose_sampler(27, 500, 500, 2, cores=2).sampler == "pymc"
    assert choose_sampler(400, 1000, 1000, 4, cores=2).sampler == "nutpie"
    assert choose_sampler(81, 5000, 5000, 4, cores=2).sampler == "nutpie"


@pytest.mark.parametrize("grow", ["draws", "n", "runs", "chains", "evaluation_cost"])
def test_more_work_switches_to_nutpie_once_and_never_back(grow):
    base = {"n": 81, "draws": 200, "tune": 200, "chains": 2, "runs": 1, "evaluation_cost": 1.0}
    picks = []
    for factor in (1, 2, 4, 8, 16, 32, 64):
        kwargs = dict(base)
        kwargs[grow] = base[grow] * factor
        n, draws, tune, chains = (kwargs.pop(k) for k in ("n", "draws", "tune", "chains"))
        picks.append(choose_sampler(n, draws, tune, chains, cores=2, **kwargs).sampler)
    assert picks[0] == "pymc" and picks[-1] == "nutpie"
    first = picks.index("nutpie")
    assert set(picks[first:]) == {"nutpie"}


def test_a_compiled_nutpie_model_always_takes_nutpie():
    for n, draws, chains in [(10, 10, 1), (81, 300, 2), (27, 50, 4)]:
        fresh = choose_sampler(n, draws, draws, chains, cores=2)
        kept = choose_sampler(n, draws, draws, chains, cores=2, compiled=True)
        assert kept.sampler == "nutpie"
        assert "compiled" in kept.reason
        assert kept.seconds["pymc"] == fresh.seconds["pymc"]
        assert kept.seconds["nutpie"] < fresh.seconds["nutpie"]


def test_chains_beyond_the_cores_queue_and_the_choice_reports_both_predictions():
    two = choose_sampler(81, 500, 500, 2, cores=2)
    four = choose_sampler(81, 500, 500, 4, cores=2)
    four_on_four = choose_sampler(81, 500, 500, 4, cores=4)
    assert set(two.seconds) == {"nutpie", "pymc"}
    assert four.seconds["pymc"] > two.seconds["pymc"]
    assert four_on_four.seconds == two.seconds
    assert four.sampler == min(four.seconds, key=four.seconds.get)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"draws": 0}, "draws"),
        ({"chains": 0}, "chains"),
        ({"tune": -1}, "tune"),
        ({"runs": 0}, "runs"),
        ({"evaluation_cost": 0.0}, "evaluation_cost"),
    ],
)
def test_bad_counts_are_errors_that_name_them(kwargs, name):
    args = {"n": 81, "draws": 100, "tune": 100, "chains": 2} | kwargs
    with pytest.raises(ValueError, match=name):
        choose_sampler(**args)


def test_observation_count_is_n_and_zero_for_a_likelihood_written_as_a_potential():
    X, y = jump_data(23, 0)
    model, _ = build_model(X, y, psi=Jump(0.5))
    assert observation_count(model) == 23
    marginal, _ = build_jump_model(X, y, n_jumps=1, method="marginal")
    assert observation_count(marginal) == 0


def test_compiled_nutpie_compiles_once_and_carries_the_current_data(monkeypatch):
    import nutpie

    calls = []
    original = nutpie.compile_pymc_model
    monkeypatch.setattr(nutpie, "compile_pymc_model", lambda m: calls.append(m) or original(m))
    X, y = jump_data(15, 1)
    model, _ = build_model(X, y, psi=Jump(0.5))
    assert not has_compiled_nutpie(model)
    first = compiled_nutpie(model)
    assert has_compiled_nutpie(model)
    X2, y2 = jump_data(19, 2)
    set_data(model, X2, y2)
    second = compiled_nutpie(model)
    assert len(calls) == 1
    data = {var.name: second.shared_data[key] for var, key in second.shared_var_keys.items()}
    np.testing.assert_array_equal(data["y_data"], y2)
    np.testing.assert_array_equal(data["X"], X2)
    old = {var.name: first.shared_data[key] for var, key in first.shared_var_keys.items()}
    np.testing.assert_array_equal(old["y_data"], y)


# -- the entry points -------------------------------------------------------------------------
class Stop(Exception):
    """Raised by a stand-in for ``pm.sample`` once it has seen its arguments."""


@pytest.fixture
def spy_rule(monkeypatch):
    """Replace the rule where ``module`` looks it up; record its calls; answer ``sampler``."""

    def install(module, sampler):
        calls = []

        def rule(*args, **kwargs):
            calls.append((args, kwargs))
            return SamplerChoice(sampler, {"nutpie": 1.0, "pymc": 1.0}, "test")

        monkeypatch.setattr(module, "choose_sampler", rule)
        return calls

    return install


@pytest.fixture
def stopped_sample(monkeypatch):
    """``pm.sample`` records its keyword arguments and raises :class:`Stop`."""
    seen = []

    def sample(*args, **kwargs):
        seen.append(kwargs)
        raise Stop

    monkeypatch.setattr(pm, "sample", sample)
    return seen


def test_tables_nuts_fitter_asks_the_rule_with_n_and_the_seed_count(spy_rule):
    calls = spy_rule(tables2_3, "pymc")
    X = targets.halton_nodes(27)
    fitters = tables2_3.make_fitters("nuts", X, tables2_3.noisy_observations(X, 0), runs=3)
    assert len(calls) == 2  # one per model
    assert calls[0] == ((27, tables2_3.NUTS_DRAWS, tables2_3.NUTS_TUNE, 2), {"runs": 3})
    assert {f.sampler for f in fitters.values()} == {"pymc"}
    assert "PyMC's sampler" in fitters["vsk"].description


def test_tables_nuts_fitter_honours_an_explicit_sampler_and_rejects_unknown_ones(spy_rule):
    calls = spy_rule(tables2_3, "nutpie")
    X = targets.halton_nodes(27)
    fitter = tables2_3.NutsFitter(None, X, tables2_3.noisy_observations(X, 0), sampler="pymc")
    assert calls == [] and fitter.sampler == "pymc"
    with pytest.raises(ValueError, match="sampler must be one of"):
        tables2_3.NutsFitter(None, X, tables2_3.noisy_observations(X, 0), sampler="emcee")


def test_tables_cli_has_a_sampler_option_that_defaults_to_auto():
    parser = argparse.ArgumentParser()
    tables2_3.add_arguments(parser)
    assert parser.parse_args([]).sampler == "auto"
    assert parser.parse_args(["--sampler", "pymc"]).sampler == "pymc"
    with pytest.raises(SystemExit):
        parser.parse_args(["--sampler", "emcee"])


@pytest.mark.parametrize(("option", "passed"), [("auto", {}), ("pymc", {"sampler": "pymc"})])
def test_tables_cli_hands_a_named_sampler_to_the_study(monkeypatch, option, passed):
    seen = []

    def compute(n, seeds, method, **kwargs):
        seen.append(kwargs)
        raise Stop

    monkeypatch.setattr(tables2_3, "compute", compute)
    args = argparse.Namespace(experiment="table2", seeds=[0], method="nuts", sampler=option)
    with pytest.raises(Stop):
        tables2_3.main(args)
    assert seen == [passed]


def test_tables_nuts_fit_with_pymc_sampler_gives_posterior_medians_and_a_prediction():
    X = targets.halton_nodes(27)
    y = tables2_3.noisy_observations(X, seed(0))
    fitter = tables2_3.NutsFitter(
        Jump(0.5), X, y, draws=60, tune=60, chains=1, sampler="pymc", runs=1
    )
    grid = np.linspace(0, 1, 7)[:, None]
    fit = fitter.fit(X, y, grid, seed(0))
    assert set(fit.params) >= {"ls", "sigma_f", "sigma_n"}
    assert all(np.isfinite(v) and v > 0 for k, v in fit.params.items() if k != "mean")
    assert fit.prediction.mean.shape == (7,)


@pytest.mark.parametrize("method", ["smooth", "marginal"])
def test_detect_jumps_samples_with_the_rule_s_choice(spy_rule, stopped_sample, method):
    calls = spy_rule(samplers, "pymc")
    x = np.linspace(0, 1, 20)
    y = np.where(x > 0.5, 1.0, 0.0) + 0.05 * np.random.default_rng(0).normal(size=20)
    with pytest.raises(Stop):
        detect_jumps(x, y, method=method, draws=100, tune=50, chains=3)
    [(args, kwargs)] = calls
    assert args == (20, 100, 50, 3)
    cost = kwargs["evaluation_cost"]
    assert cost == 1 if method == "smooth" else cost > 1  # one factorisation per gap
    assert stopped_sample[0]["nuts_sampler"] == "pymc"


def test_regressor_default_sampler_is_the_rule_s_and_an_explicit_one_is_kept(
    spy_rule, stopped_sample
):
    calls = spy_rule(estimator_module, "pymc")
    X, y = jump_data(30, 3)
    with pytest.raises(Stop):
        VSKRegressor(method="nuts", draws=100, tune=100, chains=2).fit(X, y)
    [(args, kwargs)] = calls
    assert args == (30, 100, 100, 2) and kwargs == {"compiled": False}
    assert stopped_sample[-1]["nuts_sampler"] == "pymc"
    with pytest.raises(Stop):
        VSKRegressor(method="nuts", nuts_sampler="numpyro").fit(X, y)
    assert len(calls) == 1
    assert stopped_sample[-1]["nuts_sampler"] == "numpyro"


def test_regressor_refits_with_nutpie_without_compiling_again(spy_rule, monkeypatch):
    import nutpie

    calls = spy_rule(estimator_module, "nutpie")
    compiles = []
    original = nutpie.compile_pymc_model
    monkeypatch.setattr(nutpie, "compile_pymc_model", lambda m: compiles.append(m) or original(m))
    reg = VSKRegressor(psi=Jump(0.5), method="nuts", draws=100, tune=100, chains=1)
    X, y = jump_data(21, seed(4))
    reg.fit(X, y)
    X2, y2 = jump_data(26, seed(5))
    reg.fit(X2, y2 + 10.0)  # a shifted y: the refit must see the new data
    assert len(compiles) == 1
    assert [kw["compiled"] for _, kw in calls] == [False, True]
    assert reg.idata_["posterior"]["ls"].shape == (1, 100)
    assert abs(reg.mean_ - (np.mean(y2) + 10.0)) < 2.0


@pytest.fixture
def compiled(monkeypatch):
    """nutpie's compilation replaced by a record of the models compiled (their variables)."""
    from pymc_vsk import nutpie_callbacks

    made = []

    class Compiled:
        def __init__(self, model):
            self.names = list(model.named_vars)
            self.shared_var_keys = {}
            made.append(self)

        def with_data(self, **data):
            return self

    monkeypatch.setattr(nutpie_callbacks, "compile_pymc_model", Compiled)
    return made


def test_compiled_nutpie_compiles_again_for_variables_added_to_the_model(compiled):
    """A variable added after the first compilation (a pm.Potential pinning ℓ) was ignored:
    the model compiled before it was handed back and sampled without it."""
    X, y = jump_data(15, 1)
    model, _ = build_model(X, y, psi=Jump(0.5))
    assert "pin" not in compiled_nutpie(model).names
    assert compiled_nutpie(model) is compiled_nutpie(model)  # nothing added: compiled once
    with model:
        pm.Potential("pin", -((model["ls"] - 0.5) ** 2))
    assert not has_compiled_nutpie(model)
    assert "pin" in compiled_nutpie(model).names
    assert has_compiled_nutpie(model)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n": float("nan")}, "n"),
        ({"draws": 10.5}, "draws"),
        ({"tune": None}, "tune"),
        ({"chains": 2.5}, "chains"),
        ({"draws": True}, "draws"),
        ({"runs": 1.5}, "runs"),
    ],
)
def test_counts_that_are_not_integers_are_errors_that_name_them(kwargs, name):
    """n = NaN chose PyMC's sampler from NaN predictions, 2.5 chains were priced as such,
    and tune=None failed comparing None with 0."""
    args = {"n": 81, "draws": 100, "tune": 100, "chains": 2} | kwargs
    with pytest.raises(TypeError, match=rf"^{name} must be an integer"):
        choose_sampler(**args)
    assert choose_sampler(np.int64(81), np.int64(100), 0, 2).sampler in samplers.SAMPLERS


def test_compiled_nutpie_compiles_again_when_the_trace_s_size_follows_the_data(compiled):
    """nutpie fixes the trace's size at compilation: a deterministic of length N, handed data
    of another N, was traced cut short (or from memory past its end)."""
    X, y = jump_data(15, 1)
    model, _ = build_model(X, y, psi=Jump(0.5))
    compiled_nutpie(model)
    set_data(model, *jump_data(19, 2))
    compiled_nutpie(model)
    assert len(compiled) == 1  # scalar parameters only: any length is one compilation
    with model:
        pm.Deterministic("residual", model["y_data"] - model["mean"])
    compiled_nutpie(model)
    set_data(model, *jump_data(19, 3))
    compiled_nutpie(model)
    assert len(compiled) == 2  # same length: the same compilation
    set_data(model, *jump_data(23, 4))
    assert not has_compiled_nutpie(model)
    compiled_nutpie(model)
    assert len(compiled) == 3
