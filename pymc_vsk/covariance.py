r"""Variably scaled kernels as PyMC covariance functions.

A VSK evaluates a kernel on the lifted inputs :math:`\Psi(x) = (x, \psi(x)) \in
\mathbb{R}^{d+q}` (paper, eq. 13):

.. math::

    \kappa^{\Psi}_{\ell}(x, x') = \varphi_{\ell}(\|\Psi(x) - \Psi(x')\|_2).

The kernel is stationary in the lifted space and non-stationary in x. Both classes here are
``pm.gp.cov.Covariance`` subclasses: they work in ``pm.gp.Marginal``, ``Latent``,
``MarginalApprox`` and ``TP`` and as factors of ``Kron``, and combine with ``+``, ``*``,
``**``, scalars and other covariances. Scale them by σ_f² as any PyMC kernel:
``sigma_f**2 * VSK(...)`` is eq. (15) without the noise term. ``pm.gp.HSGP`` refuses them
(they have no power spectral density in x); :class:`pymc_vsk.hsgp.LiftedHSGP` approximates a
VSK instead.
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph import Variable

from pymc_vsk.arrays import check_finite
from pymc_vsk.kernels import base_kernels, is_radial
from pymc_vsk.lifting import kernel_from_sq_dist, lift, lifted_columns, scaled_sq_dist
from pymc_vsk.memory import check_dense
from pymc_vsk.scaling import ScalingFunction, as_scaling_function, numeric_value
from pymc_vsk.validation import as_numeric, check_inputs

__all__ = [
    "VSK",
    "ExactDistances",
    "LinearVSK",
    "NegligibleScalingWarning",
    "exact_distances",
    "kernel_from_sq_dist",
]

Stationary = pm.gp.cov.Stationary

#: Below this ratio of ψ's range (times ``psi_scale``) to its length scale, ψ cannot matter.
NEGLIGIBLE_REACH = 1e-3

#: Files a warning about a kernel skips to reach the user's line: this package and PyMC's GP
#: classes, which evaluate the kernel on the user's behalf.
LIBRARY_FILES = (str(Path(__file__).parent), str(Path(pm.gp.__file__).parent))


class NegligibleScalingWarning(UserWarning):
    """ψ's range is too small against the length scale to change the kernel.

    A lifted coordinate s·ψ(x) enters the kernel through (s·ψ(x) − s·ψ(x'))/ℓ (eq. 13); when
    its range over the data is below 10⁻³ ℓ, and below 10⁻³ of the range of x in length
    scales, the VSK equals the stationary kernel to rounding. (When x too spans a small
    fraction of a length scale, with σ_f large, the GP is nearly a polynomial in the lifted
    inputs, where ψ counts as much as x does: ψ is negligible only against x.)
    """


def psi_reach(psi_values: np.ndarray, psi_scale: float, ls: npt.ArrayLike) -> np.ndarray:
    """Range of each lifted ψ coordinate over the data, in length scales.

    Parameters
    ----------
    psi_values : ndarray, shape (n,) or (n, q)
        ψ at the data.
    psi_scale : float
        The factor s of the lifted coordinate s·ψ(x).
    ls : array-like
        One length scale, or one per lifted coordinate (the last q belong to ψ).

    Returns
    -------
    ndarray, shape (q,)
        s · (max ψ_k − min ψ_k) / ℓ_k.
    """
    values = np.asarray(psi_values, dtype=float).reshape(len(psi_values), -1)
    ls = np.atleast_1d(np.asarray(ls, dtype=float))
    q = values.shape[1]
    ls_psi = ls[-q:] if ls.size > 1 else np.repeat(ls, q)
    return abs(psi_scale) * np.ptp(values, axis=0) / ls_psi


def x_reach(X: np.ndarray, ls: npt.ArrayLike) -> float:
    """Largest range of a coordinate of x over the data, in length scales.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        The inputs the VSK acts on (its active columns).
    ls : array-like
        One length scale, or one per lifted coordinate (the first d belong to x).

    Returns
    -------
    float
        max_k (max x_k − min x_k) / ℓ_k.
    """
    X = np.asarray(X, dtype=float).reshape(len(X), -1)
    ls = np.atleast_1d(np.asarray(ls, dtype=float))
    ls_x = ls[: X.shape[1]] if ls.size > 1 else ls
    return float(np.max(np.ptp(X, axis=0) / ls_x, initial=0.0))


def warn_if_negligible(
    reach: np.ndarray,
    where: str,
    stacklevel: int = 3,
    skip_file_prefixes: tuple[str, ...] = (),
    x_span: float = np.inf,
) -> None:
    """Warn (:class:`NegligibleScalingWarning`) if a ψ coordinate's reach is negligible:
    below ``NEGLIGIBLE_REACH`` length scales, and below that fraction of ``x_span``.

    Parameters
    ----------
    reach : ndarray
        :func:`psi_reach` of each ψ coordinate.
    where : str
        What has these length scales, for the message.
    stacklevel : int, default 3
    skip_file_prefixes : tuple of str, default ()
        Files the warning skips on its way to the caller's line (``warnings.warn``); with
        them, ``stacklevel`` counts only the frames outside those files.
    x_span : float, default inf
        :func:`x_reach` of the data. Where x too spans less than a length scale (a GP
        nearly polynomial in the lifted inputs), ψ is judged against x.
    """
    reach = np.asarray(reach, dtype=float)
    bound = NEGLIGIBLE_REACH * min(1.0, x_span)
    small = np.flatnonzero((reach < bound) & (reach > 0))
    if small.size:
        against = (
            f"below {NEGLIGIBLE_REACH:g}"
            if x_span >= 1
            else f"below {NEGLIGIBLE_REACH:g} of x's range, {_g(x_span)} length scales"
        )
        warnings.warn(
            f"ψ is too small to matter at the length scales of {where}: the range of ψ "
            f"coordinate(s) {small.tolist()} over the data is {_g(reach[small])} length "
            f"scales ({against}), so the VSK is the stationary kernel. Give ψ "
            "an amplitude comparable to the length scale (in the units of x), or use "
            "build_model, whose lifted coordinate is scaled by the span of the data.",
            NegligibleScalingWarning,
            stacklevel=stacklevel,
            skip_file_prefixes=skip_file_prefixes,
        )


def warn_if_constant(psi: ScalingFunction, X: np.ndarray, stacklevel: int = 3) -> None:
    """Warn (:class:`NegligibleScalingWarning`) if a fixed ψ takes one value on all of ``X``.

    The lifted coordinate then adds nothing to any distance, and the VSK is the stationary
    kernel, whatever the length scales: most often a jump placed outside the data, or given
    in other units than ``X``. A ψ with a parameter in a data container (``pm.Data``, set
    later) is not judged by its present value.

    Parameters
    ----------
    psi : ScalingFunction
    X : ndarray, shape (n, d)
        The training inputs.
    stacklevel : int, default 3
    """
    if psi.is_random or len(X) < 2:
        return
    if psi.reads_data:
        return
    values = np.asarray(psi.numpy(X), dtype=float).reshape(len(X), -1)
    flat = np.flatnonzero(np.ptp(values, axis=0) == 0)
    if flat.size:
        lo, hi = X.min(axis=0), X.max(axis=0)
        warnings.warn(
            f"ψ = {psi!r} is constant over the training inputs (coordinate(s) {flat.tolist()}, "
            f"value {_g(values[0, flat])}; X spans {_g(lo)} to {_g(hi)}), so the VSK is the "
            "stationary kernel. Give ψ's parameters (a jump's location) in the units of X and "
            "inside its range.",
            NegligibleScalingWarning,
            stacklevel=stacklevel,
        )


def _is_one(value: Any) -> bool:
    return not isinstance(value, Variable) and np.all(np.asarray(value) == 1.0)


def _g(values: np.ndarray) -> str:
    return ", ".join(f"{v:.3g}" for v in np.ravel(values))


class _Lifted(pm.gp.cov.Covariance):
    """Shared machinery: checks, the active-dimension slice and the lifting x ↦ [x, ψ(x)]."""

    def __init__(
        self,
        psi: ScalingFunction | Callable,
        d: int,
        input_dim: int | None,
        active_dims: Sequence[int] | slice | None,
        q: int | None,
        psi_scale: float = 1.0,
    ) -> None:
        self.psi: ScalingFunction = as_scaling_function(psi, q=q)
        self.psi_scale = psi_scale
        _check_psi_scale(psi_scale)
        self.q = self.psi.q
        if active_dims is not None:
            active_dims = _column_indices(active_dims, input_dim)
            if len(active_dims) != d:
                raise ValueError(
                    f"active_dims={active_dims.tolist()} names {len(active_dims)} column(s) but "
                    f"ψ and the kernel act on d={d} input column(s)."
                )
        if input_dim is None:
            input_dim = d if active_dims is None else int(active_dims.max()) + 1
        super().__init__(input_dim=int(input_dim), active_dims=active_dims)
        if self.active_dims.max() >= self.input_dim:
            raise ValueError(
                f"active_dims={self.active_dims.tolist()} refers to a column >= input_dim="
                f"{self.input_dim}; X has columns 0..{self.input_dim - 1}."
            )
        self.d = d
        try:
            self.psi._check_columns(d)
        except ValueError as err:
            given = "of X" if active_dims is None else f"active_dims={active_dims.tolist()} of X"
            raise ValueError(
                f"The covariance gives ψ the d={d} column(s) {given}, in that order, and ψ's "
                f"column numbers (dim=...) count within them (a VSK's d is its base kernel's "
                f"input_dim minus q={self.psi.q}): {err}"
            ) from None

    def _columns_repr(self, input_dim_shown: bool = False) -> str:
        """``", input_dim=..., active_dims=[...]"`` for the repr, each only when not the default.

        Parameters
        ----------
        input_dim_shown : bool, default False
            Whether the repr already shows ``input_dim`` (else it is shown when it differs
            from the number ``d`` of columns the covariance acts on).

        Returns
        -------
        str
            Empty when the covariance acts on all columns of ``X``, in order.
        """
        columns = np.asarray(self.active_dims).tolist()
        if columns == list(range(self.input_dim)):
            return ""
        shown = input_dim_shown or self.input_dim == self.d
        width = "" if shown else f", input_dim={self.input_dim}"
        return f"{width}, active_dims={columns}"

    # -- inputs -------------------------------------------------------------------------------
    def _select(self, X: Any, name: str = "X") -> Variable:
        check_inputs(X, self.input_dim, name=name, owner=repr(self))
        X = pt.as_tensor_variable(X)
        return X[:, self.active_dims]

    def _check_psi(self, X: Any, name: str) -> None:
        """Evaluate ψ on a numeric ``X`` (when ψ's parameters are fixed) and check its output."""
        value = as_numeric(X)
        if value is None or self.psi.is_random:
            return
        value = np.asarray(value, dtype=float)[:, self.active_dims]
        out = self.psi.numpy(value)
        n = len(value)
        expected = f"({n},) or ({n}, {self.q})" if self.q == 1 else f"({n}, {self.q})"
        ok = out.ndim in (1, 2) and out.shape[0] == n
        ok = ok and (out.shape[1] == self.q if out.ndim == 2 else self.q == 1)
        if not ok:
            raise ValueError(
                f"ψ = {self.psi!r} returned shape {out.shape} for {name} of shape {value.shape}; "
                f"expected {expected}: one value (or a row of q={self.q} values) per input row. "
                "Make ψ map an (n, d) array to (n,) or (n, q), and pass q= for q > 1."
            )
        check_finite(out, f"ψ({name})", "make ψ finite on every input (check logs, divisions).")
        self._check_reach(value, out)

    def _check_reach(self, X: np.ndarray, psi_values: np.ndarray) -> None:
        """Warn when ψ is negligible against the length scales (kernels that have them)."""

    def _scaled(self, columns: list[Variable]) -> list[Variable]:
        """The lifted coordinates with the ψ columns multiplied by ``psi_scale``."""
        if _is_one(self.psi_scale):
            return columns
        return columns[: self.d] + [self.psi_scale * c for c in columns[self.d :]]

    def lift(self, X: npt.ArrayLike | pt.TensorLike, name: str = "X") -> Variable:
        r"""Lifted inputs :math:`\Psi(X) = [X, s\,\psi(X)]`, shape ``(n, d + q)`` (eq. 13).

        ``s`` is ``psi_scale`` (1 unless set).

        Parameters
        ----------
        X : array or tensor, shape (n, input_dim)
        name : str, default "X"
            How to call ``X`` in messages.

        Returns
        -------
        TensorVariable, shape (n, d + q)
        """
        Xa = self._select(X, name)
        self._check_psi(X, name)
        Z = pt.as_tensor_variable(lift(Xa, self.psi))
        if _is_one(self.psi_scale):
            return Z
        return pt.concatenate([Z[:, : self.d], self.psi_scale * Z[:, self.d :]], axis=1)

    def full(
        self, X: npt.ArrayLike | pt.TensorLike, Xs: npt.ArrayLike | pt.TensorLike | None = None
    ) -> Variable:
        """Covariance matrix k(X, Xs) (``Xs=None``: k(X, X)).

        Parameters
        ----------
        X : array or tensor, shape (n, input_dim)
        Xs : array or tensor, shape (m, input_dim), optional

        Returns
        -------
        TensorVariable, shape (n, m)
        """
        _check_size(self, X, Xs)
        return self._full(X, Xs)

    def diag(self, X: npt.ArrayLike | pt.TensorLike) -> Variable:
        """Diagonal k(x_i, x_i).

        Parameters
        ----------
        X : array or tensor, shape (n, input_dim)

        Returns
        -------
        TensorVariable, shape (n,)
        """
        return self._diag(X)

    def _full(self, X: pt.TensorLike, Xs: pt.TensorLike | None) -> Variable:
        raise NotImplementedError

    def _diag(self, X: pt.TensorLike) -> Variable:
        raise NotImplementedError

    #: Why ``pm.gp.HSGP`` cannot take the kernel, and what to use instead.
    NO_SPECTRAL_DENSITY = ""

    def power_spectral_density(self, omega: pt.TensorLike) -> Variable:
        """Not defined on x, so ``pm.gp.HSGP`` refuses the kernel with the reason.

        Parameters
        ----------
        omega : tensor-like
            Frequencies.

        Raises
        ------
        NotImplementedError
            Always, with :attr:`NO_SPECTRAL_DENSITY`.
        """
        raise NotImplementedError(self.NO_SPECTRAL_DENSITY)

    def _lifted_columns(self, X: Any, name: str) -> list[Variable]:
        """The d + q lifted coordinates as vectors, without building the (n, d + q) matrix."""
        Xa = self._select(X, name)
        self._check_psi(X, name)
        return self._scaled(lifted_columns(Xa, self.psi, self.d))


class VSK(_Lifted):
    r"""Variably scaled kernel: a stationary PyMC kernel on lifted inputs [x, ψ(x)] (eq. 13).

    .. math::

        k(x, x') = k_{\mathrm{base}}\big([x, \psi(x)],\ [x', \psi(x')]\big)

    Parameters
    ----------
    cov_func : pm.gp.cov.Stationary
        Base kernel on the lifted space: ``ExpQuad``, ``Matern12``, ``Matern32``, ``Matern52``,
        ``Exponential`` or ``RatQuad`` (or a user subclass that implements
        ``full_from_distance``). Its ``input_dim`` is ``d + q``; its ``ls`` may be a scalar or
        one length scale per lifted coordinate (ARD, e.g. a separate ℓ for the ψ column).
    psi : ScalingFunction or callable
        ψ: (n, d) → (n,) or (n, q); see :mod:`pymc_vsk.scaling`. Parameters may be PyMC random
        variables; gradients flow through them.
    q : int, optional
        Output width of a plain-callable ψ (default 1); scaling functions know their own.
    input_dim : int, optional
        Number of columns of ``X`` (default ``d = cov_func.input_dim - q``). Set it, with
        ``active_dims``, to combine the VSK with kernels acting on other columns.
    active_dims : sequence of int or slice, optional
        The ``d`` columns of ``X`` that ψ and the kernel act on, in the order ψ sees them (a
        ψ's ``dim=j`` is column ``active_dims[j]`` of ``X``).
    psi_scale : float or scalar tensor, default 1.0
        The factor s of the lifted coordinate: the kernel sees [x, s·ψ(x)] (a tensor may
        depend on data containers, as in :func:`pymc_vsk.build_model`).

    Warns
    -----
    NegligibleScalingWarning
        When the kernel is evaluated on numeric ``X`` with a fixed ψ and a numeric ℓ and some
        ψ coordinate's range s·ptp(ψ) over ``X`` is positive but below 10⁻³ of its length
        scale: the VSK is then the stationary kernel. A ψ that is constant over the points a
        kernel is evaluated on is not warned about here, as prediction points on one side of
        a jump rightly are; :func:`pymc_vsk.build_model`, :func:`pymc_vsk.set_data` and
        :class:`pymc_vsk.VSKRegressor` warn when it is constant over the training inputs
        (``pymc_vsk.covariance.warn_if_constant``, which a hand-built model can call itself).

    Notes
    -----
    **Units of the amplitude.** The lifted coordinate s·ψ(x) is a coordinate like x: it is
    divided by the same length scale ℓ (or by its own ℓ with ARD), so s·ψ is measured in the
    units of x. A jump of ψ by Δ across a discontinuity moves two points on either side apart
    by s·Δ in the lifted space, and it decorrelates them when s·Δ is comparable to ℓ or larger
    (for a Matérn kernel, k ≈ k(s·Δ/ℓ)). With the default s = 1 a unit ``Jump`` is a jump of one
    x unit: right for x in [0, 1] (the paper's setting), negligible for x in metres across a
    kilometre. :func:`pymc_vsk.build_model` sets s to the largest column span of its X, so
    amplitude 1 means a jump as large as the data's x-range, in any units.

    Distances in the lifted space are computed from coordinate differences, not from the
    expansion ‖a‖² − 2aᵀb + ‖b‖² PyMC's stationary kernels use, so ``full`` is exact to
    rounding (the diagonal is exactly k(0)) and gradients stay finite at zero distance.

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> from pymc_vsk import VSK
    >>> from pymc_vsk.scaling import Jump
    >>> X = np.linspace(0, 1, 6)[:, None]
    >>> cov = 8.0**2 * VSK(pm.gp.cov.Matern32(2, ls=1.0), Jump(0.5))
    >>> cov(X).eval().shape
    (6, 6)
    """

    NO_SPECTRAL_DENSITY = (
        "A VSK is stationary on the lifted inputs [x, ψ(x)], not on x, so pm.gp.HSGP cannot "
        "take it directly. Use pymc_vsk.hsgp.LiftedHSGP(m, psi, cov_func=base_kernel), the "
        "base kernel's HSGP on the lifted inputs (ψ fixed or random)."
    )

    def __init__(
        self,
        cov_func: Stationary,
        psi: ScalingFunction | Callable,
        *,
        q: int | None = None,
        input_dim: int | None = None,
        active_dims: Sequence[int] | slice | None = None,
        psi_scale: float = 1.0,
    ) -> None:
        _check_base(cov_func)
        psi = as_scaling_function(psi, q=q)  # once: the base class keeps this object
        psi_q = psi.q
        d = cov_func.input_dim - psi_q
        if d < 1:
            raise ValueError(
                f"The base kernel acts on the lifted inputs [x, ψ(x)] of width d + q; with "
                f"q={psi_q} its input_dim={cov_func.input_dim} leaves d={d} columns for x. "
                f"For d-dimensional x build it with input_dim=d + {psi_q}, e.g. "
                f"pm.gp.cov.{type(cov_func).__name__}(input_dim={1 + psi_q}, ls=...) for 1-D x."
            )
        if active_dims is None and input_dim is not None and input_dim != d:
            raise ValueError(
                f"input_dim={input_dim} but the base kernel's input_dim={cov_func.input_dim} "
                f"= d + q with q={psi_q} gives d={d}. Build the base kernel with "
                f"input_dim={input_dim + psi_q}, or pass active_dims naming the d={d} columns of "
                "X the VSK acts on."
            )
        super().__init__(psi, d, input_dim, active_dims, q, psi_scale)
        self.cov_func = cov_func
        _check_ls(cov_func)

    def __repr__(self) -> str:
        base = f"{type(self.cov_func).__name__}(input_dim={self.cov_func.input_dim})"
        value = numeric_value(self.psi_scale)
        scale = (
            ""
            if _is_one(self.psi_scale)
            else f", psi_scale={_g(value) if value is not None else '...'}"
        )
        return f"VSK({base}, {self.psi!r}{self._columns_repr()}{scale})"

    def _check_reach(self, X: np.ndarray, psi_values: np.ndarray) -> None:
        ls = as_numeric(self.cov_func.ls)
        scale = numeric_value(self.psi_scale)
        if ls is not None and scale is not None:
            reach = psi_reach(psi_values, float(np.ravel(scale)[0]), ls)
            span = x_reach(X, ls)
            warn_if_negligible(reach, repr(self), 2, LIBRARY_FILES, x_span=span)

    def lifted_sq_dist(self, Z: Variable, Zs: Variable | None = None) -> Variable:
        r"""Squared scaled distance ‖(Ψ(x) − Ψ(x'))/ℓ‖² between lifted inputs, from differences.

        Parameters
        ----------
        Z : TensorVariable, shape (n, d + q)
            Lifted inputs (:meth:`lift`).
        Zs : TensorVariable, shape (m, d + q), optional
            Second set of lifted inputs (default ``Z``).

        Returns
        -------
        TensorVariable, shape (n, m)

        See Also
        --------
        pymc_vsk.lifting.scaled_sq_dist
        """
        width = self.cov_func.input_dim
        columns = [Z[:, j] for j in range(width)]
        columns_s = None if Zs is None else [Zs[:, j] for j in range(width)]
        return scaled_sq_dist(self.cov_func, columns, columns_s)

    def _full(self, X: pt.TensorLike, Xs: pt.TensorLike | None) -> Variable:
        columns = self._lifted_columns(X, "X")
        columns_s = None if Xs is None else self._lifted_columns(Xs, "Xs")
        return kernel_from_sq_dist(self.cov_func, scaled_sq_dist(self.cov_func, columns, columns_s))

    def _diag(self, X: pt.TensorLike) -> Variable:
        """k(x_i, x_i) = k_base(0): ψ does not enter."""
        Xa = self._select(X, "X")
        return kernel_from_sq_dist(self.cov_func, pt.zeros((Xa.shape[0],), dtype=Xa.dtype))


class ExactDistances:
    r"""Mixin for a PyMC stationary kernel: distances summed from coordinate differences.

    PyMC's ``Stationary.square_dist`` expands ‖x/ℓ‖² − 2 xᵀx'/ℓ² + ‖x'/ℓ‖², which loses every
    digit when the inputs carry an offset large against their spread (x = 1 + 10⁻⁶ t). This
    mixin computes Σ_j ((x_j − x'_j)/ℓ_j)² from the differences, as the VSK does
    (:func:`pymc_vsk.lifting.scaled_sq_dist`), so a stationary kernel gives the same matrix
    at any offset. Use :func:`exact_distances` to apply it to a kernel; the kernel keeps its
    class (``isinstance(k, pm.gp.cov.Matern52)`` still holds).
    """

    def square_dist(self, X: pt.TensorLike, Xs: pt.TensorLike | None) -> Variable:
        """Squared scaled distances between the (already sliced) inputs, from differences.

        Parameters
        ----------
        X : tensor-like, shape (n, len(active_dims))
        Xs : tensor-like, shape (m, len(active_dims)), optional

        Returns
        -------
        TensorVariable, shape (n, m)
        """
        width = int(np.max(self.active_dims)) + 1

        def columns(Z: pt.TensorLike) -> list[Variable | None]:
            Z = pt.as_tensor_variable(Z)
            out: list[Variable | None] = [None] * width
            for j, col in enumerate(self.active_dims):
                out[col] = Z[:, j]
            return out

        return scaled_sq_dist(self, columns(X), None if Xs is None else columns(Xs))


def exact_distances(cov_func: Stationary) -> Stationary:
    """``cov_func`` with distances computed by :class:`ExactDistances`, in place.

    Parameters
    ----------
    cov_func : pm.gp.cov.Stationary
        A radial base kernel (see :func:`pymc_vsk.kernels.base_kernels`).

    Returns
    -------
    pm.gp.cov.Stationary
        The same object, now of a subclass of its class that mixes in :class:`ExactDistances`.
    """
    _check_base(cov_func)
    if not isinstance(cov_func, ExactDistances):
        cov_func.__class__ = _exact_class(type(cov_func))
    return cov_func


@functools.cache
def _exact_class(cls: type[Stationary]) -> type[Stationary]:
    # made at run time under the PyMC class's name, so pickle could not find it by name
    return type(
        cls.__name__,
        (ExactDistances, cls),
        {"__module__": cls.__module__, "__reduce__": _reduce_exact},
    )


def _reduce_exact(kernel: Stationary) -> tuple[Callable, tuple[type], dict[str, Any]]:
    """Pickle a kernel of :func:`exact_distances` as its PyMC class plus the mixin."""
    return _new_exact, (type(kernel).__bases__[1],), kernel.__dict__


def _new_exact(cls: type[Stationary]) -> Stationary:
    """An empty kernel of class ``cls`` with :class:`ExactDistances` mixed in (unpickling)."""
    return object.__new__(_exact_class(cls))


class LinearVSK(_Lifted):
    r"""Linear VSK (eq. 16 without σ_f² and noise): k(x, x') = xᵀx' + ψ(x)ᵀψ(x').

    Multiply by σ_f² for eq. (16): ``sigma_f**2 * LinearVSK(1, psi)``.

    Parameters
    ----------
    input_dim : int
        Number of columns of ``X``.
    psi : ScalingFunction or callable
    q : int, optional
        Output width of a plain-callable ψ.
    active_dims : sequence of int or slice, optional
        Columns of ``X`` that ψ and the kernel act on (default: all).

    Raises
    ------
    NotImplementedError
        From ``power_spectral_density``, with :attr:`NO_SPECTRAL_DENSITY`, so
        ``pm.gp.HSGP`` refuses a LinearVSK.
    """

    NO_SPECTRAL_DENSITY = (
        "LinearVSK is not stationary (it is xᵀx' + ψ(x)ᵀψ(x'), eq. 16), so it has no power "
        "spectral density and pm.gp.HSGP cannot take it. Use it in pm.gp.Marginal, "
        "pm.gp.Latent or pm.gp.MarginalApprox; for a Hilbert-space approximation of a "
        "radial VSK use pymc_vsk.hsgp.LiftedHSGP."
    )

    def __init__(
        self,
        input_dim: int,
        psi: ScalingFunction | Callable,
        *,
        q: int | None = None,
        active_dims: Sequence[int] | slice | None = None,
    ) -> None:
        try:
            input_dim = operator.index(input_dim)
        except TypeError:
            raise TypeError(
                "LinearVSK(input_dim, psi): input_dim is the number of columns of X (an int); "
                f"got {input_dim!r}. Pass the number of columns first and ψ second."
            ) from None
        if active_dims is not None:
            active_dims = _column_indices(active_dims, input_dim)
        d = input_dim if active_dims is None else len(active_dims)
        super().__init__(psi, d, input_dim, active_dims, q)

    def __repr__(self) -> str:
        columns = self._columns_repr(input_dim_shown=True)
        return f"LinearVSK(input_dim={self.input_dim}, {self.psi!r}{columns})"

    def _full(self, X: pt.TensorLike, Xs: pt.TensorLike | None) -> Variable:
        """Gram matrix Ψ(X) Ψ(Xs)ᵀ."""
        Z = self.lift(X, "X")
        Zs = Z if Xs is None else self.lift(Xs, "Xs")
        return pt.dot(Z, Zs.T)

    def _diag(self, X: pt.TensorLike) -> Variable:
        """‖Ψ(x_i)‖²."""
        return pt.sum(pt.square(self.lift(X, "X")), axis=1)


def _column_indices(active_dims: Sequence[int] | slice, input_dim: int | None) -> np.ndarray:
    """``active_dims`` as a 1-D integer array; a slice is taken of ``range(input_dim)``."""
    if isinstance(active_dims, slice):
        stop = active_dims.stop
        if input_dim is None and (stop is None or stop < 0):
            raise ValueError(
                f"active_dims={active_dims} has no end without the number of columns of X: "
                "pass input_dim= (or a list of column indices)."
            )
        return np.arange(stop if input_dim is None else input_dim)[active_dims]
    return np.asarray(active_dims, dtype=int).ravel()


def _check_psi_scale(psi_scale: Any) -> None:
    """Refuse a ``psi_scale`` that is not one finite positive factor."""
    value = as_numeric(psi_scale)
    shape = np.shape(value) if value is not None else pt.as_tensor_variable(psi_scale).type.shape
    if any(n != 1 for n in shape):
        raise ValueError(
            f"psi_scale is one factor for every ψ column (a scalar); got shape {tuple(shape)}. "
            "For a separate scale per lifted coordinate give the base kernel one length scale "
            "per lifted coordinate, ls=[ℓ_x, ..., ℓ_ψ1, ...]: only s·ψ/ℓ enters the kernel."
        )
    if value is not None and not (np.all(np.isfinite(value)) and np.all(value > 0)):
        raise ValueError(f"psi_scale must be finite and positive; got {psi_scale!r}.")


def _check_size(cov: pm.gp.cov.Covariance, X: Any, Xs: Any) -> None:
    """Refuse a dense matrix above the memory limit (:mod:`pymc_vsk.memory`)."""
    sizes = [as_numeric(v) for v in (X, X if Xs is None else Xs)]
    if all(s is not None and np.ndim(s) == 2 for s in sizes):
        check_dense(len(sizes[0]), len(sizes[1]), repr(cov))


def _check_base(cov_func: Any) -> None:
    name = type(cov_func).__name__
    if isinstance(cov_func, Stationary) and is_radial(type(cov_func)):
        return
    radial = ", ".join(cls.__name__ for cls in base_kernels().values())
    if not isinstance(cov_func, Stationary):
        raise TypeError(
            f"VSK needs a stationary base kernel (a pm.gp.cov.Stationary such as {radial}); "
            f"got {name}, which is not stationary. A VSK makes a stationary kernel "
            "non-stationary through ψ; for a linear kernel use pymc_vsk.LinearVSK."
        )
    if type(cov_func).full is not Stationary.full:
        raise TypeError(
            f"{name} computes its own distance in full() (e.g. Periodic), so a VSK cannot "
            f"evaluate it on lifted inputs. Use a radial kernel: {radial}."
        )
    raise TypeError(
        f"{name} is not positive definite in d + q >= 2 dimensions, so it cannot be a VSK "
        f"base kernel; use one of {radial}."
    )


def _check_ls(cov_func: Stationary) -> None:
    ls = as_numeric(cov_func.ls)
    width = len(cov_func.active_dims)
    if ls is not None and ls.size not in (1, width):
        raise ValueError(
            f"The base kernel has {ls.size} length scales but acts on {width} lifted "
            f"coordinates [x, ψ(x)]; give one ℓ, or one per lifted coordinate."
        )
    if ls is not None and not np.all(ls > 0):
        raise ValueError(f"Length scales must be positive; got {ls.tolist()}.")
