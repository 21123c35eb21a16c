r"""K⁻¹ from a Cholesky factor with LAPACK's ``potri``: the inverse a GP gradient needs.

The gradient of a Gaussian log density in its covariance is ½(ααᵀ − K⁻¹). Given the factor
K = LLᵀ, ``cho_solve(L, I)`` forms K⁻¹ with two triangular solves of an n × n right-hand side
(2n³ flops); LAPACK's ``potri`` inverts L and multiplies Lᵀ⁻¹L⁻¹ exploiting the triangles
(2n³/3 flops), about three times less work, which at n = 800 is most of a log density and its
gradient.

:func:`cholesky_inverse` builds an ``OpFromGraph`` whose inner graph is the portable
``cho_solve(L, I)`` — what the C, Python and JAX backends run — and registers a Numba
implementation calling ``dpotri`` for pytensor's default backend. The Numba part uses
pytensor's own LAPACK pointer helpers (as its ``cho_solve`` does), so that the compiled
function stays in Numba's on-disk cache; if those helpers are not importable (another pytensor
version), the portable graph is used everywhere and nothing else changes.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.builders import OpFromGraph

__all__ = ["CholeskyInverse", "cholesky_inverse"]

#: Bumped when the Numba implementation changes (part of its on-disk cache key).
_NUMBA_VERSION = 1
_state = {"registered": False}


class CholeskyInverse(OpFromGraph):
    """K⁻¹ from the lower Cholesky factor L of K; ``potri`` under Numba, ``cho_solve`` elsewhere."""


def cholesky_inverse(chol: pt.TensorVariable) -> pt.TensorVariable:
    """K⁻¹ (n × n, symmetric) from the lower Cholesky factor ``chol`` of K."""
    _register_numba()
    chol = pt.as_tensor_variable(chol)
    x = pt.matrix("chol", dtype=chol.dtype)
    inverse = pt.linalg.cho_solve((x, True), pt.eye(x.shape[0], dtype=x.dtype), b_ndim=2)
    op = CholeskyInverse([x], [inverse], inline=False, name="CholeskyInverse")
    return op(chol)


def _register_numba() -> None:
    """Register the ``dpotri`` implementation for the Numba backend (once per process)."""
    if _state["registered"]:
        return
    _state["registered"] = True
    try:
        import numba
        from numba.core import types
        from pytensor.link.numba.cache import _call_cached_ptr
        from pytensor.link.numba.dispatch import basic as numba_basic
        from pytensor.link.numba.dispatch.linalg._LAPACK import (
            get_lapack_ptr,
            int_ptr_to_val,
            nb_f64p,
            nb_i32p,
            val_to_int_ptr,
        )
    except (ImportError, AttributeError):  # pragma: no cover - other pytensor versions
        return

    @numba_basic.numba_njit
    def _dpotri_pointer():
        with numba.objmode(ptr=types.intp):
            ptr = get_lapack_ptr(numba.float64, "potri")
        return ptr

    signature = types.FunctionType(types.void(nb_i32p, nb_i32p, nb_f64p, nb_i32p, nb_i32p))

    @numba_basic.numba_njit
    def _dpotri(uplo, n, a, lda, info):
        fn = _call_cached_ptr(
            get_ptr_func=_dpotri_pointer,
            func_type_ref=signature,
            unique_func_name_lit="pymc_vsk_dpotri",
        )
        fn(uplo, n, a, lda, info)

    @numba_basic.register_funcify_and_cache_key(CholeskyInverse)
    def _numba_cholesky_inverse(op, node=None, **kwargs):
        if node is not None and node.inputs[0].type.dtype != "float64":
            return numba_basic.numba_funcify_and_cache_key.dispatch(OpFromGraph)(
                op, node=node, **kwargs
            )

        @numba_basic.numba_njit
        def cholesky_inverse_potri(chol):
            n = chol.shape[0]
            # A C-ordered lower factor is, read in Fortran order, the upper factor of K.
            a = np.ascontiguousarray(chol).copy()
            uplo = val_to_int_ptr(ord("U"))
            size = val_to_int_ptr(np.int32(n))
            lda = val_to_int_ptr(np.int32(max(n, 1)))
            info = val_to_int_ptr(np.int32(0))
            _dpotri(uplo, size, a.ctypes, lda, info)
            if int_ptr_to_val(info) != 0:
                a[:] = np.nan
                return a
            for i in range(n):
                for j in range(i + 1, n):
                    a[i, j] = a[j, i]
            return a

        key = f"pymc_vsk.CholeskyInverse.v{_NUMBA_VERSION}.pytensor{pytensor.__version__}"
        return cholesky_inverse_potri, key
