"""pymc-vsk: variably scaled kernels for Gaussian-process regression (Kriging) in PyMC.

Implements "Kriging via Variably Scaled Kernels" (Audone, Marchetti, Perracchione, Rossini).
"""

from pymc_vsk import scaling, targets
from pymc_vsk.covariance import VSK, LinearVSK

__all__ = ["VSK", "LinearVSK", "scaling", "targets"]
__version__ = "0.1.0"
