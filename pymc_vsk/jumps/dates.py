"""Dates as decimal years, the x of jump detection when a series is indexed by dates.

A jump's location is reported in the units of x; for dates those are decimal years
(2001.5 is the middle of 2001). The mapping keeps regularly spaced dates regularly spaced, so
that a season of whole months or days stays a whole number of steps
(:func:`pymc_vsk.jumps.seasons.find_period` needs a regular grid).
"""

from __future__ import annotations

import datetime
import numbers
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["DateScale", "date_labels", "date_scale", "decimal_years", "is_dates", "to_datetimes"]


def is_dates(x: object) -> bool:
    """Whether ``x`` holds dates: numpy ``datetime64``, pandas datetimes or periods, or
    Python ``datetime``/``date`` objects (pandas ``Timestamp`` among them).

    Parameters
    ----------
    x : array-like

    Returns
    -------
    bool

    Examples
    --------
    >>> is_dates(pd.date_range("2001-01-31", periods=3, freq="ME")), is_dates([2001.0, 2002.0])
    (True, False)
    >>> is_dates([datetime.date(2001, 1, 1), datetime.date(2001, 2, 1)])
    True
    """
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    if pd.api.types.is_datetime64_any_dtype(dtype) or isinstance(dtype, pd.PeriodDtype):
        return True
    if not pd.api.types.is_object_dtype(dtype):
        return False
    cells = [c for c in np.asarray(x, dtype=object).ravel() if not pd.isna(c)]
    return bool(cells) and all(
        isinstance(c, datetime.date | np.datetime64 | pd.Period) for c in cells
    )


def to_datetimes(values: object, format: str | None = None) -> pd.Series | pd.DatetimeIndex:
    """pandas' ``to_datetime``, in UTC when the values' UTC offsets differ (across a change to
    or from summer time, or ``Z`` beside ``+01:00``), which pandas refuses otherwise.

    Parameters
    ----------
    values : array-like
        Dates, or text that pandas reads as dates.
    format : str, optional
        pandas' format, e.g. ``"ISO8601"``.

    Returns
    -------
    pandas Series or DatetimeIndex

    Examples
    --------
    >>> [str(t) for t in to_datetimes(["2020-03-29T01:00+01:00", "2020-03-29T03:00+02:00"])]
    ['2020-03-29 00:00:00+00:00', '2020-03-29 01:00:00+00:00']
    """
    try:
        return pd.to_datetime(values, format=format)
    except ValueError as err:
        if "utc=True" not in str(err):
            raise
        return pd.to_datetime(values, format=format, utc=True)


def _timestamps(dates: object, utc: bool | None = None) -> pd.Series:
    """Dates of any kind :func:`is_dates` accepts as a pandas Series of datetimes without a
    time zone (:func:`_zoned`); dates with one are read in UTC when ``utc``, in their own
    calendar when not, and by default as :func:`_in_utc` says."""
    out = _zoned(dates)
    if out.dt.tz is not None:
        if utc is None:
            utc = _in_utc(out)
        out = (out.dt.tz_convert("UTC") if utc else out).dt.tz_localize(None)
    return out


def _zoned(dates: object) -> pd.Series:
    """Dates of any kind :func:`is_dates` accepts as a pandas Series of datetimes, with their
    time zone if they have one; a missing date is an error naming its position, and numbers
    (which pandas would read as nanoseconds since 1970) or no dates at all are refused."""
    if np.size(np.asarray(dates, dtype=object)) == 0:
        raise ValueError("x holds no dates; pass at least one.")
    dtype = getattr(dates, "dtype", np.dtype(object))  # a list: look at its cells
    numeric = dtype.kind in "biufc" and not isinstance(dtype, pd.PeriodDtype)
    if not numeric and pd.api.types.is_object_dtype(dtype):
        numeric = any(
            isinstance(c, numbers.Number) and not pd.isna(c)
            for c in np.asarray(dates, dtype=object).ravel()
        )
    if numeric:
        raise TypeError(
            "x must hold dates (datetime64, pandas datetimes or periods, datetime or date "
            "objects, or text that reads as dates), not numbers: pass numbers as they are, "
            "without converting them to decimal years."
        )
    if isinstance(getattr(dates, "dtype", None), pd.PeriodDtype):
        dates = pd.PeriodIndex(dates).to_timestamp()
    elif not hasattr(dates, "dtype") or pd.api.types.is_object_dtype(dates.dtype):
        cells = np.asarray(dates, dtype=object).ravel()
        dates = [c.to_timestamp() if isinstance(c, pd.Period) else c for c in cells]
    out = pd.Series(to_datetimes(dates)).reset_index(drop=True)
    if out.isna().any():
        k = int(np.argmax(out.isna().to_numpy()))
        raise ValueError(
            f"x holds a missing date (NaT) at position {k}; drop or fill the rows without a "
            "date first."
        )
    return out


def _in_utc(dates: pd.Series) -> bool:
    """Whether dates with a time zone are read in UTC: calendar days are their own time
    zone's, and so are instants of one UTC offset; instants whose UTC offsets differ (across
    a change to summer time, where local clocks skip or repeat an hour) are UTC's."""
    local = dates.dt.tz_localize(None)
    utc = dates.dt.tz_convert("UTC").dt.tz_localize(None)
    days = (local == local.dt.normalize()).all()
    return not days and (local - utc).nunique() > 1


#: Fewest rounding units of decimal years (the gap between floating-point numbers near the
#: data's last year, about 7 µs near 2000) in the shortest step between distinct dates:
#: dates closer than that come out of decimal years unevenly spaced, or merged.
MIN_STEP_UNITS = 100


def _check_resolution(dates: pd.Series) -> None:
    """Refuse dates too close for decimal years (``MIN_STEP_UNITS``), naming the two
    closest and the way out: the time since the first date, in seconds."""
    distinct = pd.Series(np.sort(dates.unique()))
    if len(distinct) < 2:
        return
    steps = distinct.diff().iloc[1:]
    k = int(np.argmin(steps.to_numpy()))
    step = steps.iloc[k].total_seconds()
    last = int(dates.dt.year.max())
    unit = float(np.spacing(last + 1.0)) * 365.25 * 86400.0  # seconds
    if step >= MIN_STEP_UNITS * unit:
        return

    def duration(seconds: float) -> str:
        return f"{seconds * 1e6:.3g} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"

    raise ValueError(
        f"x holds dates {duration(step)} apart ({distinct.iloc[k]} and {distinct.iloc[k + 1]}), "
        f"closer than decimal years (the units of dated x in the answer) keep evenly spaced "
        f"near {last} (steps of {duration(MIN_STEP_UNITS * unit)} or more); give x as the "
        "seconds since the first date instead (in Python, x - x.min(): durations are read in "
        "seconds)."
    )


class DateScale(NamedTuple):
    """How dates map to decimal years (:func:`date_scale`); call it on dates.

    Examples
    --------
    >>> scale = date_scale(pd.date_range("2001-01-31", periods=3, freq="ME"))
    >>> scale, scale(pd.to_datetime(["2001-07-31"]))
    (DateScale(by_month=True, first_year=2001, utc=False), array([2001.5]))
    """

    #: ``year + (month - 1) / 12`` (whatever the day of the month), or else by the day.
    by_month: bool
    #: The origin of the days' count: its 1 January.
    first_year: int
    #: Whether dates with a time zone are read in UTC (else in their own calendar), as the
    #: data's dates were, so that new dates fall on the data's scale.
    utc: bool = False

    def __call__(self, dates: object) -> np.ndarray:
        """The decimal years of ``dates`` on this scale."""
        dates = _timestamps(dates, self.utc)
        year, month = dates.dt.year.to_numpy(), dates.dt.month.to_numpy()
        if self.by_month:
            return (12 * year + month - 1) / 12.0
        first = pd.Timestamp(year=self.first_year, month=1, day=1)
        return self.first_year + (dates - first).dt.total_seconds().to_numpy() / (365.25 * 86400.0)


def _dates_of(scale: DateScale, years: np.ndarray) -> pd.DatetimeIndex:
    """The dates that ``scale`` maps to ``years`` (its inverse; months start on their 1st)."""
    years = np.atleast_1d(np.asarray(years, dtype=float))
    if scale.by_month:
        months = np.floor(12.0 * years + 1e-6).astype(np.int64)
        parts = {"year": months // 12, "month": months % 12 + 1, "day": np.ones_like(months)}
        return pd.DatetimeIndex(pd.to_datetime(pd.DataFrame(parts)))
    first = pd.Timestamp(year=scale.first_year, month=1, day=1)
    seconds = (years - scale.first_year) * 365.25 * 86400.0
    return pd.DatetimeIndex(first + pd.to_timedelta(seconds, unit="s")).round("us")


def date_labels(scale: DateScale, years: np.ndarray, data: np.ndarray) -> list[str]:
    """``years`` written as dates, to the resolution of the data's own dates.

    Parameters
    ----------
    scale : DateScale
        The scale of the data's dates.
    years : array
        Decimal years to write (inputs of the data, such as the ends of an interval).
    data : array
        The data's inputs, in decimal years: whole years give ``2001``, months ``2001-08``,
        days ``2001-08-31``, times of day ``2001-08-31 14:30`` (with seconds when they
        have some, and milliseconds when they have fractions of a second).

    Returns
    -------
    list of str

    Examples
    --------
    >>> months = pd.date_range("2001-01-01", periods=12, freq="MS")
    >>> scale = date_scale(months)
    >>> date_labels(scale, [2001.5, 2001.75], scale(months))
    ['2001-07', '2001-10']
    >>> days = pd.date_range("2001-01-01", periods=40, freq="D")
    >>> date_labels(date_scale(days), [2001.1], decimal_years(days))
    ['2001-02-06']
    """
    own = _dates_of(scale, data).round("ms")  # decimal years carry rounding errors
    labels = _dates_of(scale, years).round("ms")
    if scale.by_month:
        form = "%Y" if (own.month == own.month[0]).all() else "%Y-%m"
    elif (own == own.normalize()).all():
        form = "%Y-%m-%d"
    elif (own == own.floor("s")).all():
        form = "%Y-%m-%d %H:%M" + ("" if (own.round("s").second == 0).all() else ":%S")
    else:  # fractions of a second: to the millisecond, as far as decimal years resolve
        return [d.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] for d in labels]
    return [d.strftime(form) for d in labels]


def date_scale(dates: object) -> DateScale:
    """The mapping of :func:`decimal_years` chosen for ``dates``: by the month when they are
    at midnight with at most one per calendar month, else by the day from the first year's
    1 January; dates with a time zone in UTC when their UTC offsets differ, and new dates
    with a time zone are then read in UTC too.

    Parameters
    ----------
    dates : array-like of dates (:func:`is_dates`)

    Returns
    -------
    DateScale

    Raises
    ------
    ValueError
        Dates closer than decimal years keep evenly spaced (``MIN_STEP_UNITS``: below
        about 0.7 ms near 2000), a missing date (NaT), or no dates.
    TypeError
        Numbers instead of dates.
    """
    zoned = _zoned(dates)
    utc = zoned.dt.tz is not None and _in_utc(zoned)
    dates = _timestamps(zoned, utc)
    year, month = dates.dt.year.to_numpy(), dates.dt.month.to_numpy()
    months = 12 * year + month - 1
    by_month = bool((dates == dates.dt.normalize()).all()) and len(np.unique(months)) == len(months)
    if not by_month:
        _check_resolution(dates)
    return DateScale(by_month, int(year.min()), utc)


def decimal_years(dates: object) -> np.ndarray:
    """Dates as decimal years, evenly spaced where the dates are.

    Dates at midnight with at most one per calendar month (monthly, quarterly or yearly
    data, whatever the day of the month) are ``year + (month - 1) / 12``, so that every month
    is 1/12 apart; other dates (daily, weekly, with times of day) are the first year plus the
    days since its 1 January over 365.25, so that every day is as long. Either way a season
    of whole months or days stays a whole number of steps. Dates with a time zone are read in
    its calendar, but times of day whose UTC offsets differ (across a change to or from
    summer time, where local clocks skip or repeat an hour) are read in UTC.

    Parameters
    ----------
    dates : array-like of dates
        numpy ``datetime64``, pandas datetimes or periods, Python ``datetime`` or ``date``.

    Returns
    -------
    array of float

    Raises
    ------
    ValueError
        Dates closer than decimal years keep evenly spaced (a fraction of a millisecond
        apart: give the time since the first date in seconds instead), a missing date (NaT),
        or no dates.
    TypeError
        Numbers instead of dates.

    Examples
    --------
    >>> decimal_years(pd.to_datetime(pd.Series(["2001-01-31", "2001-02-28", "2001-07-31"])))
    array([2001.        , 2001.08333333, 2001.5       ])
    >>> decimal_years(pd.to_datetime(pd.Series(["2001-01-01", "2001-01-02", "2001-07-02"])))
    array([2001.        , 2001.00273785, 2001.49828884])
    """
    return date_scale(dates)(dates)
