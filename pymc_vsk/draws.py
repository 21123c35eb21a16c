"""Posterior draws out of the ``DataTree`` that ``pm.sample`` and nutpie return (arviz 1.x).

:func:`posterior` gives the ``xarray.Dataset`` of the posterior group, and :func:`draw_points`
the parameter points of (a random subset of) the draws, chains stacked by ``arviz.extract``,
as predictions mixed over the posterior need them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

if TYPE_CHECKING:  # the jump detection reads draws without loading pytensor
    from pytensor.graph import Variable

__all__ = ["check_draw_shape", "draw_points", "posterior"]


def posterior(idata: xr.DataTree | Mapping[str, xr.Dataset]) -> xr.Dataset:
    """The posterior group as an ``xarray.Dataset``.

    Parameters
    ----------
    idata : DataTree, Dataset or mapping
        Output of ``pm.sample`` or nutpie, a mapping with a ``"posterior"`` dataset, or the
        posterior group itself (``idata.posterior``, a node or a Dataset with ``chain`` and
        ``draw`` dimensions).

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    TypeError
        ``idata`` has no posterior group.
    ValueError
        The posterior holds no draws (nutpie through ``pm.sample(draws=0)``).
    """
    own = getattr(idata, "dataset", idata)
    if isinstance(own, xr.Dataset) and {"chain", "draw"} <= set(own.dims):
        post = own  # the posterior group itself
    else:
        try:
            group = idata["posterior"]
        except (KeyError, TypeError, IndexError):
            stacked = isinstance(own, xr.Dataset) and "sample" in own.dims
            raise TypeError(
                "Expected the draws of a sampler (a DataTree or InferenceData with a "
                "'posterior' group, from pm.sample or nutpie, or that group); got "
                f"{type(idata).__name__} without one. "
                + (
                    "These draws are stacked into one 'sample' dimension (arviz.extract): "
                    "pass the whole result of pm.sample, whose chains the diagnostics compare."
                    if stacked
                    else "A MAP fit (fit_map) has no draws to diagnose: its point is result.point."
                )
            ) from None
        post = getattr(group, "dataset", group)
    if any(post.sizes.get(dim, 1) == 0 for dim in ("chain", "draw")):
        raise ValueError(
            f"The posterior holds no draws ({post.sizes.get('chain', 0)} chains of "
            f"{post.sizes.get('draw', 0)} draws): sample with draws >= 1 (and chains >= 1)."
        )
    return post


def check_draw_shape(variable: Variable, shape: tuple[int, ...]) -> None:
    """Refuse a value of ``variable`` whose shape is not the model's: draws of another model.

    Parameters
    ----------
    variable : TensorVariable
        A variable of the model (a free random variable or a deterministic).
    shape : tuple of int
        The shape of one value of it in the point or draw.

    Raises
    ------
    ValueError
        Another number of dimensions, or another length where the model's is known.
    """
    expected = variable.type.shape
    if len(shape) == len(expected) and all(
        e is None or e == s for s, e in zip(shape, expected, strict=True)
    ):
        return
    want = tuple("n" if e is None else e for e in expected)
    raise ValueError(
        f"The draws' {variable.name} has shape {tuple(shape)}, where this model's "
        f"{variable.name} has shape {want}: the point or posterior comes from another model "
        "(a stationary one for an ARD model, say). Use the draws of this model."
    )


def draw_points(
    idata: xr.DataTree | Mapping[str, xr.Dataset],
    names: Sequence[str],
    max_draws: int | None = None,
    seed: int = 0,
) -> list[dict[str, np.ndarray]]:
    """One ``{name: value}`` point per draw (chains stacked), at most ``max_draws`` of them.

    Parameters
    ----------
    idata : DataTree or mapping
        Posterior draws (see :func:`posterior`).
    names : sequence of str
        Variables to read.
    max_draws : int, optional
        With more draws than this, a random subset of this size, drawn without replacement by
        ``arviz.extract`` with ``random_seed=seed``; ``None`` keeps every draw.
    seed : int, default 0
        Seed of the subset.

    Returns
    -------
    list of dict
    """
    if max_draws is not None and (
        isinstance(max_draws, bool) or not isinstance(max_draws, int | np.integer) or max_draws < 1
    ):
        raise ValueError(
            f"max_draws must be a positive integer (int), or None for every draw; got "
            f"{max_draws!r}."
        )
    post = posterior(idata)
    missing = [n for n in names if n not in post]
    if missing:
        raise ValueError(f"The posterior has no draws of {missing}.")
    total = post.sizes["chain"] * post.sizes["draw"]
    subset = max_draws if max_draws is not None and total > max_draws else None
    from arviz_base import extract  # imported on use: arviz loads slowly

    stacked = extract(
        idata
        if isinstance(idata, xr.DataTree)
        else xr.DataTree.from_dict({"posterior": post[list(names)]}),
        group="posterior",
        var_names=list(names),
        num_samples=subset,
        random_seed=seed,
        keep_dataset=True,
    )
    values = {n: np.asarray(stacked[n].transpose("sample", ...).values) for n in names}
    count = stacked.sizes["sample"]
    return [{n: v[i] for n, v in values.items()} for i in range(count)]
