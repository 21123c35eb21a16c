"""The variants of the segment model left out of the defaults (``benchmarks/model_variants.py``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from benchmarks.model_variants import (
    NOISE_FACTORS,
    PC_PROBABILITY,
    PC_SPACINGS,
    TEMPERATURE,
    VARIANTS,
    _sequential,
    main,
    observation_jacobians,
    safe_power,
)
from pymc_vsk.jumps import detection, find_jumps
from pymc_vsk.jumps.segments import SegmentModel, segment_evidence


@pytest.fixture(scope="module")
def step() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = np.arange(60.0)
    return x, np.where(x < 35, 0.0, 1.5) + 0.3 * rng.normal(size=60) + np.sin(x / 4)


def test_every_variant_undoes_its_patch() -> None:
    methods, functions = dict(vars(SegmentModel)), dict(vars(detection))
    for variant in VARIANTS.values():
        with variant():
            patched = [vars(SegmentModel)[name] is not m for name, m in methods.items()]
            patched += [vars(detection)[name] is not f for name, f in functions.items()]
            assert any(patched)
        assert dict(vars(SegmentModel)) == methods
        assert dict(vars(detection)) == functions


def test_cover_decision_scores_both_and_is_the_f1_decision_without_the_covering(
    step, monkeypatch
) -> None:
    # 70 % of the draws: jumps at 20 and at one of 40..60, evenly; 30 %: at 20 only. In a
    # series of 100, answering {20} expects F1 0.860 and covering 0.744, answering {20, 50}
    # F1 0.829 (half the second places are more than 5 away) and covering 0.844: F1 alone
    # answers one jump, the mean of both two
    draws = [[20, t] for t in range(40, 61) for _ in range(10)] + [[20, 0]] * 90
    cuts, counts = np.array(draws), np.array([2] * 210 + [1] * 90)
    p_k = np.array([0.0, 0.3, 0.7])
    assert detection._best_f1_count(cuts, counts, p_k, 5) == 1
    x, y = step
    with VARIANTS["cover-decision"]():
        detection._check(np.arange(100.0), np.zeros(100), 3)  # the series' length, 100
        by_both = detection._best_f1_count(cuts, counts, p_k, 5)
        monkeypatch.setattr("benchmarks.model_variants.COVER_WEIGHT", 0.0)
        assert detection._best_f1_count(cuts, counts, p_k, 5) == 1
        default = find_jumps(x, y, draws=100, chains=2)
    assert by_both == 2
    assert default.n_jumps == find_jumps(x, y, draws=100, chains=2).n_jumps


def test_piece_shapes_is_the_shared_model_when_the_grid_has_one_shape(step) -> None:
    x, y = step
    one = {"smooth_weight": 0.0, "warp": False, "season": False, "draws": 100, "chains": 2}
    shared = find_jumps(x, y, **one)
    with VARIANTS["piece-shapes"]():
        own = find_jumps(x, y, **one)
    np.testing.assert_allclose(own.p_n_jumps, shared.p_n_jumps, rtol=1e-10)
    # with the default grid, each piece's own shape is another model
    many = {"warp": False, "season": False, "draws": 100, "chains": 2}
    with VARIANTS["piece-shapes"]():
        own = find_jumps(x, y, **many)
    assert np.abs(own.p_n_jumps - find_jumps(x, y, **many).p_n_jumps).max() > 1e-3


def test_warp_choice_paid_charges_the_log_of_the_candidates(step) -> None:
    x, y = step
    plain = SegmentModel(x, y, warp=(1, 0.1))
    with VARIANTS["warp-choice-paid"]():
        paid = SegmentModel(x, y, warp=(1, 0.1))
        unwarped = SegmentModel(x, y)
    # continuous data: both signs, all five offsets
    assert paid.log_penalty - plain.log_penalty == pytest.approx(np.log(10))
    assert unwarped.log_penalty == SegmentModel(x, y).log_penalty
    counts = np.round(y)  # resolution 1 in a range of about 4: offsets 0.3 and 1 only
    with VARIANTS["warp-choice-paid"]():
        paid = SegmentModel(x, counts, warp=(1, 0.3))
    assert paid.log_penalty == pytest.approx(np.log(4))


def test_noise_levels_average_over_the_centre_of_the_noise_prior(step) -> None:
    x, y = step
    plain = SegmentModel(x, y)
    with VARIANTS["noise-levels"]():
        tripled = SegmentModel(x, y)
        priors = [tripled._priors(s.lengthscale, s.ratio, s.nu) for s in tripled.grid]
    assert len(tripled.grid) == len(NOISE_FACTORS) * len(plain.grid)
    weights = np.array([s.log_weight for s in tripled.grid])
    assert np.logaddexp.reduce(weights) == pytest.approx(0.0, abs=1e-12)
    b0 = np.array([p["b0"] for p in priors]).reshape(len(NOISE_FACTORS), -1)
    np.testing.assert_allclose(b0 / plain.b0, np.repeat([NOISE_FACTORS], b0.shape[1], 0).T)
    assert {p["nu"] for p in priors} == {s.nu for s in plain.grid}


def test_tempered_raises_each_piece_evidence_to_its_power(step) -> None:
    x, y = step
    plain = SegmentModel(x, y)
    shape = plain.grid[3]
    P = plain.evidence(shape.lengthscale, shape.ratio, shape.nu)
    with VARIANTS["tempered"]():
        powered = plain.evidence(shape.lengthscale, shape.ratio, shape.nu)
        warped = SegmentModel(x, y, warp=(1, 0.1))
    # the Jacobian of the warp and of y's scaling is a factor of the likelihood too
    jacobian = SegmentModel(x, y, warp=(1, 0.1)).log_jacobian
    assert warped.log_jacobian == pytest.approx(TEMPERATURE * jacobian)
    np.testing.assert_array_equal(np.isfinite(powered), np.isfinite(P))
    finite = np.isfinite(P)
    np.testing.assert_allclose(powered[finite], TEMPERATURE * P[finite], rtol=1e-12)
    # a clean step of 3 noise sds: found both ways, the log odds of a jump about halved
    # (0.41 to 0.74 of the untempered ones over seeds 5 to 14)
    rng = np.random.default_rng(5)
    z = np.where(x < 30, 0.0, 3.0) + rng.normal(size=60)
    options = {"warp": False, "season": False, "draws": 100, "chains": 2}
    sure = find_jumps(x, z, **options)
    with VARIANTS["tempered"]():
        less = find_jumps(x, z, **options)
    assert sure.n_jumps >= 1 and less.n_jumps >= 1
    odds = [np.log1p(-p.p_n_jumps[0]) - np.log(p.p_n_jumps[0]) for p in (sure, less)]
    assert 0 < odds[1] < 0.8 * odds[0]


def test_lengthscale_prior_is_the_penalised_complexity_prior_on_the_grid(step) -> None:
    x, y = step
    plain = SegmentModel(x, y)
    with VARIANTS["lengthscale-prior"]():
        pc = SegmentModel(x, y)
    assert [(s.lengthscale, s.ratio, s.nu) for s in pc.grid] == [
        (s.lengthscale, s.ratio, s.nu) for s in plain.grid
    ]
    weights = np.array([s.log_weight for s in pc.grid])
    assert np.logaddexp.reduce(weights) == pytest.approx(0.0, abs=1e-12)
    # one (ν, r) block: its mass kept, spread over ℓ as π(ℓ)·ℓ, π from scipy's density of
    # 1/√ℓ ~ Exponential(λ)
    block = [i for i, s in enumerate(pc.grid) if s.ratio == 1.0 and s.nu == 2.5]
    ells = np.array([pc.grid[i].lengthscale for i in block])
    h = 1.0 / (len(x) - 1)
    assert pc.spacing == pytest.approx(h) and pc.grid[1].lengthscale == pytest.approx(h)
    lam = -np.log(PC_PROBABILITY) * np.sqrt(PC_SPACINGS * h)
    # P(ℓ < c h) = P(1/√ℓ > 1/√(c h)) = exp(-λ / √(c h)) = PC_PROBABILITY
    assert stats.expon(scale=1 / lam).sf(1 / np.sqrt(PC_SPACINGS * h)) == pytest.approx(
        PC_PROBABILITY
    )
    # density of ℓ from that of u = 1/√ℓ: π(ℓ) = p_u(u) |du/dℓ|, mass on the log grid π(ℓ)·ℓ
    u = 1 / np.sqrt(ells)
    mass = stats.expon(scale=1 / lam).pdf(u) * 0.5 * ells**-1.5 * ells
    expected = np.log(mass / mass.sum()) + np.logaddexp.reduce(
        [plain.grid[i].log_weight for i in block]
    )
    np.testing.assert_allclose([pc.grid[i].log_weight for i in block], expected, rtol=1e-10)
    # the shortest length scales lose prior mass to the longer ones
    assert pc.grid[block[0]].log_weight < plain.grid[block[0]].log_weight - 2
    assert pc.grid[block[-1]].log_weight > plain.grid[block[-1]].log_weight


def test_an_unknown_variant_is_refused(capsys) -> None:
    assert main(["no-such-variant"]) == 2
    assert "piece-shapes" in capsys.readouterr().out


def _enumerated(P: np.ndarray, power: float, hazard: float, min_size: int) -> tuple:
    """Each observation's log predictive and expected log predictive, every pattern of cuts
    before it enumerated with its prior and tempered evidence."""
    n = P.shape[0]
    log_pred, mean_log = np.zeros(n), np.zeros(n)
    log_pred[0] = mean_log[0] = P[0, 1]
    for t in range(1, n):
        terms, expected, starts, log_w = [], 0.0, [], []
        for bits in itertools.product([0, 1], repeat=t - 1):
            cuts = [u for u, b in zip(range(1, t), bits, strict=True) if b]
            lp, start = 0.0, 0
            for u in range(1, t):
                allowed = u - start >= min_size and u <= n - min_size
                if u in cuts and not allowed:
                    lp = -np.inf
                elif u in cuts:
                    lp, start = lp + np.log(hazard), u
                elif allowed:
                    lp += np.log1p(-hazard)
            edges = [0, *cuts, t]
            log_w.append(lp + power * sum(P[a, b] for a, b in itertools.pairwise(edges)))
            starts.append(start)
        log_w = np.array(log_w) - logsumexp(log_w)
        for lw, s in zip(log_w, starts, strict=True):
            grow, new = P[s, t + 1] - P[s, t], P[t, t + 1]
            if t - s >= min_size and t <= n - min_size:
                terms += [lw + np.log(hazard) + new, lw + np.log1p(-hazard) + grow]
                expected += np.exp(lw) * (hazard * new + (1 - hazard) * grow)
            elif lw > -np.inf:
                terms.append(lw + grow)
                expected += np.exp(lw) * grow
        log_pred[t], mean_log[t] = logsumexp(terms), expected
    return log_pred, mean_log


@pytest.mark.parametrize("power", [1.0, 0.5])
def test_safe_bayes_predictions_are_those_of_every_partition_enumerated(power) -> None:
    rng = np.random.default_rng(1)
    x = np.arange(9.0)
    model = SegmentModel(x, np.where(x < 4, 0.0, 2.0) + rng.normal(size=9))
    shape = model.grid[5]
    priors = {**model._priors(shape.lengthscale, shape.ratio, shape.nu), "min_size": 1}
    P = segment_evidence(model.x, model.y, **priors)
    log_mass, log_pred, mean_log = _sequential(P, power, 0.2, 2)
    expected = _enumerated(P, power, 0.2, 2)
    np.testing.assert_allclose(log_pred, expected[0], atol=1e-10)
    np.testing.assert_allclose(mean_log, expected[1], atol=1e-10)
    # the expected log loss is never below the loss of the mixture (Jensen)
    assert np.all(mean_log <= log_pred + 1e-12)
    if power == 1.0:  # untempered, the predictions chain into the evidence
        assert log_mass[-1] == pytest.approx(log_pred.sum(), abs=1e-10)
    # with no jump a priori, the evidence of one segment
    assert _sequential(P, 1.0, 1e-300, 2)[0][-1] == pytest.approx(P[0, -1], abs=1e-10)


def test_safe_bayes_jacobians_of_each_observation_sum_to_the_models(step) -> None:
    x, y = step
    for warp in (None, (1, 0.1), (-1, 1.0)):
        model = SegmentModel(x, 50.0 + 7.0 * y, warp=warp)
        jac = observation_jacobians(model, 50.0 + 7.0 * y)
        assert jac.sum() == pytest.approx(model.log_jacobian, rel=1e-12)


def test_safe_bayes_tempers_as_the_tempered_variant_when_its_power_is_half(
    step, monkeypatch
) -> None:
    x, y = step
    y = y + np.where(x < 15, 2.0, 0.0)  # and a second, larger step: some draws have jumps
    options = {"warp": True, "season": False, "draws": 100, "chains": 2}
    with VARIANTS["tempered"]():
        half = find_jumps(x, y, **options)
    monkeypatch.setattr("benchmarks.model_variants.SAFE_POWERS", (0.5,))
    with VARIANTS["safe-bayes"]():
        safe = find_jumps(x, y, **options)
    assert all(m.power == 0.5 for m in safe.models)
    np.testing.assert_allclose(safe.p_n_jumps, half.p_n_jumps, rtol=1e-10)
    # the same draws: the partitions too are drawn from the tempered evidence
    assert half.n_jumps == safe.n_jumps == 1
    for name in ("n_jumps", "lengthscale", "location"):
        np.testing.assert_array_equal(safe.idata.posterior[name], half.idata.posterior[name])


def test_safe_bayes_keeps_the_likelihood_where_the_model_holds() -> None:
    """A clean step in normal noise: the untempered posterior predicts better (by the
    expected log loss) on most seeds (9 of seeds 0 to 9)."""
    x = np.arange(60.0)
    kept = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        z = np.where(x < 30, 0.0, 3.0) + rng.normal(size=60)
        with VARIANTS["safe-bayes"]():
            power, losses = safe_power([SegmentModel(x, z)])
        assert set(losses) == {"I", "R"} and power in losses["R"]
        kept += power == 1.0
    assert kept >= 7
