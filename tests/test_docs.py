"""The documentation site builds with warnings as errors.

``sphinx-build -W --keep-going -b html`` runs on a copy of ``docs/`` (with the notebooks it
links to copied in), so the build writes nothing into the repository: the API pages generated
from the docstrings, the notebooks shown with their stored outputs (nothing is executed) and the
user guide. A docstring that docutils or numpydoc cannot parse, a cross-reference that does not
resolve (``nitpicky`` is on in ``docs/conf.py``: a reference to a private or undocumented name
fails too, and only the listed names of other libraries are let through), a page missing from
the table of contents or a notebook that is not in the gallery fails the build.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    work = tmp_path_factory.mktemp("docs")
    source = work / "docs"
    ignore = shutil.ignore_patterns("_build", "generated", "jupyter_execute", "execute.py")
    shutil.copytree(DOCS, source, symlinks=False, ignore=ignore)  # notebooks/ copied, not linked
    html = work / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", source, html],
        capture_output=True,
        text=True,
        cwd=work,
    )
    return result, html


def test_docs_build_without_warnings(built):
    result, _ = built
    assert result.returncode == 0, f"sphinx-build -W failed:\n{result.stderr[-6000:]}"


def test_every_notebook_is_a_page_with_its_stored_figures(built):
    _, html = built
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = html / "notebooks" / f"{path.stem}.html"
        assert page.is_file(), f"{path.name} is not in the gallery's table of contents"
        stored = path.read_text().count('"image/png"')
        shown = len(re.findall(r"<img [^>]*src=\"[^\"]*\.png\"", page.read_text()))
        assert shown >= stored >= 1, f"{path.name}: {stored} stored figures, {shown} shown"


def test_api_reference_documents_the_public_names(built):
    """Each name of ``pymc_vsk.__all__`` and ``pymc_vsk.jumps.__all__`` is on the page of the
    module that defines it."""
    import types

    import pymc_vsk
    import pymc_vsk.jumps

    _, html = built
    api = (html / "api.html").read_text()
    public = [(pymc_vsk, name) for name in pymc_vsk.__all__]
    public += [(pymc_vsk.jumps, name) for name in pymc_vsk.jumps.__all__]
    for package, name in public:
        obj = getattr(package, name)
        module = obj.__name__ if isinstance(obj, types.ModuleType) else obj.__module__
        page = html / "generated" / f"{module}.html"
        assert page.is_file() and f"generated/{module}.html" in api, f"{module} has no page"
        if not isinstance(obj, types.ModuleType):
            assert f'id="{module}.{name}"' in page.read_text(), f"{name} is not on {page.name}"


def _github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading (lower case, punctuation dropped)."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_readme_links_to_sections_of_the_docs_resolve():
    """README's links ``docs/PAGE.md#anchor`` name a heading of that page.

    Sphinx checks the anchors between the pages of the site, not those of the README, which
    GitHub renders.
    """
    readme = ROOT / "README.md"
    broken = []
    for page, anchor in re.findall(r"\]\((docs/[^)#\s]+\.md)#([^)\s]+)\)", readme.read_text()):
        headings = re.findall(r"^#+\s+(.*)$", (ROOT / page).read_text(), flags=re.M)
        if anchor not in {_github_anchor(h) for h in headings}:
            broken.append(f"{page}#{anchor}")
    assert not broken, f"README links to sections that do not exist: {broken}"
