"""nutpie's C callbacks of :mod:`pymc_vsk.nutpie_callbacks` against the pytensor functions.

Each compiled callback is called through ctypes, as nutpie calls it, and compared with the
pytensor function it wraps (independent of either set of callbacks); the status codes are
nutpie's; nutpie's module is left as it was; without nutpie's builders the model compiles
with nutpie's own callbacks.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest

from pymc_vsk import build_model, nutpie_callbacks, targets
from pymc_vsk.nutpie_callbacks import compile_pymc_model
from pymc_vsk.scaling import Jump

nutpie_pymc = pytest.importorskip("nutpie.compile_pymc")

DOUBLE_P = ctypes.POINTER(ctypes.c_double)


def call_logp(compiled, x: np.ndarray, dim: int | None = None) -> tuple[int, float, np.ndarray]:
    """Status, log density and gradient from the compiled logp callback."""
    x = np.ascontiguousarray(x, dtype=float)
    grad = np.full(x.size, np.nan)
    logp = np.full(1, np.nan)
    status = compiled.compiled_logp_func.ctypes(
        x.size if dim is None else dim,
        x.ctypes.data_as(DOUBLE_P),
        grad.ctypes.data_as(DOUBLE_P),
        logp.ctypes.data_as(DOUBLE_P),
        ctypes.c_void_p(compiled.user_data.ctypes.data),
    )
    return int(status), float(logp[0]), grad


def call_expand(compiled, x: np.ndarray) -> tuple[int, np.ndarray]:
    """Status and expanded values from the compiled expand callback."""
    x = np.ascontiguousarray(x, dtype=float)
    out = np.full(compiled.n_expanded, np.nan)
    status = compiled.compiled_expand_func.ctypes(
        x.size,
        compiled.n_expanded,
        x.ctypes.data_as(DOUBLE_P),
        out.ctypes.data_as(DOUBLE_P),
        ctypes.c_void_p(compiled.user_data.ctypes.data),
    )
    return int(status), out


@pytest.fixture(scope="module")
def gp_compiled():
    X = targets.halton_nodes(15)
    y = targets.jump(X) + 0.25 * np.random.default_rng(3).normal(size=15)
    model, _ = build_model(X, y, psi=Jump(0.5))
    return compile_pymc_model(model)


def test_logp_callback_gives_the_pytensor_log_density_and_gradient(gp_compiled):
    rng = np.random.default_rng(0)
    for _ in range(5):
        x = rng.normal(scale=0.5, size=gp_compiled.n_dim)
        status, logp, grad = call_logp(gp_compiled, x)
        ref_logp, ref_grad = gp_compiled.logp_func(x)
        assert status == 0
        np.testing.assert_allclose(logp, ref_logp, rtol=1e-12)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-12)


def test_expand_callback_gives_the_pytensor_values(gp_compiled):
    x = np.random.default_rng(1).normal(scale=0.5, size=gp_compiled.n_dim)
    status, values = call_expand(gp_compiled, x)
    (ref,) = gp_compiled.expand_func(x)
    assert status == 0
    np.testing.assert_allclose(values, ref, rtol=1e-12)


def test_callbacks_use_the_data_handed_over_by_with_data(gp_compiled):
    shared = {var.name: var for var in gp_compiled.shared_var_keys}
    y_old = shared["y_data"].get_value()
    moved = gp_compiled.with_data(y_data=y_old + 1.0)
    x = np.zeros(gp_compiled.n_dim)
    _, before, _ = call_logp(gp_compiled, x)
    _, after, _ = call_logp(moved, x)
    shared["y_data"].set_value(y_old + 1.0)  # the pytensor function reads the shared value
    try:
        reference = moved.logp_func(x)[0]
    finally:
        shared["y_data"].set_value(y_old)
    assert after != before
    np.testing.assert_allclose(after, reference, rtol=1e-12)


def test_wrong_dimension_returns_nutpie_s_status(gp_compiled):
    x = np.zeros(gp_compiled.n_dim)
    assert call_logp(gp_compiled, x, dim=gp_compiled.n_dim + 1)[0] == -1


def test_non_finite_log_density_returns_nutpie_s_status():
    with pm.Model() as model:
        a = pm.Normal("a")
        pm.Potential("wall", pt.switch(a > 0, -np.inf, 0.0))
    compiled = compile_pymc_model(model)
    assert call_logp(compiled, np.array([-1.0]))[0] == 0
    assert call_logp(compiled, np.array([1.0]))[0] == 4


def test_nutpie_module_is_left_as_it_was(gp_compiled):
    assert nutpie_pymc._make_c_logp_func.__module__ == "nutpie.compile_pymc"
    assert nutpie_pymc._make_c_expand_func.__module__ == "nutpie.compile_pymc"


def test_without_nutpie_s_builders_the_model_compiles_with_nutpie_s_callbacks(monkeypatch):
    # a nutpie whose callbacks are built otherwise: nothing of it is replaced
    monkeypatch.setattr(nutpie_callbacks, "_BUILDERS", (*nutpie_callbacks._BUILDERS, "_gone"))
    replaced = []
    monkeypatch.setattr(nutpie_callbacks, "_logp_callback", lambda *args: replaced.append(args))
    with pm.Model() as model:
        pm.Normal("a")
    compiled = compile_pymc_model(model)
    status, logp, grad = call_logp(compiled, np.array([0.5]))
    assert status == 0
    np.testing.assert_allclose([logp, grad[0]], [-0.5 * np.log(2 * np.pi) - 0.125, -0.5])
    assert not replaced


def test_a_trace_of_another_size_after_with_data_returns_nutpie_s_status():
    """Data of another length resize a traced deterministic: the expand callback copied the
    first n values (or read past the end of a shorter result) and reported success, where
    nutpie's own callback reports an error."""
    with pm.Model() as model:
        d = pm.Data("d", np.zeros(3))
        f = pm.Normal("f", shape=2)
        pm.Deterministic("h", d + f.sum())
    compiled = compile_pymc_model(model)
    x = np.array([0.5, 1.0])
    status, values = call_expand(compiled, x)
    assert status == 0
    np.testing.assert_allclose(values, [0.5, 1.0, 1.5, 1.5, 1.5])
    for length in (5, 2):
        other = compiled.with_data(d=np.ones(length))
        assert call_logp(other, x)[0] == 0  # the log density does not read d
        assert call_expand(other, x)[0] == -2
