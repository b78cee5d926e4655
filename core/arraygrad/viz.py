"""A picture of the autograd graph: ``make_dot(output, params=dict(model.named_parameters()))``.

Returns Graphviz DOT source with no dependency; ``.render()`` draws SVG/PNG when
the ``graphviz`` package or the ``dot`` program is installed. Ops show their
backward name and the shapes of what they saved; leaves show their name (from
``params``) and shape; outputs are drawn as green boxes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node
    from arraygrad.tensor import Tensor

__all__ = ["Digraph", "make_dot"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class Digraph:
    """DOT source of a directed graph, savable as text and renderable with Graphviz."""

    def __init__(self, name: str = "autograd") -> None:
        self.name = name
        self._lines: list[str] = []

    def node(self, key: str, label: str, **attrs: Any) -> None:
        """Add a node; ``attrs`` become DOT attributes."""
        extra = "".join(f", {k}={_quote(str(v))}" for k, v in attrs.items())
        self._lines.append(f"  {_quote(key)} [label={_quote(label)}{extra}]")

    def edge(self, tail: str, head: str) -> None:
        """Add an edge."""
        self._lines.append(f"  {_quote(tail)} -> {_quote(head)}")

    @property
    def source(self) -> str:
        """The DOT text."""
        head = [f"digraph {_quote(self.name)} {{",
                '  node [style=filled, shape=box, align=left, fontsize=10, height=0.2, '
                'ranksep=0.1, fontname="monospace"]',
                "  graph [size=\"12,12\"]"]
        return "\n".join(head + self._lines + ["}"]) + "\n"

    def __str__(self) -> str:
        return self.source

    def save(self, path: str | Path) -> Path:
        """Write the DOT source to ``path``."""
        path = Path(path)
        path.write_text(self.source)
        return path

    def render(self, filename: str | Path = "graph", format: str = "svg") -> Path:  # noqa: A002
        """Draw the graph to ``filename.format`` with Graphviz (RuntimeError if unavailable)."""
        out = Path(f"{filename}.{format}")
        try:
            import graphviz  # optional extra

            graphviz.Source(self.source).render(outfile=str(out), format=format, cleanup=True)
            return out
        except ImportError:
            pass
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError("render: neither the graphviz package nor the 'dot' program is "
                               "installed; use .source or .save(path) for the DOT text")
        subprocess.run([dot, f"-T{format}", "-o", str(out)], input=self.source, text=True,
                       check=True)
        return out

    def _repr_svg_(self) -> str | None:  # notebooks
        try:
            return self.render("/tmp/arraygrad-graph", "svg").read_text()
        except Exception:
            return None


def _saved_lines(node: Node) -> list[str]:
    from arraygrad.autograd.graph import SavedOutput, SavedTensor

    lines = []
    for i, s in enumerate(getattr(node, "_saved", ()) or ()):
        if isinstance(s, SavedTensor):
            lines.append(f"saved[{i}]: {_shape(tuple(s.tensor.shape))}")
        elif isinstance(s, SavedOutput):
            lines.append(f"saved[{i}]: result {_shape(tuple(s.data.shape))}")
        elif s is not None:
            lines.append(f"saved[{i}]: {s!r}"[:50])
    return lines


def make_dot(var: Tensor | Sequence[Tensor], params: dict[str, Tensor] | None = None,
             show_attrs: bool = False, show_saved: bool = True,
             max_attr_chars: int = 50) -> Digraph:
    """The autograd graph behind ``var`` (a tensor or a sequence of tensors) as a ``Digraph``."""
    from arraygrad.autograd.graph import AccumulateGrad
    from arraygrad.tensor import Tensor

    names = {id(t): name for name, t in (params or {}).items()}
    outputs = [var] if isinstance(var, Tensor) else list(var)
    dot = Digraph()
    seen: set[Any] = set()
    stack = []
    for i, out in enumerate(outputs):
        key = f"out{i}:{id(out)}"
        dot.node(key, f"{names.get(id(out), 'output')}\n{_shape(tuple(out.shape))}",
                 fillcolor="darkolivegreen1")
        if out.grad_fn is not None:
            dot.edge(str(id(out.grad_fn)), key)
            stack.append(out.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            label = f"{names.get(id(leaf), '')}\n{_shape(tuple(leaf.shape))}".lstrip("\n")
            dot.node(str(id(node)), label, fillcolor="lightblue")
        else:
            lines = [node.name()] + (_saved_lines(node) if show_saved else [])
            dot.node(str(id(node)), "\n".join(lines), fillcolor="lightgrey")
        for edge in node._next:
            if edge is None:
                continue
            child = edge[0] if type(edge) is tuple else edge
            dot.edge(str(id(child)), str(id(node)))
            if id(child) not in seen:
                stack.append(child)
    return dot
