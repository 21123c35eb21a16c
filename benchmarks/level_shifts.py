"""Jumps that shift the level of a smooth part that continues across them: a variant left out.

In the segment model of :mod:`pymc_vsk.jumps.segments` a jump starts a new piece: a new
level, slope and noise scale, and the smooth part starts afresh. Here a jump only shifts the
level, and one smooth part runs through the whole series:

    y = c + d (x − ½) + σ r f(x) + Σₖ aₖ H(x − tₖ) + σ ε,   f ~ GP(0, Matérn ν, ℓ),
    c, aₖ | σ ~ N(0, κ² σ²),   d | σ ~ the segment model's slope mixture,   σ² ~ InvGamma(a₀, b₀),

with the segment model's priors, scalings and grid of shapes (ν, ℓ, r), the same prior of
the count (uniform on 0..max_jumps) and of the placements (uniform given the count, at least
``min_size`` observations per piece). The synthetic series of ``benchmarks/jumps_real.py``
are drawn from a model of this kind (shifts on a smooth part that goes on), so it asks
whether the restart of the smooth part at each jump is what makes the segment model miss
some of their jumps, and what it does on the real series.

The model has no product-partition structure: the evidence of a partition involves the whole
series. For a set T of jumps it is a multivariate t, computed from the whitened step basis:
with C = L Lᵀ the covariance without jumps (in units of σ²), ỹ = L⁻¹y and H̃ = L⁻¹H for the
steps H of every gap, G = H̃ᵀH̃ and u = H̃ᵀỹ are computed once per shape, and

    yᵀ(C + κ² H_T H_Tᵀ)⁻¹y = ỹᵀỹ − u_Tᵀ (G_TT + I/κ²)⁻¹ u_T,
    log |C + κ² H_T H_Tᵀ| = log |C| + |T| log κ² + log |G_TT + I/κ²|

(Woodbury and the matrix determinant lemma). The shapes are summed exactly for every T, and
T is sampled by Metropolis–Hastings (add, remove or move one jump), several chains started
with no jump. The count is decided as :func:`pymc_vsk.jumps.find_jumps` decides it (the
largest posterior expected F1), and the jumps are the medians of the draws with that count.
It keeps n² numbers per shape: series longer than ``--max-n`` are left out.

``python benchmarks/level_shifts.py --csv shifts.csv`` scores it and ``find_jumps`` (its
defaults, 500 draws) on the same real series (x replaced by the row number) and on the
synthetic group of ``jumps_real.py`` at ``--seed``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from scipy.linalg import cholesky, solve_triangular
from scipy.special import gammaln, logsumexp

from benchmarks.jumps_real import Series, real_series, score, synthetic_series
from pymc_vsk.jumps import find_jumps
from pymc_vsk.jumps.detection import _best_f1_count
from pymc_vsk.jumps.segments import SegmentModel, log_configurations, matern_kernel

#: Longest series fitted: the model keeps (grid size) × n² numbers.
MAX_N = 450


class LevelShiftModel:
    """The level-shift model of the module docstring, on one series.

    Parameters
    ----------
    x, y : array, shape (n,)
        Sorted inputs and observations, in any units.
    **options
        Priors and grid of :class:`~pymc_vsk.jumps.segments.SegmentModel` (``level_sd``
        is also the prior sd of a shift, in the same units as a new segment's level).

    Attributes
    ----------
    gaps : array of int
        The allowed change points: the index of the first observation after each jump.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, **options: object) -> None:
        m = SegmentModel(x, y, **options)
        self.segments = m
        n = self.n = m.n
        gaps = np.arange(m.min_size, n - m.min_size + 1)
        self.gaps = gaps[m.x[gaps] > m.x[gaps - 1]]
        steps = (np.arange(n)[:, None] >= self.gaps[None, :]).astype(float)
        centred = m.x - 0.5
        log_w, gram, proj, yy, logdet = [], [], [], [], []
        for shape in m.grid:
            smooth = 0.0
            if shape.ratio > 0:
                smooth = shape.ratio**2 * matern_kernel(m.x, m.x, shape.lengthscale, shape.nu)
            for log_ws, slope_var in m.slope_prior:
                C = np.eye(n) + smooth + m.level_var + slope_var * np.outer(centred, centred)
                L = cholesky(C, lower=True)
                yt = solve_triangular(L, m.y, lower=True)
                Ht = solve_triangular(L, steps, lower=True)
                log_w.append(shape.log_weight + log_ws)
                gram.append(Ht.T @ Ht)
                proj.append(Ht.T @ yt)
                yy.append(yt @ yt)
                logdet.append(2.0 * np.log(np.diag(L)).sum())
        self.log_weights = np.array(log_w)
        self.gram, self.proj = np.array(gram), np.array(proj)
        self.yy, self.logdet = np.array(yy), np.array(logdet)
        self.log_norm = (
            gammaln(m.a0 + n / 2) - gammaln(m.a0) + m.a0 * np.log(m.b0) - n / 2 * np.log(2 * np.pi)
        )
        self.log_prior_k = np.array(
            [
                -np.log(m.max_jumps + 1) - log_configurations(n, k, m.min_size)
                for k in range(m.max_jumps + 1)
            ]
        )

    def log_evidence(self, jumps: list[int]) -> np.ndarray:
        """log p(scaled y | jumps, shape) for every shape of the grid (slope components apart).

        Parameters
        ----------
        jumps : list of int
            Indices into :attr:`gaps`.
        """
        m, k = self.segments, len(jumps)
        if k == 0:
            q, logdet = self.yy, self.logdet
        else:
            idx = np.asarray(jumps)
            A = self.gram[:, idx[:, None], idx[None, :]] + np.eye(k) / m.level_var
            chol = np.linalg.cholesky(A)
            z = np.linalg.solve(chol, self.proj[:, idx, None])[..., 0]
            q = self.yy - (z * z).sum(axis=1)
            logdet = self.logdet + k * np.log(m.level_var)
            logdet = logdet + 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        return self.log_norm - 0.5 * logdet - (m.a0 + self.n / 2) * np.log(m.b0 + q / 2)

    def allowed(self, jumps: list[int]) -> bool:
        """Whether every piece of the partition holds ``min_size`` observations."""
        edges = np.concatenate([[0], self.gaps[np.asarray(jumps, dtype=int)], [self.n]])
        return len(jumps) <= self.segments.max_jumps and bool(
            np.all(np.diff(edges) >= self.segments.min_size)
        )

    def log_target(self, jumps: list[int]) -> float:
        """log p(jumps, scaled y), the shapes summed out; −inf for a partition not allowed."""
        if not self.allowed(jumps):
            return -np.inf
        return float(
            self.log_prior_k[len(jumps)] + logsumexp(self.log_weights + self.log_evidence(jumps))
        )


def sample(model: LevelShiftModel, iterations: int, rng: np.random.Generator) -> list[list[int]]:
    """One Metropolis–Hastings chain over the sets of jumps, started with none.

    Each step adds a jump at a gap drawn uniformly, removes one drawn uniformly, or moves
    one (by up to three gaps, or anywhere); the proposal ratios of adding and removing are
    those of these uniform draws.
    """
    state: list[int] = []
    current = model.log_target(state)
    g = len(model.gaps)
    out = []
    for _ in range(iterations):
        move, k = rng.random(), len(state)
        proposal, log_ratio = None, 0.0
        if move < 0.35:
            j = int(rng.integers(g))
            if j not in state:
                proposal, log_ratio = sorted([*state, j]), np.log(g) - np.log(k + 1)
        elif move < 0.7 and k:
            i = int(rng.integers(k))
            proposal, log_ratio = state[:i] + state[i + 1 :], np.log(k) - np.log(g)
        elif k:
            i = int(rng.integers(k))
            near = rng.random() < 0.7
            j = state[i] + int(rng.choice([-3, -2, -1, 1, 2, 3])) if near else int(rng.integers(g))
            if 0 <= j < g and j not in state:
                proposal = sorted([*state[:i], *state[i + 1 :], j])
        if proposal is not None:
            target = model.log_target(proposal)
            if np.log(rng.random()) < target - current + log_ratio:
                state, current = proposal, target
        out.append(list(state))
    return out


def detect(
    x: np.ndarray,
    y: np.ndarray,
    chains: int = 4,
    iterations: int = 2500,
    burn: int = 500,
    seed: int = 0,
) -> tuple[list[int], np.ndarray]:
    """The change points decided and the sampled P(K = k | y) of the level-shift model."""
    model = LevelShiftModel(x, y)
    rng = np.random.default_rng(seed)
    draws = [d for _ in range(chains) for d in sample(model, iterations, rng)[burn:]]
    counts = np.array([len(d) for d in draws])
    cuts = np.full((len(draws), max(1, counts.max())), -1)
    for row, d in zip(cuts, draws, strict=True):
        row[: len(d)] = model.gaps[np.asarray(d, dtype=int)]
    p_k = np.bincount(counts, minlength=model.segments.max_jumps + 1) / len(draws)
    thinned = np.linspace(0, len(draws) - 1, min(1000, len(draws))).astype(int)
    k = _best_f1_count(cuts[thinned], counts[thinned], p_k, margin=5)
    if k == 0:
        return [], p_k
    return np.median(cuts[counts == k][:, :k], axis=0).round().astype(int).tolist(), p_k


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-real", action="store_true", help="skip the real series")
    parser.add_argument("--synthetic", type=int, default=40, help="synthetic series (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic series")
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=2500, help="per chain, 500 burnt")
    parser.add_argument("--max-n", type=int, default=MAX_N, help=f"default {MAX_N}")
    parser.add_argument("--csv", type=Path, help="write the per-series table here")
    args = parser.parse_args(argv)
    if args.iterations <= 500 or args.chains < 1:
        parser.error("--iterations must exceed the 500 burnt and --chains be at least 1")
    series: list[Series] = [] if args.no_real else real_series()
    for s in series:
        s.x = np.arange(len(s.y), dtype=float)
    series += synthetic_series(args.synthetic, args.seed)
    rows = []
    for s in series:
        if len(s.y) > args.max_n:
            print(f"{s.name}: {len(s.y)} values, longer than --max-n, left out", flush=True)
            continue
        start = time.perf_counter()
        cuts, p_k = detect(s.x, s.y, args.chains, args.iterations, seed=args.seed)
        took = time.perf_counter() - start
        post = find_jumps(s.x, s.y, draws=500, chains=4)
        row = {"series": s.name, "kind": s.kind, "n": len(s.y), "true_k": len(s.annotations[0])}
        row["k_shifts"], row["time_shifts"] = len(cuts), took
        row["f1_shifts"], row["cover_shifts"] = score(s, cuts)
        row["k_segments"] = post.n_jumps
        row["f1_segments"], row["cover_segments"] = score(s, post.change_points)
        rows.append(row)
        print(
            f"{s.name:30s} n={len(s.y):4d} K true {row['true_k']} shifts {len(cuts)} "
            f"(P {p_k[len(cuts)]:.2f}) segments {post.n_jumps}  "
            f"F1 {row['f1_shifts']:.3f} / {row['f1_segments']:.3f}  "
            f"cover {row['cover_shifts']:.3f} / {row['cover_segments']:.3f}  {took:.1f} s",
            flush=True,
        )
    table = pd.DataFrame(rows)
    scores = ["f1_shifts", "f1_segments", "cover_shifts", "cover_segments"]
    for kind, part in table.groupby("kind", sort=False):
        for label, sub in (("", part), (" with a change", part[part.true_k > 0])):
            means = "  ".join(f"{c} {sub[c].mean():.3f}" for c in scores)
            print(f"{kind}{label} ({len(sub)} series)  {means}")
    if args.csv is not None:
        table.to_csv(args.csv, index=False)
        print(f"saved {args.csv}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
