"""Table 1 of the paper, to its printed 5 significant digits, through PyMC's GP conditioning."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pymc_vsk.cli import main
from pymc_vsk.paper import table1


@pytest.fixture(scope="module")
def result():
    return table1.compute()


@pytest.mark.parametrize("model", ["stationary", "vsk"])
@pytest.mark.parametrize("metric", ["rmse", "max_error", "mean_std", "max_std"])
def test_table1_matches_the_paper_to_5_significant_digits(result, model, metric):
    assert f"{result.metrics[model][metric]:.4e}" == table1.PAPER[model][metric]


def test_evaluation_grid_is_500_points_united_with_the_nodes(result):
    assert result.grid.shape == (504, 1)


def test_vsk_uncertainty_is_largest_at_the_jump(result):
    """Figure 1: the VSK's posterior std peaks near x0 = 0.5, the stationary one does not."""
    x = result.grid[:, 0]
    assert abs(x[np.argmax(result.std["vsk"])] - 0.5) < 0.01
    assert abs(x[np.argmax(result.std["stationary"])] - 0.5) > 0.05


def test_cli_prints_the_table_and_saves_the_figures(tmp_path, capsys):
    assert main(["reproduce", "table1", "--plot", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "8 of 8 numbers match" in out and "9.1728e-01" in out
    assert (tmp_path / "figure1_table1_posterior.png").stat().st_size > 10_000
    assert (tmp_path / "figure3_table1_covariance.png").stat().st_size > 10_000


@pytest.mark.parametrize("experiment", ["table1", "figure4", "figure7", "all"])
def test_an_output_directory_that_cannot_be_one_is_refused_before_any_work(
    tmp_path, capsys, experiment
):
    """--out/--plot under a file: refused at once, where it used to end a finished run (or
    an hour's sweep) in a FileExistsError traceback."""
    blocker = tmp_path / "results"
    blocker.write_text("not a directory")
    from pymc_vsk.paper import load

    flag = load(experiment).OUTPUT_OPTION
    assert main(["reproduce", experiment, flag, str(blocker / "figures")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"error: {flag} {blocker / 'figures'}: {blocker} is a file, not a directory" in err


def test_python_dash_m_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "pymc_vsk", "reproduce", "table1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "8 of 8 numbers match" in done.stdout
