"""The jump-detection command run on files, as a user (or a scoring harness) runs it.

``python benchmarks/jumps_command.py`` writes each annotated real series of
``benchmarks/jumps_real.py`` to a CSV file with two columns, ``index`` (the row number: dates
and gaps are lost) and ``value`` (the observations in their own units), runs

    pymc-vsk detect-jumps FILE --x index --y value --json OUT

on it with every other setting at its default (the number of jumps chosen from the data, 4
chains of 1 000 draws), and scores the change points of the JSON answer (each jump's
``location`` rounded up to the first row after it) with F1 (margin 5) and segmentation
covering against the annotations, beside ruptures' PELT and the no-change answer on the same
values (as in ``benchmarks/jumps_real.py``). It prints, per series, the exit status, the
wall time of the whole command (start-up, reading the file, the fit, the diagnostics, the
JSON and the figure), the number of jumps, the scores and ``max_rhat``; then the means of the
series with and without a documented change, the mean difference from PELT with its standard
error, how many exited with status 0 and had ``max_rhat`` ≤ 1.01, and the median time.
``--csv PATH`` writes the per-series table; ``--only NAME`` (repeatable) runs the named
series alone; ``--skip NAME`` leaves one out (``--skip co2``: its 2 225 values take about
3 minutes). ``--seeds N`` runs the command at ``--seed`` 0, 1, ..., N − 1 and prints each
seed's means: the number of jumps is decided on draws of a seed of its own, so only the
places (posterior medians of the reported draws) and the covering move with the seed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import ruptures as rpt

from benchmarks.jumps_real import (
    Series,
    paired_difference,
    penalised,
    real_series,
    save_table,
    score,
    scores_line,
)


def run_command(series: Series, folder: Path, seeds: range) -> list[dict]:
    """The command on one series written once as ``index,value``, at each ``--seed`` of
    ``seeds``; each answer scored (PELT and the no-change answer, which do not depend on the
    seed, are scored once)."""
    data = folder / f"{series.name}.csv"
    pd.DataFrame({"index": np.arange(len(series.y)), "value": series.y}).to_csv(data, index=False)
    pelt = penalised(series.y, rpt.Pelt)
    common = {
        "series": series.name,
        "n": len(series.y),
        "true_k": len(series.annotations[0]),
        "k_pelt": len(pelt),
    }
    common["f1_pelt"], common["cover_pelt"] = score(series, pelt)
    common["f1_zero"], common["cover_zero"] = score(series, [])
    rows = []
    for seed in seeds:
        answer = folder / f"{series.name}_seed{seed}.json"
        command = [sys.executable, "-m", "pymc_vsk", "detect-jumps", str(data)]
        command += ["--x", "index", "--y", "value", "--json", str(answer), "--quiet"]
        command += ["--seed", str(seed)]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if not answer.exists():
            raise RuntimeError(
                f"detect-jumps wrote no answer for {series.name} (exit status "
                f"{done.returncode}):\n" + done.stderr
            )
        result = json.loads(answer.read_text())
        found = [int(np.ceil(jump["location"])) for jump in result["jumps"]]
        row = {
            **common,
            "seed": seed,
            "exit_status": done.returncode,
            "time": seconds,
            "k_vsk": result["n_jumps"],
            "max_rhat": result["diagnostics"]["max_rhat"],
        }
        row["f1_vsk"], row["cover_vsk"] = score(series, found)
        rows.append(row)
    return rows


def summarise(table: pd.DataFrame) -> str:
    """Mean scores with and without a documented change, margins, exit statuses, times
    (with several seeds, each series' scores are first averaged over them)."""
    cols = ["f1_vsk", "cover_vsk", "f1_pelt", "cover_pelt", "f1_zero", "cover_zero"]
    per_series = table.groupby("series", sort=False)[[*cols, "true_k"]].mean()
    groups = {
        "all": per_series,
        "changes": per_series[per_series["true_k"] > 0],
        "none": per_series[per_series["true_k"] == 0],
    }
    lines = []
    for name, part in groups.items():
        if len(part):
            means = part[cols].mean()
            lines.append(
                f"{name:8s} ({len(part):2d} series)  "
                + "  ".join(f"{c} {means[c]:.3f}" for c in cols)
            )
    for name, part in groups.items():
        if len(part):
            lines.append(f"{name:8s} ours - PELT: {paired_difference(part)}")
    if table["seed"].nunique() > 1:
        for seed, part in table.groupby("seed"):
            changes = part[part["true_k"] > 0]
            lines.append(
                f"seed {seed}: all f1_vsk {part['f1_vsk'].mean():.3f} cover_vsk "
                f"{part['cover_vsk'].mean():.3f}; changes f1_vsk {changes['f1_vsk'].mean():.3f} "
                f"cover_vsk {changes['cover_vsk'].mean():.3f}"
            )
    converged = int(((table["exit_status"] == 0) & (table["max_rhat"] <= 1.01)).sum())
    lines.append(
        f"exit status 0 and max_rhat ≤ 1.01 on {converged} of {len(table)} runs; time per "
        f"run (the whole command): median {table['time'].median():.1f} s, max "
        f"{table['time'].max():.1f} s"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--skip", action="append", default=[], metavar="NAME")
    parser.add_argument("--csv", type=Path, help="write the per-series table here")
    parser.add_argument(
        "--seeds", type=int, default=1, help="run the command at seeds 0..N-1 (default 1)"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1; got {args.seeds}")
    real = real_series()
    unknown = set(args.only + args.skip) - {s.name for s in real}
    if unknown:
        parser.error(f"no real series named {', '.join(sorted(unknown))}")
    chosen = [s for s in real if (not args.only or s.name in args.only) and s.name not in args.skip]
    if not chosen:
        parser.error("--only and --skip leave no series to run")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for s in chosen:
            for row in run_command(s, Path(folder), range(args.seeds)):
                rows.append(row)
                print(
                    f"{row['series']:24s} seed {row['seed']} n={row['n']:5d} exit "
                    f"{row['exit_status']}  {row['time']:6.1f} s  {scores_line(row)}  "
                    f"max_rhat {row['max_rhat']:.4f}",
                    flush=True,
                )
    table = pd.DataFrame(rows)
    print(summarise(table))
    save_table(table, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
