"""Sphinx configuration of the pymc-vsk documentation.

Build it with warnings as errors (``tests/test_docs.py`` does the same)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The notebooks (``docs/notebooks`` links to the repository's ``notebooks/``) are committed
executed and are shown with their stored outputs: nothing is executed while building.
"""

from __future__ import annotations

import pymc_vsk

project = "pymc-vsk"
author = "pymc-vsk developers"
copyright = "pymc-vsk developers"
release = pymc_vsk.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# -- notebooks: shown as committed, never executed here ------------------------------------
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# -- API reference -------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections state the types
autodoc_member_order = "bysource"
# The class pages list their methods through autodoc's :members:; numpydoc's own member tables
# would document each method a second time (duplicate object descriptions).
numpydoc_show_class_members = False
# Types in the docstrings are plain text (``array-like, shape (n, d)``, ``pm.Model``): linking
# them would need intersphinx inventories of numpy, PyMC and pytensor, fetched from the web at
# every build; the build stays offline, so types are not cross-referenced. ``nitpicky`` is off:
# docstrings refer to re-exported names (``pymc_vsk.build_model``) and to PyMC's classes, which
# it would report; links between the pages of this site are checked by the -W build.
numpydoc_xref_param_type = False

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "pymc-vsk"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []
