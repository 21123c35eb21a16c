"""With flat priors the MAP fit is the MLE and equals scikit-learn's on the lifted features.

scikit-learn's ``GaussianProcessRegressor`` knows nothing of VSKs: it is fitted on the lifted
features [x, ψ(x)] with the same base kernel, σ_f² · k + σ_n² noise, from the same starts as
``fit_map``, with the same diagonal jitter (1e-6) and tight optimiser tolerances. The constant
mean is handled equally by centring y and fitting zero-mean models on both sides.

The noise seeds (and the seed of the start jitter) go through :func:`tests.conftest.seed`.
Where the MLE puts σ_n at 0 (the N = 27 jump data at 5 of 10 seed offsets) the likelihood
sees σ_n² + 1e-6 and hardly changes while σ_n is below the jitter's std 1e-3: the optimisers
stopped anywhere in 1e-6 – 3e-4, up to 9 times apart. σ_n is therefore compared with an
absolute tolerance of 1e-3 besides the relative one; the log likelihoods must still agree to
1e-6.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, Matern, WhiteKernel
from sklearn.gaussian_process.kernels import ConstantKernel as C

from pymc_vsk import build_model, fit_map, scaling, targets
from tests.conftest import seed

#: Diagonal jitter of build_model's covariance, and of the scikit-learn fits (``alpha``).
JITTER = 1e-6

SKLEARN_BASE = {
    "matern52": lambda ls: Matern(ls, (1e-6, 1e6), nu=2.5),
    "matern32": lambda ls: Matern(ls, (1e-6, 1e6), nu=1.5),
    "expquad": lambda ls: RBF(ls, (1e-6, 1e6)),
}


def _tight_lbfgs(obj_func, initial_theta, bounds):
    res = scipy.optimize.minimize(
        obj_func,
        initial_theta,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"gtol": 1e-10, "ftol": 1e-12, "maxiter": 5000},
    )
    return res.x, res.fun


def sklearn_mle(Z, y, kernel, starts):
    """Best scikit-learn fit over the given starts (constrained ls, sigma_f, sigma_n)."""
    best = None
    for s in starts:
        k = C(float(s["sigma_f"]) ** 2, (1e-8, 1e8)) * SKLEARN_BASE[kernel](float(s["ls"]))
        k = k + WhiteKernel(float(s["sigma_n"]) ** 2, (1e-12, 1e6))
        gpr = GaussianProcessRegressor(k, alpha=JITTER, optimizer=_tight_lbfgs).fit(Z, y)
        if best is None or gpr.log_marginal_likelihood_value_ > best.log_marginal_likelihood_value_:
            best = gpr
    p = best.kernel_.get_params()
    params = {
        "ls": p["k1__k2__length_scale"],
        "sigma_f": np.sqrt(p["k1__k1__constant_value"]),
        "sigma_n": np.sqrt(p["k2__noise_level"]),
    }
    return params, best.log_marginal_likelihood_value_


def _jump(n, seed):
    X = targets.halton_nodes(n)
    return X, targets.jump(X) + 0.25 * np.random.default_rng(seed).normal(size=n)


def _corner(n, seed):
    X = targets.uniform_nodes(n)
    return X, targets.corner(X) + 0.05 * np.random.default_rng(seed).normal(size=n)


def _disk_2d(n, seed):
    X = targets.halton_nodes(n, d=2)
    inside = np.hypot(X[:, 0] - 0.5, X[:, 1] - 0.5) <= 0.3
    f = np.sin(3 * X[:, 0]) * np.cos(2 * X[:, 1]) + 2.0 * inside
    return X, f + 0.1 * np.random.default_rng(seed).normal(size=n)


CASES = {
    "jump_N27": (lambda: _jump(27, seed(1)), lambda: scaling.Jump(0.5), "matern52"),
    "jump_N81": (lambda: _jump(81, seed(1)), lambda: scaling.Jump(0.5), "matern52"),
    "corner_N31": (lambda: _corner(31, seed(2)), lambda: scaling.Corner(), "matern32"),
    "disk_2d_N60": (
        lambda: _disk_2d(60, seed(3)),
        lambda: scaling.Disk([0.5, 0.5], 0.3),
        "expquad",
    ),
    "stationary_jump_N81": (lambda: _jump(81, seed(4)), lambda: None, "matern52"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_flat_prior_map_equals_sklearn_mle_on_lifted_features(case):
    make_data, make_psi, kernel = CASES[case]
    X, y = make_data()
    y = y - y.mean()
    psi = make_psi()
    model, _ = build_model(
        X, y, psi=psi, kernel=kernel, priors="flat", mean="zero", standardize=False
    )
    ours = fit_map(model, n_starts=6, seed=seed(0), warn=False)
    Z = X if psi is None else np.c_[X, psi(X)]
    theirs, lml = sklearn_mle(Z, y, kernel, ours.starts)
    for name in ("ls", "sigma_f"):
        np.testing.assert_allclose(ours.point[name], theirs[name], rtol=1e-3, err_msg=name)
    np.testing.assert_allclose(
        ours.point["sigma_n"], theirs["sigma_n"], rtol=1e-3, atol=np.sqrt(JITTER), err_msg="sigma_n"
    )
    np.testing.assert_allclose(ours.logp, lml, rtol=1e-6)
