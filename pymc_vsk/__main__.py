"""``python -m pymc_vsk``: the ``pymc-vsk`` program's entry point (:mod:`pymc_vsk.cli`)."""

import sys

from pymc_vsk.cli import main

if __name__ == "__main__":
    sys.exit(main())
