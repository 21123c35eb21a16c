"""The BLAS thread pool: one thread for the small dense matrices of GP fits.

GP covariance matrices of a few hundred nodes are too small for multithreaded BLAS to gain
anything, and on a loaded machine its spinning threads cost many times the work itself (a MAP
fit or a nutpie run, which already uses one thread per chain, slows down by an order of
magnitude).
:func:`~pymc_vsk.fitting.fit_map` and the predictors use :func:`blas_threads` with one thread by
default; wrap ``pm.sample`` in it, or set ``OPENBLAS_NUM_THREADS=1`` before Python starts, for
NUTS.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from numbers import Integral

from threadpoolctl import threadpool_limits

__all__ = ["blas_threads"]


def blas_threads(limit: int | None = 1) -> AbstractContextManager:
    """Context manager limiting the BLAS thread pool to ``limit`` threads (``None``: leave it).

    The limit applies from entering the ``with`` block to leaving it, by an exception too.

    Parameters
    ----------
    limit : int or None, default 1
        Number of threads (>= 1).

    Returns
    -------
    context manager

    Raises
    ------
    TypeError
        ``limit`` is neither an integer nor None.
    ValueError
        ``limit`` is below 1.

    Examples
    --------
    Wrap ``pm.sample`` (or anything else doing dense linear algebra) in it:

    >>> import numpy as np
    >>> from threadpoolctl import threadpool_info
    >>> from pymc_vsk.blas import blas_threads
    >>> with blas_threads(1):
    ...     threads = {pool["num_threads"] for pool in threadpool_info()
    ...                if pool["user_api"] == "blas"}
    ...     product = np.ones((50, 50)) @ np.ones(50)
    >>> threads <= {1}
    True
    """
    if limit is None:
        return nullcontext()
    if isinstance(limit, bool) or not isinstance(limit, Integral):
        raise TypeError(f"The BLAS thread limit must be an integer or None; got {limit!r}.")
    if limit < 1:
        raise ValueError(f"The BLAS thread limit must be >= 1 (None: leave it); got {limit}.")
    return _limited(int(limit))


@contextmanager
def _limited(limit: int) -> Iterator[None]:
    """threadpoolctl's limit, set on entering (threadpoolctl sets it when it is constructed)."""
    with threadpool_limits(limits=limit, user_api="blas"):
        yield
