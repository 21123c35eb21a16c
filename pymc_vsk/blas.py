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

from contextlib import AbstractContextManager, nullcontext

from threadpoolctl import threadpool_limits

__all__ = ["blas_threads"]


def blas_threads(limit: int | None = 1) -> AbstractContextManager:
    """Context manager limiting the BLAS thread pool to ``limit`` threads (``None``: leave it).

    Parameters
    ----------
    limit : int or None, default 1
        Number of threads.

    Returns
    -------
    context manager

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
    return nullcontext() if limit is None else threadpool_limits(limits=limit, user_api="blas")
