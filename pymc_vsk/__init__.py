"""pymc-vsk: variably scaled kernels for Gaussian-process regression (Kriging) in PyMC.

Implements "Kriging via Variably Scaled Kernels" (Audone, Marchetti, Perracchione, Rossini).
"""

from pymc_vsk import scaling, targets
from pymc_vsk.covariance import VSK, LinearVSK
from pymc_vsk.diagnostics import diagnose
from pymc_vsk.estimator import VSKRegressor
from pymc_vsk.fitting import MultimodalWarning, fit_map
from pymc_vsk.models import build_model, set_data
from pymc_vsk.prediction import Predictor, power_function, predict

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
