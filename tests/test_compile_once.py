"""Compile once, reuse: new data of any length, new starts and seeds, new prediction points.

A compilation is counted at pytensor's ``FunctionMaker`` (every ``pytensor.function``, hence
every PyMC, fit and prediction compile, goes through it). The fits after the data swap are
compared with a model built afresh on the new data, so the swap is seen and not just cheap.
"""

from __future__ import annotations

import numpy as np
import pytest
from pytensor.compile import maker

from pymc_vsk import build_model, fit_map, predict, set_data, targets
from pymc_vsk.fitting import compiled_objective, initial_point
from pymc_vsk.scaling import Jump
from tests.conftest import seed


def jump_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


@pytest.fixture
def compilations(monkeypatch):
    """A list that grows by one entry per pytensor compilation."""
    seen: list[int] = []
    original = maker.FunctionMaker.__init__

    def counting(self, *args, **kwargs):
        seen.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(maker.FunctionMaker, "__init__", counting)
    return seen


@pytest.mark.parametrize("n_new", [40, 19], ids=["longer", "shorter"])
def test_fit_and_predict_after_set_data_of_another_length_do_not_recompile(compilations, n_new):
    X, y = jump_data(27, seed=0)
    model, gp = build_model(X, y, psi=Jump(0.5), priors="flat")
    first = fit_map(model, n_starts=3, seed=0, warn=False)
    predict(gp, np.linspace(0, 1, 5)[:, None], first.point, model=model)
    compilations.clear()

    X2, y2 = jump_data(n_new, seed=1)
    set_data(model, X2, y2)
    again = fit_map(model, n_starts=3, seed=1, warn=False)
    grid = np.linspace(0, 1, 11)[:, None]
    ours = predict(gp, grid, again.point, model=model)
    assert compilations == []

    fresh_model, fresh_gp = build_model(X2, y2, psi=Jump(0.5), priors="flat")
    fresh = fit_map(fresh_model, n_starts=3, seed=1, warn=False)
    np.testing.assert_allclose(again.logp, fresh.logp, rtol=1e-9)
    reference = predict(fresh_gp, grid, fresh.point, model=fresh_model)
    np.testing.assert_allclose(ours.mean, reference.mean, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ours.std_y, reference.std_y, rtol=1e-6, atol=1e-8)


def test_objective_and_initial_point_are_compiled_once_per_model(compilations):
    X, y = jump_data(27, seed=0)
    model, _ = build_model(X, y, psi=Jump(0.5))
    objective = compiled_objective(model)
    point = initial_point(model)
    compilations.clear()
    assert compiled_objective(model) is objective
    for _ in range(3):
        np.testing.assert_equal(initial_point(model), point)
    assert compilations == []
    assert point.keys() == model.initial_point().keys()
    for name, value in model.initial_point().items():
        np.testing.assert_allclose(point[name], value)


def test_initial_point_cache_honours_a_new_initval():
    X, y = jump_data(27, seed=0)
    model, _ = build_model(X, y, psi=Jump(0.5))
    before = initial_point(model)["ls_log__"]
    model.set_initval(model["ls"], 0.3)
    assert initial_point(model)["ls_log__"] == pytest.approx(np.log(0.3))
    assert before != pytest.approx(np.log(0.3))


def test_initial_point_cache_tells_apart_arrays_its_text_would_not():
    """The cache was keyed on the text of the initial values, which numpy rounds to 8 digits
    (and elides beyond 1 000 values): a second array that differed in the ninth digit got the
    first one's initial point."""
    X = np.c_[targets.halton_nodes(27), targets.halton_nodes(27, d=2)[:, 1]]
    model, _ = build_model(X, X[:, 0] + (X[:, 0] >= 0.5), psi=Jump(0.5), ard=True)
    first, second = np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2, 0.3 + 1e-9])
    assert repr(first) == repr(second)
    for values in (first, second):
        model.set_initval(model["ls"], values)
        np.testing.assert_allclose(np.exp(initial_point(model)["ls_log__"]), values, rtol=1e-13)


def test_the_objective_of_a_mode_given_by_name_or_object_is_compiled_once():
    """The key is the mode itself (its text, the key before, is kilobytes long with memory
    addresses in it, which a later Mode could reuse)."""
    from pytensor.compile.mode import Mode

    X, y = jump_data(27, seed=0)
    model, _ = build_model(X, y, psi=Jump(0.5))
    mode = Mode(linker="py")
    assert compiled_objective(model, mode) is compiled_objective(model, mode)
    assert compiled_objective(model, "FAST_COMPILE") is compiled_objective(model, "FAST_COMPILE")


def test_a_variable_added_to_the_model_after_a_fit_is_fitted_too():
    """The compiled objective was cached with the model alone: a ``pm.Potential`` added after
    a first fit was left out of every later one (the fit kept ℓ = 0.22 where the potential
    pins it at 0.5)."""
    import pymc as pm

    X, y = jump_data(27, seed=0)
    model, _ = build_model(X, y, psi=Jump(0.5))
    first = fit_map(model, n_starts=2, seed=0).point["ls"]
    with model:
        pm.Potential("pin", -1e4 * (model["ls"] - 0.5) ** 2)
    pinned = fit_map(model, n_starts=2, seed=0).point["ls"]
    assert abs(float(first) - 0.5) > 0.05
    assert float(pinned) == pytest.approx(0.5, abs=0.01)


def test_nutpie_model_compiled_once_samples_data_of_another_length():
    """y + 1 moves the posterior of the constant mean up; the same data would not move it.

    Both runs share the seed, so the difference of the posterior means is 0 when the swapped
    data are ignored. With y + 1 it ranged 0.58–1.01 over 15 seed offsets (the posterior sd
    of the mean is 0.6–1.1: with a long ℓ the GP takes up part of the shift); the test asks
    for 0.25–1.5.
    """
    nutpie = pytest.importorskip("nutpie", reason="nutpie is not installed")
    X, y = jump_data(21, seed=seed(0))
    model, _ = build_model(X, y, psi=Jump(0.5))
    compiled = nutpie.compile_pymc_model(model)
    X2, y2 = jump_data(33, seed=seed(1))
    shifted = y2 + 1.0
    kwargs = {"draws": 150, "tune": 150, "chains": 2, "cores": 1, "progress_bar": False}
    base = nutpie.sample(compiled.with_data(X=X2, y_data=y2), seed=seed(3), **kwargs)
    moved = nutpie.sample(compiled.with_data(X=X2, y_data=shifted), seed=seed(3), **kwargs)
    assert base["posterior"]["ls"].shape == (2, 150)
    diff = float(moved["posterior"]["mean"].mean() - base["posterior"]["mean"].mean())
    assert 0.25 < diff < 1.5


def test_loo_log_likelihood_is_compiled_once_and_reads_swapped_data(compilations):
    import arviz as az

    from pymc_vsk.loo import add_log_likelihood

    X, y = jump_data(27, seed=0)
    model, gp = build_model(X, y, psi=Jump(0.5))
    rng = np.random.default_rng(0)
    draws = {
        "ls": np.exp(rng.normal(np.log(0.07), 0.1, (2, 5))),
        "sigma_f": np.exp(rng.normal(np.log(1.5), 0.1, (2, 5))),
        "sigma_n": np.exp(rng.normal(np.log(0.3), 0.1, (2, 5))),
        "mean": rng.normal(1.5, 0.1, (2, 5)),
    }

    def loo_values(model, gp):
        idata = add_log_likelihood(az.from_dict({"posterior": draws}), gp, model)
        return np.asarray(idata["log_likelihood"]["y"].values)

    loo_values(model, gp)
    compilations.clear()
    X2, y2 = jump_data(40, seed=1)
    set_data(model, X2, y2)
    swapped = loo_values(model, gp)
    assert compilations == []
    fresh_model, fresh_gp = build_model(X2, y2, psi=Jump(0.5))
    np.testing.assert_allclose(swapped, loo_values(fresh_model, fresh_gp), rtol=1e-9)
    assert swapped.shape == (2, 5, 40)
