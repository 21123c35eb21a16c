r"""A jump of unknown location in the collapsed HSGP of a VSK, sampled by NUTS.

    python benchmarks/random_jump.py                  # N = 1 000 and 2 000, 2 × (300 + 300)
    python benchmarks/random_jump.py --nodes 4000 --draws 500

Data as in ``benchmarks/large_n.py``: x ~ U[0, 1] (seeded), y = f(x) + N(0, 0.25²) with f the
jump target of Section 4.1 (the jump at 0.5). The model is that study's HSGP model
(:class:`pymc_vsk.hsgp.CollapsedLiftedHSGP`, ExpQuad base kernel with ℓ_ψ = 0.5, the same
priors on ℓ, σ_f, σ_n and the mean) with ψ a :class:`~pymc_vsk.scaling.SmoothJump` of width
0.002 whose location t ~ U(0.1, 0.9) is sampled with the rest. ψ stays in [0, 1] wherever t
is, so the box of its coordinate is fixed before sampling; ΦᵀΦ moves with t and is part of
each log density (O(n M²), M = 240). Printed per N: nutpie's compile and sampling times, the
posterior of t (mean, sd, 94 % interval) against the truth, the largest r̂ and smallest bulk
ESS of (t, ℓ, σ_f, σ_n, mean), the divergences and the peak memory of the process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

from benchmarks.large_n import HSGP_M, PARAMS, hsgp_model, jump_data

#: Width of the logistic step and the prior range of its location.
WIDTH, PRIOR = 0.002, (0.1, 0.9)


def random_jump_model(X: np.ndarray, y: np.ndarray) -> pm.Model:
    """The HSGP model of ``benchmarks/large_n.py`` with a random jump location ``t``."""
    import pymc as pm

    from pymc_vsk.scaling import SmoothJump

    model, _ = hsgp_model(X, y, psi=lambda: SmoothJump(pm.Uniform("t", *PRIOR), width=WIDTH))
    return model


def run(n: int, draws: int, chains: int, seed: int) -> dict[str, float]:
    """Build, compile and sample at N = ``n``; the figures of one row."""
    import nutpie

    from pymc_vsk import diagnose
    from pymc_vsk.blas import blas_threads
    from pymc_vsk.samplers import compiled_nutpie

    X, y = jump_data(n)
    with blas_threads(1):
        t0 = time.perf_counter()
        compiled = compiled_nutpie(random_jump_model(X, y))
        t1 = time.perf_counter()
        idata = nutpie.sample(
            compiled, draws=draws, tune=draws, chains=chains, cores=2, seed=seed,
            progress_bar=False,
        )  # fmt: skip
        t2 = time.perf_counter()
    diag = diagnose(idata, ["t", *PARAMS])
    t = np.asarray(idata["posterior"]["t"].values).ravel()
    lo, hi = np.quantile(t, [0.03, 0.97])
    return {
        "N": n,
        "compile_s": t1 - t0,
        "sample_s": t2 - t1,
        "t_mean": float(t.mean()),
        "t_sd": float(t.std()),
        "t_lo": float(lo),
        "t_hi": float(hi),
        "max_rhat": float(diag.table["r_hat"].max()),
        "min_ess_bulk": float(diag.table["ess_bulk"].min()),
        "divergences": int(diag.divergences),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run every N and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--draws", type=int, default=300, help="draws = tuning steps per chain")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(
        f"random jump location in the collapsed HSGP (M = {HSGP_M[0]} x {HSGP_M[1]}), true "
        f"location 0.5; nutpie {args.chains} x ({args.draws} + {args.draws})"
    )
    for n in args.nodes:
        r = run(n, args.draws, args.chains, args.seed)
        print(
            f"N = {r['N']:>5}: compile {r['compile_s']:.1f} s, sample {r['sample_s']:.1f} s; "
            f"t = {r['t_mean']:.4f} ± {r['t_sd']:.4f} (94 % [{r['t_lo']:.4f}, {r['t_hi']:.4f}]); "
            f"max r̂ {r['max_rhat']:.3f}, min bulk ESS {r['min_ess_bulk']:.0f}, "
            f"{r['divergences']} divergences; peak {r['peak_mb']:.0f} MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
