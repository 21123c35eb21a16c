"""Jump detection on annotated real series and synthetic series with known truth.

``python benchmarks/jumps_real.py`` runs :func:`pymc_vsk.jumps.find_jumps` with its defaults
(the number of jumps chosen by the data), ruptures' PELT and binary segmentation (l2 cost,
penalty 3·log(n)·σ̂², σ̂ from the median absolute first difference, minimum segment 2), PELT
with a change of mean and variance (normal cost, penalty 3·log(n) on standardised data: the
default settings of R's changepoint ``cpt.meanvar``, column ``pelt_mv``) and the
"no change" baseline on every series, and prints per-series and mean scores: F1 with a margin
of 5 observations and segmentation covering (:mod:`pymc_vsk.jumps.scores`), the time of each
method, the largest r̂ and smallest bulk ESS of our draws. ``--csv PATH`` writes the
per-series table. ``--index`` gives every series its row number as x (0, 1, ...), as a
harness that passes a file's row index would: dates and gaps are then lost. Each group's
mean difference from PELT is printed with its standard error over the series; ``--repeats
N`` draws the synthetic groups at N seeds and pools them (one seed's 40 synthetic series
leave the margin over PELT uncertain by about ±0.03 in F1). ``--fixed-counts`` also fits
each series with its number of jumps fixed: at one jump (column ``one``), and at every count
from 0 to 10, the best of which, chosen with the annotations, is an upper bound on any rule
for the count (column ``best``; our own answer is among its candidates; ``p_k_best`` is the
posterior probability of that count).

Real series, with where their change points come from:

* Nile, annual flow at Aswan 1871–1970 (statsmodels): a drop after 1898 (Cobb, 1978, the
  Aswan dam).
* US real GDP growth, quarterly 1959Q2–2009Q3 (statsmodels' macrodata, log-differences ×
  400): the volatility falls in 1984Q1 (McConnell and Perez-Quiros, 2000).
* Sunspot numbers 1700–2008 (statsmodels): cycles, no documented change point.
* Mauna Loa CO₂, weekly 1958–2001 (statsmodels, missing weeks dropped; 2 225 points): trend
  and season, no documented change point.

Transcribed into ``benchmarks/data`` from R packages (GPL; the values as published there,
those of ``strucchange``, ``TSA``, ``fxregime`` and ``urca`` read from their ``.rda`` files):

* ``uk_driver_deaths``: car drivers killed or seriously injured in Great Britain, monthly
  1969–1984 (R ``datasets::UKDriverDeaths``); the compulsory seat-belt law of 31 January
  1983 (Harvey and Durbin, 1986); a second annotation adds December 1973, the oil crisis and
  its speed limits (the breaks dated by Zeileis et al., 2003, in ``strucchange``).
* ``seatbelts_front``: front-seat passengers killed or seriously injured, same months and law
  (``datasets::Seatbelts``, column ``front``).
* ``presidents``: quarterly approval rating of the US president, 1945–1974, missing quarters
  dropped (``datasets::presidents``); the four changes of president (Eisenhower 1953Q1,
  Kennedy 1961Q1, Johnson 1963Q4, Nixon 1969Q1).
* ``coal_disasters``: explosions in British coal mines killing ten or more, counted per year
  1851–1962 (``boot::coal``); the fall of the rate dated 1890–1891 (Raftery and Akman, 1986;
  two annotations).
* ``melsyd_economy``: weekly economy-class passengers on Ansett's Melbourne–Sydney flights,
  1987–1992 (``fpp2::melsyd``, one missing week dropped); the 1989 pilots' dispute (no
  passengers, weeks 112–119) and the 1992 trial that replaced economy seats by business
  class (weeks 247–259), as described by Hyndman and Athanasopoulos, *Forecasting:
  Principles and Practice*, 2nd ed., section 2.2.
* ``boston_marathon``: winning times of the Boston marathon, 1897–2016 (``fpp2::marathon``);
  the course was lengthened to the full marathon distance in 1924.
* ``beaver_temperature``: body temperature of a female beaver in Wisconsin, every 10 minutes
  from 9:30 on 3 November (100 readings; ``MASS::beav2``, from Reynolds, 1994); the data's own
  ``activ`` column marks the beaver's activity outside its retreat from the 39th reading on
  (Venables and Ripley, *Modern Applied Statistics with S*, fit it as AR(1) noise about a
  level that shifts there). Minutes since the first reading; the change at minute 380.
* ``real_interest_rate``: the US ex-post real interest rate (three-month treasury bill less
  CPI inflation), quarterly 1961Q1–1986Q3 (``strucchange::RealInt``); the three breaks of
  its mean dated by Bai and Perron (2003, Table 1), 1966Q4, 1972Q3 and 1980Q3 (the last
  quarter of each regime; the annotation holds the first quarter of the next).
* ``djia_returns``: weekly log returns (× 100) of the Dow Jones Industrial Average,
  July 1971–August 1974 (``strucchange::DJIA``, from Hsu, 1979); the rise of their variance
  in March 1973, the 90th return (Hsu, 1979; the break ``strucchange`` dates in its squared
  returns).
* ``boston_youth_homicides``: youth homicides in Boston per month, 1992–May 1998
  (``strucchange::BostonHomicide``, from Piehl et al., 2003); Operation Ceasefire, begun in
  the late spring of 1996: the change annotated from June 1996.
* ``german_m1``: log real M1 per capita of Germany, quarterly 1961–1995
  (``strucchange::GermanM1``, from Lütkepohl et al., 1999); the monetary unification of
  1 June 1990: the change annotated from 1990Q3.
* ``seatbelts_vans``: drivers of vans (light goods vehicles) killed in Great Britain, monthly
  1969–1984 (``datasets::Seatbelts``, column ``VanKilled``); the seat-belt law of 31 January
  1983 applied to them too (Harvey and Durbin, 1986): the change annotated from February
  1983.
* ``nightingale_disease``: the British army's deaths from preventable disease in the Crimean
  War, annual rate per 1 000, monthly April 1854–March 1856 (``HistData::Nightingale``, from
  Nightingale, 1858); the Sanitary Commission arrived in March 1855, and her two diagrams
  split the months before and after it: the change annotated from April 1855.
* ``tbill_rate``: the US one-month treasury-bill rate, monthly February 1950–December 1990
  (``Ecdat::Mishkin``, from Mishkin, 1992); the Federal Reserve's targeting of non-borrowed
  reserves from October 1979 to October 1982, the two changes of monetary-policy regime dated
  by Huizinga and Mishkin (1986).
* ``lynx``: Canadian lynx trappings 1821–1934 (``datasets::lynx``): cycles, no documented
  change point.
* ``orange_juice_cans``: fraction of nonconforming cans in 54 samples of 50 frozen orange
  juice cans, taken every half hour (``qcc::orangejuice``, from Montgomery, *Introduction to
  Statistical Quality Control*, 2nd ed., 1991, pp. 152–155); the machine was adjusted after
  the 30th sample: the change annotated from the 31st. (Sample 15, a new batch of cardboard,
  and sample 23, an inexperienced operator, are single disturbances, not changes.)
* ``us_air_miles``: monthly US airline passenger-miles, January 1996–May 2005
  (``TSA::airmiles``, from the Bureau of Transportation Statistics), the intervention example
  of Cryer and Chan, *Time Series Analysis with Applications in R*, 2008, chapter 11: the
  attacks of 11 September 2001, annotated from that month.
* ``grossarl_illegitimacy``: fraction of illegitimate births per year in the Alpine village of
  Grossarl, 1700–1899 (``strucchange::Grossarl``, from Veichtlbauer et al., 2006); two
  annotations from the data's own coding of the policy interventions that Zeileis and
  Veichtlbauer (2002) relate to it: the changes of political regime (1803, 1816, 1850) and of
  the moral regulations (1736, 1753, 1771, 1803).
* ``semmelweis_mortality``: maternal deaths per 100 births in the First Obstetric Clinic of
  Vienna, monthly January 1842–March 1849 (``HistData::Handwashing.monthly``, from
  Semmelweis, 1861, Tables III and XVI); washing hands in chlorine began "in the middle of
  May 1847": annotated from June 1847, the first whole month of it.
* ``yuan_per_dollar`` and ``ringgit_per_dollar``: Chinese yuan and Malaysian ringgit per US
  dollar, the last noon rate of each week (``fxregime::FXRatesCHF``, the Federal Reserve's
  H.10 rates, each currency divided by the dollar), 2000–2007 and 1998–2007; x is the
  decimal year of the week's Friday. The yuan's peg to the dollar ended with its revaluation
  of 21 July 2005 (Zeileis, Shah and Patnaik, 2010); the ringgit was pegged at 3.80 on 2
  September 1998 and the peg was ended on 21 July 2005 (Bank Negara Malaysia): each change
  annotated from the first week at the new rate.
* ``us_real_gnp``: log of US real GNP, 1909–1970 (``urca::nporg``, Nelson and Plosser's
  data); the crash of 1929 shifted the level of its trend (Perron, 1989, with the break
  after T_B = 1929): annotated from 1930.

* ``california_fatal_accidents``, ``barium_chloride_imports``,
  ``anderson_unemployment_claims`` and ``us_fertility_rate``: four series of Wooldridge's
  *Introductory Econometrics* (``wooldridge::traffic2``, ``barium``, ``ezanders`` and
  ``fertil3``, read from the CSV files of the Rdatasets collection), each with the dates of
  its interventions in indicator columns of its own, annotated from the first month or year
  at which each indicator is 1 (and, for an episode, the first after it). The percentage
  of California's road accidents with a fatality, monthly 1981–1989 (McCarthy, 1994): the
  seat-belt law from January 1986, the 65 mph speed limit from May 1987. Chinese imports of
  barium chloride into the US, monthly February 1978–December 1988 (Krupp and Pollard,
  1996): the first month after the antidumping petition was filed (November 1983) and
  after its decision (November 1984). Unemployment claims in the enterprise zone of
  Anderson, Indiana, monthly 1980–November 1988 (Papke, 1994): the zone from January 1984.
  Births per 1 000 women aged 15–44 in the US, 1913–1984 (Whittington, Alm and Peters,
  1990): the Second World War, 1941–1945 (annotated from 1941 and from 1946), and the pill,
  from 1963.
* ``bush_approval``: the Gallup approval rating of President G. W. Bush, monthly February
  2001–July 2007 (``wooldridge::approval``, from Harbridge, Krosnick and Wooldridge), whose
  indicator columns mark the months from the attacks of 11 September 2001, from the invasion
  of Iraq (March 2003) and from Hurricane Katrina (September 2005): each annotated from the
  first month its indicator is 1. Each indicator covers a number of months the analysts
  chose after its event (three, or one for Katrina), not an episode with an end of its own,
  so, unlike the war above, the months after them are not annotated.

From Arbuthnot's table of London's christenings (``HistData::Arbuthnot``, from Arbuthnot,
1710):

* ``london_christenings``: christenings in London per year, in thousands, 1629–1710; the
  English Civil War and the Commonwealth, 1642–1660, "a period of both under-registration
  and lower fertility" (J. Oeppen, in the data's documentation): annotated from 1642 and
  from 1661. (The value of 1704 repeats that of 1674, a copying error that Zabell, 1976,
  pointed out; it is kept as published.)

From the data of a published tutorial (Lopez Bernal, Cummins and Gasparrini, 2017,
*Int. J. Epidemiol.* 46, 348–355, ``sicily.csv``):

* ``sicily_coronary_events``: hospital admissions for acute coronary events in Sicily per
  100 000 of the age-standardised population, monthly January 2002–November 2006; Italy's
  ban on smoking in indoor public places took effect in January 2005 (Barone-Adesi et al.,
  2011), annotated from that month.

Textbook series with no documented change point, the standard examples of the models named
(transcribed the same way; ``fpp2::wmurders`` is GPL-3, the others from R's ``datasets``):

* ``air_passengers``: monthly international airline passengers 1949–1960
  (``AirPassengers``): growth with a seasonal swing proportional to the level, Box and
  Jenkins' airline model.
* ``uk_gas``: quarterly UK gas consumption 1960–1986 (``UKgas``): multiplicative season.
* ``johnson_johnson``: quarterly earnings per share of Johnson & Johnson 1960–1980
  (``JohnsonJohnson``): exponential growth, multiplicative season.
* ``lake_huron``: level of Lake Huron 1875–1972 (``LakeHuron``): a linear trend plus AR(2)
  errors (Brockwell and Davis).
* ``discoveries``: great inventions and discoveries per year 1860–1959 (``discoveries``):
  counts.
* ``www_usage``: users connected to a server, per minute, 100 minutes (``WWWusage``): an
  ARIMA(3, 1, 0) example (Makridakis et al.).
* ``airmiles``: passenger miles of US airlines 1937–1960 (``airmiles``): exponential growth.
* ``nhtemp``: mean annual temperature in New Haven 1912–1971 (``nhtemp``).
* ``women_murders``: murders of women per 100 000 in the USA 1950–2004 (``fpp2::wmurders``):
  an ARIMA example of Hyndman and Athanasopoulos.

Synthetic series (``--synthetic N`` of them, seeded): n in {50, 100, 200, 400}, 0–5 jumps
at least max(8, n/15) apart, jump sizes 1.5–4 noise sds, on a flat, trending, seasonal or
wiggly smooth part (the seasonal part a sine of 3 to 8 cycles over the series, rarely a whole
number of observations per cycle); ``--seasonal N`` more with 0–3 such jumps on a trend plus
a fixed seasonal profile of period 4, 12 or 52 observations (6 to 12 cycles, or 156 to 400
weeks) and sd 1–3 noise sds, as in quarterly, monthly and weekly data; ``--dependent N``
(default 30) with noise that is not white: n in {100, 200, 300}, 0–3 such jumps on a flat or
trending part, in AR(1) noise of unit sd and lag-one correlation 0.3–0.95 (two in three) or
in a random walk of steps of sd 0.3 plus white noise of sd 1; ``--trending N`` (default 30)
that rise or fall steadily by 5 to 60 noise sds over their length, as economic levels do
(n in {20, 40, 80, 160, 320}, white noise or AR(1) noise of lag-one correlation 0.2–0.7),
with 0–2 changes at least max(5, n/6) apart: a shift of the level by 2 to 6 noise sds
either way, or a break of the growth (the slope multiplied by a factor in [−0.5, 0.5]);
plus (``--large``) a
wiggly series of 600 points with 4 jumps and one of 4 000 points with 12 jumps, for time and
memory.
"""

from __future__ import annotations

import argparse
import inspect
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import ruptures as rpt
from scipy.special import logsumexp

from pymc_vsk.jumps import JumpPosterior, find_jumps
from pymc_vsk.jumps.scores import covering, f1_score
from pymc_vsk.jumps.segments import count_limit

DATA = Path(__file__).resolve().parent / "data"
# the largest count that --fixed-counts fits (the real series have at most 4 annotated)
FIXED_COUNTS = 10

#: Series transcribed into ``benchmarks/data`` (file, x column, y column, change dates of each
#: annotator, in x units; each date is the first x of a new segment). Sources in the module
#: docstring.
TRANSCRIBED: list[tuple[str, str, str, list[list[float]]]] = [
    ("uk_driver_deaths", "time", "deaths", [[1983 + 1 / 12], [1973 + 11 / 12, 1983 + 1 / 12]]),
    ("seatbelts_front", "time", "front", [[1983 + 1 / 12]]),
    ("presidents", "time", "approval", [[1953.0, 1961.0, 1963.75, 1969.0]]),
    ("coal_disasters", "year", "disasters", [[1891.0], [1890.0]]),
    ("melsyd_economy", "week", "economy", [[112.0, 120.0, 247.0, 260.0]]),
    ("boston_marathon", "year", "minutes", [[1924.0]]),
    ("beaver_temperature", "minute", "temperature", [[380.0]]),
    ("real_interest_rate", "quarter", "rate", [[1967.0, 1972.75, 1980.75]]),
    ("djia_returns", "week", "log_return", [[90.0]]),
    ("boston_youth_homicides", "month", "homicides", [[1996 + 5 / 12]]),
    ("german_m1", "quarter", "log_m1", [[1990.5]]),
    ("seatbelts_vans", "time", "vans", [[1983 + 1 / 12]]),
    ("nightingale_disease", "month", "disease_rate", [[1855 + 3 / 12]]),
    ("tbill_rate", "month", "tbill", [[1979 + 9 / 12, 1982 + 9 / 12]]),
    ("lynx", "year", "trapped", [[]]),
    ("orange_juice_cans", "sample", "nonconforming", [[31.0]]),
    ("us_air_miles", "month", "passenger_miles", [[2001 + 8 / 12]]),
    (
        "grossarl_illegitimacy",
        "year",
        "fraction",
        [[1803.0, 1816.0, 1850.0], [1736.0, 1753.0, 1771.0, 1803.0]],
    ),
    ("semmelweis_mortality", "month", "deaths_per_100_births", [[1847 + 5 / 12]]),
    ("sicily_coronary_events", "month", "events_per_100000", [[2005.0]]),
    ("yuan_per_dollar", "week", "yuan", [[2005.5534]]),
    ("ringgit_per_dollar", "week", "ringgit", [[1998.674, 2005.5534]]),
    ("us_real_gnp", "year", "log_gnp", [[1930.0]]),
    ("california_fatal_accidents", "month", "percent_fatal", [[1986.0, 1987 + 4 / 12]]),
    ("barium_chloride_imports", "month", "chinese_imports", [[1983 + 10 / 12, 1984 + 10 / 12]]),
    ("anderson_unemployment_claims", "month", "claims", [[1984.0]]),
    ("us_fertility_rate", "year", "births_per_1000_women", [[1941.0, 1946.0, 1963.0]]),
    ("bush_approval", "month", "approval", [[2001 + 8 / 12, 2003 + 2 / 12, 2005 + 8 / 12]]),
    ("london_christenings", "year", "christenings_thousands", [[1642.0, 1661.0]]),
    ("air_passengers", "month", "passengers", [[]]),
    ("uk_gas", "quarter", "gas", [[]]),
    ("johnson_johnson", "quarter", "earnings", [[]]),
    ("lake_huron", "year", "level", [[]]),
    ("discoveries", "year", "discoveries", [[]]),
    ("www_usage", "minute", "users", [[]]),
    ("airmiles", "year", "miles", [[]]),
    ("nhtemp", "year", "temperature", [[]]),
    ("women_murders", "year", "rate", [[]]),
]


@dataclass
class Series:
    """One benchmark series: inputs, observations and annotated change-point indices."""

    name: str
    x: np.ndarray
    y: np.ndarray
    annotations: list[list[int]]
    kind: str = "real"
    meta: dict = field(default_factory=dict)


def log_odds_of_a_jump(post: JumpPosterior) -> float:
    """log P(K > 0 | y) - log P(K = 0 | y), summed from the log evidence, finite where either
    probability is below the smallest double."""
    log_k = logsumexp(post.log_evidence, axis=0)
    return float(logsumexp(log_k[1:]) - log_k[0])


def real_series() -> list[Series]:
    """The annotated real series (see the module docstring)."""
    import statsmodels.api as sm

    out = []
    nile = sm.datasets.nile.load_pandas().data
    x = nile["year"].to_numpy(float)
    out.append(Series("nile", x, nile["volume"].to_numpy(float), [[int(np.searchsorted(x, 1899))]]))
    macro = sm.datasets.macrodata.load_pandas().data
    t = (macro["year"] + (macro["quarter"] - 1) / 4).to_numpy(float)
    growth = 400 * np.diff(np.log(macro["realgdp"].to_numpy(float)))
    out.append(Series("us_gdp_growth", t[1:], growth, [[int(np.searchsorted(t[1:], 1984.0))]]))
    sun = sm.datasets.sunspots.load_pandas().data
    out.append(
        Series("sunspots", sun["YEAR"].to_numpy(float), sun["SUNACTIVITY"].to_numpy(float), [[]])
    )
    co2 = sm.datasets.co2.load_pandas().data.dropna()
    days = (co2.index - co2.index[0]).days.to_numpy(float)
    out.append(Series("co2", 1958.2 + days / 365.25, co2["co2"].to_numpy(float), [[]]))
    for name, xcol, ycol, dates in TRANSCRIBED:
        frame = pd.read_csv(DATA / f"{name}.csv").dropna(subset=[ycol])
        x = frame[xcol].to_numpy(float)
        marks = [[int(np.searchsorted(x, d - 1e-3)) for d in annotator] for annotator in dates]
        out.append(Series(name, x, frame[ycol].to_numpy(float), marks))
    return out


def synthetic_series(count: int, seed: int) -> list[Series]:
    """Piecewise-smooth series with known jumps (see the module docstring)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.choice([50, 100, 200, 400]))
        k = int(rng.integers(0, 6))
        smooth = str(rng.choice(["flat", "trend", "season", "wiggle"]))
        x, y, cps = piecewise_smooth(rng, n, k, smooth)
        out.append(Series(f"synth{i:02d}_{smooth}_n{n}_k{k}", x, y, [cps], "synthetic"))
    return out


def seasonal_series(count: int, seed: int) -> list[Series]:
    """Monthly, quarterly or weekly series with a fixed seasonal profile and known jumps."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        period = int(rng.choice([4, 12, 52]))
        n = (
            int(rng.integers(6 * period, 12 * period + 1))
            if period < 52
            else int(rng.integers(156, 401))
        )
        k = int(rng.integers(0, 4))
        x, y, cps = piecewise_smooth(rng, n, k, "trend")
        profile = rng.normal(size=period)
        profile = rng.uniform(1.0, 3.0) * (profile - profile.mean()) / profile.std()
        y = y + profile[np.arange(n) % period]
        out.append(Series(f"season{i:02d}_p{period}_n{n}_k{k}", x, y, [cps], "seasonal"))
    return out


def dependent_series(count: int, seed: int) -> list[Series]:
    """Series whose noise is not white, with known jumps: AR(1) noise or a random walk."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.choice([100, 200, 300]))
        k = int(rng.integers(0, 4))
        if i % 3 == 2:  # a random walk of steps of sd 0.3 plus white noise of sd 1
            kind, errors = "walk", np.cumsum(0.3 * rng.normal(size=n)) + rng.normal(size=n)
        else:  # AR(1) noise of unit sd
            phi = rng.uniform(0.3, 0.95)
            kind, errors = f"ar{round(100 * phi):02d}", np.empty(n)
            errors[0] = rng.normal()
            for t in range(1, n):
                errors[t] = phi * errors[t - 1] + np.sqrt(1 - phi * phi) * rng.normal()
        smooth = str(rng.choice(["flat", "trend"]))
        x, y, cps = piecewise_smooth(rng, n, k, smooth, errors=errors)
        out.append(Series(f"dep{i:02d}_{kind}_{smooth}_n{n}_k{k}", x, y, [cps], "dependent"))
    return out


def trending_series(count: int, seed: int) -> list[Series]:
    """Series that rise or fall steadily, as economic levels do, with 0-2 changes of their
    level or of their growth (see the module docstring)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.choice([20, 40, 80, 160, 320]))
        k = int(rng.integers(0, 3))
        gap = max(5, n // 6)
        cps = random_places(rng, k, 4, n - 4, gap)
        steps = np.full(n, rng.choice([-1.0, 1.0]) * rng.uniform(5.0, 60.0) / n)
        kinds = []
        for c in cps:
            if rng.random() < 0.5:  # a shift of the level
                steps[c] += rng.choice([-1.0, 1.0]) * rng.uniform(2.0, 6.0)
                kinds.append("s")
            else:  # a break of the growth: the slope times a factor in [-0.5, 0.5]
                steps[c:] *= rng.uniform(-0.5, 0.5)
                kinds.append("b")
        phi = 0.0 if i % 2 == 0 else float(rng.uniform(0.2, 0.7))
        errors = np.empty(n)
        errors[0] = rng.normal()
        for t in range(1, n):
            errors[t] = phi * errors[t - 1] + np.sqrt(1 - phi * phi) * rng.normal()
        y = np.cumsum(steps) + errors
        name = f"trend{i:02d}_ar{round(100 * phi):02d}_n{n}_k{k}{''.join(kinds)}"
        out.append(Series(name, np.arange(n, dtype=float), y, [cps], "trending"))
    return out


def random_places(rng: np.random.Generator, k: int, lo: int, hi: int, gap: int) -> list[int]:
    """k sorted places in [lo, hi), at least ``gap`` apart (drawn afresh when boxed in)."""
    cps: list[int] = []
    while len(cps) < k:
        cps = []
        for _ in range(100 * k):
            c = int(rng.integers(lo, hi))
            if all(abs(c - d) >= gap for d in cps):
                cps.append(c)
                if len(cps) == k:
                    break
    return sorted(cps)


def piecewise_smooth(
    rng: np.random.Generator,
    n: int,
    k: int,
    smooth: str,
    noise: float = 1.0,
    errors: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """One series of n points with k jumps (of 1.5 to 4 times ``noise``) on a smooth part;
    returns x, y and the jumps. The errors are white, of sd ``noise``, unless given."""
    gap = max(8, n // 15)
    k = min(k, (n - 10) // gap)
    cps = random_places(rng, k, 5, n - 5, gap)
    level = np.zeros(n)
    for c in cps:
        level[c:] += rng.choice([-1.0, 1.0]) * rng.uniform(1.5, 4.0) * noise
    t = np.arange(n) / n
    if smooth == "flat":
        base = 0.0 * t
    elif smooth == "trend":
        base = rng.uniform(-3, 3) * t
    elif smooth == "season":
        base = np.sin(2 * np.pi * rng.uniform(3, 8) * t + rng.uniform(0, 2 * np.pi))
    else:
        base = sum(
            0.7 * rng.normal() * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi))
            for f in (0.7, 1.3, 2.1)
        )
    if errors is None:
        errors = noise * rng.normal(size=n)
    return np.arange(n, dtype=float), level + base + errors, cps


def penalised(y: np.ndarray, algorithm: type) -> list[int]:
    """ruptures' PELT or binary segmentation, l2 cost, penalty 3·log(n)·σ̂²."""
    n = len(y)
    ys = (y - y.mean()) / (y.std() or 1.0)
    sigma2 = (np.median(np.abs(np.diff(ys))) / 0.6745) ** 2 / 2
    fitted = algorithm(model="l2", min_size=2, jump=1).fit(ys)
    return [c for c in fitted.predict(pen=3 * np.log(n) * max(sigma2, 1e-8)) if c < n]


class MeanVarianceCost(rpt.base.BaseCost):
    """ruptures' ``"normal"`` cost of one signal, m·log(σ̂² + 10⁻⁶) for a segment of m values
    (a change of mean and variance), from cumulative sums: the same numbers, in O(1) a segment
    instead of O(m), so that PELT runs on the 4 000-point series in seconds."""

    model = "mean_variance"
    min_size = 2

    def fit(self, signal: np.ndarray) -> MeanVarianceCost:
        self.signal = np.asarray(signal, dtype=float).reshape(len(signal), -1)
        s = self.signal[:, 0]
        self.sums = np.r_[0.0, np.cumsum(s)]
        self.squares = np.r_[0.0, np.cumsum(s * s)]
        return self

    def error(self, start: int, end: int) -> float:
        m = end - start
        if m < self.min_size:
            raise rpt.exceptions.NotEnoughPoints
        mean = (self.sums[end] - self.sums[start]) / m
        var = max((self.squares[end] - self.squares[start]) / m - mean * mean, 0.0)
        return m * np.log(var + 1e-6)


def mean_variance_pelt(y: np.ndarray) -> list[int]:
    """PELT with a change of mean and variance (normal likelihood) and penalty 3·log(n) on
    standardised data: R's changepoint ``cpt.meanvar(method = "PELT")`` with its default
    (MBIC-sized) penalty, the "default settings" against which change-point benchmarks
    usually report PELT."""
    n = len(y)
    ys = (y - y.mean()) / (y.std() or 1.0)
    fitted = rpt.Pelt(custom_cost=MeanVarianceCost(), min_size=2, jump=1).fit(ys)
    return [c for c in fitted.predict(pen=3 * np.log(n)) if c < n]


def score(series: Series, predicted: list[int]) -> tuple[float, float]:
    """F1 (margin 5) and covering of predicted change-point indices."""
    n = len(series.y)
    return f1_score(series.annotations, predicted), covering(series.annotations, predicted, n)


def fixed_count_scores(
    series: Series,
    post: JumpPosterior,
    draws: int,
    chains: int,
    options: dict | None = None,
    largest: int = FIXED_COUNTS,
) -> dict:
    """Scores of ``find_jumps`` with the number of jumps fixed: at 1 (``one``) and at the
    count from 0 to ``largest`` whose answer scores best against the annotations (``best``,
    by F1 and then covering; ``k_best`` the count, ``p_k_best`` its probability in ``post``,
    the answer with the count from the data, itself a candidate): how well the segment model
    places the jumps when the count is known, whatever rule would choose it."""
    options = options or {}
    min_size = options.get("min_size", inspect.signature(find_jumps).parameters["min_size"].default)
    scores = {}
    for k in range(count_limit(len(series.y), min_size, largest) + 1):
        fixed = find_jumps(series.x, series.y, n_jumps=k, draws=draws, chains=chains, **options)
        scores[k] = score(series, fixed.change_points)
    # the first best wins: the smallest count, and a fixed count before the answer from the
    # data (whose count may lie beyond the range)
    candidates = [*scores.items(), (post.n_jumps, score(series, post.change_points))]
    best, (f1_best, cover_best) = max(candidates, key=lambda c: c[1])
    row = {"k_best": best, "p_k_best": float(post.p_n_jumps[best])}
    row["f1_one"], row["cover_one"] = scores.get(1, (np.nan, np.nan))
    row["f1_best"], row["cover_best"] = f1_best, cover_best
    return row


def run(
    series: Series,
    draws: int,
    chains: int,
    options: dict | None = None,
    fixed_counts: bool = False,
) -> dict:
    """Every method on one series: scores, times, our diagnostics; with ``fixed_counts``,
    also those of :func:`fixed_count_scores`."""
    row: dict = {"series": series.name, "kind": series.kind, "n": len(series.y)}
    row["seed"] = series.meta.get("seed", -1)
    row["true_k"] = len(series.annotations[0])
    start = time.perf_counter()
    post = find_jumps(series.x, series.y, draws=draws, chains=chains, **(options or {}))
    row["time_vsk"] = time.perf_counter() - start
    row["k_vsk"] = post.n_jumps
    row["p_k_vsk"] = float(post.p_n_jumps[post.n_jumps])
    row["log_odds_jump"] = log_odds_of_a_jump(post)
    row["f1_vsk"], row["cover_vsk"] = score(series, post.change_points)
    diag = post.as_dict()["diagnostics"]
    row["max_rhat"], row["min_ess_bulk"] = diag["max_rhat"], diag["min_ess_bulk"]
    for name, method in (
        ("pelt", lambda y: penalised(y, rpt.Pelt)),
        ("binseg", lambda y: penalised(y, rpt.Binseg)),
        ("pelt_mv", mean_variance_pelt),
    ):
        start = time.perf_counter()
        cps = method(series.y)
        row[f"time_{name}"] = time.perf_counter() - start
        row[f"k_{name}"] = len(cps)
        row[f"f1_{name}"], row[f"cover_{name}"] = score(series, cps)
    row["f1_zero"], row["cover_zero"] = score(series, [])
    if fixed_counts:
        row.update(fixed_count_scores(series, post, draws, chains, options))
    return row


def scores_line(row: dict, certainty: str = "") -> str:
    """The counts and scores of one row, ours then PELT's: ``K true 1 ours 1 pelt 6  F1 ...
    cover ...``; ``certainty`` follows our count (the posterior probability of it)."""
    return (
        f"K true {row['true_k']} ours {row['k_vsk']}{certainty} pelt {row['k_pelt']}  "
        f"F1 {row['f1_vsk']:.3f} / {row['f1_pelt']:.3f}  "
        f"cover {row['cover_vsk']:.3f} / {row['cover_pelt']:.3f}"
    )


def summarise(table: pd.DataFrame) -> str:
    """Mean scores per kind of series and overall, median times, convergence counts."""
    methods = ("vsk", "pelt", "binseg", "pelt_mv", "zero", "one", "best")
    cols = [f"{m}_{s}" for s in methods for m in ("f1", "cover") if f"{m}_{s}" in table]
    groups = {}
    for kind, part in table.groupby("kind"):
        groups[kind] = part
        if kind == "real":  # the no-change answer scores 1 on a series without a change
            groups["  changes"] = part[part["true_k"] > 0]
            groups["  none"] = part[part["true_k"] == 0]
    groups["all"] = table
    lines = []
    for kind, part in groups.items():
        means = part[cols].mean()
        lines.append(
            f"{kind:9s} ({len(part):3d} series)  " + "  ".join(f"{c} {means[c]:.3f}" for c in cols)
        )
    for kind, part in groups.items():
        lines.append(f"{kind:9s} ours - PELT: {paired_difference(part)}")
    drawn = table[table["seed"] >= 0]
    if drawn["seed"].nunique() > 1:
        for (kind, seed), part in drawn.groupby(["kind", "seed"]):
            lines.append(
                f"{kind:9s} seed {seed}: f1_vsk {part['f1_vsk'].mean():.3f}  cover_vsk "
                f"{part['cover_vsk'].mean():.3f}  f1_pelt {part['f1_pelt'].mean():.3f}  "
                f"cover_pelt {part['cover_pelt'].mean():.3f}"
            )
    for has, part in table.groupby(table["true_k"] > 0):
        odds = part["log_odds_jump"]
        lines.append(
            f"log P(K > 0 | y) / P(K = 0 | y) on the {len(part)} series "
            f"{'with' if has else 'without'} a change: median {odds.median():.1f}, "
            f"range {odds.min():.1f} to {odds.max():.1f}"
        )
    ok = int(((table["max_rhat"] <= 1.01) & (table["min_ess_bulk"] >= 400)).sum())
    times = table["time_vsk"]
    lines.append(
        f"r̂ ≤ 1.01 and bulk ESS ≥ 400 on {ok} of {len(table)} series; time per series "
        f"(find_jumps): median {times.median():.2f} s, max {times.max():.1f} s"
    )
    return "\n".join(lines)


def paired_difference(part: pd.DataFrame) -> str:
    """Mean per-series difference of F1 and of covering, ours less PELT's, with the standard
    error of each mean (the series taken as a sample of their kind: how far the margin could
    move on other series like them)."""
    text = []
    for score in ("f1", "cover"):
        diff = part[f"{score}_vsk"] - part[f"{score}_pelt"]
        se = diff.std() / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
        text.append(f"{score} {diff.mean():+.3f} (se {se:.3f})")
    return "  ".join(text)


def markdown(table: pd.DataFrame) -> str:
    """The real series as the Markdown table of the documentation."""
    lines = [
        "| series | n | K annotated | K found | K, PELT | ours | PELT | PELT, mean and variance "
        "| no change | log odds |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for _, r in table[table["kind"] == "real"].iterrows():
        lines.append(
            f"| {r['series']} | {r['n']} | {r['true_k']} | {r['k_vsk']} ({r['p_k_vsk']:.2f}) | "
            f"{r['k_pelt']} | {r['f1_vsk']:.3f} / {r['cover_vsk']:.3f} | "
            f"{r['f1_pelt']:.3f} / {r['cover_pelt']:.3f} | "
            f"{r['f1_pelt_mv']:.3f} / {r['cover_pelt_mv']:.3f} | "
            f"{r['f1_zero']:.3f} / {r['cover_zero']:.3f} | "
            + f"{r['log_odds_jump']:.1f} |".replace("-", "−")
        )
    return "\n".join(lines)


def save_table(table: pd.DataFrame, path: Path | None) -> None:
    """Write the per-series table to ``path`` (its folder made if need be), if one is given."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False)
        print(f"saved {path}")


def option_value(text: str) -> int | float | str | tuple:
    """An option's value: an int (``n_lengthscales=12``), a float, a tuple of values
    (``ratios=0,1,3``), or the text itself."""
    if "," in text:
        return tuple(option_value(part) for part in text.split(","))
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=40, help="synthetic series (default 40)")
    parser.add_argument(
        "--seasonal",
        type=int,
        default=20,
        help="synthetic series with a fixed season (period 4, 12 or 52; default 20)",
    )
    parser.add_argument(
        "--dependent",
        type=int,
        default=30,
        help="synthetic series with AR(1) noise or a random walk (default 30)",
    )
    parser.add_argument(
        "--trending",
        type=int,
        default=30,
        help="synthetic series with a steep trend, as economic levels have (default 30)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic series")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="draw the synthetic groups this many times, at seeds seed, seed + 1, ... "
        "(default 1); the means pool them and each seed's are printed too",
    )
    parser.add_argument("--large", action="store_true", help="add 600- and 4 000-point series")
    parser.add_argument("--no-real", action="store_true", help="skip the real series")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out the real series of this name (repeatable), e.g. co2 for quick sweeps",
    )
    parser.add_argument(
        "--index",
        action="store_true",
        help="replace every series' x by its row number (0, 1, ...), as a harness that "
        "passes a file's row index as x would",
    )
    parser.add_argument(
        "--fixed-counts",
        action="store_true",
        help=f"also fit every series with one jump, and with each count from 0 to "
        f"{FIXED_COUNTS} to report the best against the annotations (an upper bound on any "
        "rule for the count)",
    )
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--csv", type=Path, help="write the per-series table here")
    parser.add_argument(
        "--markdown", action="store_true", help="print the real series as a Markdown table"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a prior or grid setting of find_jumps other than its default (repeatable), "
        "e.g. min_lengthscale=6",
    )
    args = parser.parse_args(argv)
    options = {k: option_value(v) for k, v in (o.split("=", 1) for o in args.option)}
    real = real_series()
    unknown = set(args.skip) - {s.name for s in real}
    if unknown:
        parser.error(f"--skip: no real series named {', '.join(sorted(unknown))}")
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1; got {args.repeats}")
    series = [] if args.no_real else [s for s in real if s.name not in args.skip]
    for seed in range(args.seed, args.seed + args.repeats):
        drawn = synthetic_series(args.synthetic, seed)
        drawn += seasonal_series(args.seasonal, seed + 2)
        drawn += dependent_series(args.dependent, seed + 3)
        drawn += trending_series(args.trending, seed + 4)
        for s in drawn:
            s.meta["seed"] = seed
            if args.repeats > 1:
                s.name = f"{s.name}_seed{seed}"
        series += drawn
    if args.large:
        for n, k in ((600, 4), (4000, 12)):
            rng = np.random.default_rng(args.seed + 1)
            x, y, cps = piecewise_smooth(rng, n, k, "wiggle")
            series.append(Series(f"synth_large_n{n}_k{k}", x, y, [cps], "large"))
    if args.index:
        for s in series:
            s.x = np.arange(len(s.x), dtype=float)
        print("x of every series replaced by its row number")
    rows = []
    for s in series:
        row = run(s, args.draws, args.chains, options, args.fixed_counts)
        rows.append(row)
        print(
            f"{row['series']:32s} n={row['n']:5d} "
            f"{scores_line(row, f' (P {row["p_k_vsk"]:.2f})')}  "
            f"{row['time_vsk']:.1f} s  r̂ {row['max_rhat']:.4f}"
            + (
                f"  one jump F1 {row['f1_one']:.3f}  best K {row['k_best']}"
                f" (P {row['p_k_best']:.2f}) F1 {row['f1_best']:.3f}"
                if args.fixed_counts
                else ""
            ),
            flush=True,
        )
    table = pd.DataFrame(rows)
    print(summarise(table))
    if args.markdown:
        print(markdown(table))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak:.0f} MB")
    save_table(table, args.csv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
