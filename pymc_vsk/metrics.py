"""Error and uncertainty metrics of Section 4 (RMSE, maximum error, posterior std)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pymc_vsk.arrays import check_finite

__all__ = ["METRIC_LABELS", "summarize"]

#: Row labels of the paper's tables, in their order.
METRIC_LABELS = {
    "rmse": "RMSE",
    "max_error": "Maximum error",
    "mean_std": "Average posterior std.",
    "max_std": "Maximum posterior std.",
}


_NAMES = ("mean", "std", "truth")


def _values(values: npt.ArrayLike, name: str) -> np.ndarray:
    """One finite value per evaluation point: shape (M,), or a column (M, 1), M ≥ 1."""
    out = np.asarray(values, dtype=float)
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim != 1 or out.size == 0:
        raise ValueError(
            f"{name} must hold one value per evaluation point, shape (M,) or (M, 1) with "
            f"M >= 1; got shape {out.shape}."
        )
    check_finite(out, name, "summarize finite predictions at the evaluation points.")
    return out


def summarize(mean: np.ndarray, std: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    r"""RMSE and MAE of the posterior mean against the target, and mean/max posterior std.

    .. math::

        \mathrm{RMSE} = \sqrt{\frac1M \sum_i (\mathbb{E}[F_{\xi_i} | y] - f(\xi_i))^2}, \quad
        \mathrm{MAE} = \max_i |\mathbb{E}[F_{\xi_i} | y] - f(\xi_i)|

    (Section 4), over the M evaluation points ξ_i.

    Parameters
    ----------
    mean, std, truth : array, shape (M,)
        Posterior mean, posterior standard deviation and target at the evaluation points.
    """
    mean, std, truth = (
        _values(a, name) for a, name in zip((mean, std, truth), _NAMES, strict=True)
    )
    if not (mean.shape == std.shape == truth.shape):
        raise ValueError(
            f"mean, std and truth must have the same length; got {mean.shape}, {std.shape}, "
            f"{truth.shape}."
        )
    if np.any(std < 0):
        raise ValueError(
            f"std holds a negative value ({std.min():g}): pass standard deviations, not "
            "differences or log values."
        )
    err = mean - truth
    return {
        "rmse": float(np.sqrt(np.mean(err**2))),
        "max_error": float(np.max(np.abs(err))),
        "mean_std": float(np.mean(std)),
        "max_std": float(np.max(std)),
    }
