"""Figures 7-8 (Section 4.2): Weierstrass target, stationary vs VSK with ψ^K_VSK (reduced sizes).

The sweep runs on N = 80 Halton nodes, K_VSK in {0, 1, 2, 4, 8, 12} and a 30 × 30 grid
(full size: N = 200, K_VSK = 0..12, 60 × 60). The paper's findings are checked with the
thresholds of the module (stated in its docstring): Spearman ρ(K_VSK, error) ≤ −0.9, RMSE at
K_VSK = 12 ≤ 10⁻³ × stationary, RMSE at every K_VSK ≤ 1.25 × stationary.
"""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pymc as pm
import pytensor
import pytest

from pymc_vsk import VSK, fitting, scaling, targets
from pymc_vsk.cli import main
from pymc_vsk.paper import figure7
from tests import reference as ref
from tests.test_tables23 import count_compilations

K_REDUCED = (0, 1, 2, 4, 8, 12)


@pytest.fixture(scope="module")
def sweep_and_compiles():
    return count_compilations(lambda: figure7.compute(n_nodes=80, k_values=K_REDUCED, grid_size=30))


@pytest.fixture(scope="module")
def sweep(sweep_and_compiles):
    return sweep_and_compiles[0]


# -- ψ^K_VSK as one function with data weights ------------------------------------------------
def test_truncation_weights_select_the_first_k_vsk_plus_one_terms():
    assert figure7.truncation_weights(None).tolist() == [0.0] * 13
    assert figure7.truncation_weights(0).tolist() == [1.0] + [0.0] * 12
    assert figure7.truncation_weights(12).tolist() == [1.0] * 13
    for bad in (-1, 13, 2.5):
        with pytest.raises(ValueError, match=r"0\.\.12"):
            figure7.truncation_weights(bad)


@pytest.mark.parametrize("k_vsk", [0, 3, 12])
def test_weighted_psi_is_the_papers_truncation(k_vsk):
    X = targets.halton_nodes(50, d=2)
    psi = figure7.weierstrass_terms(X, figure7.truncation_weights(k_vsk))
    np.testing.assert_allclose(psi, ref.psi_weierstrass(X, k_vsk), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(psi, scaling.Weierstrass(k_vsk).numpy(X), rtol=1e-12, atol=1e-12)
    if k_vsk == 12:  # ψ¹² is the target
        np.testing.assert_allclose(psi, targets.weierstrass(X), rtol=1e-12, atol=1e-12)


def test_one_compiled_covariance_is_every_vsk_and_the_stationary_kernel():
    """Changing the weights of a compiled VSK gives the closed-form Matérn C⁴ on [x, ψ^K(x)],
    and zero weights the stationary Matérn C⁴ on x."""
    rng = np.random.default_rng(3)
    X, Xs = rng.uniform(0, 1, (12, 2)), rng.uniform(0, 1, (7, 2))
    weights = pytensor.shared(figure7.truncation_weights(None))
    cov = VSK(pm.gp.cov.Matern52(3, ls=0.3), figure7.scaling_function(weights))
    fn = pytensor.function([], [cov(X), cov(X, Xs)])
    phi = ref.RADIAL["Matern52"]
    for k_vsk in (None, 0, 3, 12):
        weights.set_value(figure7.truncation_weights(k_vsk))
        K, Ks = fn()
        if k_vsk is None:
            expected = ref.loop_kernel(phi, X, X, 0.3), ref.loop_kernel(phi, X, Xs, 0.3)
        else:
            Z = ref.lift(X, ref.psi_weierstrass(X, k_vsk))
            Zs = ref.lift(Xs, ref.psi_weierstrass(Xs, k_vsk))
            expected = ref.loop_kernel(phi, Z, Z, 0.3), ref.loop_kernel(phi, Z, Zs, 0.3)
        np.testing.assert_allclose(K, expected[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(Ks, expected[1], rtol=1e-10, atol=1e-12)


# -- the sweep --------------------------------------------------------------------------------
def test_one_model_is_compiled_for_the_stationary_fit_and_every_k_vsk(sweep_and_compiles):
    sweep, counts = sweep_and_compiles
    assert sweep.n_models == 1
    assert counts == {"objective": 1, "predictor": 1}
    assert sweep.k_values.tolist() == list(K_REDUCED)
    assert len(sweep.fit_seconds) == 1 + len(K_REDUCED)
    assert set(sweep.predictions) == {"stationary", *K_REDUCED}
    assert sweep.grid.shape == (900, 2) and sweep.X.shape == (80, 2)
    for column in figure7.COLUMNS:
        assert np.all(np.isfinite(sweep.vsk[column])) and np.isfinite(sweep.stationary[column])


def test_vsk_with_psi_12_equal_to_the_target_is_nearly_exact(sweep):
    ratio = sweep.ratio("rmse")[sweep.k_values == 12][0]
    assert ratio <= figure7.EXACT_FACTOR
    assert sweep.ratio("max_error")[-1] <= figure7.EXACT_FACTOR


def test_errors_fall_as_k_vsk_grows(sweep):
    for column in ("rmse", "max_error"):
        assert sweep.spearman(column) <= figure7.MAX_SPEARMAN
        assert sweep.vsk[column][-1] < sweep.vsk[column][0]


def test_vsk_is_not_much_worse_than_stationary_even_for_a_poor_psi(sweep):
    assert np.all(sweep.ratio("rmse") <= figure7.ROBUST_FACTOR)
    # from K_VSK = 1 on, the VSK is better than the stationary kernel
    assert np.all(sweep.ratio("rmse")[sweep.k_values >= 1] < 1.0)


def test_fitted_noise_tracks_the_unresolved_terms(sweep):
    """σ_n absorbs the terms k > K_VSK the nodes cannot resolve, so it falls with K_VSK."""
    sigma_n = sweep.vsk["sigma_n"]
    assert np.all(np.diff(sigma_n[sweep.k_values >= 1]) < 0)
    assert sigma_n[-1] < 1e-3 * sweep.stationary["sigma_n"]


def test_every_finding_holds_at_reduced_size(sweep):
    checks = sweep.checks()
    assert len(checks) == 4 and all(checks.values()), checks


def test_csv_and_figures_are_written(sweep, tmp_path):
    csv_path, fig7, fig8 = figure7.save(sweep, tmp_path)
    with csv_path.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["K_VSK"] for r in rows] == ["", *map(str, K_REDUCED)]
    assert rows[0]["kernel"] == "stationary" and {r["kernel"] for r in rows[1:]} == {"vsk"}
    assert float(rows[-1]["rmse"]) == pytest.approx(sweep.vsk["rmse"][-1], rel=1e-5)
    assert float(rows[0]["max_std"]) == pytest.approx(sweep.stationary["max_std"], rel=1e-5)
    assert fig7.stat().st_size > 20_000 and fig8.stat().st_size > 20_000
    maps = figure7.figure8_maps(sweep)
    assert list(maps) == ["target f", "stationary", *(f"VSK, K_VSK = {k}" for k in (2, 4, 12))]


def test_summary_states_the_choices_the_findings_and_the_time(sweep):
    text = figure7.format_summary(sweep)
    for phrase in ("[0, 1]^2", "N = 80", "noise-free", "Matérn C4", "30x30", "paper's finding"):
        assert phrase in text
    assert "1 model built and compiled once" in text and "7 fits in" in text
    assert ": NO" not in text


def test_cli_runs_a_small_sweep(tmp_path, capsys):
    argv = ["reproduce", "figure7", "--n-nodes", "40", "--k-vsk", "12", "0", "--grid", "12"]
    status = main([*argv, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    for name in ("figure7.csv", "figure7.png", "figure8.png"):
        assert (tmp_path / name).exists()
    assert "N = 40" in out and "3 fits in" in out and "saved" in out
    assert status == (1 if ": NO" in out else 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--k-vsk", "13"], "must be in 0..12"),
        (["--n-nodes", "2"], "must be at least 4"),
        (["--domain", "1", "0"], "LOW < HIGH"),
        (["--domain", "0", "inf"], "expected a finite number, got 'inf'"),
    ],
)
def test_cli_rejects_bad_input(capsys, argv, message):
    with pytest.raises(SystemExit) as err:
        main(["reproduce", "figure7", *argv])
    assert err.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "fix"),
    [
        (["--grid", "100000"], "Give a smaller --grid or --n-nodes"),
        (["--n-nodes", "100000"], "Give a smaller --n-nodes"),
    ],
)
def test_cli_refuses_sizes_beyond_the_memory_limit_before_any_work(capsys, monkeypatch, argv, fix):
    """A grid of 100000² points used to end in numpy's ``Unable to allocate 74.5 GiB``
    traceback, 100000 nodes in a MemoryError traceback from the model."""
    monkeypatch.delenv("PYMC_VSK_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(figure7, "compute", lambda *args, **kwargs: pytest.fail("it started"))
    assert main(["reproduce", "figure7", *argv]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "above the limit" in err and fix in err


def test_fits_stopped_on_the_ridge_are_named_in_the_summary_not_warned(monkeypatch):
    """For K_VSK ≳ 9 the likelihood rises along ℓ, σ_f → ∞ (module docstring) and fit_map
    warns that its end point is no optimum, advising maxiter or a prior, which the command
    offers neither of: the summary names those fits instead."""
    real = figure7.fit_map

    def not_converged(*args, **kwargs):
        result = real(*args, **kwargs)
        warnings.warn("not an optimum", fitting.NotConvergedWarning, stacklevel=2)
        return result

    monkeypatch.setattr(figure7, "fit_map", not_converged)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep = figure7.compute(n_nodes=12, k_values=[12], grid_size=4, n_starts=1)
    assert not [w for w in caught if issubclass(w.category, fitting.NotConvergedWarning)]
    assert sweep.not_converged == ["stationary", "12"]
    text = figure7.format_summary(sweep)
    note = "note: the MLE stopped before an optimum for the stationary kernel and K_VSK = 12"
    assert note in text
