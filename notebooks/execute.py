"""Execute the example notebooks at full size and save them with their outputs.

The notebooks are committed executed, so that they read as documentation (on the repository
page and in the documentation site) without running anything. This script is how they are
executed: one at a time, in a fresh kernel of this interpreter, at full size
(``PYMC_VSK_NB_FULL=1``, the default ``PYMC_VSK_NB_DRAWS``), with the seeds the notebooks
fix (``PYMC_VSK_NB_SEED_OFFSET=0``: the same seeds give the same pictures), figures saved as
PNG outputs by matplotlib's inline backend, and one BLAS thread. Run it from the repository
root after changing a notebook:

    python notebooks/execute.py                      # every notebook
    python notebooks/execute.py notebooks/02_*.ipynb # some of them

It prints the wall time of each notebook. Absolute paths of this machine that warnings may
print (the interpreter's prefix, the repository root, the home directory) are replaced by
short placeholders (files of the repository by their path relative to its root) before a
notebook is written, so the stored outputs name no machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Per-cell timeout (s) of a full-size run.
CELL_TIMEOUT = 3600


def kernel_env() -> dict[str, str]:
    """The environment of the notebooks' kernel: full size, fixed seeds, inline figures."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("PYMC_VSK_NB_") and key != "MPLBACKEND"
    }
    return env | {
        "PYMC_VSK_NB_FULL": "1",
        "PYMC_VSK_NB_SEED_OFFSET": "0",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _replacements() -> list[tuple[str, str]]:
    """Machine paths, longest first, and what replaces them in stored outputs."""
    pairs = {
        str(Path(sys.prefix).resolve()): "<python prefix>",
        sys.prefix: "<python prefix>",
        str(Path(sys.base_prefix).resolve()): "<python base prefix>",
        str(ROOT) + os.sep: "",  # files of the repository: paths relative to its root
        str(ROOT): ".",
        str(Path.home()): "~",
    }
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def scrub(text: str) -> str:
    """``text`` with this machine's paths replaced by placeholders."""
    for path, placeholder in _replacements():
        text = text.replace(path, placeholder)
    return text


def scrub_outputs(nb: nbformat.NotebookNode) -> None:
    """Replace machine paths in the text outputs of ``nb``, in place."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            if out.output_type == "stream":
                out.text = scrub(out.text)
            elif out.output_type == "error":
                out.traceback = [scrub(line) for line in out.traceback]
            elif "data" in out:
                for mime in ("text/plain", "text/html", "text/markdown"):
                    if mime in out.data:
                        out.data[mime] = scrub(out.data[mime])


def execute(path: Path) -> float:
    """Execute the notebook at ``path`` in place; returns the wall time in seconds."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute(env=kernel_env())
    elapsed = time.perf_counter() - start
    scrub_outputs(nb)
    nb.metadata.get("language_info", {}).pop("version", None)  # the patch release moves
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    """Execute the notebooks named on the command line (default: all of them)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: all)")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        elapsed = execute(path.resolve())
        print(f"{path.name}: executed in {elapsed:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
