r"""Figures 9–12 (Section 4.3): a target with a corner, stationary against VSK, MLE.

The paper states the target, the nodes and the fitting (MLE), but not the kernel, the noise
nor ψ; the choices below are ours and are printed with every run.

* **Target** (:func:`pymc_vsk.targets.corner`) on Ω = [0, 1]:
  f(x) = exp(−½(5(2x − 1) ∓ 0.5)²), − for x ≥ ½, + for x < ½. Since 5(2x − 1) = 10(x − ½),
  ``f(x) = g(|x − ½|)`` with g(s) = exp(−½(10 s − ½)²): two Gaussian bumps of width 1/10 meeting
  in a V-shaped kink at x0 = ½ (slopes ∓5 e^{−1/8} ≈ ∓4.4).
* **Nodes**: N uniform nodes ``linspace(0, 1, N)``, the paper's N ∈ {11 + 20 j : j = 1, …, 39}
  = {31, 51, …, 791} for Figure 9; for these N the corner x0 = ½ is always a node. Figures
  10–12 use N = 21 (corner sampled) and N = 20 (corner not sampled).
* **Noise**: y_i = f(x_i) + ε_i, ε_i ~ N(0, 0.02²) i.i.d. (2 % of the target's range [0, 1]:
  the paper speaks of "treating the corner node as a noisy observation", so the models have a
  fitted σ_n; the noise is small enough for the corner to stay visible above it). Seed s draws
  ε with ``np.random.default_rng(s)``; K seeds, medians reported.
* **Kernel**: Matérn C⁴ (``pm.gp.cov.Matern52``), as in the paper's other MLE comparison
  (Section 4.1.2), with a constant mean (as MATLAB's ``fitrgp``).
* **ψ**: :class:`pymc_vsk.scaling.Corner` with its defaults, ψ(x) =
  A exp(−(sqrt((x − x0)² + ε²) − ε)/δ), x0 = ½, A = 1, δ = 0.1, ε = 10⁻³. The rationale,
  fixed before any fit: f is a smooth function of ``(x, |x − x0|)`` and near x0 ψ is affine in
  ``|x − x0|``, so f is smooth on the lifted curve (x, ψ(x)); δ = 0.1 is the width of the
  target's bumps (the region where the kink shapes f); A = 1 gives the ψ coordinate the range
  of x on Ω = [0, 1], so an isotropic length scale weighs both lifted coordinates alike;
  ε = 10⁻³ rounds the cusp of ψ below the smallest node spacing used (1/790). The local
  length scale ℓ / sqrt(1 + ψ'(x)²) (Corollary 3.3) drops to about ℓ/10 at the corner and
  returns to ℓ within a few δ.
* **Fitting**: ℓ, σ_f, σ_n and the mean by maximum likelihood
  (:class:`~pymc_vsk.paper.harness.MleFitter`: flat priors, several starts, best optimum),
  the stationary model being the same model with ``psi=None``.
* **Metrics** (Section 4): RMSE and maximum error of the posterior mean, average and maximum
  predictive std over ``linspace(0, 1, 500)`` united with the nodes. The "std" of the checks
  is the predictive std of y (noise included), as in Tables 2–3 (``fitrgp``'s ``ysd``); the
  latent std of f is reported beside it.

For each seed the N = 21 and N = 20 fits come first (8 default starts each), then N runs
upward through Figure 9's counts, every fit starting from the previous optimum plus
4 default starts. Each kernel's model is built and compiled once and given new data of any
size with :func:`pymc_vsk.set_data`.

The paper's findings checked here: the VSK reconstructions are more accurate (lower median
RMSE at most N), and the VSK is less uncertain than the stationary model when few data are
given (lower median average std at most N ≤ 111, the first five counts, node spacing
≥ 1/110). The paper's explanation — the stationary model needs more data to stop treating the
sampled corner node as a noisy observation — shows in the fitted σ_n at N = 21, which is
printed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from pymc_vsk import plotting, targets
from pymc_vsk.arrays import check_count
from pymc_vsk.blas import blas_threads
from pymc_vsk.metrics import summarize
from pymc_vsk.paper import harness
from pymc_vsk.paper.harness import Fit, MleFitter, evaluation_grid, seed_list
from pymc_vsk.paper.numbers import FIGURE9_EXAMPLE_NODES, FIGURE9_NODES
from pymc_vsk.progress import Steps
from pymc_vsk.scaling import Corner, ScalingFunction

__all__ = [
    "COLUMNS",
    "FIGURE_NODES",
    "KERNEL",
    "MODELS",
    "NOISE_STD",
    "OUTPUT_OPTION",
    "CornerStudy",
    "Example",
    "add_arguments",
    "compute",
    "corner_is_node",
    "describe_setup",
    "figures",
    "format_summary",
    "main",
    "node_counts",
    "noisy_observations",
    "save",
    "scaling_functions",
]

#: The paper's node counts for Figure 9: N = 11 + 20 j, j = 1, ..., 39.
N_FIRST, N_STEP, N_LAST = FIGURE9_NODES
#: Figures 10 and 11: the corner sampled (N = 21) and not sampled (N = 20).
FIGURE_NODES = FIGURE9_EXAMPLE_NODES
#: The option by which ``pymc-vsk reproduce figure9`` takes a directory for its files.
OUTPUT_OPTION = "--out"
#: "Few data" for the uncertainty finding: the first five counts, N = 31, ..., 111.
SMALL_N_MAX = 111
#: Base kernel (Matérn C⁴), as in Section 4.1.2.
KERNEL = "matern52"
#: Standard deviation of the Gaussian observation noise.
NOISE_STD = 0.02
#: The two models compared, in the paper's column order.
MODELS = ("stationary", "vsk")
TITLES = {"stationary": "stationary Matérn C4", "vsk": "VSK Matérn C4"}
#: Hyper-parameters reported (standard deviations).
PARAMETERS = ("ls", "sigma_f", "sigma_n", "mean")
#: Default starts per fit in the sweep (besides the previous N's optimum) and for N = 20, 21.
N_STARTS = 4
FIGURE_STARTS = 8
#: Default number of noise seeds of the command.
DEFAULT_SEEDS = 5

#: Metric -> panel title of Figure 9, in panel order.
METRICS: dict[str, str] = {
    "rmse": "RMSE",
    "max_error": "Maximum error",
    "mean_std": "Average std (y)",
    "max_std": "Maximum std (y)",
    "mean_std_f": "Average std (f)",
    "max_std_f": "Maximum std (f)",
}
#: Panels with a log-scale y axis.
LOG_METRICS = ("rmse", "max_error", "mean_std", "max_std", "mean_std_f", "max_std_f")
#: Columns of the CSVs besides kernel, N and seed.
COLUMNS = (*PARAMETERS, *METRICS, "n_ls_modes")


def node_counts(n_max: int = N_LAST) -> np.ndarray:
    """N = 31, 51, ..., up to ``n_max`` (the paper's set for ``n_max = 791``).

    Parameters
    ----------
    n_max : int, default 791
        Largest N; at least 31.

    Returns
    -------
    array of int
    """
    return harness.node_counts(N_FIRST, N_STEP, n_max)


def scaling_functions() -> dict[str, ScalingFunction | None]:
    """ψ of each model: none (stationary) and :class:`~pymc_vsk.scaling.Corner` at x0 = ½."""
    return {"stationary": None, "vsk": Corner(x0=targets.JUMP_LOCATION)}


def noisy_observations(X: np.ndarray, seed: int) -> np.ndarray:
    """y = f(x) + ε, ε ~ N(0, 0.02²) i.i.d. drawn by ``np.random.default_rng(seed)``.

    Parameters
    ----------
    X : array, shape (N, 1)
    seed : int

    Returns
    -------
    array, shape (N,)
    """
    return targets.corner(X) + NOISE_STD * np.random.default_rng(seed).standard_normal(len(X))


def corner_is_node(X: np.ndarray) -> bool:
    """Whether x0 = ½ is one of the nodes ``X`` (shape (N, 1)), to rounding."""
    return bool(np.any(np.isclose(X[:, 0], targets.JUMP_LOCATION, rtol=0.0, atol=1e-12)))


def _scores(fit: Fit, truth: np.ndarray) -> dict[str, float]:
    pred = fit.prediction
    scores = summarize(pred.mean, pred.std_y, truth)
    latent = summarize(pred.mean, pred.std_f, truth)
    scores.update(mean_std_f=latent["mean_std"], max_std_f=latent["max_std"])
    return {**fit.params, **scores, "n_ls_modes": len(fit.ls_modes or [])}


@dataclass
class Example:
    """One data set of Figures 10–12 (first seed) and both models' fits.

    Attributes
    ----------
    X, y : array, shapes (N, 1) and (N,)
        Nodes and observations.
    grid : array, shape (M, 1)
        Evaluation points.
    fits : dict
        Model -> :class:`~pymc_vsk.paper.harness.Fit` (prediction at ``grid``).
    train_cov : dict
        Model -> σ_f² κ(X, X) at the MLE, shape (N, N).
    """

    X: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    fits: dict[str, Fit]
    train_cov: dict[str, np.ndarray]

    @property
    def corner_sampled(self) -> bool:
        """Whether the corner x0 = ½ is a node."""
        return corner_is_node(self.X)


@dataclass
class CornerStudy:
    """Figure 9's curves and the N = 21, 20 fits of Figures 10–12.

    Attributes
    ----------
    n_nodes : array, shape (n,)
        Figure 9's node counts.
    figure_nodes : tuple of int
        Node counts of Figures 10–12.
    seeds : list of int
        The noise seeds.
    values : dict
        Model -> column (see :data:`COLUMNS`) -> array, shape (n, k), over N and seeds.
    figure_values : dict
        The same for ``figure_nodes``, shape (len(figure_nodes), k).
    examples : dict
        N in ``figure_nodes`` -> :class:`Example` of the first seed.
    seconds : float
        Wall time, model building and compilation included.
    n_models : int
        Models built (and compiled) for the whole study.
    """

    n_nodes: np.ndarray
    figure_nodes: tuple[int, ...]
    seeds: list[int]
    values: dict[str, dict[str, np.ndarray]]
    figure_values: dict[str, dict[str, np.ndarray]]
    examples: dict[int, Example]
    seconds: float
    n_models: int

    def median(self, model: str, column: str) -> np.ndarray:
        """Median over seeds of ``column`` for ``model`` along Figure 9's N, shape (n,)."""
        return np.median(self.values[model][column], axis=1)

    def figure_median(self, model: str, column: str) -> np.ndarray:
        """Median over seeds of ``column`` for ``model`` at the N of Figures 10–12."""
        return np.median(self.figure_values[model][column], axis=1)

    def vsk_lower(self, column: str) -> np.ndarray:
        """Where the VSK's median ``column`` is below the stationary one, shape (n,)."""
        return self.median("vsk", column) < self.median("stationary", column)

    @property
    def small(self) -> np.ndarray:
        """Mask of the "few data" node counts, N ≤ 111."""
        return self.n_nodes <= SMALL_N_MAX

    def checks(self) -> dict[str, bool]:
        """The paper's findings: VSK more accurate, and less uncertain at small N.

        Returns
        -------
        dict
            Check -> whether it holds.
        """
        n = len(self.n_nodes)
        better = int(self.vsk_lower("rmse").sum())
        out = {f"VSK RMSE lower at most N ({better} of {n})": 2 * better > n}
        m = int(self.small.sum())
        if m:
            calmer = int(self.vsk_lower("mean_std")[self.small].sum())
            out[f"VSK average std lower at most small N ≤ {SMALL_N_MAX} ({calmer} of {m})"] = (
                2 * calmer > m
            )
        return out


def compute(
    n_max: int = N_LAST,
    seeds: int | Sequence[int] = DEFAULT_SEEDS,
    *,
    figure_nodes: Sequence[int] = FIGURE_NODES,
    n_starts: int = N_STARTS,
    figure_starts: int = FIGURE_STARTS,
    blas_thread_limit: int | None = 1,
) -> CornerStudy:
    """Fit both models at N = 21, 20 and along Figure 9's N, for every noise seed.

    Parameters
    ----------
    n_max : int, default 791
        Largest N of the Figure 9 sweep (N = 31, 51, ..., ``n_max``).
    seeds : int or sequence of int, default 5
        Number of seeds (0, 1, ...) or the seeds themselves.
    figure_nodes : sequence of int, default (21, 20)
        Node counts of Figures 10–12.
    n_starts : int, default 4
        Default starts per sweep fit, besides the previous N's optimum.
    figure_starts : int, default 8
        Default starts per fit at ``figure_nodes``.
    blas_thread_limit : int or None, default 1
        See :func:`pymc_vsk.blas.blas_threads`.

    Returns
    -------
    CornerStudy

    Raises
    ------
    TypeError
        ``n_max`` or a count of ``figure_nodes`` not an integer (``1e20``, ``791.0``,
        ``"791"``).
    ValueError
        ``n_max`` below 31, or a count of ``figure_nodes`` below 2.
    MemoryError
        ``n_max`` or ``figure_nodes`` beyond the memory limit
        (:func:`pymc_vsk.memory.check_dense`), checked before any work, as
        ``pymc-vsk reproduce figure9`` checks ``--n-max``.
    """
    ns = node_counts(n_max)  # checked, before any work
    figure_nodes = tuple(check_count(n, "each count of figure_nodes", 2) for n in figure_nodes)
    if figure_nodes:  # the largest is the one that could exceed the limit
        largest = max(figure_nodes)
        harness.check_size(largest, largest + harness.N_GRID, "figure_nodes")
    used = seed_list(seeds)

    def empty(rows: int) -> dict[str, dict[str, np.ndarray]]:
        return {m: {c: np.full((rows, len(used)), np.nan) for c in COLUMNS} for m in MODELS}

    values, figure_values = empty(len(ns)), empty(len(figure_nodes))
    examples: dict[int, Example] = {}
    start = time.perf_counter()
    steps = Steps(
        1 + len(used) * (len(figure_nodes) + len(ns)) * len(MODELS),
        f"fitting the stationary and the VSK GP at N = "
        f"{', '.join(map(str, figure_nodes))} and {harness.describe_counts(ns)}, "
        f"{len(used)} noise seed(s)",
    )
    steps.step("making the data and building the models")
    with blas_threads(blas_thread_limit):
        X0 = targets.uniform_nodes(int(ns[0]))
        y0 = noisy_observations(X0, used[0])
        fitters = {
            m: MleFitter(psi, X0, y0, n_starts, kernel=KERNEL)
            for m, psi in scaling_functions().items()
        }
        for j, seed in enumerate(used):
            previous: dict[str, dict] = {}
            for i, n in enumerate(figure_nodes):
                X = targets.uniform_nodes(n)
                y = noisy_observations(X, seed)
                grid = evaluation_grid(X)
                fits = {}
                for model, fitter in fitters.items():
                    steps.step(f"seed {seed}, N = {n}, {model}")
                    fits[model] = fitter.fit(X, y, grid, seed, n_starts=figure_starts)
                    row = _scores(fits[model], targets.corner(grid))
                    for column in COLUMNS:
                        figure_values[model][column][i, j] = row[column]
                if j == 0:
                    covs = {m: fitters[m].training_covariance(X, f.point) for m, f in fits.items()}
                    examples[n] = Example(X, y, grid, fits, covs)
                previous = {m: _warm(f) for m, f in fits.items()}
            for i, n in enumerate(ns):
                X = targets.uniform_nodes(int(n))
                y = noisy_observations(X, seed)
                grid = evaluation_grid(X)
                for model, fitter in fitters.items():
                    steps.step(f"seed {seed}, N = {n}, {model}")
                    warm = [previous[model]] if model in previous else []
                    fit = fitter.fit(X, y, grid, seed, extra_starts=warm)
                    previous[model] = _warm(fit)
                    row = _scores(fit, targets.corner(grid))
                    for column in COLUMNS:
                        values[model][column][i, j] = row[column]
    return CornerStudy(
        ns,
        figure_nodes,
        used,
        values,
        figure_values,
        examples,
        time.perf_counter() - start,
        len(fitters),
    )


def _warm(fit: Fit) -> dict[str, np.ndarray]:
    return {k: fit.point[k] for k in PARAMETERS}


# -- output -----------------------------------------------------------------------------------
def describe_setup(k: int) -> str:
    """The choices the paper leaves open, as printed by the command.

    Parameters
    ----------
    k : int
        Number of noise seeds.

    Returns
    -------
    str
    """
    psi = scaling_functions()["vsk"]
    return (
        f"Section 4.3, corner at x0 = {targets.JUMP_LOCATION}: uniform nodes on [0, 1], "
        f"Matérn C4 (Matern52) with a constant mean, noise std {NOISE_STD}, MLE (flat priors, "
        f"multi-start fit_map), {k} noise seed(s), medians over seeds\n"
        f"VSK ψ = {psi!r}: ψ(x) = A exp(-(sqrt((x - x0)² + ε²) - ε)/δ); δ = 0.1 is the width "
        "of the target's bumps, A = 1 the range of x (our choice; the paper gives no ψ)\n"
        "std = predictive std of y (noise included); std_f = latent std of f"
    )


def format_summary(study: CornerStudy) -> str:
    """N = 21/20 medians, Figure 9 medians at a few N, the paper's findings and the time.

    Parameters
    ----------
    study : CornerStudy
        The figure9 results to print.

    Returns
    -------
    str
    """
    ns, k = study.n_nodes, len(study.seeds)
    lines = [describe_setup(k), ""]
    columns = ("ls", "sigma_n", "rmse", "max_error", "mean_std", "mean_std_f")
    examples = pd.DataFrame(
        [
            {
                "N": n,
                "corner": "node" if corner_is_node(targets.uniform_nodes(n)) else "no node",
                "model": model,
                **{c: study.figure_median(model, c)[i] for c in columns},
            }
            for i, n in enumerate(study.figure_nodes)
            for model in MODELS
        ]
    )
    lines += ["Figures 10–12 (medians over seeds):", harness.text_table(examples, ".3e")]
    picks = sorted({0, 1, 2, 4, len(ns) // 4, len(ns) // 2, len(ns) - 1} & set(range(len(ns))))
    cols = ("rmse", "mean_std", "mean_std_f")
    sweep = pd.DataFrame(
        {"N": ns[picks]} | {f"{m[:4]} {c}": study.median(m, c)[picks] for c in cols for m in MODELS}
    )
    lines += ["", f"Figure 9: N = {harness.list_counts(ns)} (medians over seeds):"]
    lines.append(harness.text_table(sweep, {c: ".3e" for c in sweep.columns[1:]}))
    ratio = study.median("vsk", "rmse") / study.median("stationary", "rmse")
    lines.append(
        f"RMSE ratio VSK/stationary (medians): {ratio.min():.2f}–{ratio.max():.2f} over N, "
        f"{ratio[0]:.2f} at N = {ns[0]}, {ratio[-1]:.2f} at N = {ns[-1]}"
    )
    std_ratio = study.median("vsk", "mean_std") / study.median("stationary", "mean_std")
    lines.append(
        f"average std ratio VSK/stationary: {std_ratio[0]:.2f} at N = {ns[0]}, "
        f"{std_ratio[-1]:.2f} at N = {ns[-1]}; VSK lower at "
        f"{int(study.vsk_lower('mean_std').sum())} of {len(ns)} N"
    )
    for name, ok in study.checks().items():
        lines.append(f"paper's finding: {name}: {'yes' if ok else 'NO'}")
    n_fits = (len(ns) + len(study.figure_nodes)) * k * study.n_models
    lines.append(
        f"{study.n_models} models built, each compiled once; {n_fits} fits in {study.seconds:.1f} s"
    )
    return "\n".join(lines)


def figures(study: CornerStudy) -> dict[str, Figure]:
    """Figures 9–12 as matplotlib figures, by file stem.

    ``figure9``: the six metric curves against N (median and 10–90 % band over seeds);
    ``figure10_N21`` / ``figure11_N20``: posterior mean ± 2 std of y for the first seed (the
    number follows whether the corner is a node); ``figure12_N21`` / ``figure12_N20``: the
    training matrices σ_f² κ(X, X) at the MLE.

    Parameters
    ----------
    study : CornerStudy
        The figure9 study to draw.

    Returns
    -------
    dict
        File stem -> figure.
    """
    out = {
        "figure9": plotting.metric_curves(
            study.n_nodes, study.values, METRICS, log=LOG_METRICS, titles=TITLES, ncols=3
        )
    }
    for n, example in study.examples.items():
        number = 10 if example.corner_sampled else 11
        titles = {m: f"{TITLES[m]}, N = {n}" for m in MODELS}
        fig = plotting.posterior_bands(
            example.grid[:, 0],
            {m: example.fits[m].prediction.mean for m in MODELS},
            {m: example.fits[m].prediction.std_y for m in MODELS},
            example.X[:, 0],
            example.y,
            truth=targets.corner(example.grid),
            titles=titles,
        )
        for ax in fig.axes:
            ax.axvline(targets.JUMP_LOCATION, color="0.6", lw=0.6, ls=":")
        out[f"figure{number}_N{n}"] = fig
        out[f"figure12_N{n}"] = plotting.covariance_matrices(example.train_cov, titles=titles)
    return out


def save(study: CornerStudy, out: Path) -> list[Path]:
    """Write ``figure9.csv``, ``figures10-11.csv`` and the PNGs of :func:`figures` to ``out``.

    Parameters
    ----------
    study : CornerStudy
        The study of Figures 9–12.
    out : Path
        Directory for the figure9 files, created if needed.

    Returns
    -------
    list of Path
        The CSV files, then the PNG files.
    """
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "figure9.csv": (study.values, study.n_nodes),
        "figures10-11.csv": (study.figure_values, study.figure_nodes),
    }
    paths = [
        harness.write_csv(
            harness.sweep_frame(values, n_nodes, study.seeds, COLUMNS), out / name, COLUMNS
        )
        for name, (values, n_nodes) in tables.items()
    ]
    return [*paths, *harness.save_figures(figures(study), out)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce figure9``: ``--out``, ``--seeds``, ``--n-max``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce figure9``.
    """
    harness.add_out_option(parser, Path("out/figure9"), "the CSV files and the figures")
    harness.add_seeds_option(parser, DEFAULT_SEEDS)
    harness.add_n_max_option(parser, N_FIRST, N_STEP, N_LAST)


def main(args: argparse.Namespace) -> int:
    """Run the study, print its summary, save the CSV files and the figures.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk reproduce figure9``.

    Returns
    -------
    int
        Exit status: 1 if a finding of the paper (:meth:`CornerStudy.checks`) fails, 2 if
        ``--n-max`` is beyond the memory limit (checked before any work), else 0.
    """
    problem = harness.size_problem(args.n_max, args.n_max + harness.N_GRID, "--n-max")
    if problem is not None:
        return harness.refuse("figure9", problem)
    study = compute(args.n_max, args.seeds)
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the study's files
    saved = save(study, args.out)
    print(format_summary(study))
    for path in saved:
        print(f"saved {path}")
    return 0 if all(study.checks().values()) else 1
