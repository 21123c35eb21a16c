"""A first fit compiles little and imports little; the pieces that make it so compute the same.

The objective of :func:`pymc_vsk.fit_map` starts on pytensor's Python path and moves to Numba
once a sweep has earned it; the Cholesky inverse runs LAPACK's ``potri`` on every backend;
white noise goes on the diagonal alone; the package imports its heavy parts on first use.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile import maker

from pymc_vsk import build_model, fit_map, fitting, targets
from pymc_vsk.likelihood import Marginal, cholesky_inverse
from pymc_vsk.scaling import Jump


def jump_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


def modules_loaded_after(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` a fresh Python process has imported after running ``code``."""
    loaded = f"[m for m in {names!r} if m in sys.modules]"
    probe = f"{code}\nimport json, sys\nprint(json.dumps({loaded}))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_first_fit_imports_neither_numba_nor_arviz_nor_matplotlib():
    code = (
        "import numpy as np\n"
        "from pymc_vsk import build_model, fit_map, targets\n"
        "from pymc_vsk.scaling import Jump\n"
        "X = targets.halton_nodes(27)\n"
        "model, _ = build_model(X, targets.jump(X), psi=Jump(0.5), priors='flat')\n"
        "fit = fit_map(model, n_starts=2, seed=0, warn=False)\n"
        "assert np.isfinite(fit.logp)\n"
    )
    assert modules_loaded_after(code, ("numba", "arviz", "matplotlib")) == []


def test_the_command_line_starts_without_arviz_or_matplotlib():
    heavy = ("arviz", "arviz_base", "arviz_stats", "matplotlib.pyplot")
    assert modules_loaded_after("import pymc_vsk.cli", heavy) == []


def test_finding_jumps_imports_neither_pymc_nor_pytensor():
    """The segment model and the command line's start need no PyMC (a second to import)."""
    code = (
        "import numpy as np\n"
        "import pymc_vsk.cli\n"
        "from pymc_vsk.jumps import find_jumps\n"
        "x = np.arange(30.0)\n"
        "post = find_jumps(x, (x > 14) + 0.1 * np.sin(x), draws=50, chains=2)\n"
        "assert post.n_jumps == 1\n"
    )
    assert modules_loaded_after(code, ("pymc", "pytensor")) == []


def test_lazy_package_names_are_the_modules_objects():
    import pymc_vsk
    from pymc_vsk import covariance, diagnostics, prediction

    assert pymc_vsk.VSK is covariance.VSK
    assert pymc_vsk.diagnose is diagnostics.diagnose
    assert pymc_vsk.predict is prediction.predict
    assert pymc_vsk.targets is targets
    assert set(pymc_vsk.__all__) <= set(dir(pymc_vsk))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = pymc_vsk.nope
    from pymc_vsk import jumps
    from pymc_vsk.jumps import detection, models, selection

    assert set(jumps.__all__) == set(jumps._WHERE) <= set(dir(jumps))
    assert set(models.__all__) | set(detection.__all__) <= set(jumps.__all__)
    assert jumps.build_jump_model is models.build_jump_model
    assert jumps.find_jumps is detection.find_jumps
    assert jumps.select_jump_count is selection.select_jump_count
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = jumps.nope


def test_objective_moves_to_numba_once_the_sweep_earns_it_and_fits_the_same(monkeypatch):
    X, y = jump_data(27)
    model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
    first = fit_map(model, n_starts=3, seed=0, warn=False)
    objective = fitting.compiled_objective(model)
    assert objective.mode == fitting.CHEAP_MODE
    evaluations = objective.n_evals
    # the budget is spent: the next fit runs compiled by Numba
    monkeypatch.setattr(fitting, "SWITCH_SECONDS", evaluations * fitting.numba_saving(27) / 2)
    again = fit_map(model, n_starts=3, seed=0, warn=False)
    assert fitting.compiled_objective(model) is objective
    assert objective.mode == fitting.FAST_MODE
    np.testing.assert_allclose(again.logp, first.logp, rtol=1e-9)
    for name in ("ls", "sigma_f", "sigma_n", "mean"):
        np.testing.assert_allclose(again.point[name], first.point[name], rtol=1e-5)


def test_an_explicit_mode_is_kept(monkeypatch):
    X, y = jump_data(21)
    model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
    monkeypatch.setattr(fitting, "SWITCH_SECONDS", 0.0)
    fit_map(model, n_starts=2, seed=0, warn=False, mode="FAST_COMPILE")
    fit_map(model, n_starts=2, seed=0, warn=False, mode="FAST_COMPILE")
    assert fitting.compiled_objective(model, "FAST_COMPILE").mode == "FAST_COMPILE"


def test_numba_saving_grows_with_the_square_of_n():
    assert fitting.numba_saving(800) > 5 * fitting.numba_saving(81) > 0


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "NUMBA"])
def test_cholesky_inverse_is_the_inverse_and_nan_where_potri_fails(mode):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(7, 7))
    K = A @ A.T + 7 * np.eye(7)
    x = pt.matrix("L", dtype="float64")
    fn = pytensor.function([x], cholesky_inverse(x), mode=mode)
    inverse = fn(np.linalg.cholesky(K))
    np.testing.assert_allclose(inverse, np.linalg.inv(K), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(inverse, inverse.T)
    assert np.all(np.isnan(fn(np.zeros((3, 3)))))


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "NUMBA"])
@pytest.mark.parametrize("jitter", ["number", "tensor"])
@pytest.mark.parametrize("noise", ["tensor", "fixed"])
def test_white_noise_on_the_diagonal_gives_pymcs_covariance(noise, jitter, mode):
    """Equal to one rounding (5e-16 relative): exactly equal off the diagonal on some CPUs,
    one last bit apart on others (an AMD EPYC, where Numba's loops round differently)."""
    X, y = jump_data(15)
    covs = []
    for cls in (Marginal, pm.gp.Marginal):
        with pm.Model():
            ls = pm.Data("ls", 0.2)
            sigma = pm.Data("sigma", 0.3) if noise == "tensor" else 0.3
            nugget = 1e-6 if jitter == "number" else 1e-6 * pt.square(pt.std(pm.Data("y", y)))
            gp = cls(cov_func=1.7 * pm.gp.cov.Matern52(1, ls=ls))
            _, cov = gp._build_marginal_likelihood(
                X=pt.as_tensor(X), noise_func=pm.gp.cov.WhiteNoise(sigma), jitter=nugget
            )
            covs.append(pytensor.function([], cov, mode=mode)())
    off = ~np.eye(len(X), dtype=bool)
    np.testing.assert_allclose(covs[0][off], covs[1][off], rtol=5e-16, atol=0)
    np.testing.assert_allclose(np.diag(covs[0]), np.diag(covs[1]), rtol=5e-16, atol=0)
    assert np.diag(covs[1])[0] > 1.7 + 0.09  # the nugget is there


def test_build_model_covariance_is_pymcs_at_a_point():
    """The model's covariance against PyMC's Marginal on the same kernel, noise and nugget."""
    X, y = jump_data(30)
    model, gp = build_model(X, y, priors="flat", ls=0.2, sigma_f=1.5, sigma_n=0.3, mean=0.0)
    ours = model["y"].owner.inputs[-1].eval(mode="FAST_COMPILE")
    with pm.Model():
        pymc_gp = pm.gp.Marginal(cov_func=gp.cov_func)
        _, cov = pymc_gp._build_marginal_likelihood(
            X=model["X"], noise_func=pm.gp.cov.WhiteNoise(0.3), jitter=gp.jitter
        )
    reference = cov.eval(mode="FAST_COMPILE")
    np.testing.assert_allclose(ours, reference, rtol=4e-16, atol=0)
    assert np.diag(ours)[0] - (1.5**2 + 0.3**2) > 0.5e-6 * np.var(y)


def test_build_model_compiles_nothing_with_numba(monkeypatch):
    linkers: list[str] = []
    original = maker.FunctionMaker.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        linkers.append(type(self.mode.linker).__name__)

    monkeypatch.setattr(maker.FunctionMaker, "__init__", recording)
    X, y = jump_data(27)
    build_model(X, y, psi=Jump(0.5), priors="flat")
    assert "NumbaLinker" not in linkers
