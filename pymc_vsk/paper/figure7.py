r"""Figures 7 and 8 (Section 4.2): a truncated Weierstrass function with VSKs of growing K_VSK.

The paper's setup (Section 4.2): the target

.. math::

    f(x_1, x_2) = \sum_{k=0}^{12} a^k \cos(\pi b^k x_1) \cos(\pi b^k x_2),
    \qquad a = 0.5,\ b = 3,

is fitted by MLE (``fitrgp``) with a stationary kernel and with VSKs whose scaling function is
the truncation :math:`\psi^{K_{\mathrm{VSK}}}` (the first K_VSK + 1 terms) for
K_VSK = 0, …, 12; Figure 7 plots RMSE, maximum error, average and maximum std against K_VSK,
Figure 8 shows the target, the stationary reconstruction and the VSK ones for K_VSK = 2, 4, 12.
ψ¹² *is* the target, so K_VSK = 12 should be nearly exact. The paper's findings: the errors
fall as K_VSK grows, and "VSKs show robustness against poor priors": even a crude ψ (small
K_VSK) is not much worse than the stationary kernel.

The paper does not give the domain, the nodes, the noise or the kernel. Our choices:

* **Ω = [0, 1]²**, the unit domain of the paper's other experiments (Sections 4.1, 4.3). The
  first term cos(πx₁)cos(πx₂) is then a single smooth bump, so ψ⁰ is the crudest prior of the
  family, and each further term is 3 times finer and half as large.
* **N = 200 nodes**: the first 200 points of the unscrambled 2-D Halton sequence (MATLAB's
  ``haltonset`` default, as for Tables 2–3; :func:`pymc_vsk.targets.halton_nodes`). Their
  spacing (≈ 0.07) resolves the terms k ≤ 2 (3^k / 2 cycles per unit) and none beyond.
  With b = 3 this design is aligned with the target: the second Halton coordinate is the
  base-3 sequence of points j / 3^m, where cos(π 3^k x₂) = ±1 for every k ≥ m, so the nodes
  see the fine terms at their extremes and the fitted σ_n comes out ≈ √2 × the remainder's
  rms for K_VSK ≈ 3–7. A scrambled Halton design (measured, N = 100) removes that factor,
  moves the RMSE by less than 15 % for the stationary kernel and K_VSK ≤ 11 (both ≈ 2·10⁻⁷ at
  K_VSK = 12) and gives the same findings.
* **Noise-free observations, σ_n fitted** (``fitrgp`` always fits σ_n). For K_VSK < 12 the
  terms k > K_VSK that the nodes cannot resolve act as noise, and the fitted σ_n measures
  them; with K_VSK = 12 nothing is left and σ_n → 0. (With noise of std 0.01 the errors stop
  falling at ≈ 2·10⁻³ from K_VSK ≈ 7 on: the noise floor.)
* **Matérn C⁴** (``pm.gp.cov.Matern52``), the kernel of Section 4.1.2, with one length scale
  for all lifted coordinates, a constant mean and flat priors, so the multi-start MAP of
  :func:`pymc_vsk.fitting.fit_map` is the MLE. Matérn C² gives the same picture (measured).
* **Metrics** of Section 4 over a regular 60 × 60 grid on Ω (3600 points, the boundary
  included); the std columns are the predictive std of y, noise included, as in Tables 2–3
  (``fitrgp``'s ``ysd``); the CSV also has the latent std.

**One compiled model for all 14 fits.** ψ^{K_VSK} is written as
:math:`\psi_w(x) = \sum_{k=0}^{12} w_k a^k \cos(\pi b^k x_1)\cos(\pi b^k x_2)` with the
weights w a data container (``pm.Data("psi_weights")``): K_VSK sets w_k = 1[k ≤ K_VSK]
(:func:`truncation_weights`), and w = 0 gives ψ ≡ 0, for which the lifted distance is the
plain one and the VSK *is* the stationary kernel. ψ stays a function of x inside the graph,
so prediction at new points evaluates ψ_w there with the current weights. The model's
objective and predictor are compiled once; K_VSK changes only the data. A separate model per
K_VSK (``build_model(X, y, psi=Weierstrass(K))``) gives the same fits (checked at K_VSK = 3
and 4: equal RMSE and ℓ) but compiles 14 objectives and predictors, each of which takes longer
than a fit.

Each fit starts from the previous fit's optimum (the sweep runs stationary, K_VSK = 0, 1, …)
plus ``N_STARTS`` = 6 default starts, and keeps the best. From K_VSK ≈ 1 on, the MLE has
long ℓ and large σ_f: the lifted GP becomes nearly linear in ψ, f ≈ m + c ψ. With nothing
left for σ_n (K_VSK ≳ 9 with N = 200) the likelihood rises along a ridge ℓ, σ_f → ∞; the
optimiser stops at large finite values, where the predictions no longer change. The
predictive std there is the square root of a small difference of numbers of size σ_f², so it
is rounding noise of order σ_f √ε (:func:`std_floor`; at N = 200 the std at K_VSK = 10–12 is,
and the output says so): the std curves of Figure 7 and the K_VSK = 12 std map of Figure 8
are meaningful only down to that level.

The paper's findings are checked (:meth:`Sweep.checks`) as

* **errors fall as K_VSK grows**: Spearman rank correlation between K_VSK and the RMSE, and
  between K_VSK and the maximum error, at most ``MAX_SPEARMAN`` = −0.9;
* **ψ¹² = f is nearly exact**: RMSE at K_VSK = 12 at most ``EXACT_FACTOR`` = 10⁻³ times
  the stationary RMSE;
* **robust to a poor ψ**: RMSE at every K_VSK at most ``ROBUST_FACTOR`` = 1.25 times the
  stationary RMSE. Measured before this threshold was set: the worst case is K_VSK = 0, at
  1.02–1.04 × stationary for N = 100, 200, 300 (Matérn C⁴ and C²). On Ω = [−1, 1]² (two
  periods of the first term) K_VSK = 0 is 1.36 × stationary in RMSE but 0.79 × in maximum
  error, and fails this check; every K_VSK ≥ 1 beats the stationary kernel there too
  (``--domain -1 1``).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import scipy.stats
from pytensor.graph import Variable

from pymc_vsk import plotting, targets
from pymc_vsk.arguments import finite_float, int_in
from pymc_vsk.arrays import check_count
from pymc_vsk.blas import blas_threads
from pymc_vsk.fitting import NotConvergedWarning, compiled_objective, default_starts, fit_map
from pymc_vsk.metrics import summarize
from pymc_vsk.models import build_model
from pymc_vsk.paper.harness import (
    add_out_option,
    check_size,
    refuse,
    save_figures,
    size_problem,
    text_table,
    write_csv,
)
from pymc_vsk.paper.numbers import FIGURE8_K, WEIERSTRASS
from pymc_vsk.prediction import Prediction, predict
from pymc_vsk.progress import Steps
from pymc_vsk.scaling import FromFunction

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "COLUMNS",
    "K_VALUES",
    "METRICS",
    "Sweep",
    "build",
    "compute",
    "describe",
    "figure7",
    "figure8",
    "figure8_maps",
    "format_summary",
    "main",
    "save",
    "scaling_function",
    "set_truncation",
    "std_floor",
    "truncation_weights",
    "weierstrass_terms",
]

# -- the paper's constants (Section 4.2) ------------------------------------------------------
#: Weierstrass parameters a, b and the target's truncation K.
A, B, K_TARGET = WEIERSTRASS["a"], WEIERSTRASS["b"], int(WEIERSTRASS["K"])
#: K_VSK of Figure 7.
K_VALUES = tuple(range(K_TARGET + 1))
#: The option by which ``pymc-vsk reproduce figure7`` takes a directory for its files.
OUTPUT_OPTION = "--out"

# -- our choices (module docstring) -----------------------------------------------------------
#: Domain Ω = [low, high]².
DOMAIN = (0.0, 1.0)
#: Number of 2-D Halton nodes.
N_NODES = 200
#: Points per side of the regular evaluation grid.
GRID_SIZE = 60
#: Base kernel (Matérn C⁴).
KERNEL = "matern52"
#: Default starts per fit, besides the previous fit's optimum.
N_STARTS = 6

# -- the paper's findings, as checked ---------------------------------------------------------
#: Spearman ρ(K_VSK, error) at most this: errors fall as K_VSK grows.
MAX_SPEARMAN = -0.9
#: RMSE at K_VSK = 12 at most this times the stationary RMSE: ψ¹² = f is nearly exact.
EXACT_FACTOR = 1e-3
#: RMSE at every K_VSK at most this times the stationary RMSE: robust to poor ψ.
ROBUST_FACTOR = 1.25

#: Metric -> panel title, in panel order (std: predictive std of y).
METRICS: dict[str, str] = {
    "rmse": "RMSE",
    "max_error": "Maximum error",
    "mean_std": "Average std (y)",
    "max_std": "Maximum std (y)",
}
#: Fitted hyper-parameters (σ's are standard deviations).
PARAMETERS = ("ls", "sigma_f", "sigma_n", "mean")
#: Columns of the CSV besides kernel and K_VSK.
COLUMNS = (*PARAMETERS, *METRICS, "mean_std_f", "max_std_f", "std_floor")
#: An average std below this many times ``std_floor`` is reported as rounding-level.
FLOOR_FACTOR = 10.0


def std_floor(sigma_f: float) -> float:
    """σ_f √ε: the rounding level of a predictive std computed as √(σ_f² − kᵀK⁻¹k).

    The difference of two numbers of size σ_f² carries an absolute error of about σ_f² ε, so
    a std below about σ_f √ε is rounding noise (ε: double-precision machine epsilon).

    Parameters
    ----------
    sigma_f : float
        The fitted signal std.

    Returns
    -------
    float
    """
    return float(sigma_f * np.sqrt(np.finfo(float).eps))


# -- ψ^{K_VSK} as one function with data weights -----------------------------------------------
def truncation_weights(k_vsk: int | None) -> np.ndarray:
    """Weights w_k = 1[k ≤ K_VSK], k = 0, …, 12, of :func:`weierstrass_terms`; zeros for ``None``.

    ``None`` stands for the stationary kernel: ψ ≡ 0 adds nothing to the lifted distance.

    Parameters
    ----------
    k_vsk : int or None
        K_VSK in 0..12, or ``None``.

    Returns
    -------
    array, shape (13,)
    """
    if k_vsk is None:
        return np.zeros(K_TARGET + 1)
    if int(k_vsk) != k_vsk or not 0 <= k_vsk <= K_TARGET:
        raise ValueError(f"K_VSK must be an integer in 0..{K_TARGET}; got {k_vsk!r}.")
    return (np.arange(K_TARGET + 1) <= k_vsk).astype(float)


def weierstrass_terms(
    X: np.ndarray | Variable, weights: np.ndarray | Variable, a: float = A, b: float = B
) -> np.ndarray | Variable:
    r"""ψ_w(x) = Σ_{k=0}^{12} w_k a^k cos(π b^k x₁) cos(π b^k x₂), numpy or pytensor.

    With ``weights = truncation_weights(K)`` this is ψ^K of Section 4.2
    (:class:`pymc_vsk.scaling.Weierstrass`); with all weights 1 it is the target.

    Parameters
    ----------
    X : array or tensor, shape (n, 2)
        Points; a pytensor variable gives a pytensor expression.
    weights : array or tensor, shape (13,)
        w_0, …, w_12.
    a, b : float
        Weierstrass parameters (the paper's a = 0.5, b = 3).

    Returns
    -------
    array or tensor, shape (n,)
    """
    cos = pt.cos if isinstance(X, Variable) else np.cos
    x1, x2 = X[:, 0], X[:, 1]
    total = 0.0
    for k in range(K_TARGET + 1):
        total = total + weights[k] * a**k * cos(np.pi * b**k * x1) * cos(np.pi * b**k * x2)
    return total


def scaling_function(weights: np.ndarray | Variable) -> FromFunction:
    """ψ_w as a scaling function.

    Parameters
    ----------
    weights : array or tensor, shape (13,)
        w_0, …, w_12; a data container can be changed after compiling.

    Returns
    -------
    FromFunction
    """
    return FromFunction(weierstrass_terms, params={"weights": weights})


def build(X: np.ndarray, y: np.ndarray) -> tuple[pm.Model, pm.gp.Marginal]:
    """The one model of the sweep: a Matérn C⁴ VSK with ψ_w, flat priors (MAP = MLE).

    The weights are the data container ``psi_weights`` (initially zero: the stationary
    kernel); set them with :func:`set_truncation`.

    Parameters
    ----------
    X : array, shape (N, 2)
        Nodes.
    y : array, shape (N,)
        Observations.

    Returns
    -------
    model, gp
        As :func:`pymc_vsk.build_model`.
    """
    with pm.Model() as model:
        weights = pm.Data("psi_weights", truncation_weights(None))
        _, gp = build_model(
            X, y, psi=scaling_function(weights), kernel=KERNEL, priors="flat", standardize=False
        )
    return model, gp


def set_truncation(model: pm.Model, k_vsk: int | None) -> None:
    """Make the model of :func:`build` a VSK with ψ^{K_VSK}.

    Parameters
    ----------
    model : pm.Model
        From :func:`build`.
    k_vsk : int or None
        K_VSK in 0..12; ``None`` for the stationary kernel.
    """
    pm.set_data({"psi_weights": truncation_weights(k_vsk)}, model=model)


# -- the sweep --------------------------------------------------------------------------------
@dataclass
class Sweep:
    """Figures 7 and 8: one stationary and one VSK fit per K_VSK on the same data.

    Attributes
    ----------
    k_values : array of int, shape (n,)
        K_VSK of the VSK fits.
    stationary : dict
        Column (see :data:`COLUMNS`) -> value of the stationary fit.
    vsk : dict
        Column -> array of shape (n,) over ``k_values``.
    predictions : dict
        ``"stationary"`` and each K_VSK -> :class:`~pymc_vsk.prediction.Prediction` on ``grid``.
    X, y : array
        Nodes (N, 2) and observations (N,).
    grid, truth : array
        Evaluation grid (M, 2), from :func:`pymc_vsk.targets.grid_nodes`, and f on it (M,).
    domain : tuple of float
    grid_size : int
    compile_seconds : float
        Building the model and compiling its objective.
    fit_seconds : list of float
        Per fit (stationary first): MLE and prediction on the grid; the first includes the
        compilation of the predictor.
    seconds : float
        Wall time of everything.
    n_models : int
        Models built (and compiled) for the sweep.
    not_converged : list of str
        The fits whose best MAP end point is not an optimum (``"stationary"`` or K_VSK): for
        K_VSK ≳ 9 the likelihood still rises along ℓ, σ_f → ∞ where the optimiser stops
        (module docstring).
    """

    k_values: np.ndarray
    stationary: dict[str, float]
    vsk: dict[str, np.ndarray]
    predictions: dict[str | int, Prediction]
    X: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    truth: np.ndarray
    domain: tuple[float, float]
    grid_size: int
    compile_seconds: float
    fit_seconds: list[float]
    seconds: float
    n_models: int
    not_converged: list[str] = field(default_factory=list)

    def ratio(self, column: str = "rmse") -> np.ndarray:
        """VSK ``column`` (default RMSE) over the stationary one, per K_VSK, shape (n,)."""
        return self.vsk[column] / self.stationary[column]

    def spearman(self, column: str = "rmse") -> float:
        """Spearman rank correlation between K_VSK and the VSK ``column`` (NaN if < 3 K_VSK)."""
        if len(self.k_values) < 3:
            return float("nan")
        return float(scipy.stats.spearmanr(self.k_values, self.vsk[column]).statistic)

    def rounding_level(self) -> list[int]:
        """K_VSK whose average std is below ``FLOOR_FACTOR`` = 10 times :func:`std_floor`."""
        low = self.vsk["mean_std"] < FLOOR_FACTOR * self.vsk["std_floor"]
        return [int(k) for k in self.k_values[low]]

    def checks(self) -> dict[str, bool]:
        """The paper's findings (module docstring), for the K_VSK that were fitted.

        Returns
        -------
        dict
            Check -> whether it holds.
        """
        out = {}
        if len(self.k_values) >= 3:
            for column in ("rmse", "max_error"):
                rho = self.spearman(column)
                out[f"{column} falls as K_VSK grows (Spearman rho {rho:.2f} <= {MAX_SPEARMAN})"] = (
                    rho <= MAX_SPEARMAN
                )
        if K_TARGET in self.k_values:
            ratio = float(self.ratio()[self.k_values == K_TARGET][0])
            out[
                f"K_VSK = {K_TARGET} nearly exact (RMSE {ratio:.1e} x stationary <= "
                f"{EXACT_FACTOR:g})"
            ] = ratio <= EXACT_FACTOR
        worst = int(np.argmax(self.ratio()))
        ratio = float(self.ratio()[worst])
        out[
            f"not much worse than stationary for a poor psi (worst RMSE ratio {ratio:.2f} at "
            f"K_VSK = {self.k_values[worst]} <= {ROBUST_FACTOR})"
        ] = ratio <= ROBUST_FACTOR
        return out


def compute(
    n_nodes: int = N_NODES,
    k_values: Sequence[int] = K_VALUES,
    *,
    grid_size: int = GRID_SIZE,
    domain: tuple[float, float] = DOMAIN,
    n_starts: int = N_STARTS,
    blas_thread_limit: int | None = 1,
) -> Sweep:
    """Fit the stationary kernel and the VSK with ψ^{K_VSK} for each K_VSK; predict on a grid.

    Parameters
    ----------
    n_nodes : int, default 200
        First ``n_nodes`` unscrambled 2-D Halton points, mapped to Ω.
    k_values : sequence of int, default 0, …, 12
        K_VSK to fit (sorted; each in 0..12).
    grid_size : int, default 60
        Evaluation grid of ``grid_size²`` points.
    domain : (float, float), default (0, 1)
        Ω = [low, high]².
    n_starts : int, default 6
        Default starts per fit, besides the previous fit's optimum.
    blas_thread_limit : int or None, default 1
        See :func:`pymc_vsk.blas.blas_threads`.

    Returns
    -------
    Sweep

    Raises
    ------
    TypeError
        ``k_values`` not a sequence of integers (``"12"``, ``12``, ``[12.5]``), or
        ``n_nodes`` or ``grid_size`` not an integer.
    ValueError
        A K_VSK outside 0..12, no K_VSK, or a domain with ``low >= high``.
    MemoryError
        ``n_nodes`` or ``grid_size`` beyond the memory limit
        (:func:`pymc_vsk.memory.check_dense`), checked before any work, as
        ``pymc-vsk reproduce figure7`` checks ``--n-nodes`` and ``--grid``.
    """
    ks = _k_values(k_values)
    low, high = (float(v) for v in domain)
    if not low < high:
        raise ValueError(f"The domain needs low < high; got {domain!r}.")
    n_nodes = check_count(n_nodes, "n_nodes", 1)
    grid_size = check_count(grid_size, "grid_size", 1)
    check_size(n_nodes, grid_size**2, "n_nodes", "grid_size or n_nodes")  # before any work
    steps = Steps(
        2 + len(ks),
        f"fitting the stationary GP and the VSK with psi^K_VSK, K_VSK = "
        f"{', '.join(map(str, ks))}, to N = {n_nodes} 2-D Halton nodes; "
        f"predicting on {grid_size}x{grid_size} points",
    )
    steps.step("making the data, building the model and compiling it, once for all fits")
    X = targets.halton_nodes(n_nodes, d=2, lower=low, upper=high)
    y = targets.weierstrass(X, A, B, K_TARGET)
    grid = targets.grid_nodes(grid_size, low, high)
    truth = targets.weierstrass(grid, A, B, K_TARGET)

    start = time.perf_counter()
    rows: dict[int | None, dict[str, float]] = {}
    predictions: dict[str | int, Prediction] = {}
    fit_seconds: list[float] = []
    not_converged: list[str] = []
    with blas_threads(blas_thread_limit):
        model, gp = build(X, y)
        compiled_objective(model)
        compile_seconds = time.perf_counter() - start
        previous: list[dict[str, np.ndarray]] = []
        for k in [None, *(int(k) for k in ks)]:
            steps.step("stationary" if k is None else f"VSK, K_VSK = {k}")
            tic = time.perf_counter()
            set_truncation(model, k)
            starts = [*previous, *default_starts(model, n_starts, seed=0)]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", NotConvergedWarning)
                point = fit_map(model, starts=starts, warn=False).point
            for warning in caught:  # the summary names the fits that stopped on the ridge
                if issubclass(warning.category, NotConvergedWarning):
                    not_converged.append("stationary" if k is None else str(k))
                else:
                    warnings.warn_explicit(
                        warning.message, warning.category, warning.filename, warning.lineno
                    )
            previous = [{name: point[name] for name in PARAMETERS}]
            prediction = predict(gp, grid, point=point, model=model)
            scores = summarize(prediction.mean, prediction.std_y, truth)
            latent = summarize(prediction.mean, prediction.std_f, truth)
            rows[k] = {
                **{name: float(point[name]) for name in PARAMETERS},
                **scores,
                "mean_std_f": latent["mean_std"],
                "max_std_f": latent["max_std"],
                "std_floor": std_floor(float(point["sigma_f"])),
            }
            predictions["stationary" if k is None else k] = prediction
            fit_seconds.append(time.perf_counter() - tic)
    return Sweep(
        k_values=ks,
        stationary=rows[None],
        vsk={c: np.array([rows[int(k)][c] for k in ks]) for c in COLUMNS},
        predictions=predictions,
        X=X,
        y=y,
        grid=grid,
        truth=truth,
        domain=(low, high),
        grid_size=grid_size,
        compile_seconds=compile_seconds,
        fit_seconds=fit_seconds,
        seconds=time.perf_counter() - start,
        n_models=1,
        not_converged=list(dict.fromkeys(not_converged)),
    )


def _k_values(k_values: Sequence[int]) -> np.ndarray:
    """``k_values`` checked (each an integer in 0..12), sorted and without repeats."""
    if isinstance(k_values, str) or not isinstance(k_values, Iterable):
        raise TypeError(
            f"k_values is a sequence of K_VSK in 0..{K_TARGET}, e.g. [0, 4, 12]; got {k_values!r}."
        )
    ks = sorted({check_count(k, "each K_VSK", 0) for k in k_values})
    if not ks:
        raise ValueError("Need at least one K_VSK.")
    truncation_weights(ks[-1])  # validates the range
    return np.array(ks, dtype=int)


# -- output -----------------------------------------------------------------------------------
def describe(sweep: Sweep) -> str:
    """The setup of ``sweep``, with the choices the paper leaves open, as printed."""
    low, high = sweep.domain
    return (
        f"Figures 7-8 (Section 4.2): f = truncated Weierstrass, a = {A}, b = {B:g}, "
        f"K = {K_TARGET}, on [{low:g}, {high:g}]^2.\n"
        f"Our choices (not in the paper): N = {len(sweep.X)} unscrambled 2-D Halton nodes, "
        "noise-free observations with sigma_n fitted, Matérn C4 with one length scale on "
        f"[x, psi(x)], constant mean, MLE (flat priors, {N_STARTS} default starts + the "
        f"previous fit's optimum); metrics on a regular {sweep.grid_size}x{sweep.grid_size} "
        "grid, std = predictive std of y (noise included).\n"
        "psi^K_VSK = first K_VSK + 1 terms of f; psi = 0 is the stationary kernel."
    )


def format_summary(sweep: Sweep) -> str:
    """Setup, metrics and hyper-parameters per K_VSK, the paper's findings and the timings.

    Parameters
    ----------
    sweep : Sweep
        The figure7 results to print.

    Returns
    -------
    str
    """
    shown = (*METRICS, "ls", "sigma_f", "sigma_n")
    table = pd.DataFrame(
        [
            sweep.stationary,
            *({c: sweep.vsk[c][i] for c in COLUMNS} for i in range(len(sweep.k_values))),
        ],
        index=["stationary", *map(str, sweep.k_values)],
    )[list(shown)].rename_axis(columns="K_VSK")
    formats = dict.fromkeys(METRICS, ".3e") | dict.fromkeys(("ls", "sigma_f", "sigma_n"), ".3g")
    lines = [describe(sweep), text_table(table, formats, index=True)]
    ratio = sweep.ratio()
    lines.append(
        "RMSE ratio VSK/stationary: "
        + ", ".join(f"{k}: {r:.3g}" for k, r in zip(sweep.k_values, ratio, strict=True))
    )
    lines.append(
        f"max error ratio at K_VSK = {sweep.k_values[0]}: {sweep.ratio('max_error')[0]:.2f}"
    )
    rounding = sweep.rounding_level()
    if rounding:
        lines.append(
            f"note: the std at K_VSK = {', '.join(map(str, rounding))} is at the rounding level "
            f"(average std < {FLOOR_FACTOR:g} x sigma_f sqrt(eps)): with sigma_f that large, "
            "only its order of magnitude means anything"
        )
    if sweep.not_converged:
        ks = [k for k in sweep.not_converged if k != "stationary"]
        which = ["the stationary kernel"] * ("stationary" in sweep.not_converged)
        which += [f"K_VSK = {', '.join(ks)}"] * bool(ks)
        lines.append(
            f"note: the MLE stopped before an optimum for {' and '.join(which)}: the "
            "likelihood still rises there as ℓ and σ_f grow together, with little left for "
            "sigma_n to explain; the fit is taken where the optimiser stopped"
        )
    for name, ok in sweep.checks().items():
        lines.append(f"paper's finding: {name}: {'yes' if ok else 'NO'}")
    fits = sweep.fit_seconds
    lines.append(
        f"{sweep.n_models} model built and compiled once ({sweep.compile_seconds:.1f} s), "
        f"{len(fits)} fits in {sum(fits):.1f} s (the first {fits[0]:.1f} s, with the "
        f"predictor's compilation; later ones {np.median(fits[1:]) if len(fits) > 1 else 0:.1f} "
        f"s median); total {sweep.seconds:.1f} s"
    )
    return "\n".join(lines)


def save(sweep: Sweep, out: Path) -> list[Path]:
    """Write ``figure7.csv``, ``figure7.png`` (metrics against K_VSK), ``figure8.png`` (maps).

    Parameters
    ----------
    sweep : Sweep
        The sweep of Figures 7–8.
    out : Path
        Directory for the figure7 files, created if needed.

    Returns
    -------
    list of Path
        figure7.csv, figure7.png and figure8.png.
    """
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "figure7.csv"
    stationary = pd.DataFrame(
        {"kernel": ["stationary"], "K_VSK": [""]} | {c: [sweep.stationary[c]] for c in COLUMNS}
    )
    vsk = pd.DataFrame(
        {"kernel": "vsk", "K_VSK": sweep.k_values.astype(int)} | {c: sweep.vsk[c] for c in COLUMNS}
    )
    write_csv(pd.concat([stationary, vsk], ignore_index=True), csv_path, COLUMNS)
    fig7 = save_figures({"figure7": figure7(sweep)}, out)
    return [csv_path, *fig7, *save_figures({"figure8": figure8(sweep)}, out, dpi=110)]


def figure7(sweep: Sweep) -> Figure:
    """Figure 7: RMSE, maximum error, average and maximum std against K_VSK (log scale).

    The stationary fit does not depend on K_VSK: a horizontal line.

    Parameters
    ----------
    sweep : Sweep
        The figure7 sweep to draw.

    Returns
    -------
    Figure
    """
    n = len(sweep.k_values)
    curves = {
        "stationary": {c: np.full(n, sweep.stationary[c]) for c in METRICS},
        "vsk": {c: sweep.vsk[c] for c in METRICS},
    }
    return plotting.metric_curves(
        sweep.k_values,
        curves,
        METRICS,
        log=tuple(METRICS),
        titles={"stationary": "stationary Matérn C4", "vsk": "VSK Matérn C4, ψ^K_VSK"},
        xlabel="K_VSK",
    )


def figure8(sweep: Sweep, k_shown: Sequence[int] = FIGURE8_K) -> Figure:
    """Figure 8: target, stationary and VSK reconstructions with error and std maps.

    Rows: posterior mean (one colour scale with the target), then on log scales ``|mean − f|``, the
    predictive std of y (the metrics' std, nearly σ_n where σ_n dominates) and the latent std of
    f (where the nodes and ψ leave the function uncertain); the nodes are drawn on the target.

    Parameters
    ----------
    sweep : Sweep
    k_shown : sequence of int, default (2, 4, 12)
        K_VSK of the VSK columns (those of the paper's Figure 8).

    Returns
    -------
    Figure
    """
    return plotting.field_maps(
        figure8_maps(sweep, k_shown),
        shape=(sweep.grid_size, sweep.grid_size),
        extent=(*sweep.domain, *sweep.domain),
        rows={
            "mean": "posterior mean",
            "error": "|mean − f|",
            "std": "std (y)",
            "std_f": "latent std (f)",
        },
        log=("error", "std", "std_f"),
        points=sweep.X,
    )


def figure8_maps(
    sweep: Sweep, k_shown: Sequence[int] = FIGURE8_K
) -> dict[str, dict[str, np.ndarray]]:
    """Panel title -> row ("mean", "error", "std", "std_f") -> values on the grid (Figure 8).

    Columns: the target, the stationary fit and the VSK for each K_VSK in ``k_shown`` that was
    fitted (the three largest fitted K_VSK if none was).

    Parameters
    ----------
    sweep : Sweep
    k_shown : sequence of int, default (2, 4, 12)

    Returns
    -------
    dict
    """
    shown = [k for k in k_shown if k in sweep.k_values] or [int(k) for k in sweep.k_values[-3:]]
    maps = {"target f": {"mean": sweep.truth}}
    for key in ["stationary", *shown]:
        p = sweep.predictions[key]
        title = "stationary" if key == "stationary" else f"VSK, K_VSK = {key}"
        error = np.abs(p.mean - sweep.truth)
        maps[title] = {"mean": p.mean, "error": error, "std": p.std_y, "std_f": p.std_f}
    return maps


# -- command line -----------------------------------------------------------------------------
class _DomainAction(argparse.Action):
    """Store ``--domain LOW HIGH``, rejecting LOW >= HIGH."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Sequence[float],
        option_string: str | None = None,
    ) -> None:
        low, high = values
        if not low < high:
            parser.error(f"argument {option_string}: must be LOW < HIGH, got {low:g} {high:g}")
        setattr(namespace, self.dest, [low, high])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce figure7``.

    ``--out``, ``--n-nodes``, ``--k-vsk``, ``--grid`` and ``--domain``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce figure7``.
    """
    add_out_option(parser, Path("out/figure7"), "the CSV file and the figures")
    sizes = (
        ("--n-nodes", N_NODES, "N", f"number of 2-D Halton nodes (default {N_NODES})"),
        ("--grid", GRID_SIZE, "M", f"evaluation grid of M x M points (default {GRID_SIZE})"),
    )
    for flag, default, metavar, text in sizes:
        parser.add_argument(flag, type=int_in(4), default=default, metavar=metavar, help=text)
    parser.add_argument(
        "--k-vsk",
        type=int_in(0, K_TARGET),
        nargs="+",
        default=list(K_VALUES),
        metavar="K",
        help=f"K_VSK values to fit (default 0 … {K_TARGET})",
    )
    parser.add_argument(
        "--domain",
        type=finite_float,
        nargs=2,
        action=_DomainAction,
        default=list(DOMAIN),
        metavar=("LOW", "HIGH"),
        help="domain [LOW, HIGH]^2 (default 0 1)",
    )


def main(args: argparse.Namespace) -> int:
    """Run the sweep, print its summary, save the CSV file and the figures.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk reproduce figure7``.

    Returns
    -------
    int
        Exit status: 1 if a finding of the paper (:meth:`Sweep.checks`) fails, 2 if
        ``--n-nodes`` or ``--grid`` is beyond the memory limit (checked before any work),
        else 0.
    """
    problem = size_problem(args.n_nodes, args.grid**2, "--n-nodes", "--grid or --n-nodes")
    if problem is not None:
        return refuse("figure7", problem)
    sweep = compute(args.n_nodes, args.k_vsk, grid_size=args.grid, domain=tuple(args.domain))
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the sweep's files
    saved = save(sweep, args.out)
    print(format_summary(sweep))
    for path in saved:
        print(f"saved {path}")
    return 0 if all(sweep.checks().values()) else 1
