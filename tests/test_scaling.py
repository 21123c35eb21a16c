"""Scaling functions: numpy and pytensor paths agree with the paper's formulas."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest

from pymc_vsk import scaling
from tests import reference as ref
from tests.conftest import SCALINGS, evaluate, inputs


@pytest.mark.parametrize("name", list(SCALINGS))
def test_numpy_and_pytensor_evaluations_equal_the_reference(name):
    d, make_psi, psi_ref = SCALINGS[name]
    psi = make_psi()
    X = inputs(d, 25, seed=21)
    expected = psi_ref(X)
    np.testing.assert_allclose(psi(X), expected, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(psi.numpy(X), expected, rtol=1e-13, atol=1e-14)
    (symbolic,) = evaluate(psi(pt.as_tensor_variable(X)))
    np.testing.assert_allclose(symbolic, expected, rtol=1e-13, atol=1e-14)
    assert (expected.shape[1] if expected.ndim == 2 else 1) == psi.q


def test_every_registered_class_and_kernel_has_a_closed_form_reference():
    from pymc_vsk.kernels import base_kernels

    classes = {
        n for n, c in scaling.scaling_functions().items() if c.__module__ == "pymc_vsk.scaling"
    }
    assert classes >= {"Jump", "SmoothJump", "Corner", "Disk", "HalfPlane", "Stack", "FromFunction"}
    assert classes - set(ref.PSI_EXAMPLES) == set(), "add ψ references in tests/reference.py"
    kernels = {c.__name__ for c in base_kernels().values() if c.__module__ == "pymc.gp.cov"}
    assert kernels >= {"ExpQuad", "Matern12", "Matern32", "Matern52", "Exponential", "RatQuad"}
    assert kernels - set(ref.RADIAL) == set(), "add φ references in tests/reference.py"


def test_a_new_scaling_class_is_registered_and_evaluates_on_numpy_and_tensors():
    class Sine(scaling.ScalingFunction):
        def __init__(self, frequency=3.0):
            super().__init__(frequency=frequency)

        def _formula(self, X, frequency):
            return pt.sin(frequency * X[:, 0]) + pt.log1p(X[:, 0] ** 2)

    assert scaling.scaling_functions()["Sine"] is Sine
    X = inputs(1, 7, seed=3)
    expected = np.sin(3.0 * X[:, 0]) + np.log1p(X[:, 0] ** 2)
    np.testing.assert_allclose(Sine.example().numpy(X), expected, rtol=1e-14)
    (symbolic,) = evaluate(Sine()(pt.as_tensor_variable(X)))
    np.testing.assert_allclose(symbolic, expected, rtol=1e-14)


def test_a_point_exactly_at_a_jump_belongs_to_the_right_branch():
    x = np.array([[0.5 - 1e-12], [0.5], [0.5 + 1e-12]])
    np.testing.assert_array_equal(scaling.Jump(0.5)(x), [0.0, 1.0, 1.0])
    (sym,) = evaluate(scaling.Jump(0.5)(pt.as_tensor_variable(x)))
    np.testing.assert_array_equal(sym, [0.0, 1.0, 1.0])


def test_smooth_jump_tends_to_the_hard_jump_as_the_width_shrinks():
    X = inputs(1, 50, seed=22)
    X = X[np.abs(X[:, 0] - 0.5) > 0.01]
    np.testing.assert_allclose(
        scaling.SmoothJump([0.3, 0.5], [2.0, 1.0], width=1e-4)(X),
        scaling.Jump([0.3, 0.5], [2.0, 1.0])(X),
        atol=1e-12,
    )


def test_ninety_percent_of_a_smooth_step_lies_within_its_stated_widths():
    """The docstring of ``width``: 90 % of the step within ±2.95 w (it said ±2.2 w, 80 %)."""
    w = 0.01
    psi = scaling.SmoothJump(0.5, width=w).numpy(np.array([[0.5 - 2.95 * w], [0.5 + 2.95 * w]]))
    assert np.diff(psi)[0] == pytest.approx(0.90, abs=0.001)


def test_disk_and_half_plane_with_a_width_are_logistic_edges():
    X = inputs(2, 30, seed=23)
    r = np.hypot(X[:, 0] - 0.4, X[:, 1] - 0.6)
    np.testing.assert_allclose(
        scaling.Disk([0.4, 0.6], 0.25, amplitude=2.0, width=0.02)(X),
        2.0 * ref.sigmoid((0.25 - r) / 0.02),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        scaling.HalfPlane([1.0, -1.0], 0.1, width=0.05)(X),
        ref.sigmoid((X[:, 0] - X[:, 1] - 0.1) / 0.05),
        rtol=1e-12,
    )


def test_weierstrass_psi_with_K_12_is_the_target_of_section_4_2():
    from pymc_vsk import targets

    X = inputs(2, 40, seed=24)
    np.testing.assert_allclose(scaling.Weierstrass(12)(X), targets.weierstrass(X), rtol=1e-14)
    np.testing.assert_allclose(targets.weierstrass(X), ref.psi_weierstrass(X, 12), rtol=1e-14)


def test_corner_psi_is_smooth_peaked_at_x0_and_decays_fast():
    x = np.linspace(0, 1, 2001)[:, None]
    psi = scaling.Corner(x0=0.5, amplitude=1.0, decay=0.1)(x)
    assert np.argmax(psi) == 1000 and psi[1000] == pytest.approx(1.0)
    assert psi[0] < 0.01 and psi[-1] < 0.01  # e^{-5}: decayed at the ends of [0, 1]
    # ψ' turns from +A/δ to -A/δ continuously over the smoothing radius ε = 1e-3: on a grid
    # that resolves ε, consecutive slopes differ by a small fraction of the slope (no jump).
    fine = np.linspace(0.49, 0.51, 20001)[:, None]
    slope = np.diff(scaling.Corner()(fine)) / np.diff(fine[:, 0])
    assert np.max(np.abs(slope)) == pytest.approx(10.0, rel=0.1)  # ≈ A / δ
    assert np.max(np.abs(np.diff(slope))) < 0.01 * np.max(np.abs(slope))


def test_random_parameters_need_a_point_for_numpy_evaluation():
    X = inputs(1, 10, seed=25)
    with pm.Model():
        loc = pm.Uniform("loc", 0.1, 0.9)
        psi = scaling.SmoothJump(loc, width=0.05)
    assert psi.is_random
    with pytest.raises(ValueError, match=r"'locations' is random; pass its value with point="):
        psi.numpy(X)
    np.testing.assert_allclose(
        psi.numpy(X, point={"loc": 0.4}), ref.psi_smooth_jump(X, loc=0.4), rtol=1e-13
    )
    assert not scaling.SmoothJump(pt.constant(0.4)).is_random


def test_stack_concatenates_columns_and_counts_q():
    psi = scaling.Stack([scaling.Jump(0.5), scaling.Stack([scaling.Corner(), scaling.Jump(0.2)])])
    assert psi.q == 3
    X = inputs(1, 6, seed=26)
    np.testing.assert_allclose(
        psi(X), np.c_[ref.psi_jump(X), ref.psi_corner(X), ref.psi_jump(X, 0.2)], rtol=1e-14
    )


def test_bad_scaling_arguments():
    with pytest.raises(ValueError, match="integer K >= 0"):
        scaling.Weierstrass(-1)
    with pytest.raises(TypeError, match="callable predicate"):
        scaling.Region(0.5)
    with pytest.raises(ValueError, match=r"2-D array of shape \(n, d\)"):
        scaling.Jump(0.5).numpy(np.zeros(3))
    with pytest.raises(ValueError, match="at least one"):
        scaling.Stack([])


@pytest.mark.parametrize("name", list(SCALINGS))
def test_a_known_value_range_holds_every_value_of_psi(name):
    d, make_psi, psi_ref = SCALINGS[name]
    psi = make_psi()
    bounds = psi.value_range()
    if bounds is None:
        return
    values = np.asarray(psi_ref(inputs(d, 400, seed=3))).reshape(400, -1)
    assert np.all(values >= bounds[0] - 1e-12) and np.all(values <= bounds[1] + 1e-12)


def test_value_range_of_jumps_and_regions_whatever_their_random_locations():
    assert [b.tolist() for b in scaling.Jump([0.3, 0.6], [1.0, -2.0]).value_range()] == [
        [-2.0],
        [1.0],
    ]
    with pm.Model():
        t = pm.Uniform("t", 0, 1, shape=3)
        a = pm.HalfNormal("a")
        # amplitude 0.5 broadcast to the three random locations
        smooth = scaling.SmoothJump(t, 0.5).value_range()
        assert [b.tolist() for b in smooth] == [[0.0], [1.5]]
        disk = scaling.Disk([0.5, 0.5], t[0], amplitude=-2.0).value_range()
        assert [b.tolist() for b in disk] == [[-2.0], [0.0]]
        assert scaling.Jump(0.5, a).value_range() is None  # a random amplitude
    assert scaling.Weierstrass(12).value_range() is None  # not known in closed form
    both = scaling.Stack([scaling.Jump(0.5), scaling.Region(lambda X: X[:, 0] > 0, 3.0)])
    assert [b.tolist() for b in both.value_range()] == [[0.0, 0.0], [1.0, 3.0]]
    assert scaling.Stack([scaling.Jump(0.5), scaling.Corner()]).value_range() is None


def test_stack_checks_the_columns_each_part_reads():
    """A Disk in a Stack skipped the Disk's own check of its centre against the columns of X:
    numpy's "operands could not be broadcast together with shapes (5,3) (1,2)"."""
    X = np.random.default_rng(0).uniform(size=(5, 3))
    stacked = scaling.Stack([scaling.Disk([0.5, 0.5], 0.3), scaling.Jump(0.5)])
    for evaluate_psi in (lambda: stacked(X), lambda: stacked(pt.as_tensor_variable(X))):
        with pytest.raises(ValueError, match=r"Disk's center has 2 coordinate\(s\).*3 column"):
            evaluate_psi()
    np.testing.assert_array_equal(
        stacked(X[:, :2]), np.c_[ref.psi_disk(X[:, :2]), ref.psi_jump(X[:, :2])]
    )


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: scaling.Corner(x0=[0.2, 0.5]), ValueError, "Corner's x0 must be one number"),
        (lambda: scaling.Corner(x0="0.5"), TypeError, "Corner's x0 must hold numbers"),
        (lambda: scaling.Corner(amplitude=True), TypeError, "amplitude must be a number, not"),
        (lambda: scaling.SmoothJump(0.5, width="0.1"), TypeError, "width must hold numbers"),
        (lambda: scaling.SmoothJump(0.5, width=[0.1, 0.2]), ValueError, "width must be one"),
        (lambda: scaling.Disk([0.5, 0.5], [0.3, 0.2]), ValueError, "radius must be one number"),
        (lambda: scaling.HalfPlane([1.0, 1.0], [1.0, 2.0]), ValueError, "offset must be one"),
        (lambda: scaling.Region(lambda X: X[:, 0] > 0, [1.0, 2.0]), ValueError, "one number"),
        (lambda: scaling.Region(lambda X: X[:, 0] > 0, np.nan), ValueError, "must be finite"),
        (lambda: scaling.Weierstrass(3, a=np.nan), ValueError, "Weierstrass's a must be finite"),
        (lambda: scaling.Weierstrass(np.nan), ValueError, "integer K >= 0"),
        (lambda: scaling.Weierstrass(True), ValueError, "integer K >= 0"),
        (lambda: scaling.Jump(0.5, dim="a"), ValueError, "dim is a column index"),
        (lambda: scaling.Jump(0.5, dim=None), ValueError, "dim is a column index"),
    ],
)
def test_a_parameter_of_the_wrong_kind_or_count_is_refused_where_it_is_given(make, error, match):
    """A vector x0, radius or offset failed later with numpy's "operands could not be broadcast
    together"; a single jump with two widths silently summed two steps (ψ twice as large);
    text, a bool, NaN amplitudes and a NaN or bool K were taken as they were."""
    with pytest.raises(error, match=match):
        make()


def test_smooth_jumps_take_one_width_or_one_per_location():
    X = inputs(1, 7, seed=4)
    both = scaling.SmoothJump([0.3, 0.6], width=[0.05, 0.1]).numpy(X)
    separate = scaling.SmoothJump(0.3, width=0.05).numpy(X) + scaling.SmoothJump(
        0.6, width=0.1
    ).numpy(X)
    np.testing.assert_allclose(both, separate, rtol=1e-14)


def test_inputs_with_nan_or_text_are_refused_instead_of_read_as_a_side_of_the_jump():
    """NaN in X gave ψ = 0 (NaN >= t is False) and the text '0.7' was parsed as a number."""
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        scaling.Jump(0.5).numpy(np.array([[0.2], [np.nan]]))
    with pytest.raises(TypeError, match="X must hold numbers, not text"):
        scaling.Jump(0.5).numpy(np.array([["0.7"]]))


@pytest.mark.parametrize("q", [1, 2])
def test_a_function_returning_another_number_of_columns_than_its_q_is_refused(q):
    """FromFunction(f, q=2) with f returning (n,) (or q=1 with (n, 2)) was evaluated as it
    was, so the lifting had another number of columns than the model was told."""
    wrong = {1: lambda X: pt.stack([X[:, 0], X[:, 0]], axis=1), 2: lambda X: X[:, 0]}[q]
    psi = scaling.FromFunction(wrong, q=q)
    X = inputs(1, 5, seed=2)
    for evaluate_psi in (lambda: psi.numpy(X), lambda: psi(pt.as_tensor_variable(X))):
        with pytest.raises(ValueError, match=f"declares q = {q}"):
            evaluate_psi()


def test_a_soft_disk_has_a_finite_gradient_at_an_input_on_its_centre():
    """The norm's derivative at 0 made the gradient in the centre NaN when a node sat on it
    (a grid node at a centre's starting value: a sampler's first step fails)."""
    X = np.array([[0.5, 0.5], [0.2, 0.9]])
    center = pt.vector("center", shape=(2,))
    total = scaling.Disk(center, 0.3, width=0.05)(pt.as_tensor_variable(X)).sum()
    gradient = pytensor.function([center], pt.grad(total, center))(np.array([0.5, 0.5]))
    assert np.all(np.isfinite(gradient))
    # the node at the centre adds nothing; the other node's term is the closed form
    r = np.hypot(0.3, 0.4)
    s = 1 / (1 + np.exp(-(0.3 - r) / 0.05))
    expected = s * (1 - s) / 0.05 * (X[1] - [0.5, 0.5]) / r
    np.testing.assert_allclose(gradient, expected, rtol=1e-10)


def test_reprs_tell_apart_scaling_functions_that_differ():
    """A hard disk's repr said width=1.0 (a soft edge), Weierstrass(3) and Weierstrass(12)
    had one repr, and a jump in column 1 read as one in column 0."""
    assert repr(scaling.Disk([0.5, 0.5], 0.3)).endswith("width=None)")
    assert repr(scaling.HalfPlane([1.0, 1.0], 1.0, width=0.1)).endswith("width=0.1)")
    assert repr(scaling.Weierstrass(3)) != repr(scaling.Weierstrass(12))
    assert repr(scaling.Jump(0.5, dim=1)) == "Jump(locations=[0.5], amplitudes=[1.0], dim=1)"
    assert repr(scaling.Jump(0.5)) == "Jump(locations=[0.5], amplitudes=[1.0])"
