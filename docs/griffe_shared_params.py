"""Griffe extension for the API reference: docstrings with shared parameters appear in full.

mkdocstrings reads docstrings from the source, where a Parameters section may hold a placeholder line
``{params: weights, domain}`` that :func:`onlinelab.core.docs.shared_params` fills in when the class is
defined.  For every object whose docstring has one, this extension imports the object and takes the filled
docstring, so the rendered page shows exactly what ``help(cls)`` and ``onlinelab show NAME`` show.
Configured in mkdocs.yml (``extensions`` of the python handler); not part of the package.
"""
from __future__ import annotations

import inspect

import griffe

from onlinelab.core.docs import PLACEHOLDER


class SharedParams(griffe.Extension):
    """Replace a docstring that holds ``{params: ...}`` by the imported object's filled-in docstring."""

    def on_instance(self, *, node, obj, agent, **kwargs) -> None:
        if obj.docstring is None or not PLACEHOLDER.search(obj.docstring.value):
            return
        path = obj.path
        if path.split(".")[0] == "environments":   # the checkout's folder, installed as onlinelab.environments
            path = "onlinelab." + path
        obj.docstring.value = inspect.cleandoc(griffe.dynamic_import(path).__doc__)
