"""The standard change-point scores: F1 with a margin, and segmentation covering.

Both follow van den Burg and Williams, *An evaluation of change point detection algorithms*
(2020): change points are indices (the first observation of a new segment), the start of the
series counts as a change point in every set, several annotators may mark the same series,
precision is taken against the union of their marks and recall averaged over them; covering
averages, over annotators, ``Σ_A |A| max_A' J(A, A') / n`` over the annotated segments A, J
the Jaccard index, A' the predicted segments.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["covering", "f1_score", "true_positives"]


def true_positives(truth: Iterable[int], predicted: Iterable[int], margin: int = 5) -> set[int]:
    """The true change points matched by a prediction within ``margin``, each used once.

    Parameters
    ----------
    truth, predicted : iterable of int
        Change-point indices.
    margin : int, default 5
        Largest distance of a match.

    Returns
    -------
    set of int
        The matched true change points.

    Examples
    --------
    >>> sorted(true_positives([10, 50], [12, 13, 90]))
    [10]
    """
    left = set(predicted)
    hits = set()
    for tau in sorted(set(truth)):
        close = sorted((abs(tau - x), x) for x in left if abs(tau - x) <= margin)
        if close:
            hits.add(tau)
            left.remove(close[0][1])
    return hits


def f1_score(
    annotations: Sequence[Iterable[int]], predicted: Iterable[int], margin: int = 5
) -> float:
    """F1 of predicted change points against one or several annotators.

    Parameters
    ----------
    annotations : sequence of iterable of int
        One set of change-point indices per annotator.
    predicted : iterable of int
        Predicted change-point indices.
    margin : int, default 5
        Largest distance of a match.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        ``annotations`` is one flat list of change points, not one list per annotator.
    ValueError
        ``annotations`` holds no annotator.

    Examples
    --------
    >>> f1_score([[50]], [])  # only the start of the series matches: P = 1, R = 1/2
    0.6666666666666666
    >>> f1_score([[50], [52]], [51])
    1.0
    """
    sets = [a | {0} for a in _annotators(annotations)]
    pred = set(predicted) | {0}
    union = set().union(*sets)
    precision = len(true_positives(union, pred, margin)) / len(pred)
    recall = float(np.mean([len(true_positives(s, pred, margin)) / len(s) for s in sets]))
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _annotators(annotations: Sequence[Iterable[int]]) -> list[set[int]]:
    """Each annotator's change points as a set, or an error that says how to pass them."""
    sets = []
    for marks in annotations:
        if not isinstance(marks, Iterable) or isinstance(marks, str):
            shown = [c.item() if isinstance(c, np.generic) else c for c in annotations]
            raise TypeError(
                f"annotations must hold one list of change points per annotator; got "
                f"{marks!r} among them. For one annotator, wrap the list: [{shown!r}]."
            )
        sets.append({int(c) for c in marks})
    if not sets:
        raise ValueError(
            "annotations must hold at least one annotator's change points (an empty list for "
            "an annotator who marked none: [[]])."
        )
    return sets


def _segments(cps: Iterable[int], n: int) -> list[tuple[int, int]]:
    edges = sorted({0, n} | {int(c) for c in cps if 0 < c < n})
    return list(itertools.pairwise(edges))


def covering(annotations: Sequence[Iterable[int]], predicted: Iterable[int], n: int) -> float:
    """Segmentation covering of the prediction, averaged over annotators.

    Parameters
    ----------
    annotations : sequence of iterable of int
        One set of change-point indices per annotator.
    predicted : iterable of int
        Predicted change-point indices.
    n : int
        Length of the series.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        ``annotations`` is one flat list of change points, not one list per annotator.
    ValueError
        ``annotations`` holds no annotator, or ``n`` is below 1.

    Examples
    --------
    >>> covering([[50]], [50], 100)
    1.0
    >>> covering([[50]], [], 100)  # each half overlaps the whole with Jaccard 1/2
    0.5
    """
    if n < 1:
        raise ValueError(f"n must be the length of the series, at least 1; got {n}.")
    pred = _segments(predicted, n)
    scores = []
    for ann in _annotators(annotations):
        total = 0.0
        for a0, a1 in _segments(ann, n):
            best = max(
                max(0, min(a1, b1) - max(a0, b0)) / (max(a1, b1) - min(a0, b0)) for b0, b1 in pred
            )
            total += (a1 - a0) * best
        scores.append(total / n)
    return float(np.mean(scores))
