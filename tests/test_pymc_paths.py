"""The package's covariances and approximations used as ordinary PyMC objects.

Each test takes a path a PyMC user takes with ``pm.gp.cov.Matern52`` (another floating-point
type, operators, GP classes, data containers) and compares with an independent reference.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest

from pymc_vsk import VSK, scaling
from tests import reference as ref
from tests.conftest import inputs

SQRT_KERNELS = ["Matern12", "Matern32", "Matern52", "Exponential"]


def _sum_and_gradient_in_ls(kernel: str, X: np.ndarray, ls: float, dtype: str):
    """K.sum() of a VSK with a Jump at 0.5 and its derivative in ℓ, compiled in ``dtype``."""
    with pytensor.config.change_flags(floatX=dtype):
        ell = pt.scalar("ls", dtype=dtype)
        cov = VSK(getattr(pm.gp.cov, kernel)(2, ls=ell), scaling.Jump(0.5))
        total = cov(pt.as_tensor_variable(X.astype(dtype))).sum()
        fn = pytensor.function([ell], [total, pytensor.grad(total, ell)])
        return [float(v) for v in fn(np.asarray(ls, dtype=dtype))]


@pytest.mark.parametrize("kernel", SQRT_KERNELS)
def test_float32_gradient_in_the_length_scale_is_finite_and_right(kernel):
    """Under floatX=float32 the gradient of every Matérn or Exponential VSK in ℓ was NaN: the
    10⁻³⁰⁰ added under the square root is 0 in float32, and sqrt's infinite derivative at the
    diagonal times a zero derivative of the distance gave NaN (NUTS could not move)."""
    X = inputs(1, 8, seed=21)
    ls, h = 0.3, 1e-6
    Z = ref.lift(X, ref.psi_jump(X))
    phi = ref.RADIAL[kernel]
    total = ref.loop_kernel(phi, Z, Z, ls).sum()
    slope = ref.loop_kernel(phi, Z, Z, ls + h).sum() - ref.loop_kernel(phi, Z, Z, ls - h).sum()
    slope /= 2 * h
    value, gradient = _sum_and_gradient_in_ls(kernel, X, ls, "float32")
    np.testing.assert_allclose(value, total, rtol=1e-5)
    np.testing.assert_allclose(gradient, slope, rtol=1e-4)
    assert _sum_and_gradient_in_ls(kernel, X, ls, "float64") == pytest.approx([total, slope])


def _jump_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 1, n))[:, None]
    return X, np.where(X[:, 0] >= 0.4, 1.0, 0.0) + 0.1 * rng.normal(size=n)


def test_lifted_hsgp_follows_a_jump_location_set_with_set_data():
    """A jump location in a data container (pm.Data) moved a dense VSK with pm.set_data, but
    the Hilbert-space basis kept ψ at the location it was built with, without a word."""
    from pymc_vsk.hsgp import LiftedHSGP

    X, _ = _jump_data()
    ls = [0.2, 0.6]
    with pm.Model():
        t = pm.Data("t", 0.5)
        hs = LiftedHSGP([40, 12], scaling.Jump(t), cov_func=pm.gp.cov.ExpQuad(2, ls=ls), L=[1, 2.5])
        phi, sqrt_psd = hs.prior_linearized(X)
        K = (phi * sqrt_psd**2) @ phi.T
        for location in (0.5, 0.3):
            pm.set_data({"t": location})
            Z = ref.lift(X, ref.psi_jump(X, loc=location))
            expected = ref.loop_kernel(ref.RADIAL["ExpQuad"], Z, Z, ls)
            np.testing.assert_allclose(K.eval(), expected, atol=1e-3)


def test_collapsed_hsgp_follows_a_jump_location_set_with_set_data():
    """The same for the collapsed likelihood: its basis statistics were computed once, at the
    location the model was built with."""
    import scipy.stats

    from pymc_vsk.hsgp import CollapsedLiftedHSGP

    X, y = _jump_data()
    ls, sigma = [0.2, 0.6], 0.1
    with pm.Model() as model:
        t = pm.Data("t", 0.5)
        kernel = pm.gp.cov.ExpQuad(2, ls=ls)
        hs = CollapsedLiftedHSGP([40, 12], scaling.Jump(t), cov_func=kernel, L=[1, 2.5])
        hs.marginal_likelihood("y", X, y, sigma=sigma)
        logp = model.compile_logp()
        for location in (0.5, 0.4):
            pm.set_data({"t": location})
            Z = ref.lift(X, ref.psi_jump(X, loc=location))
            C = ref.loop_kernel(ref.RADIAL["ExpQuad"], Z, Z, ls) + sigma**2 * np.eye(len(X))
            expected = scipy.stats.multivariate_normal(np.zeros(len(X)), C).logpdf(y)
            np.testing.assert_allclose(logp({}), expected, rtol=1e-3)


@pytest.mark.parametrize("mean", ["linear", "own"])
def test_lifted_hsgp_conditional_takes_the_mean_of_x_not_of_the_lifted_inputs(mean):
    """conditional() gave the mean function the lifted inputs [x, ψ(x)]: a pm.gp.mean.Linear
    failed deep inside pytensor ("Incompatible shared dimension for dot product") and a mean
    reading X's last column read ψ instead, while prior() gave it x."""
    from pymc_vsk.hsgp import LiftedHSGP

    X = np.linspace(0, 1, 30)[:, None]
    Xnew = np.linspace(0.05, 0.95, 7)[:, None]

    class LastColumn(pm.gp.mean.Mean):
        def __call__(self, X):
            return 2.0 + 5.0 * X[:, -1]

    mean_func = pm.gp.mean.Linear(coeffs=np.array([3.0]), intercept=2.0)
    if mean == "own":
        mean_func = LastColumn()
    draws = {}
    for name, func in (("mean", mean_func), ("zero", pm.gp.mean.Zero())):
        with pm.Model():
            kernel = pm.gp.cov.Matern52(2, ls=[0.2, 0.5])
            hs = LiftedHSGP([20, 5], scaling.Jump(0.5), cov_func=kernel, c=1.5, mean_func=func)
            f = hs.prior("f", X=X)
            draws[name] = pm.draw(
                [f, hs.conditional("f_new", Xnew), hs.conditional("f_X", X)], random_seed=1
            )
    slope = 3.0 if mean == "linear" else 5.0
    f, f_new, _ = (a - b for a, b in zip(draws["mean"], draws["zero"], strict=True))
    np.testing.assert_allclose(f, 2.0 + slope * X[:, 0], rtol=1e-12)
    np.testing.assert_allclose(f_new, 2.0 + slope * Xnew[:, 0], rtol=1e-12)
    np.testing.assert_allclose(draws["mean"][2], draws["mean"][0], rtol=1e-12)
