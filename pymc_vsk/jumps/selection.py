"""How many jumps: the smallest jump count whose LOO ELPD is close to the best."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["select_jump_count"]


def select_jump_count(
    comparison: pd.DataFrame,
    counts: Mapping[str, int],
    *,
    small: float = 4.0,
    n_se: float = 2.0,
) -> int:
    """The smallest number of jumps whose ELPD is within ``max(small, n_se·dse)`` of the best.

    Parameters
    ----------
    comparison : pandas.DataFrame
        Output of ``arviz.compare`` (columns ``elpd_diff`` and ``dse``, best model first,
        ``elpd_diff <= 0``).
    counts : mapping of str to int
        Number of jumps of each model, by the names used in ``arviz.compare``.
    small : float, default 4.0
        ELPD differences below this are "small" (Sivula et al., 2022).
    n_se : float, default 2.0
        Standard errors of the difference within which a model counts as tied with the best.

    Returns
    -------
    int
        The selected number of jumps.

    Raises
    ------
    ValueError
        A comparison whose differences are not from the best model (``arviz.compare(...,
        reference=...)`` with another model: its ``dse`` are then those of differences from
        that model), one without models or without the columns ``elpd_diff`` and ``dse``, or
        a model without a count, a count that is not a whole number of at least 0 (a bool,
        2.5, ``"2"``), an ``elpd_diff`` that is NaN, or ``small`` or ``n_se`` that is not a
        finite number of at least 0.
    """
    absent = [column for column in ("elpd_diff", "dse") if column not in comparison.columns]
    if absent:
        raise ValueError(
            f"comparison has no column(s) {absent}; its columns are {list(comparison.columns)}. "
            "Pass the table of arviz.compare."
        )
    if comparison.empty:
        raise ValueError(
            "comparison holds no models; pass arviz.compare of the models with each number of "
            "jumps."
        )
    missing = [name for name in comparison.index if name not in counts]
    if missing:
        raise ValueError(
            f"counts has no number of jumps for {missing}; give one for every model of the "
            "comparison, by the names passed to arviz.compare."
        )
    if (comparison["elpd_diff"].astype(float) > 0).any():
        better = comparison.index[comparison["elpd_diff"].astype(float) > 0].tolist()
        raise ValueError(
            f"The comparison's elpd_diff is positive for {better}: it was made against a "
            "reference that is not the best model, and its differences and their standard "
            "errors (dse) are from that reference. Compare with the default reference "
            "(arviz.compare without reference=), which measures them from the best model."
        )
    for name, value in (("small", small), ("n_se", n_se)):
        if isinstance(value, bool | np.bool_) or not (
            isinstance(value, int | float | np.integer | np.floating) and 0 <= value < np.inf
        ):
            raise ValueError(f"{name} must be a finite number of at least 0; got {value!r}.")
    counted = {name: counts[name] for name in comparison.index}
    odd = {
        name: count
        for name, count in counted.items()
        if isinstance(count, bool | np.bool_)
        or not isinstance(count, int | np.integer)
        or count < 0
    }
    if odd:
        raise ValueError(f"counts must be whole numbers of jumps (int, at least 0); got {odd}.")
    if comparison["elpd_diff"].astype(float).isna().any():
        bad = comparison.index[comparison["elpd_diff"].astype(float).isna()].tolist()
        raise ValueError(
            f"The comparison's elpd_diff is NaN for {bad}: their ELPD could not be computed "
            "(check their log likelihoods for NaN or -inf) and they cannot be ranked."
        )
    diff = -comparison["elpd_diff"].astype(float)
    tied = diff <= np.fmax(small, n_se * comparison["dse"].astype(float))  # a NaN dse: small
    return int(min(counted[name] for name in comparison.index[tied]))
