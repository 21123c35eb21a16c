"""diagnose(): r̂, ESS, divergences and chains sitting in different modes.

The draws are synthetic: 4 chains × 1000 independent draws of log ℓ ~ N(log 0.06, 0.1²) and
σ_n ~ N(0.2, 0.01²), seeded through :func:`tests.conftest.seed`. Over 300 seed offsets the
largest r̂ was 1.0025 and the bulk ESS ranged 3198–4206 (mean 3849, sd 160); the tests ask
for r̂ < 1.01 and ESS > 3000 (5 sd below the mean). Chains shifted by 5 % were never reported
in different modes (0 of 300 offsets); chains shifted 12-fold always were, with the chains of
each group in either order (``[1, 0]`` at 214 of the 300).
"""

from __future__ import annotations

import re

import arviz as az
import numpy as np
import pytest

from pymc_vsk import diagnose
from pymc_vsk.diagnostics import chains_in_different_modes
from tests.conftest import seed


def _idata(shift=0.0, diverging=0, n=0):
    rng = np.random.default_rng(seed(n))
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
    # the two modes of the VSK likelihood on the jump data: ℓ ≈ 0.06 and ℓ ≈ 0.6-0.9
    result = diagnose(_idata(shift=np.log(12.0)))
    assert not result.ok
    assert any("ls: r̂" in p for p in result.problems)
    (mode,) = result.modes
    assert "ls: chains sit in 2 different modes" in mode
    # chains of a group are listed by their medians, so [0, 1] or [1, 0]
    pattern = r"chains \[[01], [01]\] around 0\.0[56]\d*; chains \[[23], [23]\] around 0\.7"
    assert re.search(pattern, mode), mode
    assert chains_in_different_modes(_idata(shift=0.05)) == []


def test_divergences_are_counted_and_flagged():
    result = diagnose(_idata(diverging=7))
    assert result.divergences == 7
    assert any("7 divergent" in p for p in result.problems)
    assert "divergences: 7 of 4000" in str(result)


def test_a_quantity_that_never_varies_is_no_problem_and_one_chain_is_named():
    """A gap probability that is 0 in every draw has no r̂ (0/0): it was reported as
    "r̂ = nan > 1.01", so no run with it ever passed. A single chain has no r̂ either, and
    that is a problem the message names."""
    rng = np.random.default_rng(seed(7))
    draws = {
        "a": rng.normal(size=(4, 500)),
        "never": np.zeros((4, 500)),
        "tenth": np.full((4, 500), 0.1),  # its mean's rounding leaves an MCSE of 1e-18
        "gaps": np.stack([np.full((4, 500), 1 / 3), rng.uniform(size=(4, 500))], axis=-1),
    }
    report = diagnose(az.from_dict({"posterior": draws}))
    assert report.ok, report.problems
    assert np.isnan(report.table.loc["never", "r_hat"])
    assert report.exact == ["never", "tenth", "gaps[0]"]
    assert (
        np.isnan(report.table.loc["gaps[0]", "r_hat"])
        and report.table.loc["gaps[1]", "r_hat"] < 1.01
    )
    draws["gaps"][0, :, 0] = 0.5  # a chain elsewhere: that is a problem
    assert "gaps[0]: r̂ = " in " ".join(diagnose(az.from_dict({"posterior": draws})).problems)
    one = diagnose(az.from_dict({"posterior": {"a": rng.normal(size=(1, 500))}}), var_names="a")
    assert one.problems == ["a: r̂ needs at least two chains; sample several chains"]


def test_find_jumps_with_too_few_draws_is_not_converged():
    """One exact draw used to pass as converged (ESS 1, "no problems found")."""
    from pymc_vsk.jumps import find_jumps

    x = np.arange(40.0)
    y = np.where(x < 20, 0.0, 3.0) + 0.3 * np.random.default_rng(seed(8)).normal(size=40)
    post = find_jumps(x, y, draws=1, chains=1)
    assert not post.converged and "ess_bulk = 1 < 400" in post.summary()
    assert find_jumps(x, y, draws=300, chains=2).converged


def test_var_names_are_read_as_arviz_reads_them():
    """``var_names=["~a"]`` (arviz's "all but a") failed with a KeyError for '~a', and
    ``var_names=[]`` with "'NoneType' object is not iterable" from deep inside arviz."""
    idata = _idata(shift=np.log(12.0))
    report = diagnose(idata, var_names=["~ls"])
    assert list(report.table.index) == ["sigma_n"] and report.ok, report.problems
    assert chains_in_different_modes(idata, ["~ls"]) == []
    assert chains_in_different_modes(idata, "ls") != []
    with pytest.raises(ValueError, match=r"var_names=\[\] selects none .* pass None"):
        diagnose(idata, var_names=[])
    with pytest.raises(ValueError, match=r"names \['lss'\], which the posterior does not hold"):
        diagnose(idata, var_names=["lss"])


def test_a_boolean_deterministic_is_diagnosed_as_zeros_and_ones():
    """``pm.Deterministic("above", f > 0)`` stores booleans, on which arviz's tail ESS
    failed with numpy's "boolean subtract, the `-` operator, is not supported"."""
    rng = np.random.default_rng(seed(9))
    draws = {
        "a": rng.normal(size=(4, 500)),
        "above": rng.normal(size=(4, 500)) > 0,
        "never": np.zeros((4, 500), dtype=bool),
    }
    report = diagnose(az.from_dict({"posterior": draws}))
    assert report.ok, report.problems
    assert report.exact == ["never"]
    assert report.table.loc["above", "r_hat"] < 1.01


@pytest.mark.parametrize("draws", [1, 2, 9])
def test_chains_too_short_to_compare_are_refused_not_called_modes(draws):
    """Four chains of one draw each of one distribution were reported as sitting in four
    different modes (each chain's interval is its one draw); two draws each, in three."""
    rng = np.random.default_rng(seed(10))
    idata = az.from_dict({"posterior": {"a": rng.normal(size=(4, draws))}})
    with pytest.raises(ValueError, match=rf"needs at least 10 draws per chain.*has {draws}\."):
        chains_in_different_modes(idata)
    report = diagnose(idata)
    assert report.modes == [] and not report.ok
    assert f"chains of {draws} draw(s) are too short" in " ".join(report.problems)
    assert not any("chains sit in" in p for p in report.problems)


def test_ten_draws_per_chain_are_compared_and_prob_is_checked():
    spread = np.linspace(-1.0, 1.0, 10)  # chains of one distribution, a little apart
    idata = az.from_dict({"posterior": {"a": spread + 0.1 * np.arange(4)[:, None]}})
    assert chains_in_different_modes(idata) == []
    apart = az.from_dict({"posterior": {"a": spread + 10.0 * np.arange(4)[:, None]}})
    assert "a: chains sit in 4 different modes" in chains_in_different_modes(apart)[0]
    assert chains_in_different_modes(idata, prob=0.5) == []
    with pytest.raises(ValueError, match=r"needs at least 40 draws per chain"):
        chains_in_different_modes(idata, prob=0.95)
    for prob in (0.0, 1.0, 80, True):
        with pytest.raises(ValueError, match=r"prob is the mass .* in \(0, 1\)"):
            chains_in_different_modes(idata, prob=prob)
    one_chain = az.from_dict({"posterior": {"a": spread[None, :3]}})
    assert chains_in_different_modes(one_chain) == []  # nothing to compare it with


def test_a_problem_never_prints_the_bound_it_misses():
    """An ESS of 3 849.6 against a minimum of 3 850 was written "ess_bulk = 3850 < 3850", and
    an r̂ of 1.0004 against 1.000 "r̂ = 1.000 > 1.0"."""
    idata = _idata()
    table = diagnose(idata).table
    for param, row in table.iterrows():
        for kind in ("ess_bulk", "ess_tail"):
            ess = row[kind]
            bound = np.ceil(ess)  # ESS rounds up to it when its fraction is .5 or more
            problems = diagnose(idata, ess_min=bound).problems
            (line,) = [p for p in problems if p.startswith(f"{param}: {kind}")]
            shown = float(re.search(r"= (\S+) <", line).group(1))
            assert shown < bound and abs(shown - ess) <= 0.5, line
        bound = np.floor(row["r_hat"] * 1000) / 1000  # r̂ rounds down to it, or onto it
        problems = diagnose(idata, rhat_max=bound).problems
        (line,) = [p for p in problems if p.startswith(f"{param}: r̂")]
        shown = float(re.search(r"r̂ = (\S+) >", line).group(1))
        assert shown > bound and abs(shown - row["r_hat"]) <= 5e-4, line
