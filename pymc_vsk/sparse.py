r"""Inducing points for sparse VSK GPs: ``pm.gp.MarginalApprox`` (VFE, FITC, DTC) with a VSK.

A :class:`~pymc_vsk.VSK` is an ordinary PyMC covariance, so PyMC's sparse approximations take
it as they are: with m inducing inputs X_u the likelihood costs O(n m²) instead of O(n³)
(Titsias 2009 for VFE; Snelson and Ghahramani 2006 for FITC)::

    Xu = inducing_points(X, 40, psi)                      # (40 + 2, 1) for one jump
    jitter = 1e-6 * np.var(y)                             # relative to the data, see below
    with pm.Model() as model:
        vsk = VSK(pm.gp.cov.Matern52(2, ls=ls), psi, psi_scale=np.ptp(X, axis=0).max())
        gp = pm.gp.MarginalApprox(approx="VFE", cov_func=sigma_f**2 * vsk, mean_func=...)
        gp.marginal_likelihood("y", X=X, Xu=Xu, y=y, sigma=sigma_n, jitter=jitter)
    pred = predict(gp, Xnew, point, model=model, jitter=jitter)

PyMC adds an absolute jitter, 10⁻⁶, to the inducing covariance K_uu, and
:func:`pymc_vsk.predict` cannot read the one given to ``marginal_likelihood``: give both the
same jitter relative to var(y). With PyMC's default, y in units of 10⁻⁴ (σ_f² of 10⁻⁸) puts
a jitter 100 times the signal's variance on K_uu, and the predictive mean moves by two
standard deviations. ``psi_scale``, the largest column span of X, makes ψ's amplitude
relative to the x-range, as in :func:`pymc_vsk.build_model`, so that the model is the same
in any units of x.

The inducing inputs live in x; the VSK lifts them through ψ like any input. Their placement
matters at a jump: the approximate posterior mean is a combination of k(·, x_u), and the
lifted kernel decorrelates the two sides, so a side with no inducing input close to the jump
is represented by points up to one spacing away and the fit sags at the edge.
:func:`inducing_points` therefore adds, for every jump location t of a
:class:`~pymc_vsk.scaling.Jump` or :class:`~pymc_vsk.scaling.SmoothJump`, inputs just left and
just right of t, to evenly spaced quantiles of the data (1-D) or k-means centres (d ≥ 2).

ψ with random parameters is fine for ``MarginalApprox`` (unlike HSGP, whose box is fixed when
the prior is built): the lifting is symbolic. Only the placement needs numbers, so a random
jump location needs ``locations=`` (e.g. a few points over its prior range).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import scipy.cluster.vq

from pymc_vsk.arrays import as_float_array, check_finite
from pymc_vsk.scaling import Jump, ScalingFunction, SmoothJump, Stack, numeric_value
from pymc_vsk.validation import check_inputs

__all__ = ["inducing_points", "jump_locations"]


def jump_locations(psi: ScalingFunction) -> list[tuple[int, np.ndarray, float | None]]:
    """The jumps of ψ: ``(dim, locations, width)`` per :class:`Jump` / :class:`SmoothJump`.

    Members of a :class:`~pymc_vsk.scaling.Stack` are searched too; other scaling functions
    have no jumps (an empty list). ``width`` is ``None`` for a hard jump.

    Raises
    ------
    ValueError
        If a jump location (or a smooth jump's width) is random: its placement needs numbers.

    Parameters
    ----------
    psi : ScalingFunction
        The scaling function.

    Returns
    -------
    list of (dim, locations, width)
        ``width`` is the largest when a smooth jump has one per location.
    """
    if isinstance(psi, Stack):
        return [jump for part in psi.parts for jump in jump_locations(part)]
    if not isinstance(psi, Jump | SmoothJump):
        return []
    locations = numeric_value(psi.params["locations"])
    width = numeric_value(psi.params["width"]) if isinstance(psi, SmoothJump) else None
    if locations is None or (isinstance(psi, SmoothJump) and width is None):
        raise ValueError(
            f"{psi!r} has a random location or width, so where its jump is is not known when "
            "the inducing points are placed. Pass locations=[...] (for example a few points "
            "spread over the location's prior range)."
        )
    width_value = None if width is None else float(np.max(np.abs(width)))  # the widest edge
    return [(psi.dim, np.atleast_1d(locations).astype(float), width_value)]


def inducing_points(
    X: npt.ArrayLike,
    n_points: int,
    psi: ScalingFunction | None = None,
    *,
    locations: Sequence[float] | None = None,
    dim: int = 0,
    offset: float | None = None,
    seed: int = 0,
) -> np.ndarray:
    r"""Inducing inputs for ``pm.gp.MarginalApprox`` with a VSK: data quantiles plus jump edges.

    Parameters
    ----------
    X : array, shape (n, d)
        Training inputs.
    n_points : int
        Base inducing inputs: evenly spaced quantiles of x, the
        :math:`(i + \tfrac12)/n_{\mathrm{points}}` quantiles (d = 1), or k-means centres
        (d ≥ 2, seeded).
    psi : ScalingFunction, optional
        The VSK's ψ; the jumps of its :class:`~pymc_vsk.scaling.Jump` and
        :class:`~pymc_vsk.scaling.SmoothJump` parts (also inside a ``Stack``) get edge points.
    locations : sequence of float, optional
        Jump locations along column ``dim``, instead of (or when ψ's are random) those of ψ.
    dim : int, default 0
        Column of ``locations``.
    offset : float, optional
        Distance of the edge points from each jump: default 10⁻³ of the data's extent for a
        hard jump and 3 widths for a :class:`~pymc_vsk.scaling.SmoothJump` (where its
        logistic step is 95 % done).
    seed : int, default 0
        Seed of the k-means initialisation (d ≥ 2).

    Returns
    -------
    ndarray, shape (m, d)
        ``n_points`` base inputs (fewer when X has fewer distinct rows or quantiles, as with
        tied values: never the same input twice), then for each jump inside the data's
        range two edge inputs (d = 1) or the projections onto both sides of the jump of the
        base inputs nearest to it (about ``n_points ** ((d - 1) / d)`` of them; d ≥ 2).

    Raises
    ------
    ValueError
        If X is not a 2-D array of finite numbers with at least one row, ``n_points`` is not
        between 1 and n, a location is not finite, ``offset`` is not one finite positive
        distance, or a jump acts on a column X does not have.
    TypeError
        If X, ``locations`` or ``offset`` hold text or other values that are not numbers, or
        ``n_points`` or ``dim`` is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> from pymc_vsk.scaling import Jump
    >>> X = np.linspace(0, 1, 101)[:, None]
    >>> inducing_points(X, 4, Jump(0.5)).ravel().round(4).tolist()
    [0.125, 0.375, 0.625, 0.875, 0.499, 0.501]
    """
    if np.ndim(X) != 2:
        raise ValueError(f"X must have shape (n, d); got {np.shape(X)}. For 1-D x pass x[:, None].")
    value = as_float_array(X)  # text is refused, not parsed
    check_finite(
        value, "X", "inducing inputs are placed among finite inputs: drop or fix those rows."
    )
    check_inputs(X, value.shape[1], owner="inducing_points")  # no rows, booleans
    X = value
    n_points = _count(n_points, "n_points")
    if not 1 <= n_points <= len(X):
        raise ValueError(f"n_points must be between 1 and n = {len(X)}; got {n_points}.")
    base = _base_points(X, n_points, seed)
    if locations is not None:
        where = as_float_array(locations, "locations")
        if where.ndim > 1:
            raise ValueError(
                f"locations must be a number or a 1-D sequence of jump locations along column "
                f"dim; got shape {where.shape}."
            )
        check_finite(where, "locations", "give each jump location as a finite number.")
        jumps = [(_count(dim, "dim"), np.atleast_1d(where), None)]
    else:
        jumps = [] if psi is None else jump_locations(psi)
    lo, hi = X.min(axis=0), X.max(axis=0)
    edges = []
    for jump_dim, where, width in jumps:
        if not 0 <= jump_dim < X.shape[1]:
            raise ValueError(
                f"A jump acts on column {jump_dim} of X, which has {X.shape[1]} column(s): give "
                "the jump's dim among X's columns."
            )
        step = _offset(offset, width, float(hi[jump_dim] - lo[jump_dim]))
        for t in where:
            if not lo[jump_dim] < t <= hi[jump_dim]:
                continue
            edges.append(_edge_points(base, jump_dim, float(t), step))
    # never an input twice (a singular K_uu): tied quantiles, jumps closer than two offsets
    points = np.vstack([base, *edges])
    _, first = np.unique(points, axis=0, return_index=True)
    return points[np.sort(first)]


def _base_points(X: np.ndarray, n_points: int, seed: int) -> np.ndarray:
    rows = np.unique(X, axis=0)
    if len(rows) <= n_points:  # every distinct input
        return rows
    if X.shape[1] == 1:
        probs = (np.arange(n_points) + 0.5) / n_points
        return np.quantile(X[:, 0], probs)[:, None]
    scale = np.where(np.std(X, axis=0) > 0, np.std(X, axis=0), 1.0)
    centres, _ = scipy.cluster.vq.kmeans2(
        X / scale, n_points, minit="++", seed=np.random.default_rng(seed)
    )
    return centres * scale


def _count(value: object, name: str) -> int:
    """``value`` as an int, refused unless it is an integer (not a bool, text or fraction)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        return int(value)
    raise TypeError(f"{name} must be an integer; got {value!r} ({type(value).__name__}).")


def _offset(offset: float | None, width: float | None, extent: float) -> float:
    if offset is not None:
        if isinstance(offset, bool | np.bool_):
            raise TypeError(f"offset must be a number (a distance along x); got {offset!r}.")
        value = as_float_array(offset, "offset")
        if value.ndim or not (np.isfinite(value) and value > 0):
            raise ValueError(f"offset must be one finite positive distance; got {offset!r}.")
        return float(value)
    if width is not None:
        return 3.0 * abs(width)
    return 1e-3 * (extent if extent > 0 else 1.0)


def _edge_points(base: np.ndarray, dim: int, t: float, step: float) -> np.ndarray:
    """Inputs just left (t − step) and just right (t + step) of a jump at x_dim = t."""
    d = base.shape[1]
    if d == 1:
        return np.array([[t - step], [t + step]])
    k = max(2, round(len(base) ** ((d - 1) / d)))
    nearest = base[np.argsort(np.abs(base[:, dim] - t))[:k]]
    left, right = nearest.copy(), nearest.copy()
    left[:, dim], right[:, dim] = t - step, t + step
    return np.vstack([left, right])
