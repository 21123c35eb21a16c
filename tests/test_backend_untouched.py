"""Importing the package and drawing its figures leaves the user's matplotlib backend alone.

A library must not choose the backend: the figures are ``matplotlib.figure.Figure`` objects
made without pyplot, and saving them to files works whatever backend is set. Each check runs
in a fresh interpreter with a backend other than Agg set by ``MPLBACKEND``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MODULES = [
    "pymc_vsk",
    "pymc_vsk.plotting",
    "pymc_vsk.jumps.cli",
    "pymc_vsk.cli",
    "pymc_vsk.paper.table1",
    "pymc_vsk.paper.tables2_3",
    "pymc_vsk.paper.figure4",
    "pymc_vsk.paper.figure7",
    "pymc_vsk.paper.figure9",
    "pymc_vsk.paper.figure13",
    "pymc_vsk.paper.report",
    "benchmarks.calibration",
]

SCRIPT = """
import importlib, sys
import matplotlib
before = (matplotlib.get_backend(), matplotlib.rcParams["backend"])
for name in sys.argv[2:]:
    importlib.import_module(name)
import numpy as np
from pymc_vsk import plotting
x = np.linspace(0.0, 1.0, 50)
fig = plotting.posterior_bands(x, {"m": x}, {"m": 0.1 + 0 * x}, x[:5], x[:5], truth=x)
fig.savefig(sys.argv[1])
after = (matplotlib.get_backend(), matplotlib.rcParams["backend"])
assert after == before, (before, after)
assert "matplotlib.pyplot" not in sys.modules or not sys.modules["matplotlib.pyplot"].get_fignums()
print("backend", after[0])
"""


@pytest.mark.parametrize("backend", ["svg", "pdf"])
def test_imports_and_figures_leave_the_backend_unchanged(backend, tmp_path):
    png = tmp_path / "figure.png"
    env = {**os.environ, "MPLBACKEND": backend, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(png), *MODULES],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"backend {backend}" in done.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_module_selects_a_backend():
    """No ``matplotlib.use`` in the package, the paper or the studies."""
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("pymc_vsk", "benchmarks")
        for path in (ROOT / folder).rglob("*.py")
        if "matplotlib.use(" in path.read_text()
    ]
    assert offenders == []
