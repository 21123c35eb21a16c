"""``pymc-vsk reproduce all`` writes one Markdown report with every experiment's output."""

from __future__ import annotations

import importlib
import io
import sys
import types
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


class _ClosedStdout(io.TextIOBase):
    """Standard output whose reader has gone (``pymc-vsk ... | head``): every write fails."""

    def writable(self):
        return True

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


#: Experiment -> (module, its compute, its printer, its writer of files).
_PARTS = {
    "table1": ("table1", "compute", "format_table", "save_plots"),
    "table2": ("tables2_3", "compute", "format_table", "save_plot"),
    "figure4": ("figure4", "compute", "format_summary", "save"),
    "figure7": ("figure7", "compute", "format_summary", "save"),
    "figure9": ("figure9", "compute", "format_summary", "save"),
    "figure13": ("figure13", "compute", "format_table", "save_figures"),
}


def _fake_experiment(monkeypatch, name):
    """Replace an experiment's work by a printed line and one written file."""
    module = importlib.import_module(f"pymc_vsk.paper.{_PARTS[name][0]}")
    _, compute, printer, writer = _PARTS[name]

    def write(result, out, *rest):
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.png").write_bytes(b"png")
        return out / "result.png" if name == "table2" else [out / "result.png"]

    result = types.SimpleNamespace(matches=dict, checks=dict, method="map")  # all reproduced
    monkeypatch.setattr(module, compute, lambda *args, **kwargs: result)
    monkeypatch.setattr(module, printer, lambda result: "the summary")
    monkeypatch.setattr(module, writer, write)


@pytest.mark.parametrize("name", list(_PARTS))
def test_a_reader_that_leaves_early_costs_no_file(tmp_path, monkeypatch, name):
    """``pymc-vsk reproduce NAME | head`` (or a pager quit early): the files are written before
    the text, so a closed standard output ends the command without losing the run."""
    _fake_experiment(monkeypatch, name)
    args = report.arguments(name, tmp_path)
    monkeypatch.setattr(sys, "stdout", _ClosedStdout())
    with pytest.raises(BrokenPipeError):
        load(name).main(args)
    assert (tmp_path / "result.png").exists()


def test_a_reader_that_leaves_early_costs_no_report(tmp_path, monkeypatch):
    """``pymc-vsk reproduce all --out DIR | head -1``: each experiment's line is printed once
    the report holds it, so a closed standard output does not lose the finished runs."""
    _fake_experiment(monkeypatch, "table1")
    monkeypatch.setattr(sys, "stdout", _ClosedStdout())
    with pytest.raises(BrokenPipeError):
        report.run_all(tmp_path, ["table1"])
    text = (tmp_path / "report.md").read_text()
    assert "## table1" in text and "the summary" in text
    assert "![result](table1/result.png)" in text


def test_the_report_links_only_the_files_the_experiment_wrote(tmp_path, monkeypatch):
    """Files left in DIR/<name>/ by earlier runs or by hand are not the run's results."""
    _fake_experiment(monkeypatch, "table1")
    (tmp_path / "table1").mkdir()
    (tmp_path / "table1" / "old_plot.png").write_bytes(b"png")
    (tmp_path / "table1" / "notes.csv").write_text("a,b\n")
    text, _ = report.run_all(tmp_path, ["table1"])
    assert "![result](table1/result.png)" in text
    assert "old_plot" not in text and "notes.csv" not in text


def test_an_experiment_named_twice_runs_once(tmp_path, monkeypatch, capsys):
    _fake_experiment(monkeypatch, "table1")
    assert main(["reproduce", "all", "--out", str(tmp_path), "--only", "table1", "table1"]) == 0
    assert (tmp_path / "report.md").read_text().count("## table1") == 1
    assert capsys.readouterr().out.count("table1: exit status") == 1


@pytest.mark.parametrize("blocker", ["table1", "report.md"])
def test_a_path_the_report_needs_that_is_taken_is_refused_before_any_work(
    tmp_path, monkeypatch, capsys, blocker
):
    """DIR/table1 a file, or DIR/report.md a directory: refused at once, where it used to end
    in a FileExistsError traceback, or an IsADirectoryError once every experiment had run."""
    monkeypatch.setattr(report, "run_all", lambda *args: pytest.fail("the experiments started"))
    if blocker == "table1":
        (tmp_path / blocker).write_text("not a directory")
    else:
        (tmp_path / blocker).mkdir()
    assert main(["reproduce", "all", "--out", str(tmp_path), "--only", "table1"]) == 2
    err = capsys.readouterr().err
    assert f"error: --out {tmp_path}: {tmp_path / blocker} is a " in err
    assert "remove or rename it, or give another directory" in err
