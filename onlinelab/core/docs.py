"""Parameter documentation written once and shared by every class that takes the parameter.

Many classes take a parameter that means the same thing in each (the OCO learners' ``weights`` and
``domain``, the streaming learners' ``k`` and ``step``, the data streams' ``batch``).  Its numpydoc text
lives once, in a table of `Param` beside the code it configures; a docstring names it with one
placeholder line in its Parameters section, ``{params: weights, domain}``, and the decorator
`shared_params` replaces that line, when the class is defined, by the full entries::

    weights : {"constant", "linear"}, float or list of float, default "constant"
        Round weights α_t > 0 (theory §3.1): 1, t, a fixed number, or one value per round.

The default is read from the signature, so it cannot drift from the code.  ``help(cls)``,
``inspect.getdoc``, ``onlinelab show NAME`` and the API reference (mkdocstrings, through the small griffe
extension ``docs/griffe_shared_params.py``) all see the expanded text.

>>> TABLE = {"k": Param("int", "Dimension of the tracked subspace, 1 ≤ k < d.")}
>>> @shared_params(TABLE)
... def track(X, k=1):
...     '''Track the top-k subspace of X.
...
...     Parameters
...     ----------
...     X : numpy.ndarray
...         The samples.
...     {params: k}
...     '''
>>> print(inspect.getdoc(track).split("----------")[1].strip())
X : numpy.ndarray
    The samples.
k : int, default 1
    Dimension of the tracked subspace, 1 ≤ k < d.
"""
from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Mapping
from typing import NamedTuple

from onlinelab.errors import ConfigError, did_you_mean

# a whole line of a Parameters section: "{params: name, name, ...}"
PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{params:(?P<names>[^}]*)\}[ \t]*$", flags=re.M)
WIDTH = 100   # description lines are wrapped to this many characters after their indentation


class Param(NamedTuple):
    """One parameter's shared documentation: its numpydoc type and its description.

    Attributes
    ----------
    type : str
        The type as numpydoc writes it, e.g. ``'{"constant", "linear"}, float or list of float'``; the
        default is added from the signature.
    text : str
        The description, one paragraph (wrapped when the docstring is filled in).
    """

    type: str
    text: str


def default_text(value) -> str:
    """How a default reads in a Parameters section: strings quoted, ``1e-09`` as ``1e-9``.

    Parameters
    ----------
    value : object
        The default from the signature.
    """
    if isinstance(value, str):
        return f'"{value}"'
    return re.sub(r"e([+-]?)0+(\d)", r"e\1\2", repr(value)) if isinstance(value, float) else repr(value)


def _entries(names: list[str], table: Mapping[str, Param], signature, owner: str, indent: str) -> str:
    lines = []
    for name in names:
        if name not in table:
            raise ConfigError(f"{owner}: shared parameter {name!r} is in none of the tables given to shared_params"
                              f"{did_you_mean(name, table)}; add it to a table or document it in place")
        if name not in signature.parameters:
            raise ConfigError(f"{owner} takes no parameter {name!r}, which its docstring names in {{params: ...}}; "
                              "remove it from the placeholder")
        doc, default = table[name], signature.parameters[name].default
        head = f"{indent}{name} : {doc.type}"
        lines.append(head if default is inspect.Parameter.empty else f"{head}, default {default_text(default)}")
        lines += textwrap.wrap(doc.text, WIDTH, initial_indent=indent + "    ", subsequent_indent=indent + "    ",
                               break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines)


def shared_params(*tables: Mapping[str, Param]):
    """Class or function decorator: fill each ``{params: a, b}`` line of the docstring from ``tables``.

    The first table that has a name wins.  The expanded entry is ``name : type, default <default>``
    followed by the shared description, indented like the placeholder line.  A name in no table, a name
    the signature lacks, or a docstring without a placeholder is a `onlinelab.errors.ConfigError`
    when the class is defined; a docstring stripped by ``python -OO`` is left alone.

    Parameters
    ----------
    *tables : mapping of str to Param
        Shared entries by parameter name, most specific first.
    """
    merged: dict[str, Param] = {}
    for table in reversed(tables):
        merged.update(table)

    def fill(obj):
        doc = obj.__doc__
        if doc is None:
            return obj
        owner = getattr(obj, "__qualname__", repr(obj))
        if not PLACEHOLDER.search(doc):
            raise ConfigError(f"{owner} is decorated with shared_params but its docstring has no {{params: ...}} "
                              "line; add one to its Parameters section or remove the decorator")
        signature = inspect.signature(obj)

        def expand(match):
            names = [n.strip() for n in match["names"].split(",") if n.strip()]
            return _entries(names, merged, signature, owner, match["indent"])
        obj.__doc__ = PLACEHOLDER.sub(expand, doc)
        return obj
    return fill
