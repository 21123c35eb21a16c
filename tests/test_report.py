"""``pymc-vsk reproduce all`` writes one Markdown report with every experiment's output."""

from __future__ import annotations

from pymc_vsk.cli import main
from pymc_vsk.paper import EXPERIMENTS, report


def test_every_experiment_gets_its_figure_directory():
    for name in EXPERIMENTS:
        if name == "all":
            continue
        args = report._arguments(name, report.Path("/tmp/x"))
        saved = getattr(args, "out", None) or getattr(args, "plot", None)
        assert str(saved) == "/tmp/x", name
        # the same namespace as the command line gives (tables23 reads args.experiment)
        assert args.command == "reproduce" and args.experiment == name


def test_report_runs_an_experiment_that_reads_its_name(tmp_path, monkeypatch):
    """Table 2 and Table 3 share one main(), which needs the experiment's name."""
    from pymc_vsk.paper import tables23

    seen = []

    def compute(table, seeds, method):
        seen.append((table, seeds, method))
        raise SystemExit(0)  # stop before the 20-seed study

    monkeypatch.setattr(tables23, "compute", compute)
    try:
        report.run_all(tmp_path, ["table3"])
    except SystemExit:
        pass
    assert seen and seen[0][0] is tables23.TABLES["table3"]


def test_report_has_the_output_and_figures(tmp_path, capsys):
    assert main(["reproduce", "all", "--out", str(tmp_path), "--only", "table1"]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "## table1: Table 1" in text and "8 of 8 numbers match" in text
    assert "![figure1_table1_posterior](table1/figure1_table1_posterior.png)" in text
    assert (tmp_path / "table1" / "figure3_table1_covariance.png").exists()
    assert "table1: exit status 0" in capsys.readouterr().out
