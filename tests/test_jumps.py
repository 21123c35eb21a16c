"""Random jump locations: exact marginalisation over gaps, the relaxation, location summaries."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import scipy.special
import scipy.stats

from pymc_vsk import VSK, fit_map, targets
from pymc_vsk.fitting import compiled_objective
from pymc_vsk.jumps import (
    Gaps,
    LocationPosterior,
    build_jump_model,
    check_location_range,
    location_posterior,
)
from pymc_vsk.scaling import Jump
from tests import reference as ref


def jump_data(n=15, seed=0):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


def test_gaps_partition_the_prior_range_by_the_nodes():
    x = np.array([0.0, 0.5, 0.25, 0.75, 0.125])
    gaps = Gaps.from_nodes(x, 0.1, 0.9)
    np.testing.assert_allclose(gaps.left, [0.1, 0.125, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(gaps.right, [0.125, 0.25, 0.5, 0.75, 0.9])
    np.testing.assert_allclose(
        np.exp(gaps.log_weights), np.array([0.025, 0.125, 0.25, 0.25, 0.15]) / 0.8
    )
    # a jump in (0.25, 0.5] puts 0.5 and 0.75 on the right, as Jump(t) does for any such t
    for t in (0.26, 0.4, 0.5):
        np.testing.assert_array_equal(gaps.side[2], Jump(t)(x[:, None]))
    np.testing.assert_array_equal(
        gaps.index(np.array([0.1, 0.11, 0.5, 0.500001, 0.9, 0.95])), [-1, 0, 2, 3, 4, -1]
    )


def test_gap_weights_follow_a_location_prior_cdf():
    x = np.linspace(0, 1, 11)
    prior = scipy.stats.beta(4, 4)
    gaps = Gaps.from_nodes(x, 0.0, 1.0, cdf=prior.cdf)
    np.testing.assert_allclose(np.exp(gaps.log_weights), np.diff(prior.cdf(np.linspace(0, 1, 11))))


def test_marginal_likelihood_is_the_log_sum_over_gaps_of_vsk_marginals():
    """Brute force: one PyMC Marginal GP with a VSK per gap, mixed with the gap weights."""
    X, y = jump_data()
    point = {"ls": 0.1, "sigma_f": 1.5, "sigma_n": 0.3, "amplitude": 0.7, "mean": 1.2}
    model, gp = build_jump_model(
        X,
        y,
        method="marginal",
        lower=0.1,
        upper=0.9,
        **{k: point[k] for k in ("sigma_f", "sigma_n")},
        priors={"ls": point["ls"], "mean": point["mean"]},
        amplitude=point["amplitude"],
    )
    logp = model.compile_logp(jacobian=False)({})
    gaps = gp.gaps
    terms = []
    for g in range(len(gaps)):
        # standardised: the lifted jump is amplitude × x-range, the jitter 1e-6 var(y)
        Z = ref.lift(X, np.ptp(X) * point["amplitude"] * gaps.side[g])
        K = point["sigma_f"] ** 2 * ref.loop_kernel(ref.RADIAL["Matern52"], Z, Z, point["ls"])
        K += (point["sigma_n"] ** 2 + 1e-6 * np.var(y)) * np.eye(len(X))
        terms.append(
            gaps.log_weights[g]
            + scipy.stats.multivariate_normal(np.full(len(X), point["mean"]), K).logpdf(y)
        )
    np.testing.assert_allclose(logp, scipy.special.logsumexp(terms), rtol=1e-10)
    probs = model.compile_fn(model["y_gap_probs"], inputs=[])({})
    np.testing.assert_allclose(probs, scipy.special.softmax(terms), rtol=1e-8)


@pytest.mark.parametrize("method", ["marginal", "smooth"])
def test_gradients_in_location_and_amplitude_are_nonzero_and_match_finite_differences(method):
    X, y = jump_data(21, seed=3)
    model, _ = build_jump_model(X, y, method=method, lower=0.1, upper=0.9, width=0.02)
    objective = compiled_objective(model)
    point = model.initial_point()
    point.update(
        {
            "ls_log__": np.log(0.07),
            "sigma_f_log__": np.log(1.5),
            "sigma_n_log__": np.log(0.3),
            "amplitude_log__": np.log(0.8),
        }
    )
    if method == "smooth":
        point["location_interval__"] = np.array(-0.1)  # t ≈ 0.48, near nodes 0.4375 and 0.5
    theta = objective.flatten(point)
    _, grad = objective(theta)
    names = [v.name for v in model.continuous_value_vars]
    checked = ["amplitude_log__"] + (["location_interval__"] if method == "smooth" else [])
    for name in checked:
        i = names.index(name)
        h = 1e-6
        up, down = theta.copy(), theta.copy()
        up[i] += h
        down[i] -= h
        fd = (objective(up)[0] - objective(down)[0]) / (2 * h)
        assert abs(grad[i]) > 1e-3, name
        np.testing.assert_allclose(grad[i], fd, rtol=1e-4, err_msg=name)


def test_relaxed_and_marginal_models_agree_as_the_width_shrinks():
    """At a location inside a gap, the smooth model's likelihood tends to the hard jump's."""
    X, y = jump_data()
    t = 0.47  # inside the gap (0.4375, 0.5]
    common = dict(ls=0.08, sigma_f=1.4, sigma_n=0.3, mean=1.3)
    with pm.Model() as hard:
        # standardised: the lifted jump is amplitude × x-range, the jitter 1e-6 var(y)
        base = pm.gp.cov.Matern52(2, ls=common["ls"])
        cov = common["sigma_f"] ** 2 * VSK(base, Jump(t, 0.6), psi_scale=np.ptp(X))
        pm.gp.Marginal(
            mean_func=pm.gp.mean.Constant(common["mean"]), cov_func=cov
        ).marginal_likelihood("y", X=X, y=y, sigma=common["sigma_n"], jitter=1e-6 * np.var(y))
    smooth, _ = build_jump_model(
        X,
        y,
        method="smooth",
        width=1e-5,
        amplitude=0.6,
        priors={"ls": common["ls"], "mean": common["mean"]},
        sigma_f=common["sigma_f"],
        sigma_n=common["sigma_n"],
    )
    p = smooth.initial_point()
    p["location_interval__"] = np.log(
        (t - smooth["location"].owner.inputs[-2].eval())
        / (smooth["location"].owner.inputs[-1].eval() - t)
    )
    np.testing.assert_allclose(
        smooth.compile_logp(vars=[smooth["y"]])(p), hard.compile_logp()({}), rtol=1e-8
    )


def test_location_posterior_summaries_from_gap_probabilities():
    gaps = Gaps.from_nodes(np.array([0.0, 0.25, 0.5, 0.75, 1.0]), 0.0, 1.0)
    post = LocationPosterior(gaps, np.array([0.0, 0.97, 0.03, 0.0]))
    assert post.interval(0.94) == (0.25, 0.5)
    assert post.covers(0.5) and not post.covers(0.25) and not post.covers(0.6)
    assert post.mean == pytest.approx(0.97 * 0.375 + 0.03 * 0.625)
    lo, hi = post.eti(0.94)
    assert lo == pytest.approx(0.25 + 0.25 * 0.03 / 0.97) and hi == pytest.approx(0.5)
    assert "credible gaps span [0.25, 0.5]" in post.summary()
    # a number gives a number (the command's JSON takes float() of the median), an array an array
    assert np.ndim(post.quantile(0.5)) == 0 and float(post.quantile(0.5)) == pytest.approx(
        0.25 + 0.25 * 0.5 / 0.97
    )
    assert post.quantile([0.25, 0.5]).shape == (2,)


def test_location_posterior_from_relaxation_draws():
    X = np.linspace(0, 1, 11)[:, None]
    draws = {"location": np.random.default_rng(0).uniform(0.41, 0.5, size=(2, 500))}
    import arviz as az

    (post,) = location_posterior(az.from_dict({"posterior": draws}), X, 0.1, 0.9)
    assert post.interval(0.94) == pytest.approx((0.4, 0.5))
    assert post.covers(0.5) and post.probs.sum() == pytest.approx(1.0)
    (flat,) = location_posterior(az.from_dict({"posterior": draws}), X[:, 0], 0.1, 0.9)
    np.testing.assert_array_equal(flat.probs, post.probs)  # a 1-D x failed with IndexError


def test_several_jumps_have_ordered_locations():
    X = targets.uniform_nodes(30)
    y = np.where(X[:, 0] > 0.3, 2.0, 0.0) + np.where(X[:, 0] > 0.7, -3.0, 0.0)
    model, _ = build_jump_model(X, y, n_jumps=2)
    assert model["location"].owner.op.ndim_supp == 0
    init = model.initial_point()
    assert init["location_chain__"].shape == (2,)
    result = fit_map(model, n_starts=4, warn=False)
    t1, t2 = result.point["location"]
    assert t1 < t2


def test_bad_jump_model_arguments():
    X, y = jump_data()
    with pytest.raises(NotImplementedError, match="use method='smooth'"):
        build_jump_model(X, y, n_jumps=2, method="marginal")
    with pytest.raises(ValueError, match="method must be"):
        build_jump_model(X, y, method="grid")
    with pytest.raises(ValueError, match=r"an integer \(int\) of at least 1"):
        build_jump_model(X, y, n_jumps=0)
    with pytest.raises(ValueError, match="1-D inputs"):
        build_jump_model(np.c_[X, X], y)
    with pytest.raises(ValueError, match="lower < upper"):
        Gaps.from_nodes(X[:, 0], 0.9, 0.1)


def test_marginal_predictor_is_compiled_per_model_and_respects_the_model_argument():
    from pymc_vsk.caching import cache_entries

    X, y = jump_data()
    fixed = {"sigma_f": 1.5, "sigma_n": 0.3, "priors": {"ls": 0.1, "mean": 1.2}}
    model, gp = build_jump_model(
        X, y, method="marginal", lower=0.1, upper=0.9, amplitude=0.7, **fixed
    )
    grid = np.linspace(0, 1, 7)[:, None]
    first = gp.predict(grid, point={}, model=model)
    gp.predict(grid, point={}, model=model)
    assert len(cache_entries(gp, "predictor")) == 1
    # the same GP placed in a second model whose amplitude is a free variable
    with pm.Model() as other:
        amplitude = pm.HalfNormal("amplitude", 1.0)
    gp.amplitude = amplitude
    with pytest.raises(ValueError, match=r"no value for \['amplitude'\]"):
        gp.predict(grid, point={}, model=other)
    again = gp.predict(grid, point={"amplitude": 0.7}, model=other)
    assert len(cache_entries(gp, "predictor")) == 2
    np.testing.assert_allclose(again.mean, first.mean, rtol=1e-10)
    np.testing.assert_allclose(again.std_y, first.std_y, rtol=1e-10)


def test_a_numpy_integer_count_of_jumps_builds_the_model():
    X, y = jump_data()
    model, _ = build_jump_model(X, y, n_jumps=np.int64(2))
    assert model["location"].type.shape == (2,)


def test_scores_name_annotations_given_as_one_flat_list():
    from pymc_vsk.jumps.scores import covering, f1_score

    with pytest.raises(TypeError, match=r"one list of change points per annotator.*\[\[10, 50\]\]"):
        f1_score([10, 50], [12])
    with pytest.raises(TypeError, match="one list of change points per annotator"):
        covering([50], [50], 100)
    with pytest.raises(ValueError, match="at least one annotator"):
        f1_score([], [5])
    with pytest.raises(ValueError, match="at least one annotator"):
        covering([], [5], 100)
    with pytest.raises(ValueError, match="n must be"):
        covering([[]], [], 0)
    # hand-worked: P = 2/3 (0 and 29 match; 31 does not), R = 1, F1 = 0.8
    assert f1_score([[30]], [29, 31]) == pytest.approx(0.8)
    assert covering([[50]], [25, 75], 100) == pytest.approx(0.5)


def test_jump_count_selection_names_an_empty_or_foreign_comparison():
    import pandas as pd

    from pymc_vsk.jumps import select_jump_count

    with pytest.raises(ValueError, match="no models"):
        select_jump_count(pd.DataFrame({"elpd_diff": [], "dse": []}), {})
    with pytest.raises(ValueError, match=r"no column\(s\) \['dse'\]"):
        select_jump_count(
            pd.DataFrame({"elpd_diff": [0.0, -3.0]}, index=["a", "b"]), {"a": 2, "b": 1}
        )


def test_jump_count_selection_reads_a_missing_standard_error_as_the_small_threshold():
    """arviz.compare leaves dse NaN when it cannot estimate it; NaN must not end a tie."""
    import pandas as pd

    from pymc_vsk.jumps import select_jump_count

    comparison = pd.DataFrame(
        {"elpd_diff": [0.0, -2.0], "dse": [0.0, np.nan]}, index=["one", "none"]
    )
    assert select_jump_count(comparison, {"one": 1, "none": 0}) == 0
    assert select_jump_count(comparison, {"one": 1, "none": 0}, small=1.0) == 1


def test_gap_quantiles_end_where_the_posterior_mass_ends():
    """The 0 and 1 quantiles are the ends of the gaps with mass: with empty gaps after the
    last one with mass, the 1 quantile (and a 100 % ETI) was the left end of the last gap of
    the prior range (4 here), far beyond every draw the posterior could give."""
    gaps = Gaps.from_nodes(np.arange(5.0), -0.5, 4.5)
    early = LocationPosterior(gaps, np.array([0.5, 0.5, 0.0, 0.0, 0.0, 0.0]))
    np.testing.assert_allclose(early.quantile([0.0, 0.25, 0.5, 1.0]), [-0.5, -0.25, 0.0, 1.0])
    assert early.eti(1.0) == (-0.5, 1.0) == early.interval(1.0)
    late = LocationPosterior(gaps, np.array([0.0, 0.0, 0.0, 0.0, 0.5, 0.5]))
    np.testing.assert_allclose(late.quantile([0.0, 0.5, 1.0]), [3.0, 4.0, 4.5])
    assert late.eti(1.0) == (3.0, 4.5) == late.interval(1.0)


@pytest.mark.parametrize("prob", [1.5, 0.0, -0.2, np.nan, True, "0.9", [0.5, 0.9]])
def test_location_summaries_refuse_a_mass_that_is_no_probability(prob):
    """A mass of 1.5 was read as 1 (and printed as 150 %), NaN as 1 gap, and so on."""
    post = LocationPosterior(Gaps.from_nodes(np.arange(5.0), -0.5, 4.5), np.full(6, 1 / 6))
    for summary in (post.eti, post.interval, post.credible_gaps, post.summary):
        with pytest.raises((ValueError, TypeError), match="prob"):
            summary(prob)
    with pytest.raises((ValueError, TypeError), match="prob"):
        post.covers(0.5, prob)


@pytest.mark.parametrize("q", [1.5, -0.1, [0.5, np.nan]])
def test_location_quantiles_refuse_probabilities_outside_0_1(q):
    """Without draws a quantile of 1.5 was that of 1; with draws numpy refused it."""
    gaps = Gaps.from_nodes(np.arange(5.0), -0.5, 4.5)
    for post in (
        LocationPosterior(gaps, np.full(6, 1 / 6)),
        LocationPosterior(gaps, np.full(6, 1 / 6), draws=np.linspace(0, 4, 9)),
    ):
        with pytest.raises(ValueError, match=r"q must hold probabilities in \[0, 1\]"):
            post.quantile(q)


def test_location_posterior_refuses_draws_outside_the_range_given():
    """Draws outside [lower, upper] (the range of another model) were dropped from the gap
    probabilities but kept in the quantiles; none inside gave NaN probabilities."""
    import arviz as az

    X = np.linspace(0, 1, 11)[:, None]
    draws = np.random.default_rng(0).uniform(0.41, 0.5, size=(2, 50))
    idata = az.from_dict({"posterior": {"location": draws}})
    with pytest.raises(ValueError, match=r"100 draw\(s\) of 'location' lie outside"):
        location_posterior(idata, X, 0.6, 0.9)
    with pytest.raises(ValueError, match="lie outside"):
        location_posterior(idata, X, 0.1, 0.45)
    (post,) = location_posterior(idata, X, 0.41, 0.5)  # the ends belong to the range
    assert post.probs.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        location_posterior(idata, np.r_[X, [[np.nan]]], 0.1, 0.9)


@pytest.mark.parametrize(
    ("bound", "error", "message"),
    [
        ("0.1", TypeError, "lower must hold numbers, not text"),
        ("abc", TypeError, "lower must hold numbers, not text"),
        (True, TypeError, "lower must be a number"),
        (np.array([0.1, 0.2]), ValueError, r"lower must be one number.*shape \(2,\)"),
        (np.inf, ValueError, "lower contains 1 infinite"),
    ],
)
def test_location_bounds_must_be_one_finite_number(bound, error, message):
    """Text was parsed ("0.1") or failed inside float(), True was a bound of 1, an array
    failed in numpy's conversion to a scalar."""
    X, y = jump_data()
    with pytest.raises(error, match=message):
        build_jump_model(X, y, lower=bound, upper=0.9)
    import arviz as az

    idata = az.from_dict({"posterior": {"location": np.full((1, 5), 0.5)}})
    with pytest.raises(error, match=message):
        location_posterior(idata, X, bound, 0.9)


def test_fixed_amplitudes_are_one_number_or_one_per_jump():
    """One number for two jumps failed with numpy's IndexError, three values for two jumps
    were cut to two silently, two values for the exact marginal failed inside pytensor."""
    X, y = jump_data()
    model, _ = build_jump_model(X, y, n_jumps=2, amplitude=0.5)
    assert "amplitude" not in model.named_vars
    build_jump_model(X, y, n_jumps=2, amplitude=[0.5, 1.0])
    with pytest.raises(ValueError, match=r"one number or one per jump \(2\); got shape \(3,\)"):
        build_jump_model(X, y, n_jumps=2, amplitude=[0.5, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"one per jump \(1\); got shape \(2,\)"):
        build_jump_model(X, y, method="marginal", amplitude=[0.5, 1.0])
    with pytest.raises(TypeError, match="amplitude must be a number"):
        build_jump_model(X, y, amplitude=True)


def test_marginal_predictions_check_their_inputs():
    """Two columns were cut to the first, NaN gave NaN predictions, a 1-D array and text
    failed inside pytensor and numpy."""
    X, y = jump_data()
    fixed = {"sigma_f": 1.5, "sigma_n": 0.3, "priors": {"ls": 0.1, "mean": 1.2}}
    model, gp = build_jump_model(X, y, method="marginal", amplitude=0.7, **fixed)
    grid = np.linspace(0, 1, 5)
    for bad, message in (
        (grid, r"shape \(m, 1\), as X; got shape \(5,\)"),
        (np.c_[grid, grid], r"got shape \(5, 2\)"),
        (np.array([[0.5], [np.nan]]), "Xnew contains 1 NaN"),
    ):
        with pytest.raises(ValueError, match=message):
            gp.predict(bad, point={}, model=model)
    with pytest.raises(TypeError, match="Xnew must hold numbers, not text"):
        gp.predict([["0.5"]], point={}, model=model)
    assert np.all(np.isfinite(gp.predict(grid[:, None], point={}, model=model).mean))


@pytest.mark.parametrize(
    ("counts", "options", "message"),
    [
        ({"one": 1.5, "none": 0}, {}, r"counts must be whole numbers.*'one': 1.5"),
        ({"one": True, "none": False}, {}, "counts must be whole numbers"),
        ({"one": "1", "none": "0"}, {}, "counts must be whole numbers"),
        ({"one": 1, "none": -1}, {}, "counts must be whole numbers"),
        ({"one": 1, "none": 0}, {"small": np.nan}, "small must be a finite number"),
        ({"one": 1, "none": 0}, {"n_se": -2.0}, "n_se must be a finite number"),
        ({"one": 1, "none": 0}, {"small": "4"}, "small must be a finite number"),
    ],
)
def test_jump_count_selection_refuses_counts_and_thresholds_that_are_not_numbers(
    counts, options, message
):
    """A count of 1.5 was truncated to 1, bools and text were counted, a NaN or negative
    threshold was used as it was."""
    import pandas as pd

    from pymc_vsk.jumps import select_jump_count

    comparison = pd.DataFrame({"elpd_diff": [0.0, -1.0], "dse": [0.0, 1.0]}, index=["one", "none"])
    with pytest.raises(ValueError, match=message):
        select_jump_count(comparison, counts, **options)


def test_jump_count_selection_refuses_a_model_without_an_elpd():
    """A NaN elpd_diff never counted as tied: the answer silently ignored that model."""
    import pandas as pd

    from pymc_vsk.jumps import select_jump_count

    comparison = pd.DataFrame(
        {"elpd_diff": [0.0, np.nan], "dse": [0.0, 1.0]}, index=["one", "none"]
    )
    with pytest.raises(ValueError, match=r"elpd_diff is NaN for \['none'\]"):
        select_jump_count(comparison, {"one": 1, "none": 0})


def test_location_posterior_names_a_missing_variable():
    """A posterior without the location failed with xarray's bare KeyError; one of the exact
    marginal is pointed to its own summary."""
    import arviz as az

    X = np.linspace(0, 1, 11)[:, None]
    marginal = az.from_dict({"posterior": {"y_gap_probs": np.full((1, 5, 8), 1 / 8)}})
    with pytest.raises(KeyError, match=r"no variable 'location'.*gp.location_posterior\(idata\)"):
        location_posterior(marginal, X, 0.1, 0.9)


def test_the_location_range_check_and_the_jump_model_refuse_a_fractional_count_and_a_non_bool():
    """check_location_range took n_jumps=2.5, and build_jump_model read standardize="no"
    as True."""
    x = np.linspace(0.0, 1.0, 20)
    with pytest.raises(TypeError, match=r"n_jumps must be an integer \(int\); got 2\.5"):
        check_location_range(x, 0.1, 0.9, 2.5)
    with pytest.raises(TypeError, match="standardize must be True or False; got 'no'"):
        build_jump_model(x[:, None], np.sin(6 * x), standardize="no")
