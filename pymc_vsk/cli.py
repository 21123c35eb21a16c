"""Command-line interface: ``pymc-vsk reproduce <experiment>`` and ``pymc-vsk detect-jumps``.

Experiment modules are imported only when their command runs, so ``--help`` is fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pymc_vsk.jumps import cli as detect
from pymc_vsk.paper import EXPERIMENTS, load

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: one ``reproduce`` sub-command per experiment, and ``detect-jumps``."""
    parser = argparse.ArgumentParser(
        prog="pymc-vsk",
        description="Variably scaled kernels for Gaussian-process regression in PyMC.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", help="reproduce an experiment of the paper")
    experiments = reproduce.add_subparsers(dest="experiment", required=True)
    for name, (_, description) in EXPERIMENTS.items():
        sub = experiments.add_parser(name, help=description, description=description)
        load(name).add_arguments(sub)
    description = "Fit a VSK GP with random jump locations to two columns of a CSV file."
    jumps = commands.add_parser(
        "detect-jumps", help=description.lower().rstrip("."), description=description
    )
    detect.add_arguments(jumps)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "reproduce":
        return load(args.experiment).main(args)
    if args.command == "detect-jumps":
        return detect.main(args)
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse rejects others


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
