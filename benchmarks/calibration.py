r"""Simulation-based calibration (SBC) of a PyMC model fitted with NUTS (Talts et al., 2018).

SBC checks a whole inference pipeline (model, sampler, sampler settings) against itself. For
each replication, draw the parameters :math:`\tilde\theta` from the prior and data
:math:`\tilde y \sim p(y \mid \tilde\theta)`, fit :math:`p(\theta \mid \tilde y)` with NUTS,
thin the posterior to :math:`L` roughly independent draws and record the rank of
:math:`\tilde\theta` among them, :math:`\#\{\theta_l < \tilde\theta\} \in \{0, \dots, L\}`.
If the posterior is sampled correctly, every rank is uniform on :math:`\{0, \dots, L\}`
(Talts et al., Theorem 1): a ∪-shaped histogram means too-narrow posteriors, a ∩ shape
too-wide ones, a slope a bias. Uniformity is tested with a chi-square test over bins, and
plotted with arviz-plots' ``plot_ecdf_pit`` (the PIT-ECDF with its simultaneous band).

The ranks are kept in simuk's data layout (:meth:`SBCResult.to_datatree`): a DataTree whose
group ``prior_sbc`` holds one variable per parameter, dims ``(chain, draw)`` = (1, reps), so
``simuk``'s and ``arviz_plots``' tools read them. simuk's own ``SBC`` driver builds and
compiles the model for every fit; :func:`run_sbc` compiles it once with nutpie and swaps the
data of each replication into the compiled model, which is what makes 300 NUTS fits affordable.

The steps are plain functions on an ordinary ``pm.Model``::

    model, gp = study_model()              # or any model with one observed variable
    sims = simulate(model, reps=100, seed=1)
    result = run_sbc(model, sims, seed=2)  # compiles once with nutpie, swaps the data per fit
    result.chisquare()                     # statistic and p-value per parameter
    result.save("out/sbc")                 # ranks.csv, summary.json, sbc_ranks.png
    result.to_datatree()                   # the ranks in simuk's layout

:func:`study_model` is the design of ``benchmarks/sbc.py``: a VSK GP (Matérn 5/2 base,
ψ = Jump(0.5)) on 25 Halton nodes in [0, 1], zero mean, with fixed proper priors on the
length scale ℓ, the signal scale σ_f and the noise σ_n (see :func:`study_priors`).

The fits run on nutpie, a dependency of the package.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import arviz_base
import arviz_plots
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pymc as pm
import scipy.stats
import xarray as xr
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.diagnostics import diagnose
from pymc_vsk.models import build_model, inverse_gamma_for_range
from pymc_vsk.scaling import Jump
from pymc_vsk.targets import halton_nodes, jump

__all__ = [
    "SBCResult",
    "Simulations",
    "default_bins",
    "plot_ranks",
    "rank_counts",
    "run_sbc",
    "sbc_rank",
    "simulate",
    "study_model",
    "study_priors",
    "thin",
]

#: Length-scale range of the study prior: 1 % prior mass below, 1 % above.
STUDY_LS_RANGE = (0.05, 1.0)


def study_priors() -> dict[str, TensorVariable]:
    r"""The fixed priors of the SBC study, as ``.dist()`` objects (independent of the data).

    * ``ls`` ~ InverseGamma(α, β) with 1 % of its mass below 0.05 (above the smallest node
      spacing 1/32 of 25 Halton nodes) and 1 % above 1 (the width of the domain);
      α ≈ 2.94, β ≈ 0.415;
    * ``sigma_f`` ~ HalfNormal(1);
    * ``sigma_n`` ~ HalfNormal(0.5).
    """
    alpha, beta = inverse_gamma_for_range(*STUDY_LS_RANGE)
    return {
        "ls": pm.InverseGamma.dist(alpha=alpha, beta=beta),
        "sigma_f": pm.HalfNormal.dist(sigma=1.0),
        "sigma_n": pm.HalfNormal.dist(sigma=0.5),
    }


def study_model(n_nodes: int = 25) -> tuple[pm.Model, pm.gp.Marginal]:
    r"""The VSK GP of the SBC study: y = f(x) + ε on ``n_nodes`` Halton nodes in [0, 1].

    f ~ GP(0, σ_f² κ^Ψ_ℓ) with a Matérn 5/2 base kernel on the lifted inputs [x, ψ(x)],
    ψ = Jump(0.5) (eq. 13), ε ~ N(0, σ_n²), priors from :func:`study_priors`. The mean is
    zero: the study calibrates the three covariance hyper-parameters, and a constant mean is
    nearly confounded with a long-ℓ GP, which slows NUTS without testing anything about the
    VSK. The observations are a placeholder (the jump target); SBC replaces them.

    Returns
    -------
    model, gp
        As :func:`pymc_vsk.models.build_model`; the data containers are ``X`` and ``y_data``.
    """
    X = halton_nodes(n_nodes)
    return build_model(
        X, jump(X), psi=Jump(0.5), kernel="matern52", priors=study_priors(), mean="zero"
    )


@dataclass
class Simulations:
    """Parameters drawn from the prior and data drawn given them.

    Attributes
    ----------
    truth : pandas.DataFrame, shape (reps, n_params)
        One row per replication, one column per (scalar) parameter.
    data : ndarray, shape (reps, n)
        The simulated observations, row ``i`` drawn given ``truth.iloc[i]``.
    """

    truth: pd.DataFrame
    data: np.ndarray

    def __len__(self) -> int:
        return len(self.truth)


def _observed(model: pm.Model, observed: str | None) -> TensorVariable:
    if observed is not None:
        return model[observed]
    if len(model.observed_RVs) != 1:
        names = [rv.name for rv in model.observed_RVs]
        raise ValueError(f"The model has observed variables {names}; pass observed=<name>.")
    return model.observed_RVs[0]


def simulate(
    model: pm.Model,
    reps: int,
    *,
    var_names: Sequence[str] | None = None,
    observed: str | None = None,
    seed: int | None = 0,
) -> Simulations:
    """Draw ``reps`` parameter sets from the prior and one data set for each.

    This is the model's own prior predictive (``pm.sample_prior_predictive``): the data are
    drawn from exactly the distribution the fit evaluates, jitter included.

    Parameters
    ----------
    model : pm.Model
        A model with one observed variable (or name it with ``observed``).
    reps : int
        Number of replications.
    var_names : sequence of str, optional
        Scalar parameters to record (default: every free variable).
    observed : str, optional
        Name of the observed variable.
    seed : int, optional
        Random seed.
    """
    obs = _observed(model, observed)
    names = list(var_names) if var_names is not None else [rv.name for rv in model.free_RVs]
    with model:
        draws = pm.sample_prior_predictive(
            draws=reps, var_names=[*names, obs.name], random_seed=seed
        )
    prior = draws["prior"]
    truth = {}
    for name in names:
        values = np.asarray(prior[name].values)[0]
        if values.shape != (reps,):
            shape = values.shape[1:]
            raise ValueError(f"SBC here handles scalar parameters; {name} has shape {shape}.")
        truth[name] = values
    data = np.asarray(draws["prior_predictive"][obs.name].values)[0]
    return Simulations(pd.DataFrame(truth), data.reshape(reps, -1))


def thin(draws: np.ndarray, n_thinned: int) -> np.ndarray:
    """``n_thinned`` draws evenly spaced over the chains' concatenated draws.

    Parameters
    ----------
    draws : array, shape (chains, draws) or (draws,)
        Posterior draws of one scalar parameter.
    n_thinned : int
        L, the number of draws kept: every ≈ (chains · draws / L)-th draw, so with L well
        below the effective sample size the kept draws are roughly independent.
    """
    flat = np.asarray(draws, dtype=float).ravel()
    if not 0 < n_thinned <= flat.size:
        raise ValueError(f"Cannot keep {n_thinned} of {flat.size} draws.")
    return flat[np.round(np.linspace(0, flat.size - 1, n_thinned)).astype(int)]


def sbc_rank(draws: np.ndarray, truth: float, n_thinned: int) -> int:
    """Rank of ``truth`` among the thinned draws: the number of them below it, in [0, L].

    Parameters
    ----------
    draws : array, shape (chains, draws) or (draws,)
        Posterior draws of one scalar parameter.
    truth : float
        The value drawn from the prior.
    n_thinned : int
        L.

    Returns
    -------
    int
    """
    return int(np.sum(thin(draws, n_thinned) < truth))


def default_bins(reps: int, n_thinned: int) -> int:
    """Most bins that divide the L + 1 rank values evenly with ≥ 10 expected ranks in each.

    Parameters
    ----------
    reps : int
        Replications.
    n_thinned : int
        L.

    Returns
    -------
    int
    """
    divisors = [b for b in range(2, n_thinned + 2) if (n_thinned + 1) % b == 0]
    fitting = [b for b in divisors if reps / b >= 10]
    return max(fitting) if fitting else min(divisors)


def rank_counts(ranks: np.ndarray, n_thinned: int, bins: int) -> np.ndarray:
    """Counts of ranks in ``bins`` equal bins of the rank values {0, ..., L}.

    ``bins`` must divide L + 1, so that every bin holds as many rank values and has the same
    probability under uniformity.

    Parameters
    ----------
    ranks : array of int, shape (reps,)
    n_thinned : int
        L.
    bins : int
        Number of bins; divides L + 1.

    Returns
    -------
    array of int, shape (bins,)
    """
    ranks = np.asarray(ranks, dtype=int)
    if (n_thinned + 1) % bins:
        raise ValueError(f"bins = {bins} does not divide the L + 1 = {n_thinned + 1} rank values.")
    if ranks.size and (ranks.min() < 0 or ranks.max() > n_thinned):
        raise ValueError(f"Ranks must lie in [0, {n_thinned}].")
    return np.bincount(ranks * bins // (n_thinned + 1), minlength=bins)


@dataclass
class SBCResult:
    """Ranks and fit diagnostics of an SBC run (:func:`run_sbc`).

    Attributes
    ----------
    truth : pandas.DataFrame, shape (reps, n_params)
        Prior draws, one row per replication.
    ranks : pandas.DataFrame, shape (reps, n_params)
        Rank of each true value among the L thinned posterior draws, in [0, L].
    posterior_median : pandas.DataFrame, shape (reps, n_params)
    fits : pandas.DataFrame, shape (reps, ...)
        Per replication: ``divergences``, ``r_hat_max``, ``ess_bulk_min``, ``ess_tail_min``
        (over the parameters), ``modes`` (1 when :func:`~pymc_vsk.diagnostics.diagnose`
        found chains in different modes) and ``seconds`` (NUTS wall time).
    n_thinned : int
        L.
    compile_seconds : float
        Time to compile the model with nutpie (once).
    settings : dict
        Sampler settings and seed.
    """

    truth: pd.DataFrame
    ranks: pd.DataFrame
    posterior_median: pd.DataFrame
    fits: pd.DataFrame
    n_thinned: int
    compile_seconds: float
    settings: dict[str, int | float] = field(default_factory=dict)

    @property
    def reps(self) -> int:
        """Number of replications."""
        return len(self.ranks)

    def chisquare(self, bins: int | None = None) -> pd.DataFrame:
        """Chi-square test of uniform ranks per parameter (``scipy.stats.chisquare``).

        Parameters
        ----------
        bins : int, optional
            Number of bins; must divide L + 1. Default :func:`default_bins`.

        Returns
        -------
        pandas.DataFrame
            Index: parameters; columns ``statistic``, ``p_value``, ``bins``, ``dof``.
        """
        bins = default_bins(self.reps, self.n_thinned) if bins is None else bins
        rows = {}
        for name in self.ranks:
            counts = rank_counts(self.ranks[name].to_numpy(), self.n_thinned, bins)
            test = scipy.stats.chisquare(counts)
            rows[name] = {
                "statistic": float(test.statistic),
                "p_value": float(test.pvalue),
                "bins": bins,
                "dof": bins - 1,
            }
        return pd.DataFrame(rows).T.astype({"bins": int, "dof": int})

    def summary(self, bins: int | None = None) -> dict[str, object]:
        """Chi-square tests, divergences, r̂, ESS and timings as a JSON-ready dict.

        Parameters
        ----------
        bins : int, optional
            Chi-square bins (:meth:`chisquare`).

        Returns
        -------
        dict
        """
        fits = self.fits
        seconds = fits["seconds"]
        return {
            "reps": self.reps,
            "n_thinned": self.n_thinned,
            "chisquare": self.chisquare(bins).to_dict(orient="index"),
            "divergences_total": int(fits["divergences"].sum()),
            "reps_with_divergences": int((fits["divergences"] > 0).sum()),
            "r_hat_max": float(fits["r_hat_max"].max()),
            "r_hat_median": float(fits["r_hat_max"].median()),
            "reps_r_hat_above_1.01": int((fits["r_hat_max"] > 1.01).sum()),
            "reps_chains_in_different_modes": int(fits["modes"].sum()),
            "ess_bulk_min": float(fits["ess_bulk_min"].min()),
            "reps_ess_bulk_below_L": int((fits["ess_bulk_min"] < self.n_thinned).sum()),
            "compile_seconds": self.compile_seconds,
            "sampling_seconds_total": float(seconds.sum()),
            "sampling_seconds_per_rep_mean": float(seconds.mean()),
            "sampling_seconds_per_rep_median": float(seconds.median()),
            "settings": self.settings,
        }

    def table(self) -> pd.DataFrame:
        """One row per replication: truth, rank and posterior median per parameter, and fits."""
        parts = [
            self.truth.add_suffix("_true"),
            self.ranks.add_suffix("_rank"),
            self.posterior_median.add_suffix("_median"),
            self.fits,
        ]
        return pd.concat(parts, axis=1).rename_axis("rep")

    def to_datatree(self) -> xr.DataTree:
        """The ranks in simuk's layout: group ``prior_sbc``, one (1, reps) array per parameter.

        Returns
        -------
        xarray.DataTree
            As ``simuk.SBC(...).simulations`` after ``run_simulations()``: dims ``chain``
            (length 1) and ``draw`` (the replications), integer ranks in [0, L].
        """
        ranks = {name: self.ranks[name].to_numpy()[None, :] for name in self.ranks}
        return arviz_base.from_dict(
            {"prior_sbc": ranks},
            attrs={"/": {"inference_library": "nutpie", "n_thinned": self.n_thinned}},
        )

    def save(self, out: str | Path, bins: int | None = None) -> list[Path]:
        """Write ``ranks.csv`` (:meth:`table`), ``summary.json`` and ``sbc_ranks.png``.

        Parameters
        ----------
        out : str or Path
            Directory, created if needed.
        bins : int, optional
            Chi-square bins of the summary (:meth:`chisquare`).

        Returns
        -------
        list of Path
            The three files.
        """
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "ranks.csv", out / "summary.json", out / "sbc_ranks.png"]
        self.table().to_csv(paths[0])
        paths[1].write_text(json.dumps(self.summary(bins), indent=2) + "\n")
        plot = plot_ranks(self)
        plot.savefig(paths[2], dpi=120)
        plt.close(plot.get_viz("figure"))  # arviz-plots draws with pyplot: release the figure
        return paths


def run_sbc(
    model: pm.Model,
    simulations: Simulations,
    *,
    observed: str | None = None,
    n_thinned: int = 99,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    cores: int = 2,
    target_accept: float = 0.95,
    seed: int = 0,
    progress: Callable[[int, Mapping[str, float]], None] | None = None,
) -> SBCResult:
    """Fit every simulated data set with NUTS (nutpie) and rank the true parameters.

    The model is compiled once; each replication swaps its data into the compiled model
    (``CompiledPyMCModel.with_data``), so nothing is rebuilt or recompiled.

    Parameters
    ----------
    model : pm.Model
        The model the data were simulated from; its observed data must be a ``pm.Data``
        container (as in :func:`pymc_vsk.models.build_model`).
    simulations : Simulations
        From :func:`simulate`; its columns are the parameters ranked.
    observed : str, optional
        Name of the observed variable, if the model has several.
    n_thinned : int, default 99
        L, posterior draws kept per fit (:func:`thin`); ranks lie in [0, L].
    draws, tune, chains, cores : int
        NUTS settings per fit (draws and tuning steps per chain).
    target_accept : float, default 0.95
        Step-size adaptation target; 0.95 removes the divergences 0.8 gives near σ_n → 0.
    seed : int, default 0
        Seeds the fits: replication ``i`` uses a seed drawn from ``SeedSequence(seed)``.
    progress : callable, optional
        Called after each fit with the replication index and its row of fit diagnostics.
    """
    import nutpie  # a dependency; imported here because it loads slowly

    from pymc_vsk.samplers import compiled_nutpie

    obs = _observed(model, observed)
    data_var = model.rvs_to_values[obs]
    if data_var not in model.data_vars:
        raise ValueError(f"The observed data of {obs.name} must be a pm.Data container.")
    names = list(simulations.truth.columns)
    if chains * draws < n_thinned:
        raise ValueError(f"{chains} × {draws} draws cannot be thinned to L = {n_thinned}.")

    start = time.perf_counter()
    compiled = compiled_nutpie(model)
    compile_seconds = time.perf_counter() - start

    seeds = np.random.SeedSequence(seed).generate_state(len(simulations))
    ranks, medians, fits = [], [], []
    for i, y in enumerate(simulations.data):
        truth = simulations.truth.iloc[i]
        start = time.perf_counter()
        idata = nutpie.sample(
            compiled.with_data(**{data_var.name: y}),
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            seed=int(seeds[i]),
            target_accept=target_accept,
            progress_bar=False,
        )
        seconds = time.perf_counter() - start
        post = idata["posterior"]
        ranks.append({n: sbc_rank(post[n].values, truth[n], n_thinned) for n in names})
        medians.append({n: float(np.median(post[n].values)) for n in names})
        diag = diagnose(idata, names)
        fit = {
            "divergences": diag.divergences,
            "r_hat_max": float(diag.table["r_hat"].max()),
            "ess_bulk_min": float(diag.table["ess_bulk"].min()),
            "ess_tail_min": float(diag.table["ess_tail"].min()),
            "modes": int(bool(diag.modes)),
            "seconds": seconds,
            "seed": int(seeds[i]),
        }
        fits.append(fit)
        if progress is not None:
            progress(i, {**fit, **{f"{n}_rank": r for n, r in ranks[-1].items()}})

    settings = {
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "cores": cores,
        "target_accept": target_accept,
        "seed": seed,
    }
    return SBCResult(
        truth=simulations.truth.copy(),
        ranks=pd.DataFrame(ranks, columns=names),
        posterior_median=pd.DataFrame(medians, columns=names),
        fits=pd.DataFrame(fits),
        n_thinned=n_thinned,
        compile_seconds=compile_seconds,
        settings=settings,
    )


def plot_ranks(result: SBCResult) -> arviz_plots.PlotCollection:
    """The PIT-ECDF of each parameter's ranks with arviz-plots' ``plot_ecdf_pit``.

    One panel per parameter: the ECDF of the ranks (as PIT values) minus the uniform CDF, the
    simultaneous band of uniformity and the points that depart from it (Säilynoja et al.,
    2022); a ∪-shaped histogram (too-narrow posteriors) shows as an S, a bias as a one-sided
    bulge.

    Parameters
    ----------
    result : SBCResult

    Returns
    -------
    arviz_plots.PlotCollection
        Saved with ``.savefig(path)``.
    """
    return arviz_plots.plot_ecdf_pit(result.to_datatree(), group="prior_sbc", backend="matplotlib")
