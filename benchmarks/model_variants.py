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
``safe-bayes``
    The power of ``tempered`` chosen from the data, for each series, among
    ``SAFE_POWERS`` = (1, 1/2): SafeBayes (Grünwald and van Ommen, 2017), the power whose
    tempered posterior predicts each observation from the ones before it with the least
    cumulative log loss (``SAFE_LOSS``: "R", the loss expected under that posterior, or "I",
    the loss of its predictive). The sequential predictions need a prior of the partitions
    that can be updated one observation at a time: a jump before each observation with a
    probability h once the running segment holds ``min_size`` observations, h uniform over
    (0, max_jumps / n) (on a grid), which gives, as the model's prior does, about equal
    prior mass to each number of jumps up to max_jumps and every placement of them equal
    weight. The power is chosen once for all the models of a series (with and without the
    warp and the season).

``cover-decision``
    The count decided by the largest posterior expected mean of F1 and segmentation
    covering (weight ``COVER_WEIGHT`` = 1/2 on the covering) instead of F1 alone: the Bayes
    decision for both scores of the benchmark, with the same candidate answers and the same
    posterior draws taken as the truth. The model is unchanged.

For example ``python benchmarks/model_variants.py piece-shapes --draws 500 --skip co2
--synthetic 0 --seasonal 0 --dependent 0 --trending 0`` scores the real series other than
CO₂; ``benchmarks/jumps_real.py`` with the same options gives the defaults' scores.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from unittest import mock

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba
import numpy as np
from scipy.special import logsumexp

from benchmarks.jumps_real import main as benchmark
from pymc_vsk.jumps import detection
from pymc_vsk.jumps.scores import covering, f1_score
from pymc_vsk.jumps.segments import SegmentModel, Shape, partition_evidence, segment_evidence
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


#: Powers of the likelihood among which ``safe-bayes`` chooses.
SAFE_POWERS = (1.0, 0.5)
#: The loss by which the power is chosen: "I" (the log loss of the tempered posterior's
#: predictive) or "R" (the tempered posterior's expected log loss).
SAFE_LOSS = "R"
#: Rates of a jump per observation on which the sequential prior of the partitions is drawn
#: (``safe-bayes``): these fractions of max_jumps / n, each equally likely.
_HAZARD_FRACTIONS = (1 / 12, 3 / 12, 5 / 12, 7 / 12, 9 / 12, 11 / 12)


@numba.njit(cache=True)
def _sequential(P, power, hazard, min_size):  # pragma: no cover
    """Sequential predictions of a partition model whose partitions are tempered by ``power``.

    A jump is placed before each observation with probability ``hazard`` (once the running
    segment holds ``min_size`` observations and room is left for a last one); each
    observation's predictive is the mixture, over where its segment starts, of the
    segment's predictive ``exp(P[s, t + 1] - P[s, t])`` weighted by the tempered posterior
    of the start given the earlier observations.

    Returns the log tempered mass of every prefix (``log_mass[t]``: the observations before
    t), the log predictive of each observation (``log_pred``) and its log predictive given
    the start and the cut, averaged over their tempered posterior (``mean_log``; Jensen's
    inequality puts it below ``log_pred``). At power 1 the predictives chain into the
    evidence: ``log_pred.sum() == log_mass[n]``.
    """
    n = P.shape[0]
    log_mass = np.zeros(n + 1)
    log_pred = np.zeros(n)
    mean_log = np.zeros(n)
    w = np.full(n, -np.inf)  # log tempered mass of "the running segment starts at s"
    lh, lc = np.log(hazard), np.log1p(-hazard)
    for t in range(n):
        new = P[t, t + 1]
        if t == 0:
            log_pred[0] = new
            mean_log[0] = new
            w[0] = power * new
            log_mass[1] = w[0]
            continue
        room = t <= n - min_size
        terms = np.full(2 * t, -np.inf)
        cut = -np.inf
        expected = 0.0
        for s in range(t):
            if w[s] == -np.inf:
                continue
            a = w[s] - log_mass[t]
            can = room and t - s >= min_size and new > -np.inf
            stay = lc if can else 0.0
            grow = P[s, t + 1] - P[s, t]
            terms[2 * s] = a + stay + grow
            expected += np.exp(a + stay) * grow
            if can:
                terms[2 * s + 1] = a + lh + new
                expected += np.exp(a + lh) * new
                c = w[s] + lh
                hi = max(cut, c)
                cut = hi + np.log(np.exp(cut - hi) + np.exp(c - hi))
            w[s] = w[s] + stay + power * grow
        hi = terms.max()
        log_pred[t] = hi + np.log(np.sum(np.exp(terms - hi)))
        mean_log[t] = expected
        w[t] = cut + power * new if cut > -np.inf else -np.inf
        hi = w[: t + 1].max()
        log_mass[t + 1] = hi + np.log(np.sum(np.exp(w[: t + 1] - hi)))
    return log_mass, log_pred, mean_log


def observation_jacobians(model: SegmentModel, y: np.ndarray) -> np.ndarray:
    """``log |dz/dy|`` of each observation y (the data the model was built on), z the model's
    y (warped, scaled): they sum to the model's ``log_jacobian``."""
    jac = np.full(len(y), -np.log(model.y_scale))
    if model.warp is not None:
        sign, offset = model.warp
        lo, hi = float(np.min(y)), float(np.max(y))
        span = hi - lo if hi > lo else 1.0
        u = (y - lo) / span if sign > 0 else (hi - y) / span
        jac -= np.log(u + offset) + np.log(span)
    return jac


def safe_power(models: list[SegmentModel]) -> tuple[float, dict[str, dict[float, float]]]:
    """The power of :data:`SAFE_POWERS` whose tempered posterior predicts y best in sequence.

    Every model, shape of its grid and rate of jumps (:data:`_HAZARD_FRACTIONS`) is weighed
    by its prior and its tempered evidence of the observations before each one (the
    Jacobian of the warp and of the scaling tempered too, a season's penalty not). Two
    cumulative losses of the predictions of y are computed for each power (Grünwald and
    van Ommen, 2017): ``"I"``, the log loss of the mixture's predictive, and ``"R"``, the
    log loss expected under the tempered posterior, which also charges a posterior that
    spreads its mass; :data:`SAFE_LOSS` names the one that chooses.

    Returns
    -------
    power : float
    losses : dict
        ``{"I": {power: loss}, "R": {power: loss}}``, in nats.
    """
    masses: dict[float, list[np.ndarray]] = {power: [] for power in SAFE_POWERS}
    preds: dict[float, list[np.ndarray]] = {power: [] for power in SAFE_POWERS}
    means: dict[float, list[np.ndarray]] = {power: [] for power in SAFE_POWERS}
    for model in models:
        jac = observation_jacobians(model, model.raw_y)
        before = np.concatenate([[0.0], np.cumsum(jac)[:-1]])  # the Jacobian of y[:t]
        rate = model.max_jumps / model.n
        for shape in model.grid:
            priors = model._priors(shape.lengthscale, shape.ratio, shape.nu)
            # every run's evidence, the shortest too: each observation's predictive
            P = segment_evidence(model.x, model.y, **{**priors, "min_size": 1})
            P[1:][np.diff(model.x) == 0] = -np.inf
            prior = shape.log_weight - np.log(len(_HAZARD_FRACTIONS) * len(models))
            prior -= model.log_penalty
            for power in SAFE_POWERS:
                for frac in _HAZARD_FRACTIONS:
                    log_mass, log_pred, mean_log = _sequential(
                        P, power, frac * rate, model.min_size
                    )
                    masses[power].append(prior + log_mass[:-1] + power * before)
                    preds[power].append(log_pred + jac)
                    means[power].append(mean_log + jac)
    losses: dict[str, dict[float, float]] = {"I": {}, "R": {}}
    for power in SAFE_POWERS:
        mass = np.array(masses[power])
        weights = mass - logsumexp(mass, axis=0)
        losses["I"][power] = float(-np.sum(logsumexp(weights + np.array(preds[power]), axis=0)))
        losses["R"][power] = float(-np.sum(np.exp(weights) * np.array(means[power])))
    chosen = losses[SAFE_LOSS]
    return min(chosen, key=chosen.__getitem__), losses


#: Models built and not yet given their power (``safe-bayes``).
_WAITING: list[SegmentModel] = []


def safe_bayes() -> AbstractContextManager[None]:
    """Temper every piece's evidence by a power chosen from the data (:func:`safe_power`).

    The power is chosen once for all the models built for one series (with and without
    the warp and the season), when the first of them weighs its partitions.
    """
    init, count_evidence = SegmentModel.__init__, SegmentModel.count_evidence

    def registered(self: SegmentModel, x: np.ndarray, y: np.ndarray, **options) -> None:
        init(self, x, y, **options)
        self.raw_x, self.raw_y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        self.power = None
        _WAITING.append(self)

    def tempered_count(
        self: SegmentModel, prior_k: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        if self.power is None:
            batch = [
                m
                for m in _WAITING
                if m.drift is not None
                and np.array_equal(m.raw_x, self.raw_x)
                and np.array_equal(m.raw_y, self.raw_y)
            ]
            start = time.perf_counter()
            power, losses = safe_power(batch)
            print(
                f"  safe-bayes power {power:g} ({time.perf_counter() - start:.1f} s); log loss "
                + "; ".join(
                    f"{name} " + ", ".join(f"{p:g}: {v:.2f}" for p, v in by.items())
                    for name, by in losses.items()
                ),
                file=sys.stderr,
                flush=True,
            )
            for m in batch:
                m.power = power
            _WAITING.clear()  # the models of other data are stale
        if self.power != 1.0 and "evidence" not in vars(self):
            # every later use of the pieces' evidence (the draws too) is tempered
            evidence, power = SegmentModel.evidence, self.power

            def powered(lengthscale: float, ratio: float, nu: float = 2.5) -> np.ndarray:
                return power * evidence(self, lengthscale, ratio, nu)

            self.evidence = powered
            self.log_jacobian *= power
        return count_evidence(self, prior_k)

    return _patched(__init__=registered, count_evidence=tempered_count)


#: Weight of the covering in the score of ``cover-decision`` (the F1 has the rest).
COVER_WEIGHT = 0.5


def cover_decision() -> AbstractContextManager[None]:
    """Decide the count by the posterior expected mean of F1 and covering: the decision's
    score, ``f1_score`` as :mod:`pymc_vsk.jumps.detection` reads it, is replaced."""
    check = detection._check
    length = [0]  # the series' length, which the covering needs

    def checked(x: np.ndarray, y: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = check(x, y, min_size)
        length[0] = len(x)
        return x, y

    def mixed(annotations: list[set[int]], predicted: list[int], margin: int) -> float:
        f1 = f1_score(annotations, predicted, margin)
        return (1 - COVER_WEIGHT) * f1 + COVER_WEIGHT * covering(annotations, predicted, length[0])

    return mock.patch.multiple(detection, _check=checked, f1_score=mixed)


#: Each variant's patch of :class:`SegmentModel` (or of the decision), undone when its block
#: ends.
VARIANTS: dict[str, Callable[[], AbstractContextManager[None]]] = {
    "piece-shapes": piece_shapes,
    "warp-choice-paid": warp_choice_paid,
    "noise-levels": noise_levels,
    "tempered": tempered,
    "lengthscale-prior": lengthscale_prior,
    "safe-bayes": safe_bayes,
    "cover-decision": cover_decision,
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
