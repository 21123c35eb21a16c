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
import re

import numpy as np
import pytensor
import pytest

from pymc_vsk import scaling, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.kernels import base_kernels, make_base_kernel
from tests import reference as ref


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("pymc", "pymc_vsk")


#: Base kernels under test, every registered radial kernel: name -> factory(input_dim, ls).
BASE_KERNELS = {
    cls.__name__: (lambda n, ls, cls=cls: make_base_kernel(cls, n, ls))
    for cls in base_kernels().values()
    if _ours(cls) and cls.__name__ in ref.RADIAL
}

#: Extra cases beyond each class's example: name -> (d, factory, numpy reference of ψ).
_EXTRA_SCALINGS = {
    "two_jumps": (1, lambda: scaling.Jump([0.3, 0.7], [1.0, -2.0]), ref.psi_two_jumps),
    "psi_is_f": (1, lambda: scaling.FromFunction(targets.exp_cos), ref.exp_cos),
}

#: Scaling functions under test: the example of every registered class with a reference in
#: tests/reference.py (keyed by snake-case class name), and the extra cases.
SCALINGS = {
    **{
        _snake(name): (cls.example_dim, cls.example, ref.PSI_EXAMPLES[name])
        for name, cls in scaling.scaling_functions().items()
        if _ours(cls) and name in ref.PSI_EXAMPLES
    },
    **_EXTRA_SCALINGS,
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
