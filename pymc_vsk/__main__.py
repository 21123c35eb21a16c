"""``python -m pymc_vsk`` is the ``pymc-vsk`` command."""

import sys

from pymc_vsk.cli import main

sys.exit(main())
