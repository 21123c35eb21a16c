"""The radial base kernels a VSK can lift, discovered from PyMC's kernel classes.

A base kernel of a VSK is a ``pm.gp.cov.Stationary`` subclass that computes its matrix from
distances alone (it does not override ``full``, as ``Periodic`` does) and is positive definite
in every dimension (``Cosine`` is not). Every such class, PyMC's and any user subclass, is a
base kernel: a new one is one small class implementing ``full_from_distance``, and it is
found by name (its class name in lower case, e.g. ``"matern52"``) without editing a table.
"""

from __future__ import annotations

import difflib
import functools
import inspect

import pymc as pm
import pytensor.tensor as pt
from pytensor.graph import ancestors

__all__ = [
    "REQUIRED_ARGUMENT_DEFAULTS",
    "base_kernels",
    "is_radial",
    "kernel_class",
    "make_base_kernel",
    "needs_only_squared_distance",
]

Stationary = pm.gp.cov.Stationary

#: Kernels that are stationary but not positive definite in d + q >= 2 dimensions.
_NOT_POSITIVE_DEFINITE = (pm.gp.cov.Cosine,)

#: Values for constructor arguments without a default (e.g. RatQuad's ``alpha``), by name.
REQUIRED_ARGUMENT_DEFAULTS = {"alpha": 2.0}


def is_radial(cls: type) -> bool:
    """Whether ``cls`` is a radial base kernel: stationary, distance-based, positive definite.

    Parameters
    ----------
    cls : type
        Any class.

    Returns
    -------
    bool
        True for ExpQuad, the Matérn kernels, Exponential, RatQuad and radial subclasses.
    """
    return (
        isinstance(cls, type)
        and issubclass(cls, Stationary)
        and cls.full is Stationary.full
        and not issubclass(cls, _NOT_POSITIVE_DEFINITE)
    )


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def base_kernels() -> dict[str, type[Stationary]]:
    """Every radial base kernel class defined so far, by lower-case class name.

    Returns
    -------
    dict of str to type
        E.g. ``{"expquad": pm.gp.cov.ExpQuad, "matern52": pm.gp.cov.Matern52, ...}``.
    """
    found = {}
    for cls in _subclasses(Stationary):
        if is_radial(cls) and not cls.__name__.startswith("_"):
            found.setdefault(cls.__name__.lower(), cls)
    return found


def kernel_class(kernel: str | type[Stationary]) -> type[Stationary]:
    """The base kernel class named by ``kernel`` (case, ``_`` and ``-`` ignored), or the class.

    Parameters
    ----------
    kernel : str or Stationary subclass

    Returns
    -------
    type

    Raises
    ------
    ValueError
        An unknown name.
    TypeError
        Neither a name nor a ``pm.gp.cov.Stationary`` subclass.
    """
    if isinstance(kernel, str):
        key = kernel.lower().replace("_", "").replace("-", "")
        kernels = base_kernels()
        if key not in kernels:
            close = difflib.get_close_matches(key, kernels, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"Unknown kernel {kernel!r}{hint}; choose one of {sorted(kernels)}.")
        return kernels[key]
    if isinstance(kernel, type) and issubclass(kernel, Stationary):
        return kernel
    raise TypeError(
        "kernel must be a name, a pm.gp.cov.Stationary subclass or a covariance instance; "
        f"got {kernel!r}."
    )


def make_base_kernel(
    cls: type[Stationary], input_dim: int, ls: pt.TensorLike, **kwargs: object
) -> Stationary:
    """``cls(input_dim, ls=ls, **kwargs)``, filling required arguments not given.

    Constructor arguments without a default value (RatQuad's ``alpha``) take the value in
    :data:`REQUIRED_ARGUMENT_DEFAULTS` unless ``kwargs`` gives one.

    Parameters
    ----------
    cls : Stationary subclass
    input_dim : int
    ls : tensor-like
        Length scale(s).
    **kwargs
        Further constructor arguments.

    Returns
    -------
    pm.gp.cov.Stationary
    """
    for name, param in inspect.signature(cls.__init__).parameters.items():
        required = param.default is inspect.Parameter.empty and param.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        )
        if required and name not in ("self", "input_dim") and name not in kwargs:
            if name not in REQUIRED_ARGUMENT_DEFAULTS:
                raise TypeError(f"{cls.__name__} needs {name}=...; pass it as a keyword.")
            kwargs[name] = REQUIRED_ARGUMENT_DEFAULTS[name]
    return cls(input_dim, ls=ls, **kwargs)


@functools.cache
def needs_only_squared_distance(cls: type[Stationary]) -> bool:
    """Whether ``cls.full_from_distance(r2, squared=True)`` needs no square root of r².

    Found by building the kernel's graph on a symbolic r² and looking for a ``sqrt`` in it
    (ExpQuad and RatQuad need none; the Matérn family and Exponential do).

    Parameters
    ----------
    cls : Stationary subclass

    Returns
    -------
    bool
    """
    try:
        kernel = make_base_kernel(cls, 1, 1.0)
    except TypeError:
        return False
    r2 = pt.vector("r2")
    out = kernel.full_from_distance(r2, squared=True)
    return not any(
        v.owner is not None and "sqrt" in str(v.owner.op).lower() for v in ancestors([out])
    )
