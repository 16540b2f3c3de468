"""Griffe extension for the API reference: doctest examples render as code blocks, Sphinx roles as code.

The package's docstrings carry their short examples as doctest lines (``>>> ...`` and the expected output)
in the description, outside a NumPy ``Examples`` section.  Markdown reads a line that starts with ``>`` as
a quotation, so such an example would render as three nested quotes of run-on text.  This extension wraps
every run of doctest lines outside an ``Examples`` section (which mkdocstrings renders as code itself) in a
fenced ``pycon`` block.  A Sphinx role (``:func:`x```, ``:class:`~a.B```), which Markdown would show
raw, becomes plain code (```x```): the package's docstrings use backticks, and this keeps a role written
since from reaching the pages.  The docstring that ``help()`` shows is untouched: only the copy mkdocstrings
renders changes.  Configured in mkdocs.yml (``extensions`` of the python handler); not part of the package.
"""
from __future__ import annotations

import re

import griffe

_HEADER_RULE = re.compile(r"^\s*-{3,}\s*$")
_EXAMPLE_HEADERS = {"examples", "example"}
_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|attr|data|exc|obj):`~?([^`]+)`")


def fence_doctests(text: str) -> str:
    """Wrap each run of ``>>>`` lines (with its continuation and output lines) in a fenced pycon block.

    A run starts at a line whose stripped text starts with ``>>>`` and ends at the first blank line, the
    doctest convention.  Lines inside a NumPy ``Examples`` section are left alone, and a run inside another
    section starts an ``Examples`` section.

    >>> fence_doctests("Text.\\n\\n>>> 1 + 1\\n2\\n").splitlines()[2:5:2]
    ['```pycon', '2']
    """
    lines = text.split("\n")
    out: list[str] = []
    in_section = in_examples = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _HEADER_RULE.match(lines[i + 1]) and line.strip():
            in_section, in_examples = True, line.strip().lower() in _EXAMPLE_HEADERS
        if in_section and not in_examples and line.lstrip().startswith(">>>"):
            # inside another section (Parameters ...) a fence would be parsed as that section's items: the example
            # opens an Examples section of its own instead, which mkdocstrings renders as code
            if out and out[-1].strip():
                out.append("")
            out += ["Examples", "--------"]
            in_examples = True
        if not in_examples and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            run = []
            while i < len(lines) and lines[i].strip():
                run.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [indent + "```pycon", *(indent + r for r in run), indent + "```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples and unwrap the Sphinx roles of every docstring mkdocstrings loads."""

    def on_instance(self, *, node, obj, agent, **kwargs) -> None:
        if obj.docstring is None:
            return
        text = _ROLE.sub(r"`\1`", obj.docstring.value)
        obj.docstring.value = fence_doctests(text) if ">>>" in text else text
