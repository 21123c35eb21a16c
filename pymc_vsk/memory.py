"""A guard against dense N × N work that would not fit in memory.

Dense GP paths build N × M covariance matrices, and a log density with its gradient keeps
several of them alive (the lifted squared distances, the kernel, its Cholesky factor, the
inverse the gradient needs). Before building such a graph the covariances here estimate that
memory and refuse, with an error that points to the approximations, when it exceeds a limit.

The limit is 2 GiB by default; change it with :func:`set_memory_limit` or the environment
variable ``PYMC_VSK_MEMORY_LIMIT`` (bytes, ``1e9``, or with a binary unit: ``8G``, ``512M``;
unset or empty for the default).

:func:`keep_large_temporaries` lets the C allocator (glibc's) keep those temporaries for the
next evaluation instead of returning them to the system after each one.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np

__all__ = [
    "APPROXIMATE",
    "DENSE_COPIES",
    "check_dense",
    "get_memory_limit",
    "keep_large_temporaries",
    "set_memory_limit",
]

#: N × M float64 arrays a dense log density and its gradient keep alive, per covariance.
DENSE_COPIES = 8

_limit: int | None = None

#: Bytes of the block :func:`keep_large_temporaries` allocates and frees: just below 32 MiB,
#: the highest mmap threshold glibc's dynamic adjustment reaches on 64-bit systems.
_THRESHOLD_BLOCK = 32 * 1024**2 - 1024**2

_kept = {"done": False}


def _parse(text: str, source: str) -> int:
    """Bytes of a size such as ``"8G"``, ``"512 MiB"``, ``"1e9"``; ``source`` names where
    the text came from in the error message."""
    match = re.fullmatch(
        r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?:([kKmMgGtT])i?)?[bB]?\s*", text
    )
    if not match or not np.isfinite(float(match.group(1))):
        raise ValueError(
            f"{source} is not a size; use bytes (2147483648, 1e9) or a number with "
            "a unit, e.g. '8G', '512M'."
        )
    value, unit = float(match.group(1)), (match.group(2) or "").upper()
    return int(value * 1024 ** " KMGT".index(unit or " "))


def get_memory_limit() -> int:
    """The current limit in bytes.

    Returns
    -------
    int
        The limit set by :func:`set_memory_limit`, else ``PYMC_VSK_MEMORY_LIMIT`` (unset or
        empty: 2 GiB).

    Raises
    ------
    ValueError
        ``PYMC_VSK_MEMORY_LIMIT`` is not a size.
    """
    if _limit is not None:
        return _limit
    env = os.environ.get("PYMC_VSK_MEMORY_LIMIT", "").strip()
    return _parse(env, f"PYMC_VSK_MEMORY_LIMIT={env!r}") if env else 2 * 1024**3


def set_memory_limit(limit: float | str | None) -> None:
    """Set the limit in bytes (or a size string such as ``"8G"``); ``None`` restores the default.

    Parameters
    ----------
    limit : int, float, str or None
        Bytes (>= 0), a size string (``"8G"``, ``"512M"``) or ``None`` (the default: 2 GiB,
        or ``PYMC_VSK_MEMORY_LIMIT``).

    Raises
    ------
    ValueError
        A negative or non-finite number, or a string that is not a size.
    TypeError
        Neither a number, a string nor None.
    """
    global _limit
    if limit is None:
        _limit = None
        return
    if isinstance(limit, str):
        _limit = _parse(limit, f"set_memory_limit({limit!r})")
        return
    if isinstance(limit, bool) or not isinstance(limit, int | float | np.integer | np.floating):
        raise TypeError(f"set_memory_limit takes bytes or a size such as '8G'; got {limit!r}.")
    if not np.isfinite(limit) or limit < 0:
        raise ValueError(
            f"set_memory_limit takes a number of bytes >= 0; got {limit!r}. For no practical "
            "limit give a large size, e.g. '1T'."
        )
    _limit = int(limit)


#: What to do instead of a dense GP on many points (the default advice of :func:`check_dense`).
APPROXIMATE = (
    "For many points use an approximation: pm.gp.MarginalApprox (VFE/FITC) with inducing points "
    "on both sides of each jump, or pymc_vsk.hsgp.LiftedHSGP."
)


def _format_size(nbytes: float) -> str:
    """``nbytes`` to one decimal in GiB from 0.1 GiB on, else in MiB or KiB, else in bytes."""
    for unit, power in (("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if nbytes >= 0.1 * 1024**power:
            return f"{nbytes / 1024**power:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def check_dense(
    n: int, m: int, what: str, copies: int = DENSE_COPIES, fix: str = APPROXIMATE
) -> None:
    """Raise ``MemoryError`` if ``copies`` dense n × m float64 arrays exceed the limit.

    Parameters
    ----------
    n, m : int
        Shape of one array.
    what : str
        What needs the arrays, for the message.
    copies : int, default DENSE_COPIES
        Number of arrays of that shape alive at once.
    fix : str, default APPROXIMATE
        What to do instead, for the message.

    Raises
    ------
    MemoryError
        Above the limit (:func:`get_memory_limit`).
    """
    need = int(n) * int(m) * 8 * copies
    limit = get_memory_limit()
    if need > limit:
        enough = f"'{max(16, math.ceil(need / 1024**3))}G'"
        raise MemoryError(
            f"{what} needs dense {n} x {m} matrices: about {_format_size(need)} ({copies} "
            f"at once), above the limit of {_format_size(limit)}. {fix} To allow it anyway, "
            f"raise the limit: pymc_vsk.memory.set_memory_limit({enough}) or "
            "PYMC_VSK_MEMORY_LIMIT."
        )


def keep_large_temporaries() -> bool:
    """Let glibc's allocator keep freed blocks of up to 32 MiB for reuse (once per process).

    A log density and its gradient at N nodes allocate several N × N temporaries per
    evaluation (5 MB each at N = 800). glibc serves a block above its mmap threshold (128 KiB
    at start) with fresh pages from the system; freeing such a block raises the threshold to
    its size and the heap's trim threshold to twice that. Temporaries of a few MB raise them
    only to a few MB, so the freed heap top (every temporary of one evaluation) is over the
    trim threshold and goes back to the system after each evaluation, and the next one
    page-faults its memory in again: measured at N = 800, about 7 500 page faults and 45 ms
    per evaluation instead of none and 26 ms (``benchmarks/run.py --only floor``). Allocating
    and freeing one block of just under 32 MiB (glibc's ceiling for the adjustment) sets the
    thresholds to 32 and 64 MiB, so the temporaries stay on the heap between evaluations. The
    cost is that up to 64 MiB of freed memory stays with the process; nothing else changes, and
    other C libraries are not affected.

    Returns
    -------
    bool
        Whether the block was allocated now (False: already done, or not glibc).

    Examples
    --------
    >>> from pymc_vsk.memory import keep_large_temporaries
    >>> keep_large_temporaries() in (True, False)
    True
    """
    if _kept["done"] or not _glibc():
        return False
    _kept["done"] = True
    block = np.empty(_THRESHOLD_BLOCK // 8)  # no page is touched: mmap and munmap only
    del block
    return True


def _glibc() -> bool:
    """Whether this process runs on glibc (whose allocator :func:`keep_large_temporaries` tunes)."""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False
