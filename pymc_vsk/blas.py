"""The BLAS thread pool: one thread for the small dense matrices of GP fits.

GP covariance matrices of a few hundred nodes are too small for multithreaded BLAS to gain
anything, and on a loaded machine its spinning threads cost a lot: on a shared 2-core machine
one 8-start MAP fit at N = 81 took 3.5 s with the default pool and 0.18 s with one thread, and
nutpie (which already runs one chain per thread) sampled N = 81 in 28–65 s against 4 s.
:func:`fit_map` and the predictors use :func:`blas_threads` with one thread by default; wrap
``pm.sample`` in it, or set ``OPENBLAS_NUM_THREADS=1`` before Python starts, for NUTS.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from threadpoolctl import threadpool_limits

__all__ = ["blas_threads"]


def blas_threads(limit: int | None = 1) -> AbstractContextManager:
    """Context manager limiting the BLAS thread pool to ``limit`` threads (``None``: leave it).

    Examples
    --------
    >>> import pymc as pm
    >>> from pymc_vsk.blas import blas_threads
    >>> with blas_threads(1):  # doctest: +SKIP
    ...     idata = pm.sample(model=model)
    """
    return nullcontext() if limit is None else threadpool_limits(limits=limit, user_api="blas")
