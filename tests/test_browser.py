"""A real browser (Debian's Chromium, driven by Playwright) against `newsarchive serve`."""

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

from store import access
from store.db import make_engine, make_sessionmaker

from .builders import FIRST, REWRITE, WRITE_THROUGH, ingest, ingest_generated, start_long_ingest, wire_records
from .conftest import ROOT, SEED_FILE, cli_env, ingest_into, scaled

pytestmark = pytest.mark.browser


@pytest.fixture
def database_url():
    """The browser drives the pages, which read the same Archive on either store: SQLite alone here (every
    storage test runs on both backends)."""
    return None


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


def serve(settings, **env):
    """`newsarchive serve` on `settings` (and NEWSARCHIVE_* `env`) in a subprocess, until the generator is
    closed; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "serve", "--port", str(port)],
        env=cli_env(settings, **env),
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

    ingest_generated(migrated, tmp_path)
    ingest(migrated, tmp_path, "versions", [FIRST, WRITE_THROUGH, REWRITE])
    yield from serve(migrated)


def _api(url: str) -> dict:

    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def test_research_session_in_chromium(research_server, tmp_path):
    """Exclude a source, choose two others, click a histogram bar, download the CSV and save the search,
    checking what the page shows at each step against the JSON API; expand a story into its versions and
    open one; then the pages at phone width."""

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
        assert {h.inner_text().split(" · ")[0] for h in page.locator(".hit .meta:not(.places)").all()} <= {
            "Reuters",
            "BBC News",
        }

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
            for path in (
                "/",
                "/search?q=report&not_source=Reuters",
                "/facets/place",
                "/saved",
                "/status",
                article_path,
            ):
                page.goto(research_server + path)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(research_server + "/search?q=report")
        page.screenshot(path=str(tmp_path / "search-390.png"), full_page=True)
        browser.close()
    assert errors == []


SHOTS = ROOT / "bench" / "out" / "screenshots"  # for review; bench/out is not committed
WIDTHS = (1280, 390)


def _no_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def _serious_violations(page) -> list[str]:

    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']}: {v['help']} ({', '.join(n['target'][0] for n in v['nodes'][:3])})"
        for v in found
        if v.get("impact") in ("serious", "critical")
    ]


def _small_targets(page, selector: str) -> list[str]:
    """Visible controls matching `selector` smaller than 44 px in both directions."""
    return page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
            .filter(e => e.offsetParent !== null)
            .map(e => [e, e.getBoundingClientRect()])
            .filter(([e, r]) => r.height < 44 && r.width < 44 || r.height < 24)
            .map(([e, r]) => `${e.tagName} ${e.textContent.trim().slice(0, 30)} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        selector,
    )


def test_reading_and_watching_at_desktop_and_phone_width(server, sample_archive, tmp_path):
    """At 1280 and 390 px: a search with numbered pages, a facet's "more" list, an article with its captions
    and the original download, and the status page while a file is read; no sideways scrolling, no serious
    accessibility violation (axe-core), big enough tap targets on the phone; screenshots in bench/out."""

    _require_browser()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for width in WIDTHS:
            phone = width < 800
            context = browser.new_context(
                viewport={"width": width, "height": 844 if phone else 900}, accept_downloads=True
            )
            page = context.new_page()
            errors = []
            page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)

            def check(name: str, page=page, width=width) -> None:
                assert _no_overflow(page), (width, name, "scrolls sideways")
                assert _serious_violations(page) == [], (width, name)
                page.screenshot(path=str(SHOTS / f"{width}-{name}.png"), full_page=True)

            # A search, typed; numbered pages; the filters behind a button on the phone.
            page.goto(server + "/")
            page.fill("input[name=q]", "the")
            page.press("input[name=q]", "Enter")
            page.wait_for_url("**/search?q=the")
            page.select_option("select[name=per_page]", "10")
            page.goto(server + "/search?per_page=2&sort=newest")
            assert page.locator(".pages a[aria-current=page]").inner_text() == "1"
            facets = page.locator("aside.facets")
            if phone:
                assert not facets.is_visible()
                page.click("details.filters > summary")
                assert facets.is_visible()
                assert _small_targets(page, ".facets a, .pages a, button, select, summary, .refine input") == []
            else:
                assert facets.is_visible() and not page.locator("details.filters > summary").is_visible()
            check("search")
            page.click(".pages a[aria-label='Page 3']")
            page.wait_for_url("**page=3**")
            assert page.locator(".pages a[aria-current=page]").inner_text() == "3"
            assert "sort=newest" in page.url and "per_page=2" in page.url

            # A facet cut short offers "more"; its list narrows by prefix and a value filters the search.
            page.goto(server + "/search?facet_size=2")
            if phone:
                page.click("details.filters > summary")
            page.click("a.more:has-text('More place values')")
            page.wait_for_url("**/facets/place**")
            page.fill("input[name=prefix]", "tu")
            page.press("input[name=prefix]", "Enter")
            page.wait_for_url("**prefix=tu**")
            check("facet")
            page.click(".facet-values a:text-is('Turkey')")
            page.wait_for_url("**place=Turkey**")
            assert page.inner_text(".total").startswith("2 results")

            # The article: captions with their credits, a human date, the original as a download.
            page.goto(server + "/search?q=kobani+caption:refugee")
            assert "Photo caption:" in page.inner_text(".hit")
            page.click(".hit h2 a")
            page.wait_for_url("**/articles/*")
            assert "Emrah Gurel" in page.inner_text(".captions")
            assert "30 Jan 2015" in page.inner_text(".metadata")
            assert str(sample_archive.home) not in page.content()
            check("article")
            with page.expect_download() as download:
                page.click("a:text-is('Download the original file')")
            assert open(download.value.path(), "rb").read() == SEED_FILE.read_bytes()

            # The keyboard alone reaches the search box and the first result, with a visible focus.
            page.goto(server + "/search?q=kobani")
            page.wait_for_function("document.activeElement.name === 'q'", timeout=5000)  # autofocus on the box
            page.keyboard.press("Tab")
            focused = []
            for _ in range(40):
                focused.append(page.evaluate("document.activeElement.outerHTML.slice(0, 60)"))
                # A date field's calendar button takes focus inside the field (the field itself is then not
                # :focus); Chromium draws that button's own focus ring, which page styles cannot reach.
                outline = page.evaluate(
                    "document.activeElement.matches(':focus') ? getComputedStyle(document.activeElement).outlineStyle"
                    " : 'drawn by the browser'"
                )
                assert outline != "none", focused[-1]
                page.keyboard.press("Tab")
            assert len(set(focused)) > 10
            # A skip link (the first stop) jumps over the search box and filters to the results.
            page.goto(server + "/search?q=kobani")
            page.wait_for_function("document.activeElement.name === 'q'", timeout=5000)
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Shift+Tab")
            assert page.evaluate("document.activeElement.textContent") == "Skip to the results"
            page.keyboard.press("Enter")
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.getAttribute('href')").startswith("/articles/")

            # The status page while a file is read, then what became of it.
            big = tmp_path / f"wire-{width}.jsonl"
            big.write_text(wire_records(scaled(6000), bad_every=1000).replace("Harbour", f"Harbour {width}"))
            process = start_long_ingest(sample_archive, big)
            try:
                deadline = time.monotonic() + 60
                while process.poll() is None and time.monotonic() < deadline:
                    page.goto(server + "/status")
                    if page.locator(".current").count():
                        assert big.name in page.inner_text(".current") and "records read" in page.inner_text(".current")
                        check("status-reading")
                        break
                    time.sleep(0.2)
                else:
                    raise AssertionError("the status page never showed the file being read")
            finally:
                process.wait(120)
            page.goto(server + "/status")
            row = page.locator("table.recent tr", has_text=big.name)
            assert "ingested" in row.inner_text() and "line 1000:" in row.inner_text()
            check("status-done")
            context.close()
            assert errors == [], (width, errors)
        browser.close()


ZORBLATT = {
    "headline": "Zorblatt merger talks collapse",
    "date": "2024-05-04",
    "source": "Reuters",
    "body": "Talks on the zorblatt merger collapsed on Tuesday, people close to the board said.",
}


@pytest.fixture
def login_server(migrated, tmp_path):
    """`newsarchive serve` in login mode: `main` for every signed-in user, `embargo` for the group desk."""
    engine = make_engine(migrated)
    with make_sessionmaker(engine).begin() as session:
        access.add_user(session, "dora", PASSWORD, "reader", ["desk"])
        access.add_user(session, "rita", PASSWORD, "reader")
        access.add_user(session, "ada", PASSWORD, "admin")
        access.create_collection(session, "embargo", grants=("group:desk",))
    engine.dispose()
    for name, items, collection in (("main", [FIRST], None), ("embargo", [ZORBLATT], "embargo")):
        folder = tmp_path / "drop" / name
        folder.mkdir(parents=True)
        (folder / "stories.json").write_text(json.dumps(items))
        if collection:
            (folder / ".newsarchive.json").write_text(json.dumps({"collection": collection}))
        ingest_into(migrated, [folder], expected=1)
    yield from serve(migrated, NEWSARCHIVE_ACCESS="login", NEWSARCHIVE_LOGIN_FAILURE_DELAY_MS="0")


PASSWORD = "correct horse battery"


def test_sign_in_search_a_restricted_collection_and_sign_out_at_desktop_and_phone_width(login_server):
    """At 1280 and 390 px: a visitor is sent to sign in; dora (of the group that may read `embargo`) finds
    its article; after signing out the same search sends her to sign in again; rita, signed in but not of
    the group, finds nothing."""
    _require_browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for width in WIDTHS:
            phone = width < 800
            context = browser.new_context(viewport={"width": width, "height": 844 if phone else 900})
            page = context.new_page()
            errors = []
            page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)

            def sign_in(name: str, page=page, width=width) -> None:
                page.goto(login_server + "/search?q=zorblatt")
                page.wait_for_url("**/login?next=**")
                assert _no_overflow(page) and _serious_violations(page) == [], (width, "login")
                page.fill("input[name=name]", name)
                page.fill("input[name=password]", PASSWORD)
                page.click(".login-form button")
                page.wait_for_url("**/search?q=zorblatt")

            sign_in("dora")
            assert page.inner_text(".total").startswith("1 result"), width
            assert page.inner_text(".hit h2") == ZORBLATT["headline"]
            assert "dora" in page.inner_text("header")
            assert _no_overflow(page) and _serious_violations(page) == [], (width, "search")
            page.screenshot(path=str(SHOTS / f"{width}-signed-in.png"), full_page=True)
            page.click("header button:text-is('Sign out')")
            page.wait_for_url("**/login")
            page.goto(login_server + "/search?q=zorblatt")
            page.wait_for_url("**/login?next=**")  # the same search no longer shows it
            assert "Zorblatt" not in page.content()

            sign_in("rita")
            assert "Zorblatt merger" not in page.inner_text("main")
            assert page.locator(".hit").count() == 0
            page.goto(login_server + "/account")  # her tokens: make one, see it once
            page.fill("#token-name", "my script")
            page.click(".token-form button")
            page.wait_for_url("**/account/tokens")  # the new page loaded, its stylesheet too, before it is measured
            assert page.inner_text(".new-token code.token").startswith("na_")
            assert _no_overflow(page) and _serious_violations(page) == [], (width, "account")
            page.click("header button:text-is('Sign out')")
            page.wait_for_url("**/login")

            sign_in("ada")  # the admin page: collections, users, tokens and the audit log
            page.goto(login_server + "/admin")
            assert "group:desk" in page.inner_text(".admin") and "token_create" in page.inner_text(".admin")
            assert _no_overflow(page) and _serious_violations(page) == [], (width, "admin")
            page.screenshot(path=str(SHOTS / f"{width}-admin.png"), full_page=True)
            page.click("header button:text-is('Sign out')")
            page.wait_for_url("**/login")
            context.close()
            assert errors == [], (width, errors)
        browser.close()
