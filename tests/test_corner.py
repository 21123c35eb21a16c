"""Figures 9–12 (Section 4.3, corner): stationary vs VSK, MLE, on reduced sizes in CI.

The reduced study runs the paper's first five node counts (N = 31, ..., 111, all "small N")
and N = 21, 20 for three noise seeds (:func:`tests.conftest.seed` of 0, 1, 2). Measured on
16 disjoint triples of seeds (0-47): the VSK median RMSE was lower at 5 of 5 N in every triple
(largest ratio VSK/stationary 0.92), the median average std at 4 or 5 of 5 (ratio up to 1.01,
at N = 111); the tests ask for 4 of 5 and 3 of 5.

Figures 10–12 (N = 21 with the corner node, N = 20 without) have a study of their own over 15
seeds (N = 21, 20 and 31 only). Per seed, over 60 seeds (0-59), the VSK RMSE was higher than
the stationary one at N = 21 in 2 seeds and at N = 20 in 4, and the stationary σ_n at N = 21
was below the VSK's in 8 (the stationary fit then interpolates the corner instead of calling
it noise). Medians over three consecutive seeds broke one of the former assertions (VSK median
RMSE lower at both N, stationary median σ_n > 1.5 × the VSK's and > the noise std) in 8 of 58
triples. Resampling 15 of the 60 seeds (200 000 times): the median RMSE ratio was ≥ 1 with
probability ≤ 1e-4 at either N, the σ_n ratio below 1.5 with probability 0.02 and below 1.2
with 2e-4 (its 1 % quantile 1.45), the stationary σ_n at most the noise std with 7e-5.
"""

from __future__ import annotations

import csv
import dataclasses

import numpy as np
import pytest

from pymc_vsk import targets
from pymc_vsk.cli import main
from pymc_vsk.paper import figure9
from tests.conftest import seeds
from tests.test_tables23 import count_compilations

N_MAX = 111
SEEDS = seeds(0, 1, 2)
#: Noise seeds of the study of Figures 10–12.
FIGURE_SEEDS = seeds(*range(15))


@pytest.fixture(scope="module")
def study_and_compiles():
    return count_compilations(lambda: figure9.compute(n_max=N_MAX, seeds=SEEDS))


@pytest.fixture(scope="module")
def study(study_and_compiles):
    return study_and_compiles[0]


@pytest.fixture(scope="module")
def figure_study():
    """N = 21 and 20 (and 31, the smallest N of Figure 9) over 15 noise seeds."""
    return figure9.compute(n_max=31, seeds=FIGURE_SEEDS)


def test_node_counts_are_the_papers_and_always_sample_the_corner():
    ns = figure9.node_counts()
    assert ns.tolist() == [11 + 20 * j for j in range(1, 40)]
    assert figure9.node_counts(N_MAX).tolist() == [31, 51, 71, 91, 111]
    assert all(figure9.corner_is_node(targets.uniform_nodes(int(n))) for n in ns)
    assert figure9.corner_is_node(targets.uniform_nodes(21))
    assert not figure9.corner_is_node(targets.uniform_nodes(20))
    with pytest.raises(ValueError, match="at least 31"):
        figure9.node_counts(30)


def test_psi_shrinks_the_local_length_scale_tenfold_at_the_corner_only():
    # Corollary 3.3: local length scale ℓ / sqrt(1 + ψ'(x)²); the module docstring says it
    # drops to about ℓ/10 at the corner (A/δ = 10) and returns to ℓ within a few δ.
    psi = figure9.scaling_functions()["vsk"]
    x = np.linspace(0.0, 1.0, 20001)
    slope = np.gradient(psi.numpy(x[:, None]), x)
    ratio = 1.0 / np.sqrt(1.0 + slope**2)
    assert 0.09 < ratio.min() < 0.12
    assert abs(x[np.argmin(ratio)] - 0.5) < 0.01
    assert np.all(ratio[np.abs(x - 0.5) > 0.4] > 0.95)


def test_one_model_per_kernel_is_compiled_for_the_whole_study(study_and_compiles):
    study, counts = study_and_compiles
    assert study.n_models == 2
    assert counts == {"objective": 2, "predictor": 2}
    assert np.all(np.isfinite(study.values["vsk"]["rmse"]))
    assert study.values["vsk"]["rmse"].shape == (5, len(SEEDS))
    assert study.figure_values["stationary"]["rmse"].shape == (2, len(SEEDS))


def test_vsk_is_more_accurate_at_most_node_counts(study, figure_study):
    assert study.vsk_lower("rmse").sum() >= 4  # of 5
    # Figures 10-11, medians over 15 seeds (per seed the VSK is worse in a few, docstring)
    vsk, stationary = (figure_study.figure_median(m, "rmse") for m in ("vsk", "stationary"))
    assert np.all(vsk < stationary), (vsk, stationary)


def test_vsk_is_less_uncertain_at_small_node_counts(study):
    assert study.small.all()
    assert study.vsk_lower("mean_std").sum() >= 3  # of 5
    assert all(study.checks().values())


def test_stationary_model_treats_the_sampled_corner_as_noise(figure_study):
    """The paper's explanation at N = 21 (corner node sampled): the stationary fit needs a
    larger noise to pass by the corner observation; the VSK believes it.

    Medians over 15 seeds: per seed the stationary fit interpolates the corner in about one
    seed of eight. The ratio of the medians had its 1 % quantile at 1.45 (module docstring);
    the test asks for 1.2.
    """
    i = figure_study.figure_nodes.index(21)
    sigma_n = {m: figure_study.figure_median(m, "sigma_n")[i] for m in figure9.MODELS}
    assert sigma_n["stationary"] > 1.2 * sigma_n["vsk"], sigma_n
    assert sigma_n["stationary"] > figure9.NOISE_STD, sigma_n


def test_vsk_training_matrix_decouples_the_corner_node(study):
    example = study.examples[21]
    assert example.corner_sampled and not study.examples[20].corner_sampled
    c = int(np.argmin(np.abs(example.X[:, 0] - 0.5)))
    for model, K in example.train_cov.items():
        assert K.shape == (21, 21)
        np.testing.assert_allclose(K, K.T, atol=1e-12)
        sigma_f = example.fits[model].params["sigma_f"]
        np.testing.assert_allclose(np.diag(K), sigma_f**2, rtol=1e-9)
    corr = {
        m: K / np.outer(np.sqrt(np.diag(K)), np.sqrt(np.diag(K)))
        for m, K in example.train_cov.items()
    }
    for neighbour in (c - 1, c + 1):
        assert corr["vsk"][c, neighbour] < corr["stationary"][c, neighbour]


def test_cli_prints_the_summary_and_writes_csvs_and_figures(study, tmp_path, capsys, monkeypatch):
    # The study is the module fixture (computed once); the CLI's own wiring is what is tested.
    calls = []

    def fake_compute(n_max, seeds):
        calls.append((n_max, seeds))
        return study

    monkeypatch.setattr(figure9, "compute", fake_compute)
    argv = ["reproduce", "figure9", "--n-max", str(N_MAX), "--seeds", str(len(SEEDS))]
    status = main([*argv, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert calls == [(N_MAX, len(SEEDS))]
    assert status == 0 and "paper's finding" in out
    names = {
        "figure9.csv",
        "figures10-11.csv",
        "figure9.png",
        "figure10_N21.png",
        "figure11_N20.png",
        "figure12_N21.png",
        "figure12_N20.png",
    }
    assert {line.rsplit("/", 1)[-1] for line in out.splitlines() if "saved" in line} == names
    with (tmp_path / "figure9.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 5 * len(SEEDS)
    first = str(SEEDS[0])
    vsk = next(r for r in rows if r["kernel"] == "vsk" and r["N"] == "111" and r["seed"] == first)
    assert float(vsk["rmse"]) == pytest.approx(study.values["vsk"]["rmse"][-1, 0], rel=1e-5)
    with (tmp_path / "figures10-11.csv").open() as handle:
        assert {r["N"] for r in csv.DictReader(handle)} == {"20", "21"}
    assert all((tmp_path / n).stat().st_size > 10_000 for n in names if n.endswith(".png"))


def test_summary_states_the_choices_and_the_findings(study):
    text = figure9.format_summary(study)
    for phrase in ("Matern52", f"noise std {figure9.NOISE_STD}", "Corner(x0=0.5", "decay=0.1"):
        assert phrase in text
    better = int(study.vsk_lower("rmse").sum())
    assert f"paper's finding: VSK RMSE lower at most N ({better} of 5): yes" in text
    assert "2 models built" in text


@pytest.mark.parametrize("argv", [["--n-max", "30"], ["--seeds", "0"]])
def test_cli_rejects_bad_input(capsys, argv):
    with pytest.raises(SystemExit) as err:
        main(["reproduce", "figure9", *argv])
    assert err.value.code == 2
    assert "must be at least" in capsys.readouterr().err


def test_cli_refuses_a_sweep_beyond_the_memory_limit_before_any_work(capsys, monkeypatch):
    monkeypatch.delenv("PYMC_VSK_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(figure9, "compute", lambda *args: pytest.fail("the study started"))
    assert main(["reproduce", "figure9", "--n-max", "99999999999999999999"]) == 2
    err = capsys.readouterr().err
    assert "above the limit" in err and "Give a smaller --n-max" in err


def test_summary_names_the_node_counts_fitted(study):
    """``--n-max 31`` fits N = 31 only; the summary said "N = 31, 51, …, 31"."""
    one = dataclasses.replace(
        study,
        n_nodes=study.n_nodes[:1],
        values={m: {c: v[:1] for c, v in cols.items()} for m, cols in study.values.items()},
    )
    text = figure9.format_summary(one)
    assert "Figure 9: N = 31 (medians over seeds):" in text and "51" not in text
    assert "Figure 9: N = 31, 51, …, 111 (medians" in figure9.format_summary(study)


@pytest.mark.parametrize(
    ("n_max", "error", "match"),
    [
        (1e20, TypeError, r"n_max must be an integer \(int\); got 1e\+20"),
        (791.0, TypeError, r"n_max must be an integer \(int\); got 791\.0"),
        (21, ValueError, r"n_max must be at least 31; got 21"),
        (6001, MemoryError, r"A dense GP on 6001 nodes .*above the limit.*smaller n_max"),
    ],
    ids=["1e20", "float", "below-31", "6001"],
)
def test_compute_refuses_a_bad_n_max_before_any_work(monkeypatch, n_max, error, match):
    """compute() from Python, unlike the command line, took any n_max: 6001 would have
    failed hours into the sweep, 1e20 in numpy."""
    monkeypatch.delenv("PYMC_VSK_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(figure9, "MleFitter", lambda *args, **kw: pytest.fail("the sweep started"))
    with pytest.raises(error, match=match):
        figure9.compute(n_max=n_max)
