"""What each jump found on a real series buys: its evidence, and how it moves with the model.

``python benchmarks/jump_gains.py uk_driver_deaths beaver_temperature`` runs
:func:`pymc_vsk.jumps.find_jumps` with its defaults on the named series of
``benchmarks/jumps_real.py``, takes the jumps of its answer and the most probable shape of
the smooth part given their number, and prints, for each jump, the log evidence of the
answer's partition less that of the same partition without this jump (its two segments
merged): first with the smooth part of that shape, then without a smooth part (r = 0).
Jumps within 5 observations of an annotated change are starred. The same is printed for
variants of the segment model that take away one thing a new segment brings: its own noise
scale (``a0=1e5``: every segment's σ² held at the series' own), its steep trends (gentle
slopes only), any trend, and a wider prior of the levels (``level_sd=10``).
``--annotated`` scores the annotated changes (the first annotator's) instead of the jumps
found, with the most probable shape given their number. A jump gains what it buys minus
what its new segment costs; the prior of the placements (about ``log(n / K)`` per jump) is
not included.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks.jumps_real import real_series
from pymc_vsk.jumps import find_jumps
from pymc_vsk.jumps.segments import SegmentModel, Shape

#: The variants of the segment model: what a new segment is denied in each.
VARIANTS: dict[str, dict[str, float]] = {
    "default": {},
    "one noise scale (a0=1e5)": {"a0": 1e5},
    "gentle slopes only": {"slope_sd": 0.5},
    "no slope": {"slope_sd": 0.0},
    "level_sd 10": {"level_sd": 10.0},
}


def point_shape(post, k: int) -> tuple[SegmentModel, Shape]:
    """The model and shape of the largest posterior mass given k jumps."""
    column = post.log_evidence[:, k]
    best = int(np.argmax(column))
    for model in post.models:
        if best < len(model.grid):
            return model, model.grid[best]
        best -= len(model.grid)
    raise AssertionError("the shapes of the models do not cover the evidence")


def gains(model: SegmentModel, shape: Shape, cuts: list[int], ratio: float) -> list[float]:
    """Log evidence of the partition ``cuts`` less that of it without each cut, in turn."""
    P = model.evidence(shape.lengthscale, ratio, shape.nu)

    def evidence(cs: list[int]) -> float:
        edges = [0, *sorted(cs), model.n]
        return float(sum(P[a, b] for a, b in itertools.pairwise(edges)))

    full = evidence(cuts)
    return [full - evidence([c for c in cuts if c != k]) for k in cuts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", metavar="SERIES", help="real series of the benchmark")
    parser.add_argument(
        "--annotated", action="store_true", help="score the annotated changes, not those found"
    )
    args = parser.parse_args(argv)
    series = {s.name: s for s in real_series()}
    unknown = sorted(set(args.names) - set(series))
    if unknown:
        parser.error(f"no real series named {', '.join(unknown)}; known: {', '.join(series)}")
    for name in args.names:
        s = series[name]
        post = find_jumps(s.x, s.y, draws=200, chains=2)
        marks = {t for annotator in s.annotations for t in annotator}
        if args.annotated:
            cuts = sorted(s.annotations[0])
        else:
            cuts = post.change_points
        model, shape = point_shape(post, min(len(cuts), post.log_evidence.shape[1] - 1))
        star = ["*" if any(abs(c - t) <= 5 for t in marks) else " " for c in cuts]
        print(
            f"== {name}: jumps before observations {cuts}, annotated {sorted(marks)}; "
            f"smooth part ℓ = {shape.lengthscale:.3f} of the x-range, r = {shape.ratio}, "
            f"ν = {shape.nu}; gain with / without it (nats)"
        )
        period = None if model.season is None else model.season.period
        for label, options in VARIANTS.items():
            variant = SegmentModel(
                post.x,
                post.y,
                min_size=model.min_size,
                max_jumps=model.max_jumps,
                warp=model.warp,
                period=period,
                **options,
            )
            rough = gains(variant, shape, cuts, shape.ratio)
            flat = gains(variant, shape, cuts, 0.0)
            cells = "  ".join(
                f"{m}{a:6.1f} / {b:6.1f}" for m, a, b in zip(star, rough, flat, strict=True)
            )
            print(f"  {label:26s} {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
