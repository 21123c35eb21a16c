"""The level-shift variant of ``benchmarks/level_shifts.py``: its evidence and its sampler."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from benchmarks.level_shifts import LevelShiftModel, detect, main, sample
from pymc_vsk.jumps.segments import matern_kernel


@pytest.fixture(scope="module")
def small() -> LevelShiftModel:
    rng = np.random.default_rng(5)
    x = np.arange(14.0)
    y = np.where(x < 8, 0.0, 1.2) + np.sin(x / 3) + 0.5 * rng.normal(size=14)
    return LevelShiftModel(x, y)


def test_the_evidence_is_the_multivariate_t_of_the_dense_covariance(small) -> None:
    m = small.segments
    jumps = [1, 5]  # indices into the gaps
    steps = (np.arange(m.n)[:, None] >= small.gaps[jumps][None, :]).astype(float)
    centred = m.x - 0.5
    got = small.log_evidence(jumps)
    for g in (0, 7, len(got) - 1):  # no smooth part, Matérn 5/2, Ornstein–Uhlenbeck
        shape = m.grid[g // 2]
        slope_var = m.slope_prior[g % 2][1]
        smooth = shape.ratio**2 * matern_kernel(m.x, m.x, shape.lengthscale, shape.nu)
        C = np.eye(m.n) + smooth + m.level_var + slope_var * np.outer(centred, centred)
        C += m.level_var * steps @ steps.T
        dense = stats.multivariate_t(np.zeros(m.n), m.b0 / m.a0 * C, df=2 * m.a0).logpdf(m.y)
        assert got[g] == pytest.approx(dense, rel=1e-9)


def test_the_sampler_draws_the_counts_of_every_partition_enumerated(small) -> None:
    g = len(small.gaps)
    sets = [
        list(c)
        for k in range(small.segments.max_jumps + 1)
        for c in itertools.combinations(range(g), k)
    ]
    logp = np.array([small.log_target(s) for s in sets])
    counts = np.array([len(s) for s in sets])
    exact = np.array([np.exp(logsumexp(logp[counts == k]) - logsumexp(logp)) for k in range(3)])
    draws = sample(small, 30_000, np.random.default_rng(0))[1000:]
    drawn = np.bincount([len(d) for d in draws], minlength=3) / len(draws)
    assert np.all(exact > 0.05)  # every count matters, so the check can fail
    np.testing.assert_allclose(drawn, exact, atol=0.05)  # 5 seeds × 4 series: at most 0.031


def test_a_clean_shift_is_found_in_its_gap() -> None:
    rng = np.random.default_rng(2)
    x = np.linspace(0.0, 30.0, 60)
    y = np.where(np.arange(60) < 37, 0.0, 4.0) + rng.normal(size=60)
    cuts, p_k = detect(x, y, chains=2, iterations=1500)
    assert abs(cuts[0] - 37) <= 1 and len(cuts) == 1 and p_k[0] < 0.01


def test_the_command_refuses_too_few_iterations() -> None:
    with pytest.raises(SystemExit):
        main(["--iterations", "400"])
