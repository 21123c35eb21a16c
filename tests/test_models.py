"""The one-call model builder: like-for-like models, priors scaled to the data, data checks."""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest
import scipy.stats

from pymc_vsk import VSK, build_model, fit_map, set_data, targets
from pymc_vsk.fitting import compiled_objective
from pymc_vsk.models import DataWarning, default_priors, inverse_gamma_for_range, node_scales
from pymc_vsk.scaling import Jump, SmoothJump


def jump_data(n=27, seed=0, noise=0.25):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + noise * np.random.default_rng(seed).normal(size=n)


def test_vsk_and_stationary_models_differ_only_in_the_covariance():
    X, y = jump_data()
    vsk, gp_vsk = build_model(X, y, psi=Jump(0.5))
    stat, gp_stat = build_model(X, y)
    assert [v.name for v in vsk.free_RVs] == [v.name for v in stat.free_RVs]
    assert [v.name for v in vsk.free_RVs] == ["ls", "sigma_f", "sigma_n", "mean"]
    assert isinstance(gp_vsk.cov_func._factor_list[0], VSK)
    assert isinstance(gp_stat.cov_func._factor_list[0], pm.gp.cov.Matern52)
    assert vsk.initial_point().keys() == stat.initial_point().keys()


def test_inverse_gamma_length_scale_prior_puts_1_percent_in_each_tail():
    a, b = inverse_gamma_for_range(0.01, 1.0)
    dist = scipy.stats.invgamma(a, scale=b)
    np.testing.assert_allclose([dist.cdf(0.01), dist.sf(1.0)], [0.01, 0.01], rtol=1e-6)
    X, y = jump_data(81)
    spacing, span = node_scales(X)
    assert spacing == pytest.approx(1 / 128) and span == pytest.approx(np.ptp(X))
    ls = default_priors(X, y)["ls"]
    alpha, beta = (float(p.eval()) for p in ls.owner.inputs[-2:])
    dist = scipy.stats.invgamma(alpha, scale=beta)
    np.testing.assert_allclose([dist.cdf(spacing), dist.sf(span)], [0.01, 0.01], rtol=1e-6)


def test_default_noise_and_signal_priors_scale_with_y():
    X, y = jump_data()
    priors = default_priors(X, 10 * y)
    sd = np.std(10 * y)
    assert float(priors["sigma_n"].owner.inputs[-1].eval()) == pytest.approx(sd)
    assert float(priors["sigma_f"].owner.inputs[-1].eval()) == pytest.approx(2 * sd)


def test_flat_priors_make_the_log_density_the_log_likelihood():
    X, y = jump_data()
    model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
    point = model.initial_point()
    point.update({"ls_log__": np.log(0.07), "sigma_f_log__": np.log(1.4), "sigma_n_log__": -1.5})
    total = model.compile_logp(jacobian=False)(point)
    likelihood = model.compile_logp(vars=[model["y"]])(point)
    assert total == pytest.approx(likelihood, rel=1e-12)


def test_fixed_values_overrides_and_zero_mean():
    X, y = jump_data()
    model, gp = build_model(
        X, y, psi=Jump(0.5), mean="zero", sigma_n=0.0, ls=pm.Gamma.dist(2, 20), sigma_f=1.5
    )
    assert [v.name for v in model.free_RVs] == ["ls"]
    assert isinstance(gp.mean_func, pm.gp.mean.Zero)
    assert model["sigma_n"].get_value() == 0.0  # fixed sigma_n is a data container


@pytest.mark.parametrize(
    "kernel",
    ["expquad", "matern12", "matern32", "Matern52", "exponential", "ratquad", pm.gp.cov.Matern32],
)
def test_kernels_by_name_or_class(kernel):
    X, y = jump_data()
    model, _ = build_model(X, y, psi=Jump(0.5), kernel=kernel)
    assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_kernel_instance_is_used_as_it_is():
    X, y = jump_data()
    base = pm.gp.cov.ExpQuad(2, ls=0.1)
    model, gp = build_model(X, y, psi=Jump(0.5), kernel=base)
    assert "ls" not in model.named_vars
    assert gp.cov_func._factor_list[0].cov_func is base


def test_ard_gives_one_length_scale_per_lifted_coordinate():
    X, y = jump_data()
    model, _ = build_model(X, y, psi=Jump(0.5), ard=True)
    assert model.initial_point()["ls_log__"].shape == (2,)


def test_random_psi_from_the_enclosing_model_context():
    X, y = jump_data()
    with pm.Model() as outer:
        loc = pm.Uniform("loc", 0.1, 0.9)
        model, _ = build_model(X, y, psi=SmoothJump(loc, width=0.02))
    assert model is outer and "loc" in [v.name for v in model.free_RVs]
    assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_set_data_changes_length_without_recompiling():
    X, y = jump_data(81, seed=3)
    model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
    fit_map(model, n_starts=2, warn=False)
    objective = compiled_objective(model)
    set_data(model, X[:27], y[:27])
    swapped = fit_map(model, n_starts=2, warn=False)
    assert compiled_objective(model) is objective
    fresh_model, _ = build_model(X[:27], y[:27], psi=Jump(0.5), priors="flat")
    fresh = fit_map(fresh_model, n_starts=2, warn=False)
    assert swapped.logp == pytest.approx(fresh.logp, rel=1e-10)


# -- bad input --------------------------------------------------------------------------------
def test_y_of_another_length_than_X():
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"y has 26 values but X has 27 rows"):
        build_model(X, y[:-1])


def test_nan_in_y():
    X, y = jump_data()
    y[4] = np.nan
    with pytest.raises(ValueError, match=r"y contains 1 NaN value\(s\) \(first in row 4\).*drop"):
        build_model(X, y)


def test_constant_y_warns():
    X, _ = jump_data()
    with pytest.warns(DataWarning, match="y is constant"):
        build_model(X, np.full(len(X), 2.0))


def test_duplicate_nodes_with_zero_noise():
    X, y = jump_data()
    X = np.vstack([X, X[3:4]])
    y = np.append(y, y[3])
    with pytest.raises(ValueError, match=r"duplicate nodes .* sigma_n = 0.*Average duplicates"):
        build_model(X, y, sigma_n=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_model(X, y)  # with noise, duplicates are fine


def test_set_data_checks_like_build_model():
    X, y = jump_data()
    model, _ = build_model(X, y, psi=Jump(0.5), sigma_n=0.0)
    with pytest.raises(ValueError, match="duplicate nodes"):
        set_data(model, np.vstack([X, X[:1]]), np.append(y, y[0]))
    with pytest.raises(ValueError, match=r"X has 2 column\(s\) but the model was built for 1"):
        set_data(model, np.c_[X, X], y)


def test_bad_builder_arguments():
    X, y = jump_data()
    with pytest.raises(ValueError, match="Unknown kernel 'matern7'"):
        build_model(X, y, kernel="matern7")
    with pytest.raises(ValueError, match="priors must be"):
        build_model(X, y, priors="vague")
    with pytest.raises(ValueError, match=r"Unknown prior\(s\) \['noise'\]"):
        build_model(X, y, priors={"noise": 1.0})
    with pytest.raises(TypeError, match=r"Unknown keyword\(s\) \['sigma'\]"):
        build_model(X, y, sigma=0.1)
    with pytest.raises(ValueError, match="mean must be"):
        build_model(X, y, mean="linear")
    with pytest.raises(ValueError, match="fixed sigma_n must be finite and >= 0"):
        build_model(X, y, sigma_n=-1.0)
    with pytest.raises(ValueError, match=r"2-D array of shape \(n, d\)"):
        build_model(X[:, 0], y)


def test_a_number_for_mean_is_a_fixed_constant_mean():
    X, y = jump_data()
    model, gp = build_model(X, y, psi=Jump(0.5), mean=1.5)
    assert sorted(v.name for v in model.free_RVs) == ["ls", "sigma_f", "sigma_n"]
    assert isinstance(gp.mean_func, pm.gp.mean.Constant)
    np.testing.assert_allclose(gp.mean_func(X).eval(), np.full(len(X), 1.5))
    # a .dist() for mean is its prior; "constant" keeps the default prior
    model, _ = build_model(X, y, psi=Jump(0.5), mean=pm.Normal.dist(0.0, 1.0))
    assert "mean" in [v.name for v in model.free_RVs]
    model, _ = build_model(X, y, psi=Jump(0.5), mean="constant", priors={"mean": 2.0})
    assert "mean" not in [v.name for v in model.free_RVs]


def test_every_registered_kernel_builds_by_name():
    from pymc_vsk.kernels import base_kernels

    X, y = jump_data()
    for name in base_kernels():
        model, _ = build_model(X, y, psi=Jump(0.5), kernel=name)
        assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_only_the_default_priors_in_use_follow_the_data():
    """set_data renews the default priors the model uses, and only those: a fixed ℓ needs no
    length-scale prior, so two nodes are enough (they used to fail "needs at least three
    distinct nodes ... fix the length scale", which the model had); a zero mean has none."""
    X = targets.halton_nodes(20)
    y = targets.jump(X)
    model, _ = build_model(X, y, ls=0.1, mean="zero")
    names = {n.rsplit("_prior_", 1)[0] for n in model.named_vars if "_prior_" in n}
    assert names == {"sigma_f", "sigma_n"}
    set_data(model, [[0.0], [1.0]], [0.0, 3.0])
    assert model["sigma_n_prior_1"].get_value() == pytest.approx(1.5)  # sd of the new y
    build_model([[0.0], [1.0]], [0.0, 3.0], ls=0.1)  # likewise at build
