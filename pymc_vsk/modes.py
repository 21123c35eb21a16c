"""The compilation mode of the package's small functions: pytensor's Python path, no C at all.

A function evaluated a few hundred times or fewer (a MAP objective on a small data set, a
prediction, a scaling function on numpy arrays, a model's initial point) is best compiled on
pytensor's Python path, where each operation runs numpy (or LAPACK): it compiles in
milliseconds and its cost is the numerical work. pytensor's own ``FAST_COMPILE`` mode is
such a path, yet on the first call after installing it still compiles C code, for seconds:

* its virtual machine imports pytensor's C "lazy linker", compiled on first import;
* the inner function of an ``OpFromGraph`` operation (``pt.diag`` of a vector, which PyMC's
  GP predictions use, is one) is linked with C thunks, each compiled on first use.

:data:`PYTHON_MODE` compiles no C code: its linker (:class:`PythonLinker`) calls each
operation's Python ``perform`` in turn, and a rewrite (:data:`inline_inner_graphs`) replaces
``OpFromGraph`` operations by their inner graphs, keeping those that implement ``perform``
themselves. A numpy ufunc takes at most 32 operands, so another rewrite
(:data:`split_wide_sums`) writes a sum or product of more terms (ψ of many jumps is one) as
a tree of narrower ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import batched

import pytensor.scalar as ps
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.mode import Mode
from pytensor.compile.rewriting import inline_ofg_node
from pytensor.conditional.op import IfElse
from pytensor.graph import node_rewriter
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import dfs_rewriter
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.link.basic import PerformLinker
from pytensor.link.vm import VMLinker
from pytensor.tensor.elemwise import Elemwise

__all__ = ["MAX_OPERANDS", "PYTHON_MODE", "PythonLinker", "inline_inner_graphs", "split_wide_sums"]

#: The most operands (inputs and outputs together) a numpy ufunc takes, and with it
#: pytensor's Python ``Elemwise.perform``.
MAX_OPERANDS = 32


class PythonLinker(PerformLinker):
    """Runs each operation's Python ``perform`` in order (pytensor's ``PerformLinker``).

    A graph with a conditional (``pytensor.ifelse``), whose branches must be evaluated
    lazily, goes to pytensor's Python virtual machine instead, which evaluates them so (and
    imports the C lazy linker).
    """

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: object = None,
    ) -> PerformLinker | VMLinker:
        """Link ``fgraph`` with this linker, or with the Python virtual machine if it is lazy."""
        if any(isinstance(node.op, IfElse) for node in fgraph.apply_nodes):
            vm = VMLinker(allow_gc=self.allow_gc, use_cloop=False, c_thunks=False, lazy=True)
            return vm.accept(fgraph, no_recycling, profile)
        return super().accept(fgraph, no_recycling, profile)


def _inline_inner_graph(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Replace an ``OpFromGraph`` by its inner graph, unless it implements ``perform`` itself.

    Parameters
    ----------
    fgraph : FunctionGraph
    node : Apply
        An ``OpFromGraph`` node.

    Returns
    -------
    list of Variable, or None
        The inner graph's outputs on the node's inputs; None to keep the node.
    """
    if type(node.op).perform is not OpFromGraph.perform:
        return None
    return inline_ofg_node(node)


#: Rewrite that replaces each ``OpFromGraph`` node by its inner graph, unless its operation
#: implements ``perform`` itself (the rewriting function, ``_inline_inner_graph``, keeps a name
#: of its own, so that functions compiled with :data:`PYTHON_MODE` can be pickled).
inline_inner_graphs = node_rewriter([OpFromGraph])(_inline_inner_graph)


def _split_wide_sum(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """An elementwise sum or product of more terms than a ufunc takes (:data:`MAX_OPERANDS`),
    as sums or products of groups of terms; None for any other node.

    Parameters
    ----------
    fgraph : FunctionGraph
    node : Apply
        An ``Elemwise`` node.

    Returns
    -------
    list of Variable, or None
    """
    if not isinstance(node.op.scalar_op, ps.Add | ps.Mul) or len(node.inputs) < MAX_OPERANDS:
        return None
    terms = list(node.inputs)
    while len(terms) >= MAX_OPERANDS:
        groups = batched(terms, MAX_OPERANDS - 1)
        terms = [node.op(*group) if len(group) > 1 else group[0] for group in groups]
    return [node.op(*terms)]


#: Rewrite that splits an elementwise sum or product of more terms than a numpy ufunc takes
#: (:data:`MAX_OPERANDS`) into sums or products of groups of terms (``_split_wide_sum``).
split_wide_sums = node_rewriter([Elemwise])(_split_wide_sum)

#: pytensor's ``FAST_COMPILE`` rewrites (including those the Python path requires), with the
#: ``OpFromGraph`` operations inlined first and wide sums split last, linked by
#: :class:`PythonLinker`.
PYTHON_MODE = Mode(
    PythonLinker(), RewriteDatabaseQuery(include=["fast_compile", "py_only"])
).register((dfs_rewriter(inline_inner_graphs), -0.02), (dfs_rewriter(split_wide_sums), 48.9))
