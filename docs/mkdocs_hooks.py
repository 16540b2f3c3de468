"""mkdocs hooks (mkdocs.yml ``hooks:``): section titles of the automatic navigation.

mkdocs.yml has no ``nav`` (tests/repo/test_docs.py forbids one, so that a new page is never hidden) and
mkdocs titles a folder by capitalising its name, which turns ``api/`` into "Api".  This hook renames the
sections whose capitalised name is wrong; every other title stays as mkdocs makes it.
"""
from mkdocs.structure.nav import Section

SECTION_TITLES = {"Api": "API"}


def _rename(items) -> None:
    for item in items:
        if isinstance(item, Section):
            item.title = SECTION_TITLES.get(item.title, item.title)
            _rename(item.children)


def on_nav(nav, config, files):
    """Rename the navigation's sections (mkdocs calls this once the navigation is built)."""
    _rename(nav.items)
    return nav
