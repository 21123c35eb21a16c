"""What the ``pymc-vsk`` commands share: argparse types (bounded integers, finite floats), the
``--quiet`` option and the check of an output directory."""

from __future__ import annotations

import argparse
import math
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "add_quiet_option",
    "directory_problem",
    "finite_float",
    "int_in",
    "non_negative_int",
    "positive_int",
    "probability",
]


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type accepting integers in [low, high].

    Parameters
    ----------
    low : int
        Smallest value accepted.
    high : int, optional
        Largest value accepted; no upper bound when ``None``.

    Returns
    -------
    callable
        ``parse(text) -> int``, raising ``argparse.ArgumentTypeError`` with the bound.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            kind = "a positive integer" if (low, high) == (1, None) else "an integer"
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"in {low}..{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    parse.__name__ = f"int_in_{low}_{high}"
    return parse


#: argparse type: an integer ≥ 1.
positive_int = int_in(1)


def finite_float(text: str) -> float:
    """An argparse type accepting finite floats (not nan or ±inf).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number, or not finite.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


#: argparse type: an integer ≥ 0.
non_negative_int = int_in(0)


def probability(text: str) -> float:
    """An argparse type accepting a number strictly between 0 and 1.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        Not a number, or not in (0, 1).
    """
    value = finite_float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text!r}")
    return value


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress messages on stderr, no sampler progress bars.

    The command's ``main`` runs inside :func:`pymc_vsk.progress.quiet` when ``args.quiet`` is
    set and inside :func:`pymc_vsk.progress.show` otherwise (``pymc_vsk.cli`` does this for
    every command that has the option); standard output is the same either way.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of one command.
    """
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress messages on stderr (what is running, compilation, steps of a sweep, "
        "progress bars); the results on stdout are unchanged",
    )


def directory_problem(path: Path, flag: str) -> str | None:
    """Why ``path`` cannot take a command's files, or ``None`` (then it exists).

    Checked before any work, so that an hour's sweep does not end in a traceback: the
    directory is created if need be, and a file is written in it and removed.

    Parameters
    ----------
    path : Path
        The directory.
    flag : str
        The option that named it, for the message (``"--out"``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     print(directory_problem(Path(f.name) / "figures", "--out"))  # doctest: +ELLIPSIS
    --out .../figures: ... is a file, not a directory; give a directory.
    """
    try:
        blocking = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            return f"{flag} {path}: {blocking} is a file, not a directory; give a directory."
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        return (
            f"{flag} {path}: cannot be written ({err.strerror or err}); give a directory you "
            "can write to."
        )
    return None
