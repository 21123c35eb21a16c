"""Simulation-based calibration: rank and binning machinery, the simulator, and the study.

The fast tests check each piece against an independent reference (hand-built ranks, a numpy
VSK covariance, scipy's prior distributions) and run the pipeline end to end on 3
replications. The full study (300 NUTS fits) is marked slow: ``pytest -m slow``.

Every seed goes through :func:`tests.conftest.seed`. The checks of the simulator are tests of
a true null hypothesis, whose p-values are uniform: over 41 seed offsets the smallest of the
four Kolmogorov–Smirnov p-values was 0.004. They ask for p > 1e-6 (a false alarm once in a
million), while the mispaired statistic has p < 1e-300 at every offset.
"""

from __future__ import annotations

import importlib.util
import json
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from benchmarks import calibration
from benchmarks.calibration import (
    Simulations,
    default_bins,
    rank_counts,
    run_sbc,
    sbc_rank,
    simulate,
    study_model,
    thin,
)
from pymc_vsk.models import inverse_gamma_for_range
from tests import reference as ref
from tests.conftest import seed

nutpie = pytest.importorskip("nutpie")

PARAMETERS = ["ls", "sigma_f", "sigma_n"]
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "sbc.py"
JITTER = 1e-6  # build_model's default, added to the covariance diagonal


def load_script():
    spec = importlib.util.spec_from_file_location("sbc_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lifted_distances(X: np.ndarray) -> np.ndarray:
    """‖Ψ(x_i) − Ψ(x_j)‖ with Ψ = [x, ψ_jump(x)] (eq. 13), numpy loops."""
    Z = ref.lift(X, ref.psi_jump(X))
    return ref.loop_kernel(lambda r: r, Z, Z, 1.0)


def reference_covariance(D: np.ndarray, ls: float, sigma_f: float, sigma_n: float) -> np.ndarray:
    """σ_f² Matérn52(D / ℓ) + (σ_n² + jitter) I: the study's covariance of y, numpy."""
    K = sigma_f**2 * ref.RADIAL["Matern52"](D / ls)
    return K + (sigma_n**2 + JITTER) * np.eye(len(D))


# --- ranks, thinning and bins ------------------------------------------------------------------
def test_thin_keeps_L_draws_spread_over_every_chain():
    draws = np.arange(4000.0).reshape(4, 1000)  # chain c holds 1000c ... 1000c + 999
    kept = thin(draws, 99)
    assert kept.shape == (99,)
    assert kept[0] == 0 and kept[-1] == 3999
    assert np.all(np.diff(kept) >= 40)  # every ≈ 4000/99-th draw: far apart within a chain
    assert set((kept // 1000).astype(int)) == {0, 1, 2, 3}


def test_rank_counts_thinned_draws_below_the_truth():
    draws = np.random.default_rng(0).normal(size=(4, 1000))
    kept = np.sort(thin(draws, 99))
    assert sbc_rank(draws, kept[0] - 1.0, 99) == 0
    assert sbc_rank(draws, kept[-1] + 1.0, 99) == 99
    assert sbc_rank(draws, (kept[36] + kept[37]) / 2, 99) == 37


def test_thin_refuses_more_draws_than_sampled():
    with pytest.raises(ValueError, match="Cannot keep 100 of 50"):
        thin(np.zeros((2, 25)), 100)


def test_rank_counts_put_every_rank_value_into_equal_bins():
    L = 99
    counts = rank_counts(np.arange(L + 1), L, 10)  # each rank value once
    np.testing.assert_array_equal(counts, np.full(10, 10))
    np.testing.assert_array_equal(
        rank_counts([0, 9, 10, 99], L, 10), [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    )
    with pytest.raises(ValueError, match="does not divide"):
        rank_counts([0], L, 7)
    with pytest.raises(ValueError, match=r"\[0, 99\]"):
        rank_counts([100], L, 10)


def test_default_bins_divide_the_ranks_with_ten_expected_per_bin():
    assert default_bins(100, 99) == 10
    assert default_bins(200, 99) == 20
    assert default_bins(100, 199) == 10
    assert default_bins(3, 99) == 2  # too few replications for any: the coarsest split


def sbc_result(ranks: np.ndarray, L: int = 99) -> calibration.SBCResult:
    frame = pd.DataFrame({"ls": ranks})
    fits = pd.DataFrame({"divergences": np.zeros(len(ranks), int), "seconds": 1.0})
    return calibration.SBCResult(frame, frame, frame, fits, L, 0.0)


def test_chisquare_accepts_uniform_ranks_and_rejects_piled_up_ranks():
    uniform = sbc_result(np.arange(100)).chisquare(10).loc["ls"]
    assert uniform["statistic"] == 0.0 and uniform["p_value"] == pytest.approx(1.0)
    # An overconfident posterior: true values in the tails, ranks near 0 and L (a ∪ shape).
    piled = sbc_result(np.r_[np.arange(50) % 10, 99 - np.arange(50) % 10]).chisquare(10)
    assert piled.loc["ls", "statistic"] == pytest.approx(400.0)  # 2 bins of 50, 8 empty
    assert piled.loc["ls", "p_value"] < 1e-60


def test_ranks_are_in_simuks_layout_and_plotted_by_plot_ecdf_pit():
    """The DataTree simuk's SBC.run_simulations builds (its own packing, applied to our ranks),
    with the same group, variables, dims and values; arviz-plots' plot_ecdf_pit draws it."""
    simuk = pytest.importorskip("simuk")
    arviz_plots = pytest.importorskip("arviz_plots")
    ranks = np.random.default_rng(1).integers(0, 100, size=(30, 2))
    frame = pd.DataFrame(ranks, columns=["ls", "sigma_f"])
    fits = pd.DataFrame({"divergences": np.zeros(30, int), "seconds": 1.0})
    result = calibration.SBCResult(frame, frame, frame, fits, 99, 0.0)
    ours = result.to_datatree()

    packer = simuk.SBC.__new__(simuk.SBC)  # simuk's own conversion of its rank arrays
    packer.method, packer.engine = "prior", "pymc"
    packer.simulations = {name: frame[name].to_numpy()[None, :] for name in frame}
    packer._convert_to_datatree()
    theirs = packer.simulations

    assert set(ours.children) == set(theirs.children) == {"prior_sbc"}
    for name in frame:
        a, b = ours["prior_sbc"][name], theirs["prior_sbc"][name]
        assert a.dims == b.dims == ("chain", "draw") and a.shape == (1, 30)
        np.testing.assert_array_equal(a.values, b.values)
    plot = calibration.plot_ranks(result)
    assert isinstance(plot, arviz_plots.PlotCollection)


def test_nutpie_is_a_dependency_as_the_module_says():
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    assert any(d.startswith("nutpie") for d in dependencies)
    assert "not a dependency" not in calibration.__doc__
    assert "a dependency of the package" in calibration.__doc__


# --- the simulator -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    return study_model()[0]


@pytest.fixture(scope="module")
def simulations(model):
    return simulate(model, 2000, var_names=PARAMETERS, seed=seed(11))


#: Smallest p-value accepted from a test of a true null hypothesis (false alarm rate).
P_NULL = 1e-6


def test_simulated_parameters_follow_the_study_priors(simulations):
    """KS against each prior, and the 1 % of ℓ below 0.05 as a binomial count.

    Over 41 seed offsets the fraction below 0.05 ranged 0.005–0.0135 (2000 draws: sd 0.0022);
    the binomial test's p > 1e-6 accepts 0.0015–0.0225.
    """
    alpha, beta = inverse_gamma_for_range(0.05, 1.0)
    priors = {
        "ls": scipy.stats.invgamma(alpha, scale=beta),
        "sigma_f": scipy.stats.halfnorm(scale=1.0),
        "sigma_n": scipy.stats.halfnorm(scale=0.5),
    }
    for name, dist in priors.items():
        assert scipy.stats.kstest(simulations.truth[name], dist.cdf).pvalue > P_NULL, name
    below = int(np.sum(simulations.truth["ls"] < 0.05))
    assert scipy.stats.binomtest(below, len(simulations.truth), 0.01).pvalue > P_NULL, below


def test_simulated_data_have_the_vsk_covariance_of_their_own_parameters(model, simulations):
    """yᵀ Σ(θ)⁻¹ y ~ χ²(N) when y ~ N(0, Σ(θ)), Σ from an independent numpy VSK.

    A wrong kernel, scale (σ vs σ²), ψ or pairing of y with θ shifts the distribution: the
    same statistic with each y paired with the next replication's θ is far from χ²(N).
    Over 41 seed offsets the mean of the 2000 forms was within 2.6 standard errors of N; the
    test allows 5 (a false alarm with probability 6e-7).
    """
    D = lifted_distances(model["X"].get_value())
    n = D.shape[0]
    assert simulations.data.shape == (2000, n)

    def quadratic_forms(thetas: np.ndarray) -> np.ndarray:
        quad = np.empty(len(thetas))
        for i, (y, theta) in enumerate(zip(simulations.data, thetas, strict=True)):
            chol = np.linalg.cholesky(reference_covariance(D, *theta))
            quad[i] = np.sum(np.linalg.solve(chol, y) ** 2)
        return quad

    thetas = simulations.truth[PARAMETERS].to_numpy()
    quad = quadratic_forms(thetas)
    assert scipy.stats.kstest(quad, scipy.stats.chi2(n).cdf).pvalue > P_NULL
    assert abs(quad.mean() - n) < 5 * np.sqrt(2 * n / len(quad))
    mispaired = quadratic_forms(np.roll(thetas, 1, axis=0))
    assert scipy.stats.kstest(mispaired, scipy.stats.chi2(n).cdf).pvalue < 1e-6


# --- the pipeline ------------------------------------------------------------------------------
def test_fits_see_the_swapped_data(model):
    """Data with σ_f = 0.1 and with σ_f = 3, fitted through one compiled model, give
    posteriors for σ_f that are apart: each fit saw its own data, not the placeholder.

    Over 15 seed offsets the posterior medians were 0.073–0.248 and 1.29–3.31; the test asks
    for 0.03–0.5 and 0.6–9.
    """
    D = lifted_distances(model["X"].get_value())
    rng = np.random.default_rng(seed(5))
    truth = pd.DataFrame({"ls": [0.2, 0.2], "sigma_f": [0.1, 3.0], "sigma_n": [0.05, 0.05]})
    data = np.stack(
        [
            np.linalg.cholesky(reference_covariance(D, *row)) @ rng.normal(size=len(D))
            for row in truth[PARAMETERS].to_numpy()
        ]
    )
    result = run_sbc(model, Simulations(truth, data), draws=300, tune=300, chains=2, seed=seed(3))
    low, high = result.posterior_median["sigma_f"]
    assert 0.03 < low < 0.5 and 0.6 < high < 9.0


def test_sbc_script_writes_ranks_summary_and_figure(model, tmp_path, capsys):
    out = tmp_path / "sbc"
    argv = ["--reps", "3", "--draws", "150", "--tune", "150", "--chains", "2", "--out", str(out)]
    argv += ["--seed", str(seed(7))]
    assert load_script().main([*argv, "--thin", "49", "--quiet"]) == 0
    table = pd.read_csv(out / "ranks.csv", index_col="rep")
    assert len(table) == 3
    for name in PARAMETERS:
        ranks = table[f"{name}_rank"]
        assert ranks.dtype.kind == "i" and ranks.between(0, 49).all()
    # The recorded truth is the prior draw of the script's seed, replication by replication.
    expected = simulate(model, 3, var_names=PARAMETERS, seed=seed(7)).truth
    np.testing.assert_allclose(table[[f"{n}_true" for n in PARAMETERS]], expected)
    assert (table["divergences"] >= 0).all() and (table["r_hat_max"] > 0.9).all()
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["chisquare"]) == set(PARAMETERS) and summary["reps"] == 3
    assert summary["divergences_total"] == table["divergences"].sum()
    assert (out / "sbc_ranks.png").stat().st_size > 10_000
    assert "SBC of ls, sigma_f, sigma_n: 3 replications" in capsys.readouterr().out


# --- the study ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_sbc_ranks_of_ls_sigma_f_sigma_n_are_uniform_over_300_replications(tmp_path):
    """benchmarks/sbc.py with its defaults (seed 7, plus the offset): 300 prior draws, 4 × 1000
    NUTS draws each thinned to L = 99; chi-square over 25 bins of the ranks, p > 0.01 per
    parameter."""
    out = tmp_path / "sbc"
    assert load_script().main(["--out", str(out), "--seed", str(seed(7)), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["reps"] == 300
    table = pd.read_csv(out / "ranks.csv", index_col="rep")
    for name in PARAMETERS:
        assert table[f"{name}_rank"].between(0, 99).all()
        assert summary["chisquare"][name]["p_value"] > 0.01, name
