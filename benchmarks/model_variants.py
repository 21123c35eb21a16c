"""Variants of the segment model that were tried and left out of the defaults.

``python benchmarks/model_variants.py VARIANT [jumps_real.py's options]`` runs the
benchmark of ``benchmarks/jumps_real.py`` (same options, same table and CSV) with one change
to :class:`pymc_vsk.jumps.segments.SegmentModel`:

``piece-shapes``
    Each piece draws its own smooth-part shape (ν, ℓ, r) from the grid instead of all pieces
    sharing one: the segment evidence is averaged over the grid, with the shapes' prior
    weights, before the partition recursion (a model chosen per segment, as in Fearnhead,
    2006). The reported shape summaries are then meaningless; the count and the jumps are
    not.
``warp-choice-paid``
    The log warp chosen among the candidates (:func:`~pymc_vsk.jumps.warps.warp_candidates`)
    is charged the log of their number, as the season is charged for the periods tried: the
    prior mass 1/2 of the warps is spread over every candidate, and only the best one is
    fitted (a lower bound of their average evidence).
``noise-levels``
    The centre of the noise scales' prior, estimated from the first differences, is not
    taken as known: it is a hyperparameter shared by every piece, on the grid
    ``NOISE_FACTORS`` times the estimate, each a priori equally likely, and averaged over by
    the evidence like the smooth part's shape. Each piece keeps its own noise scale. The
    reported shape summaries are then meaningless (the factor is carried in ν's place); the
    count and the jumps are not. It triples the time.
``tempered``
    Each piece's evidence is raised to the power ``TEMPERATURE`` = 1/2, as the generalised
    (power) posteriors proposed for models that are wrong in ways the data show (Grünwald
    and van Ommen, 2017): real noise is seldom white and normal, and an untempered evidence
    grows with n where the model misses. A jump must then gain twice the evidence to pay
    for its place. The warps, seasons and shapes are weighed with the tempered evidence too,
    and the Jacobian of the warp and of the scaling of y, a factor of the likelihood of y,
    takes the same power.
``lengthscale-prior``
    The smooth part's length scales get the penalised-complexity prior of a Matérn field's
    range in one dimension (Fuglstad, Simpson, Lindgren and Rue, 2019),
    π(ℓ) = (λ/2) ℓ^(-3/2) exp(-λ ℓ^(-1/2)), with P(ℓ < ``PC_SPACINGS`` node spacings) =
    ``PC_PROBABILITY``, instead of the same weight for every ℓ of the log-spaced grid: a
    smooth part rough enough to follow a jump is then a priori unlikely, unless the data
    insist. Each (ν, r) keeps its prior mass; only its spread over ℓ changes.

For example ``python benchmarks/model_variants.py piece-shapes --draws 500 --skip co2
--synthetic 0 --seasonal 0 --dependent 0 --trending 0`` scores the real series other than
CO₂; ``benchmarks/jumps_real.py`` with the same options gives the defaults' scores.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks.jumps_real import main as benchmark
from pymc_vsk.jumps.segments import SegmentModel, Shape, partition_evidence
from pymc_vsk.jumps.warps import warp_candidates


@contextmanager
def _patched(**methods: object) -> Iterator[None]:
    """Replace methods of :class:`SegmentModel` for the duration of the block."""
    before = {name: vars(SegmentModel)[name] for name in methods}
    for name, method in methods.items():
        setattr(SegmentModel, name, method)
    try:
        yield
    finally:
        for name, method in before.items():
            setattr(SegmentModel, name, method)


def piece_shapes() -> AbstractContextManager[None]:
    """Let every piece draw its own shape: one mixed segment evidence for the whole grid."""
    shared_evidence = SegmentModel.evidence

    def evidence(
        self: SegmentModel, lengthscale: float, ratio: float, nu: float = 2.5
    ) -> np.ndarray:
        mixed = getattr(self, "mixed_evidence", None)
        return mixed if mixed is not None else shared_evidence(self, lengthscale, ratio, nu)

    def count_evidence(
        self: SegmentModel, prior_k: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        if prior_k is None:
            prior_k = self.log_prior_counts()
        mixed = None
        for shape in self.grid:
            P = shared_evidence(self, shape.lengthscale, shape.ratio, shape.nu)
            P = P + shape.log_weight
            mixed = P if mixed is None else np.logaddexp(mixed, P)
        self.mixed_evidence = mixed
        E = partition_evidence(mixed, self.max_jumps, self.min_size)
        # one entry holds the whole mixture; the other shapes get no mass
        logp = np.full((len(self.grid), self.max_jumps + 1), -np.inf)
        logp[0] = prior_k + E[:, self.n] + self.log_jacobian - self.log_penalty
        return logp, [E] * len(self.grid)

    return _patched(evidence=evidence, count_evidence=count_evidence)


def warp_choice_paid() -> AbstractContextManager[None]:
    """Charge the chosen warp the log of the number of warps it was chosen among."""
    init = SegmentModel.__init__

    def paid(self: SegmentModel, x: np.ndarray, y: np.ndarray, **options) -> None:
        init(self, x, y, **options)
        if options.get("warp") is not None:
            self.log_penalty += np.log(len(warp_candidates(y)))

    return _patched(__init__=paid)


#: Factors of the noise variance estimated from the first differences (``noise-levels``).
NOISE_FACTORS = (0.25, 1.0, 4.0)
#: ν of the grid's shapes is shifted by this much times the index of their noise factor.
_FACTOR_SHIFT = 10.0


def noise_levels() -> AbstractContextManager[None]:
    """Average over the centre of the noise scales' prior, a hyperparameter of the series."""
    init, priors = SegmentModel.__init__, SegmentModel._priors

    def tripled(self: SegmentModel, x: np.ndarray, y: np.ndarray, **options) -> None:
        init(self, x, y, **options)
        share = np.log(len(NOISE_FACTORS))
        self.grid = [
            Shape(s.lengthscale, s.ratio, s.log_weight - share, s.nu + _FACTOR_SHIFT * i)
            for i in range(len(NOISE_FACTORS))
            for s in self.grid
        ]

    def scaled(self: SegmentModel, lengthscale: float, ratio: float, nu: float = 2.5) -> dict:
        i = int(nu // _FACTOR_SHIFT)
        out = priors(self, lengthscale, ratio, nu - _FACTOR_SHIFT * i)
        out["b0"] = out["b0"] * NOISE_FACTORS[i]
        return out

    return _patched(__init__=tripled, _priors=scaled)


#: Power of each piece's evidence (``tempered``).
TEMPERATURE = 0.5


def tempered() -> AbstractContextManager[None]:
    """Raise every piece's evidence to the power :data:`TEMPERATURE`."""
    init, evidence = SegmentModel.__init__, SegmentModel.evidence

    def scaled(self: SegmentModel, x: np.ndarray, y: np.ndarray, **options) -> None:
        init(self, x, y, **options)
        self.log_jacobian *= TEMPERATURE

    def powered(
        self: SegmentModel, lengthscale: float, ratio: float, nu: float = 2.5
    ) -> np.ndarray:
        return TEMPERATURE * evidence(self, lengthscale, ratio, nu)

    return _patched(__init__=scaled, evidence=powered)


#: The penalised-complexity prior of the length scales (``lengthscale-prior``):
#: P(ℓ < PC_SPACINGS node spacings) = PC_PROBABILITY.
PC_SPACINGS = 3.0
PC_PROBABILITY = 0.05


def lengthscale_log_prior(ells: np.ndarray, spacing: float) -> np.ndarray:
    """Log weights of the grid's length scales under the penalised-complexity prior.

    On a log-spaced grid the mass at ℓ is π(ℓ)·ℓ ∝ ℓ^(-1/2) exp(-λ ℓ^(-1/2)), with λ set by
    P(ℓ < ``PC_SPACINGS`` · spacing) = exp(-λ (``PC_SPACINGS`` · spacing)^(-1/2)) =
    ``PC_PROBABILITY``; the weights are normalised over the grid.
    """
    lam = -np.log(PC_PROBABILITY) * np.sqrt(PC_SPACINGS * spacing)
    log_w = -0.5 * np.log(ells) - lam / np.sqrt(ells)
    return log_w - np.logaddexp.reduce(log_w)


def lengthscale_prior() -> AbstractContextManager[None]:
    """Spread each (ν, r)'s prior mass over ℓ by the penalised-complexity prior."""
    init = SegmentModel.__init__

    def penalised(self: SegmentModel, x: np.ndarray, y: np.ndarray, **options) -> None:
        init(self, x, y, **options)
        blocks: dict[tuple[float, float], list[int]] = {}
        for i, shape in enumerate(self.grid):
            if shape.ratio > 0:
                blocks.setdefault((shape.nu, shape.ratio), []).append(i)
        grid = list(self.grid)
        for members in blocks.values():
            ells = np.array([grid[i].lengthscale for i in members])
            mass = np.logaddexp.reduce([grid[i].log_weight for i in members])
            for i, log_w in zip(members, lengthscale_log_prior(ells, self.spacing), strict=True):
                grid[i] = grid[i]._replace(log_weight=mass + log_w)
        self.grid = grid

    return _patched(__init__=penalised)


#: Each variant's patch of :class:`SegmentModel`, undone when its block ends.
VARIANTS: dict[str, Callable[[], AbstractContextManager[None]]] = {
    "piece-shapes": piece_shapes,
    "warp-choice-paid": warp_choice_paid,
    "noise-levels": noise_levels,
    "tempered": tempered,
    "lengthscale-prior": lengthscale_prior,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in VARIANTS:
        print(f"usage: model_variants.py {{{','.join(VARIANTS)}}} [jumps_real.py options]")
        return 2
    with VARIANTS[argv[0]]():
        return benchmark(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
