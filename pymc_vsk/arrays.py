"""Numbers as the package accepts them: float arrays without text, dates or complex values,
finite values, whole counts.

Numpy alone: the jump detection, which never builds a pytensor graph, checks its inputs
with these too (the checks of symbolic inputs are in :mod:`pymc_vsk.validation`).
"""

from __future__ import annotations

import datetime
import numbers

import numpy as np
import numpy.typing as npt

__all__ = ["as_float_array", "as_probabilities", "check_count", "check_finite", "check_flag"]

_TIMES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64)


def as_float_array(value: npt.ArrayLike, name: str = "X") -> np.ndarray:
    """``value`` as a float array, refusing dates and durations instead of counting their ticks.

    numpy turns ``datetime64`` values into nanoseconds (or days, or microseconds: the count
    depends on the unit the dates were stored in), so a model would see numbers of another
    unit than a jump location written as a date, and a ψ that is constant over the data.

    Parameters
    ----------
    value : array-like
    name : str, default "X"
        How to call ``value`` in messages.

    Returns
    -------
    ndarray of float

    Raises
    ------
    TypeError
        If ``value`` holds dates, times or durations, complex numbers, text (even text that
        reads as a number, which numpy would parse silently) or values that are not numbers.

    Examples
    --------
    >>> as_float_array([[1], [2]]).dtype
    dtype('float64')
    >>> as_float_array(np.array(["2001-01-01"], dtype="datetime64[D]"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Dates or durations in X (dtype datetime64[D]): convert them to numbers ...
    """
    array = np.asarray(value)
    dated = array.dtype.kind in "mM"
    text = array.dtype.kind in "US"
    if array.dtype.kind == "c":
        raise TypeError(
            f"{name} holds complex numbers; pass real numbers (the real part, the modulus or "
            "the phase, as meant)."
        )
    if array.dtype == object:
        dated = any(isinstance(v, _TIMES) for v in array.ravel())
        text = any(isinstance(v, str | bytes) for v in array.ravel())
    if text:
        first = next(v for v in array.ravel() if isinstance(v, str | bytes))
        first = first.item() if isinstance(first, np.generic) else first
        raise TypeError(
            f"{name} must hold numbers, not text (it holds {first!r}): convert it first, e.g. "
            "float(value), np.asarray(values, dtype=float) or pandas.to_numeric(column)."
        )
    if dated:
        raise TypeError(
            f"Dates or durations in {name} (dtype {array.dtype}): convert them to numbers in "
            "a unit you choose, e.g. days since a start date, (t - t0) / np.timedelta64(1, 'D'), "
            "or decimal years, and give the inputs and ψ's parameters (a jump's location) in "
            "that one unit."
        )
    try:
        return array.astype(float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must hold numbers; {err}.") from None


def check_finite(values: np.ndarray, name: str, fix: str) -> None:
    """Raise ``ValueError`` if ``values`` holds NaN or ±inf, naming the first bad row.

    Parameters
    ----------
    values : ndarray
        Values to check.
    name : str
        How to call them in the message.
    fix : str
        The fix, ending the message.
    """
    values = np.asarray(values, dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        rows = np.flatnonzero(bad.reshape(len(values), -1).any(axis=1)) if values.ndim else [0]
        kinds = []
        if np.isnan(values).any():
            kinds.append(f"{int(np.isnan(values).sum())} NaN")
        if np.isinf(values).any():
            kinds.append(f"{int(np.isinf(values).sum())} infinite")
        raise ValueError(
            f"{name} contains {' and '.join(kinds)} value(s) (first in row {rows[0]}); {fix}"
        )


def check_count(value: object, name: str, low: int) -> int:
    """``value`` as an int, refused unless it is a whole number (not a bool) of at least ``low``.

    Parameters
    ----------
    value : object
        The count given.
    name : str
        Its argument name, for the message.
    low : int
        Smallest value accepted.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        ``value`` not an integer (a float such as ``1e20`` or ``2.0``, text, a bool).
    ValueError
        ``value < low``.

    Examples
    --------
    >>> check_count(np.int64(12), "period", 2)
    12
    >>> check_count(12.7, "period", 2)
    Traceback (most recent call last):
    ...
    TypeError: period must be an integer (int); got 12.7.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer (int); got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be at least {low}; got {value}.")
    return int(value)


def as_probabilities(
    values: float | npt.ArrayLike, name: str, *, closed: bool = False
) -> np.ndarray:
    """``values`` as a float array of probabilities, refused unless each lies in (0, 1).

    Parameters
    ----------
    values : float or array-like
        The probabilities.
    name : str
        How to call them in messages.
    closed : bool, default False
        Accept 0 and 1 too: each must lie in [0, 1] (quantiles of a discrete distribution).

    Returns
    -------
    ndarray

    Raises
    ------
    ValueError
        If ``values`` is empty, or a value is NaN or outside the interval.
    TypeError
        If ``values`` holds text, bools or other values that are not numbers.

    Examples
    --------
    >>> as_probabilities([0.05, 0.95], "q")
    array([0.05, 0.95])
    >>> as_probabilities(1.0, "q")
    Traceback (most recent call last):
    ...
    ValueError: q must hold probabilities in (0, 1); got 1.0.
    """
    if np.asarray(values).dtype == bool:
        raise TypeError(f"{name} must hold probabilities, not bools; got {values!r}.")
    array = as_float_array(values, name)
    if array.size == 0:
        raise ValueError(f"{name} is empty: give at least one probability.")
    inside = (array >= 0) & (array <= 1) if closed else (array > 0) & (array < 1)
    if not np.all(inside):  # NaN fails every comparison
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ValueError(f"{name} must hold probabilities in {interval}; got {array.tolist()}.")
    return array


def check_flag(value: object, name: str) -> bool:
    """``value`` as a bool, refused unless it is ``True`` or ``False`` (numpy's included).

    ``bool("no")`` is True and ``bool(None)`` False: an option read by its truth value
    would take either silently.

    Parameters
    ----------
    value : object
        The option given.
    name : str
        Its argument name, for the message.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        ``value`` not a bool.

    Examples
    --------
    >>> check_flag(np.True_, "standardize")
    True
    >>> check_flag("no", "standardize")
    Traceback (most recent call last):
    ...
    TypeError: standardize must be True or False; got 'no'.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)
