r"""Figure 4 (Section 4.1.2): errors and predictive std against the number of nodes, MLE.

The data model is that of Tables 2–3 (:mod:`pymc_vsk.paper.tables2_3`): the target f of
Section 4.1, the first N unscrambled Halton nodes, Gaussian noise of std 0.25, the Matérn C⁴
kernel with a constant mean and maximum-likelihood hyper-parameters
(:class:`~pymc_vsk.paper.harness.MleFitter`); stationary (``psi=None``) against the VSK with
ψ a unit jump at 0.5. N runs over the paper's set {10 + 20 j : j = 1, …, 39} = {30, 50, …, 790}.
Metrics (Section 4) over ``linspace(0, 1, 500)`` united with the nodes; the std curves are the
predictive std of y (noise included), as in Tables 2–3.

For each noise seed, N runs upward and every fit starts from the previous N's optimum plus a
few default starts (those of :func:`~pymc_vsk.fitting.fit_map`, spread over the length
scales), keeping the best optimum.
The noise draws are nested (the first N values do not depend on later ones), so successive
data sets add observations. Each kernel's model is built once and compiled once; later data
sets, of any size, are swapped in with :func:`pymc_vsk.set_data`.

The paper's finding checked here: "the variably scaled setting leads to more accurate
reconstructions and faster error decay than stationary models" — the VSK RMSE is lower at
most N and its log-log slope against N is steeper.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pymc_vsk import plotting, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.metrics import summarize
from pymc_vsk.paper import harness
from pymc_vsk.paper.harness import PARAMETERS, MleFitter, evaluation_grid, seed_list
from pymc_vsk.paper.numbers import FIGURE4_NODES
from pymc_vsk.paper.tables2_3 import MODELS, NOISE_STD, noisy_observations, scaling_functions
from pymc_vsk.progress import Steps

__all__ = [
    "METRICS",
    "OUTPUT_OPTION",
    "Sweep",
    "add_arguments",
    "compute",
    "format_summary",
    "main",
    "node_counts",
    "save",
]

#: The paper's node counts: N = 10 + 20 j, j = 1, ..., 39.
N_FIRST, N_STEP, N_LAST = FIGURE4_NODES
#: The option by which ``pymc-vsk reproduce figure4`` takes a directory for its files.
OUTPUT_OPTION = "--out"
#: Default starts per fit, besides the previous N's optimum.
N_STARTS = 4

#: Metric -> panel title, in panel order.
METRICS: dict[str, str] = {
    "rmse": "RMSE",
    "max_error": "Maximum error",
    "mean_std": "Average std (y)",
    "max_std": "Maximum std (y)",
}
#: Panels with a log-scale y axis.
LOG_METRICS = ("rmse", "max_error")
#: Columns of the CSV besides kernel, N and seed.
COLUMNS = (*PARAMETERS, "mean", *METRICS, "n_ls_modes")


def node_counts(n_max: int = N_LAST) -> np.ndarray:
    """N = 30, 50, ..., up to ``n_max`` (the paper's set for ``n_max = 790``).

    Parameters
    ----------
    n_max : int, default 790
        Largest N; at least 30.

    Returns
    -------
    array of int
    """
    return harness.node_counts(N_FIRST, N_STEP, n_max)


@dataclass
class Sweep:
    """Figure 4's curves.

    Attributes
    ----------
    n_nodes : array, shape (n,)
        The node counts N.
    seeds : list of int
        The noise seeds.
    values : dict
        Model -> column (``ls``, ``sigma_f``, ``sigma_n``, ``mean``, the metrics of
        :data:`METRICS`, ``n_ls_modes``) -> array of shape (n, k) over N and seeds.
    seconds : float
        Wall time of the sweep, model building and compilation included.
    n_models : int
        Models built (and compiled) for the whole sweep.
    """

    n_nodes: np.ndarray
    seeds: list[int]
    values: dict[str, dict[str, np.ndarray]]
    seconds: float
    n_models: int

    def median(self, model: str, column: str) -> np.ndarray:
        """Median over seeds of ``column`` for ``model``, shape (n,)."""
        return np.median(self.values[model][column], axis=1)

    def slope(self, model: str, column: str = "rmse") -> float:
        """Least-squares slope of log(median ``column``) of ``model`` against log N (decay rate).

        NaN for a sweep of one N, through which no line is fitted.
        """
        if len(self.n_nodes) < 2:
            return float("nan")
        return float(np.polyfit(np.log(self.n_nodes), np.log(self.median(model, column)), 1)[0])

    def n_vsk_better(self, column: str = "rmse") -> int:
        """Node counts where the VSK's median ``column`` is below the stationary one."""
        return int(np.sum(self.median("vsk", column) < self.median("stationary", column)))

    def checks(self) -> dict[str, bool]:
        """The paper's finding: VSK errors lower at most N and falling faster.

        Returns
        -------
        dict
            Check -> whether it holds (the slope check needs three N or more).
        """
        n = len(self.n_nodes)
        out = {
            f"VSK RMSE lower at most N ({self.n_vsk_better()} of {n})": 2 * self.n_vsk_better() > n
        }
        if n >= 3:
            out["VSK RMSE falls faster (steeper log-log slope)"] = self.slope("vsk") < self.slope(
                "stationary"
            )
        return out


def compute(
    n_max: int = N_LAST,
    seeds: int | Sequence[int] = 1,
    *,
    n_starts: int = N_STARTS,
    blas_thread_limit: int | None = 1,
) -> Sweep:
    """Fit both models for every N in :func:`node_counts` and every noise seed.

    Parameters
    ----------
    n_max : int, default 790
        Largest N of :func:`node_counts`.
    seeds : int or sequence of int, default 1
        Number of seeds (0, 1, ...) or the seeds themselves.
    n_starts : int, default 4
        Default starts per fit, besides the previous N's optimum.
    blas_thread_limit : int or None, default 1
        See :func:`pymc_vsk.blas.blas_threads`.

    Returns
    -------
    Sweep

    Raises
    ------
    TypeError
        ``n_max`` not an integer (``1e20``, ``790.0``, ``"790"``).
    ValueError
        ``n_max`` below 30.
    MemoryError
        ``n_max`` beyond the memory limit (:func:`pymc_vsk.memory.check_dense`), checked
        before any work, as ``pymc-vsk reproduce figure4`` checks ``--n-max``.
    """
    ns = node_counts(n_max)  # checked, before any work
    used = seed_list(seeds)
    values = {m: {c: np.full((len(ns), len(used)), np.nan) for c in COLUMNS} for m in MODELS}
    start = time.perf_counter()
    steps = Steps(
        1 + len(used) * len(ns) * len(MODELS),
        f"fitting the stationary and the VSK GP at {harness.describe_counts(ns)}, "
        f"{len(used)} noise seed(s)",
    )
    steps.step("making the data and building the models")
    with blas_threads(blas_thread_limit):
        X0 = targets.halton_nodes(int(ns[0]))
        y0 = noisy_observations(X0, used[0])
        fitters = {m: MleFitter(psi, X0, y0, n_starts) for m, psi in scaling_functions().items()}
        for j, seed in enumerate(used):
            previous: dict[str, dict] = {}
            for i, n in enumerate(ns):
                X = targets.halton_nodes(int(n))
                y = noisy_observations(X, seed)
                grid = evaluation_grid(X)
                truth = targets.jump(grid)
                for model, fitter in fitters.items():
                    steps.step(f"seed {seed}, N = {n}, {model}")
                    warm = [previous[model]] if model in previous else []
                    fit = fitter.fit(X, y, grid, seed, extra_starts=warm)
                    previous[model] = {k: fit.point[k] for k in (*PARAMETERS, "mean")}
                    scores = summarize(fit.prediction.mean, fit.prediction.std_y, truth)
                    row = {**fit.params, **scores, "n_ls_modes": len(fit.ls_modes)}
                    for column in COLUMNS:
                        values[model][column][i, j] = row[column]
    return Sweep(ns, used, values, time.perf_counter() - start, len(fitters))


def format_summary(sweep: Sweep) -> str:
    """Median metrics at a few N, decay slopes, the paper's finding and the time.

    Parameters
    ----------
    sweep : Sweep
        The figure4 results to print.

    Returns
    -------
    str
    """
    ns = sweep.n_nodes
    k = len(sweep.seeds)
    picks = sorted({0, len(ns) // 4, len(ns) // 2, len(ns) - 1})
    table = pd.DataFrame(
        {"N": ns[picks]}
        | {f"{m} {c}": sweep.median(m, c)[picks] for c in ("rmse", "max_std") for m in MODELS}
    )
    lines = [
        f"Figure 4: N = {harness.list_counts(ns)} Halton nodes, Matérn C4, "
        f"noise std {NOISE_STD}, MLE ({N_STARTS} default starts + the previous N's optimum), "
        f"{k} noise seed(s); medians over seeds",
        harness.text_table(table, {c: ".3e" for c in table.columns[1:]}),
    ]
    for column in ("rmse", "max_error") if len(ns) >= 2 else ():
        lines.append(
            f"log-log slope of median {column} against N: stationary "
            f"{sweep.slope('stationary', column):.2f}, VSK {sweep.slope('vsk', column):.2f}"
        )
    if len(ns) < 2:
        lines.append(f"log-log slopes need two N or more (--n-max {ns[0] + N_STEP} or more)")
    ratio = sweep.median("vsk", "mean_std") / sweep.median("stationary", "mean_std")
    lines.append(
        f"average std ratio VSK/stationary: {ratio[0]:.2f} at N = {ns[0]}, "
        f"{ratio[-1]:.2f} at N = {ns[-1]}"
    )
    for name, ok in sweep.checks().items():
        lines.append(f"paper's finding: {name}: {'yes' if ok else 'NO'}")
    lines.append(
        f"{sweep.n_models} models built, each compiled once; {len(ns) * k * sweep.n_models} fits "
        f"in {sweep.seconds:.1f} s"
    )
    return "\n".join(lines)


def save(sweep: Sweep, out: Path) -> list[Path]:
    """Write ``figure4.csv`` (one row per kernel, N and seed) and the 2×2 ``figure4.png``.

    Parameters
    ----------
    sweep : Sweep
        The sweep of Figure 4.
    out : Path
        Directory for the figure4 files, created if needed.

    Returns
    -------
    list of Path
        figure4.csv and figure4.png.
    """
    out.mkdir(parents=True, exist_ok=True)
    frame = harness.sweep_frame(sweep.values, sweep.n_nodes, sweep.seeds, COLUMNS)
    csv_path = harness.write_csv(frame, out / "figure4.csv", COLUMNS)
    fig = plotting.metric_curves(
        sweep.n_nodes,
        sweep.values,
        METRICS,
        log=LOG_METRICS,
        titles={"stationary": "stationary Matérn C4", "vsk": "VSK Matérn C4"},
    )
    return [csv_path, *harness.save_figures({"figure4": fig}, out)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce figure4``: ``--out``, ``--seeds``, ``--n-max``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce figure4``.
    """
    harness.add_out_option(parser, Path("out/figure4"), "the CSV file and the figure")
    harness.add_seeds_option(parser, 1)
    harness.add_n_max_option(parser, N_FIRST, N_STEP, N_LAST)


def main(args: argparse.Namespace) -> int:
    """Run the sweep, print its summary, save the CSV file and the figure.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk reproduce figure4``.

    Returns
    -------
    int
        Exit status: 1 if the paper's finding (:meth:`Sweep.checks`) fails, 2 if ``--n-max``
        is beyond the memory limit (checked before any work), else 0.
    """
    problem = harness.size_problem(args.n_max, args.n_max + harness.N_GRID, "--n-max")
    if problem is not None:
        return harness.refuse("figure4", problem)
    sweep = compute(args.n_max, args.seeds)
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the sweep's files
    saved = save(sweep, args.out)
    print(format_summary(sweep))
    for path in saved:
        print(f"saved {path}")
    return 0 if all(sweep.checks().values()) else 1
