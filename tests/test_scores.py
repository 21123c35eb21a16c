"""The change-point scores against hand-worked cases and a brute-force covering."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pymc_vsk.jumps.scores import covering, f1_score, true_positives


def test_f1_with_two_annotators_worked_by_hand():
    # truth {0, 20, 60} and {0, 22}; predicted {0, 25, 26, 90}. Against the union
    # {0, 20, 22, 60}: 0-0, 20-25 (distance 5, the margin), 22-26; precision 3/4. Recall:
    # 2/3 for the first annotator (60 missed), 2/2 for the second; mean 5/6. F1 = 15/19.
    assert f1_score([[20, 60], [22]], [25, 26, 90]) == pytest.approx(15 / 19, rel=1e-15)


def test_a_match_is_within_the_margin_and_each_prediction_counts_once():
    assert f1_score([[20]], [26]) == pytest.approx(0.5)  # 6 away: only the start matches
    assert f1_score([[20]], [26], margin=6) == 1.0
    assert true_positives([20, 22], [21]) == {20}  # one prediction, one match
    assert f1_score([[]], []) == 1.0  # no change, none reported


def _covering_by_sets(annotations, predicted, n):
    """Covering from index sets: Σ_A |A| max_A' |A ∩ A'| / |A ∪ A'| / n, mean over annotators."""

    def segments(cps):
        edges = sorted({0, n} | {c for c in cps if 0 < c < n})
        return [set(range(a, b)) for a, b in itertools.pairwise(edges)]

    pred = segments(predicted)
    scores = [
        sum(len(a) * max(len(a & b) / len(a | b) for b in pred) for a in segments(ann)) / n
        for ann in annotations
    ]
    return float(np.mean(scores))


def test_covering_equals_its_definition_on_index_sets():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(2, 60))
        annotations = [
            sorted(set(rng.integers(1, n, size=rng.integers(0, 4)).tolist()))
            for _ in range(rng.integers(1, 4))
        ]
        predicted = sorted(set(rng.integers(1, n, size=rng.integers(0, 5)).tolist()))
        assert covering(annotations, predicted, n) == pytest.approx(
            _covering_by_sets(annotations, predicted, n), rel=1e-12
        )
