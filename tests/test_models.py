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
    with pytest.raises(ValueError, match=r"Unknown kernel 'Maten52' \(did you mean 'matern52'\?\)"):
        build_model(X, y, kernel="Maten52")
    with pytest.raises(ValueError, match="name must be the observed variable's name"):
        build_model(X, y, name="")
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


# -- every option works or says why -----------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {"sigma_n": np.full(2, 0.1)},
        {"sigma_n": pm.HalfNormal.dist(1.0, shape=2)},
        {"sigma_f": np.full(2, 1.0)},
        {"sigma_f": pm.HalfNormal.dist(1.0, shape=2)},
        {"mean": np.full(2, 0.5)},
        {"mean": pm.Normal.dist(0.0, 1.0, shape=2)},
        {"priors": {"mean": pm.Normal.dist(0.0, 1.0, shape=2)}},
    ],
    ids=lambda kw: next(iter(kw)),
)
def test_several_values_for_a_scalar_hyper_parameter_are_named(kwargs):
    """σ_f, σ_n and the constant mean are one number each: several values used to crash
    inside pytensor ("Vectorized input 1 has an incompatible shape", "SpecifyShape")."""
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"(sigma_f|sigma_n|mean) .*one value"):
        build_model(X, y, psi=Jump(0.5), **kwargs)


def test_noise_with_one_value_per_observation_still_works():
    X, y = jump_data()
    model, _ = build_model(X, y, psi=Jump(0.5), sigma_n=np.full(len(X), 0.2))
    assert np.isfinite(model.compile_logp()(model.initial_point()))


@pytest.mark.parametrize("priors", [None, ["ls"], 0.5])
def test_priors_of_another_type_are_named(priors):
    X, y = jump_data()
    with pytest.raises(TypeError, match=r"priors must be 'default', 'flat' or a dict"):
        build_model(X, y, priors=priors)


def test_mean_none_is_named_and_a_mean_function_is_used_as_it_is():
    """mean=None read as a fixed mean of NaN; a pm.gp.mean.Mean crashed in float()."""
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"mean must be .*got None"):
        build_model(X, y, mean=None)
    linear = pm.gp.mean.Linear(coeffs=np.array([2.0]), intercept=1.0)
    model, gp = build_model(X, y, psi=Jump(0.5), mean=linear)
    assert gp.mean_func is linear and "mean" not in model.named_vars
    assert np.isfinite(model.compile_logp()(model.initial_point()))


@pytest.mark.parametrize(
    "kwargs", [{"ls": 0.3}, {"priors": {"ls": pm.Gamma.dist(2, 20)}}, {"ard": True}]
)
def test_length_scale_options_with_a_kernel_instance_are_refused(kwargs):
    """A covariance instance brings its own length scale: ls= and ard=True were ignored."""
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"kernel instance .*own length scale"):
        build_model(X, y, psi=Jump(0.5), kernel=pm.gp.cov.ExpQuad(2, ls=0.1), **kwargs)


@pytest.mark.parametrize("name", ["X", "ls", "sigma_n", "mean"])
def test_a_name_taken_by_the_model_is_refused_before_anything_is_built(name):
    X, y = jump_data()
    with pm.Model() as outer:
        with pytest.raises(ValueError, match=rf"name={name!r} .*build_model's own"):
            build_model(X, y, name=name)
    assert not outer.named_vars  # nothing half-built left behind


def test_a_second_model_in_one_context_is_refused_with_the_reason():
    X, y = jump_data()
    with pm.Model() as outer:
        build_model(X, y)
        before = set(outer.named_vars)
        with pytest.raises(ValueError, match=r"already has .*'X'.*one build_model per pm.Model"):
            build_model(X, y, name="z")
    assert set(outer.named_vars) == before


def test_set_data_names_a_wrong_name_and_a_wrong_model():
    X, y = jump_data()
    model, gp = build_model(X, y, name="obs")
    with pytest.raises(ValueError, match=r"no data container 'y_data'.*name='obs'"):
        set_data(model, X, y)
    set_data(model, X[:20], y[:20], name="obs")
    with pytest.raises(TypeError, match=r"model made by build_model.*got Marginal"):
        set_data(gp, X, y)


def test_set_data_refuses_a_fixed_noise_per_observation_of_another_length():
    X, y = jump_data()
    model, _ = build_model(X, y, sigma_n=np.full(len(X), 0.2))
    with pytest.raises(ValueError, match=r"sigma_n .*27 values.*20 observations"):
        set_data(model, X[:20], y[:20])


@pytest.mark.parametrize(
    ("c", "kwargs"),
    [(1.0, {"jitter": 1e10}), (1e-4, {"standardize": False}), (1.0, {"jitter": 0.5})],
)
def test_a_jitter_that_swamps_the_data_warns(c, kwargs):
    """A huge jitter, or PyMC's absolute 1e-6 with standardize=False on y of sd 1e-4, is a
    noise floor above the data's own spread: the fit was silently meaningless."""
    X, y = jump_data()
    with pytest.warns(DataWarning, match=r"jitter .* variance of y"):
        build_model(X, c * y, psi=Jump(0.5), **kwargs)


def test_the_default_jitter_does_not_warn():
    X, y = jump_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_model(X, 1e-6 * y, psi=Jump(0.5))
        build_model(X, y, psi=Jump(0.5), standardize=False)


def test_three_nodes_give_a_length_scale_prior_without_runtime_warnings():
    X, y = jump_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build_model(X[:3], y[:3])


def test_gp_predict_needs_no_model_context():
    X, y = jump_data()
    model, gp = build_model(X, y, psi=Jump(0.5), ls=0.1, sigma_f=1.0, sigma_n=0.2, mean=0.0)
    mu, _ = gp.predict(X[:3], point={}, diag=True)
    with model:
        expected, _ = gp.predict(X[:3], point={}, diag=True)
    np.testing.assert_allclose(mu, expected)


def test_zero_noise_in_the_priors_dict_is_checked_like_the_keyword():
    """priors={"sigma_n": 0.0} skipped the duplicate-node check that sigma_n=0.0 and
    set_data make: build_model took data that set_data then refused."""
    X, y = jump_data()
    X, y = np.vstack([X, X[3:4]]), np.append(y, y[3])
    with pytest.raises(ValueError, match=r"duplicate nodes .* sigma_n = 0"):
        build_model(X, y, priors={"sigma_n": 0.0})


@pytest.mark.parametrize("psi", [None, Jump(0.5)], ids=["stationary", "vsk"])
@pytest.mark.parametrize("ard", [False, True])
@pytest.mark.parametrize(
    "ls", [pm.Gamma.dist(2, 20, shape=3), np.full(3, 0.1)], ids=["dist", "fixed"]
)
def test_a_length_scale_of_another_width_than_the_kernel_is_refused(psi, ard, ls):
    """Three length scales on 1-D x (or on [x, ψ(x)]) built a model whose extra ℓ did nothing
    or broadcast x into three copies; with ard=True a shape=3 prior was resized silently."""
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"ls has 3 values but the base kernel acts on [12]"):
        build_model(X, y, psi=psi, ard=ard, ls=ls)


def test_a_jitter_of_several_values_is_named():
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"jitter must be one number"):
        build_model(X, y, jitter=np.array([1e-6, 1e-6]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ls": "0.1"},
        {"ls": ["0.1"]},
        {"sigma_f": "1"},
        {"sigma_n": b"0.1"},
        {"priors": {"ls": "0.1"}},
        {"mean": np.array(["1.5"])},
    ],
    ids=["ls", "ls-list", "sigma_f", "sigma_n-bytes", "priors-dict", "mean-array"],
)
def test_a_hyper_parameter_given_as_text_is_refused(kwargs):
    """numpy parses "0.1" as 0.1: a length scale written as text was fixed silently."""
    X, y = jump_data()
    with pytest.raises(TypeError, match=r"must hold numbers, not text .*convert it first"):
        build_model(X, y, psi=Jump(0.5), **kwargs)


@pytest.mark.parametrize("value", [True, None])
def test_a_bool_or_none_for_a_hyper_parameter_is_refused(value):
    """``ls=True`` fixed ℓ at 1; ``ls=None`` said "A fixed ls must be > 0; got nan"."""
    X, y = jump_data()
    with pytest.raises(TypeError, match=r"ls must be a number .*Leave ls out for its default"):
        build_model(X, y, psi=Jump(0.5), ls=value)


@pytest.mark.parametrize("jitter", ["1e-6", True])
def test_a_jitter_given_as_text_or_bool_is_refused(jitter):
    X, y = jump_data()
    with pytest.raises(ValueError, match=r"jitter must be one number .*Leave it out"):
        build_model(X, y, jitter=jitter)


def test_data_given_as_text_are_refused():
    X, y = jump_data()
    with pytest.raises(TypeError, match=r"X must hold numbers, not text"):
        build_model(X.astype(str), y)
    with pytest.raises(TypeError, match=r"y must hold numbers, not text"):
        build_model(X, y.astype(str).astype(object))
    with pytest.raises(TypeError, match=r"ls holds complex numbers"):
        build_model(X, y, ls=1 + 2j)


@pytest.mark.parametrize("standardize", ["no", None, 1])
def test_standardize_must_be_a_bool(standardize):
    """standardize="no" was read as True and None as False, without a word."""
    X, y = jump_data()
    with pytest.raises(TypeError, match="standardize must be True or False"):
        build_model(X, y, standardize=standardize)
