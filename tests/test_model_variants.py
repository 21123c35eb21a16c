"""The variants of the segment model left out of the defaults (``benchmarks/model_variants.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchmarks.model_variants import (
    NOISE_FACTORS,
    PC_PROBABILITY,
    PC_SPACINGS,
    TEMPERATURE,
    VARIANTS,
    main,
)
from pymc_vsk.jumps import find_jumps
from pymc_vsk.jumps.segments import SegmentModel


@pytest.fixture(scope="module")
def step() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = np.arange(60.0)
    return x, np.where(x < 35, 0.0, 1.5) + 0.3 * rng.normal(size=60) + np.sin(x / 4)


def test_every_variant_undoes_its_patch() -> None:
    methods = dict(vars(SegmentModel))
    for variant in VARIANTS.values():
        with variant():
            assert any(vars(SegmentModel)[name] is not m for name, m in methods.items())
        assert dict(vars(SegmentModel)) == methods


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
