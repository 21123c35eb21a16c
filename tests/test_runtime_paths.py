"""The machinery a user meets without asking for it: the compiled-function cache, progress
messages, the memory limit, BLAS threads and the sampler's inputs."""

from __future__ import annotations

import gc
import io
import logging
import pickle
import re
import weakref

import numpy as np
import pymc as pm
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from pymc_vsk import build_model, fit_map, predict, progress, targets
from pymc_vsk.blas import blas_threads
from pymc_vsk.caching import cache_entries, cached, is_cached
from pymc_vsk.memory import check_dense, get_memory_limit, set_memory_limit
from pymc_vsk.samplers import observation_count
from pymc_vsk.scaling import Jump


@pytest.fixture(autouse=True)
def _restore_limit():
    yield
    set_memory_limit(None)


# -- caching ----------------------------------------------------------------------------------
class _Owner:
    pass


class _SlottedOwner:
    __slots__ = ("__weakref__",)


def test_a_cached_value_that_refers_to_its_owner_does_not_keep_it_alive():
    """The weak cache held each value strongly, and a value referring to its owner (a compiled
    objective holds its model) made the owner immortal: every model fitted stayed in memory."""
    for kind in (_Owner, _SlottedOwner):
        owner = kind()
        value = cached(owner, "self", None, lambda owner=owner: [owner])
        assert cached(owner, "self", None, lambda: pytest.fail("built twice")) is value
        assert is_cached(owner, "self", None) and cache_entries(owner, "self") == [value]
        ref = weakref.ref(owner)
        del owner, value
        gc.collect()
        if kind is _Owner:  # an owner without attributes keeps the weak cache, and its limits
            assert ref() is None


def test_a_fitted_model_is_freed_with_its_compiled_functions():
    X = targets.halton_nodes(15)
    model, gp = build_model(X, targets.jump(X), psi=Jump(0.5))
    fit = fit_map(model, n_starts=1)
    predict(gp, X[:2], point=fit.point)
    refs = [weakref.ref(model), weakref.ref(gp)]
    del model, gp, fit
    gc.collect()
    assert [ref() for ref in refs] == [None, None]


def test_a_pickled_owner_leaves_its_compiled_functions_behind():
    owner = _Owner()
    cached(owner, "big", None, lambda: np.zeros(100_000))
    restored = pickle.loads(pickle.dumps(owner))
    assert len(pickle.dumps(owner)) < 1_000
    assert cache_entries(restored, "big") == []
    assert cached(restored, "big", None, lambda: "rebuilt") == "rebuilt"


# -- progress ---------------------------------------------------------------------------------
def test_show_writes_after_dict_config_disabled_the_package_logger(monkeypatch):
    """logging.config.dictConfig and fileConfig (disable_existing_loggers=True, their default)
    disable the "pymc_vsk" logger when it exists, and show() then wrote nothing at all."""
    logger = logging.getLogger(progress.LOGGER_NAME)
    monkeypatch.setattr(logger, "disabled", True)  # what dictConfig({"version": 1}) does
    buffer = io.StringIO()
    with progress.show(buffer):
        progress.report("compiling")
    assert buffer.getvalue() == "compiling\n"
    assert logger.disabled  # the application's set-up is back


# -- the memory limit -------------------------------------------------------------------------
def test_limits_below_a_gibibyte_are_written_in_their_unit():
    """With PYMC_VSK_MEMORY_LIMIT=1M the refusal said "about 0.0 GiB ..., above the limit of
    0.0 GiB"."""
    set_memory_limit("1M")
    with pytest.raises(MemoryError, match=r"about 2\.4 MiB .* above the limit of 1\.0 MiB"):
        check_dense(200, 200, "A dense GP on 200 points")
    set_memory_limit(0)
    with pytest.raises(MemoryError, match=r"above the limit of 0 bytes"):
        check_dense(2, 2, "A dense GP on 2 points")


def test_the_suggested_limit_is_enough():
    """The refusal of 20 000 points (23.8 GiB) suggested set_memory_limit('16G'), which
    refuses them again."""
    with pytest.raises(MemoryError) as err:
        check_dense(20_000, 20_000, "A dense GP on 20000 points")
    suggested = re.search(r"set_memory_limit\('(\w+)'\)", str(err.value)).group(1)
    set_memory_limit(suggested)
    check_dense(20_000, 20_000, "A dense GP on 20000 points")


@pytest.mark.parametrize("text", ["8i", "8iB", "1 iB"])
def test_a_binary_prefix_without_a_unit_is_no_size(monkeypatch, text):
    """'8iB' was read as 8 bytes."""
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", text)
    with pytest.raises(ValueError, match=r"PYMC_VSK_MEMORY_LIMIT=.* is not a size"):
        get_memory_limit()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("8G", 8 * 1024**3), ("8g", 8 * 1024**3), (" 8GiB ", 8 * 1024**3), ("1.5G", 1.5 * 1024**3)],
)
def test_the_environment_variable_is_read_at_each_check(monkeypatch, text, expected):
    monkeypatch.setenv("PYMC_VSK_MEMORY_LIMIT", text)
    assert get_memory_limit() == expected


# -- BLAS threads -----------------------------------------------------------------------------
def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_blas_threads_changes_nothing_until_entered_and_restores_after_an_error():
    """threadpoolctl sets its limit when constructed: blas_threads(1) made and never entered
    left BLAS at one thread for the rest of the process."""
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        if max(before, default=1) < 2:
            pytest.skip("no BLAS pool with more than one thread here")
        context = blas_threads(1)
        assert _blas_threads() == before
        with pytest.raises(RuntimeError), context:
            assert set(_blas_threads()) == {1}
            raise RuntimeError
        assert _blas_threads() == before


def test_blas_threads_refuses_what_is_no_thread_count():
    """0 and -1 limited nothing, silently; 1.5 failed inside threadpoolctl naming its own
    argument; True meant one thread."""
    for bad in (0, -1):
        with pytest.raises(ValueError, match="BLAS thread limit must be >= 1"):
            blas_threads(bad)
    for bad in (1.5, "2", True):
        with pytest.raises(TypeError, match="BLAS thread limit must be an integer"):
            blas_threads(bad)
    with blas_threads(np.int64(1)):
        assert set(_blas_threads()) <= {1}


# -- samplers ---------------------------------------------------------------------------------
def test_observation_count_of_an_expression_of_data():
    """An observed expression of a data container (observed=d * 2) failed with
    AttributeError: 'TensorVariable' object has no attribute 'data'."""
    with pm.Model() as model:
        d = pm.Data("d", np.arange(5.0))
        pm.Normal("y", 0, 1, observed=d * 2)
    assert observation_count(model) == 5
    d.set_value(np.arange(7.0))
    assert observation_count(model) == 7
