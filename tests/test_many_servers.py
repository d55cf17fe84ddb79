"""Several web servers, each with a home of its own (as on separate machines), on one PostgreSQL archive with
the index kept in it: nothing one of them keeps on its own disk is needed by another. A signed-in
reader's requests may land on any of them (the load balancer's choice); sign-ins, CSRF tokens, saved
searches and feeds live in the database or in the cookie signed with the shared NEWSARCHIVE_SECRET_KEY,
and originals in the shared NEWSARCHIVE_ARCHIVE_DIR.
"""

from __future__ import annotations

import re
import shutil

from store import access
from store.db import make_engine, make_sessionmaker, upgrade

from .conftest import SEED_FILE, database, ingest_into, make_settings, served

PASSWORD = "a long enough password for the test"
COOKIE = "newsarchive_session"


def _sign_in(client) -> None:
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    answer = client.post("/login", data={"name": "ada", "password": PASSWORD, "csrf_token": token, "next": "/"})
    assert answer.status_code == 303, answer.get_data(as_text=True)[:300]


def _move_browser(source, target) -> None:
    """The browser's next request goes to another server: it sends the same cookie."""
    target.set_cookie(COOKIE, source.get_cookie(COOKIE).value)


def _csrf(client) -> str:
    with client.session_transaction() as session:
        return session["csrf"]


def test_a_reader_moves_between_web_servers_without_noticing(tmp_path):
    with database("pgsearch") as url:
        common = {
            "access": "login",
            "login_failure_delay_ms": 0,
            "secret_key": "the same secret on every web server of this archive",
            "archive_dir": tmp_path / "shared" / "archive",  # a shared mount in a real deployment
        }
        ingester = make_settings(tmp_path / "ingester", url, **common)
        upgrade(ingester)
        engine = make_engine(ingester)
        with make_sessionmaker(engine).begin() as session:
            access.add_user(session, "ada", PASSWORD, "editor", ["newsroom"])
        engine.dispose()
        ingester.inbox.mkdir(parents=True)
        shutil.copy(SEED_FILE, ingester.inbox / SEED_FILE.name)
        ingest_into(ingester, [ingester.inbox], expected=1)

        servers = [make_settings(tmp_path / f"web-{n}", url, **common) for n in "ab"]
        with served(servers[0]) as app_a, served(servers[1]) as app_b:
            a, b = app_a.test_client(), app_b.test_client()
            _sign_in(a)
            _move_browser(a, b)
            assert b.get("/api/me").get_json()["user"] == "ada"

            # A search saved on b, with the CSRF token a's page gave, is listed on a; its feed reads on b.
            saved = b.post(
                "/saved", data={"params": "q=Suruç", "name": "Suruç", "csrf_token": _csrf(a)}, follow_redirects=False
            )
            assert saved.status_code == 303, saved.get_data(as_text=True)[:300]
            listed = a.get("/api/saved").get_json()["saved"]
            assert [s["name"] for s in listed] == ["Suruç"]
            feed = b.get(listed[0]["feed"])
            assert feed.status_code == 200 and "<entry>" in feed.get_data(as_text=True)

            # The original, kept by the ingester in the shared folder, downloads from either server.
            hit = a.get("/api/search", query_string={"q": "Suruç"}).get_json()["hits"][0]
            for client in (a, b):
                original = client.get(f"/articles/{hit['id']}/original")
                assert original.status_code == 200 and original.data == SEED_FILE.read_bytes()

            # Signing out on b ends the sign-in on a too.
            assert b.post("/logout", data={"csrf_token": _csrf(a)}).status_code in (302, 303)
            assert a.get("/api/me").get_json()["user"] is None
