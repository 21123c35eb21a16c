"""The ``pymc-vsk`` program: its entry point, which assembles the commands.

``pymc-vsk reproduce <experiment>`` runs a reproduction of the paper
(:mod:`pymc_vsk.paper`); ``pymc-vsk detect-jumps`` is the library's jump detector
(:mod:`pymc_vsk.jumps.cli`). This module and ``pymc_vsk/__main__.py`` (``python -m
pymc_vsk``) are the top of the package: they import the library and the paper subpackage, and
nothing imports them.

Progress goes to stderr (:mod:`pymc_vsk.progress`): the command's start line, then what the
experiment runs, one line per step of a sweep, compilations and slow MAP starts; results go
to stdout. ``--quiet`` (:func:`pymc_vsk.arguments.add_quiet_option`) silences stderr but for
warnings and errors, and leaves stdout as it is.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from pymc_vsk import progress
from pymc_vsk.arguments import directory_problem
from pymc_vsk.jumps import cli as detect
from pymc_vsk.memory import get_memory_limit
from pymc_vsk.paper import EXPERIMENTS, add_command_options, load

__all__ = ["BROKEN_PIPE", "INTERRUPTED", "build_parser", "main"]

#: Exit status when the reader of standard output goes away (``pymc-vsk ... | head``): the
#: status a shell reports for a program that the signal SIGPIPE ended, as Unix tools are.
BROKEN_PIPE = 128 + 13
#: Exit status when the user interrupts the command (Ctrl-C): that of a program the signal
#: SIGINT ended, as a shell reports it.
INTERRUPTED = 128 + 2


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: one ``reproduce`` sub-command per experiment, and ``detect-jumps``.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments the parser is for. An experiment's options come from its module, and
        importing them all takes about a second: with ``argv``, only the experiments it names
        get theirs (the others are listed, without options). Default: every experiment's.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = argparse.ArgumentParser(
        prog="pymc-vsk",
        description="Variably scaled kernels for Gaussian-process regression in PyMC.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_SubcommandParser)
    reproduce = commands.add_parser("reproduce", help="reproduce an experiment of the paper")
    experiments = reproduce.add_subparsers(dest="experiment", required=True)
    for name, (_, description) in EXPERIMENTS.items():
        sub = experiments.add_parser(name, help=description, description=description)
        if argv is None or name in argv:
            add_command_options(name, sub)
    description = (
        "Find the jumps of a series in two columns of a CSV file: how many, where, and how "
        "sure (the exact posterior of the segment model, or a VSK GP with random jump "
        "locations sampled by NUTS)."
    )
    jumps = commands.add_parser(
        "detect-jumps",
        help="find the jumps of a series: how many, where, and how sure",
        description=description,
    )
    detect.add_arguments(jumps)
    return parser


class _SubcommandParser(argparse.ArgumentParser):
    """The parser of a sub-command: it refuses the arguments it does not know itself.

    argparse hands a sub-command's unknown arguments up to the program's parser, whose error
    then shows the program's usage line (``pymc-vsk [-h] {reproduce,detect-jumps} ...``)
    instead of the options of the sub-command the user typed. The program has no options of
    its own for them to be, so the sub-command names them with its own usage. Sub-commands of
    a sub-command (``reproduce table1``) are of this class too.
    """

    def parse_known_args(
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status of the command.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    try:
        with _progress(args):
            if args.command == "reproduce":
                return _reproduce(args)
            if args.command == "detect-jumps":
                return detect.main(args)
    except BrokenPipeError:
        # the reader of stdout has gone (``| head``): stop as Unix tools do, without a
        # traceback, and send what Python still flushes at exit nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except KeyboardInterrupt:
        # Ctrl-C: one line instead of a traceback through pytensor; the files written so far
        # (and the report of ``reproduce all``, up to the last experiment that ended) stay
        name = " ".join(filter(None, [args.command, getattr(args, "experiment", None)]))
        print(f"pymc-vsk {name}: interrupted", file=sys.stderr)
        return INTERRUPTED
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse rejects others


def _reproduce(args: argparse.Namespace) -> int:
    """Run an experiment, once its output directory (if any) is known to take its files."""
    experiment = load(args.experiment)
    flag = experiment.OUTPUT_OPTION
    directory = getattr(args, flag.lstrip("-"), None)
    problem = _memory_limit_problem()
    if problem is None and directory is not None:
        problem = directory_problem(directory, flag)
    if problem is not None:
        print(f"pymc-vsk reproduce {args.experiment}: error: {problem}", file=sys.stderr)
        return 2
    progress.report(f"reproduce {args.experiment}: {EXPERIMENTS[args.experiment][1]}")
    return experiment.main(args)


def _memory_limit_problem() -> str | None:
    """Why ``PYMC_VSK_MEMORY_LIMIT`` is not a size, or ``None``: every experiment reads it,
    and those without a size option would otherwise end in a traceback at their first model."""
    try:
        get_memory_limit()
    except ValueError as err:
        return str(err)
    return None


def _progress(args: argparse.Namespace) -> contextlib.AbstractContextManager:
    """Progress on stderr, or none with ``--quiet``, for commands that have the option.

    A command without ``--quiet`` (:func:`pymc_vsk.arguments.add_quiet_option`) keeps the
    library's default (:mod:`pymc_vsk.progress`).
    """
    if not hasattr(args, "quiet"):
        return contextlib.nullcontext()
    return progress.quiet() if args.quiet else progress.show()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
