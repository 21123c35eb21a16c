"""``python -m pymc_vsk``: the ``pymc-vsk`` program's entry point (:mod:`pymc_vsk.cli`)."""

import sys

from pymc_vsk.cli import main

sys.exit(main())
