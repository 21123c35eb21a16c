r"""nutpie's two C callbacks, written so that Numba compiles them in less time.

nutpie samples a PyMC model through two C callbacks that Numba compiles around the model's
pytensor functions: the log density with its gradient, and the "expand" function that maps a
point of the sampler's space to the values stored in the trace. pytensor's own functions come
from its on-disk cache; the callbacks are compiled anew in every process. nutpie's callbacks
copy their results with a broadcasting assignment (``out[...] = grad``), and the error message
that assignment would raise on a shape mismatch is built by string-formatting routines that
Numba also compiles anew every time: about 3 s of the 7 to 8 s that
``nutpie.compile_pymc_model`` takes for a VSK model at N = 81 (2 cores; Numba 0.68, nutpie
0.16; ``benchmarks/run.py --only nuts`` times the whole compilation).

The callbacks here copy element by element, which needs none of those routines, and return the
same status codes as nutpie's (0 ok, -1 wrong dimension, 1 or -2 an exception or a result of
another size than the sampler's, 3 a non-finite gradient, 4 a non-finite log density).
:func:`compile_pymc_model` hands them to nutpie's own compiler, so everything else (the
transforms, the data handed over by ``with_data``, the trace) is nutpie's. Where the installed
nutpie does not build its callbacks this way it compiles with nutpie's own callbacks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["compile_pymc_model"]

#: nutpie's functions that build its callbacks, replaced during :func:`compile_pymc_model`.
_BUILDERS = ("_make_c_logp_func", "_make_c_expand_func")

_LOCK = threading.Lock()


def compile_pymc_model(model: pm.Model) -> Any:
    """``nutpie.compile_pymc_model(model)`` with the callbacks of this module.

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    nutpie.compile_pymc.CompiledPyMCModel
        Ready for ``nutpie.sample``; ``with_data`` gives it new data without compiling again.
    """
    import nutpie  # imported on use: it loads slowly
    import nutpie.compile_pymc as nutpie_pymc

    if not all(hasattr(nutpie_pymc, name) for name in (*_BUILDERS, "make_extraction_fn")):
        return nutpie.compile_pymc_model(model)
    builders = {"_make_c_logp_func": _logp_callback, "_make_c_expand_func": _expand_callback}
    with _LOCK:  # nutpie's module is changed for the duration of the call only
        saved = {name: getattr(nutpie_pymc, name) for name in _BUILDERS}
        try:
            for name, builder in builders.items():
                setattr(nutpie_pymc, name, builder)
            return nutpie.compile_pymc_model(model)
        finally:
            for name, builder in saved.items():
                setattr(nutpie_pymc, name, builder)


def _logp_callback(
    n_dim: int, logp_fn: Callable, user_data: np.ndarray, shared_keys: list, shared_data: dict
) -> tuple[Callable, Any]:
    """A replacement for nutpie's ``_make_c_logp_func`` (same arguments, same results)."""
    import numba
    from nutpie.compile_pymc import make_extraction_fn

    extract = make_extraction_fn(logp_fn, shared_data, shared_keys, user_data.dtype)
    double = numba.types.CPointer(numba.types.double)
    signature = numba.types.int64(numba.types.uint64, double, double, double, numba.types.voidptr)

    def logp_callback(dim, x_, out_, logp_, user_data_):  # pragma: no cover (compiled)
        if dim != n_dim:
            return -1
        try:
            x = numba.carray(x_, (n_dim,))
            logp_val, grad = extract(x, user_data_)
            if grad.size != n_dim:  # nutpie's broadcasting copy raises here
                return 1
            logp_[0] = logp_val
            finite = True
            for i in range(n_dim):
                out_[i] = grad[i]
                finite = finite and np.isfinite(grad[i])
            if not finite:
                return 3
            if not np.isfinite(logp_val):
                return 4
        except Exception:
            return 1
        return 0

    return logp_callback, signature


def _expand_callback(
    n_dim: int,
    n_expanded: int,
    expand_fn: Callable,
    user_data: np.ndarray,
    shared_keys: list,
    shared_data: dict,
) -> tuple[Callable, Any]:
    """A replacement for nutpie's ``_make_c_expand_func`` (same arguments, same results)."""
    import numba
    from nutpie.compile_pymc import make_extraction_fn

    extract = make_extraction_fn(expand_fn, shared_data, shared_keys, user_data.dtype)
    double = numba.types.CPointer(numba.types.double)
    signature = numba.types.int64(
        numba.types.uint64, numba.types.uint64, double, double, numba.types.voidptr
    )

    def expand_callback(dim, expanded, x_, out_, user_data_):  # pragma: no cover (compiled)
        if dim != n_dim or expanded != n_expanded:
            return -1
        try:
            x = numba.carray(x_, (n_dim,))
            (values,) = extract(x, user_data_)
            if values.size != n_expanded:  # data of another size: nutpie's copy raises here
                return -2
            for i in range(n_expanded):
                out_[i] = values[i]
        except Exception:
            return -2
        return 0

    return expand_callback, signature
