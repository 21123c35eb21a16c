"""NUTS backends: a VSK model samples with nutpie, the PyMC sampler, numpyro and blackjax.

One small VSK model (N = 30 Halton nodes, f(x) = sin 2πx + 2·1[x ≥ 0.5], noise std 0.1,
ψ = Jump(0.5), default priors) is sampled by each installed backend: 4 chains × (400 tune +
400 draws), target acceptance 0.9, and must agree with the nutpie run: posterior means of
log ℓ, log σ_f, log σ_n and the constant mean within 0.3 posterior sd, and posterior sds
within a factor 4/3. Its chains must not sit in different modes, r̂ must stay below 1.1 (a
chain stuck elsewhere gives far more) and fewer than 5 of the 1600 transitions may diverge.
numpyro and blackjax go through PyMC's JAX path
(``pm.sample(..., nuts_sampler="numpyro" | "blackjax")``), the route to a GPU.

Measured over 10 seed offsets (:func:`tests.conftest.seed`), 40 runs: r̂ 1.003–1.019 (above
1.01 in 8 runs), bulk ESS ≥ 246, no divergences, no chains in different modes; the largest
difference of means 0.124 posterior sd (the bound 0.3 is 2.4 times that), sd ratios
0.905–1.138 (the former bounds 0.8–1.25 left only 0.1 of room; 0.75–4/3 is twice the largest
measured |log ratio| 0.13). r̂ ≤ 1.01 is out of reach of these runs: the slow test asks for it,
with 4 chains × (1000 tune + 1000 draws).
"""

from __future__ import annotations

import inspect

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import build_model, diagnose, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.scaling import Jump
from tests.conftest import seed

PARAMS = ("ls", "sigma_f", "sigma_n", "mean")
SETTINGS = {"draws": 400, "tune": 400, "chains": 4}
#: The slow convergence test's runs.
LONG_SETTINGS = {"draws": 1000, "tune": 1000, "chains": 4}
#: Step-size adaptation target (0.9: blackjax's short warm-up otherwise leaves a few divergences).
TARGET_ACCEPT = 0.9


def _data() -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(30)
    x = X[:, 0]
    f = np.sin(2 * np.pi * x) + 2.0 * (x >= 0.5)
    return X, f + 0.1 * np.random.default_rng(seed(0)).normal(size=len(x))


def _summary(idata) -> dict[str, tuple[float, float]]:
    """Posterior mean and sd of log ℓ, log σ_f, log σ_n and the mean."""
    post = idata["posterior"]
    out = {}
    for name in PARAMS:
        draws = np.asarray(post[name].values).ravel()
        draws = draws if name == "mean" else np.log(draws)
        out[name] = (float(draws.mean()), float(draws.std()))
    return out


@pytest.fixture(scope="module")
def model():
    X, y = _data()
    return build_model(X, y, psi=Jump(0.5))[0]


def _nutpie_sample(model, settings):
    nutpie = pytest.importorskip("nutpie", reason="nutpie is not installed: pip install nutpie")
    with blas_threads(1):
        compiled = nutpie.compile_pymc_model(model)
        return nutpie.sample(
            compiled,
            cores=2,
            seed=seed(1),
            target_accept=TARGET_ACCEPT,
            progress_bar=False,
            **settings,
        )


@pytest.fixture(scope="module")
def reference(model):
    """The nutpie run every backend is compared with."""
    return _nutpie_sample(model, SETTINGS)


def _check(idata, reference) -> None:
    diag = diagnose(idata, PARAMS)
    assert diag.modes == [], str(diag)
    assert diag.divergences < 5, str(diag)
    assert diag.table["r_hat"].max() < 1.1, str(diag)
    ours, ref = _summary(idata), _summary(reference)
    for name in PARAMS:
        (m, s), (m_ref, s_ref) = ours[name], ref[name]
        assert abs(m - m_ref) < 0.3 * s_ref, (name, ours[name], ref[name])
        assert 0.75 < s / s_ref < 4 / 3, (name, ours[name], ref[name])


def _pm_sample(model, sampler: str, settings=SETTINGS, **nuts):
    with blas_threads(1):
        return pm.sample(
            nuts_sampler=sampler,
            cores=1,  # no fork() of a process that may hold JAX or Numba threads
            random_seed=seed(2),
            progressbar=False,
            compute_convergence_checks=False,
            model=model,
            nuts={"target_accept": TARGET_ACCEPT, **nuts},
            **settings,
        )


def _skip_unless_installed(sampler: str) -> None:
    if sampler in ("numpyro", "blackjax"):
        pytest.importorskip("jax", reason=f"JAX is not installed: pip install jax {sampler}")
        module = pytest.importorskip(sampler, reason=f"{sampler} is not installed")
        if sampler == "blackjax" and not _blackjax_takes_progress_bar(module):
            pytest.skip(
                f"blackjax {module.__version__} is too new for PyMC {pm.__version__}: PyMC's "
                "blackjax path passes progress_bar to window_adaptation, which blackjax 1.6 "
                "removed. pip install 'blackjax<1.6'."
            )


def _blackjax_takes_progress_bar(blackjax) -> bool:
    return "progress_bar" in inspect.signature(blackjax.window_adaptation).parameters


def test_nutpie_samples_the_vsk_model(reference):
    _check(reference, reference)
    assert reference["posterior"]["ls"].shape == (SETTINGS["chains"], SETTINGS["draws"])


def test_pymc_sampler_agrees_with_nutpie(model, reference):
    _check(_pm_sample(model, "pymc"), reference)


def test_numpyro_through_pymcs_jax_path_agrees_with_nutpie(model, reference):
    _skip_unless_installed("numpyro")
    idata = _pm_sample(model, "numpyro", chain_method="vectorized")
    _check(idata, reference)


def test_blackjax_through_pymcs_jax_path_agrees_with_nutpie(model, reference):
    _skip_unless_installed("blackjax")
    idata = _pm_sample(model, "blackjax", chain_method="vectorized")
    _check(idata, reference)


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["nutpie", "pymc", "numpyro", "blackjax"])
def test_every_backend_converges_with_long_chains(model, sampler):
    """4 chains × (1000 tune + 1000 draws): r̂ ≤ 1.01, bulk and tail ESS ≥ 400, no divergences."""
    _skip_unless_installed(sampler)
    if sampler == "nutpie":
        idata = _nutpie_sample(model, LONG_SETTINGS)
    else:
        jax = {"chain_method": "vectorized"} if sampler in ("numpyro", "blackjax") else {}
        idata = _pm_sample(model, sampler, LONG_SETTINGS, **jax)
    diag = diagnose(idata, PARAMS, rhat_max=1.01, ess_min=400)
    print("\n" + str(diag))
    assert diag.ok, str(diag)
    assert diag.divergences == 0
