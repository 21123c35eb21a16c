r"""VSK GP regression at N = 2 000 … 20 000: HSGP and VFE, MAP and NUTS, time and peak memory.

    python benchmarks/large_n.py                  # N = 2 000, 5 000, 10 000, 20 000
    python benchmarks/large_n.py --quick          # N = 1 000, 2 000, short NUTS
    python benchmarks/large_n.py --nodes 20000 --out out/large_n

Data: x ~ U[0, 1] (seeded), y = f(x) + N(0, 0.25²) with f the jump target of Section 4.1;
ψ = Jump(0.5). Every model uses the same VSK: an ExpQuad base kernel on the lifted inputs
[x, ψ(x)] with one length scale ℓ for x (estimated) and ℓ_ψ = 0.5 for the ψ coordinate (fixed,
so the two sides of the jump correlate by exp(−2) ≈ 0.14 at most), σ_f, σ_n and a constant
mean, with weakly informative priors (ℓ ~ InverseGamma with 1 % below 0.01 and 1 % above 1;
σ_f ~ HalfNormal(2 sd y), σ_n ~ HalfNormal(sd y), mean ~ Normal(mean y, 2 sd y)).

Methods, each in a fresh Python process per N (so ``ru_maxrss`` is that run's peak memory):

* **HSGP** — :class:`pymc_vsk.hsgp.CollapsedLiftedHSGP` with m = (40, 6) basis functions on the
  box L = (0.7, 1.5) around the centred lifted inputs (M = 240; the covariance is within 3e-3 of
  the exact one for ℓ ≥ 0.04 and this ℓ_ψ). The basis weights are integrated out: an
  O(n M²) precomputation, then O(M³) per log density, independent of n. MAP
  (:func:`pymc_vsk.fit_map`, 4 starts) and NUTS (nutpie, compiled once).
* **VFE** — ``pm.gp.MarginalApprox`` with the VSK and 48 quantile + 2 jump-edge inducing
  inputs (:func:`pymc_vsk.sparse.inducing_points`): O(n m²) per log density. MAP.
* **dense** — the exact VSK likelihood (:func:`pymc_vsk.build_model`'s), at the first N only,
  as the accuracy reference: hyper-parameters and the RMSE of the predictive mean against f on
  1 000 grid points.

The cost against N is summarised by the least-squares slope of log(time) against log(N) for
each stage (1 = linear). The output directory receives ``large_n.json`` and ``large_n.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

    from pymc_vsk.hsgp import CollapsedLiftedHSGP

#: Node counts of the full run.
NODES = (2000, 5000, 10000, 20000)
#: Noise std and the fixed length scale of the ψ coordinate.
NOISE_STD, LS_PSI = 0.25, 0.5
#: HSGP basis functions per lifted coordinate and box half-widths.
HSGP_M, HSGP_L = (40, 6), (0.7, 1.5)
#: VFE inducing inputs: quantiles (jump edges are added).
VFE_POINTS = 48
#: Grid for the RMSE against the true function.
GRID = 1000
PARAMS = ("ls", "sigma_f", "sigma_n", "mean")


def jump_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """x ~ U[0, 1] (sorted) and y = f(x) + N(0, 0.25²).

    Parameters
    ----------
    n : int
        Number of points.
    seed : int, default 0

    Returns
    -------
    X : array, shape (n, 1)
    y : array, shape (n,)
    """
    from pymc_vsk import targets

    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0.0, 1.0, n))[:, None]
    return X, targets.jump(X) + NOISE_STD * rng.standard_normal(n)


def _priors(y: np.ndarray) -> dict[str, Any]:
    import pymc as pm

    from pymc_vsk.models import inverse_gamma_for_range

    alpha, beta = inverse_gamma_for_range(0.01, 1.0)
    sd = float(np.std(y))
    return {
        "ls": pm.InverseGamma.dist(alpha=alpha, beta=beta),
        "sigma_f": pm.HalfNormal.dist(sigma=2.0 * sd),
        "sigma_n": pm.HalfNormal.dist(sigma=sd),
        "mean": pm.Normal.dist(mu=float(np.mean(y)), sigma=2.0 * sd),
    }


def _parameters(y: np.ndarray) -> dict[str, Any]:
    import pymc as pm

    model = pm.modelcontext(None)
    return {name: model.register_rv(dist, name) for name, dist in _priors(y).items()}


def _base_kernel(ls: Any) -> Any:
    import pymc as pm
    import pytensor.tensor as pt

    return pm.gp.cov.ExpQuad(2, ls=pt.stack([ls, pt.as_tensor_variable(LS_PSI)]))


def hsgp_model(
    X: np.ndarray, y: np.ndarray, psi: Callable[[], Any] | None = None
) -> tuple[pm.Model, CollapsedLiftedHSGP]:
    """The collapsed HSGP VSK model; returns the model and the GP.

    Parameters
    ----------
    X : array, shape (n, 1)
    y : array, shape (n,)
    psi : callable, optional
        Builds the scaling function inside the model (so it may create random variables);
        default ``Jump(0.5)``.

    Returns
    -------
    model, gp
    """
    import pymc as pm

    from pymc_vsk.hsgp import CollapsedLiftedHSGP
    from pymc_vsk.scaling import Jump

    with pm.Model() as model:
        scaling = Jump(0.5) if psi is None else psi()
        p = _parameters(y)
        cov = p["sigma_f"] ** 2 * _base_kernel(p["ls"])
        gp = CollapsedLiftedHSGP(list(HSGP_M), scaling, cov_func=cov, L=list(HSGP_L))
        gp.marginal_likelihood("y", X, y, sigma=p["sigma_n"], mean=p["mean"])
    return model, gp


def vfe_model(X: np.ndarray, y: np.ndarray) -> tuple[pm.Model, pm.gp.MarginalApprox]:
    """``pm.gp.MarginalApprox`` (VFE) with the VSK and jump-aware inducing inputs.

    Parameters
    ----------
    X : array, shape (n, 1)
    y : array, shape (n,)

    Returns
    -------
    model, gp
    """
    import pymc as pm

    from pymc_vsk import VSK
    from pymc_vsk.scaling import Jump
    from pymc_vsk.sparse import inducing_points

    with pm.Model() as model:
        p = _parameters(y)
        cov = p["sigma_f"] ** 2 * VSK(_base_kernel(p["ls"]), Jump(0.5))
        gp = pm.gp.MarginalApprox(
            approx="VFE", mean_func=pm.gp.mean.Constant(p["mean"]), cov_func=cov
        )
        Xu = inducing_points(X, VFE_POINTS, Jump(0.5))
        gp.marginal_likelihood("y", X=X, Xu=Xu, y=y, sigma=p["sigma_n"])
    return model, gp


def dense_model(X: np.ndarray, y: np.ndarray) -> tuple[pm.Model, pm.gp.Marginal]:
    """The exact VSK model (``build_model`` with the same kernel and priors).

    Parameters
    ----------
    X : array, shape (n, 1)
    y : array, shape (n,)

    Returns
    -------
    model, gp
    """
    import pymc as pm

    from pymc_vsk import build_model
    from pymc_vsk.scaling import Jump

    priors = _priors(y)
    with pm.Model() as model:
        ls = model.register_rv(priors.pop("ls"), "ls")
        _, gp = build_model(X, y, psi=Jump(0.5), kernel=_base_kernel(ls), priors=priors)
    return model, gp


def _starts(y: np.ndarray) -> list[dict[str, float]]:
    sd, mean = float(np.std(y)), float(np.mean(y))
    return [
        {"ls": ls, "sigma_f": sd, "sigma_n": s * sd, "mean": mean}
        for ls, s in ((0.03, 0.2), (0.1, 0.5), (0.3, 0.2), (0.6, 0.5))
    ]


def _rss_mb() -> float:
    """Peak resident memory of this process so far, MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rmse(mean: np.ndarray, grid: np.ndarray) -> float:
    from pymc_vsk import targets

    return float(np.sqrt(np.mean((np.asarray(mean) - targets.jump(grid)) ** 2)))


def _hsgp_predictor(model: Any, gp: Any, grid: np.ndarray) -> Any:
    import pymc as pm

    mean, _ = gp.predict_moments(grid)
    rvs = [model[name] for name in PARAMS]
    return pm.pytensorf.compile(rvs, mean, on_unused_input="ignore")


# -- one method at one N, in a child process -----------------------------------------------------
def run_child(method: str, n: int, nuts: dict[str, int], start: dict[str, float] | None) -> dict:
    """Fit one model; everything measured in this (fresh) process.

    Parameters
    ----------
    method : {"hsgp", "vfe", "dense"}
    n : int
        Number of points.
    nuts : dict
        NUTS settings (``draws``, ``tune``, ``chains``); empty for MAP only.
    start : dict, optional
        Starting point of the MAP fit.

    Returns
    -------
    dict
        Timings, memory and fit summaries, JSON-ready.
    """
    from pymc_vsk import fit_map, predict
    from pymc_vsk.blas import blas_threads
    from pymc_vsk.fitting import compiled_objective, initial_point

    out: dict[str, Any] = {"method": method, "N": n, "rss_after_import_mb": _rss_mb()}
    X, y = jump_data(n)
    grid = np.linspace(0.0, 1.0, GRID)[:, None]
    builder = {"hsgp": hsgp_model, "vfe": vfe_model, "dense": dense_model}[method]
    with blas_threads(1):
        t0 = time.perf_counter()
        model, gp = builder(X, y)
        t1 = time.perf_counter()
        objective = compiled_objective(model)
        objective(objective.flatten(initial_point(model)))  # the first call JIT-compiles (Numba)
        objective.n_evals = 0
        t2 = time.perf_counter()
        starts = [start] if start is not None else _starts(y)
        fit = fit_map(model, starts=starts, warn=False)
        t3 = time.perf_counter()
        if method == "hsgp":
            predictor = _hsgp_predictor(model, gp, grid)
            mean = predictor(*(fit.point[name] for name in PARAMS))
        elif method == "vfe":
            mean, _ = gp.predict(grid, point=fit.point, diag=True, model=model)
        else:
            mean = predict(gp, grid, fit.point, model=model).mean
    out.update(
        build_s=t1 - t0,
        compile_s=t2 - t1,
        map_s=t3 - t2,
        map_evals=objective.n_evals,
        map_total_s=t3 - t0,
        map_point={k: float(fit.point[k]) for k in PARAMS},
        map_logp=fit.logp,
        map_rmse=_rmse(mean, grid),
    )
    if method == "hsgp" and nuts["draws"] > 0:
        out.update(_nuts(model, gp, grid, nuts))
    out["peak_rss_mb"] = _rss_mb()
    return out


def _nuts(model: Any, gp: Any, grid: np.ndarray, nuts: dict[str, int]) -> dict[str, Any]:
    import nutpie

    from pymc_vsk import diagnose
    from pymc_vsk.blas import blas_threads
    from pymc_vsk.samplers import compiled_nutpie

    with blas_threads(1):
        t0 = time.perf_counter()
        compiled = compiled_nutpie(model)
        t1 = time.perf_counter()
        idata = nutpie.sample(compiled, cores=2, seed=1, progress_bar=False, **nuts)
        t2 = time.perf_counter()
    diag = diagnose(idata, PARAMS)
    post = idata["posterior"]
    draws = {k: np.asarray(post[k].values).ravel() for k in PARAMS}
    predictor = _hsgp_predictor(model, gp, grid)
    pick = np.random.default_rng(0).choice(len(draws["ls"]), size=100, replace=False)
    mean = np.mean([predictor(*(draws[k][i] for k in PARAMS)) for i in pick], axis=0)
    return {
        "nuts_compile_s": t1 - t0,
        "nuts_sample_s": t2 - t1,
        "nuts_total_s": t2 - t0,
        "nuts_settings": nuts,
        "nuts_ess_bulk_min": float(diag.table["ess_bulk"].min()),
        "nuts_r_hat_max": float(diag.table["r_hat"].max()),
        "nuts_divergences": diag.divergences,
        "nuts_posterior_median": {k: float(np.median(v)) for k, v in draws.items()},
        "nuts_rmse": _rmse(mean, grid),
    }


def child(method: str, n: int, nuts: dict[str, int], start: dict | None = None) -> dict:
    """Run :func:`run_child` in a fresh Python process and return its JSON result.

    Parameters
    ----------
    method : {"hsgp", "vfe", "dense"}
    n : int
        Number of points.
    nuts : dict
        NUTS settings (``draws``, ``tune``, ``chains``); empty for MAP only.
    start : dict, optional
        Starting point of the MAP fit.

    Returns
    -------
    dict
        Timings, memory and fit summaries, JSON-ready.
    """
    args = [sys.executable, __file__, "--child", method, str(n), "--nuts", json.dumps(nuts)]
    if start is not None:
        args += ["--start", json.dumps(start)]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run(args, capture_output=True, text=True, check=False, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{method} at N = {n} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the study -----------------------------------------------------------------------------------
def slope(ns: Sequence[int], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(seconds) against log(N).

    Parameters
    ----------
    ns : sequence of int
    seconds : sequence of float

    Returns
    -------
    float
    """
    return float(np.polyfit(np.log(ns), np.log(seconds), 1)[0])


def study(nodes: Sequence[int], nuts: dict[str, int], dense_n: int | None) -> dict[str, object]:
    """Run every method at every N (and the dense reference at ``dense_n``).

    Parameters
    ----------
    nodes : sequence of int
        Node counts N.
    nuts : dict
        NUTS settings.
    dense_n : int or None
        N of the dense reference fit (none when ``None``).

    Returns
    -------
    dict
    """
    results: dict[str, Any] = {"hsgp": [], "vfe": [], "dense": None, "nuts": nuts}
    for n in nodes:
        for method in ("hsgp", "vfe"):
            res = child(method, n, nuts if method == "hsgp" else {"draws": 0})
            results[method].append(res)
            print(_row(res), flush=True)
    if dense_n is not None:
        hsgp = next((r for r in results["hsgp"] if r["N"] == dense_n), None)
        start = None if hsgp is None else hsgp["map_point"]
        results["dense"] = child("dense", dense_n, {"draws": 0}, start)
        print(_row(results["dense"]), flush=True)
    return results


def _row(r: dict[str, Any]) -> str:
    p = r["map_point"]
    text = (
        f"{r['method']:>5} N = {r['N']:>6}: build {r['build_s']:6.2f} s, compile "
        f"{r['compile_s']:5.2f} s, MAP {r['map_s']:6.2f} s ({r['map_evals']} evals), "
        f"ℓ {p['ls']:.4f} σ_f {p['sigma_f']:.3f} σ_n {p['sigma_n']:.4f} mean {p['mean']:.3f}, "
        f"RMSE {r['map_rmse']:.4f}, peak {r['peak_rss_mb']:.0f} MB"
    )
    if "nuts_total_s" in r:
        text += (
            f"\n{'':>5} NUTS: compile {r['nuts_compile_s']:.1f} s + sample "
            f"{r['nuts_sample_s']:.1f} s, min bulk ESS {r['nuts_ess_bulk_min']:.0f}, max r̂ "
            f"{r['nuts_r_hat_max']:.3f}, {r['nuts_divergences']} divergences, RMSE "
            f"{r['nuts_rmse']:.4f}"
        )
    return text


def summary(results: dict[str, Any]) -> list[str]:
    """Cost slopes, the N = max figures against the budget, accuracy against the dense fit.

    Parameters
    ----------
    results : dict
        From :func:`study`.

    Returns
    -------
    list of str
    """
    lines = []
    hs, vfe = results["hsgp"], results["vfe"]
    ns = [r["N"] for r in hs]
    if len(ns) >= 2:
        stages = {
            "HSGP build (O(n M²) precomputation)": [r["build_s"] for r in hs],
            "HSGP MAP total (build + compile + fit)": [r["map_total_s"] for r in hs],
            "VFE MAP total (build + compile + fit)": [r["map_total_s"] for r in vfe],
            "VFE MAP fit alone": [r["map_s"] for r in vfe],
        }
        if "nuts_total_s" in hs[0]:
            stages["HSGP NUTS (compile + sample)"] = [r["nuts_total_s"] for r in hs]
        lines.append(f"cost against N = {', '.join(map(str, ns))}: log-log slopes (1 = linear)")
        for name, secs in stages.items():
            cells = ", ".join(f"{s:.2f}" for s in secs)
            lines.append(f"  {name:<42} slope {slope(ns, secs):5.2f}   ({cells} s)")
    big = hs[-1]
    total = big["map_total_s"] + big.get("nuts_total_s", 0.0)
    lines.append(
        f"N = {big['N']}: HSGP MAP {big['map_total_s']:.1f} s, NUTS "
        f"{big.get('nuts_total_s', float('nan')):.1f} s (total {total / 60:.1f} min); peak "
        f"memory {max(big['peak_rss_mb'], vfe[-1]['peak_rss_mb']):.0f} MB (budget 2048 MB; "
        f"{big['rss_after_import_mb']:.0f} MB of it is the imported libraries)"
    )
    dense = results["dense"]
    if dense is not None:
        ref = next(r for r in hs if r["N"] == dense["N"])
        ref_vfe = next(r for r in vfe if r["N"] == dense["N"])
        lines.append(f"accuracy at N = {dense['N']} against the dense VSK (MAP):")
        for label, r in (("dense", dense), ("HSGP", ref), ("VFE", ref_vfe)):
            p = r["map_point"]
            rel = {k: p[k] / dense["map_point"][k] - 1 for k in ("ls", "sigma_f", "sigma_n")}
            lines.append(
                f"  {label:<5} ℓ {p['ls']:.4f} ({rel['ls']:+.1%}), σ_f {p['sigma_f']:.3f} "
                f"({rel['sigma_f']:+.1%}), σ_n {p['sigma_n']:.4f} ({rel['sigma_n']:+.1%}), "
                f"mean {p['mean']:.3f}; RMSE vs f {r['map_rmse']:.4f}; "
                f"time {r['map_total_s']:.1f} s"
            )
    return lines


def save(results: dict[str, Any], out: Path) -> list[Path]:
    """Write ``large_n.json`` and ``large_n.csv``.

    Parameters
    ----------
    results : dict
        From :func:`study`.
    out : Path
        Directory, created if needed.

    Returns
    -------
    list of Path
    """
    out.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = out / "large_n.json", out / "large_n.csv"
    json_path.write_text(json.dumps(results, indent=1))
    rows = [*results["hsgp"], *results["vfe"]] + ([results["dense"]] if results["dense"] else [])
    keys = [
        "method",
        "N",
        "build_s",
        "compile_s",
        "map_s",
        "map_total_s",
        "map_rmse",
        "nuts_total_s",
        "nuts_ess_bulk_min",
        "nuts_r_hat_max",
        "nuts_rmse",
        "peak_rss_mb",
    ]
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([*keys, *PARAMS])
        for r in rows:
            writer.writerow([r.get(k, "") for k in keys] + [r["map_point"][k] for k in PARAMS])
    return [json_path, csv_path]


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of the study."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1000, 2000 and short NUTS")
    parser.add_argument("--nodes", type=int, nargs="+", help=f"node counts (default {NODES})")
    parser.add_argument("--dense-n", type=int, help="N of the dense reference (default: first)")
    parser.add_argument("--draws", type=int, help="NUTS draws per chain (default 1000)")
    parser.add_argument("--tune", type=int, help="NUTS tuning steps per chain (default 1000)")
    parser.add_argument("--chains", type=int, default=4, help="NUTS chains (default 4)")
    parser.add_argument("--out", type=Path, default=Path("out/large_n"), help="output directory")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--nuts", help=argparse.SUPPRESS)
    parser.add_argument("--start", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study (or, with ``--child``, one fit in this process), print and save.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status.
    """
    args = build_parser().parse_args(argv)
    if args.child:
        nuts = json.loads(args.nuts)
        start = json.loads(args.start) if args.start else None
        print(json.dumps(run_child(args.child[0], int(args.child[1]), nuts, start)))
        return 0
    quick = args.quick
    nodes = args.nodes or ((1000, 2000) if quick else NODES)
    draws = args.draws or (200 if quick else 1000)
    tune = args.tune or (200 if quick else 1000)
    nuts = {"draws": draws, "tune": tune, "chains": args.chains}
    dense_n = args.dense_n or nodes[0]
    load = os.getloadavg()
    print(
        f"VSK at large N: HSGP (M = {HSGP_M[0]} x {HSGP_M[1]}) MAP + NUTS ({args.chains} chains "
        f"x ({tune} + {draws})), VFE ({VFE_POINTS} + 2 inducing inputs) MAP, dense at "
        f"N = {dense_n}; {os.cpu_count()} cores, load average {load[0]:.2f}, {load[1]:.2f}, "
        f"{load[2]:.2f}"
    )
    results = study(nodes, nuts, dense_n)
    results["load_average"] = {"start": load, "end": os.getloadavg()}
    print()
    for line in summary(results):
        print(line)
    end = results["load_average"]["end"]
    print(f"load average at end: {end[0]:.2f}, {end[1]:.2f}, {end[2]:.2f}")
    for path in save(results, args.out):
        print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
