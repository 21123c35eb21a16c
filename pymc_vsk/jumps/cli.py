r"""Jump detection from a CSV file: ``pymc-vsk detect-jumps data.csv --x COL --y COL``.

Reads two numeric columns of a CSV file, sorts the rows by x, fits the VSK GP with ``K``
jumps of unknown location and amplitude (:func:`pymc_vsk.jumps.build_jump_model`, default
priors scaled to the data) by NUTS with nutpie, and reports per jump the location posterior
(:meth:`pymc_vsk.jumps.LocationPosterior.summary`: mean, equal-tailed interval and the credible
set of gaps between nodes), the sampler diagnostics (:func:`pymc_vsk.diagnose`) and a figure:
the data, the posterior mean with a ±2 std band of the latent f, and the location posterior.

The location prior is uniform on ``[lower, upper]``, by default the inner 80 % of the x range
(as in :func:`~pymc_vsk.jumps.build_jump_model`). Repeated x values are allowed: the noise
σ_n is estimated, so the covariance stays positive definite.

Bad input raises :class:`InputError`, whose message names the problem (file, line, column,
value) and the fix; :func:`main` prints it and returns exit status 2, as argparse does for bad
arguments.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymc as pm
from matplotlib.figure import Figure

from pymc_vsk.arguments import finite_float, positive_int
from pymc_vsk.blas import blas_threads
from pymc_vsk.diagnostics import Diagnostics, diagnose
from pymc_vsk.draws import posterior
from pymc_vsk.jumps.models import LocationPosterior, build_jump_model, location_posterior
from pymc_vsk.models import node_scales
from pymc_vsk.prediction import Prediction, predict

__all__ = [
    "Detection",
    "InputError",
    "add_arguments",
    "default_location_range",
    "detect_jumps",
    "main",
    "plot_detection",
    "read_xy",
]

#: Fewest rows per segment between jumps: a level and a noise estimate need a few each.
MIN_ROWS_PER_SEGMENT = 3
#: Cells read as missing values (compared case-insensitively after stripping blanks).
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "-"})
#: Credible mass of the reported location intervals.
PROB = 0.94
#: Points of the prediction grid in the figure.
N_GRID = 400


class InputError(ValueError):
    """A problem with the input file or the arguments; the message names it and the fix."""


# -- reading ----------------------------------------------------------------------------------
def read_xy(
    path: str | Path, x: str, y: str, *, min_rows: int = 2 * MIN_ROWS_PER_SEGMENT
) -> tuple[np.ndarray, np.ndarray]:
    """Read the numeric columns ``x`` and ``y`` of a CSV file with a header row, sorted by x.

    Blank lines are skipped; other columns may hold anything.

    Parameters
    ----------
    path : str or Path
        Comma-separated text file (UTF-8); the first non-blank line names the columns.
    x, y : str
        Column names (exact, after stripping surrounding blanks).
    min_rows : int, default 6
        Fewest data rows accepted.

    Returns
    -------
    x : array, shape (n,)
        Inputs, sorted increasingly (ties keep their file order).
    y : array, shape (n,)
        Observations in the same order.

    Raises
    ------
    InputError
        Missing or unreadable file, empty file, no header row, ragged rows, a missing
        column, empty/NA/non-finite or non-numeric cells (with line and column), or fewer
        than ``min_rows`` rows or than two distinct x values.
    """
    path = Path(path)
    text = _read_text(path)
    rows = _rows(path, text)
    if not rows:
        raise InputError(
            f"{path} is empty: it needs a header row naming the columns (e.g. 'x,y') and one "
            "row per observation."
        )
    header_line, header = rows[0]
    header = [name.strip() for name in header]
    if all(_is_number(name) for name in header):
        raise InputError(
            f"{path}: the first row (line {header_line}) holds numbers, not column names: add "
            f"a header row naming the columns (e.g. '{x},{y}') as the first line."
        )
    if x == y:
        raise InputError(f"--x and --y name the same column {x!r}; give two different columns.")
    index = {name: _column_index(path, header, name, flag) for name, flag in ((x, "x"), (y, "y"))}
    data = rows[1:]
    for line, row in data:
        if len(row) != len(header):
            raise InputError(
                f"{path}, line {line}: {len(row)} field(s) but the header has {len(header)}; "
                "every row needs one value per column (look for missing or extra commas, and "
                "quote values that contain commas)."
            )
    if len(data) < min_rows:
        raise InputError(
            f"{path} has {len(data)} data row(s); at least {min_rows} are needed "
            f"({MIN_ROWS_PER_SEGMENT} per segment between jumps)."
        )
    values = {
        name: np.array([_number(path, line, name, row[index[name]]) for line, row in data])
        for name in (x, y)
    }
    order = np.argsort(values[x], kind="stable")
    xs, ys = values[x][order], values[y][order]
    if len(np.unique(xs)) < 2:
        raise InputError(
            f"{path}: column {x!r} holds a single distinct value ({xs[0]:g}); the inputs need "
            "to vary for a jump location to mean anything."
        )
    return xs, ys


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError(
            f"{path}: no such file; check the path (relative paths start in {Path.cwd()})."
        )
    if path.is_dir():
        raise InputError(f"{path} is a directory; pass the CSV file inside it.")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"{path} is not UTF-8 text ({err.reason} at byte {err.start}); export it as CSV "
            "(UTF-8) first."
        ) from None
    except OSError as err:
        raise InputError(f"{path} cannot be read: {err.strerror}.") from None


def _rows(path: Path, text: str) -> list[tuple[int, list[str]]]:
    """Non-blank rows with the line on which each starts."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = []
    try:
        line = 1
        for row in reader:
            if any(field.strip() for field in row):
                rows.append((line, row))
            line = reader.line_num + 1
    except csv.Error as err:
        raise InputError(
            f"{path}, line {reader.line_num}: malformed CSV ({err}); check the quoting on "
            "that line."
        ) from None
    return rows


def _column_index(path: Path, header: list[str], name: str, flag: str) -> int:
    hits = [i for i, column in enumerate(header) if column == name]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise InputError(
            f"{path}: column {name!r} appears {len(hits)} times in the header; rename the "
            f"duplicates so that --{flag} names one column."
        )
    message = f"{path} has no column {name!r} (--{flag}); its columns are: " + ", ".join(
        repr(c) for c in header
    )
    close = difflib.get_close_matches(name, header, n=1) or [
        c for c in header if c.lower() == name.lower()
    ]
    if close:
        message += f". Did you mean {close[0]!r}?"
    elif len(header) == 1 and any(sep in header[0] for sep in ";\t|"):
        message += (
            ". The header has one field: is the file separated by something other than "
            "commas? Save it with commas."
        )
    raise InputError(message)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _number(path: Path, line: int, column: str, cell: str) -> float:
    text = cell.strip()
    if text.lower() in MISSING:
        what = "an empty cell" if not text else f"the missing-value marker {text!r}"
        raise InputError(
            f"{path}, line {line}, column {column!r}: {what}; delete the row or fill in the value."
        )
    try:
        value = float(text)
    except ValueError:
        raise InputError(
            f"{path}, line {line}, column {column!r}: {cell!r} is not a number; use plain "
            "numbers with a decimal point (no units or thousands separators)."
        ) from None
    if not np.isfinite(value):
        raise InputError(
            f"{path}, line {line}, column {column!r}: {cell!r} is not finite; delete the row or "
            "replace the value."
        )
    return value


# -- fitting ----------------------------------------------------------------------------------
def default_location_range(x: np.ndarray) -> tuple[float, float]:
    """The inner 80 % of the range of ``x``: the default uniform prior range of a location."""
    x = np.asarray(x, dtype=float)
    _, span = node_scales(x[:, None])
    return float(x.min() + 0.1 * span), float(x.min() + 0.9 * span)


@dataclass
class Detection:
    """Result of :func:`detect_jumps`.

    Attributes
    ----------
    x, y : array, shape (n,)
        The data, sorted by x.
    model : pm.Model
    gp : pm.gp.Marginal or MarginalJumpGP
    idata : DataTree
        Output of ``pm.sample``.
    method : {"smooth", "marginal"}
    lower, upper : float
        Range of the uniform location prior.
    locations : list of LocationPosterior
        One per jump, in increasing order of location.
    diagnostics : Diagnostics
        Of the model's free parameters.
    """

    x: np.ndarray
    y: np.ndarray
    model: pm.Model
    gp: Any
    idata: Any
    method: str
    lower: float
    upper: float
    locations: list[LocationPosterior]
    diagnostics: Diagnostics

    def summary(self, prob: float = PROB) -> str:
        """The location posterior of each jump and the diagnostics, as text."""
        post = posterior(self.idata)
        lines = [
            f"{len(self.x)} observations, x in [{self.x.min():.6g}, {self.x.max():.6g}]; "
            f"{len(self.locations)} jump(s), method {self.method!r}, "
            f"{post.sizes['chain']} chains × {post.sizes['draw']} draws; "
            f"location prior uniform on [{self.lower:.6g}, {self.upper:.6g}]"
        ]
        for k, loc in enumerate(self.locations, 1):
            lines.append(f"jump {k}: {loc.summary(prob)}")
        lines += ["", "diagnostics:", str(self.diagnostics)]
        if not self.diagnostics.ok:
            lines.append("(the sampler has not converged: rerun with more --draws)")
        return "\n".join(lines)

    def predict(self, xnew: np.ndarray, max_draws: int = 200) -> Prediction:
        """Posterior predictive mean and std at ``xnew`` (shape (m,)), mixed over draws."""
        Xnew = np.asarray(xnew, dtype=float)[:, None]
        if self.method == "marginal":
            return self.gp.predict(Xnew, idata=self.idata, model=self.model, max_draws=max_draws)
        return predict(self.gp, Xnew, idata=self.idata, model=self.model, max_draws=max_draws)


def detect_jumps(
    x: np.ndarray,
    y: np.ndarray,
    *,
    n_jumps: int = 1,
    method: str = "smooth",
    lower: float | None = None,
    upper: float | None = None,
    draws: int = 1000,
    tune: int | None = None,
    chains: int = 4,
    seed: int = 0,
) -> Detection:
    """Fit the VSK GP with ``n_jumps`` jumps by NUTS (nutpie) and summarise the locations.

    Parameters
    ----------
    x, y : array, shape (n,)
        Inputs and observations (any order).
    n_jumps : int, default 1
    method : {"smooth", "marginal"}, default "smooth"
        As in :func:`pymc_vsk.jumps.build_jump_model`; ``"marginal"`` takes one jump and
        costs one Cholesky factorisation per gap between nodes.
    lower, upper : float, optional
        Uniform prior range of the locations (default :func:`default_location_range`).
    draws : int, default 1000
        Draws per chain.
    tune : int, optional
        Tuning steps per chain (default ``draws``).
    chains : int, default 4
    seed : int, default 0

    Returns
    -------
    Detection

    Raises
    ------
    InputError
        ``lower >= upper``, no node inside the prior range, or ``method="marginal"`` with
        more than one jump.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    default_lower, default_upper = default_location_range(x)
    lower = default_lower if lower is None else float(lower)
    upper = default_upper if upper is None else float(upper)
    if not lower < upper:
        raise InputError(f"--lower must be below --upper; got {lower:g} and {upper:g}.")
    inside = np.unique(x[(x > lower) & (x < upper)])
    if len(inside) < n_jumps:
        raise InputError(
            f"{len(inside)} distinct x value(s) lie inside the location range "
            f"({lower:g}, {upper:g}); {n_jumps} jump(s) need at least {n_jumps} to be told "
            "apart: widen --lower/--upper."
        )
    if method == "marginal" and n_jumps != 1:
        raise InputError(
            f"--method marginal handles one jump; for --jumps {n_jumps} use --method smooth."
        )
    model, gp = build_jump_model(
        x[:, None], y, n_jumps=n_jumps, method=method, lower=lower, upper=upper
    )
    with model, blas_threads(1):
        idata = pm.sample(
            draws=draws,
            tune=draws if tune is None else tune,
            chains=chains,
            nuts_sampler="nutpie",
            random_seed=seed,
            progressbar=False,
        )
    if method == "marginal":
        locations = [gp.location_posterior(idata)]
    else:
        locations = location_posterior(idata, x[:, None], lower, upper)
    names = [v.name for v in model.free_RVs]
    return Detection(
        x, y, model, gp, idata, method, lower, upper, locations, diagnose(idata, names)
    )


# -- plotting ---------------------------------------------------------------------------------
def plot_detection(
    detection: Detection, x_label: str = "x", y_label: str = "y", prob: float = PROB
) -> Figure:
    """Data with the posterior mean ± 2 std (latent f), and each jump's location posterior.

    The lower panel shows the posterior density of each location over the gaps between nodes
    (gap probability / gap width); the ``prob`` credible gaps are shaded in both panels.
    """
    d = detection
    grid = np.union1d(np.linspace(d.x.min(), d.x.max(), N_GRID), d.x)
    pred = d.predict(grid)
    fig = Figure(figsize=(9, 6))  # not pyplot: any backend will do, and none is changed
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    band = (pred.mean - 2 * pred.std_f, pred.mean + 2 * pred.std_f)
    top.fill_between(grid, *band, color="C0", alpha=0.25, label="±2 std (latent f)")
    top.plot(grid, pred.mean, color="C0", label="posterior mean")
    top.plot(d.x, d.y, "o", color="k", ms=3, label="data")
    for k, loc in enumerate(d.locations):
        color = f"C{k + 1}"
        gaps = loc.gaps
        widths = gaps.right - gaps.left
        bottom.bar(
            gaps.left,
            loc.probs / widths,
            width=widths,
            align="edge",
            color=color,
            alpha=0.8,
            label=f"jump {k + 1}",
        )
        for g in loc.credible_gaps(prob):
            for ax in (top, bottom):
                ax.axvspan(gaps.left[g], gaps.right[g], color=color, alpha=0.12, lw=0)
    top.set_ylabel(y_label)
    top.set_title(
        f"Jump detection: VSK GP, {len(d.locations)} jump(s); shaded: {prob:.0%} credible gaps"
    )
    top.legend(fontsize=8, loc="best")
    bottom.set_ylabel("location density")
    bottom.set_xlabel(x_label)
    bottom.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


# -- command line -----------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``pymc-vsk detect-jumps``."""
    parser.add_argument("csv", type=Path, help="CSV file with a header row")
    parser.add_argument("--x", required=True, metavar="COL", help="column of the inputs")
    parser.add_argument("--y", required=True, metavar="COL", help="column of the observations")
    parser.add_argument(
        "--jumps", type=positive_int, default=1, metavar="K", help="number of jumps (default 1)"
    )
    parser.add_argument(
        "--method",
        choices=("smooth", "marginal"),
        default="smooth",
        help="logistic relaxation of the jump (default) or exact marginalisation of one hard "
        "jump over the gaps between nodes (one Cholesky per gap: slow beyond ~60 nodes)",
    )
    parser.add_argument(
        "--draws",
        type=positive_int,
        default=1000,
        metavar="N",
        help="NUTS draws and tuning steps per chain (default 1000)",
    )
    parser.add_argument(
        "--chains", type=positive_int, default=4, metavar="C", help="chains (default 4)"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--lower",
        type=finite_float,
        metavar="A",
        help="lower end of the uniform location prior (default: 10 %% into the x range)",
    )
    parser.add_argument(
        "--upper",
        type=finite_float,
        metavar="B",
        help="upper end of the uniform location prior (default: 90 %% into the x range)",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="PATH",
        help="where to save the figure (default: <csv name>-jumps.png in the current directory)",
    )


def main(args: argparse.Namespace) -> int:
    """Run ``detect-jumps``: exit status 0 on success, 2 on bad input (message on stderr)."""
    try:
        x, y = read_xy(args.csv, args.x, args.y, min_rows=MIN_ROWS_PER_SEGMENT * (args.jumps + 1))
        detection = detect_jumps(
            x,
            y,
            n_jumps=args.jumps,
            method=args.method,
            lower=args.lower,
            upper=args.upper,
            draws=args.draws,
            chains=args.chains,
            seed=args.seed,
        )
    except InputError as err:
        print(f"pymc-vsk detect-jumps: error: {err}", file=sys.stderr)
        return 2
    print(detection.summary())
    path = args.plot if args.plot is not None else Path(f"{args.csv.stem}-jumps.png")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = plot_detection(detection, x_label=args.x, y_label=args.y)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print(f"saved {path}")
    return 0
