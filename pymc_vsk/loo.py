r"""Leave-one-out predictive densities of GP models, for arviz's LOO model comparison.

A marginal GP likelihood y ~ N(m, C) does not factorise over observations, so the pointwise
log-likelihood arviz needs is the *conditional* leave-one-out density (Bürkner, Gabry and
Vehtari 2021, "Efficient leave-one-out cross-validation for Bayesian non-factorized normal and
Student-t models"; Rasmussen and Williams 2006, eq. 5.12). With P = C⁻¹ and r = y − m,

.. math::

    \log p(y_i \mid y_{-i}, \theta) = -\tfrac12 \log\frac{2\pi}{P_{ii}}
        - \frac{(P r)_i^2}{2 P_{ii}}.

For the location-marginalised jump model (:class:`pymc_vsk.jumps.MarginalJumpGP`) the density
is a mixture over gaps g with weights w_g p(y_{-i} | g): with ℓ_{ig} the per-gap LOO density
above and L_g = log w_g + log p(y | g),

.. math::

    \log p(y_i \mid y_{-i}, \theta) = \operatorname{logsumexp}_g L_g
        - \operatorname{logsumexp}_g (L_g - \ell_{ig}).

:func:`add_log_likelihood` evaluates these per posterior draw and stores them as the
``log_likelihood`` group, after which ``az.loo`` and ``az.compare`` work as usual (PSIS over
the draws).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pymc as pm
import pytensor
import pytensor.tensor as pt
import scipy.linalg
import scipy.special
import scipy.stats
import xarray as xr

from pymc_vsk.blas import blas_threads
from pymc_vsk.caching import cached
from pymc_vsk.draws import check_draw_shape, posterior
from pymc_vsk.likelihood import check_data_lengths
from pymc_vsk.prediction import fitted_jitter, model_of
from pymc_vsk.validation import as_numeric, not_positive_definite

if TYPE_CHECKING:
    from pymc_vsk.jumps import MarginalJumpGP

__all__ = ["add_log_likelihood", "gaussian_loo"]


def gaussian_loo(C: npt.ArrayLike, r: npt.ArrayLike) -> np.ndarray:
    """log p(y_i | y_{-i}) for r = y − m ~ N(0, C) (the module docstring's formula).

    Parameters
    ----------
    C : array-like, shape (n, n) or (M, n, n)
        Covariance(s) of the data.
    r : array-like, shape (n,)
        Residual y − m.

    Returns
    -------
    ndarray, shape (n,) or (M, n)
    """
    C = np.asarray(C, dtype=float)
    r = np.asarray(r, dtype=float)
    if C.ndim == 3:
        return np.stack([gaussian_loo(c, r) for c in C])
    chol = scipy.linalg.cho_factor(C, lower=True)
    P = scipy.linalg.cho_solve(chol, np.eye(len(C)))
    d = np.diag(P)
    Pr = P @ r
    return -0.5 * np.log(2 * np.pi / d) - 0.5 * Pr**2 / d


def _pieces(gp: pm.gp.Marginal | MarginalJumpGP, model: pm.Model, jitter: float | None):
    """:func:`_compile_pieces`, compiled once per GP, model and jitter (as ``predict``)."""
    from pymc_vsk.jumps import MarginalJumpGP

    if isinstance(gp, pm.gp.MarginalApprox):
        raise TypeError(
            "add_log_likelihood computes the exact leave-one-out densities of a dense "
            "pm.gp.Marginal; a sparse pm.gp.MarginalApprox (VFE, FITC, DTC) has no such "
            "closed form here: compare models on a dense pm.gp.Marginal (or build_model) of "
            "the same data, or of a subset of it."
        )
    if not isinstance(gp, MarginalJumpGP | pm.gp.Marginal):
        raise TypeError(
            f"add_log_likelihood takes a pm.gp.Marginal or a MarginalJumpGP; got {type(gp)}."
        )
    key = (model, "fitted" if jitter is None else float(jitter))  # the model itself: ids recur
    jitter = fitted_jitter(gp, jitter)
    return cached(gp, "loo", key, lambda: _compile_pieces(gp, model, jitter))


def _compile_pieces(gp: pm.gp.Marginal | MarginalJumpGP, model: pm.Model, jitter: float):
    """Compiled θ -> (covariance(s), residual[, log gap weights]) for a GP of the model."""
    from pymc_vsk.jumps import MarginalJumpGP

    if isinstance(gp, MarginalJumpGP):
        X = pt.as_tensor_variable(gp.X)
        C = gp._gap_moments(X) + gp._noise(X.shape[0])[None]
        r = pt.as_tensor_variable(gp.y) - gp.mean_func(X)
        outputs = [C, r, pt.as_tensor_variable(gp.gaps.log_weights)]
    else:  # a pm.gp.Marginal (checked by _pieces)
        if not hasattr(gp, "X"):
            raise ValueError("The GP has no data: call gp.marginal_likelihood(...) first.")
        C = gp.cov_func(gp.X) + gp.sigma(gp.X) + jitter * pt.eye(gp.X.shape[0])
        r = pt.as_tensor_variable(gp.y) - gp.mean_func(gp.X)
        outputs = [C, r]
    ancestors = set(pytensor.graph.ancestors(outputs))
    inputs = [v for v in model.free_RVs + model.deterministics if v in ancestors]
    fn = pytensor.function(inputs, outputs, on_unused_input="ignore")
    return fn, [v.name for v in inputs]


def add_log_likelihood(
    idata: xr.DataTree,
    gp: pm.gp.Marginal | MarginalJumpGP,
    model: pm.Model | None = None,
    var_name: str | None = None,
    jitter: float | None = None,
) -> xr.DataTree:
    """Add the pointwise LOO log-likelihood of ``gp``'s data to ``idata`` (in place) and return it.

    Parameters
    ----------
    idata : DataTree
        Posterior from ``pm.sample``.
    gp : pm.gp.Marginal or MarginalJumpGP
        The GP whose ``marginal_likelihood`` defines the data model.
    model : pm.Model, optional
        The model of the GP (default: the model the GP recorded, else the model in context).
    var_name : str, optional
        Name of the variable in the ``log_likelihood`` group. Default: the GP's observed
        variable (the one recorded by the GP, else the one whose data are the GP's ``y``;
        ``"y"`` in a model without observed variables), whose dims and coords the values
        take.
    jitter : float, optional
        Diagonal jitter of a ``pm.gp.Marginal``'s likelihood; default the one it was built
        with (``gp.jitter``), else PyMC's 1e-6; a value given is relative to sd(y)² for
        :func:`pymc_vsk.build_model`'s standardised model, as there
        (:func:`pymc_vsk.prediction.fitted_jitter`).

    Returns
    -------
    DataTree
        ``idata`` with ``var_name`` of shape (chain, draw, n) in its ``log_likelihood`` group
        (other variables of the group are kept); pass it to ``az.loo`` or ``az.compare``.
    """
    model = model_of(gp, model)
    fn, names = _pieces(gp, model, jitter)
    check_data_lengths(gp)
    post = posterior(idata)
    _check_sampled_data(idata, gp, _observed_name(gp, model))
    n_chain, n_draw = post.sizes["chain"], post.sizes["draw"]
    missing = [n for n in names if n not in post]
    if missing:
        raise ValueError(
            f"The posterior has no draws of {missing}, which the GP's likelihood needs: "
            "sample every free variable (pm.sample without var_names), or pass the draws of "
            "this GP's model."
        )
    values = {n: np.asarray(post[n].values) for n in names}
    for name in (n for n in names if n in model.named_vars):  # draws of another model
        check_draw_shape(model[name], values[name].shape[2:])
    out = None
    with blas_threads(1):
        for c in range(n_chain):
            for d in range(n_draw):
                pieces = fn(*(values[n][c, d] for n in names))
                what = f"The covariance of the data at draw {d} of chain {c}"
                try:
                    with np.errstate(invalid="ignore", divide="ignore"):
                        ll = _pointwise(*pieces)
                except (np.linalg.LinAlgError, ValueError) as err:
                    raise ValueError(not_positive_definite(what)) from err
                if not np.all(np.isfinite(ll)):
                    raise ValueError(not_positive_definite(what))
                if out is None:
                    out = np.empty((n_chain, n_draw, len(ll)))
                out[c, d] = ll
    observed = _observed_name(gp, model)
    if var_name is None and observed is None and len(model.observed_RVs) > 1:
        raise ValueError(
            "The model has several observed variables "
            f"{[rv.name for rv in model.observed_RVs]} and this GP's cannot be told: pass "
            "var_name (the name of the GP's observed variable)."
        )
    var_name = var_name or observed or "y"
    dim, coords = f"{var_name}_dim_0", {"chain": post["chain"].values, "draw": post["draw"].values}
    dims = model.named_vars_to_dims.get(observed) if observed else None
    if dims and len(dims) == 1:  # the observed variable's own dim, as pm.sample names it
        dim = dims[0]
        if model.coords.get(dim) is not None and len(model.coords[dim]) == out.shape[-1]:
            coords[dim] = np.asarray(model.coords[dim])
    dataset = xr.Dataset({var_name: (("chain", "draw", dim), out)}, coords=coords)
    if "log_likelihood" in idata.children:  # the group's other variables stay
        kept = idata["log_likelihood"].to_dataset().drop_vars(var_name, errors="ignore")
        dataset = kept.assign({var_name: dataset[var_name]})
    idata["log_likelihood"] = xr.DataTree(dataset)
    return idata


def _check_sampled_data(idata: xr.DataTree, gp: object, observed: str | None) -> None:
    """Refuse draws whose recorded data (``observed_data``, ``constant_data``) are not the
    GP's data now: leave-one-out densities of other data than the posterior's mean nothing."""
    children = getattr(idata, "children", {})
    pairs = []
    if observed is not None and "observed_data" in children:
        pairs.append(("observed_data", observed, "y", getattr(gp, "y", None)))
    X = getattr(gp, "X", None)
    if isinstance(getattr(X, "name", None), str) and "constant_data" in children:
        pairs.append(("constant_data", X.name, "X", X))
    for group, name, what, current in pairs:
        recorded = idata[group].dataset.get(name)
        now = None if current is None else as_numeric(current)
        if recorded is None or now is None:
            continue
        recorded = np.asarray(recorded.values, dtype=float)
        if recorded.shape == now.shape and np.array_equal(recorded, now):
            continue
        raise ValueError(
            f"The model's data are not those the draws were sampled on: its {what} "
            f"({now.shape[0] if now.ndim else 1} values) differs from the draws' "
            f"{group} {name!r} ({recorded.shape[0] if recorded.ndim else 1} values). The data "
            "were changed after sampling (pymc_vsk.set_data, or another VSKRegressor fitted "
            "with the same settings, which shares the model). Leave-one-out densities are of "
            "the data the posterior was fitted to: put them back with "
            "pymc_vsk.set_data(model, X, y) first."
        )


def _observed_name(gp: object, model: pm.Model) -> str | None:
    """The name of the GP's observed variable: recorded by the GP, else the observed variable
    whose data are the GP's ``y``, else the model's only one."""
    name = getattr(gp, "name", None)
    if isinstance(name, str) and name in model.named_vars:
        return name
    observed = model.observed_RVs
    if len(observed) == 1:
        return observed[0].name
    data = getattr(gp, "y", None)
    matches = [rv.name for rv in observed if model.rvs_to_values[rv] is data]
    if not matches:  # an array, made a constant of the model: compared by value
        y = None if data is None else as_numeric(data)
        matches = [rv.name for rv in observed if _same(as_numeric(model.rvs_to_values[rv]), y)]
    return matches[0] if len(matches) == 1 else None


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None or a.shape != b.shape:
        return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f"))


def _pointwise(C: np.ndarray, r: np.ndarray, log_w: np.ndarray | None = None) -> np.ndarray:
    if log_w is None:
        return gaussian_loo(C, r)
    loo = gaussian_loo(C, r)  # (M, n)
    log_joint = log_w + np.array([scipy.stats.multivariate_normal(cov=c).logpdf(r) for c in C])
    return scipy.special.logsumexp(log_joint) - scipy.special.logsumexp(
        log_joint[:, None] - loo, axis=0
    )
