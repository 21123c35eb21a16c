"""Shared fixtures and case tables for the tests."""

from __future__ import annotations

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
