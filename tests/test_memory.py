"""The dense-memory guard refuses N x N work above the limit and points to approximations."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSK, LinearVSK, build_model, memory, targets
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


# -- n × n temporaries kept between evaluations -------------------------------------------------
_FAULTS_PER_EVALUATION = """
import json, resource, sys
import numpy as np
from pymc_vsk import build_model, memory, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.fitting import compiled_objective
from pymc_vsk.scaling import Jump
if sys.argv[1] == "off":
    memory._kept["done"] = True  # as if already done: the allocator is left as it starts
X = targets.halton_nodes(500)
model, _ = build_model(X, targets.jump(X), psi=Jump(0.5))
objective = compiled_objective(model)
theta = np.zeros(sum(objective.sizes))
with blas_threads(1):
    objective(theta)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        objective(theta)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
print(json.dumps((after - before) / 5))
"""


@pytest.mark.skipif(not memory._glibc(), reason="glibc's allocator only")
def test_evaluations_reuse_their_n_by_n_temporaries_instead_of_faulting_them_in():
    import json
    import subprocess
    import sys

    def faults(setting: str) -> float:
        out = subprocess.run(
            [sys.executable, "-c", _FAULTS_PER_EVALUATION, setting],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    one_matrix = 500 * 500 * 8 / 4096  # pages of one n × n float64 array
    kept, left = faults("on"), faults("off")
    assert kept < one_matrix  # every temporary reused (a handful of small pages at most)
    assert left > 2 * one_matrix  # the allocator as it starts: several matrices per evaluation


def test_keep_large_temporaries_acts_once_per_process(monkeypatch):
    monkeypatch.setitem(memory._kept, "done", False)
    assert memory.keep_large_temporaries() is memory._glibc()
    assert memory.keep_large_temporaries() is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 2 * 1024**3), ("  ", 2 * 1024**3), ("2GB", 2 * 1024**3), ("1e3", 1000), (".5K", 512)],
)
def test_the_environment_variable_takes_empty_units_and_exponents(monkeypatch, text, expected):
    """'1e3' was refused as "not a size" although it is a number of bytes."""
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", text)
    assert get_memory_limit() == expected


@pytest.mark.parametrize("text", [".", "1..2", "-1", "1e400", "inf"])
def test_a_malformed_environment_variable_is_named(monkeypatch, text):
    """'.' and '1..2' failed with "could not convert string to float", naming nothing."""
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", text)
    with pytest.raises(ValueError, match=r"PYMC_VSK_MEMORY_LIMIT=.* is not a size"):
        get_memory_limit()


def test_set_memory_limit_refuses_what_is_no_size_and_names_itself():
    """-1 was taken (every dense model then refused, "above the limit of -0.0 GiB"), NaN
    failed in int(), True meant one byte, and a bad string was blamed on the environment
    variable the caller never set."""
    for bad in (-1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="bytes >= 0"):
            set_memory_limit(bad)
    with pytest.raises(TypeError, match="bytes or a size"):
        set_memory_limit(True)
    with pytest.raises(ValueError, match=r"set_memory_limit\('lots'\) is not a size"):
        set_memory_limit("lots")
    assert get_memory_limit() == 2 * 1024**3  # nothing was set
    set_memory_limit(np.int64(5_000))
    assert get_memory_limit() == 5_000
