"""The example notebooks are stored executed, with their figures, and still run.

The notebooks are documentation: they are committed executed at full size by
``notebooks/execute.py`` (outputs and figures saved, fixed seeds), so they read on the
repository page and in the documentation site without running anything. These tests check
what is stored -- every code cell executed in one top-to-bottom run, no error output, the
number of figures (``image/png`` outputs) of :data:`FIGURES`, no path of the machine that
executed them -- and execute each notebook again at reduced size, in memory, without writing
it back.

The re-execution runs nbclient in a fresh kernel of this interpreter (ipykernel's ``python3``
spec runs ``sys.executable``); a cell error fails the test. The kernel gets
``PYMC_VSK_NB_DRAWS`` (draws and tuning steps per chain, realisations per process) set small,
``PYMC_VSK_NB_FULL=0`` (the reduced size of notebooks 04-06), matplotlib's inline backend (so
the figures are made and counted again) and single-threaded BLAS: nutpie runs its chains in
threads, and a multi-threaded BLAS inside each of them oversubscribes the cores (N = 81
sampled about ten times slower on two cores). ``PYMC_VSK_NB_SEED_OFFSET`` passes
:data:`tests.conftest.SEED_OFFSET` on: the notebooks add it to every seed they use.

The only statistical assertions in the notebooks are the paper's findings that the corner and
Gibbs notebooks check (``corner.Study.checks``, ``gibbs_vsk.Study.checks``); their spread over
seeds is measured in ``tests/test_corner.py`` and ``tests/test_gibbs_vsk.py``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import SEED_OFFSET

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))

#: Figures (``image/png`` outputs) of each stored notebook, counted in the executed files.
#: A new notebook gets its line here; a changed one whose figure count moves, a new count.
FIGURES = {
    "01_jump_table1": 3,  # Figures 1, 2 and 3
    "02_jump_bayes": 12,
    "03_jump_detection": 6,  # find_jumps' figure and the fits of the Nile models too
    "04_weierstrass": 3,
    "05_corner": 6,
    "06_gibbs_paciorek": 5,
    "07_posterior_predictive": 8,
}

#: Draws in CI: enough for r̂, ESS and the plots to be computed, few enough to be quick.
CI_DRAWS = "100"
#: Per-cell timeout (s): generous, a whole notebook is much quicker.
CELL_TIMEOUT = 600
#: An absolute path of a machine (the POSIX roots of user, temporary and install directories);
#: ``notebooks/execute.py`` replaces such paths before writing a notebook.
MACHINE_PATH = re.compile(r"(?<![\w<>.~-])/(?:home|Users|root|tmp|work|opt|usr|var)/")


def _kernel_env() -> dict[str, str]:
    return {
        **os.environ,
        "PYMC_VSK_NB_DRAWS": CI_DRAWS,
        "PYMC_VSK_NB_FULL": "0",  # notebooks with a full size run their reduced one
        "PYMC_VSK_NB_SEED_OFFSET": str(SEED_OFFSET),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _outputs(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [out for cell in _code_cells(nb) for out in cell.outputs]


def _figures(nb: nbformat.NotebookNode) -> int:
    return sum("image/png" in out.get("data", {}) for out in _outputs(nb))


def _errors(nb: nbformat.NotebookNode) -> list[str]:
    return [f"{out.ename}: {out.evalue}" for out in _outputs(nb) if out.output_type == "error"]


def _read(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


def test_every_notebook_has_its_figure_count():
    assert {p.stem for p in PATHS} == set(FIGURES), (
        "notebooks/ and FIGURES list different notebooks: add a new notebook to FIGURES with "
        "the number of figures of its executed file"
    )
    assert all(n >= 1 for n in FIGURES.values())


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_is_stored_executed_with_figures(path):
    nb = _read(path)
    counts = [cell.execution_count for cell in _code_cells(nb)]
    fix = f"run `python notebooks/execute.py notebooks/{path.name}` and commit the result"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: code cells executed as {counts}, not once each from the top; {fix}"
    )
    assert _outputs(nb), f"{path.name} is stored without outputs; {fix}"
    assert not _errors(nb), f"{path.name} stores errors {_errors(nb)}; {fix}"
    assert _figures(nb) == FIGURES[path.stem] >= 1, (
        f"{path.name} stores {_figures(nb)} figures, FIGURES says {FIGURES.get(path.stem)}"
    )


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_stored_outputs_name_no_machine_path(path):
    for i, cell in enumerate(_code_cells(_read(path))):
        text = json.dumps([out.get("text", out.get("data", {})) for out in cell.outputs])
        text = re.sub(r'"image/png": "[^"]*"', "", text)  # base64 is no path
        found = MACHINE_PATH.search(text)
        assert found is None, (
            f"{path.name}, code cell {i + 1}: an output names a machine path "
            f"({text[max(found.start() - 40, 0) : found.end() + 40]!r}); execute it with "
            "notebooks/execute.py, which replaces them"
        )


def _execute_script():
    spec = importlib.util.spec_from_file_location("notebooks_execute", NOTEBOOKS / "execute.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_execute_replaces_the_machine_paths_of_warnings():
    execute = _execute_script()
    warning = f"{sys.prefix}/lib/python3.12/site-packages/pymc/x.py:1: UserWarning: w"
    line = f"{execute.ROOT}/pymc_vsk/models.py:2: UserWarning: v; see {Path.home()}/log"
    scrubbed = execute.scrub(warning + "\n" + line)
    assert sys.prefix not in scrubbed and str(execute.ROOT) not in scrubbed
    assert str(Path.home()) + "/" not in scrubbed
    assert "UserWarning: w" in scrubbed and "pymc_vsk/models.py:2" in scrubbed
    assert MACHINE_PATH.search(scrubbed) is None


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_without_errors_at_reduced_size(path):
    stored = _read(path)
    nb = copy.deepcopy(stored)  # executed in memory: the stored file is not written
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute(env=_kernel_env())  # raises CellExecutionError on the first failing cell
    assert not _errors(nb)
    assert _figures(nb) == _figures(stored), (
        f"{path.name} makes {_figures(nb)} figures at reduced size and stores "
        f"{_figures(stored)}: re-execute it with notebooks/execute.py"
    )
