"""The example notebooks run top to bottom, with few draws, and are stored without outputs.

Each notebook is executed with nbclient in a fresh kernel of this interpreter (ipykernel's
``python3`` spec runs ``sys.executable``); a cell error fails the test. The kernel gets
``PYMC_VSK_NB_DRAWS`` (draws and tuning steps per chain, realisations per process) set small,
the Agg backend, and single-threaded BLAS: nutpie runs its chains in threads, and a
multi-threaded BLAS inside each of them oversubscribes the cores (N = 81 sampled about ten times
slower on two cores). ``PYMC_VSK_NB_SEED_OFFSET`` passes :data:`tests.conftest.SEED_OFFSET` on:
the notebooks add it to every seed they use.

The only statistical assertions in the notebooks are the paper's findings that the corner and
Gibbs notebooks check (``corner.Study.checks``, ``gibbs_vsk.Study.checks``); their spread over
seeds is measured in ``tests/test_corner.py`` and ``tests/test_gibbs_vsk.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import SEED_OFFSET

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))

#: Draws in CI: enough for r̂, ESS and the plots to be computed, few enough to be quick.
CI_DRAWS = "100"
#: Per-cell timeout (s): generous, a whole notebook is much quicker.
CELL_TIMEOUT = 600


def _kernel_env() -> dict[str, str]:
    return {
        **os.environ,
        "PYMC_VSK_NB_DRAWS": CI_DRAWS,
        "PYMC_VSK_NB_FULL": "0",  # notebooks with a full size run their reduced one
        "PYMC_VSK_NB_SEED_OFFSET": str(SEED_OFFSET),
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def test_the_notebooks_are_found():
    expected = {
        "01_jump_table1.ipynb",
        "02_jump_bayes.ipynb",
        "03_jump_detection.ipynb",
        "04_weierstrass.ipynb",
        "05_corner.ipynb",
    }
    assert expected <= {p.name for p in PATHS}


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, f"{path.name}: clear the outputs of cells {dirty} before committing"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env=_kernel_env())  # raises CellExecutionError on the first failing cell
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors
