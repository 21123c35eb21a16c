"""Shared fixtures and case tables for the tests, and the seeds of the statistical tests.

Seeds of the statistical tests
------------------------------
A statistical test (one that samples a posterior, fits noisy data, or checks a distribution
with draws) takes every seed it uses -- the sampler's ``random_seed``, the seed of the noise
added to its data, the seeds of simulated draws -- through :func:`seed`. The environment
variable ``PYMC_VSK_TEST_SEED_OFFSET`` (an integer >= 0, default 0) is added to each of them, so

    PYMC_VSK_TEST_SEED_OFFSET=17 python -m pytest

runs the same tests on other data and other chains. A fixed seed only fixes the outcome on one
machine: another CPU or BLAS kernel rounds differently and sends the chains along other paths.
The statistical tests are therefore sized to pass for any offset, and their docstrings give
the spread of the statistic they bound, measured over offsets. Deterministic tests
(closed-form references, Table 1 of the paper, fixed data sets of the optimiser tests) keep
their literal seeds.
"""

from __future__ import annotations

import os

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest

from pymc_vsk import scaling, targets
from pymc_vsk.blas import blas_threads
from tests import reference as ref

#: Base kernels under test: name -> factory(input_dim, ls).
BASE_KERNELS = {
    "ExpQuad": lambda n, ls: pm.gp.cov.ExpQuad(n, ls=ls),
    "Matern12": lambda n, ls: pm.gp.cov.Matern12(n, ls=ls),
    "Exponential": lambda n, ls: pm.gp.cov.Exponential(n, ls=ls),
    "Matern32": lambda n, ls: pm.gp.cov.Matern32(n, ls=ls),
    "Matern52": lambda n, ls: pm.gp.cov.Matern52(n, ls=ls),
    "RatQuad": lambda n, ls: pm.gp.cov.RatQuad(n, alpha=2.5, ls=ls),
}

#: Scaling functions under test: name -> (d, factory, numpy reference of ψ).
SCALINGS = {
    "jump": (1, lambda: scaling.Jump(0.5), ref.psi_jump),
    "two_jumps": (1, lambda: scaling.Jump([0.3, 0.7], [1.0, -2.0]), ref.psi_two_jumps),
    "smooth_jump": (1, lambda: scaling.SmoothJump(0.5, width=0.05), ref.psi_smooth_jump),
    "corner": (1, lambda: scaling.Corner(), ref.psi_corner),
    "psi_is_f": (1, lambda: scaling.FromFunction(targets.exp_cos), ref.exp_cos),
    "pytensor_expr": (
        1,
        lambda: scaling.FromFunction(lambda X: pt.tanh(5 * (X[:, 0] - 0.5))),
        lambda X: np.tanh(5 * (X[:, 0] - 0.5)),
    ),
    "stack": (
        1,
        lambda: scaling.Stack([scaling.Jump(0.5), scaling.Corner()]),
        lambda X: np.c_[ref.psi_jump(X), ref.psi_corner(X)],
    ),
    "disk": (2, lambda: scaling.Disk([0.5, 0.5], 0.3), ref.psi_disk),
    "half_plane": (2, lambda: scaling.HalfPlane([1.0, 1.0], 1.0), ref.psi_half_plane),
    "region": (
        2,
        lambda: scaling.Region(lambda X: X[:, 0] > X[:, 1]),
        lambda X: (X[:, 0] > X[:, 1]).astype(float),
    ),
    "weierstrass": (2, lambda: scaling.Weierstrass(3), lambda X: ref.psi_weierstrass(X, 3)),
}


def _seed_offset() -> int:
    text = os.environ.get("PYMC_VSK_TEST_SEED_OFFSET", "0").strip() or "0"
    try:
        offset = int(text)
    except ValueError:
        offset = -1
    if offset < 0:
        raise ValueError(f"PYMC_VSK_TEST_SEED_OFFSET must be an integer >= 0; got {text!r}.")
    return offset


#: Added to every seed of the statistical tests (``PYMC_VSK_TEST_SEED_OFFSET``, default 0).
SEED_OFFSET = _seed_offset()


def seed(n: int) -> int:
    """The seed ``n`` of a statistical test, shifted by ``PYMC_VSK_TEST_SEED_OFFSET``."""
    return int(n) + SEED_OFFSET


def seeds(*ns: int) -> list[int]:
    """:func:`seed` of each of ``ns``."""
    return [seed(n) for n in ns]


def inputs(d: int, n: int, seed: int) -> np.ndarray:
    """Seeded random inputs in [0, 1]^d that include points on the jump/corner at 0.5."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, d))
    X[0] = 0.5
    return X


def evaluate(*outputs):
    """Evaluate symbolic outputs (one compiled function for all)."""
    return pytensor.function([], list(outputs))()


@pytest.fixture(scope="session", autouse=True)
def _single_threaded_blas():
    """GP matrices here are small; a multithreaded BLAS pool only slows a shared machine."""
    with blas_threads(1):
        yield


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261129)
