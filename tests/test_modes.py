"""The Python-path mode compiles no C code, and computes what pytensor's other modes compute.

A first MAP fit and prediction in a fresh process, with an empty pytensor compilation
directory, must leave that directory without compiled modules; graphs with ``OpFromGraph``
operations and lazy conditionals give the values numpy (and pytensor's ``FAST_COMPILE``) give.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.compile.builders import OpFromGraph
from pytensor.conditional.op import ifelse
from pytensor.link.basic import PerformLinker

from pymc_vsk.fitting import initial_point
from pymc_vsk.likelihood import CholeskyInverse, cholesky_inverse
from pymc_vsk.modes import MAX_OPERANDS, PYTHON_MODE


def test_a_first_fit_and_predictions_compile_no_c(tmp_path: Path) -> None:
    code = (
        "import numpy as np\n"
        "from pymc_vsk import build_model, fit_map, predict, targets\n"
        "from pymc_vsk.scaling import Jump\n"
        "X = targets.halton_nodes(27)\n"
        "y = targets.jump(X) + 0.1 * np.random.default_rng(0).normal(size=27)\n"
        "model, gp = build_model(X, y, psi=Jump(0.5))\n"
        "fit = fit_map(model, n_starts=2, seed=0, warn=False)\n"
        "pred = predict(gp, np.linspace(0, 1, 7)[:, None], fit.point)\n"
        "assert np.all(np.isfinite(pred.mean)) and np.all(pred.std_y > 0)\n"
        "import pymc as pm\n"  # fixed hyper-parameters: every input constant, as in Table 1
        "with pm.Model() as fixed:\n"
        "    plain = pm.gp.Marginal(cov_func=pm.gp.cov.Matern32(1, ls=0.2))\n"
        "    plain.marginal_likelihood('y', X=X, y=y, sigma=0.1)\n"
        "assert np.all(np.isfinite(predict(plain, X, point={}, model=fixed).mean))\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTENSOR_FLAGS": f"compiledir={tmp_path / 'pytensor'}"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    compiled = sorted(p.name for p in (tmp_path / "pytensor").rglob("*.so"))
    assert compiled == [], f"C modules were compiled: {compiled}"


def test_plain_inner_graphs_are_inlined_and_those_with_their_own_perform_kept() -> None:
    v = pt.vector("v")
    m = pt.matrix("m")
    outputs = [pt.diag(v), cholesky_inverse(m)]
    fn = pytensor.function([v, m], outputs, mode=PYTHON_MODE)
    ops = [node.op for node in fn.maker.fgraph.apply_nodes]
    plain = [
        op for op in ops if isinstance(op, OpFromGraph) and not isinstance(op, CholeskyInverse)
    ]
    assert plain == []
    assert isinstance(fn.maker.linker, PerformLinker)
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    diag, inverse = fn(np.array([1.0, -2.0, 3.0]), np.linalg.cholesky(a))
    np.testing.assert_array_equal(diag, np.diag([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(inverse, np.linalg.inv(a), rtol=1e-13)


def test_a_compiled_function_pickles() -> None:
    v = pt.vector("v")
    fn = pytensor.function([v], pt.diag(v).sum(axis=0) * 2.0, mode=PYTHON_MODE)
    again = pickle.loads(pickle.dumps(fn))
    np.testing.assert_array_equal(again(np.array([1.0, 2.0])), [2.0, 4.0])


def test_a_conditional_is_evaluated_lazily_and_right() -> None:
    x = pt.scalar("x")
    out = ifelse(pt.gt(x, 0.0), pt.sqrt(x), -x)
    fn = pytensor.function([x], out, mode=PYTHON_MODE)
    reference = pytensor.function([x], out, mode="FAST_COMPILE")
    for value in (4.0, -3.0):
        assert fn(value) == reference(value) == (2.0 if value > 0 else 3.0)


def test_the_initial_point_is_pymcs() -> None:
    with pm.Model() as model:
        pm.HalfNormal("sigma", 2.0)
        pm.Normal("mu", 3.0, 1.0, shape=2)
        pm.LogNormal("ell", 1.0, 0.5, initval=4.0)
    ours = initial_point(model)
    theirs = model.initial_point()
    assert ours.keys() == theirs.keys()
    for name, value in theirs.items():
        np.testing.assert_allclose(ours[name], value, rtol=1e-14)


def test_sums_and_products_wider_than_a_ufunc_are_split_and_right() -> None:
    """A sum of 40 terms (ψ of 40 jumps) and a product of 33, which a numpy ufunc cannot take
    in one call, evaluate to numpy's sum and product, and the gradient too."""
    x = pt.vector("x")
    terms = [pt.sigmoid(x[k] * (k + 1)) for k in range(40)]
    total, product = pt.add(*terms), pt.mul(*terms[:33])
    fn = pytensor.function([x], [total, product, pytensor.grad(total, x)], mode=PYTHON_MODE)
    assert all(
        len(node.inputs) + len(node.outputs) <= MAX_OPERANDS for node in fn.maker.fgraph.apply_nodes
    )
    value = np.linspace(-1.0, 1.0, 40)
    s = 1 / (1 + np.exp(-value * np.arange(1, 41)))
    got_total, got_product, got_grad = fn(value)
    np.testing.assert_allclose(got_total, s.sum(), rtol=1e-12)
    np.testing.assert_allclose(got_product, s[:33].prod(), rtol=1e-12)
    np.testing.assert_allclose(got_grad, s * (1 - s) * np.arange(1, 41), rtol=1e-12)
