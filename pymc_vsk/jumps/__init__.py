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

if TYPE_CHECKING:
    from pymc_vsk.jumps.detection import Jump, JumpPosterior, find_jumps
    from pymc_vsk.jumps.models import (
        Gaps,
        LocationPosterior,
        MarginalJumpGP,
        build_jump_model,
        check_location_range,
        location_posterior,
    )
    from pymc_vsk.jumps.selection import select_jump_count

#: Where each public name lives. They are imported on first use: the segment model compiles
#: with Numba and the NUTS models import PyMC, and neither needs the other (nor does the
#: command line's start).
_WHERE = {
    **dict.fromkeys(("Jump", "JumpPosterior", "find_jumps"), "pymc_vsk.jumps.detection"),
    **dict.fromkeys(
        (
            "Gaps",
            "LocationPosterior",
            "MarginalJumpGP",
            "build_jump_model",
            "check_location_range",
            "location_posterior",
        ),
        "pymc_vsk.jumps.models",
    ),
    "select_jump_count": "pymc_vsk.jumps.selection",
}

__all__ = [
    "Gaps",
    "Jump",
    "JumpPosterior",
    "LocationPosterior",
    "MarginalJumpGP",
    "build_jump_model",
    "check_location_range",
    "find_jumps",
    "location_posterior",
    "select_jump_count",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'pymc_vsk.jumps' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the ones not imported yet included."""
    return sorted({*globals(), *__all__})
