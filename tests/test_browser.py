"""A real browser (Debian's Chromium, driven by Playwright) against `newsarchive serve`."""

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

from .conftest import ROOT, cli_env

pytestmark = pytest.mark.browser
CHROMIUM = os.environ.get("NEWSARCHIVE_CHROMIUM", "/usr/bin/chromium")


def _require_browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("NEWSARCHIVE_REQUIRE_BROWSER"):
            pytest.fail(f"no Chromium at {CHROMIUM}, and NEWSARCHIVE_REQUIRE_BROWSER is set")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(settings):
    """`newsarchive serve` on `settings` in a subprocess, until the generator is closed; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "serve", "--port", str(port)],
        env=cli_env(settings),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError(
                    "the server did not start: " + process.stdout.read().decode(errors="replace")
                ) from None
            time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(10)


@pytest.fixture
def server(sample_archive):
    yield from serve(sample_archive)


def test_search_facet_click_and_article_page_in_chromium(server, tmp_path):
    _require_browser()

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        page.goto(server + "/")
        page.fill("input[name=q]", "kobani")
        page.press("input[name=q]", "Enter")
        page.wait_for_url("**/search?q=kobani")
        assert page.inner_text(".total").startswith("2 results")
        assert page.locator(".hit mark").first.inner_text().lower() == "kobani"

        page.click(".facets a:has-text('The Associated Press')")
        page.wait_for_url("**source=The+Associated+Press**")
        assert page.inner_text(".total").startswith("2 results")
        page.click(".facets a:has-text('Turkey')")
        page.wait_for_url("**place=Turkey**")
        assert page.inner_text(".total").startswith("1 result")
        assert page.locator(".facets li.active").count() == 2

        page.click(".hit h2 a")
        page.wait_for_url("**/articles/*")
        assert "Islamic State fighters admit" in page.inner_text("h1")
        assert page.locator("figure").count() == 3
        assert "Emrah Gurel" in page.inner_text(".captions")
        page.screenshot(path=str(tmp_path / "article.png"))
        browser.close()
    assert errors == []  # no CSP violations or broken resources


@pytest.fixture
def research_server(migrated, tmp_path):
    """`newsarchive serve` on the generated archive of tests/test_research_search.py, with one story told
    three times (tests/test_stories.py)."""
    from .test_research_search import ingest_generated  # noqa: PLC0415
    from .test_stories import FIRST, REWRITE, WRITE_THROUGH, ingest  # noqa: PLC0415

    ingest_generated(migrated, tmp_path)
    ingest(migrated, tmp_path, "versions", [FIRST, WRITE_THROUGH, REWRITE])
    yield from serve(migrated)


def _api(url: str) -> dict:
    import json  # noqa: PLC0415

    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def test_research_session_in_chromium(research_server, tmp_path):
    """Exclude a source, choose two others, click a histogram bar, download the CSV and save the search,
    checking what the page shows at each step against the JSON API; expand a story into its versions and
    open one; then the pages at phone width."""
    import csv  # noqa: PLC0415

    from .test_stories import FIRST, REWRITE, WRITE_THROUGH  # noqa: PLC0415

    _require_browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(accept_downloads=True)
        page = context.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        def total() -> int:
            return int(page.inner_text(".total").split()[0].replace(",", ""))

        page.goto(research_server + "/search?q=report")
        everything = total()
        page.click("a[aria-label='Exclude The Associated Press']")
        page.wait_for_url("**not_source=The+Associated+Press**")
        assert "not The Associated Press" in page.inner_text(".facets")
        without_ap = total()
        assert without_ap < everything
        page.click(".facets a:text-is('Reuters')")
        page.wait_for_url("**source=Reuters**")
        page.click(".facets a:text-is('BBC News')")
        page.wait_for_url("**source=BBC+News**")
        api = _api(
            research_server + "/api/search?q=report&source=Reuters&source=BBC+News&not_source=The+Associated+Press"
        )
        assert total() == api["total"] > 0
        assert {h.inner_text().split(" · ")[0] for h in page.locator(".hit .meta").all()} <= {"Reuters", "BBC News"}

        bar = page.locator(".histogram a").filter(has=page.locator("rect.bar[height]:not([height='0'])")).first
        label = bar.get_attribute("aria-label")  # "2010: 7 hits"
        bar.click()
        page.wait_for_url("**from=*")
        assert total() == int(label.split(": ")[1].split()[0].replace(",", ""))
        assert page.input_value("input[name=from]").startswith(label.split(":")[0])

        with page.expect_download() as download:
            page.click(".export a:text-is('CSV')")
        rows = list(csv.DictReader(open(download.value.path(), encoding="utf-8")))
        assert len(rows) == total() and {row["source"] for row in rows} <= {"Reuters", "BBC News"}

        page.fill(".save input[name=name]", "Reuters and BBC reports")
        page.click(".save button")
        page.wait_for_url("**/saved")
        assert "Reuters and BBC reports" in page.inner_text(".saved")
        assert "Nothing new since you last looked" in page.inner_text(".saved")

        page.goto(research_server + "/search?q=steelmaker+furnaces")
        headlines = [h.inner_text() for h in page.locator(".hit h2").all()]
        assert len(headlines) == 1 and headlines[0] in {
            FIRST["headline"],
            WRITE_THROUGH["headline"],
            REWRITE["headline"],
        }
        page.click(".hit .versions a:text-is('3 versions of this story')")
        page.wait_for_url("**collapse=false**")
        versions = {h.inner_text() for h in page.locator(".hit h2").all()}
        assert versions == {FIRST["headline"], WRITE_THROUGH["headline"], REWRITE["headline"]}
        page.locator(".hit h2").get_by_role("link", name=REWRITE["headline"], exact=True).click()
        page.wait_for_url("**/articles/*")
        others = {a.inner_text() for a in page.locator("aside.versions li a").all()}
        assert others == {FIRST["headline"], WRITE_THROUGH["headline"]}
        article_path = page.url.split(research_server, 1)[1]

        for width in (360, 390, 414):  # no sideways scrolling at phone widths
            page.set_viewport_size({"width": width, "height": 800})
            for path in ("/search?q=report&not_source=Reuters", "/saved", article_path):
                page.goto(research_server + path)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(research_server + "/search?q=report")
        page.screenshot(path=str(tmp_path / "search-390.png"), full_page=True)
        browser.close()
    assert errors == []
