"""pymc-vsk: variably scaled kernels for Gaussian-process regression (Kriging) in PyMC.

Implements "Kriging via Variably Scaled Kernels" (Audone, Marchetti, Perracchione, Rossini,
2026, arXiv:2603.16950); the equations cited in the docstrings are that paper's.

The names below are imported on first use, so that ``from pymc_vsk import build_model,
fit_map`` does not pay for the posterior diagnostics (ArviZ) and plotting it does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pymc_vsk import scaling, targets
    from pymc_vsk.covariance import VSK, LinearVSK
    from pymc_vsk.diagnostics import diagnose
    from pymc_vsk.estimator import VSKRegressor
    from pymc_vsk.fitting import MultimodalWarning, fit_map
    from pymc_vsk.models import build_model, set_data
    from pymc_vsk.prediction import Predictor, power_function, predict

#: Public name -> the module that defines it (a submodule itself when the name is a module).
_WHERE = {
    "VSK": "pymc_vsk.covariance",
    "LinearVSK": "pymc_vsk.covariance",
    "MultimodalWarning": "pymc_vsk.fitting",
    "Predictor": "pymc_vsk.prediction",
    "VSKRegressor": "pymc_vsk.estimator",
    "build_model": "pymc_vsk.models",
    "diagnose": "pymc_vsk.diagnostics",
    "fit_map": "pymc_vsk.fitting",
    "power_function": "pymc_vsk.prediction",
    "predict": "pymc_vsk.prediction",
    "scaling": "pymc_vsk.scaling",
    "set_data": "pymc_vsk.models",
    "targets": "pymc_vsk.targets",
}

__all__ = [
    "VSK",
    "LinearVSK",
    "MultimodalWarning",
    "Predictor",
    "VSKRegressor",
    "build_model",
    "diagnose",
    "fit_map",
    "power_function",
    "predict",
    "scaling",
    "set_data",
    "targets",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'pymc_vsk' has no attribute {name!r}")
    module = importlib.import_module(_WHERE[name])
    value = module if module.__name__ == f"pymc_vsk.{name}" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the ones not imported yet included."""
    return sorted({*globals(), *__all__})
