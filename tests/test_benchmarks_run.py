"""``benchmarks/run.py``: the quick mode reports, without judging, the goals set for the full
run's NUTS sizes; the full run still judges them."""

from __future__ import annotations

import pytest

from benchmarks.run import NUTS_GOAL_RUN, Figure, nuts_figures, summary_line

WALL = "NUTS wall time, nutpie (compile + sample) / PyMC sampler, N = 81"


def results(nutpie_seconds: float, pymc_seconds: float) -> dict[str, dict[str, float]]:
    """Samplers' results as ``bench_nuts`` records them; nutpie compiles for 4 s."""
    return {
        "nutpie": {
            "seconds_total": nutpie_seconds,
            "seconds_compile": 4.0,
            "ess_bulk_min": 300.0,
            "ess_per_second": 300.0 / nutpie_seconds,
        },
        "pymc": {
            "seconds_total": pymc_seconds,
            "seconds_compile": None,
            "ess_bulk_min": 300.0,
            "ess_per_second": 300.0 / pymc_seconds,
        },
    }


def wall_figure(figures: list[Figure]) -> Figure:
    (figure,) = [f for f in figures if f.name == WALL]
    return figure


def test_the_quick_runs_nutpie_wall_time_is_reported_not_judged():
    """2 × (300 + 300) draws cannot pay for nutpie's compilation: the quick mode reported the
    goal set for 4 × (1000 + 1000) as missed."""
    figure = wall_figure(nuts_figures(results(9.1, 2.2), chains=2, tune=300, draws=300))
    assert figure.met is None and figure.goal == "(info)"
    assert figure.value == pytest.approx(9.1 / 2.2)
    assert "the goal <= 1 is judged on 4 × (1000 + 1000) only" in figure.detail
    assert "MISSED" not in figure.line()


@pytest.mark.parametrize(("nutpie", "met"), [(12.0, False), (7.7, True)])
def test_the_full_runs_nutpie_wall_time_is_judged(nutpie, met):
    chains, tune, draws = NUTS_GOAL_RUN[1:]
    figure = wall_figure(nuts_figures(results(nutpie, 10.3), chains, tune, draws))
    assert figure.goal == "<= 1" and figure.met is met
    assert "judged on" not in figure.detail
    assert ("MISSED" in figure.line()) is not met


def test_other_samplers_are_reported_as_information():
    runs = results(7.7, 10.3) | {"numpyro": {"seconds_total": 20.0, "ess_per_second": 15.0}}
    figures = nuts_figures(runs, *NUTS_GOAL_RUN[1:])
    assert [f.name for f in figures][
        -1
    ] == "NUTS ESS/s, numpyro / PyMC sampler, N = 81 (incl. compile)"
    assert figures[-1].met is None


def test_the_summary_line_says_what_the_quick_mode_does_not_judge():
    figures = [Figure("s", "a", 2.0, "<= 1", False), Figure("s", "b", 0.5, "<= 1", True)]
    assert summary_line(figures, quick=False) == "1 goal(s) missed: a"
    quick = summary_line(figures, quick=True)
    assert quick.startswith("1 goal(s) missed: a (quick mode: ")
    assert "4 × (1000 + 1000) at N = 81 and are not judged here" in quick
