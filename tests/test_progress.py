"""Progress on stderr: the module :mod:`pymc_vsk.progress`, and every long ``reproduce`` command.

The unit tests check the messages (steps, MAP starts, compilations), where they go (nowhere
unless asked, :func:`~pymc_vsk.progress.show`, :func:`~pymc_vsk.progress.quiet`, the
application's logging) and the throttling of detail lines with a fake clock.

The command tests run ``pymc-vsk reproduce NAME`` for every experiment with small sizes, then
again with ``--quiet``, in a child process (through the command's entry point
:func:`pymc_vsk.cli.main`, one run after the other, so the imports are paid once), and
time-stamp every line of its stdout and stderr as it arrives (the child is unbuffered). No
computation is timed; the checks are about order, plus one interval in which the program
does no real work:

* the command writes its own start line as soon as the imports are done (its first line on
  stderr, unless the imports warn about something); the experiment's description follows it
  within 2 s (between the two the program only enters the experiment: no model is built and
  nothing is compiled);
* progress comes before results: the description arrives before the end of the first
  compilation (``compiled in … s``, when the Numba cache is cold), the first step line
  ``[1/n]`` before the first line of stdout;
* every step of the sweep is reported, ``[1/n]`` … ``[n/n]`` in order;
* with ``--quiet`` stderr is empty and stdout is the same but for the measured times.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

from pymc_vsk import build_model, fit_map, progress, targets
from pymc_vsk.scaling import Jump

STEP = re.compile(r"^\[\s*(\d+)/(\d+)\] ")
#: Seconds written by the experiments on stdout (their own timings), masked for comparison.
SECONDS = re.compile(r"\d+\.\d+ s\b")


@pytest.fixture(autouse=True)
def restore_logging():
    """Leave the ``pymc_vsk`` and ``pymc`` loggers and the quiet switch as they were."""
    logger = logging.getLogger(progress.LOGGER_NAME)
    pymc_logger = logging.getLogger("pymc")
    saved = (logger.level, list(logger.handlers), pymc_logger.level, progress._quiet)
    yield
    logger.setLevel(saved[0])
    logger.handlers[:] = saved[1]
    pymc_logger.setLevel(saved[2])
    progress._quiet = saved[3]


def messages(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == progress.LOGGER_NAME]


# -- the module -------------------------------------------------------------------------------
def test_steps_report_the_title_then_each_step_with_its_count(caplog):
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)
    steps = progress.Steps(12, "fitting twelve things")
    for label in ("a", "b", "c"):
        steps.step(label)
    assert messages(caplog) == ["fitting twelve things", "[ 1/12] a", "[ 2/12] b", "[ 3/12] c"]


def test_show_writes_one_line_per_message_to_its_stream_and_restores_the_setup():
    logger = logging.getLogger(progress.LOGGER_NAME)
    before = (logger.level, list(logger.handlers))
    buffer = io.StringIO()
    with progress.show(buffer):
        progress.report("compiling")
        progress.Steps(2).step("stationary")
    assert buffer.getvalue() == "compiling\n[1/2] stationary\n"
    assert (logger.level, list(logger.handlers)) == before


def test_show_works_as_a_call_undone_by_restore():
    buffer = io.StringIO()
    switch = progress.show(buffer)
    progress.report("one")
    switch.restore()
    progress.report("two")
    assert buffer.getvalue() == "one\n"


def test_quiet_silences_messages_pymc_info_and_progress_bars():
    buffer = io.StringIO()
    pymc_logger = logging.getLogger("pymc")
    with progress.show(buffer):
        assert progress.bars()
        with progress.quiet():
            progress.report("hidden")
            progress.Steps(3, "hidden too").step("and this")
            assert not progress.bars()
            assert not pymc_logger.isEnabledFor(logging.INFO)
            logging.getLogger("pymc_vsk").warning("warnings still show")
        progress.report("shown again")
        assert progress.bars()
    assert buffer.getvalue() == "warnings still show\nshown again\n"


def test_the_library_is_silent_unless_asked_and_show_writes_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(logging.root, "handlers", [])  # an application without logging set-up
    logger = logging.getLogger(progress.LOGGER_NAME)
    logger.handlers[:] = []
    logger.setLevel(logging.NOTSET)
    progress.report("compiling the model (once) …")
    progress.Steps(1, "a sweep").step("its step")
    assert capsys.readouterr().err == ""
    with progress.show():
        progress.report("compiling the model (once) …")
    captured = capsys.readouterr()
    assert captured.err == "compiling the model (once) …\n"
    assert captured.out == ""


def test_configured_logging_receives_records_and_nothing_goes_to_stderr(caplog, capsys):
    # pytest configures logging (handlers on the root logger), as an application would
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)
    progress.report("a record")
    assert messages(caplog) == ["a record"]
    assert capsys.readouterr().err == ""


def test_detail_lines_are_dropped_within_the_interval_after_the_last_line():
    now = [0.0]
    throttle = progress._Throttle(1.0, clock=lambda: now[0])

    def passes(at: float, detail: bool) -> bool:
        now[0] = at
        record = logging.LogRecord("pymc_vsk", logging.INFO, "", 0, "m", None, None)
        record.progress_detail = detail
        return throttle.filter(record)

    assert passes(0.0, False)  # a step line
    assert not passes(0.3, True)  # MAP start right after it
    assert passes(1.4, True)  # a slow start: more than 1 s since the last line
    assert not passes(2.0, True)
    assert passes(2.1, False)  # ordinary lines always pass
    assert not passes(2.5, True)
    assert passes(3.2, True)


def test_a_compilation_is_announced_with_its_duration_only_when_it_lasts(caplog):
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)
    slow = progress._Compilation(delay=0.0)
    slow.begin()
    slow.end()
    assert messages(caplog)[0] == "compiling the model (once) …"
    assert re.fullmatch(r"compiled in \d+\.\d s", messages(caplog)[1])
    caplog.clear()
    fast = progress._Compilation(delay=60.0)
    fast.begin()
    fast.end()
    assert messages(caplog) == []


def test_the_announcement_comes_from_a_timer_while_the_compilation_runs(caplog):
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)
    compilation = progress._Compilation(delay=0.01)
    compilation.begin()
    deadline = time.monotonic() + 60
    while not messages(caplog) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert messages(caplog) == ["compiling the model (once) …"]
    compilation.end()
    assert len(messages(caplog)) == 2 and messages(caplog)[1].startswith("compiled in ")


def test_numba_compilations_of_pytensor_graphs_are_announced_and_others_not(caplog, monkeypatch):
    numba = pytest.importorskip("numba")
    progress.announce_compilation()
    progress.announce_compilation()  # idempotent: one listener
    monkeypatch.setattr(progress._announcer.compilation, "delay", 0.0)
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)

    @numba.njit
    def not_pytensor(a):
        return a + 1.0

    not_pytensor(1.0)
    assert messages(caplog) == []
    x = pt.dvector("x")
    constant = float(np.random.default_rng().uniform(1, 2))  # a new graph: not in the cache
    fn = pytensor.function([x], pt.exp(x) * constant, mode="NUMBA")
    np.testing.assert_allclose(fn(np.zeros(2)), [constant, constant])
    said = messages(caplog)
    assert said and len(said) % 2 == 0  # one pair per top-level compilation
    assert all(m == "compiling the model (once) …" for m in said[::2])
    assert all(re.fullmatch(r"compiled in \d+\.\d s", m) for m in said[1::2])


def test_fit_map_reports_each_start_as_a_detail(caplog):
    X = targets.halton_nodes(12)
    model, _ = build_model(X, targets.jump(X), psi=Jump(0.5))
    caplog.set_level(logging.INFO, logger=progress.LOGGER_NAME)
    fit_map(model, n_starts=3, warn=False)
    starts = [r for r in caplog.records if r.getMessage().startswith("MAP start")]
    assert [r.getMessage() for r in starts] == [f"MAP start {i} of 3" for i in (1, 2, 3)]
    assert all(r.progress_detail for r in starts)


# -- the commands -----------------------------------------------------------------------------
#: Experiment -> small options (the paper's sizes take minutes).
SMALL = {
    "table1": [],
    "table2": ["--seeds", "1"],
    "table3": ["--seeds", "1"],
    "figure4": ["--seeds", "1", "--n-max", "50"],
    "figure7": ["--n-nodes", "20", "--k-vsk", "0", "--grid", "6"],
    "figure9": ["--seeds", "1", "--n-max", "31"],
    "figure13": ["--seeds", "1"],
}
#: Experiments that write files take a directory.
WRITES = {"figure4", "figure7", "figure9"}
#: Written on both streams after each run, with its exit status.
SEPARATOR = "=== run done, status"
#: The child: the command's entry point (what ``pymc-vsk`` and ``python -m pymc_vsk`` call)
#: for each argument list in turn, in one process, so the imports are paid once.
CHILD = f"""
import json, sys
from pymc_vsk.cli import main
for argv in json.loads(sys.argv[1]):
    status = main(argv)
    for stream in (sys.stdout, sys.stderr):
        print("{SEPARATOR}", status, file=stream, flush=True)
"""

Lines = list[tuple[float, str]]


def run(runs: list[list[str]]) -> tuple[int, list[Lines], list[Lines], list[int]]:
    """Run the command for each argument list in a child; its stdout and stderr per run.

    Every line is time-stamped by the parent as it arrives (the child is unbuffered).

    Returns
    -------
    exit code of the child, stdout lines per run, stderr lines per run, status per run
    """
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(runs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        encoding="utf-8",
    )
    lines: dict[str, Lines] = {"out": [], "err": []}

    def read(stream, key: str) -> None:
        for line in stream:
            lines[key].append((time.monotonic(), line.rstrip("\n")))

    readers = [
        threading.Thread(target=read, args=(child.stdout, "out")),
        threading.Thread(target=read, args=(child.stderr, "err")),
    ]
    for reader in readers:
        reader.start()
    code = child.wait()
    for reader in readers:
        reader.join()

    def split(stream: Lines) -> tuple[list[Lines], list[int]]:
        parts: list[Lines] = [[]]
        statuses = []
        for t, line in stream:
            if line.startswith(SEPARATOR):
                statuses.append(int(line.split()[-1]))
                parts.append([])
            else:
                parts[-1].append((t, line))
        return parts, statuses

    out, statuses = split(lines["out"])
    err, _ = split(lines["err"])
    return code, out, err, statuses


def command(name: str, directory) -> list[str]:
    argv = ["reproduce", name, *SMALL[name]]
    return [*argv, "--out", str(directory / name)] if name in WRITES else argv


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    """Every experiment with small sizes, then again with ``--quiet``, in one child process.

    Returns
    -------
    dict
        Experiment -> (status, stdout, stderr) of the normal and of the quiet run.
    """
    directory = tmp_path_factory.mktemp("reproduce")
    runs = [command(name, directory) for name in SMALL]
    code, out, err, statuses = run(runs + [[*argv, "--quiet"] for argv in runs])
    trailing = "\n".join(line for _, line in err[-1])
    assert code == 0 and len(statuses) == 2 * len(SMALL), trailing
    n = len(SMALL)
    return {
        name: ((statuses[i], out[i], err[i]), (statuses[n + i], out[n + i], err[n + i]))
        for i, name in enumerate(SMALL)
    }


@pytest.mark.parametrize("name", list(SMALL))
def test_reproduce_reports_what_it_runs_within_2_s_of_its_start_then_every_step(name, commands):
    (status, out, err), _ = commands[name]
    text = "\n".join(line for _, line in err)
    assert status in (0, 1), text  # 1: a finding of the paper does not show at this size
    assert out and "Traceback" not in text, text

    # the command's start line (after anything the imports may print), then what the
    # experiment runs, at once
    begin = next(i for i, (_, line) in enumerate(err) if line.startswith(f"reproduce {name}: "))
    (started, _), (described, description) = err[begin], err[begin + 1]
    assert not STEP.match(description) and not description.startswith("compil"), text
    assert described - started < 2.0, text

    # every step, in order; progress before results and before any compilation ends
    steps = [(t, STEP.match(line)) for t, line in err if STEP.match(line)]
    total = int(steps[0][1].group(2))
    assert [int(m.group(1)) for _, m in steps] == list(range(1, total + 1)), text
    assert steps[0][0] < out[0][0], text
    compiled = [t for t, line in err if line.startswith("compiled in ")]
    assert all(described < t for t in compiled), text


@pytest.mark.parametrize("name", list(SMALL))
def test_reproduce_quiet_leaves_stderr_empty_and_stdout_unchanged(name, commands):
    (status, out, _), (quiet_status, quiet_out, quiet_err) = commands[name]
    assert quiet_err == []
    assert quiet_status == status
    masked = [SECONDS.sub("… s", line) for _, line in out]
    assert [SECONDS.sub("… s", line) for _, line in quiet_out] == masked


def test_quiet_outlasts_pymcs_own_set_up_when_pymc_is_imported_late():
    """PyMC sets its logger to INFO on its first import: code that imports it later calls
    settle_pymc, which silences it again inside quiet() and leaves it alone otherwise."""
    pymc_logger = logging.getLogger("pymc")
    saved = pymc_logger.level
    try:
        with progress.quiet():
            pymc_logger.setLevel(logging.INFO)  # what ``import pymc`` does
            progress.settle_pymc()
            assert pymc_logger.level == logging.WARNING
        with progress.show(io.StringIO()):
            pymc_logger.setLevel(logging.INFO)
            progress.settle_pymc()
            assert pymc_logger.level == logging.INFO
    finally:
        pymc_logger.setLevel(saved)


def _stderr_of(script: str) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_quiet_before_pymc_is_imported_keeps_its_info_lines_away():
    """A script that starts with ``progress.quiet()`` imports PyMC later (the package's names
    load on use), and PyMC's import set its logger back to INFO: "Initializing NUTS ..." and
    "Sequential sampling ..." reached stderr."""
    sample = (
        "import pymc as pm\n"
        "with pm.Model():\n"
        "    pm.Normal('a')\n"
        "    pm.sample(draws=20, tune=20, chains=1, nuts_sampler='pymc', progressbar=False,\n"
        "              compute_convergence_checks=False, random_seed=1)\n"
    )
    quiet = _stderr_of("from pymc_vsk import progress\nprogress.quiet()\n" + sample)
    assert "Initializing NUTS" not in quiet and "Sequential sampling" not in quiet, quiet
    loud = _stderr_of(sample)  # PyMC's own set-up, for reference
    assert "Initializing NUTS" in loud and "Sequential sampling" in loud, loud
    configured = _stderr_of(  # logging set up after quiet(): PyMC's records go there, once
        "import logging\nfrom pymc_vsk import progress\nprogress.quiet()\n"
        "logging.basicConfig(format='ROOT %(message)s')\nimport pymc\n"
        "logging.getLogger('pymc').warning('a warning')\n"
    )
    assert configured.splitlines() == ["ROOT a warning"], configured


def test_show_announces_the_first_nutpie_compilation():
    """nutpie compiles with Numba, which was not imported yet when the compilation began: the
    first one, the longest a user meets (8 s), was not announced."""
    script = (
        "import numpy as np\n"
        "from pymc_vsk import build_model, progress, targets\n"
        "from pymc_vsk.samplers import compiled_nutpie\n"
        "from pymc_vsk.scaling import Jump\n"
        "progress.show()\n"
        "X = targets.halton_nodes(20)\n"
        "ls = float(np.random.default_rng().uniform(0.1, 0.3))  # a graph no cache holds\n"
        "model, _ = build_model(X, targets.jump(X), psi=Jump(0.5), ls=ls)\n"
        "compiled_nutpie(model)\n"
    )
    said = _stderr_of(script)
    assert re.search(r"compiling the model \(once\) …\ncompiled in \d+\.\d s", said), said


def test_pymc_imported_inside_quiet_speaks_again_after_it():
    """PyMC imported inside ``with progress.quiet():`` stayed silent for good: the block's
    end put back the level PyMC's logger had before PyMC set it (none), so "Initializing
    NUTS ..." never showed again."""
    said = _stderr_of(
        "from pymc_vsk import progress\n"
        "with progress.quiet():\n"
        "    import pymc as pm\n"
        "with pm.Model():\n"
        "    pm.Normal('a')\n"
        "    pm.sample(draws=20, tune=20, chains=1, nuts_sampler='pymc', progressbar=False,\n"
        "              compute_convergence_checks=False, random_seed=1)\n"
    )
    assert said.count("Initializing NUTS") == 1, said
