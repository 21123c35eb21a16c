r"""What the reproductions share: the MLE fitter, the evaluation grid, seeds, CSV files, options.

* :class:`MleFitter` is the paper's ``fitrgp`` fit, used by Tables 2–3, Figure 4 and
  Figure 9: maximum likelihood over ℓ, σ_f, σ_n and a constant mean (flat priors, so the
  MAP of :func:`pymc_vsk.fitting.fit_map` is the MLE), from several starts, keeping the best
  optimum. The model is built and compiled once and refitted to new data of any size.
* :func:`evaluation_grid` is the grid of the metrics of Section 4 in 1-D:
  ``linspace(0, 1, 500)`` united with the nodes. With the nodes included, Table 1 is
  reproduced to every printed digit (504 points for its 6 nodes); with the plain 500-point
  grid its RMSE and average std come out too large by exactly 504/500.
* :func:`sweep_frame` and :func:`write_csv` write the per-(model, N, seed) CSV files of the
  sweeps with pandas; :func:`add_out_option`, :func:`add_seeds_option` and
  :func:`add_n_max_option` are the command-line options the experiments have in common, and
  :func:`size_problem` and :func:`refuse` turn sizes beyond the memory limit away before any
  work (:func:`check_size` raises instead, for calls from Python).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd
import pymc as pm
from matplotlib.figure import Figure

from pymc_vsk.arguments import int_in, positive_int
from pymc_vsk.arrays import check_count
from pymc_vsk.fitting import MapResult, default_starts, fit_map
from pymc_vsk.memory import check_dense
from pymc_vsk.models import build_model, set_data
from pymc_vsk.prediction import Prediction, predict
from pymc_vsk.scaling import ScalingFunction, numeric_value

__all__ = [
    "MAX_SEEDS",
    "MODE_FACTOR",
    "N_GRID",
    "PARAMETERS",
    "Fit",
    "Fitter",
    "MleFitter",
    "add_n_max_option",
    "add_out_option",
    "add_seeds_option",
    "check_size",
    "csv_cell",
    "describe_counts",
    "evaluation_grid",
    "length_scale_modes",
    "list_counts",
    "node_counts",
    "refuse",
    "save_figures",
    "seed_list",
    "size_problem",
    "sweep_frame",
    "text_table",
    "write_csv",
]

#: Points of the equispaced part of :func:`evaluation_grid`.
N_GRID = 500
#: Hyper-parameters reported (all standard deviations, as the paper's σ_n rows).
PARAMETERS = ("ls", "sigma_f", "sigma_n")
#: MAP optima whose length scales differ by more than this factor are different modes.
MODE_FACTOR = 2.0
#: Largest number of noise seeds ``--seeds`` takes.
MAX_SEEDS = 10_000

#: A point of a fitted model: variable name -> value.
Point = Mapping[str, np.ndarray | float]


def evaluation_grid(X: np.ndarray, n_grid: int = N_GRID) -> np.ndarray:
    """``linspace(0, 1, n_grid)`` united with the nodes, as a sorted column.

    Parameters
    ----------
    X : array, shape (N, 1)
        Nodes in [0, 1].
    n_grid : int, default 500
        Equispaced points.

    Returns
    -------
    array, shape (M, 1)
        M = ``n_grid`` plus the nodes that are not grid points (504 for Table 1's 6 nodes).
    """
    return np.union1d(np.linspace(0.0, 1.0, n_grid), np.asarray(X).ravel())[:, None]


def seed_list(seeds: int | Sequence[int]) -> list[int]:
    """The noise seeds: ``range(seeds)`` for a count, else the seeds given.

    Parameters
    ----------
    seeds : int or sequence of int
        Number of seeds (0, 1, ...) or the seeds themselves.

    Returns
    -------
    list of int

    Raises
    ------
    ValueError
        No seed, more than :data:`MAX_SEEDS`, or a negative seed.
    TypeError
        Neither a count nor a sequence of whole numbers.
    """
    if isinstance(seeds, int | np.integer):
        if seeds > MAX_SEEDS:
            raise ValueError(f"At most {MAX_SEEDS} noise seeds; got {seeds}. Ask for fewer.")
        seeds = range(seeds)
    if isinstance(seeds, str) or not isinstance(seeds, Iterable):
        raise TypeError(
            f"seeds is a number of seeds (5) or a sequence of integer seeds ([0, 3]); got "
            f"{seeds!r}."
        )
    seeds = list(seeds)
    try:
        out = [int(s) for s in seeds]
    except (TypeError, ValueError):
        out = None
    if out != seeds:  # 1.5 or "3" among them
        raise TypeError(f"Noise seeds must be whole numbers; got {seeds!r}.")
    if not out:
        raise ValueError("Need at least one noise seed.")
    if min(out) < 0:
        raise ValueError(
            f"Noise seeds must be integers >= 0 (np.random.default_rng takes no negative "
            f"seed); got {min(out)}."
        )
    return out


def node_counts(first: int, step: int, last: int) -> np.ndarray:
    """N = ``first``, ``first + step``, ..., up to ``last``.

    Parameters
    ----------
    first, step, last : int
        First count, increment and largest count allowed.

    Returns
    -------
    array of int

    Raises
    ------
    TypeError
        ``last`` not an integer.
    ValueError
        ``last < first``.
    MemoryError
        A dense GP on ``last`` nodes, or its predictions on the evaluation grid, beyond the
        memory limit (:func:`check_size`): a sweep is refused before any work.
    """
    check_count(last, "n_max", first)
    check_size(last, last + N_GRID, "n_max")
    return np.arange(first, last + 1, step)


def describe_counts(n_nodes: Sequence[int]) -> str:
    """The node counts of a sweep in words: ``"N = 30 … 790 (39 node counts)"``.

    Parameters
    ----------
    n_nodes : sequence of int
        The counts, increasing.

    Returns
    -------
    str

    Examples
    --------
    >>> describe_counts([31])
    'N = 31'
    >>> describe_counts([30, 50, 70])
    'N = 30 … 70 (3 node counts)'
    """
    first, last = int(n_nodes[0]), int(n_nodes[-1])
    if len(n_nodes) == 1:
        return f"N = {first}"
    return f"N = {first} … {last} ({len(n_nodes)} node counts)"


def list_counts(n_nodes: Sequence[int]) -> str:
    """The node counts of a sweep as a list: ``"30, 50, …, 790"``, or all of them if few.

    Parameters
    ----------
    n_nodes : sequence of int
        The counts, increasing.

    Returns
    -------
    str

    Examples
    --------
    >>> list_counts([30])
    '30'
    >>> list_counts([30, 50, 70, 90])
    '30, 50, …, 90'
    """
    counts = [str(int(n)) for n in n_nodes]
    return ", ".join(counts) if len(counts) <= 3 else f"{counts[0]}, {counts[1]}, …, {counts[-1]}"


# -- fitting ----------------------------------------------------------------------------------
@dataclass
class Fit:
    """One fitted model on one data set.

    Attributes
    ----------
    params : dict
        ℓ, σ_f, σ_n, mean: the MLE, or posterior medians for NUTS.
    prediction : Prediction
        Prediction at the evaluation points.
    point : dict or None
        The best MAP point (for warm starts); ``None`` for NUTS.
    flags : list of str
        What to look at: the optima when the MAP starts reached different length-scale
        modes, or failed diagnostics (NUTS). Empty when nothing was flagged.
    ls_modes : list of float or None
        MAP only: ℓ of the distinct length-scale modes the starts reached, best first
        (see :func:`length_scale_modes`).
    """

    params: dict[str, float]
    prediction: Prediction
    point: dict[str, np.ndarray] | None = None
    flags: list[str] = field(default_factory=list)
    ls_modes: list[float] | None = None


class Fitter(Protocol):
    """Fits one model, built once, to new data sets.

    Attributes
    ----------
    model : pm.Model
    gp : pm.gp.Marginal
    description : str
        How the hyper-parameters are inferred, as printed with the results.
    """

    model: pm.Model
    gp: pm.gp.Marginal
    description: str

    def fit(self, X: np.ndarray, y: np.ndarray, grid: np.ndarray, seed: int) -> Fit:
        """Fit to ``(X, y)`` and predict at ``grid``; ``seed`` seeds the starts or the sampler.

        Parameters
        ----------
        X : array, shape (N, d)
            The nodes of this data set.
        y : array, shape (N,)
            Its observations.
        grid : array, shape (M, d)
        seed : int

        Returns
        -------
        Fit
        """
        ...


def length_scale_modes(result: MapResult, factor: float = MODE_FACTOR) -> list[float]:
    """ℓ of the distinct length-scale modes among a MAP fit's optima, best optimum first.

    The VSK marginal likelihood of Section 4.1.2 is bimodal: besides the short length-scale
    mode the paper reports (ℓ ≈ 0.06) there is a long length-scale, high-noise mode
    (ℓ ≈ 0.6–0.9, σ_n ≈ 0.7) that smooths the jump's oscillation away, and a fit started from
    ``fitrgp``'s default (ℓ₀ ≈ the inputs' std) lands in it. Optima whose ℓ are within
    ``factor`` of an already listed (better) one count as the same mode; ``fit_map`` also
    separates optima that differ only in how close σ_n came to 0 (the likelihood is flat
    there for small N), which this merges.

    Parameters
    ----------
    result : MapResult
        A fit of :func:`pymc_vsk.fitting.fit_map`, optima sorted best first.
    factor : float, default 2
        Ratio of length scales above which two optima are different modes.

    Returns
    -------
    list of float
    """
    modes: list[float] = []
    for optimum in result.optima:
        ls = float(np.max(optimum.point["ls"]))
        if all(max(ls, m) > factor * min(ls, m) for m in modes):
            modes.append(ls)
    return modes


class MleFitter:
    """Maximum-likelihood fits of one model, compiled once and refitted on new data.

    The model is :func:`pymc_vsk.build_model` with flat priors and a constant mean (MATLAB's
    ``fitrgp`` fits one by default), so the best MAP optimum is the MLE of ℓ, σ_f, σ_n and
    the mean.

    Parameters
    ----------
    psi : ScalingFunction or None
        ψ of the VSK; ``None`` for the stationary model.
    X : array, shape (N, d)
        Nodes to build the model with; any later nodes (of any number) are swapped in.
    y : array, shape (N,)
        Observations to build the model with.
    n_starts : int, default 8
        Default starts per fit (those of :func:`pymc_vsk.fitting.fit_map`, spread over the
        length scales).
    kernel : str, default "matern52"
        Base kernel name for :func:`pymc_vsk.build_model` (the paper's Matérn C⁴).
    """

    def __init__(
        self,
        psi: ScalingFunction | None,
        X: np.ndarray,
        y: np.ndarray,
        n_starts: int = 8,
        kernel: str = "matern52",
    ) -> None:
        self.model, self.gp = build_model(
            X, y, psi=psi, kernel=kernel, priors="flat", standardize=False
        )
        self.n_starts = n_starts
        self.description = (
            f"MLE: fit_map on flat priors with a constant mean, {n_starts} starts per fit, "
            "best optimum"
        )

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        grid: np.ndarray,
        seed: int,
        extra_starts: Sequence[Point] = (),
        *,
        n_starts: int | None = None,
    ) -> Fit:
        """Fit to ``(X, y)`` from ``extra_starts`` plus the default starts, predict at ``grid``.

        Parameters
        ----------
        X : array, shape (N, d)
        y : array, shape (N,)
        grid : array, shape (M, d)
            Where to predict.
        seed : int
            Seed of the default starts.
        extra_starts : sequence of dict, optional
            Further starts, tried first (e.g. the previous fit's optimum).
        n_starts : int, optional
            Default starts for this fit instead of the fitter's ``n_starts``.

        Returns
        -------
        Fit
            Flagged when the starts reached more than one length-scale mode.
        """
        set_data(self.model, X, y)
        n_starts = self.n_starts if n_starts is None else n_starts
        starts = [*extra_starts, *default_starts(self.model, n_starts, seed)]
        result = fit_map(self.model, starts=starts, warn=False)
        point = result.point
        modes = length_scale_modes(result)
        flags = [result.summary()] if len(modes) > 1 else []
        params = {k: float(point[k]) for k in (*PARAMETERS, "mean")}
        prediction = predict(self.gp, grid, point=point, model=self.model)
        return Fit(params, prediction, point, flags, modes)

    def training_covariance(self, X: np.ndarray, point: Point) -> np.ndarray:
        """σ_f² κ(X, X) at a fitted point: the training matrix, noise excluded.

        Parameters
        ----------
        X : array, shape (N, d)
        point : dict
            A fitted point (``point`` of :class:`Fit`).

        Returns
        -------
        array, shape (N, N)
        """
        return numeric_value(self.gp.cov_func(X), point)


# -- sizes ------------------------------------------------------------------------------------
def size_problem(
    n_nodes: int, n_points: int, nodes_option: str, points_option: str | None = None
) -> str | None:
    """Why a dense GP on ``n_nodes`` nodes predicted at ``n_points`` points exceeds the memory
    limit (:func:`pymc_vsk.memory.check_dense`), or ``None``.

    Checked before any work: a sweep whose largest N is too large would otherwise fail only
    when it reaches that N, and a grid too large fails in numpy before the first fit.

    Parameters
    ----------
    n_nodes : int
        The largest number of nodes fitted.
    n_points : int
        The largest number of points predicted at.
    nodes_option : str
        The option that sets ``n_nodes`` (``"--n-max"``), for the message.
    points_option : str, optional
        The option that sets ``n_points`` (default: ``nodes_option``).

    Returns
    -------
    str or None
    """
    try:
        check_size(n_nodes, n_points, nodes_option, points_option)
    except (MemoryError, ValueError) as err:  # ValueError: PYMC_VSK_MEMORY_LIMIT not a size
        return str(err)
    return None


def check_size(
    n_nodes: int, n_points: int, nodes_option: str, points_option: str | None = None
) -> None:
    """Raise the error :func:`size_problem` describes: for experiments run from Python.

    Parameters
    ----------
    n_nodes, n_points, nodes_option, points_option
        As in :func:`size_problem` (the options are argument names, e.g. ``"n_max"``).

    Raises
    ------
    MemoryError
        If a dense GP on ``n_nodes`` nodes, or its prediction at ``n_points`` points, exceeds
        the memory limit (:func:`pymc_vsk.memory.check_dense`).
    ValueError
        If the memory limit set in the environment is not a size.
    """
    checks = (
        (n_nodes, f"A dense GP on {n_nodes} nodes", nodes_option),
        (n_points, f"Predicting at {n_points} points", points_option or nodes_option),
    )
    for rows, what, option in checks:
        check_dense(rows, n_nodes, what, fix=f"Give a smaller {option}.")


def refuse(experiment: str, problem: str) -> int:
    """Print ``problem`` as the error of ``pymc-vsk reproduce experiment``; return status 2.

    Parameters
    ----------
    experiment : str
        The experiment's name.
    problem : str
        What is wrong and how to fix it.

    Returns
    -------
    int
        2, the exit status of a command-line error.
    """
    print(f"pymc-vsk reproduce {experiment}: error: {problem}", file=sys.stderr)
    return 2


# -- CSV files --------------------------------------------------------------------------------
def csv_cell(column: str, value: float) -> str:
    """A CSV cell: counts (``n_*`` columns) as integers, everything else to 6 digits.

    Parameters
    ----------
    column : str
        Column name.
    value : float

    Returns
    -------
    str
    """
    return str(int(value)) if column.startswith("n_") else f"{value:.6g}"


def sweep_frame(
    values: Mapping[str, Mapping[str, np.ndarray]],
    n_nodes: Sequence[int],
    seeds: Sequence[int],
    columns: Sequence[str],
) -> pd.DataFrame:
    """One row per model, N and seed (in that order), with the columns of a sweep.

    Parameters
    ----------
    values : dict
        Model -> column -> array of shape (len(n_nodes), len(seeds)).
    n_nodes : sequence of int
    seeds : sequence of int
    columns : sequence of str
        Columns written, in order, after ``kernel``, ``N`` and ``seed``.

    Returns
    -------
    pandas.DataFrame
    """
    n_nodes = np.asarray(n_nodes, dtype=int)
    seeds = np.asarray(seeds, dtype=int)
    parts = [
        pd.DataFrame(
            {
                "kernel": model,
                "N": np.repeat(n_nodes, len(seeds)),
                "seed": np.tile(seeds, len(n_nodes)),
                **{c: np.asarray(rows[c], dtype=float).ravel() for c in columns},
            }
        )
        for model, rows in values.items()
    ]
    return pd.concat(parts, ignore_index=True)


def write_csv(frame: pd.DataFrame, path: Path, value_columns: Sequence[str]) -> Path:
    """Write ``frame`` without its index, the ``value_columns`` formatted by :func:`csv_cell`.

    Parameters
    ----------
    frame : pandas.DataFrame
    path : Path
    value_columns : sequence of str
        Numeric columns to format; missing values are left empty.

    Returns
    -------
    Path
        ``path``.
    """
    out = frame.copy()
    for column in value_columns:
        out[column] = [
            "" if pd.isna(v) or v == "" else csv_cell(column, float(v)) for v in frame[column]
        ]
    out.to_csv(path, index=False)
    return path


def text_table(
    frame: pd.DataFrame, formats: str | Mapping[str, str], *, index: bool = False
) -> str:
    """A DataFrame as a printed table (``DataFrame.to_string``), numbers formatted per column.

    Parameters
    ----------
    frame : pandas.DataFrame
    formats : str or dict
        A format spec for every float column (e.g. ``".3e"``), or column -> spec; columns
        without one are printed as they are.
    index : bool, default False
        Print the index (e.g. row labels) as the first column.

    Returns
    -------
    str
    """
    floats = frame.select_dtypes("floating").columns
    specs = formats if isinstance(formats, Mapping) else dict.fromkeys(floats, formats)
    formatters = {c: (lambda v, f=f: format(v, f)) for c, f in specs.items() if c in frame}
    return frame.to_string(index=index, formatters=formatters)


def save_figures(figures: Mapping[str, Figure], out: Path, dpi: int = 120) -> list[Path]:
    """Save each figure as ``out/<stem>.png``, creating ``out`` if needed.

    Parameters
    ----------
    figures : dict
        File stem -> figure.
    out : Path
        Directory.
    dpi : int, default 120

    Returns
    -------
    list of Path
        The PNG files, in the order of ``figures``.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png" for stem in figures]
    for fig, path in zip(figures.values(), paths, strict=True):
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return paths


# -- command-line options ---------------------------------------------------------------------
def add_out_option(parser: argparse.ArgumentParser, default: Path | None, what: str) -> None:
    """``--out DIR``: where the experiment writes ``what``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    default : Path or None
        Default directory; ``None`` writes nothing unless the option is given.
    what : str
        What goes there, for the help text.
    """
    suffix = "" if default is None else f" (default {default})"
    parser.add_argument(
        "--out", metavar="DIR", type=Path, default=default, help=f"save {what} in DIR{suffix}"
    )


def add_seeds_option(parser: argparse.ArgumentParser, default: int) -> None:
    """``--seeds K``: the noise seeds 0, ..., K − 1.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    default : int
    """
    parser.add_argument(
        "--seeds",
        type=_seed_count,
        default=default,
        metavar="K",
        help=f"noise seeds 0..K-1, K in 1..{MAX_SEEDS} (default {default})",
    )


def _seed_count(text: str) -> int:
    """argparse type of ``--seeds``: an integer in 1..:data:`MAX_SEEDS`."""
    value = positive_int(text)
    if value > MAX_SEEDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SEEDS}, got {value}")
    return value


def add_n_max_option(parser: argparse.ArgumentParser, first: int, step: int, last: int) -> None:
    """``--n-max N``: the largest node count of a sweep N = first, first + step, ....

    Parameters
    ----------
    parser : argparse.ArgumentParser
    first, step, last : int
        The sweep's first count, increment and default largest count.
    """
    parser.add_argument(
        "--n-max",
        type=int_in(first),
        default=last,
        metavar="N",
        help=f"largest N (default {last}); N runs {first}, {first + step}, …",
    )
