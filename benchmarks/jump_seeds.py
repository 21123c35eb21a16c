"""How often :func:`pymc_vsk.jumps.find_jumps` gets simple series right, over many seeds.

``python benchmarks/jump_seeds.py`` runs ``find_jumps`` with its defaults on many seeded
copies of each series below and prints how its answers are spread: the figures that the
docstrings of ``tests/test_find_jumps.py`` and the documentation cite, and from which the
tests' tolerances were set (a test checks a few seeds; these sweeps show the margin).
``--only NAME`` runs one sweep; ``--option NAME=VALUE`` changes a prior (e.g.
``level_sd=2``).

The series (each a function of a seeded generator, shared with the tests):

* ``white_or_sine``: 80 values at random places in [0, 100], white noise of sd 0.5 on zero
  or on a sine of amplitude 2; no jump.
* ``step``: yearly values 1950–2029, noise sd 0.25, a step of 1.2 (4.8 noise sds) or 0.8
  (3.2) from 1987 on.
* ``three_steps``: 150 values, noise sd 0.3, levels 0, 1.5, −0.5, 1 changing at 40, 75, 115.
* ``end_step``: 60 values, noise sd 0.3, a step of 1.5 at 55.
* ``growth``: 100 values of smooth exponential growth with a slow cycle and noise 8 % of the
  level; no jump.
* ``monthly``: 10 years of monthly values from 1990, a seasonal profile of sd 2, unit noise
  and a step of 3 at a random month between the 30th and the 90th.
* ``counts_with_ties``: Poisson counts of mean 0.3 then 4, two per x at x = 0..39.
* ``sine_season``: a sine of period 4, 12 or 52 over 96 steps or 8 cycles, for
  :func:`~pymc_vsk.jumps.seasons.find_period`, with all nodes and with 10 % missing.
* ``ar1_step``: 120 values of AR(1) noise of unit sd (correlation ρ between neighbours),
  with or without a step of 2 at 70. Noise that is not white, as in most real series; no
  setting was chosen on these series.
* ``random_walk``: a random walk of unit steps (150 values by default), no jump: how prices,
  rates and levels of a slow process wander.
* ``recorded``: 100 values recorded to a resolution, with or without one change at a random
  place in the middle half: yes/no outcomes (probability 0.2, then 0.6), counts (Poisson of
  mean 1, then 2.5) and whole numbers (normal noise of sd 0.6 rounded, a step of 1.5). Most
  steps between neighbours are 0, which no setting was chosen on.
* ``kink``: 80 yearly values 1950–2029, noise sd 1, flat until a random year in the middle
  half, then rising by ``rise`` noise sds per decade: a change of the trend without a step.
* ``trend_drop``: 40 yearly values from 1960, unit white noise on a line rising by 0, 1 or 3
  noise sds a year, with or without a drop of 4 noise sds at a random year in the middle
  half: a steady trend (GDP, a population) and a setback.
* ``short_step``: 15, 20 or 30 values at x = 0, 1, ..., unit white noise, with a step of 0, 2
  or 4 noise sds at half way: the shortest series a user brings.
* ``three_short_steps``: 50 values at x = 0, 1, ..., unit white noise, three steps of 1.5
  to 4 noise sds either way at least 8 apart: a short series with several clean changes,
  where a smooth part of short length scale can follow the steps instead.
* ``smooth_season``: monthly (6 to 10 years) or weekly (156 to 400 weeks) values with a
  smooth season (a yearly wave and its first overtone, amplitude 1 to 3 noise sds), a random
  trend and 0 to 3 steps of 1.5 to 4 noise sds, as the synthetic series of
  ``benchmarks/jumps_real.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import ruptures as rpt
from scipy.signal import lfilter

from benchmarks.jumps_real import option_value, piecewise_smooth
from pymc_vsk.jumps import JumpPosterior, find_jumps
from pymc_vsk.jumps.scores import covering, f1_score
from pymc_vsk.jumps.seasons import find_period


def white_or_sine(rng: np.random.Generator, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """80 noisy values without a jump: white noise (``kind="noise"``) or a sine."""
    x = np.sort(rng.uniform(0, 100, 80))
    base = 0.0 if kind == "noise" else 2.0 * np.sin(x / 12)
    return x, base + 0.5 * rng.normal(size=80)


def step(rng: np.random.Generator, size: float = 1.2) -> tuple[np.ndarray, np.ndarray]:
    """Yearly values 1950–2029 with noise sd 0.25 and a step of ``size`` from 1987 on."""
    x = np.arange(1950.0, 2030.0)
    return x, 10 + size * (x >= 1987) + 0.25 * rng.normal(size=x.size)


def three_steps(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """150 values, noise sd 0.3, steps at 40, 75 and 115."""
    x = np.arange(150.0)
    level = np.select([x < 40, x < 75, x < 115], [0.0, 1.5, -0.5], 1.0)
    return x, level + 0.3 * rng.normal(size=x.size)


def end_step(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """60 values, noise sd 0.3, a step of 1.5 at 55."""
    x = np.arange(60.0)
    return x, 1.5 * (x >= 55) + 0.3 * rng.normal(size=60)


def growth(rng: np.random.Generator, n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Smooth exponential growth with a slow cycle, noise 8 % of the level, no jump."""
    t = np.arange(float(n))
    z = 3 * t / n + 0.1 * np.sin(2 * np.pi * t / 25) + 0.08 * rng.normal(size=n)
    return t, 10 * np.exp(z)


def monthly(
    rng: np.random.Generator, jump: float = 3.0, n: int = 120
) -> tuple[np.ndarray, np.ndarray, int]:
    """Monthly data from 1990: a seasonal profile of sd 2, unit noise, a step at month c."""
    x = 1990 + np.arange(n) / 12
    profile = rng.normal(size=12)
    profile = 2.0 * (profile - profile.mean()) / profile.std()
    c = int(rng.integers(30, 90))
    y = 50 + profile[np.arange(n) % 12] + jump * (np.arange(n) >= c) + rng.normal(size=n)
    return x, y, c


def counts_with_ties(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Poisson counts of mean 0.3 then 4 (the change between x = 19 and 20), two per x."""
    y = np.r_[rng.poisson(0.3, 40), rng.poisson(4.0, 40)].astype(float)
    return np.repeat(np.arange(40.0), 2), y


def ar1_step(
    rng: np.random.Generator, rho: float, jump: float, n: int = 120
) -> tuple[np.ndarray, np.ndarray]:
    """AR(1) noise of unit sd with lag-one correlation ``rho``, plus ``jump`` from x = 70."""
    shocks = rng.normal(size=n)
    shocks[1:] *= np.sqrt(1 - rho**2)  # the first value has the stationary sd already
    e = lfilter([1.0], [1.0, -rho], shocks)  # e[i] = rho e[i-1] + shocks[i]
    x = np.arange(float(n))
    return x, e + jump * (x >= 70)


def random_walk(rng: np.random.Generator, n: int = 150) -> np.ndarray:
    """A random walk of ``n`` unit steps, no jump."""
    return np.cumsum(rng.normal(size=n))


def kink(rng: np.random.Generator, rise: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Yearly values 1950–2029, flat then rising by ``rise`` noise sds per decade from a
    random year in the middle half; noise sd 1. Returns x, y and the year of the kink."""
    x = np.arange(1950.0, 2030.0)
    at = float(rng.integers(1970, 2010))
    return x, rise * np.maximum(x - at, 0.0) / 10 + rng.normal(size=x.size), at


def recorded(
    rng: np.random.Generator, kind: str, change: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    """100 values of a kind recorded to a resolution, with one change at c (or none)."""
    c = int(rng.integers(25, 75))
    after = np.arange(100) >= c if change else np.zeros(100, dtype=bool)
    if kind == "yes/no":
        y = rng.binomial(1, np.where(after, 0.6, 0.2))
    elif kind == "counts":
        y = rng.poisson(np.where(after, 2.5, 1.0))
    else:
        y = np.round(1.5 * after + 0.6 * rng.normal(size=100))
    return np.arange(100.0), y.astype(float), c


def trend_drop(
    rng: np.random.Generator, rise: float, drop: float, n: int = 40
) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` yearly values from 1960 of unit white noise on a line rising by ``rise`` noise sds
    a year, falling by ``drop`` at a random year in the middle half (and rising on from
    there); also the index of that year."""
    at = int(rng.integers(n // 4, 3 * n // 4))
    x = 1960.0 + np.arange(n)
    y = rise * np.arange(n) - drop * (np.arange(n) >= at) + rng.normal(size=n)
    return x, y, at


def sine_season(rng: np.random.Generator, period: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sine of ``period`` steps over 96 steps or 8 cycles, whichever is longer, noise sd
    0.5, a slight trend; also the indices of 90 % of the nodes (the rest missing)."""
    t = np.arange(max(96, 8 * period))
    y = np.sin(2 * np.pi * t / period) + 0.5 * rng.normal(size=t.size) + 0.01 * t
    kept = np.sort(rng.choice(t.size, size=int(0.9 * t.size), replace=False))
    return 3.0 + 0.5 * t, y, kept


def short_step(rng: np.random.Generator, n: int, size: float) -> tuple[np.ndarray, np.ndarray]:
    """``n`` values of unit white noise at x = 0..n-1, with a step of ``size`` from ``n // 2``."""
    x = np.arange(n, dtype=float)
    return x, rng.normal(size=n) + size * (x >= n // 2)


def three_short_steps(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """50 values of unit white noise at x = 0..49 with three steps of 1.5 to 4 noise sds either
    way, at least 8 apart; also the first index after each step."""
    places = sorted(rng.choice(np.arange(5, 46), size=3, replace=False).tolist())
    while min(np.diff(places)) < 8:
        places = sorted(rng.choice(np.arange(5, 46), size=3, replace=False).tolist())
    x = np.arange(50.0)
    y = rng.normal(size=50)
    for c in places:
        y[c:] += rng.choice([-1.0, 1.0]) * rng.uniform(1.5, 4.0)
    return x, y, places


def wild_values(
    rng: np.random.Generator, size: float, jump: float, count: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """120 values of unit noise, a step of ``jump`` at x = 60 (0: none), and ``count`` wild
    values ``size`` noise sds above or below the rest, apart from the step and the ends; also
    their x."""
    x = np.arange(120.0)
    y = rng.normal(size=120) + jump * (x >= 60)
    places = np.sort(rng.choice(np.r_[5:50, 70:115], size=count, replace=False))
    y[places] += size * rng.choice([-1.0, 1.0], size=count)
    return x, y, x[places]


def _nearest(post: JumpPosterior, location: float) -> float:
    """Distance from ``location`` to the nearest reported jump (inf without any)."""
    return min((abs(j.location - location) for j in post.jumps), default=np.inf)


def no_jump(options: dict) -> None:
    for kind in ("noise", "sine"):
        p0, counts, weighed, rough = [], [], 0, []
        for s in range(1000, 1060):
            x, y = white_or_sine(np.random.default_rng(s), kind)
            post = find_jumps(x, y, draws=100, chains=2, **options)
            p0.append(post.p_n_jumps[0])
            counts.append(post.n_jumps)
            weighed += len(post.models) > 1
            rough.append(post.p_smooth_part["Ornstein–Uhlenbeck"])
        p0 = np.array(p0)
        print(
            f"{kind}, 60 seeds: P(K = 0) mean {p0.mean():.3f}, sd {p0.std():.3f}, min "
            f"{p0.min():.3f}; K > 0 on {sum(k > 0 for k in counts)}; another model weighed "
            f"on {weighed}; P(Ornstein-Uhlenbeck | y) median {np.median(rough):.2f}, max "
            f"{np.max(rough):.2f}"
        )


def steps(options: dict) -> None:
    for size, seeds in ((1.2, range(2000, 2060)), (0.8, range(2000, 2019))):
        counts, p0, places, probs, widths = [], [], [], [], []
        for s in seeds:
            x, y = step(np.random.default_rng(s), size)
            post = find_jumps(x, y, draws=250, chains=2, **options)
            counts.append(post.n_jumps)
            p0.append(post.p_n_jumps[0])
            if post.jumps:
                jump = min(post.jumps, key=lambda j: abs(j.location - 1986.5))
                places.append(jump.location)
                probs.append(jump.probability)
                widths.append(jump.interval[1] - jump.interval[0])
        print(
            f"step of {size / 0.25:.1f} sds, {len(seeds)} seeds: counts {dict(Counter(counts))}, "
            f"P(K = 0) at most {max(p0):.3g}, nearest jump {dict(Counter(places))}, its "
            f"probability at least {min(probs):.3f}, interval widths {dict(Counter(widths))}"
        )


def three(options: dict) -> None:
    rows = []
    for s in range(3000, 3015):
        x, y = three_steps(np.random.default_rng(s))
        post = find_jumps(x, y, draws=250, chains=2, **options)
        rows.append((post.n_jumps, max(_nearest(post, t - 0.5) for t in (40, 75, 115))))
    print(f"three steps, 15 seeds: (count, largest distance to a true gap) {rows}")


def end(options: dict) -> None:
    rows = []
    for s in range(4000, 4019):
        x, y = end_step(np.random.default_rng(s))
        post = find_jumps(x, y, draws=250, chains=2, **options)
        rows.append((post.n_jumps, _nearest(post, 54.5)))
    print(f"a step near the end, 19 seeds: (count, distance to its gap) {rows}")


def warp(options: dict) -> None:
    p0, p0_as_is, counts = [], [], []
    for s in range(5000, 5030):
        x, y = growth(np.random.default_rng(s))
        post = find_jumps(x, y, draws=100, chains=2, **options)
        p0.append(post.p_n_jumps[0])
        counts.append(post.n_jumps)
        as_is = find_jumps(x, y, draws=100, chains=2, warp=False, **options)
        p0_as_is.append(as_is.p_n_jumps[0])
    print(
        f"growth, 30 seeds: P(K = 0) mean {np.mean(p0):.3f}, min {min(p0):.3f}, K > 0 on "
        f"{sum(k > 0 for k in counts)}; modelled as it is, P(K = 0) at most {max(p0_as_is):.3g}"
    )


def season(options: dict) -> None:
    rows = []
    for s in range(6000, 6030):
        x, y, c = monthly(np.random.default_rng(s))
        post = find_jumps(x, y, draws=100, chains=2, **options)
        without = find_jumps(x, y, draws=100, chains=2, season=False, **options)
        found = [abs(cut - c) for cut in post.change_points]
        period = post.model.season.period if post.model.season is not None else None
        rows.append(
            (
                post.n_jumps,
                min(found, default=-1),
                post.p_n_jumps[0],
                without.n_jumps,
                without.p_n_jumps[0],
                period,
                float(np.std(y - post.mean(x)[0])),
            )
        )
    counts, months, p0, counts_without, p0_without, periods, left = zip(*rows, strict=True)
    left_12 = [sd for sd, p in zip(left, periods, strict=True) if p == 12]
    print(
        f"monthly with a step of 3, 30 seeds: counts {dict(Counter(map(int, counts)))}, months "
        f"from the step to the nearest jump {dict(Counter(months))} (-1: none), P(K = 0) max "
        f"{max(p0):.3g}, median {np.median(p0):.3g}, mean {np.mean(p0):.3g}, the season's "
        f"period {dict(Counter(periods))}, sd of y less the posterior mean at most "
        f"{max(left_12, default=np.nan):.2f} where it is 12; without a season: counts "
        f"{dict(Counter(map(int, counts_without)))}, P(K = 0) min {min(p0_without):.3g}, mean "
        f"{np.mean(p0_without):.3g}"
    )


def periods(options: dict) -> None:
    """find_period on sines of period 4, 12 and 52, all nodes and 90 % of them."""
    del options  # find_period has no priors
    for period in (4, 12, 52):
        found = Counter()
        for s in range(9000, 9040):
            x, y, kept = sine_season(np.random.default_rng(s), period)
            found[(find_period(x, y), find_period(x[kept], y[kept]))] += 1
        print(f"period {period}, 40 seeds: (found, found with 10 % missing) {dict(found)}")


def ties(options: dict) -> None:
    rows = []
    for s in range(7000, 7040):
        x, y = counts_with_ties(np.random.default_rng(s))
        post = find_jumps(x, y, draws=200, chains=2, **options)
        rows.append((post.n_jumps, _nearest(post, 19.5), post.p_n_jumps[0]))
    p0 = np.array([r[2] for r in rows])
    print(
        f"counts with tied x, 40 seeds: counts {dict(Counter(r[0] for r in rows))}, distance "
        f"of the nearest jump {dict(Counter(r[1] for r in rows))}, P(K = 0) < 1e-3 on "
        f"{int((p0 < 1e-3).sum())}, at most {p0.max():.3g}"
    )


def ar1(options: dict) -> None:
    for rho in (0.3, 0.6):
        for jump in (0.0, 2.0):
            counts, found = [], 0
            for s in range(8000, 8030):
                x, y = ar1_step(np.random.default_rng(s), rho, jump)
                post = find_jumps(x, y, draws=100, chains=2, **options)
                counts.append(post.n_jumps)
                found += _nearest(post, 69.5) <= 5
            print(
                f"AR(1) noise, correlation {rho}, step {jump:g}, 30 seeds: counts "
                f"{dict(sorted(Counter(counts).items()))}"
                + (f", a jump within 5 of the step on {found}" if jump else "")
            )


def walk(options: dict) -> None:
    """Random walks, no jump: counts found, and the same with the Matérn 5/2 part alone."""
    for n in (100, 150, 300):
        for weight in (None, 0.0):
            extra = {} if weight is None else {"ou_weight": weight}
            counts, p0, rough = [], [], []
            for s in range(8100, 8130):
                y = random_walk(np.random.default_rng(s), n)
                post = find_jumps(np.arange(float(n)), y, draws=100, chains=2, **options, **extra)
                counts.append(post.n_jumps)
                p0.append(post.p_n_jumps[0])
                rough.append(post.p_smooth_part["Ornstein–Uhlenbeck"])
            print(
                f"random walk of {n} steps{'' if weight is None else ', ou_weight=0'}, 30 "
                f"seeds: counts {dict(sorted(Counter(counts).items()))}, P(K = 0 | y) median "
                f"{np.median(p0):.2f}, min {np.min(p0):.2f}; P(Ornstein-Uhlenbeck | y) median "
                f"{np.median(rough):.2f}, min {np.min(rough):.2f}"
            )


def discrete(options: dict) -> None:
    """Series recorded to a resolution (yes/no, counts, whole numbers): most steps are 0."""
    for kind in ("yes/no", "counts", "whole numbers"):
        counts, found, p0 = {}, 0, {}
        for change in (False, True):
            k, p = [], []
            for s in range(9500, 9530):
                x, y, at = recorded(np.random.default_rng(s), kind, change)
                post = find_jumps(x, y, draws=100, chains=2, **options)
                k.append(post.n_jumps)
                p.append(post.p_n_jumps[0])
                found += change and _nearest(post, at - 0.5) <= 5
            counts[change], p0[change] = dict(sorted(Counter(k).items())), np.mean(p)
        print(
            f"{kind}, 30 seeds: no change: counts {counts[False]}, P(K = 0) mean "
            f"{p0[False]:.3f}; one change: counts {counts[True]}, a jump within 5 of it on "
            f"{found}, P(K = 0) mean {p0[True]:.3f}"
        )


def kinks(options: dict) -> None:
    """A change of slope alone, against a segmented regression (ruptures' linear cost)."""
    for rise in (1.0, 3.0, 8.0):
        counts, found, p0, linear = [], 0, [], 0
        for s in range(9000, 9030):
            x, y, at = kink(np.random.default_rng(s), rise)
            post = find_jumps(x, y, draws=100, chains=2, **options)
            counts.append(post.n_jumps)
            p0.append(post.p_n_jumps[0])
            found += _nearest(post, at - 0.5) <= 5
            # y on (1, x): a change of intercept or slope, penalty 3 log n (unit noise)
            signal = np.column_stack([y, np.ones_like(x), x - x[0]])
            cuts = rpt.Pelt(model="linear", min_size=3).fit(signal).predict(pen=3 * np.log(x.size))
            places = [x[c] for c in cuts if c < x.size]
            linear += len(places) == 1 and abs(places[0] - at) <= 5
        print(
            f"kink, rising {rise:g} noise sds per decade, 30 seeds: counts "
            f"{dict(sorted(Counter(counts).items()))}, a jump within 5 years of the kink on "
            f"{found}, P(K = 0) mean {np.mean(p0):.3f}; segmented regression (PELT, linear "
            f"cost): one change, within 5 years, on {linear}"
        )


def drops(options: dict) -> None:
    """A drop of the level in a steadily rising series, or none; also with a drift shared by
    the pieces (``trend=True``) and with the series' least-squares line taken off first, as
    a user may do."""
    for rise in (0.0, 1.0, 3.0):
        for drop in (0.0, 4.0):
            ways = {"as is": {}, "trend=True": {"trend": True}, "line taken off first": {}}
            counts: dict[str, list[int]] = {how: [] for how in ways}
            found = dict.fromkeys(counts, 0)
            for s in range(9300, 9330):
                x, y, at = trend_drop(np.random.default_rng(s), rise, drop)
                line = np.polyval(np.polyfit(x - x[0], y, 1), x - x[0])
                for how, values in zip(ways, (y, y, y - line), strict=True):
                    post = find_jumps(x, values, draws=100, chains=2, **(options | ways[how]))
                    counts[how].append(post.n_jumps)
                    found[how] += drop > 0 and _nearest(post, x[at] - 0.5) <= 1
            print(
                f"rising {rise:g} noise sds a year, {f'a drop of {drop:g}' if drop else 'no drop'}"
                ", 30 seeds: "
                + "; ".join(
                    f"{how}: counts {dict(sorted(Counter(counts[how]).items()))}"
                    + (f", the drop found within 1 year on {found[how]}" if drop else "")
                    for how in counts
                )
            )


def wild(options: dict) -> None:
    """Wild values (gross errors) in white noise, with a step or none."""
    for size in (8.0, 15.0, 30.0):
        for jump in (0.0, 3.0):
            counts, found, flagged = [], 0, 0
            for s in range(9600, 9630):
                x, y, places = wild_values(np.random.default_rng(s), size, jump)
                post = find_jumps(x, y, draws=100, chains=2, **options)
                counts.append(post.n_jumps)
                found += jump > 0 and _nearest(post, 59.5) <= 2
                flagged += np.isin(places, post.outliers).sum()
            print(
                f"two wild values of {size:g} sds, {'a step of 3' if jump else 'no step'}, "
                f"30 seeds: counts {dict(sorted(Counter(counts).items()))}"
                + (f", the step found within 2 on {found}" if jump else "")
                + f", {flagged} of 60 wild values left out"
            )


def short(options: dict) -> None:
    for n in (15, 20, 30):
        for size in (0.0, 2.0, 4.0):
            counts, near = [], 0
            for seed in range(20):
                x, y = short_step(np.random.default_rng(seed), n, size)
                post = find_jumps(x, y, draws=100, chains=2, **options)
                counts.append(post.n_jumps)
                near += any(abs(j.location - (n // 2 - 0.5)) <= 1 for j in post.jumps)
            print(
                f"{n} values, step of {size:g} sds, 20 seeds: K counts "
                f"{dict(sorted(Counter(counts).items()))}; a jump within 1 of the step on {near}"
            )


def several_steps(options: dict) -> None:
    """Three clean steps in 50 values, with the default prior of a smooth part and with the
    previous one (5/6, spread evenly over the six ratios of the grid with r = 0)."""
    for weight in (None, 5 / 6):
        extra = {} if weight is None else {"smooth_weight": weight}
        counts, all_found, f1s = [], 0, []
        for s in range(7300, 7330):
            x, y, places = three_short_steps(np.random.default_rng(s))
            post = find_jumps(x, y, draws=100, chains=2, **options, **extra)
            counts.append(post.n_jumps)
            all_found += all(_nearest(post, c - 0.5) <= 2 for c in places)
            found = post.change_points
            f1s.append(f1_score([places], found, 5))
        print(
            f"three steps in 50 values{'' if weight is None else ', smooth_weight=5/6'}, 30 "
            f"seeds: counts {dict(sorted(Counter(counts).items()))}, all three within 2 on "
            f"{all_found}, mean F1 {np.mean(f1s):.3f}"
        )


def smooth_seasonal(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[int], int]:
    """A monthly or weekly series with a smooth season and 0 to 3 steps; also its steps and
    its period."""
    period = int(rng.choice([12, 52]))
    n = int(rng.integers(6 * period, 10 * period)) if period == 12 else int(rng.integers(156, 401))
    x, y, steps = piecewise_smooth(rng, n, int(rng.integers(0, 4)), "trend")
    t = np.arange(n)
    wave = np.sin(2 * np.pi * t / period + rng.uniform(0, 2 * np.pi)) + 0.4 * np.sin(
        4 * np.pi * t / period + rng.uniform(0, 2 * np.pi)
    )
    return x, y + rng.uniform(1.0, 3.0) * wave, steps, period


def smooth_season(options: dict) -> None:
    """F1 and covering of the answers on 24 series with a smooth season."""
    rng = np.random.default_rng(123)
    rows = []
    for _ in range(24):
        x, y, steps, period = smooth_seasonal(rng)
        post = find_jumps(x, y, draws=200, chains=2, **options)
        found = post.change_points
        truth = [steps]
        rows.append(
            (
                period,
                len(steps),
                post.n_jumps,
                f1_score(truth, found, 5),
                covering(truth, found, len(x)),
            )
        )
    for period in (12, 52):
        mine = [r for r in rows if r[0] == period]
        print(
            f"smooth season of period {period}, {len(mine)} series: (true, found) counts "
            f"{dict(Counter((r[1], r[2]) for r in mine))}, F1 {np.mean([r[3] for r in mine]):.3f}, "
            f"covering {np.mean([r[4] for r in mine]):.3f}"
        )
    print(
        f"all 24: F1 {np.mean([r[3] for r in rows]):.3f}, covering "
        f"{np.mean([r[4] for r in rows]):.3f}"
    )


SWEEPS = {
    "no_jump": no_jump,
    "steps": steps,
    "three": three,
    "end": end,
    "warp": warp,
    "season": season,
    "ties": ties,
    "ar1": ar1,
    "walk": walk,
    "periods": periods,
    "kinks": kinks,
    "drops": drops,
    "discrete": discrete,
    "wild": wild,
    "smooth_season": smooth_season,
    "short": short,
    "several_steps": several_steps,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SWEEPS), action="append", help="one sweep")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a prior of find_jumps other than its default, e.g. level_sd=2 (repeatable)",
    )
    args = parser.parse_args(argv)
    options = {k: option_value(v) for k, v in (o.split("=", 1) for o in args.option)}
    for name in args.only or SWEEPS:
        SWEEPS[name](options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
