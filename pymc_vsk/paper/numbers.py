"""Every number the paper prints: its tables, and the settings of Section 4 it states.

The reproductions (:mod:`pymc_vsk.paper.table1`, :mod:`~pymc_vsk.paper.tables2_3`,
:mod:`~pymc_vsk.paper.figure4`, :mod:`~pymc_vsk.paper.figure7`,
:mod:`~pymc_vsk.paper.figure9`, :mod:`~pymc_vsk.paper.figure13`) read them from here. Settings
the paper leaves open (the noise of Section 4.3, the domain and nodes of Section 4.2, ...) are
choices, not numbers of the paper, and live in the module that makes them.

Conventions of the paper's MATLAB experiments (``fitrgp``), which these numbers follow:

* "Matérn C²" is ``pm.gp.cov.Matern32``, k(r) = σ_f²(1 + √3 r/ℓ) exp(−√3 r/ℓ), and
  "Matérn C⁴" is ``pm.gp.cov.Matern52``; the unscaled forms (1 + r)e^{−r} do not reproduce
  the tables;
* the rows called "noise variance σ_n" are standard deviations;
* the "std" rows of Tables 2–3 are the predictive std of y, noise included (``fitrgp``'s
  ``ysd``); Table 1 has σ_n = 0, so latent and predictive std coincide there;
* ``fitrgp`` fits a constant mean.
"""

from __future__ import annotations

__all__ = [
    "FIGURE4_NODES",
    "FIGURE8_K",
    "FIGURE9_EXAMPLE_NODES",
    "FIGURE9_NODES",
    "JUMP_NOISE_STD",
    "SECTION44_NODES",
    "SECTION44_NOISE_STD",
    "TABLE1",
    "TABLE1_LENGTH_SCALE",
    "TABLE1_NODES",
    "TABLE1_SIGMA_F",
    "TABLES_2_3",
    "TABLE_NODES",
    "WEIERSTRASS",
]

# -- Section 4.1.1, Table 1 -------------------------------------------------------------------
#: Table 1: fixed hyper-parameters ℓ = 1, σ_f = 8, σ_n = 0, to its printed 5 significant digits.
TABLE1: dict[str, dict[str, str]] = {
    "stationary": {
        "rmse": "9.1728e-01",
        "max_error": "2.6058e+00",
        "mean_std": "2.3022e-01",
        "max_std": "3.7459e-01",
    },
    "vsk": {
        "rmse": "8.4409e-01",
        "max_error": "2.3776e+00",
        "mean_std": "2.8207e-01",
        "max_std": "8.7057e-01",
    },
}
#: Table 1's length scale ℓ and signal std σ_f (σ_n = 0: interpolation).
TABLE1_LENGTH_SCALE, TABLE1_SIGMA_F = 1.0, 8.0
#: Table 1's number of uniform nodes.
TABLE1_NODES = 6

# -- Section 4.1.2, Tables 2 and 3, Figure 4 --------------------------------------------------
#: Standard deviation of the Gaussian noise of Section 4.1.2.
JUMP_NOISE_STD = 0.25
#: Experiment name -> number of Halton nodes.
TABLE_NODES: dict[str, int] = {"table2": 27, "table3": 81}
#: Tables 2 (N = 27) and 3 (N = 81): N -> model -> row, MLE hyper-parameters and metrics.
TABLES_2_3: dict[int, dict[str, dict[str, float]]] = {
    27: {
        "stationary": {
            "ls": 0.0650,
            "sigma_f": 1.4827,
            "sigma_n": 0.3238,
            "rmse": 5.3569e-01,
            "max_error": 3.0195e00,
            "mean_std": 4.6966e-01,
            "max_std": 1.2539e00,
        },
        "vsk": {
            "ls": 0.0627,
            "sigma_f": 1.4956,
            "sigma_n": 0.2428,
            "rmse": 3.6767e-01,
            "max_error": 1.7015e00,
            "mean_std": 4.0266e-01,
            "max_std": 1.2502e00,
        },
    },
    81: {
        "stationary": {
            "ls": 0.0614,
            "sigma_f": 1.6096,
            "sigma_n": 0.3269,
            "rmse": 2.4512e-01,
            "max_error": 2.0480e00,
            "mean_std": 3.8423e-01,
            "max_std": 6.3757e-01,
        },
        "vsk": {
            "ls": 0.0694,
            "sigma_f": 1.6613,
            "sigma_n": 0.3321,
            "rmse": 1.3972e-01,
            "max_error": 4.1026e-01,
            "mean_std": 3.8782e-01,
            "max_std": 6.1732e-01,
        },
    },
}
#: Figure 4's node counts N = 10 + 20 j, j = 1, ..., 39, as (first, step, last).
FIGURE4_NODES = (30, 20, 790)

# -- Section 4.2, Figures 7 and 8 -------------------------------------------------------------
#: The truncated Weierstrass target: a, b and the number of terms K beyond the first.
WEIERSTRASS: dict[str, float] = {"a": 0.5, "b": 3.0, "K": 12}
#: K_VSK shown in Figure 8.
FIGURE8_K = (2, 4, 12)

# -- Section 4.3, Figures 9 to 12 -------------------------------------------------------------
#: Figure 9's node counts N = 11 + 20 j, j = 1, ..., 39, as (first, step, last).
FIGURE9_NODES = (31, 20, 791)
#: Figures 10–12: the corner sampled (N = 21) and not sampled (N = 20).
FIGURE9_EXAMPLE_NODES = (21, 20)

# -- Section 4.4, Figures 13 and 14 -----------------------------------------------------------
#: Chebyshev nodes of Section 4.4.
SECTION44_NODES = 9
#: Noise standard deviation of Section 4.4.
SECTION44_NOISE_STD = 0.05
