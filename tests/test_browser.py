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


@pytest.fixture
def server(sample_archive):
    port = free_port()
    env = cli_env(sample_archive)
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "serve", "--port", str(port)],
        env=env,
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
