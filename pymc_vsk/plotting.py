"""Figures in the paper's style: posterior bands, covariance matrices, metric curves, 2-D maps.

Every function returns a ``matplotlib.figure.Figure`` made without pyplot, so making and saving
figures works with any matplotlib backend and leaves the user's backend and pyplot's figures
alone; the caller saves it (``fig.savefig``) or shows it (a notebook displays it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.colors import LogNorm, Normalize
from matplotlib.figure import Figure

__all__ = ["covariance_matrices", "curves", "field_maps", "metric_curves", "posterior_bands"]


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
    x : array, shape (M,) or (M, 1)
        Evaluation points (sorted); the column given to ``predict`` does.
    mean, std : dict of model name -> array, shape (M,)
        Posterior mean and standard deviation per model (one panel each).
    X, y : array, shape (N,) or (N, 1)
        Training inputs and observations.
    truth : array, shape (M,), optional
        Target at ``x``.
    titles : dict of model name -> str, optional
        Panel titles (default: the model names).

    Returns
    -------
    Figure
    """
    x = _curve(x, "x")
    names = _names(mean, "mean", "model")
    missing = [name for name in names if name not in std]
    if missing:
        raise ValueError(f"std has no values for the model(s) {missing} that mean has.")
    X, y = _curve(X, "X"), _curve(y, "y", len(_curve(X, "X")))
    if truth is not None:
        truth = _curve(truth, "truth", len(x))
    fig = Figure(figsize=(5 * len(names), 3.6))
    axes = fig.subplots(1, len(names), sharey=True)
    for ax, name in zip(np.atleast_1d(axes), names, strict=True):
        m = _curve(mean[name], f"mean[{name!r}]", len(x))
        s = _curve(std[name], f"std[{name!r}]", len(x))
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
    """Images of training covariance matrices side by side (Figures 3 and 12 of the paper).

    Parameters
    ----------
    matrices : dict of model name -> array, shape (N, N)
        One colour scale for all.
    titles : dict of model name -> str, optional
        Image titles, by model (default: the model names).

    Returns
    -------
    Figure
    """
    names = _names(matrices, "matrices", "matrix")
    matrices = {n: np.asarray(matrices[n], dtype=float) for n in names}
    for name, matrix in matrices.items():
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(
                f"matrices[{name!r}] must be a square matrix (N, N); got shape {matrix.shape}."
            )
    vmax = max(float(np.max(matrices[n])) for n in names)
    vmin = min(0.0, *(float(np.min(matrices[n])) for n in names))
    fig = Figure(figsize=(4.2 * len(names), 3.8))
    axes = fig.subplots(1, len(names))
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
    xlabel : str, default "N"
    ncols : int, default 2
        Panels per row.

    Returns
    -------
    Figure
    """
    metrics = _names(labels, "labels", "metric")
    log = _keys(log)
    if isinstance(ncols, bool) or not isinstance(ncols, int | np.integer) or ncols < 1:
        raise ValueError(f"ncols is the number of panels per row, at least 1; got {ncols!r}.")
    x = _curve(x, "x")
    for model in _names(values, "values", "model"):
        missing = [metric for metric in metrics if metric not in values[model]]
        if missing:
            raise ValueError(f"values[{model!r}] has no values for the metric(s) {missing}.")
        for metric in metrics:
            size = np.size(values[model][metric])
            if size == 0 or size % len(x):
                raise ValueError(
                    f"values[{model!r}][{metric!r}] has {size} values, which is not "
                    f"{len(x)} (one per x) times a number of repetitions."
                )
    nrows = -(-len(metrics) // ncols)
    fig = Figure(figsize=(5.2 * ncols, 3.6 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False)
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
    """Several labelled curves over one axis (e.g. kernel basis functions, Figure 14).

    Parameters
    ----------
    x : array, shape (M,)
    ys : dict of label -> array, shape (M,)
    xlabel : str, default "x"
    title : str, optional

    Returns
    -------
    Figure
    """
    x = _curve(x, "x")
    _names(ys, "ys", "curve")
    fig = Figure(figsize=(6, 3.6))
    ax = fig.subplots()
    for label, y in ys.items():
        ax.plot(x, _curve(y, f"ys[{label!r}]", len(x)), label=label)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def field_maps(
    values: Mapping[str, Mapping[str, np.ndarray]],
    shape: tuple[int, int],
    extent: tuple[float, float, float, float],
    rows: Mapping[str, str],
    log: Sequence[str] = (),
    points: np.ndarray | None = None,
    cmaps: Mapping[str, str] | None = None,
) -> Figure:
    """Images of 2-D fields: one column per panel, one row per quantity (e.g. Figure 8).

    Every row shares one colour scale and colour bar, so columns compare directly.

    Parameters
    ----------
    values : dict of column title -> dict of row key -> array, shape (n1 * n2,)
        Values on the tensor grid of :func:`pymc_vsk.targets.grid_nodes` (``x1`` varies
        slowest). A missing row leaves that panel empty.
    shape : (int, int)
        Grid points along ``x1`` and ``x2``.
    extent : (x1_min, x1_max, x2_min, x2_max)
        The domain.
    rows : dict of row key -> label, in row order
        Quantities drawn, with their colour-bar labels.
    log : sequence of str
        Rows drawn on a logarithmic colour scale (non-positive values are shown at its minimum;
        a row with no positive value gets a linear one).
    points : array, shape (N, 2), optional
        Nodes, drawn on the first column.
    cmaps : dict of row key -> colormap name, optional
        Default ``"viridis"``.

    Returns
    -------
    Figure
    """
    names, keys = _names(values, "values", "column"), _names(rows, "rows", "row")
    log = _keys(log)
    if len(shape) != 2 or len(extent) != 4:
        raise ValueError(
            f"shape is (n1, n2) and extent (x1_min, x1_max, x2_min, x2_max); got shape={shape} "
            f"and extent={extent}."
        )
    for key in keys:
        if not any(key in values[n] for n in names):
            raise ValueError(f"No column has values for the row {key!r}.")
        for name in names:
            size = np.size(values[name].get(key, np.empty(shape)))
            if size != shape[0] * shape[1]:
                raise ValueError(
                    f"values[{name!r}][{key!r}] has {size} values, but the grid of shape "
                    f"{tuple(shape)} has {shape[0] * shape[1]}."
                )
    if points is not None:
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"points must have shape (N, 2); got {points.shape}.")
    fig = Figure(figsize=(2.9 * len(names) + 1.0, 2.7 * len(keys)), layout="constrained")
    axes = fig.subplots(len(keys), len(names), squeeze=False)
    for r, key in enumerate(keys):
        fields = [np.asarray(values[n][key], dtype=float) for n in names if key in values[n]]
        norm = _shared_norm(fields, key in log)
        image = None
        for c, name in enumerate(names):
            ax = axes[r, c]
            if key not in values[name]:
                ax.set_axis_off()
                continue
            field = np.asarray(values[name][key], dtype=float).reshape(shape)
            if key in log:
                field = np.clip(field, norm.vmin, None)
            image = ax.imshow(
                field.T,
                origin="lower",
                extent=extent,
                norm=norm,
                cmap=(cmaps or {}).get(key, "viridis"),
                interpolation="nearest",
            )
            if points is not None and c == 0:
                ax.plot(points[:, 0], points[:, 1], ".", color="w", ms=3.5, mec="k", mew=0.4)
            ax.set_title(name if r == 0 else "", fontsize=10)
            ax.set_xticks([])
            ax.set_yticks([])
        if image is not None:
            fig.colorbar(image, ax=axes[r, :].tolist(), shrink=0.9, label=rows[key])
    return fig


def _shared_norm(fields: Sequence[np.ndarray], log: bool) -> Normalize:
    """One colour scale for several fields; for a log scale, from the smallest positive value."""
    vmax = max(float(np.nanmax(f)) for f in fields)  # NaN: a cell left blank
    if not log:
        return Normalize(min(float(np.nanmin(f)) for f in fields), vmax)
    positive = [float(np.min(f[f > 0])) for f in fields if np.any(f > 0)]
    if not positive:  # nothing above 0 (a std of exactly 0): no log scale to draw
        vmin = min(float(np.nanmin(f)) for f in fields)
        return Normalize(vmin, vmax if vmax > vmin else vmin + 1.0)
    vmin = min(positive)
    return LogNorm(max(vmin, vmax * 1e-12), vmax)


def _names(mapping: Mapping, name: str, what: str) -> list:
    """The keys of ``mapping``, or a ValueError when it has none."""
    keys = list(mapping)
    if not keys:
        raise ValueError(f"{name} is empty: give at least one {what}.")
    return keys


def _keys(names: Sequence[str]) -> tuple:
    """Names as a tuple; one name given as a string is that name (not its letters)."""
    return (names,) if isinstance(names, str) else tuple(names)


def _curve(values: np.ndarray, name: str, length: int | None = None) -> np.ndarray:
    """``values`` as a 1-D float array (a single column is flattened) of ``length`` if given."""
    array = np.asarray(values, dtype=float)
    array = array[:, 0] if array.ndim == 2 and array.shape[1] == 1 else array
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D or a single column; got shape {array.shape}.")
    if length is not None and len(array) != length:
        raise ValueError(f"{name} has {len(array)} values, but there are {length} points.")
    return array
