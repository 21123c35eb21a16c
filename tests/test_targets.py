"""Paper targets and node sets."""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest

from pymc_vsk import targets
from tests import reference as ref
from tests.conftest import evaluate


def test_jump_target_matches_section_4_1_and_puts_half_on_the_right():
    x = np.linspace(0, 1, 101)
    np.testing.assert_allclose(targets.jump(x), ref.jump_target(x), rtol=1e-14)
    left = np.cos(14 * np.pi) / 1.5 + 3.0
    assert targets.jump(np.array([0.5]))[0] == pytest.approx(np.cos(14 * np.pi) / 1.5)
    assert targets.jump(np.array([0.5 - 1e-12]))[0] == pytest.approx(left)


def test_corner_target_is_continuous_with_a_kink():
    h = 1e-7
    f = targets.corner(np.array([0.5 - h, 0.5, 0.5 + h]))
    assert f[1] == pytest.approx(np.exp(-0.125))
    assert abs(f[0] - f[2]) < 1e-8
    slope_left = (targets.corner(np.array([0.5])) - targets.corner(np.array([0.5 - h]))) / h
    slope_right = (targets.corner(np.array([0.5 + h])) - targets.corner(np.array([0.5]))) / h
    # f'(0.5±) = ∓5·e^{-1/8}·... : the two one-sided slopes have opposite signs
    assert slope_left[0] < -1 and slope_right[0] > 1


def test_targets_work_on_pytensor_tensors():
    x = np.linspace(-1, 1, 11)[:, None]
    (a, b, c) = evaluate(
        targets.exp_cos(pt.as_tensor_variable(x)),
        targets.jump(pt.as_tensor_variable(x)),
        targets.corner(pt.as_tensor_variable(x)),
    )
    np.testing.assert_allclose(a, np.exp(x[:, 0]) - np.cos(2 * np.pi * x[:, 0]), rtol=1e-14)
    np.testing.assert_allclose(b, targets.jump(x), rtol=1e-14)
    np.testing.assert_allclose(c, targets.corner(x), rtol=1e-14)


def test_halton_nodes_are_matlab_unscrambled_starting_at_zero():
    np.testing.assert_array_equal(
        targets.halton_nodes(8)[:, 0], [0, 0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875]
    )
    assert 0.5 in targets.halton_nodes(27)
    X2 = targets.halton_nodes(3, d=2)
    np.testing.assert_allclose(X2[:, 1], [0, 1 / 3, 2 / 3])


def test_uniform_and_grid_nodes():
    np.testing.assert_array_equal(targets.uniform_nodes(6)[:, 0], np.linspace(0, 1, 6))
    assert 0.5 in targets.uniform_nodes(31)  # N = 11 + 20j: the corner is a node
    G = targets.grid_nodes(3)
    assert G.shape == (9, 2) and {tuple(g) for g in G} >= {(0.0, 0.0), (0.5, 1.0)}


def test_chebyshev_nodes():
    x = targets.chebyshev_nodes(9)[:, 0]
    k = np.arange(1, 10)
    np.testing.assert_allclose(np.sort(np.cos((2 * k - 1) * np.pi / 18)), x, atol=1e-15)
    assert x[4] == 0.0  # the central node
    xl = targets.chebyshev_nodes(5, 0.0, 1.0, kind="lobatto")[:, 0]
    np.testing.assert_allclose(
        xl, [0, 0.5 - np.sqrt(2) / 4, 0.5, 0.5 + np.sqrt(2) / 4, 1], atol=1e-15
    )
    assert targets.uniform_nodes(np.array(5)).shape == (5, 1)  # a 0-d array is a number
    reversed_bounds = targets.chebyshev_nodes(5, 1.0, 0.0, kind="lobatto")[:, 0]
    np.testing.assert_allclose(reversed_bounds, xl, atol=1e-15)  # increasing, as documented
    with pytest.raises(ValueError, match="kind must be"):
        targets.chebyshev_nodes(3, kind="x")
    with pytest.raises(ValueError, match="positive integer"):
        targets.uniform_nodes(0)
