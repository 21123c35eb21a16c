r"""Figures 13–14 (Section 4.4): a VSK against the Gibbs/Paciorek kernel it is locally equal to.

Setup (paper, Section 4.4): f(x) = exp(x) − cos(2πx) on Ω = [−1, 1]
(:func:`pymc_vsk.targets.exp_cos`); N = 9 Chebyshev nodes (roots of T_9, so the centre 0 is
a node); Gaussian noise of std 0.05; squared-exponential base (``pm.gp.cov.ExpQuad``);
constant mean. The stationary GP and the VSK GP with ψ = f are fitted by maximum likelihood
(flat priors, multi-start :func:`pymc_vsk.fit_map`). The Gibbs model then takes the VSK's
ℓ, σ_f, σ_n and mean and the local length scale of Corollary 3.3,
ℓ(x) = ℓ / sqrt(1 + ψ'(x)²) (:meth:`pymc_vsk.gibbs.Gibbs.from_psi`; in 1-D with the Gaussian
base, Gibbs and Paciorek–Schervish coincide).

Reported per model, over noise seeds (median): RMSE, maximum error and average posterior std
on 500 equispaced points, and two measures of oscillation of the posterior mean: the number
of its local extrema (the target has 4 on [−1, 1]) and its total variation relative to the
target's. Figure 13 shows the three reconstructions, Figure 14 the basis functions
k(·, x_c)/k(x_c, x_c) at the central node x_c = 0.

The paper's finding checked here: the Gibbs/Paciorek reconstruction oscillates while the VSK's
does not, and the Gibbs and VSK basis functions agree only near the centre.

All three models are compiled once: the data, and the Gibbs model's hyper-parameters taken
from each VSK fit, are data containers swapped per seed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pymc as pm

from pymc_vsk import plotting, targets
from pymc_vsk.fitting import fit_map
from pymc_vsk.gibbs import Gibbs
from pymc_vsk.metrics import summarize
from pymc_vsk.models import build_model, set_data
from pymc_vsk.paper import harness
from pymc_vsk.paper.harness import add_out_option, add_seeds_option
from pymc_vsk.paper.numbers import SECTION44_NODES, SECTION44_NOISE_STD
from pymc_vsk.prediction import Prediction, predict
from pymc_vsk.progress import Steps
from pymc_vsk.scaling import FromFunction, numeric_value

__all__ = [
    "MODELS",
    "OUTPUT_OPTION",
    "Study",
    "add_arguments",
    "compute",
    "format_table",
    "local_extrema",
    "main",
    "save_figures",
    "total_variation",
]

#: Chebyshev nodes and noise standard deviation of Section 4.4.
N_NODES, NOISE_STD = SECTION44_NODES, SECTION44_NOISE_STD
#: The option by which ``pymc-vsk reproduce figure13`` takes a directory for its figures.
OUTPUT_OPTION = "--out"
KERNEL = "expquad"
MODELS = ("stationary", "vsk", "gibbs")
TITLES = {"stationary": "Stationary", "vsk": "VSK (ψ = f)", "gibbs": "Gibbs/Paciorek"}
CENTRE = 0.0


def local_extrema(values: np.ndarray) -> int:
    """Number of strict local extrema of a sampled curve (sign changes of its differences).

    Parameters
    ----------
    values : array, shape (M,)
        The curve at increasing abscissae.

    Returns
    -------
    int
    """
    d = np.diff(np.asarray(values, dtype=float))
    d = d[d != 0]
    return int(np.sum(d[1:] * d[:-1] < 0))


def total_variation(values: np.ndarray) -> float:
    """``Σ |v_{i+1} − v_i|`` of a sampled curve ``values``, shape (M,)."""
    return float(np.sum(np.abs(np.diff(values))))


@dataclass
class Study:
    """Metrics per model and seed, and the first seed's posteriors and basis functions.

    Attributes
    ----------
    metrics : dict
        Model -> one dict of metrics per seed (RMSE, maximum error, average std, ``extrema``,
        ``tv_ratio``).
    grid : array, shape (500, 1)
        Evaluation points on [−1, 1].
    X : array, shape (9, 1)
        Chebyshev nodes.
    y : array, shape (9,)
        Observations of seed 0.
    predictions : dict
        Model -> prediction on ``grid`` for seed 0.
    basis : dict
        Model -> k(x, 0) / k(0, 0) on ``grid`` for seed 0 (Figure 14).
    vsk_point : dict
        The VSK's MLE for seed 0 (ℓ, σ_f, σ_n, mean), which the Gibbs model takes.
    seconds : float
        Wall time.
    seeds : list of int
        The noise seeds.
    """

    metrics: dict[str, list[dict[str, float]]]
    grid: np.ndarray
    X: np.ndarray
    y: np.ndarray
    predictions: dict[str, Prediction]
    basis: dict[str, np.ndarray]
    vsk_point: dict[str, float]
    seconds: float
    seeds: list[int] = field(default_factory=list)

    def median(self, model: str, key: str) -> float:
        """Median over seeds of metric ``key`` for ``model``."""
        return float(np.median([m[key] for m in self.metrics[model]]))

    def checks(self) -> dict[str, bool]:
        """The paper's finding, per seed: Gibbs oscillates, the VSK does not.

        Returns
        -------
        dict
            Check -> whether it holds.
        """
        target = local_extrema(targets.exp_cos(self.grid))
        gibbs, vsk = self.metrics["gibbs"], self.metrics["vsk"]
        return {
            "VSK mean has the target's number of extrema in every seed": all(
                m["extrema"] == target for m in vsk
            ),
            "Gibbs mean has more than twice the target's extrema in every seed": all(
                m["extrema"] > 2 * target for m in gibbs
            ),
            "Gibbs total variation > 2 x target's in every seed": all(
                m["tv_ratio"] > 2 for m in gibbs
            ),
            "VSK RMSE below Gibbs RMSE in every seed": all(
                v["rmse"] < g["rmse"] for v, g in zip(vsk, gibbs, strict=True)
            ),
        }


def _gibbs_model(X: np.ndarray, y: np.ndarray) -> tuple[pm.Model, pm.gp.Marginal]:
    """Gibbs model whose hyper-parameters are data containers, set from each VSK fit."""
    with pm.Model() as model:
        X_data = pm.Data("X", X)
        y_data = pm.Data("y_data", y)
        ls = pm.Data("ls", 1.0)
        sigma_f = pm.Data("sigma_f", 1.0)
        sigma_n = pm.Data("sigma_n", 0.1)
        mean = pm.Data("mean", 0.0)
        cov = sigma_f**2 * Gibbs.from_psi(FromFunction(targets.exp_cos), ls, kernel=KERNEL)
        gp = pm.gp.Marginal(mean_func=pm.gp.mean.Constant(mean), cov_func=cov)
        gp.marginal_likelihood("y", X=X_data, y=y_data, sigma=sigma_n)
    return model, gp


def compute(seeds: int | Sequence[int] = 5, n_starts: int = 8) -> Study:
    """Fit the three models for every noise seed; the first seed's fits are kept for the figures.

    Parameters
    ----------
    seeds : int or sequence of int, default 5
        Number of noise seeds (0, 1, ...) or the seeds themselves; seed s draws the noise with
        ``np.random.default_rng(s)`` and jitters the MAP starts.
    n_starts : int, default 8
        MAP starts per fit.

    Returns
    -------
    Study
    """
    start = time.perf_counter()
    seed_list = harness.seed_list(seeds)
    steps = Steps(
        1 + 3 * len(seed_list),
        f"fitting the stationary and the VSK GP (ψ = f) to N = {N_NODES} Chebyshev nodes, "
        f"the Gibbs/Paciorek GP from the VSK's fit, {len(seed_list)} noise seed(s)",
    )
    steps.step("making the data and building the three models")
    X = targets.chebyshev_nodes(N_NODES, -1.0, 1.0)
    grid = np.linspace(-1.0, 1.0, 500)[:, None]
    truth = targets.exp_cos(grid)
    tv_target = total_variation(truth)
    y0 = targets.exp_cos(X) + NOISE_STD * np.random.default_rng(seed_list[0]).normal(size=N_NODES)
    psi = FromFunction(targets.exp_cos)
    built = {
        "stationary": build_model(X, y0, kernel=KERNEL, priors="flat", standardize=False),
        "vsk": build_model(X, y0, psi=psi, kernel=KERNEL, priors="flat", standardize=False),
        "gibbs": _gibbs_model(X, y0),
    }
    metrics: dict[str, list[dict[str, float]]] = {m: [] for m in MODELS}
    first: dict[str, Prediction] = {}
    vsk_point: dict[str, float] = {}
    basis: dict[str, np.ndarray] = {}
    for j, seed in enumerate(seed_list):
        y = targets.exp_cos(X) + NOISE_STD * np.random.default_rng(seed).normal(size=N_NODES)
        points = {}
        for name in ("stationary", "vsk"):
            model, _ = built[name]
            steps.step(f"seed {seed}, fitting {name}")
            set_data(model, X, y)
            points[name] = fit_map(model, n_starts=n_starts, seed=seed, warn=False).point
        gibbs_model, _ = built["gibbs"]
        fitted = {k: float(points["vsk"][k]) for k in ("ls", "sigma_f", "sigma_n", "mean")}
        pm.set_data({"X": X, "y_data": y, **fitted}, model=gibbs_model)
        points["gibbs"] = {}
        steps.step(f"seed {seed}, predicting with {', '.join(MODELS)}")
        for name in MODELS:
            model, gp = built[name]
            pred = predict(gp, grid, point=points[name], model=model)
            row = summarize(pred.mean, pred.std_f, truth)
            row["extrema"] = local_extrema(pred.mean)
            row["tv_ratio"] = total_variation(pred.mean) / tv_target
            metrics[name].append(row)
            if j == 0:
                first[name] = pred
        if j == 0:
            vsk_point = fitted
            basis = _basis_functions(built, points, grid)
    return Study(
        metrics,
        grid,
        X,
        y0,
        first,
        basis,
        vsk_point,
        time.perf_counter() - start,
        seed_list,
    )


def _basis_functions(
    built: dict[str, tuple[pm.Model, pm.gp.Marginal]],
    points: dict[str, dict[str, np.ndarray]],
    grid: np.ndarray,
) -> dict[str, np.ndarray]:
    """k(x, x_c) / k(x_c, x_c) at the central node x_c = 0 (Figure 14)."""
    centre = np.array([[CENTRE]])
    out = {}
    for name in MODELS:
        _, gp = built[name]
        values = {k: v for k, v in points[name].items() if not k.endswith("__")}
        k = numeric_value(gp.cov_func(grid, centre), values)[:, 0]
        kc = numeric_value(gp.cov_func(centre), values)[0, 0]
        out[name] = k / kc
    return out


def format_table(study: Study) -> str:
    """The median metrics per model, the basis-function gap and the paper's finding.

    Parameters
    ----------
    study : Study
        The figure13 results to print.

    Returns
    -------
    str
    """
    target = local_extrema(targets.exp_cos(study.grid))
    rows = {
        "rmse": "RMSE",
        "max_error": "Maximum error",
        "mean_std": "Average posterior std",
        "extrema": f"Local extrema of the mean (target: {target})",
        "tv_ratio": "Total variation / target's",
    }
    table = pd.DataFrame(
        {TITLES[m]: [study.median(m, key) for key in rows] for m in MODELS},
        index=list(rows.values()),
    ).rename_axis(columns="metric (median over seeds)")
    p = study.vsk_point
    lines = [
        f"Figure 13: f(x) = exp(x) − cos(2πx) on [−1, 1], N = {N_NODES} Chebyshev nodes, noise "
        f"std {NOISE_STD}, ExpQuad base, MLE; {len(study.seeds)} noise seed(s)",
        f"Gibbs/Paciorek: ℓ(x) = ℓ / sqrt(1 + f'(x)²) with the VSK's fit (seed "
        f"{study.seeds[0]}: ℓ = {p['ls']:.4g}, σ_f = {p['sigma_f']:.4g}, "
        f"σ_n = {p['sigma_n']:.4g}, mean = "
        f"{p['mean']:.4g})",
        harness.text_table(table, ".4g", index=True),
    ]
    near = np.abs(study.grid[:, 0] - CENTRE) <= 0.05
    gap = np.abs(study.basis["vsk"] - study.basis["gibbs"])
    lines.append(
        f"Figure 14: |VSK − Gibbs| basis function at x_c = 0: max {gap[near].max():.3g} within "
        f"0.05 of x_c, max {gap.max():.3g} on [−1, 1]"
    )
    for claim, ok in study.checks().items():
        lines.append(f"finding: {claim}: {'yes' if ok else 'NO'}")
    lines.append(f"3 models built, each compiled once; {study.seconds:.1f} s")
    return "\n".join(lines)


def save_figures(study: Study, out: Path) -> list[Path]:
    """Save Figure 13 (reconstructions) and Figure 14 (basis functions at the central node).

    Parameters
    ----------
    study : Study
        The study of Figures 13–14.
    out : Path
        Directory for the figure13 files, created if needed.

    Returns
    -------
    list of Path
        Figures 13 and 14 as PNG files.
    """
    x = study.grid[:, 0]
    fig13 = plotting.posterior_bands(
        x,
        {m: study.predictions[m].mean for m in MODELS},
        {m: study.predictions[m].std_f for m in MODELS},
        study.X[:, 0],
        study.y,
        truth=targets.exp_cos(study.grid),
        titles=TITLES,
    )
    fig14 = plotting.curves(
        x,
        {TITLES[m]: study.basis[m] for m in MODELS},
        xlabel="x",
        title="Basis functions k(x, 0) / k(0, 0) at the central node",
    )
    return harness.save_figures(
        {"figure13_reconstructions": fig13, "figure14_basis_functions": fig14}, out
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce figure13``: ``--seeds``, ``--out``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce figure13``.
    """
    add_seeds_option(parser, 5)
    add_out_option(parser, None, "Figures 13 and 14")


def main(args: argparse.Namespace) -> int:
    """Print the comparison and save the figures if ``--out`` is given.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk reproduce figure13``.

    Returns
    -------
    int
        Exit status: 1 if the paper's finding (:meth:`Study.checks`) does not show, else 0.
    """
    study = compute(seeds=args.seeds)
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the figures
    saved = [] if args.out is None else save_figures(study, args.out)
    print(format_table(study))
    for path in saved:
        print(f"saved {path}")
    return 0 if all(study.checks().values()) else 1
