r"""The lifting :math:`x \mapsto \Psi(x) = (x, \psi(x))` (paper, eq. 13) and distances on it.

Every path that evaluates a kernel on lifted inputs goes through this module: the variably
scaled kernels of :mod:`pymc_vsk.covariance`, the Hilbert-space approximation of
:mod:`pymc_vsk.hsgp`, the inducing inputs of :mod:`pymc_vsk.sparse` (lifted by the VSK like
any input) and the location-marginalised jump model of :mod:`pymc_vsk.jumps`.

Squared distances between lifted inputs are summed from coordinate differences, not from the
expansion ‖a‖² − 2aᵀb + ‖b‖² that PyMC's stationary kernels use, so a kernel matrix is exact
to rounding (its diagonal is exactly k(0)) and gradients stay finite at zero distance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.graph import Variable
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.arrays import as_float_array
from pymc_vsk.kernels import needs_only_squared_distance
from pymc_vsk.scaling import ScalingFunction, as_scaling_function

__all__ = ["kernel_from_sq_dist", "lift", "lifted_columns", "psi_columns", "scaled_sq_dist"]

#: Added to squared distances before the square root (see :func:`kernel_from_sq_dist`).
TINY = 1e-300

#: The same in float32, where 10⁻³⁰⁰ is 0: its square root, 10⁻¹⁰, is below float32's rounding.
TINY_FLOAT32 = 1e-20


def _float_tensor(X: pt.TensorLike) -> TensorVariable:
    """``X`` as a 2-D tensor of floats: integer inputs (years, day numbers) would truncate ψ.

    Arrays holding text or dates are refused (:func:`pymc_vsk.arrays.as_float_array`),
    and so is an input of another rank than (n, d), whatever its kind.
    """
    if not isinstance(X, Variable):
        X = as_float_array(X, "X")
    X = pt.as_tensor_variable(X)
    if X.ndim != 2:
        raise ValueError(
            f"X must be a 2-D array or tensor of shape (n, d); got {X.ndim} dimension(s). "
            "For 1-D inputs pass X[:, None] (a column)."
        )
    return X if X.dtype.startswith("float") else pt.cast(X, pytensor.config.floatX)


def psi_columns(psi: ScalingFunction, X: pt.TensorLike) -> TensorVariable:
    """ψ(X) as a 2-D tensor of shape (n, q) in the floating-point dtype of ``X`` (integer
    inputs are computed in floats).

    Parameters
    ----------
    psi : ScalingFunction
    X : tensor-like, shape (n, d)

    Returns
    -------
    TensorVariable, shape (n, q)

    Raises
    ------
    ValueError
        If ψ returns neither (n,) nor (n, q).
    """
    X = _float_tensor(X)
    out = pt.as_tensor_variable(psi(X))
    if out.ndim == 1:
        out = out[:, None]
    if out.ndim != 2:
        raise ValueError(
            f"ψ = {psi!r} returned a {out.ndim}-D tensor; it must return (n,) or (n, q)."
        )
    if out.type.shape[1] is not None and out.type.shape[1] != psi.q:
        raise ValueError(
            f"ψ = {psi!r} returns {out.type.shape[1]} column(s) but declares q = {psi.q}: "
            "make them agree (FromFunction(fn, q=...))."
        )
    return pt.cast(out, X.dtype)


def lift(
    X: npt.ArrayLike | pt.TensorLike, psi: ScalingFunction | object
) -> np.ndarray | TensorVariable:
    r"""Lifted inputs :math:`\Psi(X) = [X, \psi(X)]`, shape (n, d + q) (eq. 13).

    Parameters
    ----------
    X : array or tensor, shape (n, d)
        Inputs. An array with a fixed ψ gives a numpy array; a tensor, or a ψ with random
        parameters, gives a tensor.
    psi : ScalingFunction or callable
        The scaling function (a callable becomes :class:`~pymc_vsk.scaling.FromFunction`).

    Returns
    -------
    ndarray or TensorVariable, shape (n, d + q)

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, or (an array) holds NaN or ±inf.
    TypeError
        If ``X`` holds text, dates or other values that are not numbers.
    """
    psi = as_scaling_function(psi)
    if not isinstance(X, Variable) and not psi.is_random:
        value = as_float_array(X, "X")  # text is refused, not parsed
        return np.hstack([value, psi.numpy(value).reshape(len(value), -1)])
    X = _float_tensor(X)
    return pt.concatenate([X, psi_columns(psi, X)], axis=1)


def lifted_columns(
    X: pt.TensorLike, psi: ScalingFunction, d: int | None = None
) -> list[TensorVariable]:
    """The d + q lifted coordinates of ``X`` as vectors, without the (n, d + q) matrix.

    Parameters
    ----------
    X : tensor-like, shape (n, d)
    psi : ScalingFunction
    d : int, optional
        Number of columns of ``X`` (default: its static shape).

    Returns
    -------
    list of TensorVariable
        ``[x_1, ..., x_d, ψ_1(x), ..., ψ_q(x)]``, each of shape (n,).
    """
    X = _float_tensor(X)
    P = psi_columns(psi, X)
    d = X.type.shape[1] if d is None else d
    if d is None:
        raise ValueError("The number of columns of X must be known to lift it column by column.")
    return [X[:, j] for j in range(d)] + [P[:, k] for k in range(psi.q)]


def scaled_sq_dist(
    cov_func: pm.gp.cov.Stationary,
    columns: Sequence[pt.TensorLike],
    columns_s: Sequence[pt.TensorLike] | None = None,
) -> TensorVariable:
    r"""Squared scaled distances ‖(Ψ(x) − Ψ(x'))/ℓ‖² from coordinate differences.

    Parameters
    ----------
    cov_func : pm.gp.cov.Stationary
        The base kernel: its ``ls`` (one, or one per lifted coordinate) and ``active_dims``
        (which of ``columns`` it acts on) are used.
    columns, columns_s : sequence of tensor-like
        Lifted coordinates of the two sets of points, each of shape (..., n) and (..., m);
        leading dimensions broadcast (e.g. one ψ column per gap of a jump model).
        ``columns_s=None`` means ``columns``. Entries the kernel does not act on (not in its
        ``active_dims``) may be ``None``.

    Returns
    -------
    TensorVariable, shape (..., n, m)

    Notes
    -----
    With one length scale the unscaled squared distance is divided by ℓ² once; with one ℓ per
    coordinate each squared difference is multiplied by 1/ℓ_j². Either way the n × m work, and
    the gradient in ℓ, stays at a few operations per entry.
    """
    columns = [None if c is None else pt.as_tensor_variable(c) for c in columns]
    if columns_s is not None:
        columns_s = [None if c is None else pt.as_tensor_variable(c) for c in columns_s]
    else:
        columns_s = columns
    ls = pt.as_tensor_variable(cov_func.ls)
    isotropic = ls.ndim == 0 or ls.type.shape[0] == 1
    inv_ls2 = 1.0 / pt.square(ls.reshape(()) if isotropic else ls)
    r2 = 0.0
    for j, col in enumerate(cov_func.active_dims):
        sq = pt.square(columns[col][..., :, None] - columns_s[col][..., None, :])
        r2 = r2 + (sq if isotropic else sq * inv_ls2[j])
    return r2 * inv_ls2 if isotropic else r2


def kernel_from_sq_dist(cov_func: pm.gp.cov.Stationary, r2: pt.TensorLike) -> TensorVariable:
    """φ(r) of a radial base kernel from squared scaled distances ``r2`` of any shape.

    Parameters
    ----------
    cov_func : pm.gp.cov.Stationary
            A radial base kernel (see :func:`pymc_vsk.kernels.base_kernels`).
    r2 : tensor-like
        Squared scaled distances.

    Returns
    -------
    TensorVariable
        φ at each distance, of the shape of ``r2``.

    Notes
    -----
    Kernels whose ``full_from_distance`` needs only r² get it directly; the others get
    r = sqrt(r² + 10⁻³⁰⁰) instead of PyMC's sqrt(r² + 10⁻¹²). At r² = 0 that r is 10⁻¹⁵⁰, so
    φ(r) rounds to φ(0) exactly and the derivative of sqrt stays finite (5·10¹⁴⁹),
    multiplying a zero derivative of r² in the parameters: the gradient there is exactly
    zero, as it should be. Elsewhere the shift is below rounding. In float32, where 10⁻³⁰⁰
    is 0 (and sqrt's derivative infinite), the shift is 10⁻²⁰ (r = 10⁻¹⁰ at r² = 0), in the
    dtype of ``r2``.
    """
    r2 = pt.as_tensor_variable(r2)
    if not r2.dtype.startswith("float"):
        r2 = pt.cast(r2, pytensor.config.floatX)
    if needs_only_squared_distance(type(cov_func)):
        return cov_func.full_from_distance(r2, squared=True)
    tiny = pt.constant(TINY if r2.dtype == "float64" else TINY_FLOAT32, dtype=r2.dtype)
    return cov_func.full_from_distance(pt.sqrt(r2 + tiny), squared=False)
