r"""Jump detection from a CSV file: ``pymc-vsk detect-jumps data.csv --x COL --y COL``.

Reads two numeric columns of a CSV file, sorts the rows by x and, by default, computes the
exact posterior of the segment model (:func:`pymc_vsk.jumps.find_jumps`): the probability of
every number of jumps, the number decided from them (the count of the answer with the largest
posterior expected F1 score), and per jump its posterior median location,
the shortest interval of gaps holding 94 % of its mass and the probability that a jump lies
there. ``--jumps K``
fixes the number. ``--method smooth|marginal`` fits instead the VSK GP with K random jumps by
NUTS (:func:`pymc_vsk.jumps.build_jump_model`; K must then be given). x and y stay in the
file's units; x may also hold ISO 8601 dates, read as decimal years
(:func:`~pymc_vsk.jumps.dates.decimal_years`).
``--json OUT`` writes the answer as JSON, ``--plot`` a figure; progress goes to stderr
(``--quiet`` silences it), results to stdout.

Exit status: 0 when the draws pass the diagnostics (r̂ ≤ 1.01, bulk and tail ESS ≥ 400, no
divergences), :data:`NOT_CONVERGED` (3) when they do not (the message says what to do; the
results are still written), 2 on bad input, and 141 when the reader of standard output goes
away (:data:`pymc_vsk.cli.BROKEN_PIPE`), after the files are written.

pandas reads the file (its python engine, which rejects malformed quoting), every cell as
text, with the separator of its header line (:func:`separator`: commas, or else tabs,
semicolons or bars, as spreadsheets export them, or else blanks, as aligned columns and R's
``write.table`` have them), lines starting with ``#`` left out as comments; the line of
each row is kept so that bad
input raises :class:`InputError`, whose message names the problem (file, line, column,
value) and the fix; :func:`main` prints it and returns exit status 2, as argparse does for
bad arguments.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import csv
import difflib
import importlib.util
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.figure import Figure

from pymc_vsk.arguments import (
    add_quiet_option,
    finite_float,
    int_in,
    non_negative_int,
    positive_int,
    probability,
)
from pymc_vsk.blas import blas_threads
from pymc_vsk.diagnostics import Diagnostics, diagnose
from pymc_vsk.draws import posterior
from pymc_vsk.jumps.dates import decimal_years, to_datetimes
from pymc_vsk.jumps.formatting import PROB, digits_for
from pymc_vsk.progress import bars, report, settle_pymc

if TYPE_CHECKING:  # the NUTS path imports PyMC when used: the segment model does not need it
    import pymc as pm
    import xarray as xr

    from pymc_vsk.jumps.detection import JumpPosterior
    from pymc_vsk.jumps.models import LocationPosterior, MarginalJumpGP
    from pymc_vsk.prediction import Prediction

__all__ = [
    "NOT_CONVERGED",
    "Detection",
    "InputError",
    "add_arguments",
    "default_location_range",
    "detect_jumps",
    "main",
    "plot_detection",
    "plot_jump_posterior",
    "read_xy",
    "separator",
]

#: Fewest rows per segment between jumps: a level and a noise estimate need a few each.
MIN_ROWS_PER_SEGMENT = 3
#: Cells read as missing values (compared case-insensitively after stripping blanks).
MISSING = frozenset({"", "na", "n/a", "#n/a", "nan", "null", "none", "-", "."})
#: Points of the prediction grid in the figure.
N_GRID = 400
#: Exit status when the draws fail the diagnostics.
NOT_CONVERGED = 3
#: The separators of fields that :func:`separator` recognises, and how messages name them.
SEPARATORS = {",": "commas", "\t": "tabs", ";": "semicolons", "|": "bars", " ": "blanks"}
#: A number written with a decimal comma (as files separated by semicolons or tabs often are).
_DECIMAL_COMMA = re.compile(r"^[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?$")
#: A field of a line separated by blanks: quoted (``""`` inside stands for ``"``) or bare.
_BLANK_FIELD = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
#: A number written as if with a thousands separator (1,000 or 1.000): it may be either.
_GROUPED = re.compile(r"^[+-]?\d{1,3}[.,]\d{3}$")
#: A whole number of three digits or more, written without separators.
_WHOLE = re.compile(r"^[+-]?\d{3,}$")
#: A comment line: ``#`` first (after blanks), unless it starts the missing-value marker #N/A.
_COMMENT = re.compile(r"\s*#(?!n/a(?![^\s,;|]))", re.IGNORECASE)
#: What :func:`_parse` puts in place of a row with too many fields.
_TOO_LONG = "\x00too many fields"


class InputError(ValueError):
    """A problem with the input file or the arguments; the message names it and the fix."""


# -- reading ----------------------------------------------------------------------------------
def read_xy(
    path: str | Path,
    x: str,
    y: str,
    *,
    min_rows: int = 2 * MIN_ROWS_PER_SEGMENT,
    drop_missing: bool = True,
    dates: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Read the numeric columns ``x`` and ``y`` of a CSV file with a header row, sorted by x.

    The fields are separated by commas, or, when the header line has none, by the tabs,
    semicolons or bars it has, or else by blanks (:func:`separator`): any number of spaces,
    as in aligned columns, with names or values that hold blanks in double quotes; a first
    column without a name, as R's ``write.table`` writes row names, is ignored. In a file
    not separated by commas a decimal comma is read as a decimal point (``3,14`` is 3.14),
    as spreadsheets write numbers in many languages. A first line ``sep=;`` (or another
    separator), as Excel writes it, names the separator. Lines that start with ``#`` are
    comments and are skipped, as in R's ``read.table`` and the files of many data centres.
    A column where numbers such as ``1,000`` or ``1.000`` sit beside whole numbers such as
    ``997`` is refused: the separator could mark thousands or decimals.

    ``x`` may also hold dates in ISO 8601 form (``2001-03-31``, ``2001-03``, with a time of
    day or not): they are read as decimal years
    (:func:`~pymc_vsk.jumps.dates.decimal_years`; in UTC when their UTC offsets differ), and
    a notice on stderr says so. Blank
    lines are skipped; other columns may hold anything. Rows whose ``y`` is missing (an
    empty cell or a marker such as ``NA``) are left out, and a notice on stderr says how many
    and on which lines: a series with gaps is analysed on the values it has.

    Parameters
    ----------
    path : str or Path
        Text file of separated values; the first non-blank line names the columns. UTF-8,
        or else Windows-1252, as spreadsheets on Windows save CSV files (with a notice on
        stderr), or UTF-16 with its byte-order mark.
    x, y : str
        Column names (exact, after stripping surrounding blanks).
    min_rows : int, default 6
        Fewest data rows accepted (after leaving out the rows without a ``y``).
    drop_missing : bool, default True
        Leave out rows whose ``y`` is missing (an empty cell, or a missing-value marker: NA,
        n/a, #N/A, nan, null, none, - or ., in any case); ``False`` makes them an error.
    dates : bool, default False
        Return a column of dates as the dates themselves (numpy ``datetime64``, or pandas
        ``Timestamp`` objects when they carry a time zone), for
        :func:`~pymc_vsk.jumps.detection.find_jumps`, instead of decimal years.

    Returns
    -------
    x : array, shape (n,)
        Inputs, sorted increasingly (ties keep their file order); decimal years for a column
        of dates, unless ``dates``.
    y : array, shape (n,)
        Observations in the same order.

    Raises
    ------
    InputError
        Missing or unreadable file, empty file, no header row, ragged rows, a missing
        column, empty/NA/non-finite or non-numeric cells (with line and column), or fewer
        than ``min_rows`` rows or than two distinct x values.
    """
    path = Path(path)
    text = _read_text(path)
    comments = [n for n, line in enumerate(text.splitlines(), start=1) if _COMMENT.match(line)]
    text, declared = _declared_separator(_without_comments(text))
    rows = _read_table(path, text, declared)
    if rows.empty:
        raise InputError(
            f"{path} is empty{' but for comment lines' if comments else ''}: it needs a header "
            "row naming the columns (e.g. 'x,y') and one row per observation."
        )
    header = [str(name).strip() for name in rows.iloc[0] if not pd.isna(name)]
    if all(_is_number(name) for name in header):
        hint = ""
        if comments and comments[-1] < rows.index[0]:
            hint = (
                f"; lines starting with # are comments: if line {comments[-1]} names the "
                "columns, remove its #"
            )
        raise InputError(
            f"{path}: the first row (line {rows.index[0]}) holds numbers, not column names: add "
            f"a header row naming the columns (e.g. '{x},{y}') before the data{hint}."
        )
    if x == y:
        raise InputError(f"--x and --y name the same column {x!r}; give two different columns.")
    index = {name: _column_index(path, header, name, flag) for name, flag in ((x, "x"), (y, "y"))}
    data = rows.iloc[1:]
    fields = rows.attrs["fields"]
    seps = SEPARATORS[rows.attrs["separator"]]
    for line in data.index:
        if fields[line] != len(header):
            raise InputError(
                f"{path}, line {line}: {fields[line]} field(s) but the header has {len(header)}; "
                f"every row needs one value per column (look for missing or extra {seps}, and "
                f"quote values that contain {seps})."
            )
    if drop_missing:
        gone = _missing(data[index[y]])
        if gone.any():
            lines = [str(line) for line in data.index[gone]]
            shown = ", ".join(lines[:10]) + (", …" if len(lines) > 10 else "")
            print(
                f"{path}: left out {len(lines)} row(s) without a value in column {y!r} "
                f"(line(s) {shown}).",
                file=sys.stderr,
            )
            data = data[~gone]
    if len(data) < min_rows:
        raise InputError(
            f"{path} has {len(data)} data row(s) with a value; at least {min_rows} are needed "
            f"({MIN_ROWS_PER_SEGMENT} per segment between jumps)."
        )
    columns = {name: data[index[name]] for name in (x, y)}
    for name, cells in columns.items():
        _check_grouping(path, name, cells)
    if rows.attrs["separator"] != ",":
        columns = {name: _decimal_points(cells) for name, cells in columns.items()}
    xs, when = _inputs(path, x, columns[x])
    ys = _numbers(path, y, columns[y])
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    if len(np.unique(xs)) < 2:
        raise InputError(
            f"{path}: column {x!r} holds a single distinct value ({xs[0]:g}); the inputs need "
            "to vary for a jump location to mean anything."
        )
    if dates and when is not None:
        return when.to_numpy()[order], ys
    return xs, ys


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError(
            f"{path}: no such file; check the path (relative paths start in {Path.cwd()})."
        )
    if path.is_dir():
        raise InputError(f"{path} is a directory; pass the CSV file inside it.")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"{path} cannot be read: {err.strerror}.") from None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encodings = ["utf-16"]
    elif b"\x00" in raw:  # text has no NUL bytes: a workbook, an archive, ...
        raise InputError(
            f"{path} is not a text file (it holds NUL bytes, as spreadsheet workbooks and "
            "compressed files do); export the data as CSV (UTF-8) first."
        )
    else:  # what spreadsheets on Windows save as "CSV" when not told UTF-8
        encodings = ["utf-8-sig", "cp1252"]
    first: UnicodeDecodeError | None = None
    for encoding in encodings:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as err:
            first = first or err
            continue
        if encoding == "cp1252":
            print(
                f"{path}: not UTF-8 text ({first.reason} at byte {first.start}); read as "
                "Windows-1252, as spreadsheets on Windows save CSV files.",
                file=sys.stderr,
            )
        return text
    raise InputError(
        f"{path} is not text in UTF-8, UTF-16 or Windows-1252 ({first.reason} at byte "
        f"{first.start}); export it as CSV (UTF-8) first."
    )


def _without_comments(text: str) -> str:
    """``text`` with its comment lines (:data:`_COMMENT`) left blank, so that messages keep
    the file's line numbers."""
    return "".join(
        "\n" if _COMMENT.match(line) else line for line in text.splitlines(keepends=True)
    )


def separator(line: str) -> str:
    r"""The separator of a file's fields, read from its header line.

    A comma when the line has one outside quotes; otherwise the most frequent of a tab, a
    semicolon and a bar, as spreadsheets export files in languages that write a decimal
    comma; otherwise a blank (``" "``: any run of spaces) when the line has several fields
    between blanks; else a comma (one column).

    Parameters
    ----------
    line : str
        The header line.

    Returns
    -------
    str

    Examples
    --------
    >>> separator("year;flow"), separator("year\tflow"), separator('"a;b",c')
    (';', '\t', ',')
    >>> separator("  year   flow"), separator('"the year" "flow"'), separator("flow")
    (' ', ' ', ',')
    """
    bare = re.sub(r'"[^"]*"', '""', line)
    if "," in bare:
        return ","
    counts = {sep: bare.count(sep) for sep in SEPARATORS if sep not in ", "}
    best = max(counts, key=counts.__getitem__)
    if counts[best]:
        return best
    return " " if len(bare.split()) > 1 else ","


def _blank_separated(path: Path, text: str) -> str:
    """The rows of a file whose fields are separated by blanks, written with commas, line for
    line (so that messages keep the file's line numbers).

    A header with one field fewer than every data row gets an empty first name: the rows
    start with row names, as R's ``write.table`` writes them.
    """
    rows: list[list[str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = []
        for quoted, bare in _BLANK_FIELD.findall(line):
            if '"' in bare:
                raise InputError(
                    f"{path}, line {number}: a quote in {bare!r} is not closed on its line; "
                    'close it, or write a quote inside a quoted value as "".'
                )
            fields.append(bare or quoted.replace('""', '"'))
        rows.append(fields)
    header, *data = [row for row in rows if row] or [[]]
    if data and all(len(row) == len(header) + 1 for row in data):
        header.insert(0, "")  # the header's own list in rows: the row names get a column
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _check_grouping(path: Path, column: str, cells: pd.Series) -> None:
    """Refuse a column where numbers that look grouped by thousands (``1,000``, ``1.000``)
    sit beside whole numbers written without (``997``), when read so they fit those whole
    numbers better than read as decimals: the file then likely means thousands, and which
    separator marks them cannot be read from it (``995.125`` beside ``1120`` reads as a
    decimal)."""
    text = cells[~_missing(cells)].str.strip()
    grouped = text[text.str.match(_GROUPED).astype(bool)]
    whole = text[text.str.match(_WHOLE).astype(bool)]
    if grouped.empty or whole.empty or text.str.contains(r"\d[.,]\d{0,2}$|\d[.,]\d{4,}$").any():
        return
    as_decimals = grouped.str.replace(",", ".").astype(float).abs()
    as_thousands = grouped.str.replace(r"[.,]", "", regex=True).astype(float).abs()
    scale = np.log10(np.median(whole.astype(float).abs()))

    def distance(values: pd.Series) -> float:
        return abs(np.log10(max(np.median(values), 1e-300)) - scale)

    if distance(as_thousands) >= distance(as_decimals):
        return
    (line, cell), (at, number) = next(iter(grouped.items())), next(iter(whole.items()))
    raise InputError(
        f"{path}, line {line}, column {column!r}: {cell!r} reads as "
        f"{float(re.sub(r'[.,]', '', cell)):g} with a thousands separator or as "
        f"{float(cell.replace(',', '.')):g} with three decimals, and the column also holds "
        f"whole numbers such as {number!r} (line {at}); write the numbers without thousands "
        "separators."
    )


def _decimal_points(cells: pd.Series) -> pd.Series:
    """Cells written with a decimal comma (``-3,5``) rewritten with a point; others as they
    are, so that a cell that is still not a number is reported as the file has it."""
    text = cells.str.strip()
    comma = text.str.match(_DECIMAL_COMMA).fillna(False).astype(bool)
    return cells.where(~comma, text.str.replace(",", ".", regex=False))


def _parse(
    text: str, mark_long_rows: bool = True, sep: str = ","
) -> tuple[pd.DataFrame, list[int]]:
    """pandas' reading of the rows, every cell as text, blank lines skipped, fields separated
    by ``sep``.

    With ``mark_long_rows``, rows with more fields than the first come back as one cell
    :data:`_TOO_LONG`, their field counts in order in the list; without, they raise
    ``pandas.errors.ParserError`` as malformed quoting does. (pandas skips a malformed row
    silently when ``on_bad_lines`` is a function, so quoting is checked without one.)
    """
    too_long: list[int] = []

    def mark(fields: list[str]) -> list[str]:
        too_long.append(len(fields))
        return [_TOO_LONG]

    frame = pd.read_csv(
        io.StringIO(text),
        header=None,
        sep=sep,
        dtype=str,
        keep_default_na=False,
        skip_blank_lines=True,
        engine="python",  # the python engine rejects malformed quoting; C silently mends it
        on_bad_lines=mark if mark_long_rows else "error",
    )
    return frame, too_long


def _malformed(err: pd.errors.ParserError) -> bool:
    """Whether pandas' error is bad quoting rather than a row with too many fields."""
    return re.match(r"Expected \d+ fields in line \d+, saw \d+", str(err)) is None


def _declared_separator(text: str) -> tuple[str, str | None]:
    """The separator that a first line such as ``sep=;`` declares (as Excel reads and writes
    it), and the text with that line left blank; else the text and None."""
    lines = text.splitlines(keepends=True)
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    declared = None if first is None else re.fullmatch(r"sep=(.)", lines[first].strip("\r\n"))
    if declared is None or declared[1] not in SEPARATORS:
        return text, None
    lines[first] = "\n"
    return "".join(lines), declared[1]


def _read_table(path: Path, text: str, declared: str | None = None) -> pd.DataFrame:
    """The non-blank rows (header included), indexed by the line on which each starts.

    ``attrs["fields"]`` maps each line to the number of fields of its row, and
    ``attrs["separator"]`` holds the separator of the fields: ``declared``, or else the
    header line's (:func:`separator`).
    """
    header = next((line for line in text.splitlines() if line.strip()), "")
    separated_by = declared or separator(header)
    sep = separated_by
    if separated_by == " ":
        text, sep = _blank_separated(path, text), ","
    try:
        _parse(text, mark_long_rows=False, sep=sep)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except pd.errors.ParserError as err:
        if _malformed(err):
            raise InputError(
                f"{path}, line {_first_bad_line(text, sep)}: malformed CSV ({err}); check the "
                "quoting on that line."
            ) from None
    frame, too_long = _parse(text, sep=sep)
    physical = text.splitlines()
    starts, fields, at = [], {}, 0
    long_counts = iter(too_long)
    for row in frame.itertuples(index=False):
        while at < len(physical) and not physical[at].strip():
            at += 1
        starts.append(at + 1)
        cells = [c for c in row if not pd.isna(c)]
        fields[at + 1] = next(long_counts) if cells == [_TOO_LONG] else len(cells)
        at += 1 + sum(c.count("\n") for c in cells)
    frame.index = starts
    blank = frame.apply(lambda r: all(pd.isna(c) or not c.strip() for c in r), axis=1)
    frame = frame[~blank]
    frame.attrs["fields"] = fields
    frame.attrs["separator"] = separated_by
    return frame


def _first_bad_line(text: str, sep: str) -> int:
    """The first line whose rows pandas cannot parse (by bisection over prefixes of lines)."""
    lines = text.splitlines(keepends=True)
    good, bad = 0, len(lines)
    while bad - good > 1:
        mid = (good + bad) // 2
        try:
            _parse("".join(lines[:mid]), mark_long_rows=False, sep=sep)
            good = mid
        except pd.errors.ParserError as err:
            good, bad = (good, mid) if _malformed(err) else (mid, bad)
        except pd.errors.EmptyDataError:
            good = mid
    return bad


def _column_index(path: Path, header: list[str], name: str, flag: str) -> int:
    hits = [i for i, column in enumerate(header) if column == name]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise InputError(
            f"{path}: column {name!r} appears {len(hits)} times in the header; rename the "
            f"duplicates so that --{flag} names one column."
        )
    message = f"{path} has no column {name!r} (--{flag}); its columns are: " + ", ".join(
        repr(c) for c in header
    )
    close = difflib.get_close_matches(name, header, n=1) or [
        c for c in header if c.lower() == name.lower()
    ]
    if len(header) == 1 and not close:
        message += (
            ". The header has one field: separate the columns with commas (or tabs, semicolons, "
            "bars or blanks)."
        )
    elif close:
        message += f". Did you mean {close[0]!r}?"
    raise InputError(message)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _missing(cells: pd.Series) -> np.ndarray:
    """Which cells are empty or a missing-value marker (``MISSING``)."""
    return (cells.isna() | cells.str.strip().str.lower().isin(MISSING)).to_numpy()


def _inputs(path: Path, column: str, cells: pd.Series) -> tuple[np.ndarray, pd.Series | None]:
    """The x column as floats: numbers, or ISO 8601 dates as decimal years (with a notice);
    and the dates, when it holds dates."""
    try:
        return _numbers(path, column, cells), None
    except InputError as err:
        text = cells.str.strip()
        missing = _missing(cells)
        if missing.any():  # dates or numbers: the first empty cell is the problem
            k = int(np.argmax(missing))
            raise InputError(_missing_cell(path, column, cells, k)) from None
        if text.map(_is_number).any():
            raise  # numbers mixed with something else: the number's error
        try:
            when = to_datetimes(text, format="ISO8601")
        except (ValueError, TypeError, OverflowError):
            raise InputError(f"{err} Dates are read in ISO 8601 form (2001-03-31).") from None
    try:
        years = decimal_years(when)
    except ValueError as err:  # times closer than decimal years resolve
        raise InputError(f"{path}, column {column!r}: {err}") from None
    print(
        f"{path}: column {column!r} read as dates; x is in decimal years "
        f"({when.iloc[0]:%Y-%m-%d} is {years[0]:.4f}).",
        file=sys.stderr,
    )
    return years, when


def _missing_cell(path: Path, column: str, cells: pd.Series, k: int) -> str:
    """The message for the empty (or missing-value) cell at position k of a column."""
    text = cells.iloc[k].strip() if isinstance(cells.iloc[k], str) else ""
    what = f"the missing-value marker {text!r}" if text else "an empty cell"
    return (
        f"{path}, line {cells.index[k]}, column {column!r}: {what}; delete the row or fill in "
        "the value."
    )


def _numbers(path: Path, column: str, cells: pd.Series) -> np.ndarray:
    """The cells of one column as floats (pandas), or an error naming the first bad cell."""
    text = cells.str.strip()
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    missing = _missing(cells)
    bad = missing | ~np.isfinite(values)
    if not bad.any():
        return values
    k = int(np.argmax(bad))
    line, cell, value = cells.index[k], cells.iloc[k], values[k]
    if missing[k]:
        raise InputError(_missing_cell(path, column, cells, k))
    if np.isnan(value):
        raise InputError(
            f"{path}, line {line}, column {column!r}: {cell!r} is not a number; use plain "
            "numbers with a decimal point (no units or thousands separators)."
        )
    raise InputError(
        f"{path}, line {line}, column {column!r}: {cell!r} is not finite; delete the row or "
        "replace the value."
    )


# -- fitting ----------------------------------------------------------------------------------
def default_location_range(x: np.ndarray) -> tuple[float, float]:
    """The inner 80 % of the range of ``x``: the default uniform prior range of a location.

    Parameters
    ----------
    x : array, shape (n,)
        Inputs.

    Returns
    -------
    lower, upper : float
    """
    x = np.asarray(x, dtype=float)
    from pymc_vsk.models import node_scales

    _, span = node_scales(x[:, None])
    return float(x.min() + 0.1 * span), float(x.min() + 0.9 * span)


@dataclass
class Detection:
    """Result of :func:`detect_jumps`.

    Attributes
    ----------
    x, y : array, shape (n,)
        The data, sorted by x.
    model : pm.Model
        The jump model.
    gp : pm.gp.Marginal or MarginalJumpGP
        Its GP.
    idata : DataTree
        Output of ``pm.sample``.
    method : {"smooth", "marginal"}
    lower, upper : float
        Range of the uniform location prior.
    locations : list of LocationPosterior
        One per jump, in increasing order of location.
    diagnostics : Diagnostics
        Of the model's free parameters.
    """

    x: np.ndarray
    y: np.ndarray
    model: pm.Model
    gp: pm.gp.Marginal | MarginalJumpGP
    idata: xr.DataTree
    method: str
    lower: float
    upper: float
    locations: list[LocationPosterior]
    diagnostics: Diagnostics

    def summary(self, prob: float = PROB) -> str:
        """The location posterior of each jump and the diagnostics, as text.

        Parameters
        ----------
        prob : float, default 0.94
            Credible mass of the location intervals.

        Returns
        -------
        str
        """
        post = posterior(self.idata)
        d = digits_for(self.x)
        lines = [
            f"{len(self.x)} observations, x in [{self.x.min():.{d}g}, {self.x.max():.{d}g}]; "
            f"{len(self.locations)} jump(s), method {self.method!r}, "
            f"{post.sizes['chain']} chains × {post.sizes['draw']} draws; "
            f"location prior uniform on [{self.lower:.{d}g}, {self.upper:.{d}g}]"
        ]
        for k, loc in enumerate(self.locations, 1):
            lines.append(f"jump {k}: {loc.summary(prob)}")
        lines += ["", "diagnostics:", str(self.diagnostics)]
        if not self.diagnostics.ok:
            lines.append("(the sampler has not converged: rerun with more --draws)")
        return "\n".join(lines)

    def as_dict(self, prob: float = PROB) -> dict:
        """The answer in the JSON layout of
        :meth:`JumpPosterior.as_dict() <pymc_vsk.jumps.detection.JumpPosterior.as_dict>`.

        The number of jumps is fixed, so ``p_n_jumps`` puts probability 1 on it and each
        jump's ``probability`` is 1; ``interval`` is the hull of its ``prob`` credible gaps.
        """
        jumps = []
        for loc in self.locations:
            lo, hi = loc.interval(prob)
            jumps.append(
                {"location": float(loc.quantile(0.5)), "interval": [lo, hi], "probability": 1.0}
            )
        return {
            "n_jumps": len(self.locations),
            "p_n_jumps": {str(len(self.locations)): 1.0},
            "jumps": jumps,
            "diagnostics": self.diagnostics.as_dict(),
        }

    def predict(self, xnew: np.ndarray, max_draws: int = 200) -> Prediction:
        """Posterior predictive mean and std at ``xnew``, mixed over posterior draws.

        Parameters
        ----------
        xnew : array, shape (m,)
            Inputs.
        max_draws : int, default 200
            Posterior draws mixed.

        Returns
        -------
        Prediction
        """
        Xnew = np.asarray(xnew, dtype=float)[:, None]
        from pymc_vsk.prediction import predict

        return predict(self.gp, Xnew, idata=self.idata, model=self.model, max_draws=max_draws)


def detect_jumps(
    x: np.ndarray,
    y: np.ndarray,
    *,
    n_jumps: int = 1,
    method: str = "smooth",
    lower: float | None = None,
    upper: float | None = None,
    draws: int = 1000,
    tune: int | None = None,
    chains: int = 4,
    seed: int = 0,
    target_accept: float = 0.8,
    progressbar: bool = False,
) -> Detection:
    """Fit the VSK GP with ``n_jumps`` jumps by NUTS and summarise the locations.

    The sampler is nutpie or PyMC's, whichever :func:`pymc_vsk.samplers.choose_sampler`
    predicts to finish first.

    Parameters
    ----------
    x, y : array, shape (n,)
        Inputs and observations (any order).
    n_jumps : int, default 1
        Number of jumps.
    method : {"smooth", "marginal"}, default "smooth"
        As in :func:`pymc_vsk.jumps.build_jump_model`; ``"marginal"`` takes one jump and
        costs one Cholesky factorisation per gap between nodes.
    lower, upper : float, optional
        Uniform prior range of the locations (default :func:`default_location_range`).
    draws : int, default 1000
        Draws per chain.
    tune : int, optional
        Tuning steps per chain (default ``draws``).
    chains : int, default 4
        NUTS chains.
    seed : int, default 0
        Random seed of the sampler.
    target_accept : float, default 0.8
        NUTS' target acceptance rate (raise it towards 0.99 when there are divergences).
    progressbar : bool, default False
        Show the sampler's progress bar (on stderr).

    Returns
    -------
    Detection

    Raises
    ------
    InputError
        ``lower >= upper``, no node inside the prior range, or ``method="marginal"`` with
        more than one jump.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    default_lower, default_upper = default_location_range(x)
    lower = default_lower if lower is None else float(lower)
    upper = default_upper if upper is None else float(upper)
    if method == "marginal" and n_jumps != 1:
        raise InputError(
            f"--method marginal handles one jump; for --jumps {n_jumps} use --method smooth."
        )
    import pymc as pm

    from pymc_vsk.jumps.models import build_jump_model, check_location_range, location_posterior

    settle_pymc()

    try:
        check_location_range(x, lower, upper, n_jumps, names=("--lower", "--upper"))
    except ValueError as err:
        raise InputError(str(err)) from None
    inside = np.unique(x[(x > lower) & (x < upper)])
    from pymc_vsk.samplers import choose_sampler

    model, gp = build_jump_model(
        x[:, None], y, n_jumps=n_jumps, method=method, lower=lower, upper=upper
    )

    tune = draws if tune is None else tune
    cost = len(inside) if method == "marginal" else 1  # "marginal": a factorisation per gap
    sampler = choose_sampler(len(x), draws, tune, chains, evaluation_cost=cost).sampler
    # the samplers draw their progress on stdout; the command's stdout holds only the results
    with model, blas_threads(1), contextlib.redirect_stdout(sys.stderr):
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            nuts_sampler=sampler,
            random_seed=seed,
            target_accept=target_accept,
            progressbar=progressbar,
        )
    if method == "marginal":
        locations = [gp.location_posterior(idata)]
    else:
        locations = location_posterior(idata, x[:, None], lower, upper)
    names = [v.name for v in model.free_RVs]
    return Detection(
        x, y, model, gp, idata, method, lower, upper, locations, diagnose(idata, names)
    )


# -- plotting ---------------------------------------------------------------------------------
def plot_detection(
    detection: Detection, x_label: str = "x", y_label: str = "y", prob: float = PROB
) -> Figure:
    """Data with the posterior mean ± 2 std (latent f), and each jump's location posterior.

    The lower panel shows the posterior density of each location over the gaps between nodes
    (gap probability / gap width); the ``prob`` credible gaps are shaded in both panels.

    Parameters
    ----------
    detection : Detection
    x_label, y_label : str
        Axis labels (the column names).
    prob : float, default 0.94
        Credible mass of the shaded gaps.

    Returns
    -------
    Figure
    """
    d = detection
    grid = np.union1d(np.linspace(d.x.min(), d.x.max(), N_GRID), d.x)
    pred = d.predict(grid)
    fig = Figure(figsize=(9, 6))  # not pyplot: any backend will do, and none is changed
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    band = (pred.mean - 2 * pred.std_f, pred.mean + 2 * pred.std_f)
    top.fill_between(grid, *band, color="C0", alpha=0.25, label="±2 std (latent f)")
    top.plot(grid, pred.mean, color="C0", label="posterior mean")
    top.plot(d.x, d.y, "o", color="k", ms=3, label="data")
    for k, loc in enumerate(d.locations):
        color = f"C{k + 1}"
        gaps = loc.gaps
        widths = gaps.right - gaps.left
        bottom.bar(
            gaps.left,
            loc.probs / widths,
            width=widths,
            align="edge",
            color=color,
            alpha=0.8,
            label=f"jump {k + 1}",
        )
        for g in loc.credible_gaps(prob):
            for ax in (top, bottom):
                ax.axvspan(gaps.left[g], gaps.right[g], color=color, alpha=0.12, lw=0)
    top.set_ylabel(y_label)
    top.set_title(
        f"Jump detection: VSK GP, {len(d.locations)} jump(s); shaded: {prob:.0%} credible gaps"
    )
    top.legend(fontsize=8, loc="best")
    bottom.set_ylabel("location density")
    bottom.set_xlabel(x_label)
    bottom.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def plot_jump_posterior(post: JumpPosterior, x_label: str = "x", y_label: str = "y") -> Figure:
    """Data, the segment-wise mean ± 2 std, and each jump's location probabilities.

    The shaded spans are the jumps' credible intervals (``Jump.interval``, 94 %).

    Parameters
    ----------
    post : JumpPosterior
    x_label, y_label : str
        Axis labels (the column names).

    Returns
    -------
    Figure
    """
    grid = np.union1d(np.linspace(post.x[0], post.x[-1], N_GRID), post.x)
    mean, std = post.mean(grid)
    fig = Figure(figsize=(9, 6))  # not pyplot: any backend will do, and none is changed
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    top.fill_between(grid, mean - 2 * std, mean + 2 * std, color="C0", alpha=0.25, label="±2 std")
    top.plot(grid, mean, color="C0", label="posterior mean (median jump locations)")
    top.plot(post.x, post.y, "o", color="k", ms=3, label="data")
    wild = np.isin(post.x, post.outliers)
    if np.any(wild):
        top.plot(post.x[wild], post.y[wild], "x", color="C3", ms=7, label="left out: gross errors")
    width = 0.8 * post.model.spacing * (post.x[-1] - post.x[0])  # of the median node spacing
    for k, jump in enumerate(post.jumps):
        color = f"C{k + 1}"
        bottom.bar(jump.gaps, jump.gap_probs, width=width, color=color, label=f"jump {k + 1}")
        for ax in (top, bottom):
            ax.axvspan(*jump.interval, color=color, alpha=0.12, lw=0)
    ks = ", ".join(f"P(K={k}) = {p:.2f}" for k, p in enumerate(post.p_n_jumps) if p >= 0.01)
    top.set_title(f"{post.n_jumps} jump(s); {ks}; shaded: {PROB:.0%} intervals")
    top.set_ylabel(y_label)
    top.legend(fontsize=8, loc="best")
    bottom.set_ylabel("P(gap | K)")
    bottom.set_xlabel(x_label)
    if post.jumps:
        bottom.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


# -- command line -----------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``pymc-vsk detect-jumps``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk detect-jumps``.
    """
    parser.add_argument("csv", type=Path, help="CSV file with a header row")
    parser.add_argument(
        "--x",
        required=True,
        metavar="COL",
        help="column of the inputs: numbers in any units, or ISO 8601 dates (2001-03-31), "
        "read as decimal years",
    )
    parser.add_argument("--y", required=True, metavar="COL", help="column of the observations")
    parser.add_argument(
        "--jumps",
        type=non_negative_int,
        metavar="K",
        help="number of jumps (default: decided from the data, by the largest expected F1 score)",
    )
    parser.add_argument(
        "--method",
        choices=("segments", "smooth", "marginal"),
        default="segments",
        help="'segments' (default): exact posterior over the number and places of the jumps; "
        "'smooth' / 'marginal': the VSK GP with --jumps K random jumps by NUTS (logistic "
        "relaxation, or the exact marginal over gaps for one jump)",
    )
    parser.add_argument(
        "--draws",
        type=positive_int,
        default=1000,
        metavar="N",
        help="draws per chain (and NUTS tuning steps) (default 1000)",
    )
    parser.add_argument(
        "--chains",
        type=int_in(2),
        default=4,
        metavar="C",
        help="chains, at least 2: r̂ compares them (default 4)",
    )
    parser.add_argument(
        "--target-accept",
        type=probability,
        metavar="P",
        help="NUTS target acceptance rate, for --method smooth|marginal (default 0.8)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, metavar="S", help="random seed (default 0)"
    )
    parser.add_argument(
        "--lower",
        type=finite_float,
        metavar="A",
        help="NUTS methods: lower end of the uniform location prior (default: 10 %% into x)",
    )
    parser.add_argument(
        "--upper",
        type=finite_float,
        metavar="B",
        help="NUTS methods: upper end of the uniform location prior (default: 90 %% into x)",
    )
    parser.add_argument(
        "--no-warp",
        action="store_true",
        help="model y as it is (default: a log warp of y is also weighed, by the evidence, "
        "for noise that grows with the level)",
    )
    parser.add_argument(
        "--no-season",
        action="store_true",
        help="fit no seasonal profile (default: for regularly spaced x, the season of the "
        "period the data show best is also weighed, by the evidence)",
    )
    parser.add_argument(
        "--trend",
        action="store_true",
        help="for a series that rises or falls steadily (economic levels): when the steps "
        "of y show a steady drift, also weigh, by the evidence, a model with that drift "
        "shared by every segment, so that a shift pays for a new level alone",
    )
    parser.add_argument(
        "--json",
        type=_file_path("answer.json"),
        metavar="OUT",
        help="write the answer as JSON to the file OUT (missing directories are created)",
    )
    parser.add_argument(
        "--plot",
        type=_file_path("figure.png"),
        metavar="PATH",
        help="save the figure to the file PATH, in the format of its suffix (.png, .pdf, .svg, "
        "...; none means .png, which is appended); missing directories are created "
        "(default: <csv name>-jumps.png in the current directory)",
    )
    add_quiet_option(parser)


@contextlib.contextmanager
def _unloaded_jax_hidden() -> Iterator[None]:
    """Hide a ``jax`` module that is registered but not loaded while figures are drawn.

    arviz registers ``jax`` in ``sys.modules`` as a lazy module when jax is installed, and
    matplotlib asks every array it plots whether it is a ``jax.Array``: the question loads
    all of jax, although no jax array can exist before jax is loaded.
    Inside the block such a lazy module is out of ``sys.modules``; it is put back after,
    unless jax was imported meanwhile.
    """
    lazy = getattr(importlib.util, "_LazyModule", None)
    module = sys.modules.get("jax")
    if lazy is None or type(module) is not lazy:
        yield
        return
    del sys.modules["jax"]
    try:
        yield
    finally:
        sys.modules.setdefault("jax", module)


def _file_path(example: str) -> Callable[[str], Path]:
    """An argparse type for an output file: a path that ends with a separator names a
    directory and is refused, and so is ``-``, which would be a file of that name.

    Parameters
    ----------
    example : str
        A file name the message suggests.

    Returns
    -------
    callable
        ``parse(text) -> Path``, raising ``argparse.ArgumentTypeError`` for a directory.
    """

    def parse(text: str) -> Path:
        if text == "-":
            raise argparse.ArgumentTypeError(
                "'-' is not standard output here: the option names a file to write (the "
                f"summary goes to standard output); give a file name, such as {example}"
            )
        if text.endswith(("/", os.sep)):
            raise argparse.ArgumentTypeError(
                f"{text!r} names a directory; give a file name in it, such as "
                f"{Path(text) / example}"
            )
        return Path(text)

    parse.__name__ = "file_path"  # argparse names the type in its messages
    return parse


def _figure_file(path: Path) -> Path:
    """The file a figure given as ``path`` is saved to: ``path`` with ``.png`` appended
    when it has no suffix (as matplotlib saves it), unless it is a directory."""
    if path.suffix or path.is_dir():
        return path
    return path.with_name(path.name + ".png")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same place, or the same existing file (a link)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.samefile(b)
    except OSError:  # either does not exist yet
        return False


def _check_outputs(data: Path, answer: Path | None, figure: Path) -> None:
    """Refuse outputs that would overwrite the input file, or each other."""
    for flag, path in (("json", answer), ("plot", figure)):
        if path is not None and _same_file(path, data):
            raise InputError(
                f"--{flag} {path} is the input file, which would be overwritten; give another "
                "file name."
            )
    if answer is not None and _same_file(answer, figure):
        raise InputError(
            f"--json {answer} is also the figure's file; give --json and --plot different "
            "file names."
        )


def _check_writable(path: Path, flag: str, figure: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written (a directory, a place
    without write permission, a figure format matplotlib does not know).

    The missing directories leading to it are created for the trial and removed after it:
    :func:`main` creates them again when it writes the file, so that a run refused later
    leaves nothing behind.
    """
    if figure:
        kinds = FigureCanvasBase.get_supported_filetypes()
        if path.suffix and path.suffix[1:].lower() not in kinds:
            raise InputError(
                f"--{flag} {path}: matplotlib cannot save {path.suffix!r} figures; use one of "
                + ", ".join(f".{k}" for k in sorted(kinds))
                + "."
            )
    if path.is_dir():
        raise InputError(f"--{flag} {path} is a directory; give a file name in it.")
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise InputError(f"--{flag} {path}: {blocking} is a file, not a directory.")
    missing = [p for p in path.parents if not p.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existed = path.exists()
        with path.open("ab"):
            pass
        if not existed:
            path.unlink()
    except OSError as err:
        raise InputError(
            f"--{flag} {path}: cannot be written ({err.strerror or err}); give a path in a "
            "directory you can write to."
        ) from None
    finally:
        for directory in missing:  # deepest first
            with contextlib.suppress(OSError):
                directory.rmdir()


def main(args: argparse.Namespace) -> int:
    """Run ``detect-jumps``: read, fit, print the summary, write the JSON and the figure.

    Parameters
    ----------
    args : argparse.Namespace
        The options of ``pymc-vsk detect-jumps``.

    Returns
    -------
    int
        Exit status: 0 when the draws pass the diagnostics, :data:`NOT_CONVERGED` when they
        do not, 2 on bad input (the message on stderr).
    """
    nuts = args.method != "segments"
    try:
        if nuts and args.jumps is None:
            raise InputError(
                f"--method {args.method} samples a fixed number of jumps: give --jumps K, or "
                "leave out --method to let the data choose the number."
            )
        if nuts and args.jumps == 0:
            raise InputError(f"--method {args.method} needs --jumps 1 or more.")
        if not nuts and (args.lower is not None or args.upper is not None):
            raise InputError(
                "--lower/--upper bound the location prior of the NUTS methods; the default "
                "method considers every gap between observations (use --method smooth)."
            )
        segment_flags = (
            ("--no-warp", args.no_warp),
            ("--no-season", args.no_season),
            ("--trend", args.trend),
        )
        given = [flag for flag, on in segment_flags if on]
        if nuts and given:
            raise InputError(
                f"{given[0]} applies to the default method; --method {args.method} models y "
                "as it is already."
            )
        if not nuts and args.target_accept is not None:
            raise InputError(
                "--target-accept tunes NUTS (--method smooth|marginal); the default method "
                "draws exactly and has no such setting."
            )
        figure = (
            Path(f"{args.csv.stem}-jumps.png") if args.plot is None else _figure_file(args.plot)
        )
        _check_outputs(args.csv, args.json, figure)
        if args.json is not None:
            _check_writable(args.json, "json")
        if args.plot is not None:
            _check_writable(figure, "plot", figure=True)
        else:
            try:
                _check_writable(figure, "plot", figure=True)
            except InputError:  # the default place: the answer matters more than the figure
                print(
                    f"pymc-vsk detect-jumps: cannot write {figure} in the current directory; "
                    "the figure is not saved (give --plot PATH to save it elsewhere).",
                    file=sys.stderr,
                )
                figure = None
        k_min = args.jumps if args.jumps is not None else 0
        report(f"detect-jumps: reading {args.csv}")
        x, y = read_xy(
            args.csv,
            args.x,
            args.y,
            min_rows=MIN_ROWS_PER_SEGMENT * (k_min + 1),
            dates=not nuts,  # find_jumps writes the places of dated jumps as dates too
        )
        if args.jumps is None and len(x) < 2 * MIN_ROWS_PER_SEGMENT:
            print(
                f"pymc-vsk detect-jumps: {len(x)} observations leave no room for a jump "
                f"({MIN_ROWS_PER_SEGMENT} are needed on each side of one); the answer is "
                "no jump.",
                file=sys.stderr,
            )
        if nuts:
            report(f"sampling the VSK GP with {args.jumps} jump(s) by NUTS")
            result: Detection | JumpPosterior = detect_jumps(
                x,
                y,
                n_jumps=args.jumps,
                method=args.method,
                lower=args.lower,
                upper=args.upper,
                draws=args.draws,
                chains=args.chains,
                seed=args.seed,
                target_accept=0.8 if args.target_accept is None else args.target_accept,
                progressbar=bars(),
            )
        else:
            what = "every number of jumps" if args.jumps is None else f"{args.jumps} jump(s)"
            report(f"{len(x)} observations: exact posterior over {what}")
            from pymc_vsk.jumps.detection import find_jumps  # Numba: imported when used

            try:
                result = find_jumps(
                    x,
                    y,
                    n_jumps=args.jumps,
                    min_size=MIN_ROWS_PER_SEGMENT,
                    draws=args.draws,
                    chains=args.chains,
                    seed=args.seed,
                    warp=not args.no_warp,
                    season=not args.no_season,
                    trend=args.trend,
                )
            except (ValueError, MemoryError) as err:
                raise InputError(str(err)) from None
    except InputError as err:
        print(f"pymc-vsk detect-jumps: error: {err}", file=sys.stderr)
        return 2
    # the files first, the text after: a reader of stdout that leaves early (``| head``)
    # does not cost the files
    saved = []
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result.as_dict(), indent=2) + "\n")
        saved.append(args.json)
    if figure is not None:
        with _unloaded_jax_hidden():  # no jax array here: asking for one would load jax
            if nuts:
                fig = plot_detection(result, x_label=args.x, y_label=args.y)
            else:
                fig = plot_jump_posterior(result, x_label=args.x, y_label=args.y)
            figure.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(figure, dpi=120, bbox_inches="tight")
        saved.append(figure)
    print(result.summary())
    for path in saved:
        print(f"saved {path}")
    if not result.diagnostics.ok:
        print(
            "pymc-vsk detect-jumps: the draws did not pass the diagnostics "
            f"({'; '.join(result.diagnostics.problems)}): rerun with more --draws"
            + (" or a higher --target-accept" if nuts else ""),
            file=sys.stderr,
        )
        return NOT_CONVERGED
    return 0
