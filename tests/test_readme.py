"""The README and the documentation pages stay true: their Python blocks run as a reader pastes
them, and the quick start has two commands.

The blocks of one page run in order, in one namespace, from a scratch directory; each page
(``README.md`` and every ``docs/*.md``) starts a fresh namespace, so a page's blocks must set up
what they use. A page with Python blocks that no test below looks into still runs:
:func:`test_every_python_block_of_the_docs_runs` covers every page.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The pages whose Python blocks run: the README and every Markdown page of the docs.
PAGES = [README, *sorted(DOCS.glob("*.md"))]


def _python_blocks(page: Path) -> list[str]:
    return _python_blocks_in(page.read_text())


def _python_blocks_in(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


#: A Python block, the prose after it starting with "prints", and the text block it announces.
_PRINTS = re.compile(
    r"^```python\n((?:(?!```).)*?)^```\n\n(prints(?:(?!```).)*?)\n\n```text\n(.*?)^```", re.S | re.M
)
#: The comment that marks a printed output as one run's (draws of a sampler): not compared.
_VARIES = "<!-- output varies -->"


def _printed_outputs(page: Path) -> dict[int, str]:
    """The output each Python block of ``page`` is shown to print, by the block's index.

    Only the outputs whose announcing prose lacks the comment ``_VARIES``.
    """
    text = page.read_text()
    blocks = _python_blocks(page)
    shown = {}
    for match in _PRINTS.finditer(text):
        if _VARIES not in match.group(2):
            index = len(_python_blocks_in(text[: match.start()]))
            assert blocks[index] == match.group(1)
            shown[index] = match.group(3)
    return shown


def _paste(page: Path, scratch: Path) -> list[dict]:
    """The namespace after each Python block of ``page``, all run in one namespace.

    Each namespace also holds, under ``"__stdout__"``, what its block printed.
    """
    namespace: dict = {}
    after: list[dict] = []
    cwd = os.getcwd()
    os.chdir(scratch)
    try:
        for i, block in enumerate(_python_blocks(page)):
            name = page.relative_to(ROOT)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(block, f"{name} python block {i + 1}", "exec"), namespace)
            after.append(dict(namespace, __stdout__=printed.getvalue()))
    finally:
        os.chdir(cwd)
    return after


_PASTED: dict[Path, list[dict]] = {}


@pytest.fixture
def pasted(tmp_path_factory):
    """``pasted(page)``: the namespaces of ``page``'s blocks, run once per test session."""

    def run(page: Path) -> list[dict]:
        if page not in _PASTED:
            _PASTED[page] = _paste(page, tmp_path_factory.mktemp(page.stem))
        return _PASTED[page]

    return run


def test_pages_have_the_blocks_these_tests_check():
    assert len(_python_blocks(README)) >= 1
    for name in ("vsk", "workflow", "jumps"):
        assert len(_python_blocks(DOCS / f"{name}.md")) >= 1, name


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_python_block_of_the_docs_runs(page, pasted):
    assert len(pasted(page)) == len(_python_blocks(page))


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _same_output(printed: str, shown: str) -> bool:
    """Whether ``printed`` is the ``shown`` output: the same words, and every number within
    1e-3 relative (1e-6 of the block's largest number absolute), as the last digits of a fit
    move with the CPU and BLAS. Blank space is not compared."""
    words = [_NUMBER.sub("#", line).split() for line in (printed, shown)]
    if words[0] != words[1]:
        return False
    got, want = (np.array(_NUMBER.findall(t), dtype=float) for t in (printed, shown))
    scale = np.max(np.abs(want), initial=0.0)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-3, atol=1e-6 * scale))


def _pages_with_outputs() -> list[Path]:
    return [page for page in PAGES if _printed_outputs(page)]


@pytest.mark.parametrize("page", _pages_with_outputs(), ids=lambda p: p.name)
def test_shown_outputs_are_what_the_blocks_print(page, pasted):
    """A block followed by "prints" and a text block prints that text (up to the last digits);
    outputs that vary from run to run (a sampler's draws) carry the comment ``_VARIES``."""
    after = pasted(page)
    for index, shown in _printed_outputs(page).items():
        printed = after[index]["__stdout__"]
        assert _same_output(printed, shown), f"block {index + 1} prints\n{printed}\nnot\n{shown}"


def test_outputs_that_differ_in_a_word_or_beyond_the_last_digits_are_told_apart():
    shown = "logp -57.314 (ls=0.06447; 6 start(s))\n[2.99434901 0.01178237]"
    assert _same_output("logp  -57.3141 (ls=0.064471; 6 start(s))\n[2.994349 0.011782]", shown)
    assert not _same_output("logp -57.314 (ls=0.06447; 5 start(s))\n[2.99434901 0.01178237]", shown)
    assert not _same_output("logp -57.314 (ls=0.0650; 6 start(s))\n[2.99434901 0.01178237]", shown)
    assert not _same_output("logp -57.314 (ls=0.06447; 6 start(s))\n[2.99434901]", shown)
    assert not _same_output("logp -57.314 (sigma=0.06447; 6 start(s))\n[2.99 0.01]", shown)


def _rmse_to_jump(mean: np.ndarray) -> float:
    from pymc_vsk import targets

    x = np.linspace(0, 1, len(mean))
    return float(np.sqrt(np.mean((mean - targets.jump(x)) ** 2)))


def test_readme_example_fits_the_jump(pasted):
    pred = pasted(README)[-1]["pred"]
    assert pred.mean.shape == pred.std_y.shape == (200,)
    assert np.all(pred.std_y > 0)
    assert _rmse_to_jump(pred.mean) < 0.35  # the VSK fit of Table 3 is ≈ 0.14


def test_vsk_page_example_fits_the_jump_in_a_plain_pymc_model(pasted):
    ns = pasted(DOCS / "vsk.md")[-1]
    mean, var = ns["mean"], ns["var"]
    assert mean.shape == var.shape == (200,)
    assert _rmse_to_jump(mean) < 0.35


def test_everyday_workflow_predicts_from_a_reloaded_trace(pasted):
    ns = pasted(DOCS / "workflow.md")[-1]
    pred, lower, upper = ns["pred"], ns["lower"], ns["upper"]
    assert pred.mean.shape == lower.shape == (200,) and ns["draws"].shape == (10, 200)
    assert np.all(lower < pred.mean) and np.all(pred.mean < upper)
    assert _rmse_to_jump(pred.mean) < 0.35


def test_jump_detection_page_reports_a_location(pasted):
    ns = pasted(DOCS / "jumps.md")[-1]
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


def test_readme_links_into_the_docs_resolve():
    links = re.findall(r"\]\(((?:docs|notebooks)/[^)#]+)", README.read_text())
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"
