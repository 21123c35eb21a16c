"""Progress messages of long computations, through the standard :mod:`logging` module.

What takes long is reported as INFO records of the logger ``"pymc_vsk"``, the way PyMC
reports its own ("Auto-assigning NUTS sampler…", logger ``"pymc"``):

* compiling: from the first time the package builds a compiled function on, every Numba
  compilation of a PyTensor graph that lasts longer than :data:`COMPILE_DELAY` seconds is
  announced (``compiling the model (once) …``) and its duration given when it ends
  (``compiled in 31.2 s``). A first run on a machine compiles the models to machine code;
  later runs load most of it from PyTensor's cache and say little;
* each start of a multi-start MAP fit (:func:`pymc_vsk.fit_map`: ``MAP start 3 of 8``), as a
  *detail*: the stderr handler of :func:`show` writes it only when its previous line is at least
  :data:`DETAIL_INTERVAL` seconds old, so a fast fit prints nothing and a slow one shows
  where it is;
* the steps of the paper's sweeps (``[ 3/12] seed 1, vsk``), with :class:`Steps`.

The command line shows them on stderr (it runs in :func:`show`), or nothing with
``--quiet`` (:func:`quiet`). Used as a library, pymc-vsk is silent unless asked, as Python's
logging guide wants of libraries: the records reach a user through the application's logging
set-up only (``logging.basicConfig(level=logging.INFO)`` shows them with PyMC's), or through
:func:`show`, one call in a notebook or a script. This departs on purpose from PyMC, which
attaches a stderr handler of its own when nothing is configured: PyMC says a few words per
sampling call, while a sweep says one line per step and a notebook or a loop over fits would
fill with them. PyMC's own messages and sampler progress bars are untouched (on, as PyMC
has them) unless :func:`quiet` is in force, which silences PyMC's INFO messages too and makes
:func:`bars` (the ``progressbar=`` to give a sampler) false. Nothing is changed on import and
nothing is written to stdout. Both switches work as a call or as a context manager:

>>> from pymc_vsk import progress
>>> with progress.quiet():
...     progress.bars()
False
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = [
    "COMPILE_DELAY",
    "DETAIL_INTERVAL",
    "LOGGER_NAME",
    "Steps",
    "Switch",
    "announce_compilation",
    "bars",
    "detail",
    "quiet",
    "report",
    "settle_pymc",
    "show",
]

#: Name of the logger the messages go to.
LOGGER_NAME = "pymc_vsk"
#: The stderr handler of this module writes a detail record only this many seconds after its
#: previous line.
DETAIL_INTERVAL = 1.0

_logger = logging.getLogger(LOGGER_NAME)
#: Whether :func:`quiet` is in force (then :func:`bars` is False).
_quiet = False


class _Throttle(logging.Filter):
    """Drop detail records that follow the previous line within ``interval`` seconds."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.last = -float("inf")

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        if getattr(record, "progress_detail", False) and now - self.last < self.interval:
            return False
        self.last = now
        return True


class _Handler(logging.StreamHandler):
    """One line per message to ``stream``, detail records throttled.

    Without a stream, the current ``sys.stderr`` is looked up at each message, so a replaced
    stderr (pytest, a notebook) is followed.
    """

    def __init__(self, stream: TextIO | None = None, interval: float = DETAIL_INTERVAL) -> None:
        logging.Handler.__init__(self)
        self._target = stream
        self.setFormatter(logging.Formatter("%(message)s"))
        self.addFilter(_Throttle(interval))

    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        return self._target if self._target is not None else sys.stderr


def _ours() -> list[_Handler]:
    return [h for h in _logger.handlers if isinstance(h, _Handler)]


def report(message: str) -> None:
    """Report a step of a long computation (an INFO record of the ``"pymc_vsk"`` logger).

    Parameters
    ----------
    message : str
        One line, without a trailing newline.
    """
    _logger.info(message, extra={"progress_detail": False})


def detail(message: str) -> None:
    """Report a sub-step (a MAP start), written to stderr only after a pause.

    The stderr handler of this module writes it only when its previous line is at least
    :data:`DETAIL_INTERVAL` seconds old; other handlers receive every record.

    Parameters
    ----------
    message : str
        One line, without a trailing newline.
    """
    _logger.info(message, extra={"progress_detail": True})


def bars() -> bool:
    """Whether samplers should show their progress bars: ``False`` under :func:`quiet`.

    Returns
    -------
    bool
    """
    return not _quiet


class Steps:
    """Numbered steps of a sweep, one line each: ``[ 3/12] seed 1, vsk``.

    Parameters
    ----------
    total : int
        Number of steps the sweep will report.
    title : str, optional
        What the sweep runs, reported at once (before any model is built).

    Examples
    --------
    >>> from pymc_vsk.progress import Steps
    >>> steps = Steps(2, "fitting two models")
    >>> steps.step("stationary")
    >>> steps.step("vsk")
    >>> steps.count
    2
    """

    def __init__(self, total: int, title: str | None = None) -> None:
        self.total = int(total)
        self.count = 0
        if title:
            report(title)

    def step(self, label: str) -> None:
        """Report the start of the next step.

        Parameters
        ----------
        label : str
            What the step does (e.g. ``"seed 1, vsk"``).
        """
        self.count += 1
        width = len(str(self.total))
        report(f"[{self.count:>{width}}/{self.total}] {label}")


# -- switches ---------------------------------------------------------------------------------
class Switch:
    """What :func:`show` and :func:`quiet` return: the way back to the previous set-up.

    As a context manager it restores the set-up when the block ends; otherwise call
    :meth:`restore`.
    """

    def __init__(self, apply: Callable[[], None]) -> None:
        pymc_logger = logging.getLogger("pymc")
        self._saved: dict[str, Any] = {
            "quiet": _quiet,
            "level": _logger.level,
            "disabled": _logger.disabled,
            "handlers": list(_logger.handlers),
            "pymc_level": pymc_logger.level,
            "pymc_imported": "pymc" in sys.modules,
        }
        apply()

    def __enter__(self) -> Switch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()

    def restore(self) -> None:
        """Put back the logging set-up found when the switch was made.

        PyMC imported since then gets the level its import gives its logger (INFO when
        logging is not configured), as if the switch had not been made.
        """
        global _quiet
        saved = self._saved
        _quiet = saved["quiet"]
        _logger.setLevel(saved["level"])
        _logger.disabled = saved["disabled"]
        for handler in list(_logger.handlers):
            if handler not in saved["handlers"]:
                _logger.removeHandler(handler)
        for handler in saved["handlers"]:
            if handler not in _logger.handlers:
                _logger.addHandler(handler)
        level = saved["pymc_level"]
        if not saved["pymc_imported"] and "pymc" in sys.modules and not logging.root.handlers:
            level = logging.INFO  # PyMC was imported meanwhile: the level its import sets
        logging.getLogger("pymc").setLevel(level)


def show(stream: TextIO | None = None) -> Switch:
    """Write the progress messages to ``stream`` (default stderr), whatever the logging set-up.

    This holds also after ``logging.config.dictConfig`` or ``fileConfig``, which disable the
    package's logger when it exists already.

    Parameters
    ----------
    stream : file-like, optional
        Where to write; default the current ``sys.stderr``.

    Returns
    -------
    Switch
        Use as ``with progress.show(): ...``, or call ``.restore()``.
    """

    def apply() -> None:
        global _quiet
        _quiet = False
        for handler in _ours():
            _logger.removeHandler(handler)
        _logger.addHandler(_Handler(stream))
        _logger.setLevel(logging.INFO)
        # logging.config.dictConfig and fileConfig disable the loggers that exist already
        _logger.disabled = False

    return Switch(apply)


def quiet() -> Switch:
    """Silence the progress messages, PyMC's INFO messages and sampler progress bars.

    Warnings and errors still show.

    Returns
    -------
    Switch
        Use as ``with progress.quiet(): ...``, or call ``.restore()``.
    """

    def apply() -> None:
        global _quiet
        _quiet = True
        _logger.setLevel(logging.WARNING)
        pymc_logger = logging.getLogger("pymc")
        pymc_logger.setLevel(logging.WARNING)
        if "pymc" not in sys.modules and not (pymc_logger.handlers or logging.root.handlers):
            # importing PyMC later sets its logger to INFO again (when the root logger has no
            # handlers), but adds its own handler only to a logger without one: this one is
            # PyMC's (stderr, the bare message) and drops what is below a warning while quiet
            handler = logging.StreamHandler()
            handler.addFilter(_QuietFilter())
            pymc_logger.addHandler(handler)

    return Switch(apply)


class _QuietFilter(logging.Filter):
    """Lets records of a warning or above through, and the others unless quiet."""

    def filter(self, record: logging.LogRecord) -> bool:
        if logging.root.handlers:  # logging set up since: PyMC's records go there, as PyMC does
            return False
        return not _quiet or record.levelno >= logging.WARNING


def settle_pymc() -> None:
    """Apply the current set-up to PyMC's logger once more.

    PyMC sets its logger to INFO when it is first imported (unless the root logger has
    handlers), which undoes :func:`quiet` when the import comes later: code that imports PyMC
    on use calls this after the import.
    """
    if _quiet:
        logging.getLogger("pymc").setLevel(logging.WARNING)


# -- compilation ------------------------------------------------------------------------------
#: A compilation is announced once it has lasted this many seconds (shorter ones are silent).
COMPILE_DELAY = 0.5


class _Compilation:
    """Announces compilations that last longer than ``delay`` s, and their duration at the end.

    :meth:`begin` starts a timer; when it fires before :meth:`end`, it reports
    ``compiling the model (once) …`` and :meth:`end` reports ``compiled in … s``.
    """

    def __init__(self, delay: float = COMPILE_DELAY) -> None:
        self.delay = delay
        self._lock = threading.Lock()
        self._token = 0
        self._started = 0.0
        self._announced = False
        self._timer: threading.Timer | None = None

    def begin(self) -> None:
        with self._lock:
            self._token += 1
            self._started = time.perf_counter()
            self._announced = False
            token = self._token
        if self.delay <= 0:
            self._announce(token)
            return
        self._timer = threading.Timer(self.delay, self._announce, args=(token,))
        self._timer.daemon = True
        self._timer.start()

    def _announce(self, token: int) -> None:
        with self._lock:
            if token == self._token and not self._announced:
                self._announced = True
                report("compiling the model (once) …")

    def end(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._token += 1  # a timer still on its way finds the compilation over
            if self._announced:
                self._announced = False
                report(f"compiled in {time.perf_counter() - self._started:.1f} s")


_announcer_lock = threading.Lock()
_announcer: object | None = None


def announce_compilation() -> None:
    """Announce every long compilation of a PyTensor graph by Numba from now on (idempotent).

    Called when the package first builds a compiled function
    (:func:`pymc_vsk.caching.cached`). A top-level compilation that lasts longer than
    :data:`COMPILE_DELAY` seconds reports ``compiling the model (once) …`` then, and
    ``compiled in … s`` when it ends; loading compiled code from PyTensor's cache is not a
    compilation and reports nothing. Until Numba has been imported (by a Numba compilation,
    a sampler, ...) this does nothing and is asked again at the next compiled function, so a
    fit on the Python path never imports Numba.
    """
    global _announcer
    with _announcer_lock:
        if _announcer is not None:
            return
        if "numba" not in sys.modules:
            # nothing has compiled with Numba yet: do not import it for a fit that runs on the
            # Python path; the next compiled function built asks again
            return
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba ships with pytensor
            _announcer = False
            return
        _announcer = _make_listener(event.Listener)(_Compilation())
        event.register("numba:compile", _announcer)


def _make_listener(base: type) -> type:
    """The Numba event listener class (built here: Numba is imported only when needed)."""

    class CompileListener(base):
        """Times the top-level Numba compilations of PyTensor graphs (nested ones are parts)."""

        def __init__(self, compilation: _Compilation) -> None:
            self.compilation = compilation
            self.depth = 0
            self.timing = False

        def on_start(self, event: Any) -> None:
            if self.depth == 0 and _from_pytensor(event):
                self.timing = True
                self.compilation.begin()
            self.depth += 1

        def on_end(self, event: Any) -> None:
            self.depth = max(self.depth - 1, 0)
            if self.depth == 0 and self.timing:
                self.timing = False
                self.compilation.end()

    return CompileListener


def _from_pytensor(event: Any) -> bool:
    """Whether a Numba compile event compiles a function of PyTensor's or of this package's
    (nutpie's callbacks)."""
    data = event.data or {}
    function = getattr(data.get("dispatcher"), "py_func", None)
    return getattr(function, "__module__", "").startswith(("pytensor", "pymc_vsk"))
