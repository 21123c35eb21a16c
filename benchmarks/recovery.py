r"""Recovering a jump location on synthetic data, and telling how many jumps there are.

**The recovery study** (``benchmarks/jump_recovery.py``, ``tests/test_jump_recovery.py``).
The paper's target of Section 4.1 (a jump of height 3 at t = 0.5) on the first N unscrambled
Halton nodes, with Gaussian noise of standard deviation 0.25 drawn with ``default_rng(seed)``
(:func:`jump_data`). One jump of unknown location t ~ Uniform(0.1, 0.9) and amplitude is fitted
with :func:`pymc_vsk.jumps.build_jump_model` and NUTS (nutpie, compiled once per N and method,
the observations swapped per seed). Per seed the study records the 94 % location interval —
the hull of the credible set of gaps between nodes (:meth:`LocationPosterior.interval`), and
the equal-tailed interval for transparency — whether it covers t = 0.5, its width, and the
sampler diagnostics (largest r̂, smallest bulk/tail ESS, divergences, time).

Design choices, fixed before looking at coverage:

* **Priors** are :func:`build_jump_model`'s defaults, scaled to the *noise-free* target on the
  nodes (the placeholder data the model is built with), so that every seed has the same prior
  and the model compiles once; the scales of a noisy replicate differ by about 1 %.
* **Method per N** (:func:`default_method`): exact marginalisation of the hard jump over the
  gaps (``"marginal"``) up to :data:`MARGINAL_MAX_NODES` nodes, where its O(M n³) cost is
  small; the logistic relaxation (``"smooth"``, width a quarter of the smallest node spacing)
  above, where it is the only affordable route.
* **Initial values**: :func:`build_jump_model` starts one location at the middle of its prior
  range, which is the true 0.5 here. :func:`study_model` makes each chain start the location
  at its own prior draw instead, so no chain starts at the truth and r̂ can see chains stuck in
  different gaps.
* **Sampler** (:data:`SAMPLER_SETTINGS`, chosen on r̂ and divergences only): 4 chains, 1000
  tuning steps. The relaxation takes 1000 draws per chain at ``target_accept = 0.95`` (a
  small step size for the steep walls it puts at the nodes). At N = 27 the posterior of the
  marginal model straddles both modes of the VSK likelihood (short ℓ and small σ_n; long ℓ
  and σ_n ≈ 1: the likelihood of Section 4.1.2 is bimodal): with 1000 draws at 0.95 one seed
  of ten had r̂(σ_n) = 1.013 and one had 2 divergences, both in the long-ℓ mode; with 2000
  draws at 0.99 again one seed had r̂ = 1.013 and one 2 divergences (of 8000 transitions). The
  marginal method therefore takes 4000 draws per chain at ``target_accept = 0.99``.
  No reparameterisation beyond PyMC's default transforms.
* **Location diagnostics** for the marginal method, which samples no location: r̂ and ESS of
  the per-draw conditional mean E[t | θ, y] = Σ_g p(G_g | θ, y) (left_g + right_g) / 2,
  so that both methods report a convergence check on the location itself.

**How many jumps** (:func:`select_jump_count`): fit K = 0, 1, 2, ... jumps, add the exact
pointwise LOO log-likelihoods (:func:`pymc_vsk.loo.add_log_likelihood`), rank with
``arviz.compare`` and take the *smallest* K whose ELPD is within ``max(4, 2·dse)`` of the best.
Differences below 4 are "small" in the sense of Sivula, Magnusson, Matamoros & Vehtari (2022,
*Uncertainty in Bayesian leave-one-out cross-validation based model comparison*), and ``dse``
is the standard error of the difference that ``arviz.compare`` reports.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import xarray as xr

from pymc_vsk.blas import blas_threads
from pymc_vsk.diagnostics import diagnose
from pymc_vsk.draws import posterior
from pymc_vsk.jumps import LocationPosterior, MarginalJumpGP, build_jump_model, location_posterior
from pymc_vsk.targets import JUMP_LOCATION, halton_nodes, jump

__all__ = [
    "MARGINAL_MAX_NODES",
    "NOISE",
    "PRIOR_RANGE",
    "SAMPLER_SETTINGS",
    "RecoveryResult",
    "default_method",
    "fit_summary",
    "jump_data",
    "location_draws",
    "run_recovery",
    "study_model",
]

#: Standard deviation of the observation noise (Section 4.1.2).
NOISE = 0.25
#: Range of the uniform location prior.
PRIOR_RANGE = (0.1, 0.9)
#: Largest N for which :func:`default_method` picks exact marginalisation.
MARGINAL_MAX_NODES = 40
#: NUTS settings of the study per method (see the module docstring for how they were chosen).
SAMPLER_SETTINGS: dict[str, dict[str, int | float]] = {
    "marginal": {"draws": 4000, "tune": 1000, "chains": 4, "target_accept": 0.99},
    "smooth": {"draws": 1000, "tune": 1000, "chains": 4, "target_accept": 0.95},
}


def jump_data(n: int, seed: int, noise: float = NOISE) -> tuple[np.ndarray, np.ndarray]:
    """The jump target of Section 4.1 on ``n`` Halton nodes plus seeded Gaussian noise.

    Parameters
    ----------
    n : int
        Number of nodes (the first ``n`` unscrambled Halton points, shape (n, 1)).
    seed : int
        Seed of ``numpy.random.default_rng`` for the noise.
    noise : float, default 0.25
        Noise standard deviation.

    Returns
    -------
    X : array, shape (n, 1)
    y : array, shape (n,)
    """
    X = halton_nodes(n)
    return X, jump(X) + noise * np.random.default_rng(seed).normal(size=n)


def default_method(n: int) -> str:
    """``"marginal"`` for ``n <= MARGINAL_MAX_NODES`` nodes, else ``"smooth"``.

    Parameters
    ----------
    n : int
        Number of nodes.

    Returns
    -------
    str
    """
    return "marginal" if n <= MARGINAL_MAX_NODES else "smooth"


def study_model(
    n: int,
    method: str,
    *,
    width: float | None = None,
    lower: float = PRIOR_RANGE[0],
    upper: float = PRIOR_RANGE[1],
) -> tuple[pm.Model, pm.gp.Marginal | MarginalJumpGP]:
    """The one-jump model of the study on ``n`` Halton nodes (data: the noise-free target).

    Parameters
    ----------
    n : int
    method : {"smooth", "marginal"}
    width : float or ``.dist()``, optional
        Width of the relaxation (default: a quarter of the smallest node spacing).
    lower, upper : float
        Range of the uniform location prior.

    Returns
    -------
    model, gp
        As :func:`pymc_vsk.jumps.build_jump_model`; swap the observations through the data
        container ``y_data``. With ``method="smooth"`` each chain starts the location at a
        prior draw.
    """
    X = halton_nodes(n)
    model, gp = build_jump_model(X, jump(X), method=method, lower=lower, upper=upper, width=width)
    if method == "smooth":
        model.set_initval(model["location"], "prior")
    return model, gp


def location_draws(idata: xr.DataTree, gp: pm.gp.Marginal | MarginalJumpGP) -> np.ndarray:
    """Draws (chain, draw) of the location, or of E[t | θ, y] for the marginal method.

    For :class:`~pymc_vsk.jumps.MarginalJumpGP` the conditional mean over the gaps, with t
    uniform inside each gap: Σ_g p(G_g | θ, y) (left_g + right_g) / 2.

    Parameters
    ----------
    idata : DataTree
        Output of the sampler.
    gp : pm.gp.Marginal or MarginalJumpGP
        The model's GP.

    Returns
    -------
    array, shape (chains, draws)
    """
    post = posterior(idata)
    if isinstance(gp, MarginalJumpGP):
        probs = np.asarray(post[f"{gp.name}_gap_probs"].values)
        return probs @ (0.5 * (gp.gaps.left + gp.gaps.right))
    values = np.asarray(post["location"].values)
    if values.ndim != 2:
        raise ValueError(f"location_draws takes one jump; location has shape {values.shape[2:]}.")
    return values


def _location(
    idata: xr.DataTree,
    gp: pm.gp.Marginal | MarginalJumpGP,
    X: np.ndarray,
    lower: float,
    upper: float,
) -> LocationPosterior:
    if isinstance(gp, MarginalJumpGP):
        return gp.location_posterior(idata)
    return location_posterior(idata, X, lower, upper)[0]


def fit_summary(
    idata: xr.DataTree,
    gp: pm.gp.Marginal | MarginalJumpGP,
    model: pm.Model,
    *,
    lower: float = PRIOR_RANGE[0],
    upper: float = PRIOR_RANGE[1],
    truth: float = JUMP_LOCATION,
    prob: float = 0.94,
) -> dict[str, float | bool]:
    """Location interval, coverage and sampler diagnostics of one fit of the study.

    Parameters
    ----------
    idata : DataTree
        Posterior of a :func:`study_model` model (or any one-jump model).
    gp : pm.gp.Marginal or MarginalJumpGP
    model : pm.Model
    lower, upper : float
        Range of the uniform location prior.
    truth : float, default 0.5
        True location.
    prob : float, default 0.94
        Credible mass of the intervals.

    Returns
    -------
    dict
        ``lo``, ``hi``, ``width`` (hull of the credible set of gaps), ``covers`` (``truth`` in
        one of the credible gaps), ``n_gaps`` (size of the credible set), ``p_true_gap``
        (posterior probability of the gap holding ``truth``), ``eti_lo``, ``eti_hi``,
        ``eti_width``, ``eti_covers``, ``r_hat_max``, ``ess_bulk_min``, ``ess_tail_min``
        (over the free parameters and the location, see :func:`location_draws`),
        ``r_hat_location``, ``divergences``, ``modes`` (1 when chains sit in different modes).
    """
    X = np.asarray(model["X"].get_value(), dtype=float)
    loc = _location(idata, gp, X, lower, upper)
    lo, hi = loc.interval(prob)
    elo, ehi = loc.eti(prob)
    g_true = int(loc.gaps.index(np.array(truth)))
    post = posterior(idata)
    names = [rv.name for rv in model.free_RVs if rv.name != "location"]
    arrays = {n: np.asarray(post[n].values) for n in names}
    arrays["location"] = location_draws(idata, gp)
    stats = idata["sample_stats"]
    stats = getattr(stats, "dataset", stats)
    checked = az.from_dict(
        {"posterior": arrays, "sample_stats": {"diverging": np.asarray(stats["diverging"].values)}}
    )
    diag = diagnose(checked)
    return {
        "lo": lo,
        "hi": hi,
        "width": hi - lo,
        "covers": loc.covers(truth, prob),
        "n_gaps": len(loc.credible_gaps(prob)),
        "p_true_gap": float(loc.probs[g_true]) if g_true >= 0 else 0.0,
        "eti_lo": elo,
        "eti_hi": ehi,
        "eti_width": ehi - elo,
        "eti_covers": bool(elo <= truth <= ehi),
        "r_hat_max": float(diag.table["r_hat"].max()),
        "r_hat_location": float(diag.table.loc["location", "r_hat"]),
        "ess_bulk_min": float(diag.table["ess_bulk"].min()),
        "ess_tail_min": float(diag.table["ess_tail"].min()),
        "divergences": diag.divergences,
        "modes": int(bool(diag.modes)),
    }


@dataclass
class RecoveryResult:
    """Per-seed results of :func:`run_recovery` for one N and method.

    Attributes
    ----------
    n : int
        Number of nodes.
    method : str
    fits : pandas.DataFrame
        One row per seed: ``seed``, the entries of :func:`fit_summary` and ``seconds`` (NUTS
        wall time).
    compile_seconds : float
        Time to build and compile the model with nutpie (once).
    settings : dict
        Sampler settings, prior range, noise, credible mass.
    """

    n: int
    method: str
    fits: pd.DataFrame
    compile_seconds: float
    settings: dict[str, object] = field(default_factory=dict)

    def summary(self, rhat_max: float = 1.01) -> dict[str, object]:
        """Totals: coverage, interval widths, worst diagnostics and timings.

        Parameters
        ----------
        rhat_max : float, default 1.01
            Largest r̂ counted as converged.

        Returns
        -------
        dict
        """
        f = self.fits
        return {
            "n": self.n,
            "method": self.method,
            "seeds": len(f),
            "covered": int(f["covers"].sum()),
            "eti_covered": int(f["eti_covers"].sum()),
            "width_median": float(f["width"].median()),
            "width_min": float(f["width"].min()),
            "width_max": float(f["width"].max()),
            "eti_width_median": float(f["eti_width"].median()),
            "r_hat_max": float(f["r_hat_max"].max()),
            "seeds_r_hat_above": int((f["r_hat_max"] > rhat_max).sum()),
            "divergences_total": int(f["divergences"].sum()),
            "seeds_with_divergences": int((f["divergences"] > 0).sum()),
            "ess_bulk_min": float(f["ess_bulk_min"].min()),
            "ess_tail_min": float(f["ess_tail_min"].min()),
            "seconds_median": float(f["seconds"].median()),
            "seconds_total": float(f["seconds"].sum()),
            "compile_seconds": self.compile_seconds,
        }

    def table(self) -> str:
        """The per-seed table as text."""
        cols = {
            "seed": "{:d}",
            "lo": "{:.4f}",
            "hi": "{:.4f}",
            "width": "{:.4f}",
            "covers": "{}",
            "n_gaps": "{:d}",
            "p_true_gap": "{:.3f}",
            "eti_lo": "{:.4f}",
            "eti_hi": "{:.4f}",
            "r_hat_max": "{:.4f}",
            "ess_bulk_min": "{:.0f}",
            "ess_tail_min": "{:.0f}",
            "divergences": "{:d}",
            "seconds": "{:.1f}",
        }
        rows = [[fmt.format(row[c]) for c, fmt in cols.items()] for _, row in self.fits.iterrows()]
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
        return "\n".join(lines)

    def report(self, prob: float = 0.94, rhat_max: float = 1.01) -> str:
        """Heading, per-seed table and totals, as printed by the benchmark.

        Parameters
        ----------
        prob : float, default 0.94
            Credible mass of the intervals.
        rhat_max : float, default 1.01
            Largest r̂ counted as converged.

        Returns
        -------
        str
        """
        s = self.summary(rhat_max)
        return "\n".join(
            [
                f"N = {self.n}, method {self.method!r}: {prob:.0%} location interval "
                f"(hull of the credible set of gaps) and ETI, truth t = "
                f"{self.settings.get('truth', JUMP_LOCATION)}",
                self.table(),
                f"coverage {s['covered']}/{s['seeds']} (ETI {s['eti_covered']}/{s['seeds']}); "
                f"interval width median {s['width_median']:.4f} "
                f"[{s['width_min']:.4f}, {s['width_max']:.4f}], ETI width median "
                f"{s['eti_width_median']:.4f}",
                f"max r̂ {s['r_hat_max']:.4f} ({s['seeds_r_hat_above']} seed(s) above {rhat_max}); "
                f"divergences {s['divergences_total']} in {s['seeds_with_divergences']} seed(s); "
                f"min ESS bulk {s['ess_bulk_min']:.0f}, tail {s['ess_tail_min']:.0f}",
                f"time: compile {s['compile_seconds']:.1f} s, NUTS median "
                f"{s['seconds_median']:.1f} s per seed, total {s['seconds_total']:.0f} s",
            ]
        )


def run_recovery(
    n: int,
    seeds: Sequence[int],
    *,
    method: str | None = None,
    width: float | None = None,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    cores: int = 2,
    target_accept: float | None = None,
    prob: float = 0.94,
    noise: float = NOISE,
    lower: float = PRIOR_RANGE[0],
    upper: float = PRIOR_RANGE[1],
    progress: Callable[[Mapping[str, float | bool]], None] | None = None,
) -> RecoveryResult:
    """Fit one jump on :func:`jump_data` for each seed and summarise the location posterior.

    The model is compiled once with nutpie and the observations swapped per seed
    (``CompiledModel.with_data(y_data=...)``); seed ``s`` draws the noise and seeds NUTS.

    Parameters
    ----------
    n : int
        Number of Halton nodes.
    seeds : sequence of int
        Noise seeds.
    method : {"smooth", "marginal"}, optional
        Default :func:`default_method`.
    width : float or ``.dist()``, optional
        Width of the relaxation (``method="smooth"``).
    draws, tune, chains : int, optional
        NUTS settings per fit (draws and tuning steps per chain); default
        :data:`SAMPLER_SETTINGS` of the method.
    cores : int, default 2
        Chains run in parallel.
    target_accept : float, optional
        Default :data:`SAMPLER_SETTINGS` of the method.
    prob : float, default 0.94
        Credible mass of the location intervals.
    noise : float, default 0.25
    lower, upper : float
        Range of the uniform location prior.
    progress : callable, optional
        Called with each seed's row after its fit.

    Returns
    -------
    RecoveryResult
    """
    import nutpie

    from pymc_vsk.samplers import compiled_nutpie

    method = default_method(n) if method is None else method
    given = {"draws": draws, "tune": tune, "chains": chains, "target_accept": target_accept}
    nuts = {**SAMPLER_SETTINGS[method], **{k: v for k, v in given.items() if v is not None}}
    start = time.perf_counter()
    model, gp = study_model(n, method, width=width, lower=lower, upper=upper)
    compiled = compiled_nutpie(model)
    compile_seconds = time.perf_counter() - start
    rows = []
    for seed in seeds:
        _, y = jump_data(n, seed, noise)
        start = time.perf_counter()
        with blas_threads(1):
            idata = nutpie.sample(
                compiled.with_data(y_data=y),
                **nuts,
                cores=cores,
                seed=int(seed),
                progress_bar=False,
            )
        seconds = time.perf_counter() - start
        row = {
            "seed": int(seed),
            **fit_summary(idata, gp, model, lower=lower, upper=upper, prob=prob),
            "seconds": seconds,
        }
        rows.append(row)
        if progress is not None:
            progress(row)
    settings = {
        **nuts,
        "cores": cores,
        "prob": prob,
        "noise": noise,
        "lower": lower,
        "upper": upper,
        "truth": JUMP_LOCATION,
        "width": None if width is None else str(width),
    }
    return RecoveryResult(n, method, pd.DataFrame(rows), compile_seconds, settings)
