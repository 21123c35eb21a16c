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
