"""Posterior draws out of the ``DataTree`` that ``pm.sample`` and nutpie return (arviz 1.x).

One place for reading a posterior: :func:`posterior` gives the ``xarray.Dataset`` of the
posterior group, and :func:`draw_points` the parameter points of (a random subset of) the
draws, chains stacked, as predictions mixed over the posterior need them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["draw_points", "posterior"]


def posterior(idata: Any) -> Any:
    """The posterior group as an ``xarray.Dataset`` (from a ``DataTree`` or a plain mapping)."""
    post = idata["posterior"]
    return getattr(post, "dataset", post)


def draw_points(
    idata: Any, names: list[str], max_draws: int | None = None, seed: int = 0
) -> list[dict[str, np.ndarray]]:
    """One ``{name: value}`` point per draw (chains stacked), at most ``max_draws`` of them.

    With more draws than ``max_draws`` a subset is chosen without replacement by
    ``np.random.default_rng(seed)`` and kept in draw order.
    """
    post = posterior(idata)
    missing = [n for n in names if n not in post]
    if missing:
        raise ValueError(f"The posterior has no draws of {missing}.")
    stacked = {n: np.asarray(post[n].values).reshape(-1, *post[n].shape[2:]) for n in names}
    total = len(next(iter(stacked.values())))
    index = np.arange(total)
    if max_draws is not None and total > max_draws:
        index = np.sort(np.random.default_rng(seed).choice(total, max_draws, replace=False))
    return [{n: v[i] for n, v in stacked.items()} for i in index]
