r"""The NUTS sampler that finishes first: nutpie or PyMC's own, chosen by model and workload.

nutpie samples a GP model of this package two to three times faster than PyMC's sampler, but
it first compiles two C callbacks around the model's log density, and those are not kept on
disk: every new process pays for them again (about 5 s at N = 81 with the callbacks of
:mod:`pymc_vsk.nutpie_callbacks`, 7 to 8 s with nutpie's own). PyMC's sampler finds its
compiled log density in pytensor's on-disk cache and starts within a second or two, then pays
a Python-level overhead on every step. So nutpie wins long runs, large N and repeated runs of
one compiled model; PyMC's sampler wins short runs of small models. :func:`choose_sampler`
predicts both wall times from the workload and picks the smaller.

The prediction (seconds, on 2 cores; only the ratios between the terms matter for the
choice) is

.. math::

    t_\text{nutpie} = c\,[\text{not compiled}] + R\,I\,s(n), \qquad
    t_\text{PyMC} = R\,\big(a + I\,(\rho\,s(n) + o)\big), \qquad
    s(n) = s_{81}\,(n / 81)^{2.3},

with I the iterations (tune + draws) each core runs, R the sampling runs that share one
compilation, n the number of observations (the size of the covariance matrix) and s(n)
nutpie's seconds per iteration. The constants are fitted to the VSK models of
:func:`pymc_vsk.build_model` at N = 81 and N = 200 (jump data of Section 4.1, default priors),
one fresh process per run with warm on-disk caches, 2 cores, as ``benchmarks/run.py --only
sampler`` measures them (medians of three rounds; nutpie's compilation, by
:func:`compiled_nutpie`, includes importing it):

========================  ==============  =======================  ==============
N, chains × (tune+draws)  nutpie compile  nutpie compile + sample  PyMC's sampler
========================  ==============  =======================  ==============
81, 4 × (1000 + 1000)     5.5 s           9.2 s                    10.1 s
81, 2 × (300 + 300)       5.2 s           5.9 s                    3.6 s
200, 2 × (300 + 300)      6.1 s           11.0 s                   12.8 s
========================  ==============  =======================  ==============

nutpie samples an iteration in s₈₁ = 1.0 ms at N = 81 (0.9 ms in long runs, 1.2 ms in short
ones, where tuning weighs more) and 8.2 ms at N = 200: about n^2.3. PyMC's sampler takes
ρ = 1.9 times as long plus o = 0.46 ms of Python per iteration, and a = 1.7 s to start its
chains; nutpie's compilation costs c = 5.4 s (the median of the nine runs above). At N = 81
and 4 × (1000 + 1000) nutpie is predicted to finish first (9.4 s against 11.1 s); fewer
draws or chains favour PyMC's sampler, more data, more draws or more runs of one compiled
model favour nutpie, and a compiled nutpie model kept in the process (:func:`compiled_nutpie`)
always wins.

Other ways to a cheaper nutpie compilation were tried at N = 81 and 4 × (1000 + 1000) and
left: numba's ``cache=True`` does not apply (nutpie's C callback uses dynamic globals);
nutpie's JAX backend compiles faster but samples several times slower; a Python callback
around pytensor's on-disk-cached Numba function compiles in a second but its chains are
serialised by the GIL; a Numba wrapper that releases the GIL has to be compiled again;
freezing the data into the graph (``freeze_model=True``) samples faster, but pytensor's
on-disk cache then misses for every new data set. A compiled nutpie model is kept with its
PyMC model and given new data with ``with_data`` (:func:`compiled_nutpie`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pymc_vsk.caching import cached, is_cached, model_structure

if TYPE_CHECKING:
    import pymc as pm

__all__ = [
    "SAMPLERS",
    "SamplerChoice",
    "choose_sampler",
    "compiled_nutpie",
    "has_compiled_nutpie",
    "observation_count",
    "usable_cores",
]

#: The samplers :func:`choose_sampler` picks between (``pm.sample``'s ``nuts_sampler`` names).
SAMPLERS = ("nutpie", "pymc")

#: nutpie's compilation of a model by :func:`compiled_nutpie`, seconds (the first in a process).
NUTPIE_COMPILE_SECONDS = 5.4
#: nutpie's seconds per iteration per core at N = 81 (s₈₁) ...
NUTPIE_ITERATION_SECONDS_81 = 1.0e-3
#: ... and the power of N it grows with.
NUTPIE_ITERATION_EXPONENT = 2.3
#: PyMC's sampler: seconds to start its chains (a) ...
PYMC_START_SECONDS = 1.7
#: ... its per-iteration cost as a multiple of nutpie's (ρ) ...
PYMC_ITERATION_FACTOR = 1.9
#: ... and its Python overhead per iteration, seconds (o).
PYMC_ITERATION_OVERHEAD_SECONDS = 0.46e-3


@dataclass(frozen=True)
class SamplerChoice:
    """The chosen sampler and the predicted wall time of each.

    Attributes
    ----------
    sampler : str
        ``"nutpie"`` or ``"pymc"``.
    seconds : dict
        Sampler -> predicted wall seconds of the whole workload (compilation included).
    reason : str
        Why, in a sentence.
    """

    sampler: str
    seconds: dict[str, float]
    reason: str


def usable_cores() -> int:
    """Cores this process may run on (PyMC and nutpie run at most 4 chains at once by default).

    Returns
    -------
    int
    """
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, n or 1))


def observation_count(model: pm.Model) -> int:
    """The size of the model's largest observed variable (N, the covariance's side).

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    int
        0 for a model without observed variables (e.g. a likelihood written as a
        ``pm.Potential``: pass N to :func:`choose_sampler` yourself).
    """
    return max((_size(model.rvs_to_values[rv]) for rv in model.observed_RVs), default=0)


def _size(value: object) -> int:
    """Elements of an observed value: data, a data container or an expression of them."""
    from pymc_vsk.validation import as_numeric  # imports pytensor: only with a model

    data = as_numeric(value)
    if data is not None:
        return int(np.size(data))
    shape = value.type.shape
    if None not in shape:
        return math.prod(shape)
    import pytensor

    from pymc_vsk.modes import PYTHON_MODE

    return int(pytensor.function([], value.size, mode=PYTHON_MODE)())


def choose_sampler(
    n: int,
    draws: int,
    tune: int,
    chains: int,
    *,
    cores: int | None = None,
    runs: int = 1,
    compiled: bool = False,
    evaluation_cost: float = 1.0,
) -> SamplerChoice:
    r"""Pick nutpie or PyMC's sampler, whichever is predicted to finish the workload first.

    The prediction and its measured constants are in the module's description.

    Parameters
    ----------
    n : int
        Number of observations (the side of the covariance matrix).
    draws, tune, chains : int
        Draws and tuning steps per chain, and chains.
    cores : int, optional
        Chains run at once (default :func:`usable_cores`).
    runs : int, default 1
        Sampling runs that share one compilation (e.g. one per data set given to one model
        through ``with_data``).
    compiled : bool, default False
        nutpie's compiled model is already at hand (:func:`has_compiled_nutpie`): nutpie has
        nothing to compile.
    evaluation_cost : float, default 1.0
        Cost of one log-density gradient relative to a GP marginal likelihood of ``n``
        observations (e.g. the number of Cholesky factorisations per evaluation).

    Returns
    -------
    SamplerChoice

    Raises
    ------
    TypeError
        A count that is not an integer (a float, None, a bool).
    ValueError
        A negative count, or fewer than one draw, chain or run.

    Examples
    --------
    A short run of a small model: PyMC's sampler starts at once.

    >>> from pymc_vsk.samplers import choose_sampler
    >>> choose_sampler(81, draws=300, tune=300, chains=2, cores=2).sampler
    'pymc'

    Twenty data sets sampled with one compiled model, or large N: nutpie.

    >>> choose_sampler(81, draws=500, tune=500, chains=2, cores=2, runs=20).sampler
    'nutpie'
    >>> choose_sampler(400, draws=1000, tune=1000, chains=4, cores=2).sampler
    'nutpie'
    """
    counts = {"n": n, "tune": tune}
    positive = {"draws": draws, "chains": chains, "runs": runs}
    for name, value in (counts | positive).items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"{name} must be an integer; got {value!r}.")
    for name, value in counts.items():
        if value < 0:
            raise ValueError(f"{name} must be >= 0; got {value}.")
    for name, value in positive.items():
        if value < 1:
            raise ValueError(f"{name} must be >= 1; got {value}.")
    if not evaluation_cost > 0:
        raise ValueError(f"evaluation_cost must be > 0; got {evaluation_cost}.")
    cores = usable_cores() if cores is None else max(1, int(cores))
    per_core = math.ceil(chains / min(chains, cores)) * (tune + draws)
    step = (
        evaluation_cost
        * NUTPIE_ITERATION_SECONDS_81
        * (max(n, 1) / 81) ** NUTPIE_ITERATION_EXPONENT
    )
    compile_s = 0.0 if compiled else NUTPIE_COMPILE_SECONDS
    seconds = {
        "nutpie": compile_s + runs * per_core * step,
        "pymc": runs
        * (
            PYMC_START_SECONDS
            + per_core * (PYMC_ITERATION_FACTOR * step + PYMC_ITERATION_OVERHEAD_SECONDS)
        ),
    }
    sampler = "nutpie" if seconds["nutpie"] <= seconds["pymc"] else "pymc"
    if compiled:
        reason = "nutpie's compiled model is at hand"
    elif sampler == "nutpie":
        reason = "nutpie's compilation is paid back by its faster sampling"
    else:
        reason = "the run is too short to pay back nutpie's compilation"
    return SamplerChoice(sampler, seconds, reason)


def compiled_nutpie(model: pm.Model) -> object:
    """nutpie's compiled ``model``, compiled once and given the model's current data.

    The compiled model is kept with ``model`` (:func:`pymc_vsk.caching.cached`); each call
    hands it the current values of the model's data containers and other shared variables
    (``with_data``), so data swapped in with :func:`pymc_vsk.set_data` or ``pm.set_data`` are
    sampled without compiling again. Variables added to ``model`` since (a ``pm.Potential``,
    a ``pm.Deterministic``) make a new compilation, which samples them, and so do data of
    another shape when the size of a sampled or traced variable follows the data (nutpie
    fixes the sizes at compilation); the models of this package have no such variables.

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    nutpie.compile_pymc.CompiledPyMCModel
        nutpie's compiled model with the current data; pass it to ``nutpie.sample``.
    """

    def build() -> object:
        import numba  # noqa: F401  (nutpie compiles with it: its compilation is announced)

        from pymc_vsk.nutpie_callbacks import compile_pymc_model
        from pymc_vsk.progress import announce_compilation

        announce_compilation()
        return compile_pymc_model(model)

    compiled = cached(model, "nutpie", _nutpie_key(model), build)
    current = {var.name: var.get_value() for var in compiled.shared_var_keys if var.name}
    return compiled.with_data(**current)


def has_compiled_nutpie(model: pm.Model) -> bool:
    """Whether :func:`compiled_nutpie` has compiled ``model``, as it is now, in this process.

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    bool
    """
    return is_cached(model, "nutpie", _nutpie_key(model))


def _nutpie_key(model: pm.Model) -> tuple:
    """What a compiled nutpie model depends on beyond the data it is handed: the model's
    variables and, when a sampled or traced variable's size follows the data (a latent GP's
    f, a deterministic of length N), the shapes of the data and the lengths of the dims."""
    from pymc_vsk.validation import as_numeric  # imports pytensor: only when compiling

    key = model_structure(model)
    traced = [*model.free_RVs, *model.deterministics]
    if all(None not in var.type.shape for var in traced):
        return key
    shapes = tuple((var.name, np.shape(as_numeric(var))) for var in model.data_vars)
    lengths = tuple((dim, as_numeric(n)) for dim, n in model.dim_lengths.items())
    lengths = tuple((dim, None if n is None else int(n)) for dim, n in lengths)
    return key, shapes, lengths
