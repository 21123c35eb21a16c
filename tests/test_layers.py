"""The three floors: the library, the paper's reproductions on it, the program and studies on top.

Every module of ``pymc_vsk/`` and ``benchmarks/`` is parsed (``ast``, nothing is imported) and
each of its imports, at module level or inside a function, is put on its floor:

* **library**: ``pymc_vsk`` and its modules, but for the two below;
* **paper**: ``pymc_vsk.paper`` and its modules (the reproductions);
* **program**: ``pymc_vsk.cli`` and ``pymc_vsk.__main__``, the ``pymc-vsk`` command that
  assembles ``reproduce`` (paper) and ``detect-jumps`` (library): the top of the package;
* **benchmarks**: the studies in ``benchmarks/``.

A floor may import only from the floors in :data:`ALLOWED`, and the imports among modules
may form no cycle (imports under ``if TYPE_CHECKING:`` are not run and do not count for
cycles). The checker is tested on synthetic trees that break each rule.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pymc_vsk", "benchmarks")

#: Floor -> the floors it may import from.
ALLOWED: dict[str, set[str]] = {
    "library": {"library"},
    "paper": {"library", "paper"},
    "program": {"library", "paper", "program"},
    "benchmarks": {"library", "paper", "benchmarks"},
}
PROGRAM = {"pymc_vsk.cli", "pymc_vsk.__main__"}


def floor(module: str) -> str | None:
    """The floor of a module name; ``None`` outside the project (numpy, pymc, ...)."""
    if module in PROGRAM:
        return "program"
    if module == "pymc_vsk.paper" or module.startswith("pymc_vsk.paper."):
        return "paper"
    if module == "pymc_vsk" or module.startswith("pymc_vsk."):
        return "library"
    if module == "benchmarks" or module.startswith("benchmarks."):
        return "benchmarks"
    return None


def find_modules(root: Path) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of the project's packages under ``root``."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    guarded |= {id(n) for n in ast.walk(child)}
    return guarded


def imports(module: str, path: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """(imported module, line, under TYPE_CHECKING) for every import of a project module.

    ``from a.b import c`` imports ``a.b.c`` when that is a module of the project, else ``a.b``;
    relative imports are resolved against ``module``.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    guarded = _type_checking_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        out += [(t, node.lineno, id(node) in guarded) for t in targets if floor(t)]
    return out


def violations(root: Path) -> list[str]:
    """Every import that runs down-to-up a floor, and every import cycle, as messages."""
    modules = find_modules(root)
    known = set(modules)
    problems = []
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for target, line, type_only in imports(module, path, known):
            here, there = floor(module), floor(target)
            if there not in ALLOWED[here]:
                where = path.relative_to(root)
                problems.append(f"{where}:{line}: {here} module {module} imports {there} {target}")
            if not type_only and target in graph and target != module:
                graph[module].add(target)
    problems += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    return problems


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, set(c)) for c in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A path start -> ... -> start within a strongly connected component."""
    start = min(component)
    path, seen = [start], {start}
    while True:
        nxt = sorted(w for w in graph[path[-1]] if w in component)
        back = [w for w in nxt if w in seen]
        if back:
            return [*path[path.index(back[0]) :], back[0]]
        path.append(nxt[0])
        seen.add(nxt[0])


# -- the project ------------------------------------------------------------------------------
def test_the_project_has_its_floors():
    modules = find_modules(ROOT)
    floors = {floor(m) for m in modules}
    assert floors == {"library", "paper", "program", "benchmarks"}
    assert {"pymc_vsk.paper.numbers", "pymc_vsk.paper.harness", "pymc_vsk.jumps.cli"} <= set(
        modules
    )


def test_no_import_runs_up_a_floor_and_no_import_cycle():
    assert violations(ROOT) == []


# -- the checker, on synthetic trees ------------------------------------------------------------
def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


CLEAN = {
    "pymc_vsk/__init__.py": "from pymc_vsk import core\n",
    "pymc_vsk/core.py": "import numpy as np\n",
    "pymc_vsk/jumps/__init__.py": "from .models import fit\n",
    "pymc_vsk/jumps/models.py": "from pymc_vsk.core import np\ndef fit(): pass\n",
    "pymc_vsk/jumps/cli.py": "from pymc_vsk.jumps.models import fit\n",
    "pymc_vsk/paper/__init__.py": "",
    "pymc_vsk/paper/table1.py": "from pymc_vsk import core\nfrom . import harness\n",
    "pymc_vsk/paper/harness.py": "from pymc_vsk.jumps import fit\n",
    "pymc_vsk/cli.py": "from pymc_vsk.jumps import cli\nfrom pymc_vsk.paper import table1\n",
    "pymc_vsk/__main__.py": "from pymc_vsk.cli import main\n",
    "benchmarks/__init__.py": "",
    "benchmarks/sbc.py": "from benchmarks.study import run\n",
    "benchmarks/study.py": "from pymc_vsk.paper.harness import fit\ndef run(): pass\n",
}


def test_checker_passes_a_clean_tree(tmp_path):
    assert violations(write_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize(
    "name, text, expected",
    [
        # the library reaching up, at module level, inside a function, relatively
        ("pymc_vsk/core.py", "from pymc_vsk.paper import table1\n", "library module"),
        ("pymc_vsk/core.py", "def f():\n    from pymc_vsk.cli import main\n", "imports program"),
        ("pymc_vsk/jumps/models.py", "from ..paper import harness\n", "imports paper"),
        ("pymc_vsk/core.py", "import benchmarks.sbc\n", "imports benchmarks"),
        # the paper reaching up (the report parsing the CLI's parser), or into the studies
        ("pymc_vsk/paper/table1.py", "def f():\n    from pymc_vsk.cli import x\n", "paper"),
        ("pymc_vsk/paper/table1.py", "from benchmarks import study\n", "imports benchmarks"),
        # the studies using the program
        ("benchmarks/study.py", "from pymc_vsk import cli\n", "imports program"),
    ],
)
def test_checker_finds_an_import_up_a_floor(tmp_path, name, text, expected):
    found = violations(write_tree(tmp_path, {**CLEAN, name: text}))
    upward = [f for f in found if not f.startswith("import cycle")]  # a cycle may come with it
    assert len(upward) == 1 and expected in upward[0] and name in upward[0], found


def test_checker_finds_a_cycle_even_through_a_lazy_import(tmp_path):
    cyclic = {
        **CLEAN,
        "pymc_vsk/core.py": "from pymc_vsk import scaling\n",
        "pymc_vsk/scaling.py": "def f():\n    from pymc_vsk.core import g\n",
    }
    found = violations(write_tree(tmp_path, cyclic))
    assert found == ["import cycle: pymc_vsk.core -> pymc_vsk.scaling -> pymc_vsk.core"]


def test_checker_ignores_type_checking_imports_for_cycles_not_for_floors(tmp_path):
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pymc_vsk import core\n"
    tree = {
        **CLEAN,
        "pymc_vsk/core.py": "from pymc_vsk import scaling\n",
        "pymc_vsk/scaling.py": guarded,
    }
    assert violations(write_tree(tmp_path / "a", tree)) == []
    upward = guarded.replace("from pymc_vsk import core", "from pymc_vsk.paper import table1")
    found = violations(write_tree(tmp_path / "b", {**CLEAN, "pymc_vsk/core.py": upward}))
    assert len(found) == 1 and "imports paper" in found[0]


# -- the studies run as scripts -----------------------------------------------------------------
@pytest.mark.parametrize(
    "script", ["sbc.py", "jump_recovery.py", "run.py", "large_n.py", "random_jump.py"]
)
def test_benchmark_scripts_run_as_scripts_from_anywhere(script, tmp_path):
    """``python benchmarks/sbc.py`` imports ``benchmarks.calibration`` whatever the directory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
