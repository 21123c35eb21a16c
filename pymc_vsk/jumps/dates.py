"""Dates as decimal years, the x of jump detection when a series is indexed by dates.

A jump's location is reported in the units of x; for dates those are decimal years
(2001.5 is the middle of 2001). The mapping keeps regularly spaced dates regularly spaced, so
that a season of whole months or days stays a whole number of steps
(:func:`pymc_vsk.jumps.seasons.find_period` needs a regular grid).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["decimal_years", "is_dates"]


def is_dates(x: object) -> bool:
    """Whether ``x`` holds dates: numpy ``datetime64`` or pandas datetimes.

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
    """
    dtype = getattr(x, "dtype", None)
    return pd.api.types.is_datetime64_any_dtype(np.asarray(x).dtype if dtype is None else dtype)


def decimal_years(dates: pd.Series | pd.DatetimeIndex | np.ndarray) -> np.ndarray:
    """Dates as decimal years, evenly spaced where the dates are.

    Dates at midnight with at most one per calendar month (monthly, quarterly or yearly
    data, whatever the day of the month) are ``year + (month - 1) / 12``, so that every month
    is 1/12 apart; other dates (daily, weekly, with times of day) are the first year plus the
    days since its 1 January over 365.25, so that every day is as long. Either way a season
    of whole months or days stays a whole number of steps.

    Parameters
    ----------
    dates : array-like of datetime64 (numpy, pandas Series or DatetimeIndex)

    Returns
    -------
    array of float

    Examples
    --------
    >>> decimal_years(pd.to_datetime(pd.Series(["2001-01-31", "2001-02-28", "2001-07-31"])))
    array([2001.        , 2001.08333333, 2001.5       ])
    >>> decimal_years(pd.to_datetime(pd.Series(["2001-01-01", "2001-01-02", "2001-07-02"])))
    array([2001.        , 2001.00273785, 2001.49828884])
    """
    dates = pd.Series(pd.to_datetime(dates)).reset_index(drop=True)
    if dates.dt.tz is not None:  # the calendar of their own time zone
        dates = dates.dt.tz_localize(None)
    year, month = dates.dt.year.to_numpy(), dates.dt.month.to_numpy()
    months = 12 * year + month - 1
    if (dates == dates.dt.normalize()).all() and len(np.unique(months)) == len(months):
        return months / 12.0
    first = pd.Timestamp(year=int(year.min()), month=1, day=1)
    return year.min() + (dates - first).dt.total_seconds().to_numpy() / (365.25 * 86400.0)
