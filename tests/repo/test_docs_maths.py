"""The built site typesets its maths, renders its API pages cleanly and lists every guide.

The theory pages write their formulas in LaTeX; pymdown-extensions' arithmatex (mkdocs.yml) wraps each in an
element of class ``arithmatex`` that MathJax typesets in the reader's browser.  These tests build the site
once (``mkdocs build --strict``, no network needed) and check the HTML: every theory page carries maths
markup, and no ``$`` or ``\\(`` is left in its prose, where it would show as a raw delimiter.  The API pages
show no raw Sphinx role (``:func:`...```) and render their doctest examples as code blocks.  A last test opens
the theory pages in a real headless browser and checks that MathJax typeset every formula without a TeX
error; it needs playwright and a Chromium (its skip reason says which is missing).
"""
from __future__ import annotations

import functools
import html.parser
import http.server
import pathlib
import re
import shutil
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
THEORY_PAGES = sorted(p.stem for p in (DOCS / "theory").glob("*.md"))
ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|attr|data|exc|obj):(?:<code|`)")
MATHJAX_CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/"


@pytest.fixture(scope="module")
def site(built_site) -> pathlib.Path:
    return built_site   # `mkdocs build --strict`, once per session (tests/repo/conftest.py)


def theory_html(site: pathlib.Path, stem: str) -> str:
    name = "index.html" if stem == "index" else f"{stem}/index.html"
    return (site / "theory" / name).read_text(encoding="utf-8")


class ProseText(html.parser.HTMLParser):
    """The text of a page's article, outside maths, code, scripts and styles: what a reader sees as prose."""

    SKIP = {"code", "pre", "script", "style"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []   # one entry per open element: is the text inside it skipped?
        self.chunks: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in {"br", "img", "hr", "input", "meta", "link", "col", "source", "wbr"}:
            return
        classes = (dict(attrs).get("class") or "").split()
        skipped = bool(self.stack and self.stack[-1]) or tag in self.SKIP or "arithmatex" in classes
        self.stack.append(skipped)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.chunks.append(data)


def prose(page_html: str) -> str:
    body = page_html[page_html.index('role="main"'):]
    parser = ProseText()
    parser.feed(body)
    return "".join(parser.chunks)


@pytest.mark.parametrize("stem", THEORY_PAGES)
def test_theory_pages_carry_typeset_maths_and_no_raw_delimiters(site, stem):
    page = theory_html(site, stem)
    assert 'class="arithmatex"' in page, f"theory/{stem}: no formula is marked up for MathJax"
    text = prose(page)
    for raw in ("$", "\\(", "\\)", "\\[", "\\]"):
        at = text.find(raw)
        assert at < 0, f"theory/{stem}: a raw {raw!r} outside maths: ...{text[max(0, at - 80):at + 80]}..."
    # TeX written outside maths shows as a backslash command in the prose (\frac, \mathbb, \sum ...)
    stray = re.search(r"\\[A-Za-z]{2,}", text)
    assert stray is None, f"theory/{stem}: TeX outside maths: ...{text[max(0, stray.start() - 80):stray.end() + 80]}..."


def test_api_pages_show_no_raw_roles_and_render_examples_as_code(site):
    pages = sorted((site / "api").glob("*/index.html"))
    assert pages
    examples = 0
    for path in pages:
        page = path.read_text(encoding="utf-8")
        role = ROLE.search(page)
        assert role is None, f"{path.parent.name}: raw role ...{page[max(0, role.start() - 80):role.end() + 80]}..."
        # a doctest line read as Markdown becomes nested quotations of run-on text
        assert "<blockquote>\n<blockquote>" not in page, f"{path.parent.name}: a '>>>' example rendered as quotes"
        examples += len(re.findall(r'<code class="language-pycon">&gt;&gt;&gt; ', page))
    assert examples >= 50, examples   # the package's docstrings carry well over a hundred examples


def test_api_pages_render_numpy_sections(site):
    page = (site / "api" / "learners" / "index.html").read_text(encoding="utf-8")
    assert page.count('<span class="doc-section-title">Parameters:</span>') >= 10
    assert "\n----------" not in prose(page)   # a NumPy section underline left as text


def test_menu_says_api_and_home_page_lists_every_guide(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r">\s*API\s*</a>", home) and not re.search(r">\s*Api\s*</a>", home)
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in sorted((DOCS / "guide").glob("*.md")):
        assert f"(guide/{page.name})" in index, f"docs/index.md does not link guide/{page.name}"


# --- a real browser -------------------------------------------------------------------------------------

def _browser_executable() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def served(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_mathjax_typesets_every_theory_formula_in_a_browser(served):
    sync_api = pytest.importorskip("playwright.sync_api", reason="no browser driver: pip install playwright")
    # MathJax comes from a CDN when a reader views the site; here the same files come from the MathJax copy of
    # the test extra (django-static-mathjax), so the test needs no network
    mathjax = pytest.importorskip("mathjax", reason="pip install django-static-mathjax (the test extra has it)")
    es5 = pathlib.Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    executable = _browser_executable()

    def from_local_copy(route):
        path = es5 / route.request.url[len(MATHJAX_CDN):].split("?")[0]
        if path.is_file():
            route.fulfill(path=str(path))
        else:
            route.abort()

    with sync_api.sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        except sync_api.Error as exc:
            pytest.skip(f"no headless Chromium is installed (apt-get install chromium, or playwright install "
                        f"chromium): {str(exc).splitlines()[0]}")
        page = browser.new_page()
        # nothing else from outside (the last route registered is tried first)
        page.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), lambda route: route.abort())
        page.route(MATHJAX_CDN + "**", from_local_copy)
        try:
            for stem in THEORY_PAGES:
                url = f"{served}/theory/" + ("" if stem == "index" else f"{stem}/")
                page.goto(url)
                page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000)
                page.evaluate("MathJax.startup.promise")
                marked = page.locator(".arithmatex").count()
                typeset = page.locator(".arithmatex mjx-container").count()
                errors = page.locator("mjx-merror").all_text_contents()
                assert marked > 0, stem
                assert typeset == marked, f"theory/{stem}: {typeset} of {marked} formulas typeset"
                assert not errors, f"theory/{stem}: TeX errors {errors[:5]}"
        finally:
            browser.close()
