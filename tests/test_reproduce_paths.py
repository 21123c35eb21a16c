"""``pymc-vsk reproduce`` and the reproductions' Python API on unusual but legal paths: an
invalid memory limit, Ctrl-C, arguments of the wrong kind, sizes beyond the memory limit, seeds
that are not a run, an experiment of ``reproduce all`` that refuses its sizes."""

from __future__ import annotations

import numpy as np
import pytest

from pymc_vsk import targets
from pymc_vsk.cli import INTERRUPTED, main
from pymc_vsk.paper import figure4, figure7, figure9, report, table1, tables2_3


def _no_work(*args, **kwargs):
    pytest.fail("the experiment started its work")


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def _status(argv: list[str]) -> int:
    """``main(argv)``, failing the test (not ending the session) if Ctrl-C escapes it."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main() as a KeyboardInterrupt, with its traceback")


def test_an_invalid_memory_limit_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """Table 1 has no size option and used to end in a traceback at its first model."""
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", "two gigabytes")
    monkeypatch.setattr(table1, "compute", _no_work)
    plots = tmp_path / "plots"
    assert main(["reproduce", "table1", "--plot", str(plots)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pymc-vsk reproduce table1: error: PYMC_VSK_MEMORY_LIMIT=")
    assert "is not a size" in err and "'8G'" in err and "Traceback" not in err
    assert not plots.exists()


def test_ctrl_c_ends_the_command_with_one_line_and_the_status_of_sigint(monkeypatch, capsys):
    monkeypatch.setattr(table1, "compute", _interrupted)
    assert _status(["reproduce", "table1", "--quiet"]) == INTERRUPTED == 130
    assert capsys.readouterr().err == "pymc-vsk reproduce table1: interrupted\n"


def test_ctrl_c_in_reproduce_all_keeps_the_experiments_that_ended(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(figure4, "compute", _interrupted)
    argv = ["reproduce", "all", "--out", str(tmp_path), "--only", "table1", "figure4", "--quiet"]
    assert _status(argv) == INTERRUPTED
    assert capsys.readouterr().err == "pymc-vsk reproduce all: interrupted\n"
    text = (tmp_path / "report.md").read_text()
    assert "8 of 8 numbers match" in text and "## figure4" not in text


@pytest.mark.parametrize(
    ("k_values", "error", "match"),
    [
        ("12", TypeError, r"k_values is a sequence of K_VSK in 0\.\.12.*got '12'"),
        (12, TypeError, r"k_values is a sequence of K_VSK in 0\.\.12.*got 12\."),
        ([12.5], TypeError, r"each K_VSK must be an integer \(int\); got 12\.5"),
        (["3"], TypeError, r"each K_VSK must be an integer \(int\); got '3'"),
        ([-1], ValueError, r"each K_VSK must be at least 0; got -1"),
    ],
)
def test_figure7_refuses_k_values_that_are_not_integers_in_range(
    monkeypatch, k_values, error, match
):
    """``k_values="12"`` used to fit K_VSK = 1 and 2 (the characters), ``[12.5]`` K_VSK = 12."""
    monkeypatch.setattr(figure7, "build", _no_work)
    with pytest.raises(error, match=match):
        figure7.compute(n_nodes=12, k_values=k_values, grid_size=4)


def test_figure7_refuses_a_grid_beyond_the_memory_limit_before_any_work(monkeypatch):
    """From Python the grid was built first, and numpy failed allocating 75 GiB."""
    monkeypatch.setattr(targets, "grid_nodes", _no_work)
    monkeypatch.setattr(figure7, "build", _no_work)
    with pytest.raises(MemoryError, match=r"Predicting at 10000000000 points.*smaller grid_size"):
        figure7.compute(n_nodes=12, k_values=[12], grid_size=10**5)
    with pytest.raises(TypeError, match=r"grid_size must be an integer \(int\); got 60\.5"):
        figure7.compute(n_nodes=12, k_values=[12], grid_size=60.5)


@pytest.mark.parametrize(
    ("figure_nodes", "error", "match"),
    [
        ((10**6,), MemoryError, r"A dense GP on 1000000 nodes .*smaller figure_nodes"),
        ((20.5,), TypeError, r"each count of figure_nodes must be an integer \(int\); got 20\.5"),
        ((1,), ValueError, r"each count of figure_nodes must be at least 2; got 1"),
    ],
)
def test_figure9_refuses_bad_figure_nodes_before_any_work(monkeypatch, figure_nodes, error, match):
    """Only ``n_max`` was checked: 20.5 nodes were fitted as 20, a million failed in numpy."""
    monkeypatch.setattr(figure9, "MleFitter", _no_work)
    with pytest.raises(error, match=match):
        figure9.compute(n_max=31, seeds=1, figure_nodes=figure_nodes)


def _study(seeds: list[int]) -> tables2_3.Study:
    """A Table 2 study over ``seeds`` with made-up numbers (only its printing is tested)."""
    k = len(seeds)
    values = {
        m: {row: np.linspace(1.0, 2.0, k) for row in tables2_3.ROW_LABELS} for m in tables2_3.MODELS
    }
    return tables2_3.Study(
        n_nodes=27,
        seeds=seeds,
        method="map",
        description="MLE",
        values=values,
        flags={m: [[] for _ in seeds] for m in tables2_3.MODELS},
        ls_modes={m: [[0.06] for _ in seeds] for m in tables2_3.MODELS},
        example={"grid": np.zeros((526, 1))},
        seconds=1.0,
    )


def test_table2_names_the_seeds_it_used():
    """Seeds [0, 3] were printed as "seeds 0–3", a run of four."""
    cases = {(0, 3): "2 noise seed(s) (seeds 0, 3)", (0, 1, 2): "3 noise seed(s) (seeds 0–2)"}
    cases |= {(7,): "1 noise seed(s) (seed 7)", tuple(range(9, 2, -1)): "(seeds 9, 8, 7, 6, 5, …)"}
    for seeds, shown in cases.items():
        first = tables2_3.format_table(_study(list(seeds))).splitlines()[0]
        assert shown in first, first


def test_reproduce_all_reports_why_an_experiment_refused_its_sizes(tmp_path, monkeypatch, capsys):
    """The refusal went to stderr only: the report showed an empty block and "see above"."""
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", "1K")
    monkeypatch.setattr(figure4, "compute", _no_work)
    text, status = report.run_all(tmp_path, ["figure4"])
    assert status == 2
    block = text.split("## figure4")[1].split("```")[1]
    assert block.startswith("\npymc-vsk reproduce figure4: error: A dense GP on 790 nodes")
    assert "PYMC_VSK_MEMORY_LIMIT" in block
    assert "A dense GP on 790 nodes" in capsys.readouterr().err  # still shown as it happens


def test_a_nuts_sampler_without_method_nuts_is_refused_before_any_work(monkeypatch, capsys):
    """``table2 --sampler nutpie`` printed a maximum-likelihood table as if nothing were amiss."""
    monkeypatch.setattr(tables2_3, "compute", _no_work)
    assert main(["reproduce", "table2", "--sampler", "nutpie", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "reproduce table2: error: --sampler nutpie chooses the sampler of --method" in err
    assert "add --method nuts, or leave --sampler out" in err
