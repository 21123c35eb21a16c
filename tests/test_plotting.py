"""Figures: a field with blank cells keeps the colour scale of its values."""

from __future__ import annotations

import numpy as np
import pytest

from pymc_vsk.plotting import field_maps


@pytest.mark.parametrize("log", [(), ("e",)])
def test_a_nan_cell_leaves_the_colour_scale_to_the_other_values(log):
    """One NaN (a grid point where a fit failed) made the scale −0.1 to 0.1 for values 1 to
    30, and a log row failed with "Invalid vmin or vmax"."""
    values = np.arange(16.0)
    values[0] = np.nan
    fig = field_maps(
        {"A": {"e": values}, "B": {"e": 2 * values}}, (4, 4), (0, 1, 0, 1), {"e": "e"}, log=log
    )
    norm = fig.axes[0].images[0].norm
    assert (norm.vmin, norm.vmax) == (1.0, 30.0)


def test_a_log_row_without_a_positive_value_is_drawn_on_a_linear_scale():
    """A std of exactly 0 everywhere made the log scale 0 to 0: matplotlib's "Invalid vmin
    or vmax"."""
    fig = field_maps({"A": {"s": np.zeros(16)}}, (4, 4), (0, 1, 0, 1), {"s": "std"}, log=["s"])
    norm = fig.axes[0].images[0].norm
    assert (norm.vmin, norm.vmax) == (0.0, 1.0)
    fig.canvas.draw()


def test_posterior_bands_take_the_column_given_to_predict():
    from pymc_vsk import targets
    from pymc_vsk.plotting import posterior_bands

    grid, X = np.linspace(0, 1, 50)[:, None], targets.halton_nodes(8)
    band = {"vsk": np.sin(grid[:, 0])}, {"vsk": np.full(50, 0.1)}
    fig = posterior_bands(grid, *band, X, targets.jump(X))
    np.testing.assert_array_equal(fig.axes[0].lines[0].get_xdata(), grid[:, 0])


def _bands(**changes):
    from pymc_vsk.plotting import posterior_bands

    x = np.linspace(0, 1, 20)
    args = {"x": x, "mean": {"a": x, "b": x}, "std": {"a": 0.1 + 0 * x, "b": 0.1 + 0 * x}}
    args |= {"X": x[:5], "y": x[:5], "truth": x}
    return posterior_bands(**(args | changes))


def _metrics(**changes):
    from pymc_vsk.plotting import metric_curves

    args = {"x": np.arange(4), "values": {"m": {"r": np.ones((4, 3))}}, "labels": {"r": "R"}}
    return metric_curves(**(args | changes))


def _maps(**changes):
    values = {"A": {"m": np.arange(12.0), "s": np.arange(12.0)}, "B": {"m": np.arange(12.0)}}
    args = {"values": values, "shape": (3, 4), "extent": (0, 1, 0, 1), "rows": {"m": "mean"}}
    return field_maps(**(args | changes))


@pytest.mark.parametrize(
    ("draw", "match"),
    [
        (lambda: _bands(std={"a": np.ones(20)}), r"std has no values for the model\(s\) \['b'\]"),
        (lambda: _bands(mean={}, std={}), "mean is empty"),
        (lambda: _bands(mean={"a": np.ones(5), "b": np.ones(5)}), "has 5 values, but there are 20"),
        (lambda: _bands(truth=np.ones(3)), "truth has 3 values"),
        (lambda: _bands(x=np.ones((20, 2))), r"x must be 1-D or a single column"),
        (lambda: _metrics(labels={"r": "R", "mae": "MAE"}), r"no values for the metric\(s\)"),
        (lambda: _metrics(x=np.arange(5)), "not 5 \\(one per x\\) times"),
        (lambda: _metrics(ncols=0), "ncols is the number of panels"),
        (lambda: _metrics(labels={}), "labels is empty"),
        (lambda: _maps(shape=(3, 3)), r"has 12 values, but the grid of shape \(3, 3\) has 9"),
        (lambda: _maps(rows={"x": "X"}), "No column has values for the row 'x'"),
        (lambda: _maps(extent=(0, 1)), r"extent \(x1_min, x1_max, x2_min, x2_max\)"),
        (lambda: _maps(points=np.zeros(4)), r"points must have shape \(N, 2\)"),
    ],
)
def test_wrong_inputs_are_named_before_anything_is_drawn(draw, match):
    """They failed inside matplotlib or numpy: KeyError 'b', "Number of columns must be a
    positive integer, not 0", "cannot reshape array of size 12 into shape (3,3)", "max()
    iterable argument is empty", "tuple index out of range", ZeroDivisionError."""
    with pytest.raises(ValueError, match=match):
        draw()


def test_every_figure_function_returns_a_figure_outside_pyplot():
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from pymc_vsk.plotting import covariance_matrices, curves

    before = plt.get_fignums()
    x = list(np.linspace(0, 1, 20))  # lists are taken as arrays
    figures = [
        _bands(x=x, mean={"a": x}, std={"a": [0.1] * 20}, X=x[:5], y=x[:5], truth=x),
        covariance_matrices({"a": np.eye(3), "b": [[1.0, 0.5], [0.5, 1.0]]}),
        _metrics(values={"m": {"r": np.arange(1.0, 5.0)}}, log=["r"]),
        curves(x, {"x": x}, title="t"),
        _maps(rows={"m": "mean", "s": "std"}, log=["s"], points=[[0.5, 0.5]]),
    ]
    for fig in figures:
        assert isinstance(fig, Figure)
        fig.canvas.draw()
    assert plt.get_fignums() == before


def test_one_log_name_given_as_a_string_is_that_name_not_its_letters():
    """log="std" put a row or metric named "s" (a letter of "std") on a log scale too."""
    values = {"m": {"s": np.arange(1.0, 5.0), "std": np.arange(1.0, 5.0)}}
    fig = _metrics(values=values, labels={"s": "s", "std": "std"}, log="std")
    assert [ax.get_yscale() for ax in fig.axes[:2]] == ["linear", "log"]
    maps = {"A": {"s": np.arange(1.0, 13.0), "std": np.arange(1.0, 13.0)}}
    fig = _maps(values=maps, rows={"s": "s", "std": "std"}, log="std")
    norms = [type(ax.images[0].norm).__name__ for ax in fig.axes if ax.images]
    assert norms == ["Normalize", "LogNorm"]
