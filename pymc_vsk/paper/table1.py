r"""Table 1 (Section 4.1.1): prior-driven behaviour with fixed hyper-parameters.

Setup: target :func:`pymc_vsk.targets.jump` on Ω = [0, 1] (a jump of height 3 at x0 = 0.5;
x = 0.5 belongs to the right branch); Matérn C² (``pm.gp.cov.Matern32``, the kernel MATLAB's
``fitrgp`` calls ``matern32``), ℓ = 1, σ_f = 8, σ_n = 0 (interpolation); N = 6 nodes
``linspace(0, 1, 6)``; ψ a unit jump at 0.5 (only ``|ψ(x) − ψ(x')|`` matters); metrics over
``linspace(0, 1, 500)`` united with the 6 nodes, 504 points
(:func:`pymc_vsk.paper.harness.evaluation_grid`; with the plain 500-point grid RMSE and average
std come out too large by exactly 504/500). With these settings every printed digit of the
paper's Table 1 is reproduced.

The posterior comes from PyMC's own GP conditioning (the conditional of ``pm.gp.Marginal``,
through :func:`pymc_vsk.predict`, which compiles it on pytensor's Python path: PyMC's
``Marginal.predict`` would constant-fold these fixed hyper-parameters with C code compiled on
a first run) with ``jitter=0``: σ_n = 0 means exact interpolation, and PyMC's default 1e-6
nugget would move the average std in the fourth digit.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymc as pm

from pymc_vsk import plotting, targets
from pymc_vsk.covariance import VSK
from pymc_vsk.metrics import METRIC_LABELS, summarize
from pymc_vsk.paper.harness import evaluation_grid, save_figures
from pymc_vsk.paper.numbers import TABLE1, TABLE1_LENGTH_SCALE, TABLE1_NODES, TABLE1_SIGMA_F
from pymc_vsk.prediction import predict
from pymc_vsk.progress import Steps
from pymc_vsk.scaling import Jump

__all__ = [
    "PAPER",
    "Table1Result",
    "add_arguments",
    "compute",
    "covariances",
    "evaluation_grid",
    "format_table",
    "main",
    "save_plots",
]

#: Table 1 as printed in the paper (5 significant digits), :data:`pymc_vsk.paper.numbers.TABLE1`.
PAPER = TABLE1

LENGTH_SCALE = TABLE1_LENGTH_SCALE
SIGMA_F = TABLE1_SIGMA_F
N_NODES = TABLE1_NODES
#: The option by which ``pymc-vsk reproduce table1`` takes a directory for its figures.
OUTPUT_OPTION = "--plot"


@dataclass
class Table1Result:
    """Metrics, the posterior on the evaluation grid and the training covariances.

    Attributes
    ----------
    metrics : dict
        Model (``"stationary"``, ``"vsk"``) -> metric -> value (:func:`pymc_vsk.metrics.summarize`).
    grid : array, shape (504, 1)
        Evaluation points.
    mean, std : dict
        Model -> posterior mean and std of f on ``grid``, shape (504,).
    X : array, shape (6, 1)
        Nodes.
    y : array, shape (6,)
        Observations (noise-free).
    train_cov : dict
        Model -> σ_f² κ(X, X), shape (6, 6).
    """

    metrics: dict[str, dict[str, float]]
    grid: np.ndarray
    mean: dict[str, np.ndarray]
    std: dict[str, np.ndarray]
    X: np.ndarray
    y: np.ndarray
    train_cov: dict[str, np.ndarray]

    def matches(self) -> dict[str, dict[str, bool]]:
        """Whether each number equals the paper's to its printed 5 significant digits."""
        return {
            model: {k: f"{v:.4e}" == PAPER[model][k] for k, v in row.items()}
            for model, row in self.metrics.items()
        }


def covariances() -> dict[str, pm.gp.cov.Covariance]:
    """The stationary and VSK covariance functions of Table 1, σ_f² included.

    Returns
    -------
    dict
        ``"stationary"``: σ_f² Matern32(ℓ); ``"vsk"``: σ_f² Matern32(ℓ) on [x, ψ(x)] (eq. 13).
    """
    return {
        "stationary": SIGMA_F**2 * pm.gp.cov.Matern32(1, ls=LENGTH_SCALE),
        "vsk": SIGMA_F**2
        * VSK(pm.gp.cov.Matern32(2, ls=LENGTH_SCALE), Jump(targets.JUMP_LOCATION)),
    }


def compute() -> Table1Result:
    """Condition both GPs on the 6 nodes and compute the metrics of Table 1.

    Returns
    -------
    Table1Result
    """
    covs = covariances()
    steps = Steps(
        len(covs),
        f"conditioning the stationary and the VSK GP on N = {N_NODES} uniform nodes with "
        f"ℓ = {LENGTH_SCALE:g}, σ_f = {SIGMA_F:g}, σ_n = 0",
    )
    X = targets.uniform_nodes(N_NODES)
    y = targets.jump(X)
    grid = evaluation_grid(X)
    truth = targets.jump(grid)
    metrics, means, stds, train_cov = {}, {}, {}, {}
    for name, cov in covs.items():
        steps.step(name)
        with pm.Model() as model:
            gp = pm.gp.Marginal(cov_func=cov)
            gp.marginal_likelihood("y", X=X, y=y, sigma=0.0, jitter=0.0)
        pred = predict(gp, grid, point={}, model=model, jitter=0.0)
        mean, std = pred.mean, pred.std_f  # var_f clipped at 0: rounding gives ≈ -1e-15 at nodes
        metrics[name] = summarize(mean, std, truth)
        means[name], stds[name] = mean, std
        train_cov[name] = cov(X).eval()
    return Table1Result(metrics, grid, means, stds, X, y, train_cov)


def format_table(result: Table1Result) -> str:
    """Our numbers beside the paper's, with a match column per model.

    Parameters
    ----------
    result : Table1Result
        The table1 results to print.

    Returns
    -------
    str
    """
    ok = result.matches()
    head = f"{'metric':<24}{'stationary':>12}{'paper':>12}{'':>3}{'VSK':>12}{'paper':>12}{'':>3}"
    lines = [
        "Table 1: Matérn C2 (Matern32), ℓ = 1, σ_f = 8, σ_n = 0, N = 6 uniform nodes, "
        "504 evaluation points",
        head,
        "-" * len(head),
    ]
    for key, label in METRIC_LABELS.items():
        cells = []
        for model in ("stationary", "vsk"):
            mark = "ok" if ok[model][key] else "XX"
            cells.append(f"{result.metrics[model][key]:>12.4e}{PAPER[model][key]:>12}{mark:>3}")
        lines.append(f"{label:<24}" + "".join(cells))
    n_ok = sum(v for row in ok.values() for v in row.values())
    lines.append(f"{n_ok} of 8 numbers match the paper to 5 significant digits.")
    return "\n".join(lines)


def save_plots(result: Table1Result, out: Path) -> list[Path]:
    """Save the Figure 1 (posterior mean ± 2 std) and Figure 3 (training covariance) analogues.

    Parameters
    ----------
    result : Table1Result
        The result of Table 1.
    out : Path
        Directory for the table1 files, created if needed.

    Returns
    -------
    list of Path
        Figures 1 and 3 as PNG files.
    """
    titles = {"stationary": "Stationary Matérn C2", "vsk": "VSK Matérn C2"}
    fig1 = plotting.posterior_bands(
        result.grid[:, 0],
        result.mean,
        result.std,
        result.X[:, 0],
        result.y,
        truth=targets.jump(result.grid),
        titles=titles,
    )
    fig3 = plotting.covariance_matrices(result.train_cov, titles=titles)
    return save_figures({"figure1_table1_posterior": fig1, "figure3_table1_covariance": fig3}, out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce table1``: ``--plot DIR``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce table1``.
    """
    parser.add_argument(
        "--plot", metavar="DIR", type=Path, help="save the Figure 1 and Figure 3 analogues in DIR"
    )


def main(args: argparse.Namespace) -> int:
    """Print Table 1 beside the paper.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk reproduce table1``.

    Returns
    -------
    int
        Exit status: 1 if a number does not match the paper's, else 0.
    """
    result = compute()
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the files
    saved = [] if args.plot is None else save_plots(result, args.plot)
    print(format_table(result))
    for path in saved:
        print(f"saved {path}")
    return 0 if all(v for row in result.matches().values() for v in row.values()) else 1
