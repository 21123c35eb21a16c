r"""Gibbs and Paciorek–Schervish covariances for any isotropic base kernel and any d ≥ 1.

With an isotropic base φ (positive definite in every dimension: ExpQuad, Matérn, Exponential,
RatQuad) and a field of length scales, the Paciorek–Schervish kernel (paper, eq. 11; Paciorek
and Schervish 2006) is

.. math::

    \kappa^{\Sigma}(x, x') = \frac{|\Sigma(x)|^{1/4} |\Sigma(x')|^{1/4}}
        {|\tfrac12(\Sigma(x) + \Sigma(x'))|^{1/2}}\;
        \varphi\big(\sqrt{Q(x, x')}\big), \qquad
    Q = (x - x')^\top \big(\tfrac12(\Sigma(x) + \Sigma(x'))\big)^{-1} (x - x'),

and with Σ(x) = ℓ(x)² I it reduces to the Gibbs kernel (eq. 10), in d dimensions

.. math::

    \kappa(x, x') = \left(\frac{2\ell(x)\ell(x')}{\ell(x)^2 + \ell(x')^2}\right)^{d/2}
        \varphi\!\left(\frac{\|x - x'\|}{\ell_{\mathrm{eff}}(x, x')}\right), \qquad
    \ell_{\mathrm{eff}}^2 = \tfrac12(\ell(x)^2 + \ell(x')^2).

PyMC's ``pm.gp.cov.Gibbs`` is the squared-exponential, 1-D case. The constructors
:meth:`Gibbs.from_psi` and :meth:`PaciorekSchervish.from_psi` build the kernels the paper
relates to a VSK (Theorem 3.2, Corollaries 3.3–3.4): ℓ(x) = ℓ / sqrt(1 + ψ'(x)²) in 1-D and
Σ(x) = ℓ² (I + ∇ψ ∇ψᵀ)⁻¹ in d dimensions, with ∇ψ from pytensor's automatic differentiation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.graph import Variable

from pymc_vsk.arrays import as_float_array, check_finite
from pymc_vsk.kernels import base_kernels, is_radial, kernel_class, make_base_kernel
from pymc_vsk.lifting import _float_tensor, kernel_from_sq_dist
from pymc_vsk.scaling import ScalingFunction, as_scaling_function
from pymc_vsk.validation import as_numeric, check_inputs

__all__ = ["Gibbs", "PaciorekSchervish", "psi_gradient"]


def _radial(kernel: str | type | pm.gp.cov.Stationary) -> pm.gp.cov.Stationary:
    """A base kernel whose ``full_from_distance`` gives φ (its own ``ls`` is not used)."""
    if isinstance(kernel, pm.gp.cov.Stationary):
        base = kernel
    else:
        try:
            base = make_base_kernel(kernel_class(kernel), 1, 1.0)
        except ValueError as err:
            raise TypeError(
                f"kernel must be a name in {sorted(base_kernels())}, a Stationary class or "
                f"instance; got {kernel!r}."
            ) from err
    if not is_radial(type(base)):
        raise TypeError(f"{type(base).__name__} is not an isotropic positive definite base.")
    return base


def _differentiable(psi: ScalingFunction | Callable, owner: str) -> ScalingFunction:
    """``psi`` as a scaling function, refused when a part of it is piecewise constant."""
    psi = as_scaling_function(psi)
    steps = [p for p in getattr(psi, "parts", [psi]) if p.piecewise_constant]
    if steps:
        raise ValueError(
            f"{owner}.from_psi needs a differentiable ψ; {steps[0]!r} is piecewise constant, "
            "so its derivative is 0 wherever it exists and the local length scale would be ℓ "
            "everywhere: the stationary kernel, not the VSK's. Give the step a width "
            "(scaling.SmoothJump, or Disk/HalfPlane with width=...)."
        )
    return psi


def _check_positive(value: pt.TensorLike, name: str, owner: str) -> None:
    """Refuse a numeric ``value`` that is not one finite positive number (tensors pass)."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{owner}.from_psi: {name} must be a number; got {value!r}.")
    number = as_numeric(value)
    if number is None:
        return
    number = as_float_array(number, name)
    if number.size != 1:
        raise ValueError(f"{owner}.from_psi: {name} must be one number; got shape {number.shape}.")
    check_finite(number.reshape(1), name, "give a finite positive number.")
    if not number.item() > 0:
        raise ValueError(f"{owner}.from_psi: {name} must be positive; got {number.item():g}.")


def psi_gradient(psi: ScalingFunction | Callable, X: pt.TensorLike) -> Variable:
    """∇ψ at each row of ``X`` by automatic differentiation: shape (n, d, q).

    ψ acts row by row, so the gradient of Σ_i ψ_j(x_i) with respect to X holds ∇ψ_j(x_i) in
    row i.

    Parameters
    ----------
    psi : ScalingFunction or callable
        The scaling function.
    X : tensor-like, shape (n, d)
        Points.

    Returns
    -------
    TensorVariable, shape (n, d, q)

    Raises
    ------
    ValueError
        If ``X`` is not 2-D.
    TypeError
        If ``X`` holds text or other values that are not numbers.

    Notes
    -----
    Integer inputs are differentiated as floats: the gradient with respect to an integer
    tensor is zero by definition, which would hide ψ from the Gibbs and Paciorek–Schervish
    kernels built by ``from_psi``.
    """
    psi = as_scaling_function(psi)
    X = _float_tensor(X)
    out = pt.as_tensor_variable(psi(X))
    out = out[:, None] if out.ndim == 1 else out
    grads = [pytensor.grad(pt.sum(out[:, j]), X) for j in range(psi.q)]
    return pt.stack(grads, axis=-1)


class _LocalScaleKernel(pm.gp.cov.Covariance):
    """Shared parts of the Gibbs and Paciorek–Schervish kernels: checks, slicing, diagonal."""

    def __init__(self, input_dim: int, field: Callable, kernel, active_dims, what: str):
        super().__init__(input_dim, active_dims)
        if not callable(field):
            raise TypeError(what)
        self.base = _radial(kernel)

    def _inputs(self, X: pt.TensorLike, Xs: pt.TensorLike | None) -> tuple[Variable, Variable]:
        check_inputs(X, self.input_dim, owner=repr(self))
        if Xs is not None:
            check_inputs(Xs, self.input_dim, name="Xs", owner=repr(self))
        X, Xs = self._slice(X, Xs)
        X = _float_tensor(X)  # integer inputs would have a zero gradient of ψ
        return X, X if Xs is None else _float_tensor(Xs)

    def full(self, X: pt.TensorLike, Xs: pt.TensorLike | None = None) -> Variable:
        """Covariance matrix k(X, Xs) (``Xs=None``: k(X, X)).

        Parameters
        ----------
        X : tensor-like, shape (n, input_dim)
        Xs : tensor-like, shape (m, input_dim), optional

        Returns
        -------
        TensorVariable, shape (n, m)
        """
        return self._full(*self._inputs(X, Xs))

    def _full(self, X: Variable, Xs: Variable) -> Variable:
        raise NotImplementedError

    def diag(self, X: pt.TensorLike) -> Variable:
        """k(x, x) = φ(0) (the prefactor is 1 on the diagonal)."""
        X, _ = self._inputs(X, None)
        return kernel_from_sq_dist(self.base, pt.zeros((X.shape[0],), dtype=X.dtype))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(input_dim={self.input_dim}, {type(self.base).__name__})"


class PaciorekSchervish(_LocalScaleKernel):
    r"""Paciorek–Schervish covariance (eq. 11) with a matrix length-scale field Σ(x).

    Parameters
    ----------
    input_dim : int
    sigma_func : callable
        ``sigma_func(X) -> (n, d, d)`` symmetric positive definite Σ(x_i), in pytensor.
    kernel : str, Stationary class or instance, default "expquad"
        Isotropic base φ (its own length scale is not used).
    active_dims : sequence of int, optional
    """

    def __init__(
        self,
        input_dim: int,
        sigma_func: Callable[[Variable], Variable],
        kernel: str | type | pm.gp.cov.Stationary = "expquad",
        active_dims: Sequence[int] | None = None,
    ) -> None:
        what = "sigma_func must be callable: X (n, d) -> Σ (n, d, d)."
        super().__init__(input_dim, sigma_func, kernel, active_dims, what)
        self.sigma_func = sigma_func

    @classmethod
    def from_psi(
        cls,
        psi: ScalingFunction | Callable,
        ls: pt.TensorLike,
        input_dim: int,
        kernel: str | type | pm.gp.cov.Stationary = "expquad",
        active_dims: Sequence[int] | None = None,
        psi_scale: pt.TensorLike = 1.0,
    ) -> PaciorekSchervish:
        r"""Σ(x) = ℓ² (I + s² ∇ψ ∇ψᵀ)⁻¹ (Corollary 3.4); for q > 1, I + s² Σ_j ∇ψ_j ∇ψ_jᵀ.

        Parameters
        ----------
        psi : ScalingFunction or callable
            The VSK's scaling function, differentiable (a hard jump or region has ∇ψ = 0
            and is refused: use :class:`~pymc_vsk.scaling.SmoothJump` or a width).
        ls : tensor-like
            The VSK's length scale ℓ.
        input_dim : int
            Number of columns of ``X``.
        kernel : str, Stationary class or instance, default "expquad"
            Isotropic base φ.
        active_dims : sequence of int, optional
            Columns of ``X`` the kernel acts on (default: all).
        psi_scale : tensor-like, default 1.0
            The VSK's factor s of the lifted coordinate ([x, s·ψ(x)], as
            :class:`~pymc_vsk.covariance.VSK` takes it; the largest column span of X,
            ``np.ptp(X, axis=0).max()``, for the VSK of :func:`pymc_vsk.build_model`).

        Returns
        -------
        PaciorekSchervish
        """
        psi = _differentiable(psi, cls.__name__)
        _check_positive(ls, "ls", cls.__name__)
        _check_positive(psi_scale, "psi_scale", cls.__name__)
        d = input_dim if active_dims is None else len(active_dims)

        def sigma(X):
            G = psi_scale * psi_gradient(psi, X)  # (n, d, q)
            M = pt.eye(d)[None] + pt.sum(G[:, :, None, :] * G[:, None, :, :], axis=-1)
            return pt.square(ls) * _inverse(M, d)

        out = cls(input_dim, sigma, kernel, active_dims)
        out.psi, out.ls = psi, ls
        return out

    def _sigma(self, X: Variable) -> Variable:
        S = pt.as_tensor_variable(self.sigma_func(X))
        d = self.n_dims
        if S.ndim != 3 or any(n not in (d, None) for n in S.type.shape[1:]):
            raise ValueError(
                f"sigma_func must return one d × d matrix per row of X, shape (n, {d}, {d}) "
                f"for the kernel's {d} active column(s); got static shape {S.type.shape}."
            )
        return S

    def _full(self, X: Variable, Xs_: Variable) -> Variable:
        S, Ss = self._sigma(X), self._sigma(Xs_)
        avg = 0.5 * (S[:, None] + Ss[None, :])  # (n, m, d, d)
        diff = X[:, None, :] - Xs_[None, :, :]  # (n, m, d)
        d = self.n_dims
        Q = pt.sum(diff * _solve(avg, diff, d), axis=-1)
        prefactor = pt.sqrt(pt.sqrt(_det(S, d)[:, None] * _det(Ss, d)[None, :]) / _det(avg, d))
        return prefactor * kernel_from_sq_dist(self.base, pt.maximum(Q, 0.0))


class Gibbs(_LocalScaleKernel):
    r"""Gibbs covariance (eq. 10) in d dimensions with a scalar length-scale field ℓ(x).

    Parameters
    ----------
    input_dim : int
    lengthscale_func : callable
        ``lengthscale_func(X) -> (n,)`` positive local length scales, in pytensor.
    kernel : str, Stationary class or instance, default "expquad"
        Isotropic base φ (its own length scale is not used). With ``"expquad"`` in 1-D this
        is PyMC's ``pm.gp.cov.Gibbs``.
    active_dims : sequence of int, optional
    """

    def __init__(
        self,
        input_dim: int,
        lengthscale_func: Callable[[Variable], Variable],
        kernel: str | type | pm.gp.cov.Stationary = "expquad",
        active_dims: Sequence[int] | None = None,
    ) -> None:
        what = "lengthscale_func must be callable: X (n, d) -> ℓ (n,)."
        super().__init__(input_dim, lengthscale_func, kernel, active_dims, what)
        self.lengthscale_func = lengthscale_func

    @classmethod
    def from_psi(
        cls,
        psi: ScalingFunction | Callable,
        ls: pt.TensorLike,
        kernel: str | type | pm.gp.cov.Stationary = "expquad",
        input_dim: int = 1,
        active_dims: Sequence[int] | None = None,
        psi_scale: pt.TensorLike = 1.0,
    ) -> Gibbs:
        r"""ℓ(x) = ℓ / sqrt(1 + s² ψ'(x)²), the local length scale of Corollary 3.3 (1-D).

        Parameters
        ----------
        psi : ScalingFunction or callable
            A scalar ψ (q = 1) of one input coordinate, differentiable (a hard
            :class:`~pymc_vsk.scaling.Jump` has ψ' = 0 and is refused: use
            :class:`~pymc_vsk.scaling.SmoothJump`).
        ls : tensor-like
            ℓ, the length scale of the VSK this kernel approximates.
        kernel : str, Stationary class or instance, default "expquad"
            Isotropic base φ, as the VSK's base kernel.
        input_dim : int, default 1
            Number of columns of the inputs.
        active_dims : sequence of int, optional
            The column ψ acts on (default: all, i.e. the one column).
        psi_scale : tensor-like, default 1.0
            The VSK's factor s of the lifted coordinate ([x, s·ψ(x)], as
            :class:`~pymc_vsk.covariance.VSK` takes it; the largest column span of X,
            ``np.ptp(X, axis=0).max()``, for the VSK of :func:`pymc_vsk.build_model`).

        Returns
        -------
        Gibbs
        """
        psi = _differentiable(psi, cls.__name__)
        _check_positive(ls, "ls", cls.__name__)
        _check_positive(psi_scale, "psi_scale", cls.__name__)
        if psi.q != 1:
            raise ValueError("Gibbs.from_psi needs a scalar ψ (q = 1); use PaciorekSchervish.")

        def lengthscale(X):
            G = psi_scale * psi_gradient(psi, X)  # (n, d, 1)
            return ls / pt.sqrt(1.0 + pt.sum(pt.square(G[..., 0]), axis=-1))

        out = cls(input_dim, lengthscale, kernel, active_dims)
        out.psi, out.ls = psi, ls
        return out

    def _lengthscales(self, X: Variable) -> Variable:
        """ℓ(x) at each row, shape (n,): a column (n, 1) is flattened, a scalar broadcast."""
        out = pt.as_tensor_variable(self.lengthscale_func(X))
        if out.ndim == 0:
            return pt.broadcast_to(out, (X.shape[0],))
        if out.ndim == 2 and out.type.shape[1] in (1, None):
            return out.reshape((X.shape[0],))
        if out.ndim != 1:
            raise ValueError(
                f"lengthscale_func must return one length scale per row of X, shape (n,) (or "
                f"(n, 1)); it returned a {out.ndim}-D tensor of static shape {out.type.shape}."
            )
        return out

    def _full(self, X: Variable, Xs_: Variable) -> Variable:
        lx, ls = self._lengthscales(X), self._lengthscales(Xs_)
        l2 = pt.square(lx)[:, None] + pt.square(ls)[None, :]
        r2 = pt.sum(pt.square(X[:, None, :] - Xs_[None, :, :]), axis=-1)
        prefactor = pt.power(2.0 * lx[:, None] * ls[None, :] / l2, 0.5 * self.n_dims)
        return prefactor * kernel_from_sq_dist(self.base, 2.0 * r2 / l2)


# -- small batched linear algebra (closed forms for d <= 2) ---------------------------------
def _det(A: Variable, d: int) -> Variable:
    if d == 1:
        return A[..., 0, 0]
    if d == 2:
        return A[..., 0, 0] * A[..., 1, 1] - A[..., 0, 1] * A[..., 1, 0]
    return pt.linalg.det(A)


def _inverse(A: Variable, d: int) -> Variable:
    if d == 1:
        return 1.0 / A
    if d == 2:
        det = _det(A, 2)[..., None, None]
        adj = pt.stack(
            [
                pt.stack([A[..., 1, 1], -A[..., 0, 1]], axis=-1),
                pt.stack([-A[..., 1, 0], A[..., 0, 0]], axis=-1),
            ],
            axis=-2,
        )
        return adj / det
    return pt.linalg.inv(A)


def _solve(A: Variable, b: Variable, d: int) -> Variable:
    """A⁻¹ b for batches of d×d matrices A (..., d, d) and vectors b (..., d)."""
    return pt.sum(_inverse(A, d) * b[..., None, :], axis=-1)
