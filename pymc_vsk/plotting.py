"""Figures in the paper's style: posterior bands and covariance matrices (matplotlib).

Every function returns a ``matplotlib.figure.Figure``; the caller saves or shows it. The
non-interactive Agg backend is used unless a backend was chosen already.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

if matplotlib.get_backend().lower() not in {"agg", "module://matplotlib_inline.backend_inline"}:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["covariance_matrices", "metric_curves", "posterior_bands"]


def posterior_bands(
    x: np.ndarray,
    mean: Mapping[str, np.ndarray],
    std: Mapping[str, np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    truth: np.ndarray | None = None,
    titles: Mapping[str, str] | None = None,
) -> Figure:
    """One panel per model: posterior mean with ±2 std band, training data and target.

    Parameters
    ----------
    x : array, shape (M,)
        Evaluation points (sorted).
    mean, std : dict of model name -> array, shape (M,)
    X, y : array, shape (N,)
        Training inputs and observations.
    truth : array, shape (M,), optional
        Target at ``x``.
    titles : dict of model name -> str, optional
    """
    names = list(mean)
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 3.6), sharey=True)
    for ax, name in zip(np.atleast_1d(axes), names, strict=True):
        m, s = mean[name], std[name]
        ax.fill_between(x, m - 2 * s, m + 2 * s, color="C0", alpha=0.25, label="±2 std")
        ax.plot(x, m, color="C0", label="posterior mean")
        if truth is not None:
            ax.plot(x, truth, color="k", lw=0.8, ls="--", label="target")
        ax.plot(X, y, "o", color="C3", ms=4, label="data")
        ax.set_title((titles or {}).get(name, name))
        ax.set_xlabel("x")
    np.atleast_1d(axes)[0].legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def covariance_matrices(
    matrices: Mapping[str, np.ndarray], titles: Mapping[str, str] | None = None
) -> Figure:
    """Images of training covariance matrices side by side (Figures 3 and 12 of the paper)."""
    names = list(matrices)
    vmax = max(float(np.max(matrices[n])) for n in names)
    vmin = min(0.0, *(float(np.min(matrices[n])) for n in names))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8))
    for ax, name in zip(np.atleast_1d(axes), names, strict=True):
        image = ax.imshow(matrices[name], vmin=vmin, vmax=vmax, cmap="viridis")
        ax.set_title((titles or {}).get(name, name))
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    return fig


def metric_curves(
    x: np.ndarray,
    values: Mapping[str, Mapping[str, np.ndarray]],
    labels: Mapping[str, str],
    log: Sequence[str] = (),
    titles: Mapping[str, str] | None = None,
    xlabel: str = "N",
    ncols: int = 2,
) -> Figure:
    """One panel per metric, one curve per model: median over repetitions, 10–90 % band.

    Parameters
    ----------
    x : array, shape (n,)
        Abscissa (e.g. the number of nodes).
    values : dict of model name -> dict of metric -> array, shape (n,) or (n, k)
        ``k`` repetitions (seeds) per abscissa; the band is drawn when ``k > 1``.
    labels : dict of metric -> str
        Panel titles, in panel order.
    log : sequence of str
        Metrics drawn on a log y-axis.
    titles : dict of model name -> str, optional
        Legend entries.
    """
    metrics = list(labels)
    nrows = -(-len(metrics) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.6 * nrows), squeeze=False)
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        for i, (model, rows) in enumerate(values.items()):
            v = np.asarray(rows[metric], dtype=float).reshape(len(x), -1)
            label = (titles or {}).get(model, model)
            ax.plot(x, np.median(v, axis=1), color=f"C{i}", marker=".", label=label)
            if v.shape[1] > 1:
                lo, hi = np.quantile(v, [0.1, 0.9], axis=1)
                ax.fill_between(x, lo, hi, color=f"C{i}", alpha=0.2, lw=0)
        if metric in log:
            ax.set_yscale("log")
        ax.set_title(labels[metric])
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes.ravel()[len(metrics) :]:
        ax.set_visible(False)
    axes[0, 0].legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def curves(
    x: np.ndarray,
    ys: Mapping[str, np.ndarray],
    xlabel: str = "x",
    title: str | None = None,
) -> Figure:
    """Several labelled curves over one axis (e.g. kernel basis functions, Figure 14)."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for label, y in ys.items():
        ax.plot(x, y, label=label)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
