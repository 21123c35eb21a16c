"""Error and uncertainty metrics of Section 4 (RMSE, maximum error, posterior std)."""

from __future__ import annotations

import numpy as np

__all__ = ["METRIC_LABELS", "summarize"]

#: Row labels of the paper's tables, in their order.
METRIC_LABELS = {
    "rmse": "RMSE",
    "max_error": "Maximum error",
    "mean_std": "Average posterior std.",
    "max_std": "Maximum posterior std.",
}


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
    mean, std, truth = (np.asarray(a, dtype=float).ravel() for a in (mean, std, truth))
    if not (mean.shape == std.shape == truth.shape):
        raise ValueError(
            f"mean, std and truth must have the same length; got {mean.shape}, {std.shape}, "
            f"{truth.shape}."
        )
    err = mean - truth
    return {
        "rmse": float(np.sqrt(np.mean(err**2))),
        "max_error": float(np.max(np.abs(err))),
        "mean_std": float(np.mean(std)),
        "max_std": float(np.max(std)),
    }
