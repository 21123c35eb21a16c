r"""A scikit-learn regressor around :func:`pymc_vsk.build_model`: VSK (or stationary) Kriging.

:class:`VSKRegressor` fits the GP regression model of :func:`pymc_vsk.build_model` by MAP
(:func:`pymc_vsk.fit_map`, several starts) or by NUTS (``pm.sample``) and predicts with
:class:`pymc_vsk.Predictor`, behind scikit-learn's estimator interface, so it goes into
``Pipeline``, ``GridSearchCV``, ``cross_val_score`` and the like.

Models are compiled once per configuration and input width: estimators with the same
``psi``, ``kernel``, ``priors`` and ``standardize`` fitted to data with the same number of
columns share one PyMC model, whose data (and data-scaled priors) are swapped in before each
fit and prediction. A grid search over many folds therefore compiles once per point of the
grid that changes the model, not once per fold.
"""

from __future__ import annotations

import copy
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pymc as pm
import xarray as xr
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import Tags, check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from pymc_vsk.arrays import as_float_array, check_flag
from pymc_vsk.caching import cached
from pymc_vsk.diagnostics import diagnose
from pymc_vsk.draws import draw_points, posterior
from pymc_vsk.fitting import MapResult, MultimodalWarning, NotConvergedWarning, fit_map
from pymc_vsk.kernels import kernel_class
from pymc_vsk.models import build_model, set_data
from pymc_vsk.prediction import Prediction, Predictor
from pymc_vsk.priors import UNIT_DRIFT, y_scale
from pymc_vsk.samplers import choose_sampler, compiled_nutpie, has_compiled_nutpie
from pymc_vsk.scaling import ScalingFunction

__all__ = ["EXPECTED_FAILED_CHECKS", "METHODS", "PRIORS", "VSKRegressor"]

#: Fit methods of :class:`VSKRegressor`.
METHODS = ("map", "nuts")

#: Prior families of :class:`VSKRegressor` (those of :func:`pymc_vsk.build_model`).
PRIORS = ("default", "flat")

#: scikit-learn's estimator checks that :class:`VSKRegressor` is expected to fail, with the
#: reason: pass it as ``expected_failed_checks`` to ``check_estimator`` or
#: ``parametrize_with_checks``. Empty: every check passes.
EXPECTED_FAILED_CHECKS: dict[str, str] = {}

#: Most shared models kept (least recently used dropped first); fitted estimators keep theirs.
MAX_SHARED_MODELS = 32


def _warn_if_not_converged(idata: xr.DataTree) -> None:
    """scikit-learn's ConvergenceWarning when the NUTS draws fail :func:`pymc_vsk.diagnose`."""
    report = diagnose(idata)
    if not report.ok:
        from sklearn.exceptions import ConvergenceWarning

        shown = "; ".join(report.problems[:3]) + ("; ..." if len(report.problems) > 3 else "")
        warnings.warn(
            f"NUTS has not converged ({shown}). Sample longer (draws, tune) or more chains; "
            "pymc_vsk.diagnose(estimator.idata_) lists every problem.",
            ConvergenceWarning,
            stacklevel=3,
        )


class VSKRegressor(RegressorMixin, BaseEstimator):
    r"""Gaussian-process regression with a variably scaled kernel, as a scikit-learn estimator.

    The model is that of :func:`pymc_vsk.build_model` (eq. 15 of the paper),
    y = m + f(x) + ε with f ~ GP(0, σ_f² κ^Ψ_ℓ) and ε ~ N(0, σ_n²), where κ^Ψ is the VSK of
    the scaling function ``psi`` (the stationary base kernel when ``psi`` is None).

    Parameters
    ----------
    psi : ScalingFunction or callable, optional
        Scaling function ψ (:mod:`pymc_vsk.scaling`) with fixed parameters; ``None`` (default)
        gives the stationary GP with the same kernel and priors.
    kernel : str or pm.gp.cov.Stationary subclass, default "matern52"
        Base kernel by name (any of :func:`pymc_vsk.kernels.base_kernels`: ``"expquad"``,
        ``"matern12"``, ``"matern32"``, ``"matern52"``, ...) or class.
    method : {"map", "nuts"}, default "map"
        ``"map"``: the maximum a posteriori point by :func:`pymc_vsk.fit_map` from
        ``n_starts`` starts; ``"nuts"``: posterior draws by ``pm.sample``, predictions mixed
        over them.
    priors : {"default", "flat"}, default "default"
        Priors of :func:`pymc_vsk.build_model`: weakly informative and scaled to the data, or
        flat (MAP is then the maximum-likelihood fit, as scikit-learn's
        ``GaussianProcessRegressor``; do not sample flat priors with NUTS).
    standardize : bool, default True
        The same answer in any units of x and y (see :func:`pymc_vsk.build_model`).
    n_starts : int, default 8
        Starts of the MAP optimiser (``method="map"``).
    draws, tune, chains : int, default 1000, 1000, 2
        NUTS draws and tuning steps per chain, and chains (``method="nuts"``).
    nuts_sampler : {"nutpie", "pymc", "numpyro", "blackjax"}, optional
        The NUTS sampler (``pm.sample``'s names; nutpie runs its model compiled once);
        ``None`` (default) takes nutpie or PyMC's sampler,
        whichever :func:`pymc_vsk.samplers.choose_sampler` predicts to finish first (nutpie
        once it has compiled this model in the process).
    max_draws : int, default 500
        Most posterior draws mixed in a prediction (``method="nuts"``).
    random_state : int, RandomState instance or None, default None
        Seed of the MAP starts' jitter or of the NUTS chains; an int gives the same fit on
        every call with the same NUTS sampler. With ``nuts_sampler=None`` the choice may turn
        to nutpie once it has compiled the model in the process, and the draws then differ:
        name the sampler for draws that repeat exactly.

    Attributes
    ----------
    model_ : pm.Model
        The PyMC model. It is shared by the estimators of this configuration and input width
        (see Notes): it holds the data of the last fit or prediction of any of them.
    gp_ : pymc_vsk.likelihood.Marginal
        The GP of ``model_``.
    map_ : MapResult
        The MAP fit, every optimum found (``method="map"``).
    idata_ : xarray.DataTree
        The posterior draws (``method="nuts"``).
    lengthscale_ : float
        Fitted length scale ℓ, in the units of X (the posterior mean with NUTS).
    amplitude_ : float
        Fitted signal standard deviation σ_f, in the units of y.
    noise_ : float
        Fitted noise standard deviation σ_n, in the units of y.
    mean_ : float
        Fitted constant mean m, in the units of y.
    n_features_in_ : int
        Number of columns of X seen in ``fit``.
    X_train_ : ndarray, shape (n_samples, n_features)
        Training inputs (float64).
    y_train_ : ndarray, shape (n_samples,)
        Training targets (float64).

    See Also
    --------
    pymc_vsk.build_model : The model, for work beyond this interface.
    sklearn.gaussian_process.GaussianProcessRegressor : The stationary maximum-likelihood GP.

    Notes
    -----
    Inputs are validated by scikit-learn and converted to float64 (GP covariance matrices are
    too ill-conditioned for single precision). ``predict``'s standard deviation and
    covariance are those of the latent f, without the noise: add ``noise_**2`` to the
    variance for a new noisy observation.

    The estimator passes scikit-learn's ``check_estimator`` (the tests run it with
    ``n_starts=1``; :data:`EXPECTED_FAILED_CHECKS` is empty).

    Compiling the model costs seconds; evaluating it, milliseconds. Estimators with equal
    ``psi``, ``kernel``, ``priors`` and ``standardize`` fitted to data of the same width
    share one model and its compiled functions: ``fit`` swaps its data and data-scaled prior
    parameters into the model (:func:`pymc_vsk.set_data`, no recompilation) and ``predict``
    swaps them back when another estimator used the model in between. With
    ``method="nuts"`` and nutpie (chosen or asked for), nutpie's compiled model is kept with
    the shared model too (:func:`pymc_vsk.samplers.compiled_nutpie`), so refits sample
    without compiling again; the other samplers run through ``pm.sample``.

    Examples
    --------
    >>> import numpy as np
    >>> from pymc_vsk import VSKRegressor, targets
    >>> from pymc_vsk.scaling import Jump

    A step at x = 0.5 on a smooth trend: ψ = Jump(0.5) lets the GP jump there.

    >>> X = targets.halton_nodes(30)
    >>> y = np.sin(3 * X[:, 0]) + (X[:, 0] >= 0.5) + 0.1 * np.random.default_rng(0).normal(size=30)
    >>> vsk = VSKRegressor(psi=Jump(0.5), n_starts=3, random_state=0).fit(X, y)
    >>> stationary = VSKRegressor(n_starts=3, random_state=0).fit(X, y)
    >>> Xt = np.linspace(0, 1, 101)[:, None]
    >>> yt = np.sin(3 * Xt[:, 0]) + (Xt[:, 0] >= 0.5)
    >>> bool(vsk.score(Xt, yt) > stationary.score(Xt, yt))
    True
    >>> mean, std = vsk.predict(Xt, return_std=True)
    >>> mean.shape, std.shape
    ((101,), (101,))
    """

    def __init__(
        self,
        psi: ScalingFunction | Callable | None = None,
        kernel: str | type[pm.gp.cov.Stationary] = "matern52",
        *,
        method: str = "map",
        priors: str = "default",
        standardize: bool = True,
        n_starts: int = 8,
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 2,
        nuts_sampler: str | None = None,
        max_draws: int = 500,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.psi = psi
        self.kernel = kernel
        self.method = method
        self.priors = priors
        self.standardize = standardize
        self.n_starts = n_starts
        self.draws = draws
        self.tune = tune
        self.chains = chains
        self.nuts_sampler = nuts_sampler
        self.max_draws = max_draws
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X: npt.ArrayLike, y: npt.ArrayLike) -> VSKRegressor:
        """Fit the GP to training data.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            Training inputs (at least 3 rows).
        y : array-like, shape (n_samples,)
            Training targets.

        Returns
        -------
        VSKRegressor
            The fitted estimator.

        Raises
        ------
        ValueError
            Unknown ``method``, ``kernel`` or ``priors`` (the message lists the valid ones),
            invalid counts, or data that scikit-learn's checks or :func:`pymc_vsk.build_model`
            refuse.
        TypeError
            ``standardize`` not a bool, ``psi`` not callable, or text, dates or durations in
            ``X`` or ``y`` (convert them to numbers first).
        """
        self._check_params()
        _refuse_non_numbers(X, "X")
        _refuse_non_numbers(y, "y")
        # copies, as scikit-learn's GPs keep (copy_X_train): the shared model swaps back to
        # these arrays whenever this estimator predicts, whatever the caller did to its own
        X, y = validate_data(
            self, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=3, order="C", copy=True
        )
        y = np.array(y, dtype=np.float64, order="C")  # validate_data converts X only
        config = _Configuration.of(self)
        shared = _shared_model(config, X, y)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        with shared.using(X, y):
            if self.method == "map":
                with warnings.catch_warnings():  # said below in the estimator's own words
                    warnings.simplefilter("ignore", NotConvergedWarning)
                    self.map_: MapResult = fit_map(
                        shared.model, n_starts=self.n_starts, seed=seed, warn=False
                    )
                if not self.map_.optima[0].converged:
                    warnings.warn(
                        "The best MAP end point is not an optimum (estimator.map_.summary() "
                        "shows it): a parameter is running off to a boundary. Use "
                        "priors='default', or more n_starts.",
                        NotConvergedWarning,
                        stacklevel=2,
                    )
                if self.map_.multimodal:  # one text: shown once per line of the caller's
                    warnings.warn(
                        "MAP starts reached different optima; the best is used "
                        "(estimator.map_.summary() lists them).",
                        MultimodalWarning,
                        stacklevel=2,
                    )
                values = {n: np.asarray(v) for n, v in self.map_.point.items()}
            else:
                self.idata_: xr.DataTree = self._sample(shared.model, len(y), seed)
                _warn_if_not_converged(self.idata_)
                post = posterior(self.idata_)
                values = {n: np.asarray(post[n].mean()) for n in post.data_vars}
        self.__dict__.pop("idata_" if self.method == "map" else "map_", None)  # a refit
        self._shared, self._configuration = shared, config
        self.model_, self.gp_ = shared.model, shared.gp
        self.X_train_, self.y_train_ = X, y
        self.lengthscale_ = float(values["ls"])
        self.amplitude_ = float(values["sigma_f"])
        self.noise_ = float(values["sigma_n"])
        self.mean_ = float(values["mean"])
        return self

    def _sample(self, model: pm.Model, n: int, seed: int) -> xr.DataTree:
        sampler = self.nuts_sampler
        if sampler is None:
            compiled = has_compiled_nutpie(model)
            choice = choose_sampler(n, self.draws, self.tune, self.chains, compiled=compiled)
            sampler = choice.sampler
        if sampler == "nutpie":  # chosen or asked for: compiled once per shared model
            import nutpie  # imported on use: it loads slowly

            return nutpie.sample(
                compiled_nutpie(model),
                draws=self.draws,
                tune=max(self.tune, 1),  # nutpie needs a tuning step
                chains=self.chains,
                seed=seed,
                progress_bar=False,
            )
        with model:
            return pm.sample(
                draws=self.draws,
                tune=self.tune,
                chains=self.chains,
                random_seed=seed,
                progressbar=False,
                nuts_sampler=sampler,
            )

    def _check_params(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"Unknown method {self.method!r}; choose one of {list(METHODS)}.")
        if isinstance(self.priors, str) and self.priors not in PRIORS:
            raise ValueError(f"Unknown priors {self.priors!r}; choose one of {list(PRIORS)}.")
        if not isinstance(self.priors, str):
            raise TypeError(
                f"priors must be one of {list(PRIORS)}; got {type(self.priors).__name__}. "
                "For priors of your own use pymc_vsk.build_model(..., priors={...})."
            )
        kernel_class(self.kernel)  # raises, listing the names
        counts = {"n_starts": self.n_starts, "draws": self.draws, "tune": self.tune}
        counts |= {"chains": self.chains, "max_draws": self.max_draws}
        for name, value in counts.items():
            low = 0 if name == "tune" else 1
            if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}; got {value!r}.")
        check_flag(self.standardize, "standardize")
        if self.psi is not None and not callable(self.psi):
            raise TypeError(
                "psi must be None (a stationary GP), a pymc_vsk.scaling ScalingFunction or a "
                f"callable; got {type(self.psi).__name__}."
            )
        if self.method == "nuts" and self.priors == "flat":
            raise ValueError(
                "priors='flat' with method='nuts' samples an improper posterior: flat priors on "
                "ℓ, σ_f and σ_n let the chains run off to infinity. Use priors='default' to "
                "sample, or method='map' for the maximum-likelihood fit."
            )
        if isinstance(self.psi, ScalingFunction) and self.psi.is_random:
            raise ValueError(
                f"psi {self.psi!r} has random parameters, which VSKRegressor does not fit; "
                "give them fixed values, or build the model with pymc_vsk.build_model."
            )

    # -- prediction ---------------------------------------------------------------------------
    def predict(
        self, X: npt.ArrayLike, return_std: bool = False, return_cov: bool = False
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Predictive mean at ``X``, and optionally its standard deviation or covariance.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            Query points.
        return_std : bool, default False
            Also return the predictive standard deviation of the latent f.
        return_cov : bool, default False
            Also return the joint predictive covariance of the latent f.

        Returns
        -------
        y_mean : ndarray, shape (n_samples,)
        y_std : ndarray, shape (n_samples,)
            Only with ``return_std=True``.
        y_cov : ndarray, shape (n_samples, n_samples)
            Only with ``return_cov=True``.

        Raises
        ------
        RuntimeError
            Both ``return_std`` and ``return_cov`` asked for.
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self)
        _refuse_non_numbers(X, "X")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        with self._shared_model().using(self.X_train_, self.y_train_):
            pred = self._prediction(X)
            if return_cov:
                mean, cov = self._joint(X)
                # PyMC's full conditional adds its jitter to the diagonal; the pointwise
                # variance is without it, so the diagonal is that of return_std
                np.fill_diagonal(cov, pred.std_f**2)
                return mean, cov
        return (pred.mean, pred.std_f) if return_std else pred.mean

    def sample_y(
        self,
        X: npt.ArrayLike,
        n_samples: int = 1,
        random_state: int | np.random.RandomState | None = 0,
    ) -> np.ndarray:
        """Joint draws of the latent f at ``X`` from the predictive distribution.

        Parameters
        ----------
        X : array-like, shape (n_samples_X, n_features)
            Query points.
        n_samples : int, default 1
            Number of draws.
        random_state : int, RandomState instance or None, default 0
            Seed of the draws.

        Returns
        -------
        ndarray, shape (n_samples_X, n_samples)

        Raises
        ------
        ValueError
            ``n_samples`` not a whole number of at least 0.
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        if (
            not isinstance(n_samples, int | np.integer)
            or isinstance(n_samples, bool | np.bool_)
            or n_samples < 0
        ):
            raise ValueError(f"n_samples must be an integer >= 0; got {n_samples!r}.")
        check_is_fitted(self)
        _refuse_non_numbers(X, "X")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
        with self._shared_model().using(self.X_train_, self.y_train_):
            return self._prediction(X).sample(int(n_samples), of="f", seed=seed).T

    def _predictor(self) -> Predictor:
        return cached(self.gp_, "estimator", "predictor", lambda: Predictor(self.gp_, self.model_))

    def _points(self, names: list[str]) -> list[dict[str, np.ndarray]]:
        if hasattr(self, "map_"):  # the method of the fit, whatever set_params did since
            return [self.map_.point]
        return draw_points(self.idata_, names, self.max_draws, seed=0)

    def _prediction(self, X: np.ndarray) -> Prediction:
        predictor = self._predictor()
        if hasattr(self, "map_"):
            return predictor(X, self.map_.point)
        return predictor.from_posterior(X, self.idata_, max_draws=self.max_draws, seed=0)

    def _joint(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of f at X: of the MAP point, or mixed over posterior draws.

        The mixture's covariance is the mean of the draws' covariances plus that of their
        means about the mixture's mean: never E[f fᵀ] − E[f] E[f]ᵀ, whose terms grow with the
        square of y's offset and leave nothing of the covariance for y far from 0.
        """
        predictor = self._predictor()
        points = self._points(predictor.names)
        draws, within = [], np.zeros((len(X), len(X)))
        for point in points:
            mu, cov = predictor.joint(X, point, of="f")
            draws.append(mu)
            within += cov / len(points)
        spread = np.asarray(draws) - np.mean(draws, axis=0)
        return np.mean(draws, axis=0), within + spread.T @ spread / len(points)

    # -- shared model, pickling, tags ---------------------------------------------------------
    def _shared_model(self) -> _SharedModel:
        shared = getattr(self, "_shared", None)
        if shared is None:  # unpickled: find or build the model it was fitted with again
            shared = _shared_model(self._configuration, self.X_train_, self.y_train_)
            self._shared = shared
            self.model_, self.gp_ = shared.model, shared.gp
        return shared

    def __getstate__(self) -> dict[str, Any]:
        """The state without the PyMC model, which :meth:`predict` finds or rebuilds."""
        state = super().__getstate__()
        for name in ("_shared", "model_", "gp_"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the state; a fitted estimator gets its shared model back."""
        super().__setstate__(state)
        if "X_train_" in state:
            self._shared_model()

    def __sklearn_tags__(self) -> Tags:
        """scikit-learn's tags: a single-output regressor of finite float data."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags


def _fingerprint(obj: object) -> Hashable:
    """A hashable value equal for equal scaling functions (copies included, e.g. by ``clone``).

    Numbers and arrays compare by value, functions by identity (a copy of a function is the
    function itself); anything unhashable by identity, which only costs a model.
    """
    if isinstance(obj, ScalingFunction):
        return (type(obj), _fingerprint(vars(obj)))
    if isinstance(obj, dict):
        return tuple(sorted((str(k), _fingerprint(v)) for k, v in obj.items()))
    if isinstance(obj, list | tuple):
        return (type(obj), tuple(_fingerprint(v) for v in obj))
    if isinstance(obj, np.ndarray | np.number | float | int):
        value = np.asarray(obj)
        return ("array", value.dtype.str, value.shape, value.tobytes())
    try:
        hash(obj)
    except TypeError:
        return ("id", id(obj))
    return obj


def _refuse_non_numbers(values: object, name: str) -> None:
    """Refuse text, dates and durations, which scikit-learn's checks would turn into numbers.

    scikit-learn parses text that reads as a number and counts the ticks of dates and
    durations (in a unit that depends on how they were stored); :func:`pymc_vsk.build_model`
    refuses both, and so does the estimator, for X and y alike.

    Parameters
    ----------
    values : object
        The inputs or targets as given (array, list, DataFrame, Series, ...).
    name : str
        How to call them in messages, ``"X"`` or ``"y"``.

    Raises
    ------
    TypeError
        If ``values`` holds text, dates, times or durations.
    """
    dtypes = getattr(values, "dtypes", None)  # a DataFrame's columns or a Series' one dtype
    if dtypes is not None:
        kinds = {getattr(d, "kind", "O") for d in np.atleast_1d(np.asarray(dtypes, dtype=object))}
    elif isinstance(values, np.ndarray | list | tuple):
        kinds = {np.asarray(values).dtype.kind}
    else:
        kinds = set()
    if kinds & {"m", "M", "O", "U", "S"}:
        as_float_array(np.asarray(values), name)


@dataclass(eq=False)
class _SharedModel:
    """One PyMC model of a configuration and input width, and how to swap data into it."""

    model: pm.Model
    gp: Any
    lock: threading.RLock = field(default_factory=threading.RLock)
    current: tuple[np.ndarray, np.ndarray] | None = None

    @contextmanager
    def using(self, X: np.ndarray, y: np.ndarray) -> Iterator[None]:
        """Hold the model with data ``X, y`` (and their priors) swapped in."""
        with self.lock:
            if self.current is None or self.current[0] is not X or self.current[1] is not y:
                self._swap(X, y)
            yield

    def _swap(self, X: np.ndarray, y: np.ndarray) -> None:
        set_data(self.model, X, y)  # the default priors' containers follow the data
        self.current = (X, y)


_SHARED: OrderedDict[Hashable, _SharedModel] = OrderedDict()
_SHARED_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Configuration:
    """The parameters of a :class:`VSKRegressor` that make its model, as they were at ``fit``
    (``set_params`` afterwards does not change a fitted estimator, pickled or not)."""

    kernel: Any
    psi: Any
    priors: str
    standardize: bool

    @classmethod
    def of(cls, est: VSKRegressor) -> _Configuration:
        return cls(est.kernel, copy.deepcopy(est.psi), est.priors, bool(est.standardize))

    def key(self, width: int, y: np.ndarray) -> Hashable:
        """What a shared model must have in common with this fit: the configuration, and
        the scale of y within a factor of :data:`~pymc_vsk.priors.UNIT_DRIFT` (the mean is
        sampled in units of the sd(y) the model was built with: NUTS's first steps, ±2
        such units, must be a few sds of the data now)."""
        return (
            width,
            kernel_class(self.kernel),
            _fingerprint(self.psi),
            self.priors,
            self.standardize,
            round(float(np.log(y_scale(y)) / np.log(UNIT_DRIFT))) if self.standardize else None,
        )


def _shared_model(config: _Configuration, X: np.ndarray, y: np.ndarray) -> _SharedModel:
    """The model of ``config`` for data like ``X, y``, built with them on first use."""
    key = config.key(X.shape[1], y)
    with _SHARED_LOCK:
        shared = _SHARED.get(key)
        if shared is None:
            shared = _build(config, X, y)
            _SHARED[key] = shared
            while len(_SHARED) > MAX_SHARED_MODELS:
                _SHARED.popitem(last=False)
        _SHARED.move_to_end(key)
        return shared


def _build(config: _Configuration, X: np.ndarray, y: np.ndarray) -> _SharedModel:
    """:func:`pymc_vsk.build_model` of a configuration (its default priors follow
    :func:`pymc_vsk.set_data`, so that new data get new priors without recompiling)."""
    model, gp = build_model(
        X,
        y,
        psi=config.psi,
        kernel=config.kernel,
        priors=config.priors,
        standardize=config.standardize,
    )
    return _SharedModel(model, gp, current=(X, y))
