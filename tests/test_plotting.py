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
