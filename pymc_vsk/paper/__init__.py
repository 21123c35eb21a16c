"""Reproductions of the paper's experiments, one module each, run by ``pymc-vsk reproduce``.

Each module exposes ``add_arguments(parser)`` and ``main(args) -> exit status``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Experiment name -> (module, one-line description).
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "table1": ("pymc_vsk.paper.table1", "Table 1: fixed hyper-parameters, jump, N = 6"),
    "table2": ("pymc_vsk.paper.tables23", "Table 2: stationary vs VSK, MLE, jump, N = 27"),
    "table3": ("pymc_vsk.paper.tables23", "Table 3: stationary vs VSK, MLE, jump, N = 81"),
    "figure4": ("pymc_vsk.paper.figure4", "Figure 4: errors and std against N, MLE, jump"),
    "figure7": (
        "pymc_vsk.paper.weierstrass",
        "Figures 7-8: 2-D truncated Weierstrass, stationary vs VSK with psi^K_VSK, K_VSK = 0..12",
    ),
    "figure9": (
        "pymc_vsk.paper.corner",
        "Figures 9-12: errors and std against N, N = 21 / 20 fits, MLE, corner",
    ),
    "figure13": (
        "pymc_vsk.paper.gibbs_vsk",
        "Figures 13-14: VSK against the Gibbs/Paciorek kernel, exp(x) - cos(2 pi x)",
    ),
    "all": ("pymc_vsk.paper.report", "every experiment above, and a Markdown report"),
}


def load(name: str) -> ModuleType:
    """Import the module of experiment ``name``."""
    return importlib.import_module(EXPERIMENTS[name][0])
