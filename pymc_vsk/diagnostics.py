"""NUTS diagnostics on arviz: r̂, bulk and tail ESS, divergences, and chains in different modes.

The VSK likelihood can be bimodal (see :mod:`pymc_vsk.fitting`), and NUTS chains started
apart can settle in different modes. r̂ flags that only as "not converged"; :func:`diagnose`
also says which chains sit where, by comparing each chain's central 80 % interval of every
scalar parameter: two chains whose intervals do not overlap sample different modes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from pymc_vsk.draws import posterior

__all__ = [
    "ESS_MIN",
    "MODE_PROB",
    "RHAT_MAX",
    "Diagnostics",
    "chains_in_different_modes",
    "diagnose",
    "min_draws_for_modes",
]

#: The largest acceptable rank-normalised r̂ (Vehtari et al. 2021).
RHAT_MAX = 1.01
#: The smallest acceptable bulk and tail ESS (100 per chain for 4 chains).
ESS_MIN = 400


@dataclass
class Diagnostics:
    """Result of :func:`diagnose`.

    Attributes
    ----------
    table : pandas.DataFrame
        Per parameter: ``r_hat``, ``ess_bulk``, ``ess_tail``, ``mcse_mean``.
    divergences : int
        Divergent transitions after tuning, over all chains.
    n_samples : int
        Draws × chains.
    modes : list of str
        One message per parameter whose chains sit in different modes.
    problems : list of str
        Everything that failed a threshold, in words.
    exact : list of str
        Rows of ``table`` whose draws all take one value: they have no r̂ and are no
        problem.
    """

    table: pd.DataFrame
    divergences: int
    n_samples: int
    modes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    exact: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no threshold failed."""
        return not self.problems

    def as_dict(self) -> dict:
        """``{"max_rhat", "min_ess_bulk", "divergences"}`` as plain numbers (for JSON); None
        where a value is not defined (r̂ of a single chain), as JSON has no NaN."""

        def number(value: float) -> float | None:
            return float(value) if np.isfinite(value) else None

        return {
            "max_rhat": number(self.table["r_hat"].max()),
            "min_ess_bulk": number(self.table["ess_bulk"].min()),
            "divergences": int(self.divergences),
        }

    def __str__(self) -> str:
        lines = [self.table.to_string(), f"divergences: {self.divergences} of {self.n_samples}"]
        lines += [f"problem: {p}" for p in self.problems] or ["no problems found"]
        return "\n".join(lines)


#: Mass of the central interval of each chain that :func:`chains_in_different_modes` compares.
MODE_PROB = 0.8


def min_draws_for_modes(prob: float = MODE_PROB) -> int:
    """Draws per chain that a central ``prob`` interval needs: one beyond each of its ends.

    With fewer, a chain's interval is spanned by its few draws alone and chains of one
    distribution look apart: of four chains of independent draws, one draw each always "sit
    in different modes", two each about half the time; at this minimum (10 for 0.8), about
    one time in 10 000.

    Parameters
    ----------
    prob : float, default 0.8
        Mass of the central interval, in (0, 1).

    Returns
    -------
    int
    """
    return math.ceil(2 / (1 - prob) - 1e-9)  # 2 / (1 - 0.8) rounds to 10.000000000000002


def _too_short_for_modes(post: xr.Dataset, prob: float) -> str | None:
    """Why several chains are too short to compare by their central ``prob`` intervals, or
    None when they are not (or there is one chain)."""
    n_chains, n_draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    need = min_draws_for_modes(prob)
    if n_chains < 2 or n_draws >= need:
        return None
    return (
        f"chains of {n_draws} draw(s) are too short to tell whether they sit in different "
        f"modes: comparing the chains' central {prob:g} intervals needs at least {need} draws "
        f"per chain (one beyond each end of the interval); the posterior has {n_draws}. "
        "Sample more draws (hundreds, which r̂ and ESS need too)"
    )


def chains_in_different_modes(
    idata: xr.DataTree, var_names: Sequence[str] | None = None, prob: float = MODE_PROB
) -> list[str]:
    """Messages for parameters whose chains' central ``prob`` intervals do not overlap.

    Positive parameters are compared on the log scale. Only scalar parameters are checked.

    Parameters
    ----------
    idata : DataTree
        Posterior draws with at least two chains (a single chain gives no message) of at
        least :func:`min_draws_for_modes` draws each (10 for ``prob=0.8``).
    var_names : str or sequence of str, optional
        Variables to compare (default: every variable of the posterior); ``"~name"``
        leaves ``name`` out, as in arviz.
    prob : float, default 0.8
        Mass of the central interval compared, in (0, 1).

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        ``prob`` not in (0, 1), or several chains of fewer draws than
        :func:`min_draws_for_modes`: their intervals say nothing about modes.
    """
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0 < prob < 1:
        raise ValueError(
            f"prob is the mass of each chain's central interval, a number in (0, 1) such as "
            f"0.8; got {prob!r}."
        )
    post = posterior(idata)
    names = _names(post, var_names)
    short = _too_short_for_modes(post, prob)
    if short is not None:
        raise ValueError(short[:1].upper() + short[1:])
    messages = []
    lo_q, hi_q = (1 - prob) / 2, (1 + prob) / 2
    for name in names:
        values = np.asarray(post[name].values, dtype=float)  # a boolean deterministic too
        if values.ndim != 2 or values.shape[0] < 2:
            continue
        lo, hi = np.quantile(values, [lo_q, hi_q], axis=1)
        order = np.argsort(np.median(values, axis=1))
        groups = [[int(order[0])]]
        for c in order[1:]:
            if lo[c] > max(hi[g] for g in groups[-1]):
                groups.append([int(c)])
            else:
                groups[-1].append(int(c))
        if len(groups) > 1:
            medians = "; ".join(f"chains {g} around {np.median(values[g]):.4g}" for g in groups)
            messages.append(f"{name}: chains sit in {len(groups)} different modes ({medians})")
    return messages


def _names(post: xr.Dataset, var_names: str | Sequence[str] | None) -> list[str]:
    """The posterior's variables that ``var_names`` selects, as arviz reads the argument:
    ``"~name"`` leaves ``name`` out of the others named, or of all when none is."""
    if var_names is None:
        return list(post.data_vars)
    asked = [var_names] if isinstance(var_names, str) else [str(name) for name in var_names]
    left_out = {name[1:] for name in asked if name.startswith("~")}
    kept = [name for name in asked if not name.startswith("~")]
    unknown = [name for name in [*kept, *sorted(left_out)] if name not in post.data_vars]
    if unknown:
        raise ValueError(
            f"var_names names {unknown}, which the posterior does not hold; its variables are "
            f"{list(post.data_vars)}."
        )
    names = [name for name in (kept or list(post.data_vars)) if name not in left_out]
    if not asked or not names:
        raise ValueError(
            f"var_names={var_names!r} selects none of the posterior's variables "
            f"{list(post.data_vars)}; pass None to check them all."
        )
    return names


def _constant_rows(post: xr.Dataset, names: Sequence[str], rows: pd.Index) -> set[str]:
    """The rows of a summary table (``name`` or ``name[i, ...]``, in C order) whose draws
    all take one value."""
    out = set()
    for name in names:
        values = np.asarray(post[name].values, dtype=float)  # a boolean deterministic too
        same = np.ptp(values.reshape(values.shape[0] * values.shape[1], -1), axis=0) == 0
        labels = [r for r in rows if r == name or str(r).startswith(f"{name}[")]
        if len(labels) == same.size:
            out.update(label for label, s in zip(labels, same, strict=True) if s)
    return out


def _beside(value: float, bound: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, or to more where fewer would print the bound it
    misses (an ESS of 399.6 as 399.6, not 400, beside "< 400")."""
    for places in range(digits, digits + 8):
        text = f"{value:.{places}f}"
        if not np.isfinite(value) or float(text) != bound:
            return text
    return text


def diagnose(
    idata: xr.DataTree,
    var_names: Sequence[str] | None = None,
    *,
    rhat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
) -> Diagnostics:
    """r̂, bulk and tail ESS, divergences and mode separation of a posterior DataTree.

    Parameters
    ----------
    idata : DataTree
        Output of ``pm.sample`` (any NUTS sampler).
    var_names : str or sequence of str, optional
        Parameters to check (default: all in the posterior); ``"~name"`` leaves ``name``
        out, as in arviz.
    rhat_max : float, default 1.01
        Largest acceptable rank-normalised r̂.
    ess_min : float, default 400
        Smallest acceptable bulk and tail ESS (100 per chain for 4 chains).

    Notes
    -----
    A quantity that takes one value in every draw (a gap probability that is 0 throughout,
    a parameter the model fixes) has no r̂: it is listed, with r̂ NaN, and is not a
    problem. With a single chain r̂ is not defined either, and that is a problem: sample
    several chains.

    Examples
    --------
    >>> from arviz_base import from_dict
    >>> rng = np.random.default_rng(0)
    >>> draws = {"a": rng.normal(size=(4, 500)), "fixed": np.zeros((4, 500))}
    >>> report = diagnose(from_dict({"posterior": draws}))
    >>> report.ok, report.table.index.tolist()
    (True, ['a', 'fixed'])
    """
    post = posterior(idata)
    names = _names(post, var_names)
    from arviz_stats import summary  # imported on use: arviz loads slowly

    # draws split evenly between two values (a discrete quantity, a grid) fold to one value
    # about their median: the tail r̂ divides 0 by 0, which numpy would warn about
    with np.errstate(divide="ignore", invalid="ignore"):
        numbers = post[names].map(lambda v: v.astype(float) if v.dtype == bool else v)
        draws = xr.DataTree.from_dict({"posterior": numbers})  # arviz takes no booleans
        table = summary(draws, kind="diagnostics", round_to="none")
    table = table[["r_hat", "ess_bulk", "ess_tail", "mcse_mean"]].astype(float)
    n_samples = int(post.sizes["chain"] * post.sizes["draw"])
    divergences = 0
    try:
        stats = idata["sample_stats"]
        stats = getattr(stats, "dataset", stats)
        if "diverging" in stats:
            divergences = int(np.asarray(stats["diverging"].values).sum())
    except KeyError:
        pass
    problems = []
    n_chains = int(post.sizes["chain"])
    fixed = _constant_rows(post, names, table.index)
    for param, row in table.iterrows():
        if param in fixed:  # one value in every draw: nothing to converge
            continue
        if n_chains < 2 and not np.isfinite(row["r_hat"]):
            problems.append(f"{param}: r̂ needs at least two chains; sample several chains")
        elif not row["r_hat"] <= rhat_max:
            problems.append(f"{param}: r̂ = {_beside(row['r_hat'], rhat_max, 3)} > {rhat_max}")
        for kind in ("ess_bulk", "ess_tail"):
            if not row[kind] >= ess_min:
                shown = _beside(row[kind], ess_min, 0)
                problems.append(f"{param}: {kind} = {shown} < {ess_min:g}")
    if divergences:
        problems.append(
            f"{divergences} divergent transition(s): reparameterise or raise target_accept"
        )
    short = _too_short_for_modes(post, MODE_PROB)
    modes = [] if short is not None else chains_in_different_modes(idata, names)
    problems += [] if short is None else [short]
    problems += modes
    exact = [str(row) for row in table.index if row in fixed]
    return Diagnostics(table, divergences, n_samples, modes, problems, exact)
