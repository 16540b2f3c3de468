"""Shared parameter documentation (onlinelab.core.docs): a placeholder line becomes full numpydoc entries.

The expected texts below are written out by hand, not produced by the code under test.
"""
import importlib
import inspect
import pathlib
import pkgutil
import pydoc

import pytest

import onlinelab
import onlinelab.environments
from onlinelab.core.docs import PLACEHOLDER, Param, default_text, shared_params
from onlinelab.errors import ConfigError

TABLE = {
    "mode": Param('{"fast", "exact"}', "How to solve: a few sweeps, or to rounding."),
    "tol": Param("float", "Relative tolerance of the solve."),
    "X": Param("numpy.ndarray", "The points, one per row."),
    "seed": Param("int or None", "Seed of the random start; ``None`` draws one."),
}


def test_a_class_docstring_gets_full_entries_with_the_signatures_defaults():
    @shared_params(TABLE)
    class Solver:
        """Solve it.

        Parameters
        ----------
        {params: X, mode}
        k : int
            How many.
        {params: tol, seed}
        """

        def __init__(self, X, mode="fast", k=1, tol=1e-9, seed=None):
            pass

    assert inspect.getdoc(Solver) == (
        "Solve it.\n\nParameters\n----------\n"
        "X : numpy.ndarray\n    The points, one per row.\n"
        'mode : {"fast", "exact"}, default "fast"\n    How to solve: a few sweeps, or to rounding.\n'
        "k : int\n    How many.\n"
        "tol : float, default 1e-9\n    Relative tolerance of the solve.\n"
        "seed : int or None, default None\n    Seed of the random start; ``None`` draws one.")


def test_a_method_docstring_keeps_its_deeper_indentation():
    class Owner:
        @shared_params(TABLE)
        def fit(self, X, tol=0.5):
            """Fit.

            Parameters
            ----------
            {params: X, tol}
            """

    assert "\n            X : numpy.ndarray\n                The points, one per row.\n" in Owner.fit.__doc__
    assert inspect.getdoc(Owner.fit).endswith("tol : float, default 0.5\n    Relative tolerance of the solve.")


def test_long_descriptions_are_wrapped_without_splitting_hyphenated_words():
    words = " ".join(["log-barrier"] * 30)

    @shared_params({"reg": Param("str", words)})
    def f(reg="log-barrier"):
        """F.

        Parameters
        ----------
        {params: reg}
        """
    lines = inspect.getdoc(f).splitlines()[4:]
    assert len(lines) > 3 and all(len(line) <= 100 - 4 for line in lines)   # wrapped at 100 with the indentation
    assert " ".join(line.strip() for line in lines[1:]) == words


def test_the_first_table_that_has_the_name_wins():
    @shared_params({"tol": Param("float", "Own text.")}, TABLE)
    def f(tol=1.0):
        """F.

        Parameters
        ----------
        {params: tol}
        """
    assert "Own text." in f.__doc__ and "Relative tolerance" not in f.__doc__


@pytest.mark.parametrize("value, text", [("constant", '"constant"'), (None, "None"), (0.1, "0.1"), (1e-9, "1e-9"),
                                         (1e-10, "1e-10"), (2.5e20, "2.5e+20"), (3, "3"), (True, "True"),
                                         ((0, 2), "(0, 2)")])
def test_defaults_read_as_numpydoc_writes_them(value, text):
    assert default_text(value) == text


def test_a_name_in_no_table_is_refused_with_a_suggestion():
    with pytest.raises(ConfigError, match=r"shared parameter 'tols' is in none of the tables.*did you mean 'tol'"):
        @shared_params(TABLE)
        def f(tols=1.0):
            """F.

            Parameters
            ----------
            {params: tols}
            """


def test_a_name_the_signature_lacks_is_refused():
    with pytest.raises(ConfigError, match=r"takes no parameter 'seed'.*remove it from the placeholder"):
        @shared_params(TABLE)
        def f(tol=1.0):
            """F.

            Parameters
            ----------
            {params: tol, seed}
            """


def test_a_docstring_without_a_placeholder_is_refused():
    with pytest.raises(ConfigError, match=r"has no \{params: \.\.\.\} line"):
        @shared_params(TABLE)
        def f(tol=1.0):
            """F."""


def test_a_stripped_docstring_is_left_alone():   # python -OO removes docstrings
    def f(tol=1.0):
        pass
    assert shared_params(TABLE)(f) is f and f.__doc__ is None


def _objects():
    """Every class and function defined in onlinelab and onlinelab.environments, with their methods."""
    modules = []
    for package in (onlinelab, onlinelab.environments):
        modules.append(package)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            modules.append(importlib.import_module(info.name))
    for module in modules:
        for obj in vars(module).values():
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__ == module.__name__:
                yield obj
                if inspect.isclass(obj):
                    yield from (m for m in vars(obj).values() if inspect.isfunction(m))


def test_no_docstring_of_the_package_keeps_a_placeholder():
    left = [f"{obj.__module__}.{obj.__qualname__}" for obj in _objects()
            if obj.__doc__ and PLACEHOLDER.search(obj.__doc__)]
    assert not left, "docstrings with a {params: ...} line but no @shared_params decorator: " + ", ".join(left)


def test_help_and_onlinelab_show_see_the_shared_text(capsys):
    from onlinelab.cli.main import main
    from onlinelab.core.registry import learner_class
    text = "Round weights α_t > 0 (theory §3.1): 1, t, a fixed number, or one value per round."
    assert text in pydoc.render_doc(learner_class("ftl"), renderer=pydoc.plaintext)
    assert main(["show", "ftl"]) == 0
    assert text in capsys.readouterr().out


def test_the_api_reference_extension_is_configured():
    root = pathlib.Path(__file__).resolve().parents[2]
    assert "extensions: [docs/griffe_shared_params.py" in (root / "mkdocs.yml").read_text(encoding="utf-8")
    assert (root / "docs" / "griffe_shared_params.py").is_file()
