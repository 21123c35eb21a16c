"""Every bad input a user can give gets an error that names the problem and the fix.

One row per case: what the user does, the exception, key words of the problem and key words
of the fix (both must appear in the message).
"""

from __future__ import annotations

import re

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import pytest

from pymc_vsk import (
    VSK,
    VSKRegressor,
    build_model,
    diagnose,
    fit_map,
    power_function,
    predict,
    targets,
)
from pymc_vsk.cli import main
from pymc_vsk.fitting import default_starts
from pymc_vsk.hsgp import CollapsedLiftedHSGP, LiftedHSGP
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.loo import add_log_likelihood
from pymc_vsk.memory import set_memory_limit
from pymc_vsk.metrics import summarize
from pymc_vsk.scaling import Disk, FromFunction, Jump, SmoothJump, Stack, Weierstrass
from pymc_vsk.sparse import inducing_points

X = targets.halton_nodes(20)
Y = targets.jump(X)
DATES = np.datetime64("2001-01-01", "D") + np.arange(20)
GOOD_CSV = "t,v\n0.1,1.0\n0.2,1.2\n0.3,1.5\n0.4,3.1\n0.5,2.9\n0.6,3.0\n"


class CliError(Exception):
    """What ``pymc-vsk detect-jumps`` printed on stderr when it exited with status 2."""


def with_row(i, value, array=X):
    bad = np.array(array, dtype=float)
    bad[i] = value
    return bad


def vsk(base=None, psi=None, **kwargs):
    return VSK(base or pm.gp.cov.Matern52(2, ls=0.2), psi or Jump(0.5), **kwargs)


def fixed_model(X=X, y=Y, **kwargs):
    params = {"ls": 0.2, "sigma_f": 1.0, "sigma_n": 0.1, "mean": 0.0, **kwargs}
    return build_model(X, y, psi=Jump(0.5), **params)


def near_duplicates():
    Xd = np.r_[X, [[0.3]], [[0.3 + 1e-9]]]
    return Xd, np.r_[Y, 1.0, 2.0]


def fit_near_duplicates():
    Xd, yd = near_duplicates()
    model, _ = build_model(Xd, yd, psi=Jump(0.5), sigma_n=0.0, ls=0.3, jitter=0.0)
    fit_map(model, n_starts=2)


def collapsed_on_a_container():
    with pm.Model():
        gp = CollapsedLiftedHSGP([10, 3], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=0.2), c=1.5)
        gp.marginal_likelihood("y", X=pm.Data("X", X), y=Y, sigma=0.1)


def predict_singular():
    _, gp = fixed_model(sigma_n=0.0, ls=1e3, jitter=0.0)  # ℓ far beyond the span
    predict(gp, X, point={}, jitter=0.0)


def loo_duplicates():
    Xd, yd = np.r_[X, X[:1]], np.r_[Y, 0.0]
    with pm.Model() as model:
        ls = pm.HalfNormal("ls", 1.0)
        gp = pm.gp.Marginal(cov_func=vsk(pm.gp.cov.Matern52(2, ls=ls)))
        gp.marginal_likelihood("y", X=Xd, y=yd, sigma=0.0)
    idata = az.from_dict({"posterior": {"ls": np.full((1, 2), 10.0)}})
    add_log_likelihood(idata, gp, model=model, jitter=0.0)


def plain_marginal_outside_its_model():
    with pm.Model():
        gp = pm.gp.Marginal(cov_func=vsk())
        gp.marginal_likelihood("y", X=X, y=Y, sigma=0.1)
    predict(gp, X, point={})


def too_many_points():
    set_memory_limit(None)
    Xl = np.linspace(0, 1, 20_000)[:, None]
    build_model(Xl, Xl[:, 0], psi=Jump(0.5))


def detect_jumps(capsys, tmp_path, text, *args):
    path = tmp_path / "data.csv"
    path.write_text(text)
    status = main(["detect-jumps", str(path), *args])
    err = capsys.readouterr().err
    if status == 2:
        raise CliError(err)
    raise AssertionError(f"detect-jumps exited with {status}: {err}")


def numpy_where_psi(X):
    return np.where(X[:, 0] > 0.5, 1.0, 0.0)


def if_else_psi(X):
    return 1.0 if X[0, 0] > 0.5 else 0.0


def joint_beyond_the_memory_limit():
    _, gp = fixed_model()
    set_memory_limit("20M")
    try:
        predict(gp, np.linspace(0, 1, 1000)[:, None], point={}).sample(2)
    finally:
        set_memory_limit(None)


def a_vsk_given_to_the_lifted_hsgp():
    with pm.Model():
        LiftedHSGP([10, 3], Jump(0.5), cov_func=vsk(), c=1.5)


def a_scaled_vsk_given_to_the_lifted_hsgp():
    with pm.Model():
        LiftedHSGP([10, 3], Jump(0.5), cov_func=2.0**2 * vsk(), c=1.5)


def loo_of_a_sparse_gp():
    with pm.Model() as model:
        ls = pm.HalfNormal("ls", 1.0)
        gp = pm.gp.MarginalApprox(cov_func=vsk(pm.gp.cov.Matern52(2, ls=ls)), approx="VFE")
        gp.marginal_likelihood("y", X=X, Xu=X[::4], y=Y, sigma=0.1)
    add_log_likelihood(az.from_dict({"posterior": {"ls": np.full((1, 2), 0.2)}}), gp, model=model)


def predict_from_no_draws():
    model, gp = build_model(X, Y, psi=Jump(0.5))
    fit = fit_map(model, n_starts=1)
    draws = {
        name: np.full((1, 4), float(fit.point[name]))
        for name in ("ls", "sigma_f", "sigma_n", "mean")
    }
    predict(gp, X, idata=az.from_dict({"posterior": draws}), max_draws=0)


def power_function_with_a_point_missing_one():
    with pm.Model():
        ls, sigma_f = pm.HalfNormal("ls", 1.0), pm.HalfNormal("sigma_f", 1.0)
        cov = sigma_f**2 * vsk(pm.gp.cov.Matern52(2, ls=ls))
    power_function(cov, X, X[:3], point={"ls": 0.2})


def power_function_at_transformed_values():
    with pm.Model() as model:
        ls = pm.HalfNormal("ls", 1.0)
        cov = vsk(pm.gp.cov.Matern52(2, ls=ls))
    power_function(cov, X, X[:3], point=model.initial_point())


def stationary_draws():
    rng = np.random.default_rng(0)
    draws = {name: np.exp(0.1 * rng.normal(size=(2, 4))) for name in ("ls", "sigma_f", "sigma_n")}
    return az.from_dict({"posterior": draws | {"mean": rng.normal(size=(2, 4))}})


def predict_from_another_model_s_draws():
    _, gp = build_model(X, Y, psi=Jump(0.5), ard=True)
    predict(gp, X[:3], idata=stationary_draws())


def loo_from_another_model_s_draws():
    model, gp = build_model(X, Y, psi=Jump(0.5), ard=True)
    add_log_likelihood(stationary_draws(), gp, model)


def psi_reading_a_hidden_random_variable():
    with pm.Model():
        c = pm.Normal("c", 0.5, 0.1)
        FromFunction(lambda X: pt.tanh((X[:, 0] - c) / 0.1))


def psi_of_more_columns_than_it_declares():
    with pm.Model():
        c = pm.Normal("c", 0.5, 0.1)
        psi = FromFunction(lambda X, c: pt.stack([X[:, 0] - c, X[:, 0]], axis=1), params={"c": c})
        vsk(psi=psi)(X)


CASES = {
    # jump models
    "jump locations between bounds that are reversed": (
        lambda: build_jump_model(X, Y, lower=0.8, upper=0.2),
        ValueError,
        r"lower must be below upper; got 0\.8 and 0\.2",
        r"lower must be below upper",
    ),
    "jump locations outside the data": (
        lambda: build_jump_model(X, Y, lower=-5.0, upper=-4.0),
        ValueError,
        r"0 distinct x value\(s\) lie inside the location range \(-5, -4\) while x spans",
        r"widen lower/upper",
    ),
    # dates and durations
    "dates as X": (
        lambda: build_model(DATES[:, None], Y),
        TypeError,
        r"Dates or durations in X \(dtype datetime64\[D\]\)",
        r"convert them to numbers in a unit you choose, e\.g\. days since a start date",
    ),
    "a date as a jump's location": (
        lambda: Jump(pd.Timestamp("2001-07-01")),
        TypeError,
        r"Dates or durations in Jump's locations",
        r"give the inputs and ψ's parameters \(a jump's location\) in that one unit",
    ),
    "dates in a DataFrame given to the estimator": (
        lambda: VSKRegressor().fit(pd.DataFrame({"day": DATES}), Y),
        TypeError,
        r"Dates or durations in X",
        r"convert them to numbers",
    ),
    "durations as new inputs": (
        lambda: predict(fixed_model()[1], np.array([[1, 2]], dtype="timedelta64[s]").T, point={}),
        TypeError,
        r"Dates or durations in Xnew \(dtype timedelta64\[s\]\)",
        r"convert them to numbers",
    ),
    "a data container given to the collapsed HSGP": (
        collapsed_on_a_container,
        TypeError,
        r"computes its basis statistics .* once, from numeric X and y, so they cannot follow a "
        r"data container",
        r"pass arrays \(for a container, its \.get_value\(\)\)",
    ),
    "a posterior given as a point": (
        lambda: predict(
            fixed_model()[1], X, point=az.from_dict({"posterior": {"ls": np.full((1, 4), 0.2)}})
        ),
        TypeError,
        r"point= takes one set of values",
        r"pass a posterior as idata=",
    ),
    "a point that maps nothing": (
        lambda: predict(fixed_model()[1], X, point=[0.2, 1.0]),
        TypeError,
        r"point must map each free variable's name to its value",
        r"a dict such as fit_map\(model\)\.point",
    ),
    "a count of jumps that is not an integer": (
        lambda: build_jump_model(X, Y, n_jumps=2.0),
        ValueError,
        r"n_jumps must be an integer \(int\) of at least 1; got 2\.0",
        r"an integer \(int\)",
    ),
    # data
    "NaN in X": (
        lambda: build_model(with_row(3, np.nan), Y),
        ValueError,
        r"X contains 1 NaN value\(s\) \(first in row 3\)",
        r"remove or impute",
    ),
    "inf in y": (
        lambda: build_model(X, with_row(2, np.inf, Y)),
        ValueError,
        r"y contains 1 infinite value\(s\) \(first in row 2\)",
        r"drop those rows .* or impute",
    ),
    "X of rank 1": (
        lambda: build_model(X[:, 0], Y),
        ValueError,
        r"X must be a 2-D array .* got shape \(20,\)",
        r"X\[:, None\]",
    ),
    "y of rank 2": (
        lambda: build_model(X, np.c_[Y, Y]),
        ValueError,
        r"y must be 1-D",
        r"one value per row of X",
    ),
    "X and y of other lengths": (
        lambda: build_model(X, Y[:-1]),
        ValueError,
        r"y has 19 values but X has 20 rows",
        r"one observation per input row",
    ),
    "empty X": (
        lambda: build_model(np.zeros((0, 1)), np.zeros(0), psi=Jump(0.5)),
        ValueError,
        r"X has no rows",
        r"at least one input row",
    ),
    "two data points": (
        lambda: build_model(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]), psi=Jump(0.5)),
        ValueError,
        r"needs at least three distinct nodes",
        r"fix the length scale \(ls=.*priors='flat'",
    ),
    "duplicate nodes with sigma_n = 0": (
        lambda: build_model(np.r_[X, X[:1]], np.r_[Y, 0.0], sigma_n=0.0),
        ValueError,
        r"duplicate nodes .* sigma_n = 0",
        r"Average duplicates .* sigma_n be positive",
    ),
    "X of the wrong width": (
        lambda: vsk()(np.c_[X, X]),
        ValueError,
        r"X has 2 column\(s\) but .* input_dim=1",
        r"Pass X with that many columns|active_dims",
    ),
    "too many points for dense memory": (
        too_many_points,
        MemoryError,
        r"20000 x 20000",
        r"MarginalApprox.*hsgp|set_memory_limit",
    ),
    # the kernel and ψ
    "non-stationary base kernel": (
        lambda: vsk(pm.gp.cov.Linear(2, c=0.0)),
        TypeError,
        r"not stationary",
        r"LinearVSK",
    ),
    "wrong input_dim of the base kernel": (
        lambda: vsk(pm.gp.cov.ExpQuad(1, ls=0.3)),
        ValueError,
        r"input_dim=1 leaves d=0 columns",
        r"input_dim=2",
    ),
    "psi of the wrong shape": (
        lambda: VSK(pm.gp.cov.ExpQuad(2, ls=0.3), lambda X: X[:-1, 0])(X),
        ValueError,
        r"returned shape \(19,\)",
        r"expected \(20,\) or \(20, 1\)",
    ),
    "psi with non-finite values": (
        lambda: VSK(pm.gp.cov.ExpQuad(2, ls=0.3), lambda X: pt.log(X[:, 0]))(X),
        ValueError,
        r"ψ\(X\) contains 1 infinite value",
        r"finite",
    ),
    "psi written with numpy (np.where)": (
        lambda: build_model(X, Y, psi=numpy_where_psi),
        TypeError,
        r"numpy_where_psi failed on a tensor",
        r"pytensor\.tensor \(pt\.switch, pt\.where, pt\.exp",
    ),
    "psi written with Python if/else": (
        lambda: build_model(X, Y, psi=FromFunction(if_else_psi)),
        TypeError,
        r"if_else_psi failed on a tensor",
        r"instead of numpy functions or Python if/else",
    ),
    # fitting and prediction
    "fit_map without free variables": (
        lambda: fit_map(fixed_model()[0]),
        ValueError,
        r"no free variables",
        r"point=\{\}",
    ),
    "near-duplicate nodes with sigma_n = 0 in fit_map": (
        fit_near_duplicates,
        ValueError,
        r"near-duplicate nodes \(rows \d+ and \d+ are 1e-09 apart",
        r"Average or merge near-duplicate nodes, let σ_n be positive or raise the jitter",
    ),
    "singular training covariance in predict": (
        predict_singular,
        ValueError,
        r"not positive definite",
        r"near-duplicate nodes.*far beyond the span.*raise the jitter",
    ),
    "singular covariance in LOO": (
        loo_duplicates,
        ValueError,
        r"at draw 0 of chain 0 is not positive definite",
        r"average duplicate nodes",
    ),
    "Xnew of the wrong width": (
        lambda: predict(fixed_model()[1], np.zeros((2, 2)), point={}),
        ValueError,
        r"Xnew has 2 column\(s\)",
        r"Pass X with that many columns",
    ),
    "a negative jitter": (
        lambda: build_model(X, Y, psi=Jump(0.5), jitter=-1.0),
        ValueError,
        r"jitter must be a finite number of at least 0 .*; got -1",
        r"Leave it out for the default 1e-6",
    ),
    "a point with a negative length scale": (
        lambda: predict(
            build_model(X, Y, psi=Jump(0.5))[1],
            X,
            point={"ls": -0.1, "sigma_f": 1.0, "sigma_n": 0.1, "mean": 0.0},
        ),
        ValueError,
        r"The point's ls = -0\.1 is not positive, but ls is",
        r"pass a MAP point or a posterior draw, or positive values",
    ),
    "predict of an unsupported GP": (
        lambda: predict(object(), X, point={}),
        TypeError,
        r"does not support object",
        r"supports pm\.gp\.Marginal",
    ),
    "more jump amplitudes than locations": (
        lambda: Jump([0.3, 0.6], [1.0, 2.0, 3.0]),
        ValueError,
        r"Jump has 2 location\(s\) and 3 amplitudes",
        r"give one amplitude, or one per location",
    ),
    "a jump at NaN": (
        lambda: Jump(np.nan),
        ValueError,
        r"Jump's locations",
        r"must be finite",
    ),
    "a smooth jump of width 0": (
        lambda: SmoothJump(0.5, width=0.0),
        ValueError,
        r"SmoothJump's width",
        r"must be positive",
    ),
    "a disk of negative radius": (
        lambda: Disk([0.5, 0.5], -0.2),
        ValueError,
        r"Disk's radius",
        r"must be positive",
    ),
    "a 2-D psi on 1-D inputs": (
        lambda: VSKRegressor(psi=Weierstrass(3), n_starts=2).fit(X, Y),
        ValueError,
        r"reads column 1 of X, which has 1 column",
        r"at least 2 columns, or a ψ for 1-D inputs",
    ),
    "a stack of psi reading a missing column": (
        lambda: Stack([Jump(0.5), Jump(0.5, dim=1)])(X),
        ValueError,
        r"reads column 1 of X, which has 1 column",
        r"at least 2 columns",
    ),
    "a fixed length scale of 0": (
        lambda: fixed_model(ls=0.0),
        ValueError,
        r"A fixed ls must be > 0",
        r"> 0",
    ),
    "no MAP starts": (
        lambda: fit_map(build_model(X, Y, psi=Jump(0.5))[0], n_starts=0),
        ValueError,
        r"n_starts must be a whole number >= 1",
        r">= 1; got 0",
    ),
    "a negative count of default MAP starts": (
        lambda: default_starts(build_model(X, Y, psi=Jump(0.5))[0], -1, 0),
        ValueError,
        r"n_starts must be a whole number >= 1",
        r">= 1; got -1",
    ),
    "a count of MAP starts that is not a number": (
        lambda: fit_map(build_model(X, Y, psi=Jump(0.5))[0], n_starts=float("nan")),
        ValueError,
        r"n_starts must be a whole number >= 1",
        r"got nan",
    ),
    "a MAP start naming no variable": (
        lambda: fit_map(build_model(X, Y, psi=Jump(0.5))[0], starts=[{"lengthscale": 0.1}]),
        ValueError,
        r"start 0 names 'lengthscale', not a free variable",
        r"its free variables are 'ls'",
    ),
    "diagnose on a MAP fit": (
        lambda: diagnose(fit_map(build_model(X, Y, psi=Jump(0.5))[0], n_starts=2)),
        TypeError,
        r"got MapResult without one",
        r"its point is result.point",
    ),
    "y in units too large to square": (
        lambda: VSKRegressor(n_starts=1).fit(X, Y * 1e160),
        ValueError,
        r"y's standard deviation is \S+e\+160; the computations square it",
        r"express y in other units \(divide it by a power of ten\)",
    ),
    "y in units too small to square": (
        lambda: build_model(X, Y * 1e-170),
        ValueError,
        r"y's standard deviation is \S+e-170",
        r"express y in other units",
    ),
    "a MAP start outside the support": (
        lambda: fit_map(build_model(X, Y, psi=Jump(0.5))[0], starts=[{"ls": -1.0}]),
        ValueError,
        r"start 0 gives ls = -1, outside the support of ls's prior",
        r"start inside it",
    ),
    "a MAP start of the wrong shape": (
        lambda: fit_map(build_model(X, Y, psi=Jump(0.5))[0], starts=[{"ls": [0.1, 0.2]}]),
        ValueError,
        r"start 0 gives ls the shape \(2,\); the model's ls has shape \(\)",
        r"one value per element",
    ),
    "a joint prediction beyond the memory limit": (
        joint_beyond_the_memory_limit,
        MemoryError,
        r"A joint prediction at 1000 inputs needs dense 1000 x 1020 matrices",
        r"Ask for the marginal moments instead",
    ),
    "no posterior draws to predict from": (
        predict_from_no_draws,
        ValueError,
        r"max_draws must be a positive integer \(int\), or None for every draw; got 0",
        r"None for every draw",
    ),
    "a VSK given to the lifted HSGP": (
        a_vsk_given_to_the_lifted_hsgp,
        TypeError,
        r"cov_func is a variably scaled kernel; the lifted HSGP needs its base kernel",
        r"pass cov_func=vsk.cov_func",
    ),
    "a scaled VSK given to the lifted HSGP": (
        a_scaled_vsk_given_to_the_lifted_hsgp,
        TypeError,
        r"cov_func is a variably scaled kernel; the lifted HSGP needs its base kernel",
        r"sigma_f\*\*2 \* vsk.cov_func",
    ),
    "no basis function for a coordinate": (
        lambda: LiftedHSGP([10, 0], Jump(0.5), cov_func=pm.gp.cov.Matern52(2, ls=0.2), c=1.5),
        ValueError,
        r"m needs a positive integer per lifted coordinate; got \[10, 0\]",
        r"positive integer",
    ),
    "LOO of a sparse GP": (
        loo_of_a_sparse_gp,
        TypeError,
        r"a sparse pm.gp.MarginalApprox \(VFE, FITC, DTC\) has no such closed form",
        r"compare models on a dense pm.gp.Marginal",
    ),
    "a prediction summarised in another layout than the truth": (
        lambda: summarize(np.zeros((4, 3)), np.ones((4, 3)), np.zeros((3, 4))),
        ValueError,
        r"mean must hold one value per evaluation point, shape \(M,\) or \(M, 1\)",
        r"got shape \(4, 3\)",
    ),
    "a negative standard deviation to summarise": (
        lambda: summarize([0.0, 1.0], [0.1, -1.0], [0.0, 1.0]),
        ValueError,
        r"std holds a negative value \(-1\)",
        r"pass standard deviations",
    ),
    "a power function point missing a parameter": (
        power_function_with_a_point_missing_one,
        ValueError,
        r"The covariance has random parameters",
        r"missing: 'sigma_f'",
    ),
    "a power function point of transformed values": (
        power_function_at_transformed_values,
        ValueError,
        r"missing: 'ls'",
        r"give the variables' own names and values, as fit_map\(model\).point holds them",
    ),
    "the Weierstrass target on one column": (
        lambda: targets.weierstrass(np.linspace(0, 1, 3)[:, None]),
        ValueError,
        r"weierstrass takes points \(x₁, x₂\) as an array of shape \(n, 2\)",
        r"got shape \(3, 1\)",
    ),
    "a node count that is not a number": (
        lambda: targets.uniform_nodes(None),
        ValueError,
        r"n must be a positive integer; got None",
        r"positive integer",
    ),
    "Halton bounds for another dimension": (
        lambda: targets.halton_nodes(4, d=2, lower=[0, 0, 0]),
        ValueError,
        r"lower must be one number or one per coordinate \(2\); got shape \(3,\)",
        r"one per coordinate",
    ),
    "flat priors sampled by NUTS in the estimator": (
        lambda: VSKRegressor(method="nuts", priors="flat").fit(X, Y),
        ValueError,
        r"priors='flat' with method='nuts' samples an improper posterior",
        r"Use priors='default' to sample, or method='map'",
    ),
    "a prediction from another model's draws": (
        predict_from_another_model_s_draws,
        ValueError,
        r"The draws' ls has shape \(\), where this model's ls has shape \(2,\)",
        r"Use the draws of this model",
    ),
    "a LOO from another model's draws": (
        loo_from_another_model_s_draws,
        ValueError,
        r"The draws' ls has shape \(\), where this model's ls has shape \(2,\)",
        r"Use the draws of this model",
    ),
    "a ψ function reading a random variable it was not given": (
        psi_reading_a_hidden_random_variable,
        ValueError,
        r"ψ's function reads the random variable\(s\) 'c' without taking them as parameters",
        r"Pass them in params= and take them as keyword arguments",
    ),
    "a ψ of more columns than it declares": (
        psi_of_more_columns_than_it_declares,
        ValueError,
        r"returns 2 column\(s\) but declares q = 1",
        r"make them agree",
    ),
    "a disk centre of fewer coordinates than X has columns": (
        lambda: Disk([0.5], 0.3)(np.random.default_rng(0).uniform(size=(5, 2))),
        ValueError,
        r"Disk's center has 1 coordinate\(s\) but X has 2 column\(s\)",
        r"give one per column of X",
    ),
    "a ψ function of zero columns": (
        lambda: FromFunction(lambda X: X[:, 0], q=0),
        ValueError,
        r"q, the number of ψ's columns, must be an integer >= 1; got 0",
        r"integer >= 1",
    ),
    "inducing inputs among NaN inputs": (
        lambda: inducing_points(with_row(2, np.nan), 4, Jump(0.5)),
        ValueError,
        r"X contains 1 NaN value",
        r"drop or fix those rows",
    ),
    "a jump with no location": (
        lambda: Jump([]),
        ValueError,
        r"Jump's locations is empty",
        r"give at least one value",
    ),
    "inducing inputs for a jump on a column X does not have": (
        lambda: inducing_points(X, 4, Jump(0.5, dim=1)),
        ValueError,
        r"A jump acts on column 1 of X, which has 1 column\(s\)",
        r"give the jump's dim among X's columns",
    ),
    "PyMC GP outside its model": (
        plain_marginal_outside_its_model,
        ValueError,
        r"does not record its model and no model is in context",
        r"pass model=model",
    ),
}

CSV_CASES = {
    "CSV without a header": (
        ("0.1,1.0\n0.2,1.2\n", "--x", "t", "--y", "v"),
        r"first row \(line 1\) holds numbers",
        r"add a header row",
    ),
    "CSV with a ragged row": (
        (GOOD_CSV.replace("0.3,1.5", "0.3,1.5,9"), "--x", "t", "--y", "v"),
        r"line 4: 3 field\(s\) but the header has 2",
        r"missing or extra commas",
    ),
    "CSV with a missing column": (
        (GOOD_CSV, "--x", "t", "--y", "value"),
        r"no column 'value'",
        r"its columns are: 't', 'v'",
    ),
    "CSV with a non-numeric cell": (
        (GOOD_CSV.replace("3.1", "abc"), "--x", "t", "--y", "v"),
        r"line 5, column 'v': 'abc' is not a number",
        r"use plain numbers with a decimal point",
    ),
    "CSV separated by colons": (
        (GOOD_CSV.replace(",", ":"), "--x", "t", "--y", "v"),
        r"its columns are: 't:v'",
        r"separate the columns with commas \(or tabs, semicolons, bars or blanks\)",
    ),
    "a header row commented out": (
        ("# year value\n" + GOOD_CSV.split("\n", 1)[1], "--x", "t", "--y", "v"),
        r"first row \(line 2\) holds numbers",
        r"lines starting with # are comments: if line 1 names the columns, remove its #",
    ),
    "a file of comments only": (
        ("# nothing yet\n#\n", "--x", "t", "--y", "v"),
        r"is empty but for comment lines",
        r"it needs a header row naming the columns",
    ),
    "a quote left open in a file separated by blanks": (
        ('t v\n0.1 1.0\n0.2 "1.2\n0.3 1.5\n0.4 3.1\n0.5 2.9\n0.6 3.0\n', "--x", "t", "--y", "v"),
        r"line 3: a quote in '\"1\.2' is not closed on its line",
        r'write a quote inside a quoted value as ""',
    ),
}


@pytest.mark.parametrize("case", list(CASES) + list(CSV_CASES))
def test_bad_input_names_the_problem_and_the_fix(case, capsys, tmp_path):
    if case in CASES:
        action, error, problem, fix = CASES[case]
    else:
        args, problem, fix = CSV_CASES[case]
        error = CliError

        def action():
            detect_jumps(capsys, tmp_path, *args)

    with pytest.raises(error) as info:
        action()
    message = str(info.value)
    assert re.search(problem, message, flags=re.S), (problem, message)
    assert re.search(fix, message, flags=re.S), (fix, message)
    for internal in ("zero-size array", "need at least one array", "Need 0 < lower < upper"):
        assert internal not in message


def test_a_posterior_without_draws_is_refused_by_every_reader():
    """nutpie through ``pm.sample(draws=0)`` returns chains of no draws: diagnose failed with
    numpy's "cannot reshape array of size 0", add_log_likelihood with xarray's "Could not
    convert tuple of form (dims, data[, attrs, encoding])" and predict with "not enough
    values to unpack"."""
    model, gp = build_model(X, Y)
    names = ("ls", "sigma_f", "sigma_n", "mean")
    empty = az.from_dict({"posterior": {n: np.zeros((2, 0)) for n in names}})
    for action in (
        lambda: diagnose(empty),
        lambda: add_log_likelihood(empty, gp, model),
        lambda: predict(gp, X[:3], idata=empty),
    ):
        with pytest.raises(ValueError, match=r"no draws \(2 chains of 0 draws\).*draws >= 1"):
            action()


@pytest.mark.parametrize(
    ("seeds", "error", "problem", "fix"),
    [
        ([3, -1], ValueError, r"Noise seeds must be integers >= 0", r"got -1"),
        (10**20, ValueError, r"At most 10000 noise seeds; got 10+\.", r"Ask for fewer"),
        (2.5, TypeError, r"seeds is a number of seeds \(5\) or a sequence", r"got 2\.5"),
        ([0, 1.5], TypeError, r"Noise seeds must be whole numbers", r"got \[0, 1\.5\]"),
    ],
)
def test_paper_noise_seeds_are_checked_before_any_fit(seeds, error, problem, fix):
    """A negative seed used to fail in numpy (``expected non-negative integer``) after the
    models were built; 10**20 seeds in an OverflowError from ``range``; 2.5 seeds in
    ``'float' object is not iterable``; a seed of 1.5 was taken for 1."""
    from pymc_vsk.paper import figure13, tables2_3

    for run in (lambda: tables2_3.compute(27, seeds=seeds), lambda: figure13.compute(seeds)):
        with pytest.raises(error) as info:
            run()
        assert re.search(problem, str(info.value)) and re.search(fix, str(info.value))


@pytest.mark.parametrize(
    ("build", "error", "problem", "fix"),
    [
        (  # numpy's "only 0-dimensional arrays can be converted to Python scalars" on use
            lambda: VSK(pm.gp.cov.ExpQuad(2, ls=0.3), Jump(0.5), psi_scale=[1.0, 2.0]),
            ValueError,
            r"psi_scale is one factor.*got shape \(2,\)",
            r"one length scale per lifted coordinate",
        ),
        (  # "Jump(...) reads column 1 of X, which has 1 column(s)" for an X of 2 columns
            lambda: VSK(
                pm.gp.cov.ExpQuad(2, ls=0.3), Jump(0.5, dim=1), input_dim=2, active_dims=[1]
            ),
            ValueError,
            r"gives ψ the d=1 column\(s\) active_dims=\[1\] of X.*reads column 1",
            r"count within them",
        ),
        (  # "int() argument must be a string, a bytes-like object or a real number"
            lambda: __import__("pymc_vsk").LinearVSK(Jump(0.5), 1),
            TypeError,
            r"input_dim.*number of columns of X.*got Jump",
            r"LinearVSK\(input_dim, psi\)",
        ),
        (  # "int() argument must be ... not 'slice'" (PyMC's own message)
            lambda: VSK(pm.gp.cov.ExpQuad(2, ls=0.3), Jump(0.5), active_dims=slice(1, None)),
            ValueError,
            r"slice\(1, None, None\) has no end",
            r"pass input_dim=",
        ),
    ],
)
def test_vsk_construction_errors_name_the_argument(build, error, problem, fix):
    with pytest.raises(error) as info:
        build()
    message = str(info.value)
    assert re.search(problem, message) and re.search(fix, message), message


def test_pm_gp_hsgp_refuses_a_linear_vsk_naming_the_alternative():
    """PyMC's HSGP failed with "'LinearVSK' object has no attribute
    'power_spectral_density'"."""
    from pymc_vsk import LinearVSK

    with pm.Model(), pytest.raises(NotImplementedError, match=r"LinearVSK.*not stationary.*"):
        pm.gp.HSGP(m=[10], c=1.5, cov_func=LinearVSK(1, Jump(0.5))).prior("f", X=X)
