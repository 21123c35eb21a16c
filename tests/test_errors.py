"""Bad input gets a clear error that names the problem and the fix."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest

from pymc_vsk import VSK, LinearVSK, scaling


def vsk(**kwargs):
    return VSK(pm.gp.cov.Matern32(2, ls=0.3), scaling.Jump(0.5), **kwargs)


X = np.linspace(0, 1, 8)[:, None]


@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "infinite")])
def test_nan_or_inf_in_X(bad, word):
    Xbad = X.copy()
    Xbad[3, 0] = bad
    with pytest.raises(
        ValueError, match=rf"X contains 1 {word} value\(s\) \(first in row 3\).*impute"
    ):
        vsk()(Xbad)
    with pytest.raises(ValueError, match=r"Xs contains"):
        vsk()(X, Xbad)


def test_X_of_the_wrong_rank():
    with pytest.raises(
        ValueError, match=r"2-D array of shape \(n, d\); got shape \(8,\).*X\[:, None\]"
    ):
        vsk()(X[:, 0])
    with pytest.raises(ValueError, match=r"2-D array"):
        vsk().diag(pt.vector("x"))


def test_X_of_the_wrong_width():
    with pytest.raises(ValueError, match=r"X has 2 column\(s\) but .* input_dim=1.*active_dims"):
        vsk()(np.c_[X, X])


def test_psi_returning_the_wrong_length():
    cov = VSK(pm.gp.cov.ExpQuad(2, ls=0.3), lambda X: X[:-1, 0])
    with pytest.raises(ValueError, match=r"returned shape \(7,\) .* expected \(8,\) or \(8, 1\)"):
        cov(X)


def test_psi_returning_the_wrong_width():
    cov = VSK(pm.gp.cov.ExpQuad(3, ls=0.3), lambda X: pt.concatenate([X, X, X], axis=1), q=2)
    with pytest.raises(ValueError, match=r"returned shape \(8, 3\) .* expected \(8, 2\).*q="):
        cov(X)


def test_psi_returning_non_finite_values():
    cov = VSK(pm.gp.cov.ExpQuad(2, ls=0.3), lambda X: pt.log(X[:, 0]))
    with pytest.raises(
        ValueError, match=r"ψ\(X\) contains 1 infinite value\(s\) \(first in row 0\).*finite"
    ):
        cov(X)


def test_base_kernel_of_the_wrong_input_dim():
    with pytest.raises(ValueError, match=r"input_dim=1 leaves d=0 columns.*input_dim=2"):
        VSK(pm.gp.cov.ExpQuad(1, ls=0.3), scaling.Jump(0.5))
    with pytest.raises(ValueError, match=r"input_dim=2 but the base kernel's input_dim=2"):
        VSK(pm.gp.cov.ExpQuad(2, ls=0.3), scaling.Jump(0.5), input_dim=2)


def test_length_scales_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"3 length scales but acts on 2 lifted coordinates"):
        VSK(pm.gp.cov.ExpQuad(2, ls=[0.1, 0.2, 0.3]), scaling.Jump(0.5))


@pytest.mark.parametrize(
    "base, match",
    [
        (pm.gp.cov.Linear(2, c=0.0), r"not stationary.*LinearVSK"),
        (pm.gp.cov.Cosine(2, ls=0.3), r"Cosine is not positive definite"),
        (pm.gp.cov.Periodic(2, period=1.0, ls=0.3), r"computes its own distance"),
    ],
)
def test_non_stationary_or_non_radial_base_kernel(base, match):
    with pytest.raises(TypeError, match=match):
        VSK(base, scaling.Jump(0.5))


def test_active_dims_inconsistent_with_the_kernel():
    with pytest.raises(ValueError, match=r"names 2 column\(s\) but ψ and the kernel act on d=1"):
        vsk(input_dim=3, active_dims=[0, 1])
    with pytest.raises(ValueError, match=r"refers to a column >= input_dim=2"):
        vsk(input_dim=2, active_dims=[2])


def test_psi_that_is_not_callable():
    with pytest.raises(TypeError, match=r"psi must be a callable"):
        VSK(pm.gp.cov.ExpQuad(2, ls=0.3), 0.5)
    with pytest.raises(ValueError, match=r"q=2 was given but"):
        VSK(pm.gp.cov.ExpQuad(3, ls=0.3), scaling.Jump(0.5), q=2)


def test_linear_vsk_checks_inputs_too():
    with pytest.raises(ValueError, match=r"NaN"):
        LinearVSK(1, scaling.Jump(0.5))(np.array([[np.nan]]))
