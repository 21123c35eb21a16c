"""Sparse VSK GPs: inducing-point placement and ``pm.gp.MarginalApprox`` (VFE, FITC) fits.

The sparse fits are compared with the dense VSK fit (:func:`pymc_vsk.build_model`, flat priors,
so MAP is the MLE) on the same jump data: hyper-parameters, and the predictive mean on a
grid. The VFE bound is checked against the exact log likelihood it bounds.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_vsk import VSK, build_model, fit_map, predict, targets
from pymc_vsk.scaling import Disk, Jump, SmoothJump, Stack
from pymc_vsk.sparse import inducing_points, jump_locations

PARAMS = ("ls", "sigma_f", "sigma_n", "mean")


def uniform_jump_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0.0, 1.0, n))[:, None]
    return X, targets.jump(X) + 0.25 * rng.normal(size=n)


def sparse_model(X, y, Xu, psi, approx):
    """The flat-prior model of ``build_model(..., priors="flat")`` with MarginalApprox."""
    with pm.Model() as model:
        ls = pm.HalfFlat("ls")
        sigma_f = pm.HalfFlat("sigma_f")
        sigma_n = pm.HalfFlat("sigma_n")
        mean = pm.Flat("mean")
        gp = pm.gp.MarginalApprox(
            approx=approx,
            mean_func=pm.gp.mean.Constant(mean),
            cov_func=sigma_f**2 * VSK(pm.gp.cov.Matern52(2, ls=ls), psi),
        )
        gp.marginal_likelihood("y", X=X, Xu=Xu, y=y, sigma=sigma_n)
    return model, gp


# -- placement ---------------------------------------------------------------------------------
def test_inducing_points_are_quantiles_plus_both_sides_of_each_jump():
    X = np.linspace(0.0, 1.0, 201)[:, None]
    Xu = inducing_points(X, 10, Jump([0.3, 0.7], [1.0, -2.0]))
    np.testing.assert_allclose(Xu[:10, 0], np.quantile(X[:, 0], (np.arange(10) + 0.5) / 10))
    np.testing.assert_allclose(Xu[10:, 0], [0.299, 0.301, 0.699, 0.701])
    psi = Jump([0.3, 0.7]).numpy(Xu[10:])
    assert psi.tolist() == [0.0, 1.0, 1.0, 2.0]  # one input on each branch of each jump


def test_tied_inputs_give_no_inducing_input_twice():
    """x with 8 distinct values, each 10 times: 20 quantiles held 14 distinct values (a
    singular K_uu but for the jitter). Now the 8 values; the jump's 2 edges come after."""
    x = np.repeat(np.arange(8.0), 10)[:, None]
    Xu = inducing_points(x, 20, Jump(3.5))
    assert len(np.unique(Xu)) == len(Xu) == 10
    np.testing.assert_array_equal(Xu[:8, 0], np.arange(8.0))
    fine = np.repeat(np.linspace(0, 1, 50), 3)[:, None]  # more values than points
    assert len(np.unique(inducing_points(fine, 20))) == 20
    plane = np.repeat(np.random.default_rng(0).uniform(size=(5, 2)), 6, axis=0)  # 2-D ties
    assert (
        len(np.unique(inducing_points(plane, 10), axis=0)) == len(inducing_points(plane, 10)) == 5
    )
    two_widths = inducing_points(
        np.linspace(0, 1, 50)[:, None], 4, SmoothJump([0.3, 0.7], width=[0.01, 0.02])
    )
    np.testing.assert_allclose(two_widths[4:, 0], [0.24, 0.36, 0.64, 0.76])  # 3 × the widest
    x = np.linspace(0, 1, 101)[:, None]  # jumps closer than two offsets share an edge input
    for locations in ([0.5, 0.502], [0.5, 0.5]):
        Xu = inducing_points(x, 5, Jump(locations))
        assert len(np.unique(Xu)) == len(Xu), Xu.ravel()


def test_smooth_jump_edges_sit_where_the_step_is_done_and_explicit_locations_win():
    X = np.linspace(0.0, 1.0, 101)[:, None]
    Xu = inducing_points(X, 5, SmoothJump(0.4, width=0.02))
    np.testing.assert_allclose(Xu[5:, 0], [0.34, 0.46])
    Xu = inducing_points(X, 5, SmoothJump(0.4, width=0.02), locations=[0.6], offset=0.01)
    np.testing.assert_allclose(Xu[5:, 0], [0.59, 0.61])
    assert len(inducing_points(X, 5, Jump(1.5))) == 5  # a jump outside the data adds nothing
    assert len(inducing_points(X, 5, Disk([0.5], 0.2))) == 5  # no jump location to place
    stacked = jump_locations(Stack([Jump(0.2), SmoothJump(0.8, width=0.05)]))
    assert [(d, loc.tolist(), w) for d, loc, w in stacked] == [(0, [0.2], None), (0, [0.8], 0.05)]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_points": True}, TypeError, r"n_points must be an integer; got True"),
        ({"n_points": 2.7}, TypeError, r"n_points must be an integer; got 2.7"),
        ({"n_points": "3"}, TypeError, r"n_points must be an integer; got '3'"),
        ({"X": np.array([["0.1"], ["0.5"], ["0.9"]])}, TypeError, r"X must hold numbers"),
        ({"X": np.array([[True], [False], [True]])}, TypeError, r"X must be numeric"),
        ({"X": np.zeros((0, 1)), "n_points": 1}, ValueError, r"X has no rows"),
        ({"locations": [np.nan]}, ValueError, r"locations contains 1 NaN"),
        ({"locations": ["0.5"]}, TypeError, r"locations must hold numbers"),
        ({"locations": [[0.5]]}, ValueError, r"locations must be a number or a 1-D"),
        ({"locations": [0.5], "dim": True}, TypeError, r"dim must be an integer"),
        ({"locations": [0.5], "dim": 0.7}, TypeError, r"dim must be an integer"),
        ({"psi": Jump(0.5), "offset": np.inf}, ValueError, r"offset must be one finite"),
        ({"psi": Jump(0.5), "offset": "0.1"}, TypeError, r"offset must hold numbers"),
        ({"psi": Jump(0.5), "offset": True}, TypeError, r"offset must be a number"),
    ],
)
def test_inducing_points_refuse_bad_arguments_instead_of_guessing(kwargs, error, match):
    """Before, a bool or a fraction was truncated to a count, text was parsed, a NaN location
    was dropped without a word, and an infinite offset placed inputs at ±inf."""
    kwargs = {"X": np.linspace(0.0, 1.0, 21)[:, None], "n_points": 3} | kwargs
    with pytest.raises(error, match=match):
        inducing_points(**kwargs)


def test_inducing_points_move_with_the_units_of_x():
    """Rescaling or shifting x (and the jump with it) moves the inducing inputs the same way."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0.0, 1.0, (200, 2))
    Xu = inducing_points(X, 16, Jump(0.5, dim=1))
    for c, s in [(1e3, 0.0), (1e-3, 0.0), (1.0, 1e4), (2.0, -50.0)]:
        moved = inducing_points(c * X + s, 16, Jump(0.5 * c + s, dim=1))
        np.testing.assert_allclose((moved - s) / c, Xu, atol=1e-9)
    assert len(inducing_points(X[:, :1], np.int64(4), locations=0.5)) == 6


def test_random_jump_location_asks_for_locations():
    X = np.linspace(0.0, 1.0, 51)[:, None]
    with pm.Model():
        loc = pm.Uniform("loc", 0.3, 0.7)
        psi = SmoothJump(loc, width=0.02)
        with pytest.raises(ValueError, match=r"random location.*locations=\["):
            inducing_points(X, 10, psi)
        Xu = inducing_points(X, 10, psi, locations=np.linspace(0.3, 0.7, 3), offset=0.01)
    assert len(Xu) == 16


def test_two_dimensional_edges_are_projections_onto_both_sides_of_the_jump():
    X = np.random.default_rng(0).uniform(size=(400, 2))
    Xu = inducing_points(X, 25, Jump(0.5, dim=1), seed=1)
    base, edges = Xu[:25], Xu[25:]
    assert len(edges) == 2 * 5  # about 25 ** (1/2) nearest centres, on both sides
    step = 1e-3 * np.ptp(X[:, 1])
    np.testing.assert_allclose(np.unique(edges[:, 1]), [0.5 - step, 0.5 + step], atol=1e-12)
    assert set(np.round(edges[:, 0], 12)) <= set(np.round(base[:, 0], 12))
    np.testing.assert_array_equal(Xu, inducing_points(X, 25, Jump(0.5, dim=1), seed=1))


# -- fits ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dense_fit():
    X, y = uniform_jump_data(300, seed=4)
    model, gp = build_model(X, y, psi=Jump(0.5), priors="flat")
    fit = fit_map(model, n_starts=3, seed=0, warn=False)
    grid = np.linspace(0.0, 1.0, 301)[:, None]
    return X, y, fit, grid, predict(gp, grid, fit.point, model=model)


def test_edge_points_bring_the_vfe_fit_near_the_jump_to_the_dense_one(dense_fit):
    """At equal m, two inputs at the jump's edges beat two more quantiles near the jump.

    (Globally the two extra quantiles can do as well or slightly better, so the bound is not
    compared between the two; each bound is below the exact log likelihood.)
    """
    X, y, fit, grid, dense = dense_fit
    point = {f"{k}_log__": np.log(fit.point[k]) for k in PARAMS[:3]}
    point["mean"] = fit.point["mean"]
    near = np.abs(grid[:, 0] - 0.5) < 0.1
    errors = {}
    for label, Xu in {
        "quantiles": inducing_points(X, 32),
        "quantiles + edges": inducing_points(X, 30, Jump(0.5)),
    }.items():
        model, gp = sparse_model(X, y, Xu, Jump(0.5), "VFE")
        assert model.compile_logp(jacobian=False)(point) < fit.logp  # a lower bound
        mean, _ = gp.predict(grid, point=fit.point, diag=True, model=model)
        errors[label] = np.sqrt(np.mean((mean - dense.mean)[near] ** 2))
    assert errors["quantiles + edges"] < 0.5 * errors["quantiles"]


@pytest.mark.parametrize("approx", ["VFE", "FITC"])
def test_sparse_vsk_fits_the_jump_data_close_to_the_dense_fit(dense_fit, approx):
    X, y, fit, grid, dense = dense_fit
    model, gp = sparse_model(X, y, inducing_points(X, 48, Jump(0.5)), Jump(0.5), approx)
    starts = [{k: fit.point[k] for k in PARAMS}]  # the sparse optimum near the dense one
    sparse = fit_map(model, starts=starts, warn=False)
    for name in ("ls", "sigma_f", "sigma_n"):
        np.testing.assert_allclose(sparse.point[name], fit.point[name], rtol=0.15, err_msg=name)
    assert abs(sparse.point["mean"] - fit.point["mean"]) < 0.15
    mean, _ = gp.predict(grid, point=sparse.point, diag=True, model=model)
    assert np.sqrt(np.mean((mean - dense.mean) ** 2)) < 0.03
    truth = targets.jump(grid)
    dense_rmse = np.sqrt(np.mean((dense.mean - truth) ** 2))
    assert np.sqrt(np.mean((mean - truth) ** 2)) < 1.2 * dense_rmse
