"""Units study: does a fit give the same answer when x and y are given in other units?

The paper's jump data (the first 40 unscrambled Halton nodes on [0, 1], the jump target of
Section 4.1, Gaussian noise of standard deviation 0.25, seed 0) are refitted after the change
of units x -> a x + b and y -> c y + d. Each fit is ``build_model`` + ``fit_map`` (default
priors, 8 starts) + ``predict`` on a 200-point grid, with ψ a unit jump at the transformed
location a/2 + b; the predictive mean is mapped back (m - d) / c and compared with the target.
A model that is free of units gives the same RMSE in every row::

    python benchmarks/units.py                 # the default sweep, a table on stdout
    python benchmarks/units.py --csv out.csv   # also write the rows

Columns: the scales a and c, the RMSE of the stationary and the VSK fit against the target,
and the fitted length scale of the VSK divided by a (equal in every row when the length scale
is reported in the user's units).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pymc_vsk import build_model, fit_map, predict, targets
from pymc_vsk.scaling import Jump

#: Scales of x and y swept by default: each pair is fitted with offsets b = 3a, d = -2c.
SCALES = (1.0, 1e-3, 1e-6, 1e3, 1e6)
N_NODES = 40
NOISE = 0.25


def jump_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The paper's jump target at the first 40 Halton nodes, plus seeded Gaussian noise."""
    X = targets.halton_nodes(N_NODES)
    noise = NOISE * np.random.default_rng(seed).normal(size=N_NODES)
    return X, targets.jump(X) + noise


def fit_in_units(a: float, c: float, *, vsk: bool, seed: int = 0) -> dict[str, float]:
    """RMSE, in the original units, of the MAP fit in the units x -> a x + 3a, y -> c y - 2c."""
    X, y = jump_data(seed)
    b, d = 3.0 * a, -2.0 * c
    psi = Jump(a * targets.JUMP_LOCATION + b) if vsk else None
    grid = np.linspace(0.0, 1.0, 200)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, gp = build_model(a * X + b, c * y + d, psi=psi)
        fit = fit_map(model, n_starts=8, seed=0, warn=False)
        pred = predict(gp, a * grid + b, point=fit.point, model=model)
    mean = (pred.mean - d) / c
    ls = float(np.atleast_1d(fit.point["ls"])[0])
    return {
        "rmse": float(np.sqrt(np.mean((mean - targets.jump(grid)) ** 2))),
        "ls_over_a": ls / a,
    }


def sweep(scales: tuple[float, ...] = SCALES) -> pd.DataFrame:
    """One row per (a, c): the x scale swept with c = 1, then the y scale with a = 1."""
    pairs = [(a, 1.0) for a in scales] + [(1.0, c) for c in scales if c != 1.0]
    rows = []
    for a, c in pairs:
        stationary = fit_in_units(a, c, vsk=False)
        vsk = fit_in_units(a, c, vsk=True)
        rows.append(
            {
                "a": a,
                "c": c,
                "rmse_stationary": stationary["rmse"],
                "rmse_vsk": vsk["rmse"],
                "ls_vsk_over_a": vsk["ls_over_a"],
            }
        )
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1), flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, help="write the rows to this CSV file")
    args = parser.parse_args(argv)
    table = sweep()
    print()
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
