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
# set_predict_request and set_score_request are the metadata-routing methods scikit-learn adds
# to its estimators (VSKRegressor); their docstrings refer to scikit-learn's own user guide.
# rv_type is the class attribute PyMC sets on each distribution (MarginalNormal): the private
# random-variable operation behind it, not something to call.
autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    "exclude-members": "set_predict_request, set_score_request, rv_type",
}
autodoc_typehints = "none"  # numpydoc's Parameters sections state the types
autodoc_member_order = "bysource"
# The class pages list their methods through autodoc's :members:; numpydoc's own member tables
# would document each method a second time (duplicate object descriptions).
numpydoc_show_class_members = False
# Types in the docstrings are plain text (``array-like, shape (n, d)``, ``pm.Model``): linking
# them would need intersphinx inventories of numpy, PyMC and pytensor, fetched from the web at
# every build; the build stays offline, so types are not cross-referenced.
numpydoc_xref_param_type = False

# -- cross-references: every one must resolve ----------------------------------------------
# With -W (tests/test_docs.py), a reference to a name that is not on these pages fails the
# build: a docstring names a private or undocumented object as plain ``code``, a documented
# one by the name it is documented under. References to re-exported names
# (``pymc_vsk.build_model``) are resolved to their definitions by ``setup`` below, and private
# base classes are shown as their public bases (``_public_bases``).
nitpicky = True
# Objects of other libraries (the base classes of some classes here, a few names in the text):
# without intersphinx inventories (the build is offline) they cannot be linked. Listed one by
# one, so that a reference to anything else is still checked.
nitpick_ignore = [
    # PyMC
    ("py:class", "pymc.distributions.multivariate.MvNormal"),
    ("py:class", "pymc.gp.cov.Covariance"),
    ("py:class", "pymc.gp.gp.Marginal"),
    ("py:class", "pymc.gp.hsgp_approx.HSGP"),
    ("py:class", "pymc.logprob.transforms.Transform"),
    # pytensor
    ("py:class", "pytensor.compile.builders.OpFromGraph"),
    ("py:class", "pytensor.link.basic.PerformLinker"),
    # scikit-learn
    ("py:class", "sklearn.base.BaseEstimator"),
    ("py:class", "sklearn.base.RegressorMixin"),
    ("py:obj", "sklearn.gaussian_process.GaussianProcessRegressor"),
    # the Python standard library
    ("py:mod", "logging"),
]

# -- HTML ----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "pymc-vsk"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []


def _defined_name(target: str) -> str | None:
    """Where the object ``target`` (``pymc_vsk.NAME...``) is defined, if elsewhere."""
    import importlib

    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if module is None or qualname is None:
            return None
        defined = f"{module}.{qualname}"
        return defined if defined != target else None
    return None


def _link_reexported_names(app, env, node, contnode):
    """Resolve a reference to a re-exported name (``pymc_vsk.build_model``) to its definition.

    The API pages document each object once, in the module that defines it
    (``pymc_vsk.models.build_model``); docstrings may refer to it by the name users import.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    context = node.get("py:module") or ""
    candidates = [target] if target.startswith("pymc_vsk.") else []
    if context.startswith("pymc_vsk"):
        candidates.append(f"{context}.{target}")  # a name relative to the current module
    defined = next(filter(None, map(_defined_name, candidates)), None)
    if defined is None:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], defined, node, contnode
    )


def _public_bases(app, name, obj, options, bases):
    """Show a class's private bases (``_Lifted``) as their own public bases.

    A private base is not documented, so "Bases: _Lifted" would name a class the reader cannot
    look up; its public ancestors (``pymc.gp.cov.Covariance``) say what the class is.
    """

    def public(cls):
        if not (isinstance(cls, type) and cls.__name__.startswith("_")):
            return [cls]
        return [b for base in cls.__bases__ if base is not object for b in public(base)]

    shown = []
    for base in bases:
        shown += [b for b in public(base) if b not in shown]
    bases[:] = shown or [object]


def setup(app):
    app.connect("missing-reference", _link_reexported_names)
    app.connect("autodoc-process-bases", _public_bases)
