r"""Tables 2 and 3 (Section 4.1.2): stationary and VSK Matérn C⁴ with fitted hyper-parameters.

Setup:

* target f of Section 4.1 (:func:`pymc_vsk.targets.jump`) on Ω = [0, 1];
* nodes: the first N = 27 (Table 2) or N = 81 (Table 3) points of the unscrambled base-2
  Halton sequence starting at 0 (MATLAB's ``haltonset`` default, ``scipy.stats.qmc.Halton(d=1,
  scramble=False)``; :func:`pymc_vsk.targets.halton_nodes`), so x = 0.5 is a node;
* observations y_i = f(x_i) + ε_i, ε_i ~ N(0, 0.25²) i.i.d.;
* the model of eq. (15) with a constant mean (as MATLAB's ``fitrgp``) and the Matérn C⁴
  kernel (``pm.gp.cov.Matern52``); the stationary model is ``psi=None``, the VSK uses ψ = a
  unit jump at 0.5 (:class:`pymc_vsk.scaling.Jump`), so the two differ only in ψ;
* hyper-parameters ℓ, σ_f, σ_n (all standard deviations: the paper's "noise variance σ_n"
  rows are standard deviations) by maximum likelihood: :class:`~pymc_vsk.paper.harness.MleFitter`,
  :func:`pymc_vsk.fitting.fit_map` on a flat-prior model from several starts, keeping the
  best optimum. The VSK likelihood is bimodal (:func:`~pymc_vsk.paper.harness.length_scale_modes`):
  started from ``fitrgp``'s default ℓ₀ every fit lands in a long length-scale, high-noise mode
  where the VSK loses (RMSE ratio ≈ 2.5 at N = 81);
* metrics of Section 4 over ``linspace(0, 1, 500)`` united with the nodes (as Table 1); the
  std rows are the predictive std of y, noise included (``fitrgp``'s ``ysd``).

The noise is random, so a single run cannot reproduce the paper's single numbers. The study
repeats the fit over K noise seeds (seed s draws ε with ``np.random.default_rng(s)``) and
reports every row as the median and the 10–90 % band over seeds, the median over seeds of the
per-seed RMSE ratio VSK/stationary, and in how many seeds the VSK has the lower RMSE. Over 20
seeds the medians land close to the paper: RMSE ratio ≈ 0.73–0.76 at N = 27 (paper 0.69) and
≈ 0.53–0.55 at N = 81 (paper 0.57), length scales ≈ 0.06.

``method="nuts"`` replaces the MLE by NUTS on the default weakly-informative priors of
:func:`pymc_vsk.build_model` (flat priors are improper); the metrics then come from the
prediction mixed over the posterior and ℓ, σ_f, σ_n are posterior medians. The sampler is
the one predicted to finish first for N and the number of seeds
(:func:`pymc_vsk.samplers.choose_sampler`: PyMC's for a few seeds at N = 27, nutpie for many),
or the one asked for.

Each kernel's model is built and compiled once and reused for every seed through
:func:`pymc_vsk.set_data` (MAP objective and predictor are cached with the model; the nutpie
model is compiled once and given new data with ``with_data``,
:func:`pymc_vsk.samplers.compiled_nutpie`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pymc_vsk import plotting, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.diagnostics import diagnose
from pymc_vsk.metrics import summarize
from pymc_vsk.models import build_model, set_data
from pymc_vsk.paper.harness import (
    MODE_FACTOR,
    PARAMETERS,
    Fit,
    Fitter,
    MleFitter,
    add_seeds_option,
    evaluation_grid,
    length_scale_modes,
    refuse,
    save_figures,
    seed_list,
)
from pymc_vsk.paper.numbers import JUMP_NOISE_STD, TABLE_NODES, TABLES_2_3
from pymc_vsk.prediction import Prediction, predict
from pymc_vsk.progress import Steps, bars
from pymc_vsk.samplers import SAMPLERS, choose_sampler, compiled_nutpie
from pymc_vsk.scaling import Jump, ScalingFunction

__all__ = [
    "MODELS",
    "NOISE_STD",
    "OUTPUT_OPTION",
    "PAPER",
    "TABLES",
    "Fit",
    "MleFitter",
    "NutsFitter",
    "Study",
    "add_arguments",
    "compute",
    "format_table",
    "length_scale_modes",
    "main",
    "make_fitters",
    "noisy_observations",
    "paper_rmse_ratio",
    "save_plot",
    "scaling_functions",
]

#: Experiment name -> number of Halton nodes.
TABLES: dict[str, int] = TABLE_NODES

#: Base kernel of Section 4.1.2 (Matérn C⁴).
KERNEL = "matern52"
#: Standard deviation of the Gaussian observation noise.
NOISE_STD = JUMP_NOISE_STD
#: The two models compared, in the paper's column order.
MODELS = ("stationary", "vsk")
#: The option by which ``pymc-vsk reproduce table2|table3`` takes a directory for its figure.
OUTPUT_OPTION = "--plot"

#: Row key -> label, in the paper's row order.
ROW_LABELS: dict[str, str] = {
    "ls": "Length scale ℓ",
    "sigma_f": "Signal std σ_f",
    "sigma_n": "Noise std σ_n",
    "rmse": "RMSE",
    "max_error": "Max error",
    "mean_std": "Average std",
    "max_std": "Max std",
}

#: Tables 2 (N = 27) and 3 (N = 81) as printed (:data:`pymc_vsk.paper.numbers.TABLES_2_3`).
PAPER = TABLES_2_3

#: The reproduction check: |median RMSE ratio − paper's| ≤ this ...
RATIO_TOLERANCE = 0.15
#: ... and, where given, the VSK RMSE lower in at least this fraction of seeds (18 of 20).
MIN_WIN_FRACTION: dict[int, float] = {81: 0.9}

#: NUTS settings of ``method="nuts"`` (modest: one run per seed and kernel).
NUTS_DRAWS, NUTS_TUNE, NUTS_CHAINS = 500, 500, 2


def paper_rmse_ratio(n_nodes: int) -> float:
    """The paper's RMSE ratio VSK/stationary (0.69 in Table 2, 0.57 in Table 3).

    Parameters
    ----------
    n_nodes : int
        27 or 81.

    Returns
    -------
    float
    """
    return PAPER[n_nodes]["vsk"]["rmse"] / PAPER[n_nodes]["stationary"]["rmse"]


def scaling_functions() -> dict[str, ScalingFunction | None]:
    """ψ of each model: none (stationary) and a unit jump at x0 = 0.5 (VSK, eq. 13)."""
    return {"stationary": None, "vsk": Jump(targets.JUMP_LOCATION)}


def noisy_observations(X: np.ndarray, seed: int) -> np.ndarray:
    """y = f(x) + ε with ε ~ N(0, 0.25²) i.i.d. drawn by ``np.random.default_rng(seed)``.

    The draws for the first N nodes do not depend on how many nodes follow, so the data sets
    of a sweep over N (Figure 4) are nested, as the Halton nodes are.

    Parameters
    ----------
    X : array, shape (N, 1)
        Nodes.
    seed : int
        Seed of the noise.

    Returns
    -------
    array, shape (N,)
    """
    return targets.jump(X) + NOISE_STD * np.random.default_rng(seed).standard_normal(len(X))


# -- fitting ----------------------------------------------------------------------------------
class NutsFitter:
    """NUTS on the default priors, compiled once and given new data per seed.

    The default priors are scaled to the data the model is built with (those of the first
    seed); for a fixed N the length-scale prior depends on the nodes only.

    Parameters
    ----------
    psi : ScalingFunction or None
        ψ of the VSK; ``None`` for the stationary model.
    X : array, shape (N, 1)
        Nodes (fixed for the study: only the observations change).
    y : array, shape (N,)
        Observations to build the model (and scale its priors) with.
    draws, tune, chains : int
        NUTS draws and tuning steps per chain, and chains.
    sampler : {"nutpie", "pymc"}, optional
        The NUTS sampler; by default the one :func:`pymc_vsk.samplers.choose_sampler`
        predicts to finish ``runs`` fits first.
    runs : int, default 1
        Fits this fitter will make (one per seed), which share nutpie's compilation.
    """

    def __init__(
        self,
        psi: ScalingFunction | None,
        X: np.ndarray,
        y: np.ndarray,
        draws: int = NUTS_DRAWS,
        tune: int = NUTS_TUNE,
        chains: int = NUTS_CHAINS,
        *,
        sampler: str | None = None,
        runs: int = 1,
    ) -> None:
        if sampler is None:
            sampler = choose_sampler(len(X), draws, tune, chains, runs=runs).sampler
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {list(SAMPLERS)}; got {sampler!r}.")
        self.model, self.gp = build_model(
            X, y, psi=psi, kernel=KERNEL, priors="default", standardize=False
        )
        if sampler == "nutpie":
            compiled_nutpie(self.model)  # compiled here, before the first seed's progress
        self.sampler = sampler
        self.draws, self.tune, self.chains = draws, tune, chains
        name = "nutpie" if sampler == "nutpie" else "PyMC's sampler"
        self.description = (
            f"NUTS ({name}): default priors, constant mean, {chains} chains × ({tune} tune + "
            f"{draws} draws); ℓ, σ_f, σ_n are posterior medians, metrics from the "
            "posterior-mixed prediction"
        )

    def fit(self, X: np.ndarray, y: np.ndarray, grid: np.ndarray, seed: int) -> Fit:
        """Sample the posterior given ``(X, y)`` and predict at ``grid``.

        Parameters
        ----------
        X : array, shape (N, 1)
        y : array, shape (N,)
        grid : array, shape (M, 1)
        seed : int
            Seed of the sampler and of the prediction's draws.

        Returns
        -------
        Fit
            Posterior medians, the prediction mixed over the posterior, failed diagnostics.
        """
        set_data(self.model, X, y)  # the predictor reads the model's data containers
        if self.sampler == "nutpie":
            import nutpie  # imported on use: it loads slowly

            idata = nutpie.sample(
                compiled_nutpie(self.model),  # compiled once, given the data just set
                draws=self.draws,
                tune=self.tune,
                chains=self.chains,
                seed=seed,
                progress_bar=bars(),
            )
        else:
            import pymc as pm

            idata = pm.sample(
                draws=self.draws,
                tune=self.tune,
                chains=self.chains,
                random_seed=seed,
                nuts_sampler="pymc",
                progressbar=bars(),
                compute_convergence_checks=False,  # diagnose() below checks them
                model=self.model,
            )
        posterior = idata["posterior"].dataset
        params = {k: float(np.median(posterior[k].values)) for k in (*PARAMETERS, "mean")}
        prediction = predict(self.gp, grid, idata=idata, model=self.model, seed=seed)
        return Fit(params, prediction, None, diagnose(idata).problems)


def make_fitters(
    method: str,
    X: np.ndarray,
    y: np.ndarray,
    n_starts: int = 8,
    *,
    sampler: str | None = None,
    runs: int = 1,
) -> dict[str, Fitter]:
    """One fitter per model (stationary, VSK), each built and compiled once.

    Parameters
    ----------
    method : {"map", "nuts"}
        :class:`~pymc_vsk.paper.harness.MleFitter` or :class:`NutsFitter`.
    X : array, shape (N, 1)
    y : array, shape (N,)
        Data to build the models with.
    n_starts : int, default 8
        MAP starts per fit.
    sampler : {"nutpie", "pymc"}, optional
        NUTS sampler (``method="nuts"``; default: chosen by :class:`NutsFitter`).
    runs : int, default 1
        Fits per fitter (seeds), for the choice of sampler.

    Returns
    -------
    dict
        Model name -> fitter.
    """
    if method == "map":
        return {m: MleFitter(psi, X, y, n_starts) for m, psi in scaling_functions().items()}
    if method == "nuts":
        return {
            m: NutsFitter(psi, X, y, sampler=sampler, runs=runs)
            for m, psi in scaling_functions().items()
        }
    raise ValueError(f"method must be 'map' or 'nuts'; got {method!r}.")


# -- the study --------------------------------------------------------------------------------
@dataclass
class Study:
    """Tables 2/3 over noise seeds.

    Attributes
    ----------
    n_nodes : int
        N.
    seeds : list of int
        The noise seeds.
    method : str
        ``"map"`` or ``"nuts"``.
    description : str
        How the hyper-parameters were inferred.
    values : dict
        Model -> row key (``ls``, ``sigma_f``, ``sigma_n``, ``rmse``, ``max_error``,
        ``mean_std``, ``max_std``: the paper's rows) -> array over seeds.
    flags : dict
        Model -> one list of flags (``flags`` of :class:`~pymc_vsk.paper.harness.Fit`) per
        seed.
    ls_modes : dict
        Model -> per seed, the length-scale modes of the MAP fit (``ls_modes`` of
        :class:`~pymc_vsk.paper.harness.Fit`).
    example : dict
        Grid, data and both models' predictions for the first seed (for the figures).
    seconds : float
        Wall time of the study, compilation included.
    """

    n_nodes: int
    seeds: list[int]
    method: str
    description: str
    values: dict[str, dict[str, np.ndarray]]
    flags: dict[str, list[list[str]]]
    ls_modes: dict[str, list[list[float] | None]]
    example: dict[str, Prediction | np.ndarray | int]
    seconds: float

    def median(self, model: str, row: str) -> float:
        """Median over seeds of ``row`` (a row key of ``values``) for ``model``."""
        return float(np.median(self.values[model][row]))

    def band(self, model: str, row: str) -> tuple[float, float]:
        """10 % and 90 % quantiles over seeds of ``row`` for ``model``."""
        lo, hi = np.quantile(self.values[model][row], [0.1, 0.9])
        return float(lo), float(hi)

    @property
    def rmse_ratio(self) -> np.ndarray:
        """Per-seed RMSE ratio VSK/stationary."""
        return self.values["vsk"]["rmse"] / self.values["stationary"]["rmse"]

    @property
    def median_rmse_ratio(self) -> float:
        """Median over seeds of the per-seed RMSE ratio VSK/stationary."""
        return float(np.median(self.rmse_ratio))

    @property
    def n_vsk_better(self) -> int:
        """Seeds where the VSK RMSE is lower than the stationary one."""
        return int(np.sum(self.rmse_ratio < 1.0))

    def n_two_modes(self, model: str) -> int:
        """Seeds where the MAP starts of ``model`` reached more than one length-scale mode."""
        return sum(len(m or []) > 1 for m in self.ls_modes[model])

    def n_long_mode_best(self, model: str) -> int:
        """Seeds with two length-scale modes where the longer ℓ had the higher likelihood.

        Parameters
        ----------
        model : str
            ``"stationary"`` or ``"vsk"``.

        Returns
        -------
        int
        """
        return sum(len(m or []) > 1 and m[0] == max(m) for m in self.ls_modes[model])

    def checks(self) -> dict[str, bool]:
        """Whether Table 2 or 3 is reproduced, for N = 27 and 81 (none for other N).

        The median RMSE ratio VSK/stationary within 0.15 (``RATIO_TOLERANCE``) of the paper's,
        and at N = 81 the VSK better in at least 90 % of the seeds. The noise differs from the
        paper's single draw, so the check is on the median over seeds; it is set for 20 seeds
        and maximum likelihood.

        Returns
        -------
        dict
            Check -> whether it holds.
        """
        if self.n_nodes not in PAPER:
            return {}
        out = {
            f"median RMSE ratio within ±{RATIO_TOLERANCE} of the paper's": abs(
                self.median_rmse_ratio - paper_rmse_ratio(self.n_nodes)
            )
            <= RATIO_TOLERANCE
        }
        if self.n_nodes in MIN_WIN_FRACTION:
            fraction = MIN_WIN_FRACTION[self.n_nodes]
            need = int(np.ceil(fraction * len(self.seeds) - 1e-9))
            out[f"VSK RMSE lower in at least {need} of {len(self.seeds)} seeds"] = (
                self.n_vsk_better >= need
            )
        return out


def compute(
    n_nodes: int,
    seeds: int | Sequence[int] = 20,
    method: str = "map",
    *,
    n_starts: int = 8,
    blas_thread_limit: int | None = 1,
    sampler: str | None = None,
) -> Study:
    """Fit both models to ``n_nodes`` Halton nodes for every noise seed.

    Parameters
    ----------
    n_nodes : int
        27 for Table 2, 81 for Table 3 (any N ≥ 2 works).
    seeds : int or sequence of int, default 20
        Number of seeds (0, 1, ...) or the seeds themselves.
    method : {"map", "nuts"}, default "map"
        Maximum likelihood (:class:`~pymc_vsk.paper.harness.MleFitter`) or NUTS.
    n_starts : int, default 8
        MAP starts per fit.
    blas_thread_limit : int or None, default 1
        See :func:`pymc_vsk.blas.blas_threads`.
    sampler : {"nutpie", "pymc"}, optional
        NUTS sampler (``method="nuts"``); by default the one predicted to finish all seeds
        first (:func:`pymc_vsk.samplers.choose_sampler`).

    Returns
    -------
    Study
    """
    used = seed_list(seeds)
    how = "maximum likelihood" if method == "map" else "NUTS"
    steps = Steps(
        1 + len(used) * len(MODELS),
        f"fitting the stationary and the VSK GP by {how} to N = {n_nodes} Halton nodes, "
        f"{len(used)} noise seed(s)",
    )
    steps.step("making the data and building the models")
    X = targets.halton_nodes(n_nodes)
    grid = evaluation_grid(X)
    truth = targets.jump(grid)
    start = time.perf_counter()
    with blas_threads(blas_thread_limit):
        y0 = noisy_observations(X, used[0])
        fitters = make_fitters(method, X, y0, n_starts, sampler=sampler, runs=len(used))
        rows: dict[str, dict[str, list[float]]] = {m: {k: [] for k in ROW_LABELS} for m in MODELS}
        flags: dict[str, list[list[str]]] = {m: [] for m in MODELS}
        modes: dict[str, list[list[float] | None]] = {m: [] for m in MODELS}
        example: dict[str, Prediction | np.ndarray | int] = {}
        for seed in used:
            y = noisy_observations(X, seed)
            for model, fitter in fitters.items():
                steps.step(f"seed {seed}, {model}")
                fit = fitter.fit(X, y, grid, seed)
                scores = summarize(fit.prediction.mean, fit.prediction.std_y, truth)
                for key, value in {**fit.params, **scores}.items():
                    if key in ROW_LABELS:
                        rows[model][key].append(value)
                flags[model].append(fit.flags)
                modes[model].append(fit.ls_modes)
                if seed == used[0]:
                    example[model] = fit.prediction
        example.update(grid=grid, X=X, y=noisy_observations(X, used[0]), seed=used[0])
    values = {m: {k: np.asarray(v) for k, v in r.items()} for m, r in rows.items()}
    description = fitters["vsk"].description
    return Study(
        n_nodes,
        used,
        method,
        description,
        values,
        flags,
        modes,
        example,
        time.perf_counter() - start,
    )


# -- output -----------------------------------------------------------------------------------
def _fmt(row: str, value: float) -> str:
    return f"{value:.4f}" if row in PARAMETERS else f"{value:.3e}"


def format_table(study: Study) -> str:
    """The table, each model as median and 10–90 % band over seeds beside the paper.

    Parameters
    ----------
    study : Study
        The table2|table3 results to print.

    Returns
    -------
    str
    """
    n = study.n_nodes
    title = {v: f"Table {k[-1]}" for k, v in TABLES.items()}.get(n, "Jump study")
    k = len(study.seeds)
    seeds = _describe_seeds(study.seeds)
    head = (
        f"{'':<16}{'stationary':>11}{'10–90 % band':>24}{'paper':>11}"
        f"{'VSK':>14}{'10–90 % band':>24}{'paper':>11}"
    )
    lines = [
        f"{title}: N = {n} Halton nodes, Matérn C4 (Matern52), noise std {NOISE_STD}, "
        f"{k} noise seed(s) ({seeds}), {len(study.example['grid'])} evaluation points",
        study.description + "; std rows: predictive std of y (noise included)",
        head,
        "-" * len(head),
    ]
    for row, label in ROW_LABELS.items():
        cells = []
        for model in MODELS:
            lo, hi = study.band(model, row)
            band = f"[{_fmt(row, lo)}, {_fmt(row, hi)}]"
            gap = 3 if model == "vsk" else 0
            cells.append(
                f"{'':>{gap}}{_fmt(row, study.median(model, row)):>11}{band:>24}"
                f"{_fmt(row, PAPER[n][model][row]) if n in PAPER else '–':>11}"
            )
        lines.append(f"{label:<16}" + "".join(cells))
    lines.append("-" * len(head))
    lines += _summary_lines(study)
    return "\n".join(lines)


def _describe_seeds(seeds: Sequence[int]) -> str:
    """``"seed 3"``, ``"seeds 0–19"`` for a run of consecutive seeds, else the first five listed.

    Examples
    --------
    >>> _describe_seeds([0, 1, 2]), _describe_seeds([0, 3]), _describe_seeds([3, 1])
    ('seeds 0–2', 'seeds 0, 3', 'seeds 3, 1')
    """
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if list(seeds) == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}–{seeds[-1]}"
    shown = ", ".join(map(str, seeds[:5]))
    return f"seeds {shown}" + (", …" if len(seeds) > 5 else "")


def _summary_lines(study: Study) -> list[str]:
    n, k = study.n_nodes, len(study.seeds)
    lo, hi = np.quantile(study.rmse_ratio, [0.1, 0.9])
    paper = f"; paper {paper_rmse_ratio(n):.3f}" if n in PAPER else ""
    lines = [
        f"RMSE ratio VSK/stationary: median over seeds {study.median_rmse_ratio:.3f} "
        f"(10–90 %: {lo:.3f}–{hi:.3f}){paper}",
        f"VSK RMSE lower than stationary in {study.n_vsk_better} of {k} seeds",
    ]
    if study.method == "map":
        for m in MODELS:
            lines.append(
                f"{m}: MAP starts reached two length-scale modes (ℓ apart > {MODE_FACTOR:g}×) "
                f"in {study.n_two_modes(m)} of {k} seeds; the long-ℓ mode was the best in "
                f"{study.n_long_mode_best(m)}"
            )
    else:
        counts = ", ".join(f"{m} {sum(bool(f) for f in study.flags[m])} of {k}" for m in MODELS)
        lines.append(f"NUTS diagnostics (r̂, ESS, divergences, modes) flagged: {counts} seeds")
    if n in PAPER:
        for name, ok in study.checks().items():
            lines.append(f"paper's numbers (checked for MLE): {name}: {'yes' if ok else 'NO'}")
    lines.append(f"2 models built, each compiled once; {study.seconds:.1f} s")
    return lines


def save_plot(study: Study, out: Path, name: str) -> Path:
    """Save the posterior mean ± 2 std of y for the first seed (analogue of Figures 5 and 6).

    Parameters
    ----------
    study : Study
        The study of Table 2 or 3.
    out : Path
        Directory for the table2|table3 files, created if needed.
    name : str
        File name prefix (the experiment's name).

    Returns
    -------
    Path
        The PNG file.
    """
    ex = study.example
    fig = plotting.posterior_bands(
        ex["grid"][:, 0],
        {m: ex[m].mean for m in MODELS},
        {m: ex[m].std_y for m in MODELS},
        ex["X"][:, 0],
        ex["y"],
        truth=targets.jump(ex["grid"]),
        titles={
            "stationary": f"Stationary Matérn C4, N = {study.n_nodes}",
            "vsk": f"VSK Matérn C4, N = {study.n_nodes}",
        },
    )
    return save_figures({f"{name}_posterior_seed{ex['seed']}": fig}, out)[0]


# -- command line -----------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``pymc-vsk reproduce table2|table3``: --seeds, --method, --sampler, --plot.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce table2|table3``.
    """
    add_seeds_option(parser, 20)
    parser.add_argument(
        "--method",
        choices=("map", "nuts"),
        default="map",
        help="maximum likelihood with multi-start fit_map (default) or NUTS on the default "
        f"priors ({NUTS_CHAINS} chains × {NUTS_TUNE} + {NUTS_DRAWS})",
    )
    parser.add_argument(
        "--sampler",
        choices=("auto", *SAMPLERS),
        default="auto",
        help="NUTS sampler of --method nuts: the one predicted to finish first for N and the "
        "number of seeds (auto, default), nutpie or PyMC's",
    )
    parser.add_argument(
        "--plot",
        metavar="DIR",
        type=Path,
        help="save the posterior of the first seed (Figure 5/6 analogue) in DIR",
    )


def main(args: argparse.Namespace) -> int:
    """Print Table 2 or 3 beside the paper.

    Parameters
    ----------
    args : argparse.Namespace
        From :func:`add_arguments`, with ``experiment`` set to ``"table2"`` or ``"table3"``.

    Returns
    -------
    int
        Exit status: 1 if a check of :meth:`Study.checks` fails with ``--method map`` (the
        checks are set for maximum likelihood; with NUTS they are printed for information),
        2 if ``--sampler`` is given without ``--method nuts`` (checked before any work).
    """
    if args.experiment not in TABLES:
        raise ValueError(f"Unknown table {args.experiment!r}; choose one of {sorted(TABLES)}.")
    sampler = getattr(args, "sampler", "auto")
    if sampler != "auto" and args.method != "nuts":  # else a table by MLE, silently
        return refuse(
            args.experiment,
            f"--sampler {sampler} chooses the sampler of --method nuts, and --method is "
            f"{args.method}; add --method nuts, or leave --sampler out.",
        )
    named = {} if sampler == "auto" else {"sampler": sampler}  # auto: compute's default
    study = compute(TABLES[args.experiment], args.seeds, args.method, **named)
    # the file first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the file
    saved = None if args.plot is None else save_plot(study, args.plot, args.experiment)
    print(format_table(study))
    if saved is not None:
        print(f"saved {saved}")
    return 0 if study.method == "nuts" or all(study.checks().values()) else 1
