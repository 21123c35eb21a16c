"""Jump detection: how many jumps, where, and how sure.

:func:`find_jumps` gives the exact posterior over the number and locations of jumps of the
segment model (:mod:`pymc_vsk.jumps.segments`: the VSK's step lifting taken to full
decorrelation, with a level and a scale per segment); :func:`build_jump_model` builds VSK GPs
whose ψ has random jump locations and amplitudes for NUTS (a differentiable relaxation of the
step, or the exact marginal over the gaps between nodes), :func:`location_posterior`
summarises where their jumps are, :func:`select_jump_count` compares such models by LOO ELPD,
:mod:`pymc_vsk.jumps.scores` holds the change-point scores (F1, covering) and
:mod:`pymc_vsk.jumps.cli` is the ``pymc-vsk detect-jumps`` command.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pymc_vsk.jumps import models
from pymc_vsk.jumps.models import *  # noqa: F403 (the names of models.__all__)
from pymc_vsk.jumps.selection import select_jump_count

if TYPE_CHECKING:
    from pymc_vsk.jumps.detection import Jump, JumpPosterior, find_jumps

#: Names of :mod:`pymc_vsk.jumps.detection`, imported on first use: it compiles with Numba,
#: which the NUTS models and the command line's start need not import.
_DETECTION = ("Jump", "JumpPosterior", "find_jumps")

__all__ = [*models.__all__, "Jump", "JumpPosterior", "find_jumps", "select_jump_count"]


def __getattr__(name: str) -> Any:
    """Import the names of :mod:`pymc_vsk.jumps.detection` on first use (PEP 562)."""
    if name not in _DETECTION:
        raise AttributeError(f"module 'pymc_vsk.jumps' has no attribute {name!r}")
    value = getattr(importlib.import_module("pymc_vsk.jumps.detection"), name)
    globals()[name] = value
    return value
