"""``pymc-vsk reproduce all`` writes one Markdown report with every experiment's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from pymc_vsk.cli import build_parser, main
from pymc_vsk.paper import EXPERIMENTS, load, report


def test_every_experiment_gets_its_figure_directory():
    for name in EXPERIMENTS:
        if name == "all":
            continue
        args = report.arguments(name, report.Path("/tmp/x"))
        saved = getattr(args, "out", None) or getattr(args, "plot", None)
        assert str(saved) == "/tmp/x", name
        # the same namespace as the command line gives (tables2_3 reads args.experiment)
        option = load(name).OUTPUT_OPTION
        command_line = build_parser().parse_args(["reproduce", name, option, "/tmp/x"])
        assert command_line.command == "reproduce" and args.experiment == name
        assert vars(args) == {k: v for k, v in vars(command_line).items() if k != "command"}


def test_report_does_not_import_the_command_line():
    source = Path(report.__file__).read_text()
    assert "pymc_vsk.cli" not in source and "_option_string_actions" not in source


def test_report_runs_an_experiment_that_reads_its_name(tmp_path, monkeypatch):
    """Table 2 and Table 3 share one main(), which needs the experiment's name."""
    from pymc_vsk.paper import tables2_3

    seen = []

    def compute(table, seeds, method):
        seen.append((table, seeds, method))
        raise SystemExit(0)  # stop before the 20-seed study

    monkeypatch.setattr(tables2_3, "compute", compute)
    try:
        report.run_all(tmp_path, ["table3"])
    except SystemExit:
        pass
    assert seen and seen[0][0] is tables2_3.TABLES["table3"]


def test_report_has_the_output_and_figures(tmp_path, capsys):
    assert main(["reproduce", "all", "--out", str(tmp_path), "--only", "table1"]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "## table1: Table 1" in text and "8 of 8 numbers match" in text
    assert "![figure1_table1_posterior](table1/figure1_table1_posterior.png)" in text
    assert (tmp_path / "table1" / "figure3_table1_covariance.png").exists()
    assert "table1: exit status 0" in capsys.readouterr().out


def test_an_unknown_option_is_named_with_the_usage_of_the_command_typed(capsys):
    """argparse passes a sub-command's unknown arguments up to the program, whose usage line
    (``pymc-vsk [-h] {reproduce,detect-jumps} ...``) says nothing of the options at hand."""
    cases = [
        (["reproduce", "table1", "--bogus"], "reproduce table1", "--bogus"),
        (["detect-jumps", "a.csv", "b.csv", "--x", "t", "--y", "v"], "detect-jumps", "b.csv"),
    ]
    for argv, command, unknown in cases:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"usage: pymc-vsk {command} "), err
        assert f"unrecognized arguments: {unknown}" in err
