r"""The Gaussian log density of GP regression, with a gradient from one Cholesky factor.

Every Gaussian log density of the package is built here: the marginal likelihood of
:func:`pymc_vsk.build_model` (:class:`Marginal`, :class:`MarginalNormal`), the per-gap
likelihoods of the location-marginalised jump model (a batch of covariances) and the weights
of its predictions.

For one vector the gradient is written out instead of being propagated through the Cholesky
factorisation:

.. math::

    \log p = -\tfrac12 r^\top K^{-1} r - \tfrac12 \log\det K - \tfrac n2 \log 2\pi,
    \qquad \frac{\partial \log p}{\partial r} = -\alpha, \qquad
    \frac{\partial \log p}{\partial K} = \tfrac12(\alpha\alpha^\top - K^{-1}),

with α = K⁻¹ r. K⁻¹ comes from the Cholesky factor K = LLᵀ by LAPACK's ``potri``
(:func:`cholesky_inverse`), which inverts L and multiplies Lᵀ⁻¹L⁻¹ exploiting the triangles:
2n³/3 flops, against 2n³ for ``cho_solve(L, I)`` and about twice that for the gradient through
the factorisation, whose graph is also much larger to compile.

:func:`cholesky_inverse` is an ``OpFromGraph`` whose inner graph is the portable
``cho_solve(L, I)`` (what the JAX and PyTorch backends run), with a ``perform`` calling
scipy's ``dpotri`` for the C and Python backends and a Numba implementation calling
``dpotri`` for pytensor's default backend (registered by a Numba-only rewrite, so that the
other backends never import Numba). The Numba part uses pytensor's own LAPACK
pointer helpers, so the compiled function stays in Numba's on-disk cache; where those helpers
are not importable (another pytensor version) the portable graph is used everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import scipy.linalg
from pymc.distributions.dist_math import check_parameters
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.graph.rewriting.basic import GraphRewriter
from pytensor.tensor.random.basic import MvNormalRV
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.validation import as_numeric

__all__ = [
    "CholeskyInverse",
    "Marginal",
    "MarginalNormal",
    "check_data_lengths",
    "cholesky_inverse",
    "gaussian_logp",
    "gaussian_logp_from_cholesky",
    "log_det_cholesky",
]

#: Bumped when the Numba implementation changes (part of its on-disk cache key).
_NUMBA_VERSION = 2
_state = {"registered": False}


class CholeskyInverse(OpFromGraph):
    """K⁻¹ from the lower Cholesky factor L of K by LAPACK's ``potri``.

    Under Numba a registered implementation calls ``dpotri``; the C and Python backends run
    :meth:`perform`, scipy's ``dpotri``, without compiling the inner graph (which the JAX
    and PyTorch backends use).
    """

    def make_thunk(
        self,
        node: Apply,
        storage_map: dict,
        compute_map: dict,
        no_recycling: list,
        impl: str | None = None,
    ) -> Callable:
        """A Python thunk running :meth:`perform`; the inner graph is not compiled."""
        return Op.make_thunk(self, node, storage_map, compute_map, no_recycling, impl="py")

    def perform(self, node: Apply, inputs: list, outputs: list) -> None:
        """K⁻¹ by ``dpotri`` (float64; other dtypes by ``cho_solve``); NaN where it fails."""
        (chol,) = inputs
        if chol.dtype != np.float64:
            eye = np.eye(chol.shape[0], dtype=chol.dtype)
            outputs[0][0] = scipy.linalg.cho_solve((chol, True), eye, check_finite=False)
            return
        inverse, info = scipy.linalg.lapack.dpotri(chol, lower=1, overwrite_c=0)
        if info != 0:
            inverse = np.full_like(chol, np.nan)
        else:  # dpotri fills the lower triangle only
            inverse = np.tril(inverse)
            inverse += np.tril(inverse, -1).T
        outputs[0][0] = inverse


def cholesky_inverse(chol: pt.TensorLike) -> TensorVariable:
    """K⁻¹ (n × n, symmetric) from the lower Cholesky factor ``chol`` of K.

    Parameters
    ----------
    chol : TensorVariable, shape (n, n)
        Lower Cholesky factor L of K = LLᵀ.

    Returns
    -------
    TensorVariable, shape (n, n)
        K⁻¹; NaN where ``potri`` fails.
    """
    chol = pt.as_tensor_variable(chol)
    x = pt.matrix("chol", dtype=chol.dtype)
    inverse = pt.linalg.cho_solve((x, True), pt.eye(x.shape[0], dtype=x.dtype), b_ndim=2)
    op = CholeskyInverse([x], [inverse], inline=False, name="CholeskyInverse")
    return op(chol)


class _RegisterNumba(GraphRewriter):
    """A rewrite of the Numba mode only: registers the ``dpotri`` implementation, changes nothing.

    Importing Numba and pytensor's Numba dispatch costs about half a second, which the
    Python and C backends should not pay; as a rewrite tagged ``numba`` the registration runs
    just before the first Numba compilation (pytensor's own, PyMC's or nutpie's).
    """

    def apply(self, fgraph: object) -> None:
        """Register the Numba implementation (once per process); the graph is left alone."""
        _register_numba()


if "pymc_vsk_register_numba" not in optdb:  # once per process, also if this module is reloaded
    optdb.register("pymc_vsk_register_numba", _RegisterNumba(), "numba", position=-0.5)


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


# -- the log density --------------------------------------------------------------------------
_LOG_2PI = float(np.log(2.0 * np.pi))


def log_det_cholesky(L: pt.TensorLike) -> TensorVariable:
    """½ log det K = Σ log diag L for K = LLᵀ, for one factor (n, n) or a batch (..., n, n).

    The diagonal is taken with an elementwise mask rather than ``pt.diagonal``, whose batched
    gradient runs in Numba's slow object mode.

    Parameters
    ----------
    L : tensor-like, shape (..., n, n)
        Lower Cholesky factor(s).

    Returns
    -------
    TensorVariable, shape (...)
    """
    L = pt.as_tensor_variable(L)
    eye = pt.eye(L.shape[-1], dtype=L.dtype)
    return pt.sum(pt.log(pt.sum(L * eye, axis=-1)), axis=-1)


def gaussian_logp_from_cholesky(r: pt.TensorLike, chol: pt.TensorLike) -> TensorVariable:
    """log N(r | 0, K) from the lower Cholesky factor of K; batched over leading dimensions.

    Parameters
    ----------
    r : tensor-like, shape (n,)
        Residual (value minus mean); shared by every covariance of a batch.
    chol : tensor-like, shape (n, n) or (M, n, n)
        Lower Cholesky factor(s) of the covariance(s).

    Returns
    -------
    TensorVariable, shape () or (M,)
        The log density; its gradient is pytensor's (see :func:`gaussian_logp` for the one
        with the cheaper gradient).
    """
    r, chol = pt.as_tensor_variable(r), pt.as_tensor_variable(chol)
    n = pt.cast(r.shape[-1], "float64")
    if chol.ndim == 2:
        v = pt.linalg.solve_triangular(chol, r, lower=True, b_ndim=1)
        half_logdet = pt.sum(pt.log(pt.diagonal(chol)))
    else:
        b = pt.broadcast_to(r[..., None], (*chol.shape[:-1], 1))
        v = pt.linalg.solve_triangular(chol, b, lower=True)[..., 0]
        half_logdet = log_det_cholesky(chol)
    return -0.5 * (pt.sum(pt.square(v), axis=-1) + n * _LOG_2PI) - half_logdet


def _gaussian_logp_graph(r: TensorVariable, cov: TensorVariable) -> TensorVariable:
    return gaussian_logp_from_cholesky(r, pt.linalg.cholesky(cov, lower=True))


def _gaussian_logp_pullback(inputs: list, outputs: list, output_grads: list) -> list:
    r"""∂/∂r = −α and ∂/∂K = ½(ααᵀ − K⁻¹), α = K⁻¹ r, from one Cholesky factor."""
    r, cov = inputs
    (g,) = output_grads
    chol = pt.linalg.cholesky(cov, lower=True)
    alpha = pt.linalg.cho_solve((chol, True), r, b_ndim=1)
    return [-g * alpha, (0.5 * g) * (pt.outer(alpha, alpha) - cholesky_inverse(chol))]


_r = pt.vector("r", dtype="float64")
_cov = pt.matrix("cov", dtype="float64")
_GaussianLogp = OpFromGraph(
    [_r, _cov],
    [_gaussian_logp_graph(_r, _cov)],
    pullback=_gaussian_logp_pullback,
    inline=True,
    name="GaussianLogp",
)


def gaussian_logp(value: pt.TensorLike, mu: pt.TensorLike, cov: pt.TensorLike) -> TensorVariable:
    r"""log N(value | mu, cov), with the gradient of the module docstring for one vector.

    Parameters
    ----------
    value : tensor-like, shape (n,)
        Observations.
    mu : tensor-like, shape (n,) or scalar
        Mean.
    cov : tensor-like, shape (n, n) or (M, n, n)
        Covariance, or a batch of M covariances of the same observations.

    Returns
    -------
    TensorVariable, shape () or (M,)
        The log density. For one covariance it equals ``pm.MvNormal``'s and is −inf where
        ``cov`` is not positive definite; a batch gets pytensor's gradient.
    """
    value, mu, cov = (pt.as_tensor_variable(v) for v in (value, mu, cov))
    if value.ndim != 1:
        return pm.MvNormal.logp(value, mu, cov)
    r = pt.cast(value - mu, "float64")
    cov = pt.cast(cov, "float64")
    if cov.ndim != 2:
        return gaussian_logp_from_cholesky(r, pt.linalg.cholesky(cov, lower=True))
    posdef = pt.all(pt.gt(pt.diagonal(pt.linalg.cholesky(cov, lower=True)), 0.0))
    return check_parameters(_GaussianLogp(r, cov), posdef, msg="posdef covariance")


class _MarginalNormalRV(MvNormalRV):
    """``MvNormalRV`` under its own type, so that its log density can be :func:`gaussian_logp`."""

    _print_name = ("MvNormal", "\\operatorname{MvNormal}")


class MarginalNormal(pm.MvNormal):
    """``pm.MvNormal`` (same draws, same density) whose log density is :func:`gaussian_logp`."""

    rv_op = _MarginalNormalRV(method="cholesky")

    @staticmethod
    def logp(value: pt.TensorLike, mu: pt.TensorLike, cov: pt.TensorLike) -> TensorVariable:
        """:func:`gaussian_logp` of ``value``.

        Parameters
        ----------
        value, mu, cov : tensor-like
            As in :func:`gaussian_logp`.

        Returns
        -------
        TensorVariable
        """
        return gaussian_logp(value, mu, cov)


def check_data_lengths(gp: object) -> None:
    """Refuse a GP whose training inputs and observations differ in length.

    ``pm.set_data({"X": Xnew})`` alone, PyMC's way to predict a regression at new inputs,
    leaves a marginal GP with new inputs and the old observations; its likelihood and its
    predictions then fail deep inside pytensor. This names the problem and the fix.

    Parameters
    ----------
    gp : pm.gp.Marginal or other GP
        A GP with data (``gp.X``, ``gp.y``); one without, or with symbolic data, passes.

    Raises
    ------
    ValueError
        If ``gp.X`` has another number of rows than ``gp.y`` has values.
    """
    X, y = getattr(gp, "X", None), getattr(gp, "y", None)
    if X is None or y is None:
        return
    values = [as_numeric(v) for v in (X, y)]  # None for symbolic data
    shapes = [None if v is None else v.shape for v in values]
    if any(s is None or len(s) == 0 for s in shapes) or shapes[0][0] == shapes[1][0]:
        return
    raise ValueError(
        f"The GP's training inputs X have {shapes[0][0]} rows but its observations y have "
        f"{shapes[1][0]} values: one was changed without the other (pm.set_data with X "
        "alone?). A GP predicts from all of its training data, so leave them in place and "
        "pass the new inputs to pymc_vsk.predict(gp, Xnew, ...); to fit other data, change X "
        "and y together with pymc_vsk.set_data(model, X, y)."
    )


class Marginal(pm.gp.Marginal):
    """``pm.gp.Marginal`` whose likelihood is :class:`MarginalNormal` (cheaper gradient).

    Everything else (``conditional``, ``predict``, the stored ``X``, ``y``, ``sigma``) is
    PyMC's. :func:`pymc_vsk.build_model` uses it.

    Attributes
    ----------
    jitter : float or tensor
        The nugget added to the diagonal by :meth:`marginal_likelihood`; prediction
        (:func:`pymc_vsk.prediction.predict`) adds the same one by default.
    """

    def marginal_likelihood(
        self,
        name: str,
        X: pt.TensorLike,
        y: pt.TensorLike,
        sigma: pt.TensorLike | pm.gp.cov.Covariance,
        jitter: float | pt.TensorLike = 1e-6,
        **kwargs: object,
    ) -> TensorVariable:
        """As ``pm.gp.Marginal.marginal_likelihood``, with :class:`MarginalNormal` for y.

        Parameters
        ----------
        name : str
            Name of the observed variable.
        X : tensor-like, shape (n, d)
            Inputs.
        y : tensor-like, shape (n,)
            Observations.
        sigma : tensor-like or Covariance
            Noise standard deviation, or a noise covariance.
        jitter : float or tensor, default 1e-6
            Added to the diagonal of the covariance (a tensor may depend on data containers).
        **kwargs
            Passed to the distribution (e.g. ``dims``).

        Returns
        -------
        TensorVariable
            The observed variable.
        """
        noise = (
            sigma if isinstance(sigma, pm.gp.cov.BaseCovariance) else pm.gp.cov.WhiteNoise(sigma)
        )
        mu, cov = self._build_marginal_likelihood(X=X, noise_func=noise, jitter=jitter)
        self.X, self.y, self.sigma, self.jitter = X, y, noise, jitter
        self.name = name  # the observed variable
        self.model = pm.modelcontext(None)  # so that predictions need no model context
        return MarginalNormal(name, mu=mu, cov=cov, observed=y, **kwargs)

    def _build_marginal_likelihood(
        self, X: pt.TensorLike, noise_func: pm.gp.cov.Covariance, jitter: float | pt.TensorLike
    ) -> tuple[TensorVariable, TensorVariable]:
        """Mean and covariance K + σ_n² I + jitter·I, with white noise added on the diagonal.

        PyMC builds σ_n² I as an n × n matrix (its gradient in σ_n is then a sum over n²
        entries, and the C and Python backends compile that diagonal as a function of its
        own); here σ_n² + jitter is added to the diagonal alone: the same covariance up to
        the rounding of one sum (Kᵢᵢ + (σ_n² + jitter) instead of (Kᵢᵢ + σ_n²) + jitter).
        Other noise covariances are PyMC's.
        """
        if type(noise_func) is not pm.gp.cov.WhiteNoise:
            return super()._build_marginal_likelihood(X, noise_func, jitter)
        mu = self.mean_func(X)
        Kxx = pt.as_tensor_variable(self.cov_func(X))
        diag = pt.arange(Kxx.shape[0])
        # inc_subtensor, not set_subtensor(K[d, d], K[d, d] + ...): pytensor's rewrites drop
        # the second term of the latter's sum.
        return mu, pt.inc_subtensor(Kxx[diag, diag], pt.square(noise_func.sigma) + jitter)

    def _fitted_jitter(self, jitter: float | pt.TensorLike | None) -> float | pt.TensorLike:
        return getattr(self, "jitter", 1e-6) if jitter is None else jitter

    def conditional(
        self,
        name: str,
        Xnew: pt.TensorLike,
        pred_noise: bool = False,
        given: dict | None = None,
        jitter: float | pt.TensorLike | None = None,
        **kwargs: object,
    ) -> TensorVariable:
        """PyMC's ``conditional``; ``jitter=None`` (default) adds the likelihood's jitter.

        Parameters
        ----------
        name, Xnew, pred_noise, given, **kwargs
            As in ``pm.gp.Marginal.conditional``.
        jitter : float or tensor, optional
            Default: ``self.jitter``, so fitting and prediction add the same nugget.

        Returns
        -------
        TensorVariable
        """
        jitter = self._fitted_jitter(jitter)
        return super().conditional(name, Xnew, pred_noise, given, jitter, **kwargs)

    def predict(
        self,
        Xnew: pt.TensorLike,
        point: dict | None = None,
        diag: bool = False,
        pred_noise: bool = False,
        given: dict | None = None,
        jitter: float | pt.TensorLike | None = None,
        model: pm.Model | None = None,
    ) -> tuple:
        """PyMC's ``predict``; ``jitter=None`` (default) adds the likelihood's jitter.

        Parameters
        ----------
        Xnew, point, diag, pred_noise, given
            As in ``pm.gp.Marginal.predict``.
        jitter : float or tensor, optional
            Default: ``self.jitter``, so fitting and prediction add the same nugget.
        model : pm.Model, optional
            Default: the model in context, else the one :meth:`marginal_likelihood` was
            called in.

        Returns
        -------
        tuple of ndarray
            Mean and variance (or covariance).
        """
        if model is None and pm.Model.get_context(error_if_none=False) is None:
            model = getattr(self, "model", None)
        jitter = self._fitted_jitter(jitter)
        return super().predict(Xnew, point, diag, pred_noise, given, jitter, model)
