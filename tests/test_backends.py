"""NUTS backends: a VSK model samples with nutpie, the PyMC sampler, numpyro and blackjax.

One small VSK model (N = 30 Halton nodes, f(x) = sin 2πx + 2·1[x ≥ 0.5], noise std 0.1,
ψ = Jump(0.5), default priors) is sampled by each installed backend: 4 chains × (400 tune +
400 draws), target acceptance 0.9. Each run must converge (rank-normalised r̂ < 1.02, no
divergences) and agree with the nutpie run: posterior means of log ℓ, log σ_f, log σ_n and
the constant mean within 0.3 posterior sd (about five Monte Carlo standard errors of the
difference at these ESS), and posterior sds within 25 %. numpyro and blackjax go through
PyMC's JAX path (``pm.sample(..., nuts_sampler="numpyro" | "blackjax")``), the route to a GPU.
"""

from __future__ import annotations

import inspect

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import build_model, diagnose, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.scaling import Jump

PARAMS = ("ls", "sigma_f", "sigma_n", "mean")
SETTINGS = {"draws": 400, "tune": 400, "chains": 4}
#: Step-size adaptation target (0.9: blackjax's short warm-up otherwise leaves a few divergences).
TARGET_ACCEPT = 0.9


def _data() -> tuple[np.ndarray, np.ndarray]:
    X = targets.halton_nodes(30)
    x = X[:, 0]
    f = np.sin(2 * np.pi * x) + 2.0 * (x >= 0.5)
    return X, f + 0.1 * np.random.default_rng(0).normal(size=len(x))


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


@pytest.fixture(scope="module")
def reference(model):
    """The nutpie run every backend is compared with."""
    nutpie = pytest.importorskip("nutpie", reason="nutpie is not installed: pip install nutpie")
    with blas_threads(1):
        compiled = nutpie.compile_pymc_model(model)
        idata = nutpie.sample(
            compiled,
            cores=2,
            seed=1,
            target_accept=TARGET_ACCEPT,
            progress_bar=False,
            **SETTINGS,
        )
    return idata


def _check(idata, reference) -> None:
    diag = diagnose(idata, PARAMS)
    assert diag.divergences == 0
    assert diag.table["r_hat"].max() < 1.02, diag.table
    ours, ref = _summary(idata), _summary(reference)
    for name in PARAMS:
        (m, s), (m_ref, s_ref) = ours[name], ref[name]
        assert abs(m - m_ref) < 0.3 * s_ref, (name, ours[name], ref[name])
        assert 0.8 < s / s_ref < 1.25, (name, ours[name], ref[name])


def _pm_sample(model, sampler: str, **nuts):
    with blas_threads(1):
        return pm.sample(
            nuts_sampler=sampler,
            cores=1,  # no fork() of a process that may hold JAX or Numba threads
            random_seed=2,
            progressbar=False,
            compute_convergence_checks=False,
            model=model,
            nuts={"target_accept": TARGET_ACCEPT, **nuts},
            **SETTINGS,
        )


def test_nutpie_samples_the_vsk_model(reference):
    _check(reference, reference)
    assert reference["posterior"]["ls"].shape == (SETTINGS["chains"], SETTINGS["draws"])


def test_pymc_sampler_agrees_with_nutpie(model, reference):
    _check(_pm_sample(model, "pymc"), reference)


def test_numpyro_through_pymcs_jax_path_agrees_with_nutpie(model, reference):
    pytest.importorskip("jax", reason="JAX is not installed: pip install jax numpyro")
    pytest.importorskip("numpyro", reason="numpyro is not installed: pip install numpyro")
    idata = _pm_sample(model, "numpyro", chain_method="vectorized")
    _check(idata, reference)


def test_blackjax_through_pymcs_jax_path_agrees_with_nutpie(model, reference):
    pytest.importorskip("jax", reason="JAX is not installed: pip install jax blackjax")
    blackjax = pytest.importorskip("blackjax", reason="blackjax is not installed")
    if "progress_bar" not in inspect.signature(blackjax.window_adaptation).parameters:
        pytest.skip(
            f"blackjax {blackjax.__version__} is too new for PyMC {pm.__version__}: PyMC's "
            "blackjax path passes progress_bar to window_adaptation, which blackjax 1.6 "
            "removed. pip install 'blackjax<1.6'."
        )
    idata = _pm_sample(model, "blackjax", chain_method="vectorized")
    _check(idata, reference)
