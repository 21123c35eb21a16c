"""Tables 2 and 3: stationary vs VSK Matérn C4 with MLE hyper-parameters over noise seeds.

The CI study fits Table 3 (N = 81) for three noise seeds, :func:`tests.conftest.seed` of
0, 1, 2. Measured per seed over 100 noise seeds (0-99): RMSE ratio VSK/stationary 0.444–0.707
(the VSK lower in all 100), max-error ratio 0.11–0.61 (above 0.5 in one seed), fitted ℓ
0.044–0.066 (stationary) and 0.061–0.076 (VSK), VSK σ_n 0.163–0.303 (true 0.25).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pymc_vsk import fitting, prediction
from pymc_vsk.cli import main
from pymc_vsk.paper import tables2_3
from tests.conftest import seeds

#: Noise seeds of the CI study.
SEEDS = seeds(0, 1, 2)


def count_compilations(run):
    """Run ``run()`` counting compiled MAP objectives and predictors; return (result, counts)."""
    counts: Counter = Counter()

    class CountingObjective(fitting._Objective):
        def __init__(self, *args, **kwargs):
            counts["objective"] += 1
            super().__init__(*args, **kwargs)

    class CountingPredictor(prediction.Predictor):
        def __init__(self, *args, **kwargs):
            counts["predictor"] += 1
            super().__init__(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fitting, "_Objective", CountingObjective)
        mp.setattr(prediction, "Predictor", CountingPredictor)
        result = run()
    return result, counts


@pytest.fixture(scope="module")
def table3_3_seeds():
    return count_compilations(lambda: tables2_3.compute(81, seeds=SEEDS))


@pytest.fixture(scope="module")
def study(table3_3_seeds):
    return table3_3_seeds[0]


def test_study_has_every_row_for_both_models_and_every_seed(study):
    assert study.seeds == SEEDS
    for model in tables2_3.MODELS:
        assert set(study.values[model]) == set(tables2_3.ROW_LABELS)
        for row in tables2_3.ROW_LABELS:
            values = study.values[model][row]
            assert values.shape == (3,) and np.all(np.isfinite(values)) and np.all(values >= 0)
    assert study.example["grid"].shape == (580, 1)  # 500-point grid united with 81 nodes


def test_each_model_is_compiled_once_for_all_seeds(table3_3_seeds):
    _, counts = table3_3_seeds
    assert counts == {"objective": 2, "predictor": 2}


def test_noise_is_seeded_nested_and_has_std_0_25():
    X = tables2_3.targets.halton_nodes(4000)
    eps = tables2_3.noisy_observations(X, 7) - tables2_3.targets.jump(X)
    assert np.std(eps) == pytest.approx(0.25, rel=0.05)
    assert np.array_equal(
        tables2_3.noisy_observations(X[:81], 7), eps[:81] + tables2_3.targets.jump(X[:81])
    )


def test_vsk_beats_stationary_at_81_nodes_in_every_seed(study):
    """Table 3: the VSK resolves the jump (max error ≈ 0.4 vs ≈ 2), RMSE ratio ≈ 0.57.

    Per-seed bounds sit outside the range measured over 100 seeds (module docstring). The
    max-error ratio exceeded 0.5 in one seed of 100, so 0.5 bounds its median over the three
    seeds (largest median of three consecutive seeds: 0.43) and 0.8 each seed.
    """
    assert study.n_vsk_better == 3
    assert 0.4 < study.median_rmse_ratio < 0.75
    max_ratio = study.values["vsk"]["max_error"] / study.values["stationary"]["max_error"]
    assert np.median(max_ratio) < 0.5 and np.all(max_ratio < 0.8), max_ratio
    # both fits sit in the short length-scale mode the paper reports (ℓ ≈ 0.06-0.07)
    for model in tables2_3.MODELS:
        assert np.all((study.values[model]["ls"] > 0.03) & (study.values[model]["ls"] < 0.15))
    # the noise std is recovered roughly (true 0.25)
    assert np.all(np.abs(study.values["vsk"]["sigma_n"] - 0.25) < 0.125)


def test_std_rows_include_the_noise(study):
    """Average std of y can never fall below the fitted noise std σ_n."""
    for model in tables2_3.MODELS:
        assert np.all(study.values[model]["mean_std"] >= study.values[model]["sigma_n"])


def test_table_prints_the_paper_beside_medians_and_bands(study):
    text = tables2_3.format_table(study)
    for label in tables2_3.ROW_LABELS.values():
        assert label in text
    assert "2.451e-01" in text and "1.397e-01" in text  # the paper's RMSEs (Table 3)
    assert "paper 0.570" in text and "10–90 % band" in text
    assert f"VSK RMSE lower than stationary in {study.n_vsk_better} of 3 seeds" in text


def test_paper_rmse_ratios_are_those_of_the_tables():
    assert round(tables2_3.paper_rmse_ratio(27), 2) == 0.69
    assert round(tables2_3.paper_rmse_ratio(81), 2) == 0.57


def test_length_scale_modes_merge_optima_that_differ_only_in_sigma_n():
    def result(*ls_values):
        optima = [fitting.Optimum({"ls": np.array(v)}, -float(i)) for i, v in enumerate(ls_values)]
        return fitting.MapResult(optima, [], [], ["ls"])

    assert tables2_3.length_scale_modes(result(0.06, 0.061, 0.7)) == [0.06, 0.7]
    assert tables2_3.length_scale_modes(result(0.7, 0.06)) == [0.7, 0.06]


def test_cli_table3_prints_the_table_and_its_check(capsys):
    status = main(["reproduce", "table3", "--seeds", "2"])
    out = capsys.readouterr().out
    assert "Table 3: N = 81 Halton nodes" in out and "paper" in out
    assert "paper's numbers (checked for MLE)" in out and "2 models built" in out
    assert status == (1 if ": NO" in out else 0)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seeds", "0"], "must be at least 1"),
        (["--seeds", "many"], "expected a positive integer"),
        (["--method", "vi"], "invalid choice"),
    ],
)
def test_cli_rejects_bad_input(capsys, argv, message):
    with pytest.raises(SystemExit) as err:
        main(["reproduce", "table2", *argv])
    assert err.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_method_is_an_error():
    with pytest.raises(ValueError, match="'map' or 'nuts'"):
        tables2_3.make_fitters("vi", np.zeros((2, 1)), np.zeros(2))


@pytest.mark.slow
def test_reproduction_check_20_seeds_map():
    """The reproduction check: VSK better in ≥ 18 of 20 seeds at N = 81, median ratio ±0.15."""
    for n in (27, 81):
        study = tables2_3.compute(n, seeds=seeds(*range(20)))
        print(tables2_3.format_table(study))
        assert abs(study.median_rmse_ratio - tables2_3.paper_rmse_ratio(n)) <= 0.15
        assert all(study.checks().values())
    assert study.n_vsk_better >= 18  # N = 81


@pytest.mark.slow
def test_nuts_one_seed_vsk_beats_stationary_at_81_nodes():
    study = tables2_3.compute(81, seeds=seeds(0), method="nuts")
    print(tables2_3.format_table(study))
    assert study.n_vsk_better == 1
    assert study.values["vsk"]["max_error"][0] < 0.5 * study.values["stationary"]["max_error"][0]
