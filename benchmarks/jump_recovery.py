"""Recovery of the jump location of Section 4.1 on synthetic data, over noise seeds.

Design (:mod:`benchmarks.recovery`): the paper's jump target (height 3 at t = 0.5) on the first
N unscrambled Halton nodes, noise std 0.25 drawn with ``default_rng(seed)`` for seeds
0, ..., S − 1, one jump with location t ~ Uniform(0.1, 0.9) and unknown amplitude, default
priors (scaled to the noise-free target), NUTS with nutpie compiled once per N and method and
the observations swapped per seed. ``--method auto`` marginalises the hard jump exactly over
the gaps between nodes for N <= 40 and uses the logistic relaxation (width a quarter of the
smallest node spacing) above. NUTS settings per method are
:data:`benchmarks.recovery.SAMPLER_SETTINGS` (4 chains; marginal 4000 draws at target_accept
0.99, relaxation 1000 draws at 0.95); the options below override them.

    python benchmarks/jump_recovery.py --seeds 10 --n 27 81 --out out/jumps
    python benchmarks/jump_recovery.py --n 81 --method smooth --draws 2000

Prints per N a table (per seed: the 94 % interval = hull of the credible set of gaps, its
width, whether it covers 0.5, the probability of the true gap, the ETI, max r̂, min bulk and
tail ESS, divergences, NUTS seconds) and the totals (coverage k/S, median width), and writes
``recovery_N{N}_{method}.csv`` and ``summary.json`` to ``--out``. The defaults are the study
``tests/test_jump_recovery.py`` runs with ``pytest -m slow``. Set ``OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root holds ``benchmarks``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.recovery import run_recovery
from pymc_vsk.arguments import int_in


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of the study."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int_in(1), default=10, help="noise seeds 0..S-1 (default 10)"
    )
    parser.add_argument("--n", type=int, nargs="+", default=[27, 81], help="node counts")
    parser.add_argument(
        "--method",
        choices=["auto", "smooth", "marginal"],
        default="auto",
        help="auto: marginal for N <= 40, smooth above (default)",
    )
    parser.add_argument("--out", default="out/jump_recovery", help="output directory")
    per_method = "default: SAMPLER_SETTINGS of the method"
    parser.add_argument("--draws", type=int, default=None, help=f"draws per chain ({per_method})")
    parser.add_argument("--tune", type=int, default=None, help=f"tuning steps ({per_method})")
    parser.add_argument(
        "--chains", type=int_in(2), default=None, help=f"chains, at least 2 for r̂ ({per_method})"
    )
    parser.add_argument("--cores", type=int, default=2, help="chains run in parallel")
    parser.add_argument("--target-accept", type=float, default=None, help=per_method)
    parser.add_argument("--width", type=float, default=None, help="relaxation width (smooth)")
    parser.add_argument("--prob", type=float, default=0.94, help="credible mass (default 0.94)")
    parser.add_argument("--quiet", action="store_true", help="no line per seed")
    return parser


def _report_progress(row: Mapping[str, float]) -> None:
    print(
        f"seed {row['seed']:3d}: interval ({row['lo']:.4f}, {row['hi']:.4f}] "
        f"width {row['width']:.4f} covers {row['covers']!s:5}  r̂ {row['r_hat_max']:.4f}  "
        f"ESS {row['ess_bulk_min']:5.0f}  divergences {row['divergences']:3d}  "
        f"{row['seconds']:.1f} s",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study for each N, print the tables and totals, write the outputs.

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
    logging.getLogger("pymc").setLevel(logging.WARNING)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    summaries = []
    for n in args.n:
        result = run_recovery(
            n,
            range(args.seeds),
            method=None if args.method == "auto" else args.method,
            width=args.width,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            cores=args.cores,
            target_accept=args.target_accept,
            prob=args.prob,
            progress=None if args.quiet else _report_progress,
        )
        print("\n" + result.report(args.prob) + "\n", flush=True)
        result.fits.to_csv(out / f"recovery_N{n}_{result.method}.csv", index=False)
        summaries.append({**result.summary(), "settings": result.settings})
    (out / "summary.json").write_text(json.dumps(summaries, indent=2))
    print(f"total {time.perf_counter() - start:.0f} s; wrote {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
