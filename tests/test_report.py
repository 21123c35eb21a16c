"""``pymc-vsk reproduce all`` writes one Markdown report with every experiment's output."""

from __future__ import annotations

from pymc_vsk.cli import main
from pymc_vsk.experiments import EXPERIMENTS, report


def test_every_experiment_gets_its_figure_directory():
    for name in EXPERIMENTS:
        if name == "all":
            continue
        args = report._arguments(name, report.Path("/tmp/x"))
        saved = getattr(args, "out", None) or getattr(args, "plot", None)
        assert str(saved) == "/tmp/x", name


def test_report_has_the_output_and_figures(tmp_path, capsys):
    assert main(["reproduce", "all", "--out", str(tmp_path), "--only", "table1"]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "## table1: Table 1" in text and "8 of 8 numbers match" in text
    assert "![figure1_table1_posterior](table1/figure1_table1_posterior.png)" in text
    assert (tmp_path / "table1" / "figure3_table1_covariance.png").exists()
    assert "table1: exit status 0" in capsys.readouterr().out
