"""The README stays true: its PyMC example runs and its quick start has two commands."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_example_runs_and_fits_the_jump():
    namespace: dict = {}
    exec(compile(_python_blocks()[0], "README.md", "exec"), namespace)
    mean, var = namespace["mean"], namespace["var"]
    x = np.linspace(0, 1, 200)
    truth = namespace["targets"].jump(x)
    assert mean.shape == var.shape == (200,)
    assert np.sqrt(np.mean((mean - truth) ** 2)) < 0.35  # the VSK fit of Table 3 is ≈ 0.14


def test_quick_start_is_two_commands_that_install_and_test():
    block = re.search(
        r"<!-- quickstart:begin -->(.*?)<!-- quickstart:end -->", README.read_text(), re.S
    )
    lines = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("```")]
    assert len(lines) == 2
    assert "pip install" in lines[0] and "pymc-vsk reproduce" in lines[0]
    assert "pytest" in lines[1]
