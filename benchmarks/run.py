r"""Performance benchmarks: every ratio measured in one run and printed against its goal.

    python benchmarks/run.py                 # full run
    python benchmarks/run.py --quick         # smoke run, small sizes
    python benchmarks/run.py --out out/bench # where raw.json and ratios.csv go

What is measured (data: the jump target of Section 4.1 on the first N Halton nodes, noise std
0.25; Matérn 5/2 base kernel; ψ = Jump(0.5)):

1. **logp + gradient**, N = 81, 400, 800: the VSK against the stationary kernel, both in
   PyMC's own ``pm.gp.Marginal`` (what a user writing the model by hand gets) and both in
   :func:`pymc_vsk.build_model` (whose likelihood has a cheaper gradient). Goal ≤ 1.1. And
   the objective on pytensor's Python path against Numba (what ``fit_map`` chooses between).
2. **the numpy/scipy floor** at N = 800: the linear algebra a log density and its gradient
   cannot avoid (Cholesky factor, ``cho_solve`` for α = K⁻¹r, and the inverse K⁻¹ the gradient
   needs), (A) with LAPACK's ``potri`` (the cheapest inverse from the factor) and (B) with
   ``cho_solve(L, I)`` (what scikit-learn does); and (C) a complete hand-written numpy log
   density + gradient. Goal ≤ 1.5 (the objective compiled with Numba, as a sweep runs it).
3. **MAP against scikit-learn** (``GaussianProcessRegressor`` on the lifted features, the same
   data, starts, jitter and L-BFGS-B tolerances; flat priors so MAP is the MLE): warm
   (compiled) goal ≤ 3×. **First fit**: a fresh Python process (imports, model, compilation,
   an 8-start fit at N = 81) against scikit-learn's whole process on the same data, three
   interleaved rounds: with warm on-disk caches goal ≤ 1.5×, with empty compilation caches
   (fresh ``compiledir`` and ``NUMBA_CACHE_DIR``) goal ≤ 3×; and the first
   ``pymc-vsk reproduce table2 --seeds 3`` with empty caches, goal ≤ 10 s. **First jump
   detection**: ``pymc-vsk detect-jumps`` on 100 points in a fresh process, with empty
   caches and with the caches it wrote, three alternating rounds: goal ≤ 30 s.
4. **NUTS ESS per second**, N = 81 VSK model with the default priors: nutpie against the PyMC
   sampler (and numpyro / blackjax through PyMC's JAX path when installed, full run only).
   And (4b) **the sampler chosen by workload** (:func:`pymc_vsk.samplers.choose_sampler`)
   against nutpie (compile + sample) and PyMC's sampler, each in a fresh process, for
   4 × (1000 + 1000) and 2 × (300 + 300) at N = 81 and 2 × (300 + 300) at N = 200: goal ≤ the
   slower, ideally ≈ the faster.
5. **the Figure 4 sweep** (N = 30 … 790, both kernels, one seed), total wall time.

Every timing ratio comes from repeated, interleaved measurements of the compared functions:
the ratio of the medians of the per-call process CPU times (the wall times are saved too; on a
shared machine CPU time does not count waiting for a core). BLAS runs on one thread. The
machine (CPU, cores, load average at start and end, library versions) is printed and saved
with the raw timings: ``raw.json`` (everything) and ``ratios.csv`` (one row per figure, with
its goal).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

    from pymc_vsk.scaling import ScalingFunction

#: Node counts of the logp + gradient comparison.
LOGP_NODES = (81, 400, 800)
#: Node count of the floor comparison.
FLOOR_NODES = 800
#: Noise std of the jump data (Section 4.1.2).
NOISE_STD = 0.25
#: Hyper-parameters at which log densities are timed (near the MLE of the jump data).
POINT = {"ls": 0.07, "sigma_f": 1.5, "sigma_n": 0.3, "mean": 1.5}
#: Diagonal jitter, as PyMC's default (and ``build_model``'s).
JITTER = 1e-6
#: The NUTS run (N, chains, tune steps, draws per chain) that the goal "nutpie (compile +
#: sample) no slower than PyMC's sampler" is set for: long enough for nutpie's compilation
#: to pay for itself. Shorter runs (the quick mode's) report the ratio without judging it.
NUTS_GOAL_RUN = (81, 4, 1000, 1000)
#: Packages whose versions describe the run.
PACKAGES = (
    "pymc",
    "pytensor",
    "numpy",
    "scipy",
    "numba",
    "nutpie",
    "scikit-learn",
    "arviz",
    "jax",
    "numpyro",
    "blackjax",
)


@dataclass
class Figure:
    """One reported figure and its goal."""

    section: str
    name: str
    value: float
    goal: str = ""
    met: bool | None = None
    unit: str = "×"
    detail: str = ""

    def line(self) -> str:
        """The figure's row of the printed table: name, value, goal, whether met, detail."""
        status = {True: "met", False: "MISSED", None: ""}[self.met]
        value = f"{self.value:.3g} {self.unit}".strip()
        return f"  {self.name:<58} {value:>12}  {self.goal:<9} {status:<6} {self.detail}"


@dataclass
class Report:
    """All figures, raw timings and the machine description of one run."""

    machine: dict[str, object]
    figures: list[Figure] = field(default_factory=list)
    raw: dict[str, object] = field(default_factory=dict)

    def add(self, *figures: Figure) -> None:
        """Record figures and print their rows.

        Parameters
        ----------
        *figures : Figure
            Measured figures.
        """
        self.figures.extend(figures)
        for fig in figures:
            print(fig.line(), flush=True)

    def save(self, out: Path) -> list[Path]:
        """Write ``raw.json`` (every timing and the machine) and ``ratios.csv`` (the figures).

        Parameters
        ----------
        out : Path
            Directory, created if needed.

        Returns
        -------
        list of Path
        """
        out.mkdir(parents=True, exist_ok=True)
        raw_path, csv_path = out / "raw.json", out / "ratios.csv"
        payload = {
            "machine": self.machine,
            "figures": [asdict(f) for f in self.figures],
            "raw": self.raw,
        }
        raw_path.write_text(json.dumps(payload, indent=1, default=_json_default))
        with csv_path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["section", "name", "value", "unit", "goal", "met", "detail"])
            for f in self.figures:
                met = "" if f.met is None else str(f.met)
                writer.writerow(
                    [f.section, f.name, f"{f.value:.6g}", f.unit, f.goal, met, f.detail]
                )
        return [raw_path, csv_path]


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


# -- machine ----------------------------------------------------------------------------------
def machine_description() -> dict[str, object]:
    """CPU model, cores, load average, Python and library versions, BLAS."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    try:
        from threadpoolctl import threadpool_info

        blas = [
            f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        ]
    except Exception:  # threadpoolctl is a dependency, but keep the benchmark running
        blas = []
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": cpu,
        "logical_cores": os.cpu_count(),
        "usable_cores": affinity,
        "load_average_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
        "blas": blas,
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
    }


def format_machine(m: Mapping[str, object]) -> str:
    """The machine and versions, as printed above the figures.

    Parameters
    ----------
    m : dict
        The machine description.

    Returns
    -------
    str
    """
    load = m.get("load_average_start")
    load_text = "n/a" if load is None else ", ".join(f"{v:.2f}" for v in load)
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v)
    lines = [
        f"CPU: {m['cpu']}; {m['logical_cores']} logical cores ({m['usable_cores']} usable)",
        f"load average at start (1, 5, 15 min): {load_text}",
        f"Python {m['python']} on {m['platform']}",
        f"versions: {versions}",
        f"BLAS: {'; '.join(m['blas']) or 'unknown'} — limited to 1 thread for every timing",
    ]
    if "load_average_end" in m:
        lines.append("load average at end: " + ", ".join(f"{v:.2f}" for v in m["load_average_end"]))
    return "\n".join(lines)


# -- timing -----------------------------------------------------------------------------------
@dataclass
class Timings:
    """Per-call seconds of each function, by process CPU time and by wall time."""

    cpu: dict[str, np.ndarray]
    wall: dict[str, np.ndarray]

    def ratio(self, num: str, den: str) -> float:
        """Median CPU time of ``num`` over that of ``den``."""
        return float(np.median(self.cpu[num]) / np.median(self.cpu[den]))

    def median_ms(self) -> dict[str, float]:
        """Median CPU time per call of each function, in milliseconds."""
        return {k: 1e3 * float(np.median(v)) for k, v in self.cpu.items()}

    def raw(self) -> dict[str, dict[str, list[float]]]:
        """Every timing (CPU and wall seconds per call), JSON-ready."""
        return {"cpu_seconds": self.cpu, "wall_seconds": self.wall}


def interleaved(
    fns: Mapping[str, Callable[[], object]], repeats: int, min_seconds: float = 0.05
) -> Timings:
    """Per-call seconds of each function over ``repeats`` interleaved rounds.

    Each function is called once to warm up; then every round times each function once (in
    alternating order), looping it enough times for the round to last ``min_seconds``. Both
    the process CPU time and the wall time are recorded; ratios use the CPU time, which on a
    shared machine does not count the time the process waits for a core (BLAS and the
    compiled functions run on this one thread).

    Parameters
    ----------
    fns : dict of name -> callable
        Functions without arguments.
    repeats : int
        Interleaved rounds.
    min_seconds : float, default 0.05
        Least time per measurement (calls are repeated within a round to reach it).

    Returns
    -------
    Timings
    """
    loops = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        once = time.perf_counter() - start
        loops[name] = max(1, int(np.ceil(min_seconds / max(once, 1e-7))))
    cpu: dict[str, list[float]] = {name: [] for name in fns}
    wall: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for r in range(repeats):
        for name in names if r % 2 == 0 else names[::-1]:
            fn, k = fns[name], loops[name]
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(k):
                fn()
            cpu[name].append((time.process_time() - start_cpu) / k)
            wall[name].append((time.perf_counter() - start) / k)
    return Timings(
        {k: np.asarray(v) for k, v in cpu.items()}, {k: np.asarray(v) for k, v in wall.items()}
    )


# -- data and models --------------------------------------------------------------------------
def jump_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The first n Halton nodes and y = f(x) + N(0, 0.25²) noise (Section 4.1.2).

    Parameters
    ----------
    n : int
        Number of nodes.
    seed : int, default 0
        Seed of the noise.

    Returns
    -------
    X : array, shape (n, 1)
    y : array, shape (n,)
    """
    from pymc_vsk import targets

    X = targets.halton_nodes(n)
    return X, targets.jump(X) + NOISE_STD * np.random.default_rng(seed).standard_normal(n)


def pymc_marginal_model(
    X: np.ndarray, y: np.ndarray, psi: ScalingFunction | None = None, mean: bool = True
) -> tuple[pm.Model, pm.gp.Marginal]:
    """PyMC's own ``pm.gp.Marginal`` with flat priors: Matérn 5/2 on x, or the VSK with ψ.

    Parameters
    ----------
    X : array, shape (n, 1)
    y : array, shape (n,)
    psi : ScalingFunction, optional
        ψ of the VSK; stationary when omitted.
    mean : bool, default True
        A constant mean.

    Returns
    -------
    model, gp
    """
    import pymc as pm

    from pymc_vsk import VSK

    with pm.Model() as model:
        ls = pm.HalfFlat("ls")
        sigma_f = pm.HalfFlat("sigma_f")
        sigma_n = pm.HalfFlat("sigma_n")
        mean_func = pm.gp.mean.Constant(pm.Flat("mean")) if mean else pm.gp.mean.Zero()
        base = pm.gp.cov.Matern52(X.shape[1] + (psi is not None), ls=ls)
        cov = base if psi is None else VSK(base, psi)
        gp = pm.gp.Marginal(mean_func=mean_func, cov_func=sigma_f**2 * cov)
        gp.marginal_likelihood(
            "y", X=pm.Data("X", X), y=pm.Data("y_data", y), sigma=sigma_n, jitter=JITTER
        )
    return model


def _theta(objective: Any, model: Any, values: Mapping[str, float]) -> np.ndarray:
    point = dict(model.initial_point())
    for rv in model.free_RVs:
        if rv.name in values:
            value = np.asarray(values[rv.name], dtype=float)
            name = model.rvs_to_values[rv].name
            point[name] = np.log(value) if name.endswith("_log__") else value
    return objective.flatten(point)


# -- 1. logp + gradient -----------------------------------------------------------------------
def bench_logp(report: Report, nodes: Sequence[int], repeats: int) -> None:
    """Figure 1: logp + gradient of the VSK against the stationary kernel, per N.

    Parameters
    ----------
    report : Report
    nodes : sequence of int
        Node counts N.
    repeats : int
        Interleaved rounds.
    """
    from pymc_vsk import build_model
    from pymc_vsk.fitting import FAST_MODE, compiled_objective
    from pymc_vsk.scaling import Jump

    section = "logp+grad"
    report.raw[section] = {}
    print(f"\n[1] logp + gradient, VSK against stationary ({repeats} interleaved rounds)")
    for n in nodes:
        X, y = jump_data(n)
        models = {
            "stationary, pm.gp.Marginal": pymc_marginal_model(X, y),
            "VSK, pm.gp.Marginal": pymc_marginal_model(X, y, Jump(0.5)),
            "stationary, build_model": build_model(X, y, priors="flat")[0],
            "VSK, build_model": build_model(X, y, psi=Jump(0.5), priors="flat")[0],
        }
        fns, compile_s = {}, {}
        for name, model in models.items():
            start = time.perf_counter()
            obj = compiled_objective(model, FAST_MODE)
            compile_s[name] = time.perf_counter() - start
            theta = _theta(obj, model, POINT)
            fns[name] = lambda obj=obj, theta=theta: obj(theta)
        samples = interleaved(fns, repeats)
        report.raw[section][n] = {
            **samples.raw(),
            "compile_seconds": compile_s,
            "median_cpu_ms": samples.median_ms(),
        }
        med = samples.median_ms()
        for kind in ("pm.gp.Marginal", "build_model"):
            ratio = samples.ratio(f"VSK, {kind}", f"stationary, {kind}")
            report.add(
                Figure(
                    section,
                    f"VSK / stationary in {kind}, N = {n}",
                    ratio,
                    "<= 1.1",
                    ratio <= 1.1,
                    detail=f"{med[f'VSK, {kind}']:.3g} vs {med[f'stationary, {kind}']:.3g} ms",
                )
            )
        ratio = samples.ratio("VSK, build_model", "stationary, pm.gp.Marginal")
        report.add(
            Figure(
                section,
                f"VSK build_model / stationary pm.gp.Marginal, N = {n}",
                ratio,
                "(info)",
                detail="what a user switching to build_model sees",
            )
        )


def bench_modes(report: Report, nodes: Sequence[int], repeats: int) -> None:
    """Figure 1b: the objective on pytensor's Python path against Numba, per evaluation.

    ``fit_map`` starts on the Python path and moves to Numba once the evaluations would have
    saved :data:`pymc_vsk.fitting.SWITCH_SECONDS`, estimating the saving per evaluation by
    :func:`pymc_vsk.fitting.numba_saving`; this measures that saving.

    Parameters
    ----------
    report : Report
    nodes : sequence of int
        Node counts N.
    repeats : int
        Interleaved rounds.
    """
    from pymc_vsk import build_model
    from pymc_vsk.fitting import CHEAP_MODE, FAST_MODE, compiled_objective, numba_saving
    from pymc_vsk.scaling import Jump

    section = "modes"
    report.raw[section] = {}
    print(f"\n[1b] objective: Python path against Numba ({repeats} interleaved rounds)")
    for n in nodes:
        X, y = jump_data(n)
        model = build_model(X, y, psi=Jump(0.5), priors="flat")[0]
        fns = {}
        for label, mode in (("python", CHEAP_MODE), ("numba", FAST_MODE)):
            obj = compiled_objective(model, mode)
            theta = _theta(obj, model, POINT)
            fns[label] = lambda obj=obj, theta=theta: obj(theta)
        samples = interleaved(fns, repeats)
        med = samples.median_ms()
        saving = (med["python"] - med["numba"]) / 1e3
        report.raw[section][n] = {**samples.raw(), "median_cpu_ms": med}
        report.add(
            Figure(
                section,
                f"objective, Python path / Numba, N = {n}",
                samples.ratio("python", "numba"),
                "(info)",
                detail=f"{med['python']:.3g} vs {med['numba']:.3g} ms; saving "
                f"{1e3 * saving:.3g} ms per evaluation, estimated {1e3 * numba_saving(n):.3g} ms",
            )
        )


# -- 2. the numpy/scipy floor -----------------------------------------------------------------
def _numpy_problem(n: int) -> dict[str, Any]:
    """K, r and the pieces of a hand-written logp + gradient at :data:`POINT`."""
    import scipy.spatial

    from pymc_vsk.scaling import Jump

    X, y = jump_data(n)
    Z = np.c_[X, Jump(0.5)(X)]
    D = scipy.spatial.distance.cdist(Z, Z)
    return {"D": D, "y": y, "K": _matern52_cov(D, POINT)[0]}


def _matern52_cov(D: np.ndarray, p: Mapping[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """σ_f² k(D/ℓ) + (σ_n² + jitter) I and ∂K/∂log ℓ for Matérn 5/2."""
    s = np.sqrt(5.0) * D / p["ls"]
    e = np.exp(-s)
    sf2 = p["sigma_f"] ** 2
    K = sf2 * (1.0 + s + s * s / 3.0) * e
    dK_dlog_ls = sf2 * (s * s / 3.0) * (1.0 + s) * e
    K[np.diag_indices_from(K)] += p["sigma_n"] ** 2 + JITTER
    return K, dK_dlog_ls


def numpy_logp_grad(D: np.ndarray, y: np.ndarray, p: Mapping[str, float]) -> tuple[float, ...]:
    """Hand-written log density and gradient (log ℓ, log σ_f, log σ_n, mean), as scikit-learn.

    Parameters
    ----------
    D : array, shape (n, n)
        Lifted distances.
    y : array, shape (n,)
    p : dict
        ``ls``, ``sigma_f``, ``sigma_n``, ``mean``.

    Returns
    -------
    tuple of float
        Log density and its gradient.
    """
    import scipy.linalg

    K, dK_ls = _matern52_cov(D, p)
    chol = scipy.linalg.cho_factor(K, lower=True, check_finite=False)
    r = y - p["mean"]
    alpha = scipy.linalg.cho_solve(chol, r, check_finite=False)
    logp = -0.5 * r @ alpha - np.log(np.diag(chol[0])).sum() - 0.5 * len(y) * np.log(2 * np.pi)
    W = np.outer(alpha, alpha) - scipy.linalg.cho_solve(chol, np.eye(len(y)), check_finite=False)
    d_sf = np.einsum("ij,ij->", W, K) - np.trace(W) * (p["sigma_n"] ** 2 + JITTER)
    return (
        logp,
        0.5 * np.einsum("ij,ij->", W, dK_ls),
        d_sf,
        np.trace(W) * p["sigma_n"] ** 2,
        alpha.sum(),
    )


def bench_floor(report: Report, n: int, repeats: int) -> None:
    """Figure 2: logp + gradient at N against the numpy floors (Cholesky and ``potri``).

    Parameters
    ----------
    report : Report
    n : int
        Number of nodes.
    repeats : int
        Interleaved rounds.
    """
    import scipy.linalg
    from scipy.linalg import lapack

    from pymc_vsk import build_model
    from pymc_vsk.fitting import FAST_MODE, compiled_objective
    from pymc_vsk.scaling import Jump

    section = "floor"
    print(f"\n[2] logp + gradient at N = {n} against the numpy/scipy floor")
    prob = _numpy_problem(n)
    K, D, y = prob["K"], prob["D"], prob["y"]
    r = y - POINT["mean"]
    eye = np.eye(n)

    def floor_potri() -> None:
        c, _ = lapack.dpotrf(K, lower=1)
        lapack.dpotrs(c, r, lower=1)
        lapack.dpotri(c, lower=1)

    def floor_cho_solve() -> None:
        c = scipy.linalg.cho_factor(K, lower=True, check_finite=False)
        scipy.linalg.cho_solve(c, r, check_finite=False)
        scipy.linalg.cho_solve(c, eye, check_finite=False)

    X, y_data = jump_data(n)
    # standardize=False: the paper's model as written (absolute jitter, ψ unscaled), which
    # is what the hand-written reference computes
    ours = build_model(X, y_data, psi=Jump(0.5), priors="flat", standardize=False)[0]
    theirs = pymc_marginal_model(X, y_data, Jump(0.5))
    fns = {
        "floor A: potrf + potrs + potri": floor_potri,
        "floor B: cho_factor + cho_solve(r) + cho_solve(I)": floor_cho_solve,
        "numpy logp+grad (kernel, B, traces)": lambda: numpy_logp_grad(D, y, POINT),
    }
    ref = numpy_logp_grad(D, y, POINT)
    thetas = {}
    for label, model in (("build_model VSK", ours), ("pm.gp.Marginal VSK", theirs)):
        obj = compiled_objective(model, FAST_MODE)
        theta = thetas[label] = _theta(obj, model, POINT)
        fns[label] = lambda obj=obj, theta=theta: obj(theta)
        # the floor computes the same numbers (a check, not a timing)
        neg_logp, neg_grad = obj(theta)
        np.testing.assert_allclose(-neg_logp, ref[0], rtol=1e-8)
        np.testing.assert_allclose(-neg_grad, ref[1:], rtol=1e-6, atol=1e-6)
    # Where the time goes: the log density alone (kernel, Cholesky, one solve) of the same model.
    import pymc as pm

    value_vars = ours.continuous_value_vars
    logp_only = pm.pytensorf.compile(value_vars, [ours.logp(jacobian=False)])
    split = compiled_objective(ours, FAST_MODE).split(thetas["build_model VSK"])
    fns["build_model VSK, logp alone"] = lambda: logp_only(*split)
    samples = interleaved(fns, repeats)
    med = samples.median_ms()
    report.raw[section] = {"N": n, **samples.raw(), "median_cpu_ms": med}
    report.add(
        Figure(
            section,
            f"build_model VSK, logp alone / logp + gradient, N = {n}",
            samples.ratio("build_model VSK, logp alone", "build_model VSK"),
            "(info)",
            detail=f"{med['build_model VSK, logp alone']:.3g} vs {med['build_model VSK']:.3g} ms; "
            "the rest is K⁻¹ (potri) and the gradient's n² elementwise pass",
        )
    )
    for label in ("build_model VSK", "pm.gp.Marginal VSK"):
        for floor, short in (
            ("floor A: potrf + potrs + potri", "A (potri)"),
            ("floor B: cho_factor + cho_solve(r) + cho_solve(I)", "B (cho_solve(L, I))"),
            ("numpy logp+grad (kernel, B, traces)", "C (numpy logp+grad)"),
        ):
            ratio = samples.ratio(label, floor)
            ours_vs_a = label == "build_model VSK" and short.startswith("A")
            report.add(
                Figure(
                    section,
                    f"{label} / floor {short}, N = {n}",
                    ratio,
                    "<= 1.5" if ours_vs_a else "(info)",
                    ratio <= 1.5 if ours_vs_a else None,
                    detail=f"{med[label]:.3g} vs {med[floor]:.3g} ms",
                )
            )


#: The floor comparison in a child process: the objective against potrf + potrs + potri.
_CHILD_FLOOR = """
import json, sys, time
import numpy as np
from scipy.linalg import lapack
sys.path.insert(0, {root!r})
from benchmarks.run import POINT, _numpy_problem, _theta, interleaved, jump_data
from pymc_vsk import build_model
from pymc_vsk.blas import blas_threads
from pymc_vsk.fitting import FAST_MODE, compiled_objective
from pymc_vsk.scaling import Jump
n = {n}
K = _numpy_problem(n)["K"]
r = jump_data(n)[1] - POINT["mean"]
X, y = jump_data(n)
model = build_model(X, y, psi=Jump(0.5), priors="flat", standardize=False)[0]
obj = compiled_objective(model, FAST_MODE)
theta = _theta(obj, model, POINT)

def floor():
    c, _ = lapack.dpotrf(K, lower=1)
    lapack.dpotrs(c, r, lower=1)
    lapack.dpotri(c, lower=1)

with blas_threads(1):
    t = interleaved({{"ours": lambda: obj(theta), "floor": floor}}, {repeats})
print(json.dumps({{"ratio": t.ratio("ours", "floor"), "ms": t.median_ms()}}))
"""

#: glibc's allocator told to keep freed memory instead of returning it to the system (and
#: page-faulting it in again on the next n × n temporary).
KEEP_FREED_MEMORY = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "8589934592"}


def bench_floor_allocator(report: Report, n: int, repeats: int) -> None:
    """Figure 2b: the floor ratio in fresh processes, default allocator and one keeping memory.

    At N = 800 every n × n temporary is 5 MB; left as it starts, glibc returns such blocks to
    the system when they are freed, so each evaluation page-faults its temporaries in again
    (about 7 500 minor faults per evaluation). The package's objective keeps them
    (:func:`pymc_vsk.memory.keep_large_temporaries`); ``MALLOC_MMAP_THRESHOLD_`` and
    ``MALLOC_TRIM_THRESHOLD_`` set in the environment keep them too.

    Parameters
    ----------
    report : Report
    n : int
        Number of nodes.
    repeats : int
        Interleaved rounds in each process.
    """
    section = "floor"
    code = _CHILD_FLOOR.format(root=str(Path(__file__).resolve().parents[1]), n=n, repeats=repeats)
    results = {}
    for label, env in (
        ("default allocator", {}),
        ("allocator keeping freed memory", KEEP_FREED_MEMORY),
    ):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **env},
        )
        if out.returncode != 0:
            raise RuntimeError(f"floor child failed:\n{out.stderr[-2000:]}")
        results[label] = json.loads(out.stdout.strip().splitlines()[-1])
        res = results[label]
        report.add(
            Figure(
                section,
                f"build_model VSK / floor A (potri), N = {n}, fresh process, {label}",
                res["ratio"],
                "(info)",
                detail=f"{res['ms']['ours']:.3g} vs {res['ms']['floor']:.3g} ms"
                + ("; MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ set" if env else ""),
            )
        )
    report.raw["floor_allocator"] = results


# -- 3. MAP against scikit-learn --------------------------------------------------------------
def sklearn_fit(Z: np.ndarray, y: np.ndarray, starts: Sequence[Mapping[str, float]]) -> float:
    """Best log marginal likelihood of scikit-learn's GPR over the starts (tight L-BFGS-B).

    Parameters
    ----------
    Z : array, shape (n, d)
        Lifted inputs.
    y : array, shape (n,)
    starts : sequence of dict
        Starting points (``ls``, ``sigma_f``, ``sigma_n``).

    Returns
    -------
    float
    """
    import scipy.optimize
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    def lbfgs(obj_func, initial_theta, bounds):
        res = scipy.optimize.minimize(
            obj_func,
            initial_theta,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"gtol": 1e-10, "ftol": 1e-12, "maxiter": 5000},
        )
        return res.x, res.fun

    best = -np.inf
    for s in starts:
        kernel = ConstantKernel(float(s["sigma_f"]) ** 2, (1e-8, 1e8)) * Matern(
            float(s["ls"]), (1e-6, 1e6), nu=2.5
        ) + WhiteKernel(float(s["sigma_n"]) ** 2, (1e-12, 1e6))
        gpr = GaussianProcessRegressor(kernel, alpha=JITTER, optimizer=lbfgs).fit(Z, y)
        best = max(best, gpr.log_marginal_likelihood_value_)
    return float(best)


def bench_map_warm(report: Report, nodes: Sequence[int], repeats: int) -> None:
    """Figure 3: warm ``fit_map`` against scikit-learn's GPR on the same data and starts.

    Parameters
    ----------
    report : Report
    nodes : sequence of int
        Node counts N.
    repeats : int
        Interleaved rounds.
    """
    import warnings

    from pymc_vsk import build_model, fit_map
    from pymc_vsk.fitting import FAST_MODE
    from pymc_vsk.scaling import Jump

    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("\n[3] MAP against scikit-learn: skipped (scikit-learn is not installed)")
        return
    section = "map_warm"
    report.raw[section] = {}
    print(f"\n[3a] MAP, warm (compiled), against scikit-learn, 8 starts ({repeats} rounds)")
    for n in nodes:
        X, y = jump_data(n)
        y = y - y.mean()
        model, _ = build_model(X, y, psi=Jump(0.5), priors="flat", mean="zero")
        # compiled: the objective as a sweep runs it
        fit = fit_map(model, n_starts=8, seed=0, warn=False, mode=FAST_MODE)
        starts = fit.starts
        Z = np.c_[X, Jump(0.5)(X)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lml = sklearn_fit(Z, y, starts)
            samples = interleaved(
                {
                    "fit_map": lambda model=model, starts=starts: fit_map(
                        model, starts=starts, warn=False, mode=FAST_MODE
                    ),
                    "sklearn": lambda Z=Z, y=y, starts=starts: sklearn_fit(Z, y, starts),
                },
                repeats,
                min_seconds=0.0,
            )
        ratio = samples.ratio("fit_map", "sklearn")
        med = {k: v / 1e3 for k, v in samples.median_ms().items()}
        report.raw[section][n] = {
            **samples.raw(),
            "logp_ours": fit.logp,
            "logp_sklearn": lml,
        }
        report.add(
            Figure(
                section,
                f"fit_map / scikit-learn GPR, warm, N = {n}",
                ratio,
                "<= 3",
                ratio <= 3.0,
                detail=f"{med['fit_map']:.3g} vs {med['sklearn']:.3g} s; "
                f"log lik {fit.logp:.6f} vs {lml:.6f}",
            )
        )


#: A user's first MAP fit: imports, the model, an 8-start fit (the process is timed whole).
_CHILD_FIT_MAP = """
import numpy as np
from pymc_vsk import build_model, fit_map, targets
from pymc_vsk.scaling import Jump
X = targets.halton_nodes({n})
y = targets.jump(X) + 0.25 * np.random.default_rng(0).standard_normal({n})
model, _ = build_model(X, y, psi=Jump(0.5), priors="flat")
fit = fit_map(model, n_starts=8, seed=0, warn=False)
print(fit.logp)
"""

#: The same with scikit-learn: the same nodes, data and lifted features, 8 starts.
_CHILD_SKLEARN = """
import numpy as np
from scipy.stats import qmc
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
x = qmc.Halton(d=1, scramble=False).random({n})[:, 0]
f = np.cos(14 * np.pi * (x + 0.5)) / (2 * x + 0.5) + (x - 0.5) ** 4 + np.where(x < 0.5, 3.0, 0.0)
y = f + 0.25 * np.random.default_rng(0).standard_normal({n})
Z = np.c_[x, np.where(x >= 0.5, 1.0, 0.0)]
kernel = ConstantKernel() * Matern(nu=2.5) + WhiteKernel()
gpr = GaussianProcessRegressor(kernel, alpha=1e-6, normalize_y=True, n_restarts_optimizer=7,
                               random_state=0).fit(Z, y)
print(gpr.log_marginal_likelihood_value_)
"""


@dataclass
class ProcessRun:
    """Wall and CPU (user + system) seconds of one whole child process."""

    wall: float
    cpu: float
    stdout: str = ""


def run_process(
    args: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> ProcessRun:
    """Run a command as a fresh process and time it whole (imports and start-up included).

    Parameters
    ----------
    args : sequence of str
        The command.
    env : dict, optional
        Variables added to the environment.
    cwd : Path, optional
        Working directory.

    Returns
    -------
    ProcessRun
    """
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        list(args),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child {list(args)[:3]} failed:\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return ProcessRun(wall, cpu, out.stdout)


def empty_cache_env(tmp: Path) -> dict[str, str]:
    """Environment giving pytensor and Numba empty compilation caches under ``tmp``.

    Parameters
    ----------
    tmp : Path
        A fresh directory.

    Returns
    -------
    dict
    """
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    compiledir = f"compiledir={tmp / 'pytensor'}"
    return {
        "PYTENSOR_FLAGS": f"{flags},{compiledir}" if flags else compiledir,
        "NUMBA_CACHE_DIR": str(tmp / "numba"),
    }


def _spread(values: Sequence[float]) -> str:
    """``median [min–max]`` of a few numbers."""
    v = np.asarray(values, dtype=float)
    return f"{np.median(v):.3g} [{v.min():.3g}–{v.max():.3g}]"


def bench_cold_start(report: Report, n: int, repeats: int, tables: bool) -> None:
    """Figure 3b: a user's first fit, a fresh process each, against scikit-learn's process.

    Every round runs, in alternating order, scikit-learn's whole process (imports and an
    8-start fit), ours with warm on-disk caches, and ours with empty compilation caches
    (fresh ``compiledir`` and ``NUMBA_CACHE_DIR``); each figure is the median over rounds of
    the per-round ratio of CPU seconds (user + system, which waiting for a core on a busy
    machine does not inflate), with its range; wall seconds are saved too. Optionally the
    first ``pymc-vsk reproduce table1 --plot out`` (the README's first command) and
    ``pymc-vsk reproduce table2 --seeds 3`` with empty caches, in seconds.

    Parameters
    ----------
    report : Report
    n : int
        Number of nodes.
    repeats : int
        Rounds.
    tables : bool
        Also time ``reproduce table1`` and ``reproduce table2`` with empty caches.
    """
    section = "cold_start"
    print(
        f"\n[3b] First fit in a fresh process (imports included), N = {n}, 8 starts: "
        f"{repeats} interleaved rounds against scikit-learn's whole process"
    )
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("  skipped (scikit-learn is not installed)")
        return
    ours = [sys.executable, "-c", _CHILD_FIT_MAP.format(n=n)]
    theirs = [sys.executable, "-c", _CHILD_SKLEARN.format(n=n)]
    run_process(ours)  # fills the user's on-disk caches: the "warm" runs find them
    run_process(theirs)
    runs: dict[str, list[ProcessRun]] = {"sklearn": [], "warm": [], "empty": []}
    for r in range(repeats):
        order = ["sklearn", "warm", "empty"]
        for kind in order if r % 2 == 0 else order[::-1]:
            if kind == "empty":
                with tempfile.TemporaryDirectory() as tmp:
                    runs[kind].append(run_process(ours, empty_cache_env(Path(tmp))))
            else:
                runs[kind].append(run_process(ours if kind == "warm" else theirs))
    report.raw[section] = {"N": n, "runs": {k: [asdict(x) for x in v] for k, v in runs.items()}}
    sk = runs["sklearn"]
    for kind, goal, label in (
        ("warm", 1.5, "warm on-disk caches"),
        ("empty", 3.0, "empty compilation caches"),
    ):
        cpu = [a.cpu / b.cpu for a, b in zip(runs[kind], sk, strict=True)]
        wall = [a.wall / b.wall for a, b in zip(runs[kind], sk, strict=True)]
        ratio = float(np.median(cpu))
        report.add(
            Figure(
                section,
                f"first fit_map process / scikit-learn process, {label}, N = {n}",
                ratio,
                f"<= {goal:g}",
                ratio <= goal,
                detail=f"CPU ratio {_spread(cpu)}; wall ratio {_spread(wall)}; "
                f"ours {_spread([x.cpu for x in runs[kind]])} s CPU, scikit-learn "
                f"{_spread([x.cpu for x in sk])} s CPU",
            )
        )
    if not tables:
        return
    # the README's first command (table 1, with its figures) and a table of MAP fits
    commands = (("table1", ["--plot", "out"], None), ("table2", ["--seeds", "3"], 10.0))
    for name, args, goal in commands:
        command = " ".join(["pymc-vsk reproduce", name, *args])
        print(f"  {command}, empty compilation caches ...", flush=True)
        runs: list[ProcessRun] = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [sys.executable, "-m", "pymc_vsk", "reproduce", name, *args]
                runs.append(run_process(cmd, empty_cache_env(Path(tmp)), cwd=Path(tmp)))
        report.raw[section][f"{name}_empty_cache"] = [asdict(x) for x in runs]
        cpu = float(np.median([x.cpu for x in runs]))
        report.add(
            Figure(
                section,
                f"first `{command}`, empty caches",
                cpu,
                "(info)" if goal is None else f"<= {goal:g} s",
                None if goal is None else cpu <= goal,
                unit="s",
                detail=f"CPU s {_spread([x.cpu for x in runs])}; wall s "
                f"{_spread([x.wall for x in runs])}; "
                f"{cpu / float(np.median([x.cpu for x in sk])):.3g}× scikit-learn's whole process",
            )
        )


def bench_first_detection(report: Report, repeats: int) -> None:
    """A user's first ``pymc-vsk detect-jumps``: 100 points, a fresh process each.

    Rounds alternate the command with empty compilation caches (the first call after
    installing: the segment model's Numba code is compiled and written to disk) and with the
    caches the first call wrote; both with the default figure and JSON output. The goal is
    the 30 s per 100-point series that jump detection is allowed.

    Parameters
    ----------
    report : Report
    repeats : int
        Rounds.
    """
    section = "first_detection"
    print(f"\n[3c] First `pymc-vsk detect-jumps`, 100 points, {repeats} rounds ...", flush=True)
    runs: dict[str, list[ProcessRun]] = {"empty": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rng = np.random.default_rng(0)
        year = np.arange(1900, 2000)
        volume = 1100.0 - 250.0 * (year > 1930) + 120.0 * rng.normal(size=year.size)
        csv_path = folder / "flow.csv"
        csv_path.write_text(
            "year,volume\n" + "".join(f"{a},{b:.1f}\n" for a, b in zip(year, volume, strict=True))
        )
        cmd = [sys.executable, "-m", "pymc_vsk", "detect-jumps", str(csv_path)]
        cmd += ["--x", "year", "--y", "volume", "--json", str(folder / "out.json"), "--quiet"]
        warm_env = empty_cache_env(folder / "warm")
        # in the temporary folder, where the command's default figure goes
        run_process(cmd, warm_env, cwd=folder)  # writes the caches the warm runs find
        for r in range(repeats):
            for kind in ("empty", "warm") if r % 2 == 0 else ("warm", "empty"):
                if kind == "warm":
                    runs[kind].append(run_process(cmd, warm_env, cwd=folder))
                    continue
                with tempfile.TemporaryDirectory() as fresh:
                    env = empty_cache_env(Path(fresh))
                    runs[kind].append(run_process(cmd, env, cwd=folder))
    report.raw[section] = {k: [asdict(x) for x in v] for k, v in runs.items()}
    for kind, label in (("empty", "empty caches"), ("warm", "caches written")):
        wall = float(np.median([x.wall for x in runs[kind]]))
        report.add(
            Figure(
                section,
                f"first `pymc-vsk detect-jumps`, 100 points, {label}",
                wall,
                "<= 30 s",
                wall <= 30.0,
                unit="s",
                detail=f"wall s {_spread([x.wall for x in runs[kind]])}; CPU s "
                f"{_spread([x.cpu for x in runs[kind]])}",
            )
        )


# -- 4. NUTS ESS per second -------------------------------------------------------------------
def bench_nuts(report: Report, draws: int, tune: int, chains: int, jax: bool) -> None:
    """Figure 4: NUTS ESS per second, nutpie against PyMC's sampler (and the JAX samplers).

    Parameters
    ----------
    report : Report
    draws, tune, chains : int
        NUTS settings.
    jax : bool
        Also time numpyro and blackjax.
    """
    import logging

    import pymc as pm

    from pymc_vsk import build_model, diagnose
    from pymc_vsk.blas import blas_threads
    from pymc_vsk.samplers import compiled_nutpie
    from pymc_vsk.scaling import Jump

    section = "nuts"
    print(
        f"\n[4] NUTS on the N = 81 VSK model (default priors): {chains} chains x "
        f"({tune} tune + {draws} draws), 2 cores"
    )
    logging.getLogger("pymc").setLevel(logging.ERROR)
    X, y = jump_data(81)
    names = ["ls", "sigma_f", "sigma_n", "mean"]
    results: dict[str, dict[str, float]] = {}
    samplers = ["nutpie", "pymc"]
    if jax:
        import importlib.util

        for name in ("numpyro", "blackjax"):
            # find_spec does not import: JAX must not be loaded before the PyMC sampler forks.
            if importlib.util.find_spec(name) is None:
                print(f"  {name}: not installed, skipped")
            else:
                samplers.append(name)
    for sampler in list(samplers):
        model, _ = build_model(X, y, psi=Jump(0.5))
        with blas_threads(1):
            start = time.perf_counter()
            if sampler == "nutpie":
                import nutpie

                compiled = compiled_nutpie(model)  # nutpie's compiler, this package's callbacks
                compiled_at = time.perf_counter()
                idata = nutpie.sample(
                    compiled,
                    draws=draws,
                    tune=tune,
                    chains=chains,
                    cores=2,
                    seed=1,
                    progress_bar=False,
                )
            else:
                compiled_at = None
                # The JAX samplers run the chains vectorised on one device (their default
                # "parallel" pmap needs one device per chain).
                jax_kwargs = {"chain_method": "vectorized"} if sampler != "pymc" else {}
                try:
                    idata = pm.sample(
                        draws=draws,
                        tune=tune,
                        chains=chains,
                        cores=2,
                        nuts_sampler=sampler,
                        random_seed=1,
                        progressbar=False,
                        compute_convergence_checks=False,
                        model=model,
                        **({"nuts": jax_kwargs} if jax_kwargs else {}),
                    )
                except Exception as err:  # an optional backend must not end the run
                    if sampler == "pymc":
                        raise
                    print(f"  {sampler}: failed ({type(err).__name__}: {err}); skipped")
                    samplers.remove(sampler)
                    continue
            total = time.perf_counter() - start
        diag = diagnose(idata, names)
        ess = float(diag.table["ess_bulk"].min())
        results[sampler] = {
            "seconds_total": total,
            "seconds_compile": None if compiled_at is None else compiled_at - start,
            "ess_bulk_min": ess,
            "ess_per_second": ess / total,
            "r_hat_max": float(diag.table["r_hat"].max()),
            "divergences": diag.divergences,
        }
        print(
            f"  {sampler:<9} {total:6.1f} s total, min bulk ESS {ess:6.0f}, "
            f"{ess / total:6.1f} ESS/s, max r̂ {results[sampler]['r_hat_max']:.3f}, "
            f"{diag.divergences} divergences",
            flush=True,
        )
    report.raw[section] = results
    report.add(*nuts_figures(results, chains, tune, draws))


def nuts_figures(
    results: Mapping[str, Mapping[str, float]], chains: int, tune: int, draws: int
) -> list[Figure]:
    """The figures of section 4 from the samplers' results.

    The wall-time goal of nutpie against PyMC's sampler is judged on :data:`NUTS_GOAL_RUN`
    only; for another run the ratio is reported as information, with a note saying so.

    Parameters
    ----------
    results : mapping
        Per sampler (``"nutpie"``, ``"pymc"``, then any other), its ``seconds_total``,
        ``seconds_compile`` (nutpie), ``ess_per_second`` and ``ess_bulk_min``.
    chains, tune, draws : int
        The NUTS settings of the run (at N = 81).

    Returns
    -------
    list of Figure
    """
    section = "nuts"
    nut, pym = results["nutpie"], results["pymc"]
    sampling_only = nut["ess_bulk_min"] / (nut["seconds_total"] - nut["seconds_compile"])
    figures = [
        Figure(
            section,
            "NUTS ESS/s, nutpie / PyMC sampler, N = 81 (incl. compile)",
            nut["ess_per_second"] / pym["ess_per_second"],
            "(report)",
            detail=f"{nut['ess_per_second']:.1f} vs {pym['ess_per_second']:.1f} min-bulk-ESS/s; "
            f"nutpie sampling only {sampling_only:.1f} ESS/s",
        )
    ]
    ratio = nut["seconds_total"] / pym["seconds_total"]
    judged = (81, chains, tune, draws) == NUTS_GOAL_RUN
    detail = (
        f"{nut['seconds_total']:.1f} s (compile {nut['seconds_compile']:.1f} s) vs "
        f"{pym['seconds_total']:.1f} s"
    )
    if not judged:
        detail += f"; the goal <= 1 is judged on {_run_label(*NUTS_GOAL_RUN[1:])} only"
    figures.append(
        Figure(
            section,
            "NUTS wall time, nutpie (compile + sample) / PyMC sampler, N = 81",
            ratio,
            "<= 1" if judged else "(info)",
            ratio <= 1.0 if judged else None,
            detail=detail,
        )
    )
    for sampler in [name for name in results if name not in ("nutpie", "pymc")]:
        res = results[sampler]
        figures.append(
            Figure(
                section,
                f"NUTS ESS/s, {sampler} / PyMC sampler, N = 81 (incl. compile)",
                res["ess_per_second"] / pym["ess_per_second"],
                "(info)",
                detail=f"{res['ess_per_second']:.1f} ESS/s, {res['seconds_total']:.1f} s",
            )
        )
    return figures


def _run_label(chains: int, tune: int, draws: int) -> str:
    """A NUTS run's size as the figures write it: ``"4 × (1000 + 1000)"``."""
    return f"{chains} × ({tune} + {draws})"


# -- 4b. the sampler chosen by workload ------------------------------------------------------
#: A fresh process samples the N-node VSK model (default priors) with nutpie, PyMC's sampler or
#: the one :func:`pymc_vsk.samplers.choose_sampler` picks, and prints the sampler and the wall
#: seconds from the model's completion to the end of sampling (compilation included).
_CHILD_SAMPLER = """
import json, logging, time
import numpy as np
import pymc as pm
from pymc_vsk import build_model, diagnose, targets
from pymc_vsk.samplers import choose_sampler, compiled_nutpie
from pymc_vsk.scaling import Jump
logging.getLogger("pymc").setLevel(logging.ERROR)
X = targets.halton_nodes({n})
y = targets.jump(X) + 0.25 * np.random.default_rng(0).standard_normal({n})
model, _ = build_model(X, y, psi=Jump(0.5))
start = time.perf_counter()
which = {which!r}
if which == "auto":
    which = choose_sampler({n}, {draws}, {tune}, {chains}, cores=2).sampler
compile_seconds = None
if which == "nutpie":
    import nutpie
    compiled = compiled_nutpie(model)
    compile_seconds = time.perf_counter() - start
    idata = nutpie.sample(compiled, draws={draws}, tune={tune}, chains={chains}, cores=2,
                          seed=1, progress_bar=False)
else:
    idata = pm.sample(draws={draws}, tune={tune}, chains={chains}, cores=2, random_seed=1,
                      nuts_sampler="pymc", progressbar=False, compute_convergence_checks=False,
                      model=model)
seconds = time.perf_counter() - start
ess = float(diagnose(idata, ["ls", "sigma_f", "sigma_n", "mean"]).table["ess_bulk"].min())
print(json.dumps({{"sampler": which, "seconds": seconds, "compile_seconds": compile_seconds,
                  "ess_bulk_min": ess}}))
"""


def bench_sampler(
    report: Report, workloads: Sequence[tuple[int, int, int, int]], repeats: int
) -> None:
    """Figure 4b: the automatically chosen sampler against nutpie and PyMC's sampler.

    For each workload (N, chains, tune, draws) every round runs, in alternating order, three
    fresh processes (warm on-disk caches): nutpie (compile + sample), PyMC's sampler, and the
    sampler :func:`pymc_vsk.samplers.choose_sampler` picks. Each figure is the median over
    rounds of the per-round ratio of wall seconds (the chains run on 2 cores, so wall time is
    what a user waits), with its range: the choice against the slower sampler (goal ≤ 1) and
    against the faster (ideally ≈ 1).

    Parameters
    ----------
    report : Report
    workloads : sequence of (int, int, int, int)
        N, chains, tune steps and draws per chain.
    repeats : int
        Rounds.
    """
    from pymc_vsk.samplers import choose_sampler

    section = "sampler"
    print(
        f"\n[4b] NUTS sampler chosen by workload, N-node VSK model, fresh processes, 2 cores: "
        f"{repeats} interleaved rounds"
    )
    report.raw[section] = {}
    for n, chains, tune, draws in workloads:
        label = f"N = {n}, {_run_label(chains, tune, draws)}"
        predicted = choose_sampler(n, draws, tune, chains, cores=2)
        runs: dict[str, list[dict[str, Any]]] = {"nutpie": [], "pymc": [], "auto": []}
        for r in range(repeats):
            order = list(runs)
            for which in order if r % 2 == 0 else order[::-1]:
                code = _CHILD_SAMPLER.format(
                    n=n, chains=chains, tune=tune, draws=draws, which=which
                )
                proc = run_process([sys.executable, "-c", code])
                runs[which].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        report.raw[section][label] = {"predicted": asdict(predicted), "runs": runs}
        secs = {k: [x["seconds"] for x in v] for k, v in runs.items()}
        slower = [max(a, b) for a, b in zip(secs["nutpie"], secs["pymc"], strict=True)]
        faster = [min(a, b) for a, b in zip(secs["nutpie"], secs["pymc"], strict=True)]
        vs_slower = [a / b for a, b in zip(secs["auto"], slower, strict=True)]
        vs_faster = [a / b for a, b in zip(secs["auto"], faster, strict=True)]
        chosen = sorted({x["sampler"] for x in runs["auto"]})
        compile_s = [x["compile_seconds"] for x in runs["nutpie"]]
        detail = (
            f"chose {'/'.join(chosen)} (predicted nutpie {predicted.seconds['nutpie']:.1f} s, "
            f"PyMC {predicted.seconds['pymc']:.1f} s); wall s: auto {_spread(secs['auto'])}, "
            f"nutpie {_spread(secs['nutpie'])} (compile {_spread(compile_s)}), "
            f"PyMC {_spread(secs['pymc'])}"
        )
        ratio = float(np.median(vs_slower))
        report.add(
            Figure(
                section,
                f"chosen sampler / slower of nutpie and PyMC, wall, {label}",
                ratio,
                "<= 1",
                ratio <= 1.0,
                detail=f"ratio {_spread(vs_slower)}; " + detail,
            ),
            Figure(
                section,
                f"chosen sampler / faster of nutpie and PyMC, wall, {label}",
                float(np.median(vs_faster)),
                "(≈ 1)",
                detail=f"ratio {_spread(vs_faster)}",
            ),
        )
        nut_pymc = [a / b for a, b in zip(secs["nutpie"], secs["pymc"], strict=True)]
        # the long run at N = 81 is the workload nutpie's compilation must pay for itself on
        goal = (n, chains, tune, draws) == NUTS_GOAL_RUN
        report.add(
            Figure(
                section,
                f"nutpie (compile + sample) / PyMC sampler, wall, fresh process, {label}",
                float(np.median(nut_pymc)),
                "<= 1" if goal else "(info)",
                float(np.median(nut_pymc)) <= 1.0 if goal else None,
                detail=f"ratio {_spread(nut_pymc)}",
            )
        )


# -- 5. Figure 4 ------------------------------------------------------------------------------
def bench_figure4(report: Report, n_max: int) -> None:
    """Figure 5: the Figure 4 sweep of the paper, timed.

    Parameters
    ----------
    report : Report
    n_max : int
        Largest N.
    """
    from pymc_vsk.paper import figure4

    section = "figure4"
    ns = figure4.node_counts(n_max)
    print(f"\n[5] Figure 4 sweep: N = {ns[0]}, …, {ns[-1]} ({len(ns)} node counts), 1 seed")
    sweep = figure4.compute(n_max, seeds=1)
    report.raw[section] = {"n_max": n_max, "seconds": sweep.seconds, "n_fits": 2 * len(ns)}
    report.add(
        Figure(
            section,
            f"Figure 4 sweep total, N up to {ns[-1]}, 1 seed",
            sweep.seconds,
            "(report)",
            unit="s",
            detail=f"{2 * len(ns)} MAP fits, 2 models compiled once each",
        )
    )


# -- main -------------------------------------------------------------------------------------
def summary_line(figures: Sequence[Figure], quick: bool) -> str:
    """The last line of the summary: how many goals were missed, and which.

    Parameters
    ----------
    figures : sequence of Figure
        Every figure of the run.
    quick : bool
        Whether the run was the quick one, whose shorter NUTS runs leave the goals set for
        :data:`NUTS_GOAL_RUN` unjudged (the line says so).

    Returns
    -------
    str
    """
    missed = [f.name for f in figures if f.met is False]
    line = f"{len(missed)} goal(s) missed" + (": " + "; ".join(missed) if missed else "")
    if quick:
        line += (
            f" (quick mode: the nutpie / PyMC wall-time goals hold for "
            f"{_run_label(*NUTS_GOAL_RUN[1:])} at N = {NUTS_GOAL_RUN[0]} and are not judged "
            "here; run without --quick for them)"
        )
    return line


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of the benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run at small sizes (the nutpie / PyMC wall-time goals, set for 4 × (1000 "
        "+ 1000) draws, are then reported but not judged)",
    )
    parser.add_argument("--out", type=Path, default=Path("out/benchmarks"), help="output directory")
    parser.add_argument(
        "--no-jax", action="store_true", help="leave out numpyro and blackjax in the NUTS figures"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        choices=["logp", "floor", "allocator", "map", "cold", "nuts", "sampler", "figure4"],
        help="run only these sections",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks, print every figure against its goal, save raw.json and ratios.csv.

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
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # for the child processes and samplers
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    from pymc_vsk.blas import blas_threads

    quick = args.quick
    everything = ["logp", "floor", "allocator", "map", "cold", "nuts", "sampler", "figure4"]
    sections = set(args.only or everything)
    report = Report(machine_description())
    print(format_machine(report.machine))
    print(f"mode: {'quick (CI smoke run)' if quick else 'full'}")
    start = time.perf_counter()
    with blas_threads(1):
        if "logp" in sections:
            bench_logp(report, LOGP_NODES, repeats=7 if quick else 21)
            bench_modes(report, (81, FLOOR_NODES), repeats=7 if quick else 21)
        if "floor" in sections:
            bench_floor(report, FLOOR_NODES, repeats=7 if quick else 21)
        if "allocator" in sections:
            bench_floor_allocator(report, FLOOR_NODES, repeats=7 if quick else 21)
        if "map" in sections:
            bench_map_warm(report, (81,) if quick else (81, 400), repeats=3 if quick else 7)
        if "cold" in sections:
            bench_cold_start(report, 81, repeats=1 if quick else 3, tables=not quick)
            bench_first_detection(report, repeats=1 if quick else 3)
    if "nuts" in sections:
        if quick:
            bench_nuts(report, draws=300, tune=300, chains=2, jax=False)
        else:
            bench_nuts(report, draws=1000, tune=1000, chains=4, jax=not args.no_jax)
    if "sampler" in sections:
        small = (81, 2, 300, 300)
        larger = (200, 2, 300, 300)
        workloads = [(81, 2, 100, 100)] if quick else [(81, 4, 1000, 1000), small, larger]
        bench_sampler(report, workloads, repeats=1 if quick else 3)
    if "figure4" in sections:
        with blas_threads(1):
            bench_figure4(report, 90 if quick else 790)
    report.machine["load_average_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    report.machine["total_seconds"] = time.perf_counter() - start
    print("\nSummary (every figure against its goal)")
    print(format_machine(report.machine))
    for fig in report.figures:
        print(fig.line())
    print(summary_line(report.figures, quick))
    for path in report.save(args.out):
        print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
