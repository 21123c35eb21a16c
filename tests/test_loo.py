"""Pointwise leave-one-out densities of GP models against brute-force conditioning."""

from __future__ import annotations

import arviz as az
import numpy as np
import pymc as pm
import pytest
import scipy.special
import scipy.stats

from pymc_vsk import VSK, build_model, targets
from pymc_vsk.jumps import build_jump_model
from pymc_vsk.loo import add_log_likelihood, gaussian_loo
from pymc_vsk.scaling import Jump
from tests import reference as ref


def brute_loo(C, r):
    """log p(r_i | r_-i) by explicit Gaussian conditioning on the other n − 1 values."""
    out = []
    for i in range(len(r)):
        keep = np.arange(len(r)) != i
        w = np.linalg.solve(C[np.ix_(keep, keep)], C[keep, i])
        mean = w @ r[keep]
        var = C[i, i] - C[keep, i] @ w
        out.append(scipy.stats.norm(mean, np.sqrt(var)).logpdf(r[i]))
    return np.array(out)


def test_gaussian_loo_equals_brute_force_conditioning():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(9, 9))
    C = A @ A.T + np.eye(9)
    r = rng.normal(size=9)
    np.testing.assert_allclose(gaussian_loo(C, r), brute_loo(C, r), rtol=1e-10)


def _data(n=14, seed=1):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


def _fake_posterior(draws: dict[str, np.ndarray]):
    return az.from_dict({"posterior": draws})


def test_marginal_gp_log_likelihood_group_and_loo():
    X, y = _data()
    model, gp = build_model(X, y, psi=Jump(0.5))
    rng = np.random.default_rng(2)
    draws = {
        "ls": np.exp(np.log(0.08) + 0.1 * rng.normal(size=(2, 60))),
        "sigma_f": np.full((2, 60), 1.4),
        "sigma_n": np.exp(np.log(0.3) + 0.1 * rng.normal(size=(2, 60))),
        "mean": np.full((2, 60), 1.3),
    }
    idata = add_log_likelihood(_fake_posterior(draws), gp, model)
    ll = idata["log_likelihood"]["y"].values
    assert ll.shape == (2, 60, len(X))
    c, d = 1, 3
    # standardised: the lifted ψ is x-range × ψ, the jitter 1e-6 var(y)
    Z = ref.lift(X, np.ptp(X) * ref.psi_jump(X))
    C = draws["sigma_f"][c, d] ** 2 * ref.loop_kernel(
        ref.RADIAL["Matern52"], Z, Z, draws["ls"][c, d]
    )
    C += (draws["sigma_n"][c, d] ** 2 + 1e-6 * np.var(y)) * np.eye(len(X))
    np.testing.assert_allclose(ll[c, d], brute_loo(C, y - 1.3), rtol=1e-9)
    loo = az.loo(idata)
    assert np.isfinite(loo.elpd)
    # another variable of the group, and a second name, are kept (the group was replaced)
    again = add_log_likelihood(idata, gp, model, var_name="y_again")
    assert sorted(again["log_likelihood"].data_vars) == ["y", "y_again"]
    np.testing.assert_array_equal(again["log_likelihood"]["y_again"].values, ll)


def test_the_values_take_the_observed_variable_s_name_dims_and_coords():
    """They were always ``y`` on ``y_dim_0``: with ``dims="x_obs"`` on the observed variable,
    ``az.loo_pit`` failed on the mismatch with ``observed_data``."""
    X, y = _data()
    draws = {"ls": np.full((2, 5), 0.2)}
    with pm.Model(coords={"x_obs": X[:, 0]}) as model:
        ls = pm.HalfNormal("ls", 1.0)
        gp = pm.gp.Marginal(cov_func=VSK(pm.gp.cov.Matern52(2, ls=ls), Jump(0.5)))
        gp.marginal_likelihood("obs", X=X, y=y, sigma=0.3, dims="x_obs")
    group = add_log_likelihood(_fake_posterior(draws), gp, model)["log_likelihood"]
    assert group["obs"].dims == ("chain", "draw", "x_obs")
    np.testing.assert_array_equal(group["x_obs"].values, X[:, 0])
    built, built_gp = build_model(X, y, psi=Jump(0.5), name="obs")
    draws = {"ls": np.full((2, 5), 0.2), "sigma_f": np.ones((2, 5))}
    draws |= {"sigma_n": np.full((2, 5), 0.3), "mean": np.ones((2, 5))}
    group = add_log_likelihood(_fake_posterior(draws), built_gp, built)["log_likelihood"]
    assert list(group.data_vars) == ["obs"]


def test_marginal_jump_loo_is_the_mixture_over_gaps():
    X, y = _data(12)
    model, gp = build_jump_model(X, y, method="marginal", lower=0.1, upper=0.9)
    draw = {"ls": 0.09, "sigma_f": 1.5, "sigma_n": 0.3, "amplitude": 0.8, "mean": 1.2}
    idata = add_log_likelihood(
        _fake_posterior({k: np.full((1, 1), v) for k, v in draw.items()}), gp, model
    )
    ll = idata["log_likelihood"]["y"].values[0, 0]
    # brute force: p(y_i | y_-i) = Σ_g w_g p(y | g) / Σ_g w_g p(y_-i | g)
    gaps = gp.gaps
    Cs = []
    for g in range(len(gaps)):
        # standardised: the lifted jump is amplitude × x-range, the jitter 1e-6 var(y)
        Z = ref.lift(X, np.ptp(X) * draw["amplitude"] * gaps.side[g])
        C = draw["sigma_f"] ** 2 * ref.loop_kernel(ref.RADIAL["Matern52"], Z, Z, draw["ls"])
        Cs.append(C + (draw["sigma_n"] ** 2 + 1e-6 * np.var(y)) * np.eye(len(X)))
    r = y - draw["mean"]
    joint = [
        gaps.log_weights[g] + scipy.stats.multivariate_normal(cov=C).logpdf(r)
        for g, C in enumerate(Cs)
    ]
    expected = []
    for i in range(len(r)):
        keep = np.arange(len(r)) != i
        rest = [
            gaps.log_weights[g]
            + scipy.stats.multivariate_normal(cov=C[np.ix_(keep, keep)]).logpdf(r[keep])
            for g, C in enumerate(Cs)
        ]
        expected.append(scipy.special.logsumexp(joint) - scipy.special.logsumexp(rest))
    np.testing.assert_allclose(ll, expected, rtol=1e-8)


def test_add_log_likelihood_rejects_other_objects():
    X, y = _data()
    model, _ = build_model(X, y)
    with pytest.raises(TypeError, match=r"pm\.gp\.Marginal or a MarginalJumpGP"):
        add_log_likelihood(_fake_posterior({"ls": np.ones((1, 1))}), object(), model)


def test_draws_without_a_variable_the_likelihood_needs_are_refused_by_name():
    """Draws from pm.sample(var_names=["ls"]) failed with xarray's KeyError "No variable
    named 'sigma_f'", naming neither the cause nor the fix."""
    X, y = _data()
    model, gp = build_model(X, y, psi=Jump(0.5))
    with pytest.raises(ValueError, match=r"no draws of \['sigma_f', .*pm\.sample without"):
        add_log_likelihood(_fake_posterior({"ls": np.full((1, 3), 0.1)}), gp, model)


def test_two_gps_of_one_model_keep_their_own_observed_names():
    """Both took the name ``y`` (the GP could not be told from the model's two observed
    variables), so the second GP's values silently replaced the first's."""
    X = np.linspace(0, 1, 8)[:, None]
    rng = np.random.default_rng(0)
    with pm.Model() as model:
        ls = pm.HalfNormal("ls", 1.0)
        gps = [pm.gp.Marginal(cov_func=pm.gp.cov.ExpQuad(1, ls=ls)) for _ in range(3)]
        gps[0].marginal_likelihood("a", X=X, y=rng.normal(size=8), sigma=0.3)
        gps[1].marginal_likelihood("b", X=X[:5], y=pm.Data("yb", rng.normal(size=5)), sigma=0.3)
        gps[2].marginal_likelihood("c", X=X[:5], y=model["yb"].get_value(), sigma=0.5)
    idata = _fake_posterior({"ls": np.full((1, 4), 0.3)})
    add_log_likelihood(idata, gps[0], model)
    add_log_likelihood(idata, gps[1], model)
    group = idata["log_likelihood"]
    assert sorted(group.data_vars) == ["a", "b"]
    assert group["a"].shape == (1, 4, 8) and group["b"].shape == (1, 4, 5)
    with pytest.raises(ValueError, match=r"several observed variables .* pass var_name"):
        add_log_likelihood(idata, gps[2], model)  # its y are b's too: it cannot be told
    add_log_likelihood(idata, gps[2], model, var_name="c")
    assert sorted(idata["log_likelihood"].data_vars) == ["a", "b", "c"]
