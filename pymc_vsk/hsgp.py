r"""Hilbert-space GP approximation of a VSK on the lifted inputs, with a fixed or random ψ.

A VSK is a stationary kernel on Ψ(x) = [x, ψ(x)] ∈ ℝ^{d+q} (eq. 13), so its Hilbert-space
approximation (Solin and Särkkä 2020; Riutort-Mayol et al. 2023) is PyMC's ``pm.gp.HSGP`` of
the base kernel evaluated on the lifted inputs: f ≈ Φ(Ψ(x)) (√S ⊙ β) with Laplace
eigenfunctions Φ on a box around the lifted inputs and the base kernel's spectral density S.
Cost O(n m) per log density instead of O(n³), which is what lets a VSK GP take tens of
thousands of points.

HSGP fixes the centre and the box of its inputs when the prior is built. For a fixed ψ they
come from the lifted data, as in PyMC. With a random ψ (a jump location or amplitude with a
prior) the lifted inputs move with ψ's parameters, so the box of the ψ coordinates must hold
every value ψ can take: it comes from the scaling function's own bounds
(:meth:`~pymc_vsk.scaling.ScalingFunction.value_range`: a jump of fixed amplitude a stays in
[0, a] wherever it is) or from ``psi_range``; Φ is then a function of ψ's parameters, and NUTS
moves them with the rest.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor.tensor as pt
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph import Variable
from pytensor.tensor.variable import TensorVariable

from pymc_vsk.arrays import as_float_array
from pymc_vsk.covariance import LIBRARY_FILES, VSK, LinearVSK
from pymc_vsk.lifting import lift
from pymc_vsk.likelihood import log_det_cholesky
from pymc_vsk.scaling import ScalingFunction, as_scaling_function, numeric_value
from pymc_vsk.validation import as_numeric, check_inputs

__all__ = ["CollapsedLiftedHSGP", "LiftedHSGP"]


#: Riutort-Mayol et al. (2023): m ≥ a·L/ℓ basis functions on a box of half-width L resolve
#: a kernel of length scale ℓ; a for each kernel, as ``pm.gp.hsgp_approx`` uses it.
BASIS_FACTORS = {pm.gp.cov.ExpQuad: 1.75, pm.gp.cov.Matern52: 2.65, pm.gp.cov.Matern32: 3.42}


class LiftedHSGP(pm.gp.HSGP):
    r"""``pm.gp.HSGP`` of a VSK with fixed ψ: the base kernel's HSGP on [x, ψ(x)].

    Parameters
    ----------
    m : sequence of int
        Basis functions per lifted coordinate (d + q entries). A jump ψ takes few values, so a
        few (3–5) basis functions suffice for its coordinate.
    psi : ScalingFunction or callable
        The scaling function; its parameters may be random variables.
    cov_func : Covariance
        The base kernel on the lifted inputs (``input_dim = d + q``), optionally scaled, e.g.
        ``sigma_f**2 * pm.gp.cov.Matern52(2, ls=ls)``; it needs ``power_spectral_density``.
    L, c : optional
        Box half-widths or extension factor, as in ``pm.gp.HSGP`` (for the lifted inputs).
    psi_range : (lower, upper) or sequence of them, optional
        Bounds of each ψ coordinate over every x and every value of ψ's random parameters
        (q pairs, or one pair when q = 1). The box of the ψ coordinates is centred on them
        and, with ``c``, ``c`` times their half-width wide. Needed for a random ψ whose
        :meth:`~pymc_vsk.scaling.ScalingFunction.value_range` is not known (a random
        amplitude: give its largest value); the approximation degrades where ψ leaves it.
    **kwargs
        Passed to ``pm.gp.HSGP`` (``parametrization``, ``boundary``, ``mean_func`` ...).

    Examples
    --------
    A jump of unknown location, sampled with the rest. ψ stays in [0, 1] wherever the jump
    is; the box around it leaves room for two length scales on each side:

    >>> import numpy as np, pymc as pm
    >>> from pymc_vsk.scaling import SmoothJump
    >>> X = np.linspace(0, 1, 200)[:, None]
    >>> with pm.Model():
    ...     t = pm.Uniform("t", 0.2, 0.8)
    ...     gp = LiftedHSGP([30, 5], SmoothJump(t, width=0.01),
    ...                     cov_func=pm.gp.cov.Matern52(2, ls=[0.2, 0.5]), L=[0.75, 1.5])
    ...     f = gp.prior("f", X=X)
    >>> gp.psi_range.tolist()  # from the jump's amplitude, 1
    [[0.0, 1.0]]
    """

    def __init__(
        self,
        m: Sequence[int],
        psi: ScalingFunction | Callable,
        cov_func: pm.gp.cov.Covariance,
        L: Sequence[float] | None = None,
        c: float | None = None,
        psi_range: Sequence[float] | Sequence[Sequence[float]] | None = None,
        **kwargs: object,
    ) -> None:
        self.psi = as_scaling_function(psi)
        _check_base_kernel(cov_func)
        if not all(isinstance(k, int | np.integer) and k >= 1 for k in np.ravel(m)):
            raise ValueError(f"m needs a positive integer per lifted coordinate; got {m!r}.")
        self.d = cov_func.input_dim - self.psi.q
        if self.d < 1:
            raise ValueError(
                f"cov_func acts on the lifted inputs of width d + q; with q = {self.psi.q} its "
                f"input_dim = {cov_func.input_dim} leaves no room for x."
            )
        #: Bounds of the ψ coordinates, shape (q, 2), or None (a fixed ψ: box from the data).
        self.psi_range = _psi_range(self.psi, psi_range)
        super().__init__(m=m, L=L, c=c, cov_func=cov_func, **kwargs)
        #: The model in context at construction, where :func:`pymc_vsk.predict` looks first.
        self.model = pm.Model.get_context(error_if_none=False)

    def lift(self, X: npt.ArrayLike | pt.TensorLike) -> np.ndarray | TensorVariable:
        """Lifted inputs [X, ψ(X)] (:func:`pymc_vsk.lifting.lift`).

        Arrays and constants are lifted numerically. A data container (``pm.Data``) is lifted
        symbolically, so that ``pm.set_data`` moves the GP to new inputs, as with
        ``pm.gp.HSGP``; the box of the basis stays where the first inputs put it. So are all
        inputs when a parameter of ψ is in a data container (a jump location in ``pm.Data``),
        so that ``pm.set_data`` moves ψ.

        Parameters
        ----------
        X : array or tensor, shape (n, d)

        Returns
        -------
        ndarray (numeric ``X``) or TensorVariable, shape (n, d + q)
        """
        check_inputs(X, self.d, owner="LiftedHSGP")
        if isinstance(X, SharedVariable):
            return lift(pt.as_tensor_variable(X), self.psi)
        value = as_numeric(X)
        if value is not None and self.psi.reads_data:
            return lift(pt.as_tensor_variable(as_float_array(value)), self.psi)
        return lift(X if value is None else as_float_array(value), self.psi)

    def prior_linearized(
        self, X: npt.ArrayLike | pt.TensorLike
    ) -> tuple[TensorVariable, TensorVariable]:
        """Eigenfunctions Φ at the lifted ``X`` and √S, as ``pm.gp.HSGP.prior_linearized``.

        Parameters
        ----------
        X : array or tensor, shape (n, d)

        Returns
        -------
        phi : TensorVariable, shape (n, M)
        sqrt_psd : TensorVariable, shape (M,)
        """
        lifted = self.lift(X)
        if self.psi_range is not None and self._X_center is None:
            self._fix_box(X)
        out = super().prior_linearized(lifted)
        self.check_inside_box(X)
        return out

    def check_inside_box(self, X: npt.ArrayLike | pt.TensorLike) -> None:
        """Warn when inputs leave the box of the basis functions.

        The Laplace eigenfunctions vanish at the box's edge, so beyond it the approximation
        falls to the mean with a small, wrong variance. The x coordinates are checked, and
        the ψ coordinates when ψ is fixed; symbolic inputs are not.

        Parameters
        ----------
        X : array or tensor, shape (n, d)
            Inputs before lifting.
        """
        value = as_numeric(X)
        if value is None or self._X_center is None or self._L is None:
            return
        value = np.asarray(value, dtype=float).reshape(len(value), -1)
        if not self.psi.is_random:
            value = lift(value, self.psi)
        dims = self.cov_func.active_dims
        dims = dims[dims < value.shape[1]]  # a random ψ: its coordinates are not checked
        offset = (value - np.asarray(self._X_center, dtype=float))[:, dims]
        L = np.asarray(numeric_value(self._L), dtype=float)  # folded, not compiled
        half = np.broadcast_to(L, self.cov_func.active_dims.shape)[: dims.size]
        outside = np.abs(offset) > half * (1 + 1e-9)
        if not outside.any():
            return
        centre = np.asarray(self._X_center, dtype=float)[dims]
        where = [
            f"coordinate {int(j)}: box [{c - h:.4g}, {c + h:.4g}], inputs reach "
            f"[{c + o.min():.4g}, {c + o.max():.4g}]"
            for j, c, h, o, out in zip(dims, centre, half, offset.T, outside.T, strict=True)
            if out.any()
        ]
        warnings.warn(
            f"{int(outside.any(axis=1).sum())} of {len(value)} lifted inputs lie outside the "
            f"box of the Hilbert-space basis ({'; '.join(where)}). The basis functions vanish "
            "at the box's edge, so the approximation and its uncertainty are wrong there. "
            "Give L (or c) wide enough for every input the GP will see, plus about two length "
            "scales on each side.",
            UserWarning,
            skip_file_prefixes=LIBRARY_FILES,
        )

    def check_basis(self, points: Sequence[Mapping[str, npt.ArrayLike]] = ()) -> None:
        """Warn when the basis is too coarse for the kernel's length scale.

        On a box of half-width L, m basis functions resolve a squared-exponential, Matérn 5/2
        or Matérn 3/2 kernel of length scale ℓ only if m ≥ a·L/ℓ, with a = 1.75, 2.65 and
        3.42 (Riutort-Mayol et al., 2023, the rule of
        ``pm.gp.hsgp_approx.approx_hsgp_hyperparams``); with fewer, the approximation is
        stiffer than the kernel, without an error. The length scale is the kernel's own when
        fixed, else the median of its values in ``points`` (a MAP point or posterior draws)
        when it is one named variable; other kernels and length scales are not checked. The
        x coordinates are checked: a ψ coordinate compares the few values ψ takes (a jump's
        two), for which a few basis functions suffice.

        Parameters
        ----------
        points : sequence of dict, optional
            Values of the model's variables by name.
        """
        kernel = _stationary_part(self.cov_func)
        factor = next((a for cls, a in BASIS_FACTORS.items() if isinstance(kernel, cls)), None)
        if factor is None or self._L is None:
            return
        ls = kernel.ls
        if ls.name is not None and points and all(ls.name in point for point in points):
            values = np.median([np.asarray(point[ls.name], dtype=float) for point in points], 0)
        else:
            values = numeric_value(ls)  # a fixed length scale (folded, not compiled)
        if values is None:
            return
        m = np.asarray(self._m, dtype=float)
        L = np.broadcast_to(np.asarray(numeric_value(self._L), dtype=float), m.shape)
        values = np.broadcast_to(np.ravel(values), m.shape)
        needed = np.ceil(factor * L / values)
        short = np.flatnonzero(m[: self.d] < needed[: self.d])
        if not short.size:
            return
        where = "; ".join(
            f"coordinate {j}: m = {int(m[j])} on half-width L = {L[j]:.4g} resolves ℓ down to "
            f"{factor * L[j] / m[j]:.4g}, the kernel's ℓ is {values[j]:.4g}: m ≥ {int(needed[j])}"
            for j in short
        )
        warnings.warn(
            f"The Hilbert-space basis is too coarse for the length scale ({where}). The "
            "approximation is then smoother than the kernel and its predictions too stiff. "
            "Raise m (or narrow the box).",
            UserWarning,
            skip_file_prefixes=LIBRARY_FILES,
        )

    def _fix_box(self, X: npt.ArrayLike | pt.TensorLike) -> None:
        """Centre and half-widths of the box: x's from the data, ψ's from ``psi_range``."""
        value = as_numeric(X)
        if value is None:
            raise ValueError(
                "with psi_range (or a random ψ), LiftedHSGP fixes the box of x from the first "
                "inputs it is given: pass them as numbers, not as a symbolic tensor."
            )
        x = np.asarray(value, dtype=float).reshape(len(value), -1)
        lo, hi = x.min(axis=0), x.max(axis=0)
        centre = np.concatenate([(lo + hi) / 2, self.psi_range.mean(axis=1)])
        self._X_center = centre
        if self._L is None:
            half = np.concatenate([(hi - lo) / 2, np.diff(self.psi_range, axis=1)[:, 0] / 2])
            self._L = self._c * half

    def _build_conditional(self, Xnew: npt.ArrayLike | pt.TensorLike):
        self.check_inside_box(Xnew)
        # PyMC's conditional evaluates the mean function on the inputs it is given, here the
        # lifted [x, ψ(x)]; the mean is a function of x, as in prior()
        mean_func, self.mean_func = self.mean_func, pm.gp.mean.Zero()
        try:
            f = super()._build_conditional(self.lift(Xnew))
        finally:
            self.mean_func = mean_func
        return mean_func(Xnew) + f


def _parts(cov_func: pm.gp.cov.Covariance) -> list:
    """``cov_func`` and, for a sum or product of PyMC's, its terms or factors."""
    return [cov_func, *getattr(cov_func, "_factor_list", [])]


def _stationary_part(cov_func: pm.gp.cov.Covariance) -> pm.gp.cov.Stationary | None:
    """The one stationary kernel of ``cov_func`` (itself, or a factor of a product)."""
    found = [part for part in _parts(cov_func) if isinstance(part, pm.gp.cov.Stationary)]
    return found[0] if len(found) == 1 else None


def _check_base_kernel(cov_func: pm.gp.cov.Covariance) -> None:
    """Refuse a variably scaled kernel where its base kernel on [x, ψ(x)] is needed."""
    if any(isinstance(part, VSK | LinearVSK) for part in _parts(cov_func)):
        raise TypeError(
            "cov_func is a variably scaled kernel; the lifted HSGP needs its base kernel on "
            "[x, ψ(x)] and lifts the inputs itself with psi: pass cov_func=vsk.cov_func (times "
            "an amplitude if any, e.g. sigma_f**2 * vsk.cov_func), not the VSK."
        )


def _psi_range(
    psi: ScalingFunction, psi_range: Sequence[float] | Sequence[Sequence[float]] | None
) -> np.ndarray | None:
    """``psi_range`` as a (q, 2) array; a random ψ's own bounds when it is not given."""
    if psi_range is None:
        if not psi.is_random:
            return None
        known = psi.value_range()
        if known is None:
            raise ValueError(
                f"{psi!r} has random parameters and no known bounds: HSGP needs a fixed box "
                "around the lifted inputs [x, ψ(x)]. Give psi_range=(lower, upper), the values "
                "ψ(x) can take for every value of its parameters (e.g. (0, a_max) for a jump of "
                "random amplitude at most a_max), or use pm.gp.MarginalApprox with a "
                "pymc_vsk.VSK."
            )
        bounds = np.column_stack(known).astype(float)
    else:
        bounds = np.asarray(psi_range, dtype=float)
        if bounds.shape == (2,):
            bounds = bounds[None, :]
        if bounds.shape != (psi.q, 2):
            raise ValueError(
                f"psi_range needs one (lower, upper) pair per ψ coordinate ({psi.q}); got an "
                f"array of shape {np.shape(psi_range)}."
            )
    if not np.all(np.isfinite(bounds)):
        raise ValueError(f"psi_range must be finite; got {bounds.tolist()}.")
    flat = bounds[:, 1] <= bounds[:, 0]
    if np.any(flat):
        if psi_range is None:  # a ψ that never moves, e.g. amplitude 0: a unit box around it
            bounds[flat] += [-0.5, 0.5]
        else:
            raise ValueError(
                f"psi_range needs lower < upper for each ψ coordinate; got {bounds.tolist()}."
            )
    return bounds


class CollapsedLiftedHSGP(LiftedHSGP):
    r"""A :class:`LiftedHSGP` with Gaussian noise whose basis weights are integrated out.

    With f = Φ w, w ~ N(0, diag(s)) (s the base kernel's spectral density at the basis
    frequencies, σ_f² included) and y = m + f + ε, ε ~ N(0, σ_n² I), the weights integrate out
    exactly. With D = diag(√s), A = ΦᵀΦ, r = y − m, u = D Φᵀ r and B = I + D A D / σ_n²
    (Woodbury and the matrix determinant lemma):

    .. math::

        \log p(y) = -\tfrac12\left(\frac{r^\top r}{\sigma_n^2}
            - \frac{u^\top B^{-1} u}{\sigma_n^4} + \log\det B + n \log \sigma_n^2
            + n \log 2\pi\right).

    For a fixed ψ, ΦᵀΦ, Φᵀy, Φᵀ1, Σy and yᵀy are computed once from the data (O(n M²); those
    of y about its mean ȳ, with m − ȳ for m, so that y far from 0 loses nothing to rounding);
    each log density and gradient then costs O(M³), independent of n, so NUTS samples only the
    hyper-parameters and scales to tens of thousands of points. With a random ψ, Φ moves with
    ψ's parameters and the same statistics are part of every log density: O(n M²) each; so
    with a parameter of ψ in a data container (``pm.Data``), which ``pm.set_data`` moves.
    """

    def marginal_likelihood(
        self,
        name: str,
        X: npt.ArrayLike,
        y: npt.ArrayLike,
        sigma: pt.TensorLike,
        mean: pt.TensorLike = 0.0,
    ) -> TensorVariable:
        """Add the collapsed likelihood of ``y`` as a potential ``name``.

        Parameters
        ----------
        name : str
            Name of the potential.
        X : array-like, shape (n, d)
            Inputs (numeric: the basis statistics are computed once from them).
        y : array-like, shape (n,)
            Observations (numeric).
        sigma : tensor-like
            Noise standard deviation σ_n (may be a random variable).
        mean : tensor-like, default 0.0
            Constant mean m (may be a random variable).

        Returns
        -------
        TensorVariable
            The potential.
        """
        if isinstance(X, Variable) or isinstance(y, Variable):
            raise TypeError(
                "CollapsedLiftedHSGP computes its basis statistics (ΦᵀΦ, Φᵀy) once, from numeric "
                "X and y, so they cannot follow a data container (pm.Data) or another tensor: "
                "pass arrays (for a container, its .get_value()). For new data build a new "
                "model; for new inputs use predict or predict_moments."
            )
        X = as_float_array(X, "X")
        y = as_float_array(y, "y")
        check_inputs(X, self.d, owner="CollapsedLiftedHSGP")
        if y.shape != (len(X),):
            raise ValueError(f"y must have shape ({len(X)},); got {y.shape}.")
        # float64 tensors: pytensor makes a Python float that float32 holds exactly (such as
        # 500.0) a float32 constant, and would compute n log σ² and m − ȳ in single precision
        sigma, mean = pt.cast(sigma, "float64"), pt.cast(mean, "float64")
        phi, sqrt_psd = self.prior_linearized(X)
        if not (self.psi.is_random or self.psi.reads_data):
            # otherwise Φ moves with ψ (pm.set_data too): the statistics are symbolic
            phi = np.asarray(phi.eval())
        self.X, self.y, self.sigma, self.mean = X, y, sigma, mean
        # about ȳ: yᵀy, m Σy and n m² grow with the square of y's offset, and their difference
        # (the residual's square) would be lost to rounding for y far from 0
        centre = float(np.mean(y))
        self._stats = {
            "A": phi.T @ phi,
            "Phi_y": phi.T @ (y - centre),
            "Phi_1": phi.sum(axis=0),
            "sum_y": float(np.sum(y - centre)),
            "yy": float(np.sum(np.square(y - centre))),
            "n": float(len(y)),
            "centre": centre,
        }
        self._sqrt_psd = sqrt_psd
        return pm.Potential(name, self._logp(sqrt_psd, sigma, mean))

    def _posterior_pieces(self, sqrt_psd, sigma, mean):
        st = self._stats
        mean = mean - st["centre"]  # the statistics are of y − ȳ
        s2 = pt.square(pt.as_tensor_variable(sigma))
        D = pt.as_tensor_variable(sqrt_psd)
        B = pt.eye(D.shape[0]) + D[:, None] * st["A"] * D[None, :] / s2
        L = pt.linalg.cholesky(B)
        u = D * (st["Phi_y"] - mean * st["Phi_1"])
        v = pt.linalg.solve_triangular(L, u, lower=True)
        return s2, L, u, v

    def _logp(self, sqrt_psd, sigma, mean) -> TensorVariable:
        st = self._stats
        s2, L, _, v = self._posterior_pieces(sqrt_psd, sigma, mean)
        mean = mean - st["centre"]
        rr = st["yy"] - 2.0 * mean * st["sum_y"] + st["n"] * pt.square(mean)
        logdet_B = 2.0 * log_det_cholesky(L)
        quad = rr / s2 - pt.sum(pt.square(v)) / pt.square(s2)
        return -0.5 * (quad + logdet_B + st["n"] * pt.log(s2) + st["n"] * np.log(2 * np.pi))

    def predict_moments(
        self, Xnew: npt.ArrayLike | pt.TensorLike, diag: bool = True
    ) -> tuple[TensorVariable, TensorVariable]:
        """Symbolic predictive mean and variance of f at ``Xnew`` (functions of the RVs).

        Parameters
        ----------
        Xnew : array-like or tensor, shape (m, d)
        diag : bool, default True
            The variances (m,), or the full covariance (m, m).

        Returns
        -------
        mean : TensorVariable, shape (m,)
        var : TensorVariable, shape (m,) or (m, m)
        """
        s2, L, _, v = self._posterior_pieces(self._sqrt_psd, self.sigma, self.mean)
        value = as_numeric(Xnew)
        phi_new, _ = self.prior_linearized(Xnew if value is None else value.astype(float))
        G = pt.as_tensor_variable(phi_new) * self._sqrt_psd[None, :]
        w = pt.linalg.solve_triangular(L.T, v, lower=False) / s2  # B⁻¹ u / σ²
        mean = self.mean + G @ w
        H = pt.linalg.solve_triangular(L, G.T, lower=True)
        return mean, pt.sum(pt.square(H), axis=0) if diag else H.T @ H
