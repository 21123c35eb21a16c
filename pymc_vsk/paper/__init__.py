"""Reproductions of the paper's experiments, one module per table or figure.

``pymc-vsk reproduce NAME`` runs them: :mod:`~pymc_vsk.paper.table1`,
:mod:`~pymc_vsk.paper.tables2_3` (Tables 2 and 3), :mod:`~pymc_vsk.paper.figure4`,
:mod:`~pymc_vsk.paper.figure7` (Figures 7–8), :mod:`~pymc_vsk.paper.figure9`
(Figures 9–12), :mod:`~pymc_vsk.paper.figure13` (Figures 13–14), and
:mod:`~pymc_vsk.paper.report` runs them all. :mod:`~pymc_vsk.paper.numbers` holds every number
the paper prints, :mod:`~pymc_vsk.paper.harness` what the experiments share.

Each experiment module exposes ``add_arguments(parser)``, ``main(args) -> exit status`` and
``OUTPUT_OPTION``, the option by which it takes a directory for its files;
:func:`add_command_options` adds ``--quiet`` to its options. Each reports its progress on
stderr (:mod:`pymc_vsk.progress`): what it runs, then one line per step. The package builds on
the library (``pymc_vsk`` outside this subpackage), never the other way round.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from pymc_vsk.arguments import add_quiet_option

__all__ = ["EXPERIMENTS", "add_command_options", "load"]

#: Experiment name -> (module, one-line description).
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "table1": ("pymc_vsk.paper.table1", "Table 1: fixed hyper-parameters, jump, N = 6"),
    "table2": ("pymc_vsk.paper.tables2_3", "Table 2: stationary vs VSK, MLE, jump, N = 27"),
    "table3": ("pymc_vsk.paper.tables2_3", "Table 3: stationary vs VSK, MLE, jump, N = 81"),
    "figure4": ("pymc_vsk.paper.figure4", "Figure 4: errors and std against N, MLE, jump"),
    "figure7": (
        "pymc_vsk.paper.figure7",
        "Figures 7-8: 2-D truncated Weierstrass, stationary vs VSK with psi^K_VSK, K_VSK = 0..12",
    ),
    "figure9": (
        "pymc_vsk.paper.figure9",
        "Figures 9-12: errors and std against N, N = 21 / 20 fits, MLE, corner",
    ),
    "figure13": (
        "pymc_vsk.paper.figure13",
        "Figures 13-14: VSK against the Gibbs/Paciorek kernel, exp(x) - cos(2 pi x)",
    ),
    "all": ("pymc_vsk.paper.report", "every experiment above, and a Markdown report"),
}


def load(name: str) -> ModuleType:
    """Import the module of experiment ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`EXPERIMENTS`.

    Returns
    -------
    module
    """
    return importlib.import_module(EXPERIMENTS[name][0])


def add_command_options(name: str, parser: argparse.ArgumentParser) -> None:
    """The options of ``pymc-vsk reproduce NAME``: the experiment's own, and ``--quiet``.

    Parameters
    ----------
    name : str
        A key of :data:`EXPERIMENTS`.
    parser : argparse.ArgumentParser
        The parser of ``pymc-vsk reproduce NAME``.
    """
    load(name).add_arguments(parser)
    add_quiet_option(parser)
