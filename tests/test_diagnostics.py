"""diagnose(): r̂, ESS, divergences and chains sitting in different modes."""

from __future__ import annotations

import re

import arviz as az
import numpy as np

from pymc_vsk import diagnose
from pymc_vsk.diagnostics import chains_in_different_modes


def _idata(shift=0.0, diverging=0, seed=0):
    rng = np.random.default_rng(seed)
    ls = np.exp(np.log(0.06) + 0.1 * rng.normal(size=(4, 1000)))
    ls[2:] *= np.exp(shift)  # chains 2 and 3 elsewhere
    div = np.zeros((4, 1000), dtype=bool)
    div.ravel()[:diverging] = True
    return az.from_dict(
        {
            "posterior": {"ls": ls, "sigma_n": 0.2 + 0.01 * rng.normal(size=(4, 1000))},
            "sample_stats": {"diverging": div},
        }
    )


def test_well_mixed_chains_pass():
    result = diagnose(_idata())
    assert result.ok, str(result)
    assert set(result.table.index) == {"ls", "sigma_n"}
    assert (result.table["r_hat"] < 1.01).all() and (result.table["ess_bulk"] > 3000).all()
    assert result.divergences == 0 and result.n_samples == 4000


def test_chains_in_two_modes_are_named():
    result = diagnose(_idata(shift=np.log(12.0)))  # ℓ ≈ 0.06 vs ≈ 0.7, as in NOTES.md
    assert not result.ok
    assert any("ls: r̂" in p for p in result.problems)
    (mode,) = result.modes
    assert "ls: chains sit in 2 different modes" in mode
    assert re.search(r"chains \[0, 1\] around 0\.0[56]\d*; chains \[2, 3\] around 0\.7", mode)
    assert chains_in_different_modes(_idata(shift=0.05)) == []


def test_divergences_are_counted_and_flagged():
    result = diagnose(_idata(diverging=7))
    assert result.divergences == 7
    assert any("7 divergent" in p for p in result.problems)
    assert "divergences: 7 of 4000" in str(result)
