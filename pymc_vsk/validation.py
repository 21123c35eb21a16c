"""Input checks shared by the covariances, models and command-line tools.

Every check raises an error that names the problem and the fix. Checks run on numeric
inputs (numpy arrays, pytensor constants, shared variables such as ``pm.Data``); a purely
symbolic input is only checked for its rank.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytensor
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph import Variable
from pytensor.graph.basic import Constant

from pymc_vsk.arrays import as_float_array, check_finite

__all__ = [
    "PSI_ON_TENSORS",
    "as_numeric",
    "check_inputs",
    "check_jitter",
    "not_positive_definite",
    "require_float64",
]

#: How to write ψ so that it works on the symbolic inputs of a model.
PSI_ON_TENSORS = (
    "ψ is evaluated on pytensor tensors inside a model, so it must be written with "
    "pytensor.tensor (pt.switch, pt.where, pt.exp, pt.tanh, comparison operators ...) instead of "
    "numpy functions or Python if/else, or use a pymc_vsk.scaling class (Jump, SmoothJump, "
    "Region, ...) or FromFunction of a function of tensors."
)


def not_positive_definite(what: str, certain: bool = True) -> str:
    """The message for a covariance that failed (or may have failed) its Cholesky factorisation.

    Parameters
    ----------
    what : str
        What failed, e.g. ``"The training covariance"``.
    certain : bool, default True
        Whether the failure was seen (else the message says it is the likely one).

    Returns
    -------
    str
        The problem, its likely causes and the remedies.
    """
    problem = (
        "is not positive definite (its Cholesky factorisation failed)"
        if certain
        else "is probably not positive definite (its Cholesky factorisation fails)"
    )
    return (
        f"{what} {problem}. Likely causes: "
        "duplicate or near-duplicate nodes in X, a length scale far beyond the span of X, or "
        "too little noise (σ_n ≈ 0 with little or no jitter). Remedies: average duplicate "
        "nodes, let σ_n be positive or raise the jitter (e.g. jitter=1e-6), and keep ℓ within "
        "the data's span (the default priors do)."
    )


def as_numeric(value: npt.ArrayLike | Variable) -> np.ndarray | None:
    """Numeric value of ``value`` if it has one now (array, constant, shared), else ``None``.

    Parameters
    ----------
    value : array-like or Variable

    Returns
    -------
    ndarray or None
    """
    if isinstance(value, Constant):
        return np.asarray(value.data)
    if isinstance(value, SharedVariable):
        return np.asarray(value.get_value())
    if isinstance(value, Variable):
        return None
    return np.asarray(value)


def check_jitter(jitter: object, default: str) -> float:
    """``jitter`` as a float, refused unless finite and at least 0.

    Parameters
    ----------
    jitter : number
        The nugget added to a covariance's diagonal.
    default : str
        What leaving it out gives, for the message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``jitter`` is not one finite number of at least 0 (text or a bool included).
    """
    try:
        if isinstance(jitter, bool | np.bool_):  # True would be a nugget of 1
            raise TypeError
        value = float(as_float_array(jitter, "jitter").item())
    except (TypeError, ValueError):
        raise ValueError(
            f"jitter must be one number (it is added to the diagonal of the covariance); got "
            f"{jitter!r}. Leave it out for {default}."
        ) from None
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(
            f"jitter must be a finite number of at least 0 (it is added to the diagonal of the "
            f"covariance); got {value:g}. Leave it out for {default}."
        )
    return value


def check_inputs(
    X: npt.ArrayLike | Variable, width: int, name: str = "X", owner: str = "this covariance"
) -> None:
    """Check that ``X`` is a finite 2-D array with ``width`` columns.

    Parameters
    ----------
    X : array-like or tensor
        Inputs; symbolic tensors are only checked for rank.
    width : int
        Expected number of columns (the covariance's ``input_dim``).
    name : str
        How to call ``X`` in messages.
    owner : str
        How to call the object that needs ``X`` in messages.
    """
    ndim = X.ndim if isinstance(X, Variable) else np.ndim(X)
    if ndim != 2:
        shape = getattr(as_numeric(X), "shape", f"{ndim}-D")
        raise ValueError(
            f"{name} must be a 2-D array of shape (n, d); got shape {shape}. "
            f"For 1-D inputs pass {name}[:, None] (a column)."
        )
    value = as_numeric(X)
    if value is None:
        return
    if value.shape[0] == 0:
        need = "at least one input row"
        if name in ("X", "x"):  # training inputs
            need += " (a GP fit needs data: at least three distinct nodes for the default priors)"
        raise ValueError(f"{name} has no rows (shape {value.shape}); pass {need}.")
    if value.shape[1] != width:
        raise ValueError(
            f"{name} has {value.shape[1]} column(s) but {owner} takes input_dim={width}. "
            "Pass X with that many columns, or build the covariance with input_dim equal to the "
            "number of columns and active_dims naming the ones it acts on."
        )
    if not np.issubdtype(value.dtype, np.number):
        as_float_array(value, name)  # dates and durations get their own message
        raise TypeError(f"{name} must be numeric; got dtype {value.dtype}.")
    check_finite(value, name, "remove or impute those rows before building the GP.")


def require_float64(owner: str, model: object | None = None) -> None:
    """Refuse to build or fit a model unless pytensor computes in float64.

    The likelihoods of eq. (15) factorise n × n covariances whose condition numbers grow with
    n and with smooth kernels far beyond what float32's 7 digits can resolve, and the MAP
    starts and data containers are float64.

    Parameters
    ----------
    owner : str
        The function asking, for the message.
    model : pm.Model, optional
        A model whose free variables must be float64 too (a model built under float32).

    Raises
    ------
    RuntimeError
        If ``pytensor.config.floatX`` is not ``"float64"``, or a free variable of ``model``
        is not float64.
    """
    dtypes = {v.type.dtype for v in getattr(model, "value_vars", [])} - {"float64"}
    if pytensor.config.floatX != "float64" or dtypes:
        found = sorted(dtypes) if dtypes else [pytensor.config.floatX]
        raise RuntimeError(
            f"{owner} needs float64, but pytensor.config.floatX is "
            f"{pytensor.config.floatX!r} (free variables in {', '.join(found)}): GP covariance "
            "matrices are too ill-conditioned for single precision. Set "
            'pytensor.config.floatX = "float64" (or the environment variable '
            "PYTENSOR_FLAGS=floatX=float64) before building the model."
        )
