"""The README stays true: its Python blocks run in order as a reader pastes them, and its
quick start has two commands."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.fixture(scope="module")
def pasted(tmp_path_factory):
    """Each Python block run in one namespace, in order, from a scratch directory."""
    import os

    namespace: dict = {}
    after: list[dict] = []
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("readme"))
    try:
        for i, block in enumerate(_python_blocks()):
            exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
            after.append(dict(namespace))
    finally:
        os.chdir(cwd)
    return after


def test_readme_has_the_blocks_this_test_checks():
    assert len(_python_blocks()) >= 3


def test_readme_example_runs_and_fits_the_jump(pasted):
    first = pasted[0]
    mean, var = first["mean"], first["var"]
    x = np.linspace(0, 1, 200)
    truth = first["targets"].jump(x)
    assert mean.shape == var.shape == (200,)
    assert np.sqrt(np.mean((mean - truth) ** 2)) < 0.35  # the VSK fit of Table 3 is ≈ 0.14


def test_everyday_workflow_predicts_from_a_reloaded_trace(pasted):
    ns = pasted[1]
    pred, lower, upper = ns["pred"], ns["lower"], ns["upper"]
    assert pred.mean.shape == lower.shape == (200,) and ns["draws"].shape == (10, 200)
    assert np.all(lower < pred.mean) and np.all(pred.mean < upper)
    truth = ns["targets"].jump(np.linspace(0, 1, 200))
    assert np.sqrt(np.mean((pred.mean - truth) ** 2)) < 0.35


def test_jump_detection_block_reports_a_location(pasted):
    ns = pasted[2]
    lo, hi = ns["loc"].interval()
    assert 0.1 <= lo <= hi <= 0.9


def test_quick_start_is_two_commands_that_install_and_test():
    block = re.search(
        r"<!-- quickstart:begin -->(.*?)<!-- quickstart:end -->", README.read_text(), re.S
    )
    lines = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("```")]
    assert len(lines) == 2
    assert "pip install" in lines[0] and "pymc-vsk reproduce" in lines[0]
    assert "pytest" in lines[1]
