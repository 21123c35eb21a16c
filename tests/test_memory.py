"""The dense-memory guard refuses N x N work above the limit and points to approximations."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSK, LinearVSK, build_model, targets
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.memory import check_dense, get_memory_limit, set_memory_limit
from pymc_vsk.scaling import Jump


@pytest.fixture(autouse=True)
def _restore_limit():
    yield
    set_memory_limit(None)


def test_twenty_thousand_points_are_refused_before_anything_is_allocated():
    X = np.linspace(0, 1, 20_000)[:, None]
    with pytest.raises(
        MemoryError, match=r"20000 x 20000 .* 23\.8 GiB .* 2\.0 GiB.*MarginalApprox.*hsgp"
    ):
        VSK(pm.gp.cov.Matern52(2, ls=0.1), Jump(0.5))(X)
    with pytest.raises(MemoryError, match="set_memory_limit"):
        build_model(X, X[:, 0], psi=Jump(0.5))


def test_the_limit_is_configurable(monkeypatch):
    X = np.linspace(0, 1, 200)[:, None]
    set_memory_limit("500K")
    with pytest.raises(MemoryError, match=r"200 x 200"):
        LinearVSK(1, Jump(0.5))(X)
    with pytest.raises(MemoryError, match=r"200 x 50"):
        VSK(pm.gp.cov.ExpQuad(2, ls=0.1), Jump(0.5))(X, X[:50])
    set_memory_limit(None)
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", "512K")
    assert get_memory_limit() == 512 * 1024
    with pytest.raises(MemoryError):
        check_dense(100, 100, "test")
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError, match="is not a size"):
        get_memory_limit()


def test_exact_jump_marginalisation_counts_every_gap():
    X = targets.halton_nodes(81)
    set_memory_limit(81 * 81 * 8 * 8 * 20)  # room for 20 gaps, the prior range has 65
    with pytest.raises(MemoryError, match=r"MarginalJumpGP \(65 gaps\)"):
        build_jump_model(X, targets.jump(X), method="marginal", lower=0.1, upper=0.9)
