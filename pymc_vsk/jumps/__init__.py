"""Jump detection: VSK GPs whose ψ has random jump locations and amplitudes.

:func:`build_jump_model` builds the model (a differentiable relaxation of the step, or the
exact marginal over the gaps between nodes), :func:`location_posterior` summarises where the
jumps are, :func:`select_jump_count` chooses how many there are from the models' LOO ELPD,
and :mod:`pymc_vsk.jumps.cli` is the ``pymc-vsk detect-jumps`` command.
"""

from pymc_vsk.jumps import models
from pymc_vsk.jumps.models import *  # noqa: F403 (the names of models.__all__)
from pymc_vsk.jumps.selection import select_jump_count

__all__ = [*models.__all__, "select_jump_count"]
