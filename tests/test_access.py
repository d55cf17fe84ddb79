"""Who may see what (store/access.py, webapp/auth.py), on a real archive in `login` mode, on both backends.

The archive: `main` (every signed-in user), `press` (public) and `embargo` (the group `desk` only). The
embargoed articles hold words, a source, a writer, a photographer and a year found nowhere else, and one
of them is another version of a story `main` holds. An outsider (signed in or not, by session or token)
must find no trace of them anywhere; a member of `desk` finds them all.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import delete, select, update

from store import access
from store import saved as saved_searches
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import ApiToken, Article, AuditEvent, LoginFailure, SavedSearch, User
from store.read import Archive
from tests.backends import OUTSIDE_SAMPLE, conformance_database_url  # noqa: F401 (a fixture)
from tests.conftest import cli_env, database, ingest_into, make_settings, served
from webapp.auth import RULES
from webapp.cli import cli

PASSWORD = "correct horse battery"
USERS = {  # name: (role, groups)
    "ada": ("admin", ""),
    "eddie": ("editor", ""),
    "rita": ("reader", ""),
    "dora": ("reader", "desk"),
}
# Found only in embargoed articles; no request below ever names the first four, so any response that holds
# one of them has leaked it.
HIDDEN_MARKS = ("quibbleston", "quillfeather", "vexmore", "ottoline")
MOSTAR_BODY = (
    "MOSTAR, Bosnia (Reuters) - The old bridge over the Neretva river reopened to walkers on Saturday after "
    "months of repairs to its limestone arch, city officials said.\n\n"
    "Engineers replaced cracked blocks with stone cut from the same quarry used by the original builders, "
    "and divers who leap from the bridge each summer tested the new parapet."
)
MAIN = [
    {
        "headline": "Old bridge in Mostar reopens after repairs",
        "date": "2021-06-05",
        "source": "Reuters",
        "body": MOSTAR_BODY,
    },
    {
        "headline": "Harbour cranes return to Valletta port",
        "date": "2020-03-02",
        "source": "The Associated Press",
        "body": "VALLETTA, Malta (AP) — New cranes arrived at the Grand Harbour on Monday, the port authority said.",
    },
    {
        "headline": "Grain prices steady in Chicago trading",
        "date": "2022-09-14",
        "source": "Reuters",
        "body": "CHICAGO (Reuters) - Wheat and corn futures were little changed as traders weighed harvest reports.",
    },
]
FERRY_BODY = (
    "VALLETTA, Malta - The ferry service between Malta and Gozo resumed on Wednesday after two days of storms "
    "kept the boats in harbour, the operator said.\n\nQueues of lorries stretched back from the Cirkewwa "
    "terminal as the first crossings of the morning filled up, and extra sailings were added for the evening."
)
PRESS = [
    {
        "headline": "City library extends opening hours",
        "date": "2023-01-10",
        "source": "BBC News",
        "body": "The central library will open on Sundays from next month, the council said.",
    },
    {
        "headline": "Gozo ferry service resumes after storms",
        "date": "2023-02-01",
        "source": "BBC News",
        "body": FERRY_BODY,
    },
    {
        "headline": "Gozo ferries sail again; queues at Cirkewwa",
        "date": "2023-02-01",
        "source": "BBC News",
        "body": FERRY_BODY + "\n\nThe operator apologised for the delays.",
    },
]
EARLY = [  # stored before the public versions of its story: the story's id is a hidden article's
    {
        "headline": "Gozo ferry resumes, Quibbleston operator says",
        "date": "2023-02-01",
        "source": "Quillfeather Wire",
        "body": FERRY_BODY,
    }
]
EMBARGO = [
    {
        "headline": "Zorblatt merger talks collapse in Quibbleston",
        "date": "1999-05-04",
        "source": "Quillfeather Wire",
        "byline": "By Ottoline Vexmore",
        "body": "QUIBBLESTON (Quillfeather Wire) - Talks on the zorblatt merger collapsed on Tuesday, people close "
        "to the zorblatt board said, ending months of negotiation. Workers at the cranse yard walked out.",
        "images": [{"caption": "The zorblatt headquarters at dusk.", "credit": "Quillfeather Wire/Ottoline Vexmore"}],
    },
    {  # another version of the Mostar story, with a line of its own
        "headline": "Mostar bridge reopens; quibbleston engineers praised",
        "date": "2021-06-05",
        "source": "Quillfeather Wire",
        "body": MOSTAR_BODY + "\n\nThe quibbleston engineering firm that led the work was praised by the mayor.",
    },
    {  # related to the grain report in `main` (shares its telling words), not a version of it
        "headline": "Wheat futures slide as harvest reports weigh on Chicago traders",
        "date": "2022-09-15",
        "source": "Quillfeather Wire",
        "body": "CHICAGO (Quillfeather Wire) - Wheat and corn futures slid on Thursday as traders in Chicago weighed "
        "harvest reports from the plains, quibbleston analysts said.\n\nCorn harvest estimates rose while "
        "wheat traders cut their positions before the weekend.",
    },
]


def _write(folder: Path, items: list[dict], collection: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "stories.json").write_text(json.dumps(items))
    if collection:
        (folder / ".newsarchive.json").write_text(json.dumps({"collection": collection}))
    return folder


def build(settings, tmp_path: Path) -> dict:
    """Users, collections and articles of the module's archive; returns the ids by headline."""
    engine = make_engine(settings)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        for name, (role, groups) in USERS.items():
            access.add_user(session, name, PASSWORD, role, groups.split(","))
        access.create_collection(session, "press", public=True, grants=())
        access.create_collection(session, "embargo", grants=("group:desk",))
    inbox = tmp_path / "drop"
    ingest_into(settings, [_write(inbox / "early", EARLY, "embargo")], expected=len(EARLY))
    ingest_into(settings, [_write(inbox / "main", MAIN)], expected=len(MAIN))
    ingest_into(settings, [_write(inbox / "press", PRESS, "press")], expected=len(PRESS))
    ingest_into(settings, [_write(inbox / "embargo", EMBARGO, "embargo")], expected=len(EMBARGO))
    with sessions() as session:
        ids = {a.headline: a.id for a in session.scalars(select(Article))}
    engine.dispose()
    return ids


@pytest.fixture(scope="module", params=OUTSIDE_SAMPLE)
def archive(request, tmp_path_factory):
    """The module's login-mode archive (each backend), served; tests that change permissions restore them."""
    with database(request.param) as url:
        home = tmp_path_factory.mktemp("access")
        settings = make_settings(home / "home", url, access="login", login_failure_delay_ms=0)
        upgrade(settings)
        ids = build(settings, home)
        with served(settings) as app:
            yield app, settings, ids


def signed_in(app, name: str):
    client = app.test_client()
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    answer = client.post("/login", data={"name": name, "password": PASSWORD, "csrf_token": token, "next": "/"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/", answer.get_data(as_text=True)[:300]
    return client


def csrf_of(client) -> str:
    with client.session_transaction() as session:
        return session.get("csrf") or ""


def make_token(settings, user: str, scope: str = "read", days: int = 30) -> str:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["tokens", "create", user, "--scope", scope, "--days", str(days)], env=cli_env(settings)
    )
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


class Bearer:
    """A test client that sends an API token on every request."""

    def __init__(self, app, token: str) -> None:
        self.client = app.test_client()
        self.token = token

    def open(self, method: str, url: str, **kw):
        headers = dict(kw.pop("headers", {}) or {})
        headers["Authorization"] = f"Bearer {self.token}"
        return self.client.open(url, method=method, headers=headers, **kw)

    def get(self, url: str, **kw):
        return self.open("GET", url, **kw)


def get(client, url: str):
    """GET with a test client or a Bearer."""
    return client.get(url)


# -- the authorisation walk -----------------------------------------------------------------------------------

DENIED = {
    # rule: the principals it refuses (by name below)
    "public": set(),
    "write": {"rita-read-token", "ada-read-token"},  # sign-out: a read token changes nothing
    "read": set(),  # the archive has a public collection: nobody is refused, each sees what they may
    "feed": set(),
    "signed_in": {"nobody"},
    "write_signed_in": {"nobody", "rita-read-token", "ada-read-token"},
    "editor": {"nobody", "rita", "dora", "rita-read-token", "ada-read-token"},
    "write_editor": {"nobody", "rita", "dora", "rita-read-token", "ada-read-token"},
    "admin": {"nobody", "rita", "eddie", "dora", "rita-read-token", "ada-read-token"},
    "write_admin": {"nobody", "rita", "eddie", "dora", "rita-read-token", "ada-read-token"},
}


def _refused(response, method: str = "GET") -> bool:
    """Whether the access rule refused (not a failed sign-in, a missing item or a bad parameter)."""
    if response.status_code == 403 or (response.status_code == 401 and "WWW-Authenticate" in response.headers):
        return True
    sent_to_sign_in = response.headers.get("Location", "").startswith("/login")
    return method == "GET" and response.status_code in (302, 303) and sent_to_sign_in


def test_every_route_has_a_rule_and_every_principal_gets_what_it_allows(archive):
    app, settings, ids = archive
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert endpoints - set(RULES) == set(), "a route without an access rule: add it to webapp/auth.py RULES"
    assert set(RULES) - endpoints == set(), "a rule for a route that no longer exists"

    clients = {"nobody": app.test_client()}
    for name in USERS:
        clients[name] = signed_in(app, name)
    clients["rita-read-token"] = Bearer(app, make_token(settings, "rita"))
    clients["ada-read-token"] = Bearer(app, make_token(settings, "ada"))
    clients["ada-admin-token"] = Bearer(app, make_token(settings, "ada", "admin"))
    visible_id = ids["Harbour cranes return to Valletta port"]
    values = {"article_id": visible_id, "saved_id": 1, "name": "source", "filename": "style.css", "token_id": 10**6}
    walked = 0
    try:
        walked = _walk(app, clients, values)
    finally:  # the walk saved searches: the module's other tests start without them
        engine = make_engine(settings)
        with make_sessionmaker(engine).begin() as session:
            session.execute(delete(SavedSearch))
        engine.dispose()
    assert walked > 200


def _walk(app, clients: dict, values: dict) -> int:
    walked = 0
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.endpoint == "auth.logout"):
        url = rule.build({k: v for k, v in values.items() if k in rule.arguments}, append_unknown=False)[1]
        if rule.endpoint == "auth.assign":
            url = "/api/collections/main/articles"
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            for who, client in clients.items():
                kwargs = {}
                if method == "POST":
                    if isinstance(client, Bearer):
                        kwargs["json"] = {"ids": []}
                    else:
                        kwargs["data"] = {"csrf_token": csrf_of(client), "params": "q=bridge", "name": "walk"}
                        kwargs["headers"] = {"X-CSRF-Token": csrf_of(client)}
                        if rule.endpoint == "auth.assign":
                            kwargs = {"json": {"ids": []}, "headers": {"X-CSRF-Token": csrf_of(client)}}
                if rule.endpoint == "auth.login" and who != "nobody":
                    continue  # signing in again as someone else is the sign-in tests' business
                response = (
                    client.open(method, url, **kwargs)
                    if isinstance(client, Bearer)
                    else client.open(url, method=method, **kwargs)
                )
                body = response.get_data(as_text=True)  # read to the end (an export streams)
                assert response.status_code < 500, (rule.endpoint, who, body[:300])
                expected = who in DENIED[RULES[rule.endpoint]]
                assert _refused(response, method) == expected, (rule.endpoint, method, who, response.status_code)
                walked += 1
    return walked


def test_write_routes_refuse_a_missing_or_forged_csrf_token(archive):
    app, settings, ids = archive
    client = signed_in(app, "ada")
    writes = [
        (rule, method)
        for rule in app.url_map.iter_rules()
        for method in rule.methods
        if method == "POST" and rule.endpoint not in ("auth.login",)
    ]
    assert len(writes) >= 8
    for rule, _ in writes:
        url = rule.build({"saved_id": 1, "token_id": 1, "name": "main"}, append_unknown=False)[1]
        for token in ("", "forged"):
            answer = client.post(url, data={"csrf_token": token, "params": "q=x", "name": "x", "group": "desk"})
            assert answer.status_code == 400, (rule.endpoint, token, answer.status_code)
            assert "csrf" in answer.get_data(as_text=True).lower()
    # The sign-in form too (a forged sign-in would put a victim in the attacker's account).
    anonymous = app.test_client()
    answer = anonymous.post("/login", data={"name": "ada", "password": PASSWORD, "csrf_token": "forged"})
    assert answer.status_code == 400


# -- nothing leaks ------------------------------------------------------------------------------------------------


def _texts_of_every_read_route(client, ids: dict, max_id: int) -> dict[str, str]:
    """Every page and API answer an outsider might use to look, by URL."""
    urls = [
        "/",
        "/search",
        "/search?q=zorblatt",
        "/search?q=zorblat",
        "/search?q=mostar+bridge",
        "/search?q=mostar&per_page=50&collapse=false",
        "/search?year=1999",
        "/api/search",
        "/api/search?q=zorblatt",
        "/api/search?q=zorblat",
        "/api/search?q=zorblatt%20merger%20talks%20collapse",
        "/api/search?q=mostar",
        "/api/search?q=bridge&collapse=false&per_page=50",
        "/api/search?q=engineers%20praised&per_page=50",
        "/api/search?q=ferry&collapse=false",
        "/api/facets/story?q=ferry",
        "/facets/story?q=gozo",
        "/search?q=gozo",
        "/api/search?interval=year",
        "/api/search?source=Reuters&facet_size=100",
        "/api/facets/source",
        "/api/facets/byline",
        "/api/facets/credit",
        "/api/facets/year",
        "/api/facets/story",
        "/facets/source",
        "/facets/story",
        "/api/search.csv",
        "/api/search.jsonl?text=body",
        "/api/search.jsonl?q=zorblatt",
        "/api/collections",
        "/saved",
        "/api/saved",
        "/healthz",
        "/api/me",
    ]
    for article_id in range(1, max_id + 4):  # ids guessed in sequence
        urls += [
            f"/api/articles/{article_id}",
            f"/articles/{article_id}",
            f"/api/articles/{article_id}/versions",
            f"/api/articles/{article_id}/related?limit=50",
            f"/articles/{article_id}/original",
        ]
    return {url: get(client, url).get_data(as_text=True) for url in urls}


def test_an_outsider_finds_no_trace_of_a_collection_they_may_not_read(archive):
    app, settings, ids = archive
    hidden_ids = {ids[a["headline"]] for a in EMBARGO + EARLY}
    max_id = max(ids.values())
    outsiders = {
        "nobody": app.test_client(),
        "rita": signed_in(app, "rita"),
        "eddie": signed_in(app, "eddie"),
        "rita-token": Bearer(app, make_token(settings, "rita")),
    }
    for who, client in outsiders.items():
        texts = _texts_of_every_read_route(client, ids, max_id)
        for url, text in texts.items():
            low = text.lower()
            for mark in HIDDEN_MARKS:
                assert mark not in low, (who, url, mark)
            if "zorblatt" not in url:
                assert "zorblatt" not in low, (who, url)
        for hidden in hidden_ids:  # guessed ids: the same 404 as an id that does not exist
            for url in (
                f"/api/articles/{hidden}",
                f"/api/articles/{hidden}/versions",
                f"/api/articles/{hidden}/related",
            ):
                answer = get(client, url)
                absent = get(client, url.replace(str(hidden), str(max_id + 50)))
                assert answer.status_code == absent.status_code == 404, (who, url)
                assert answer.get_json() == json.loads(
                    json.dumps(absent.get_json()).replace(str(max_id + 50), str(hidden))
                ), (who, url)
            assert get(client, f"/articles/{hidden}").status_code == 404
            assert get(client, f"/articles/{hidden}/original").status_code == 404
        answer = get(client, "/api/search?q=zorblatt").get_json()
        assert answer["total"] == 0 and answer["hits"] == [] and answer["suggestion"] is None, who
        assert get(client, "/api/search?q=zorblat").get_json()["suggestion"] is None, who
        if who != "nobody":  # a word only hidden articles hold is corrected as if no article held it
            assert get(client, "/api/search?q=cranse").get_json()["suggestion"] == "cranes", who
        every = get(client, "/api/search?per_page=100&collapse=false&interval=year").get_json()
        assert hidden_ids.isdisjoint(h["id"] for h in every["hits"])
        assert "1999" not in {b["key"] for b in every["histogram"]["buckets"]}
        assert sum(b["count"] for b in every["histogram"]["buckets"]) + every["histogram"]["undated"] == every["total"]
        mostar = get(client, "/api/search?q=mostar").get_json()
        assert [h["versions"] for h in mostar["hits"]] == ([] if who == "nobody" else [1]), (who, mostar["hits"])
        export = get(client, "/api/search.jsonl?collapse=false").get_data(as_text=True).splitlines()
        assert hidden_ids.isdisjoint(json.loads(line)["id"] for line in export)
        if who != "nobody":
            visible_mostar = ids[MAIN[0]["headline"]]
            versions = get(client, f"/api/articles/{visible_mostar}/versions").get_json()
            assert hidden_ids.isdisjoint(v["id"] for v in versions["versions"])
            page = get(client, f"/articles/{visible_mostar}").get_data(as_text=True)
            assert "quibbleston" not in page.lower()
    # Anonymous visitors read the public collection only.
    nobody = outsiders["nobody"].get("/api/search?per_page=100&collapse=false").get_json()
    assert {h["headline"] for h in nobody["hits"]} == {a["headline"] for a in PRESS}
    # The ferry story's first article is hidden: its label is the first version the reader may read.
    stories = outsiders["rita"].get("/api/search?q=ferry").get_json()["facets"]["story"]
    assert [(s["label"], s["count"]) for s in stories] == [(PRESS[1]["headline"], 2)]


def test_a_permitted_reader_finds_them_everywhere(archive):
    app, settings, ids = archive
    hidden = {ids[a["headline"]] for a in EMBARGO + EARLY}
    grain = ids[MAIN[2]["headline"]]
    for who, client in {"dora": signed_in(app, "dora"), "ada": signed_in(app, "ada")}.items():
        related = client.get(f"/api/articles/{grain}/related").get_json()["related"]
        assert ids[EMBARGO[2]["headline"]] in {r["id"] for r in related}, (who, related)
        answer = client.get("/api/search?q=zorblatt").get_json()
        assert {h["id"] for h in answer["hits"]} == {ids[EMBARGO[0]["headline"]]}, who
        assert client.get("/api/search?q=zorblat").get_json()["suggestion"] == "zorblatt"
        kept = client.get("/api/search?q=cranse").get_json()
        assert kept["suggestion"] is None and kept["total"] == 1, who
        facets = client.get("/api/search?facet_size=100").get_json()["facets"]
        assert "Quillfeather Wire" in {v["value"] for v in facets["source"]}
        assert "1999" in {v["value"] for v in facets["year"]}
        assert any("Vexmore" in v["value"] for v in facets["byline"]), facets["byline"]
        mostar = client.get("/api/search?q=mostar%20bridge%20reopens").get_json()
        assert max(h["versions"] for h in mostar["hits"]) == 2
        for article_id in hidden:
            assert client.get(f"/api/articles/{article_id}").status_code == 200
            assert client.get(f"/articles/{article_id}").status_code == 200
        visible_mostar = ids[MAIN[0]["headline"]]
        versions = client.get(f"/articles/{visible_mostar}").get_data(as_text=True)
        assert "quibbleston" in versions.lower()
        export = client.get("/api/search.jsonl?collapse=false").get_data(as_text=True).splitlines()
        assert hidden <= {json.loads(line)["id"] for line in export}


def test_permissions_change_without_reindexing_and_apply_on_the_next_request(archive):
    app, settings, ids = archive
    rita = signed_in(app, "rita")
    runner = CliRunner()
    env = cli_env(settings)
    assert rita.get("/api/search?q=zorblatt").get_json()["total"] == 0
    try:
        result = runner.invoke(cli, ["collections", "grant", "embargo", "user:rita"], env=env)
        assert result.exit_code == 0, result.output
        assert rita.get("/api/search?q=zorblatt").get_json()["total"] == 1
        result = runner.invoke(cli, ["collections", "rename", "embargo", "held-back"], env=env)
        assert result.exit_code == 0, result.output
        assert rita.get("/api/search?q=zorblatt").get_json()["total"] == 1
    finally:
        runner.invoke(cli, ["collections", "rename", "held-back", "embargo"], env=env)
        result = runner.invoke(cli, ["collections", "revoke", "embargo", "user:rita"], env=env)
        assert result.exit_code == 0, result.output
    assert rita.get("/api/search?q=zorblatt").get_json()["total"] == 0
    # Moving one article into the public collection shows it to everyone; moving it back hides it again.
    zorblatt = ids[EMBARGO[0]["headline"]]
    try:
        result = runner.invoke(cli, ["collections", "assign", "press", "--ids", str(zorblatt)], env=env)
        assert result.exit_code == 0 and "moved 1 " in result.output, result.output
        assert app.test_client().get("/api/search?q=zorblatt").get_json()["total"] == 1
    finally:
        result = runner.invoke(cli, ["collections", "assign", "embargo", "--ids", str(zorblatt)], env=env)
        assert result.exit_code == 0, result.output
    assert app.test_client().get("/api/search?q=zorblatt").get_json()["total"] == 0
    listed = runner.invoke(cli, ["collections", "list", "--json"], env=env).output.splitlines()
    embargo = next(json.loads(line) for line in listed if json.loads(line)["name"] == "embargo")
    assert embargo == {
        "id": embargo["id"],
        "name": "embargo",
        "public": False,
        "readable_by": ["group:desk"],
        "sources": [],
        "articles": len(EMBARGO + EARLY),
    }
    events = runner.invoke(cli, ["audit", "--json", "--limit", "20"], env=env).output.splitlines()
    actions = [json.loads(e)["action"] for e in events]
    assert {"collection_grant", "collection_revoke", "collection_rename", "collection_assign"} <= set(actions)


# -- tokens, sign-in, lockout, sessions ------------------------------------------------------------------------------


def test_tokens_are_shown_once_stored_hashed_scoped_expire_and_revoke_at_once(archive):
    app, settings, ids = archive
    raw = make_token(settings, "dora")
    client = Bearer(app, raw)
    assert client.get("/api/search?q=zorblatt").get_json()["total"] == 1
    assert client.get("/api/audit").status_code == 403  # a read token, and dora is no admin
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine).begin() as session:
            row = session.scalars(select(ApiToken).order_by(ApiToken.id.desc())).first()
            assert raw not in (row.token_hash, row.prefix) and len(row.token_hash) == 64
            token_id = row.id
        runner = CliRunner()
        listed = runner.invoke(cli, ["tokens", "list", "--user", "dora", "--json"], env=cli_env(settings)).output
        assert raw not in listed and json.loads(listed.splitlines()[0])["state"] == "active"
        refused = runner.invoke(cli, ["tokens", "create", "dora", "--scope", "admin"], env=cli_env(settings))
        assert refused.exit_code != 0 and "only an admin" in refused.output
        # Expired: its expiry moved into the past (as time would), it is refused on the next request.
        with make_sessionmaker(engine).begin() as session:
            session.execute(update(ApiToken).where(ApiToken.id == token_id).values(expires_at=dt.datetime(2020, 1, 1)))
        gone = client.get("/api/search?q=zorblatt")
        assert gone.status_code == 401 and "expired" in gone.get_json()["error"]["message"]
        assert gone.headers["WWW-Authenticate"].startswith("Bearer")
    finally:
        engine.dispose()
    # Revoked: the next request is refused.
    second = make_token(settings, "dora")
    client = Bearer(app, second)
    assert client.get("/api/search").status_code == 200
    token_id = json.loads(
        CliRunner()
        .invoke(cli, ["tokens", "list", "--user", "dora", "--json"], env=cli_env(settings))
        .output.splitlines()[0]
    )["id"]
    assert CliRunner().invoke(cli, ["tokens", "revoke", str(token_id)], env=cli_env(settings)).exit_code == 0
    assert client.get("/api/search").status_code == 401
    assert Bearer(app, "na_not-a-token").get("/api/search").status_code == 401
    assert app.test_client().get("/api/search", headers={"Authorization": "Basic abc"}).status_code == 401
    # An admin token reaches the admin routes.
    admin = Bearer(app, make_token(settings, "ada", "admin"))
    assert admin.get("/api/audit").status_code == 200
    assert admin.get("/api/status").get_json()["access"]["mode"] == "login"


def test_a_user_makes_and_revokes_their_own_token_in_the_browser(archive):
    app, settings, ids = archive
    dora = signed_in(app, "dora")
    page = dora.post(
        "/account/tokens", data={"name": "my script", "scope": "read", "days": "7", "csrf_token": csrf_of(dora)}
    )
    assert page.status_code == 201 and page.headers["Cache-Control"] == "no-store"
    raw = re.search(r'<code class="token">(na_[^<]+)</code>', page.get_data(as_text=True)).group(1)
    assert Bearer(app, raw).get("/api/search?q=zorblatt").get_json()["total"] == 1
    again = dora.get("/account").get_data(as_text=True)
    assert raw not in again and "my script" in again  # shown once only
    token_id = int(re.findall(r"/account/tokens/(\d+)/revoke", again)[0])
    rita = signed_in(app, "rita")
    assert rita.post(f"/account/tokens/{token_id}/revoke", data={"csrf_token": csrf_of(rita)}).status_code == 404
    assert Bearer(app, raw).get("/api/search").status_code == 200
    assert dora.post(f"/account/tokens/{token_id}/revoke", data={"csrf_token": csrf_of(dora)}).status_code == 303
    assert Bearer(app, raw).get("/api/search").status_code == 401
    refused = dora.post("/account/tokens", data={"name": "x", "scope": "admin", "csrf_token": csrf_of(dora)})
    assert refused.status_code == 400


def _try_login(client, name: str, password: str):
    page = client.get("/login")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    return client.post("/login", data={"name": name, "password": password, "csrf_token": token})


def _unlock(settings) -> None:
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine).begin() as session:
            session.execute(update(User).values(locked_until=None, failed_logins=0))
            session.execute(delete(LoginFailure))
    finally:
        engine.dispose()


def test_failed_sign_ins_lock_the_account_and_then_the_address(archive):
    app, settings, ids = archive
    try:
        client = app.test_client()
        wrong = _try_login(client, "eddie", "not the password")
        assert wrong.status_code == 401 and "wrong" in wrong.get_data(as_text=True)
        unknown = _try_login(client, "nobody-at-all", "not the password")
        assert unknown.status_code == 401 and unknown.get_data(as_text=True).count("wrong") == wrong.get_data(
            as_text=True
        ).count("wrong")  # the same answer: no telling which names exist
        for _ in range(settings.login_max_failures - 1):
            _try_login(client, "eddie", "still wrong")
        locked = _try_login(client, "eddie", PASSWORD)  # the right password, but locked
        assert locked.status_code == 429 and "locked" in locked.get_data(as_text=True)
        _unlock(settings)
        assert _try_login(app.test_client(), "eddie", PASSWORD).status_code == 303
        # From one address, failures across many names lock the address (even for a right password).
        other = app.test_client()
        for i in range(settings.login_address_max_failures):
            _try_login(other, f"guess{i}", "wrong password")
        blocked = _try_login(other, "eddie", PASSWORD)
        assert blocked.status_code == 429 and "address" in blocked.get_data(as_text=True)
    finally:
        _unlock(settings)


def test_sessions_rotate_at_sign_in_end_at_sign_out_and_when_an_account_is_disabled(archive):
    app, settings, ids = archive
    client = app.test_client()
    page = client.get("/login")
    before = csrf_of(client)
    assert before
    cookie = page.headers.get("Set-Cookie", "")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    answer = client.post("/login", data={"name": "rita", "password": PASSWORD, "csrf_token": before})
    assert answer.status_code == 303
    assert csrf_of(client) != before  # a new session: the old token (and anything else) is gone
    assert client.get("/api/me").get_json()["user"] == "rita"
    with client.session_transaction() as kept:
        first = dict(kept)
    again = client.post("/login", data={"name": "rita", "password": PASSWORD, "csrf_token": csrf_of(client)})
    assert again.status_code == 303 and client.get("/api/me").get_json()["user"] == "rita"
    stale = app.test_client()  # the session before the second sign-in is over, even with its cookie
    with stale.session_transaction() as replayed:
        replayed.update(first)
    assert stale.get("/api/me").get_json()["user"] is None
    assert client.post("/logout", data={"csrf_token": csrf_of(client)}).status_code == 303
    assert client.get("/api/me").get_json()["user"] is None
    assert client.get("/saved").status_code == 303  # to the sign-in page
    # Over HTTPS the cookie is Secure.
    secure = app.test_client().get("/login", base_url="https://archive.example")
    assert "Secure" in secure.headers.get("Set-Cookie", "")
    # Disabling an account ends its sessions and stops its tokens at once.
    eddie = signed_in(app, "eddie")
    token = Bearer(app, make_token(settings, "eddie"))
    runner = CliRunner()
    try:
        assert runner.invoke(cli, ["users", "disable", "eddie"], env=cli_env(settings)).exit_code == 0
        assert eddie.get("/api/me").get_json()["user"] is None
        assert token.get("/api/search").status_code == 401
        assert _try_login(app.test_client(), "eddie", PASSWORD).status_code == 401
    finally:
        assert runner.invoke(cli, ["users", "enable", "eddie"], env=cli_env(settings)).exit_code == 0
    # A sign-in never redirects to another site.
    client = app.test_client()
    page = client.get("/login?next=//evil.example/x")
    assert "evil.example" not in page.get_data(as_text=True)
    token = csrf_of(client)
    answer = client.post(
        "/login", data={"name": "rita", "password": PASSWORD, "csrf_token": token, "next": "https://evil.example/"}
    )
    assert answer.headers["Location"] == "/"


def test_saved_searches_belong_to_their_owner_and_feeds_read_with_the_owners_permissions(archive):
    app, settings, ids = archive
    dora, rita = signed_in(app, "dora"), signed_in(app, "rita")
    assert (
        dora.post("/saved", data={"params": "q=zorblatt", "name": "zorb", "csrf_token": csrf_of(dora)}).status_code
        == 303
    )
    assert (
        rita.post("/saved", data={"params": "q=zorblatt", "name": "mine", "csrf_token": csrf_of(rita)}).status_code
        == 303
    )
    try:
        mine = dora.get("/api/saved").get_json()["saved"]
        assert [s["name"] for s in mine] == ["zorb"]
        assert [s["name"] for s in rita.get("/api/saved").get_json()["saved"]] == ["mine"]
        dora_id = mine[0]["id"]
        # Another user can neither open, delete nor read the feed of it.
        assert rita.post(f"/saved/{dora_id}/delete", data={"csrf_token": csrf_of(rita)}).status_code == 404
        assert rita.post(f"/saved/{dora_id}/open", data={"csrf_token": csrf_of(rita)}).status_code == 404
        assert rita.get(f"/saved/{dora_id}.atom").status_code == 404
        assert app.test_client().get(f"/saved/{dora_id}.atom?key=wrong").status_code == 404
        # Its feed, with its secret, is read by a feed reader with dora's permissions; rita's finds nothing.
        feed = app.test_client().get(mine[0]["feed"])
        assert feed.status_code == 200 and "Zorblatt merger" in feed.get_data(as_text=True)
        rita_feed = app.test_client().get(rita.get("/api/saved").get_json()["saved"][0]["feed"])
        assert rita_feed.status_code == 200 and "zorblatt" not in rita_feed.get_data(as_text=True).lower().replace(
            "q=zorblatt", ""
        ).replace("<title>mine", "")
        assert "<entry>" not in rita_feed.get_data(as_text=True)
    finally:
        for client in (dora, rita):
            for s in client.get("/api/saved").get_json()["saved"]:
                client.post(f"/saved/{s['id']}/delete", data={"csrf_token": csrf_of(client)})


def test_an_editor_shares_a_saved_search_with_a_group(archive):
    app, settings, ids = archive
    eddie, dora, rita = signed_in(app, "eddie"), signed_in(app, "dora"), signed_in(app, "rita")
    eddie.post("/saved", data={"params": "q=bridge", "name": "bridges", "csrf_token": csrf_of(eddie)})
    saved_id = eddie.get("/api/saved").get_json()["saved"][0]["id"]
    try:
        # A reader may not share (not even their own).
        assert (
            rita.post(f"/saved/{saved_id}/share", data={"group": "desk", "csrf_token": csrf_of(rita)}).status_code
            == 403
        )
        assert (
            eddie.post(f"/saved/{saved_id}/share", data={"group": "desk", "csrf_token": csrf_of(eddie)}).status_code
            == 303
        )
        shared = dora.get("/api/saved").get_json()["saved"]
        assert [(s["name"], s["mine"]) for s in shared] == [("bridges", False)]
        assert "key=" not in shared[0]["feed"]  # the owner's feed secret is the owner's
        assert dora.post(f"/saved/{saved_id}/delete", data={"csrf_token": csrf_of(dora)}).status_code == 404
        assert rita.get("/api/saved").get_json()["saved"] == []
    finally:
        eddie.post(f"/saved/{saved_id}/delete", data={"csrf_token": csrf_of(eddie)})


def test_exports_and_original_downloads_are_in_the_audit_log(archive):
    app, settings, ids = archive
    dora = signed_in(app, "dora")
    assert dora.get("/api/search.csv?q=zorblatt").status_code == 200
    article_id = ids[EMBARGO[0]["headline"]]
    assert dora.get(f"/articles/{article_id}/original").status_code == 200
    events = signed_in(app, "ada").get("/api/audit?limit=50").get_json()["events"]
    mine = [(e["action"], e["target"]) for e in events if e["actor"] == "dora"]
    assert ("export", "csv") in mine and ("original", f"article:{article_id}") in mine
    assert "zorblatt" in next(e["detail"] for e in events if e["actor"] == "dora" and e["action"] == "export")
    admin_page = signed_in(app, "ada").get("/admin").get_data(as_text=True)
    assert "embargo" in admin_page and "group:desk" in admin_page and "dora" in admin_page


def test_status_and_health_details_are_for_admins_only(archive):
    app, settings, ids = archive
    assert app.test_client().get("/healthz").get_json() == {"status": "ok"}
    assert signed_in(app, "rita").get("/healthz").get_json() == {"status": "ok"}
    assert "articles" in signed_in(app, "ada").get("/healthz").get_json()
    assert signed_in(app, "rita").get("/status").status_code == 403
    page = signed_in(app, "ada").get("/status").get_data(as_text=True)
    assert "Access: login" in page


# -- without a public collection, and in open mode ------------------------------------------------------------


def test_an_archive_without_public_collections_sends_visitors_to_sign_in(settings, tmp_path):
    settings = make_settings(settings.home, settings.database_url, access="login", login_failure_delay_ms=0)
    upgrade(settings)
    ingest_into(settings, [_write(tmp_path / "main", MAIN)], expected=len(MAIN))
    with served(settings) as app:
        client = app.test_client()
        page = client.get("/search?q=bridge")
        assert page.status_code == 303 and page.headers["Location"].startswith("/login?next=/search")
        api = client.get("/api/search?q=bridge")
        assert api.status_code == 401 and api.get_json()["error"]["code"] == "unauthorised"
        assert client.get("/api/articles/1").status_code == 401
        assert client.get("/login").status_code == 200
        assert client.get("/healthz").status_code == 200


def test_a_folder_naming_a_missing_collection_is_quarantined_with_the_reason(migrated, tmp_path):
    summary = ingest_into(migrated, [_write(tmp_path / "wire", EMBARGO, "no-such-collection")])
    assert summary.ingested == 0
    reasons = json.dumps(summary.as_dict())
    assert "no-such-collection" in reasons and "collections create" in reasons


def test_a_source_rule_stores_its_later_articles_in_the_collection(migrated, tmp_path):
    runner = CliRunner()
    env = cli_env(migrated)
    assert runner.invoke(cli, ["collections", "create", "wire", "--private"], env=env).exit_code == 0
    result = runner.invoke(cli, ["collections", "assign", "wire", "--source", "Quillfeather Wire"], env=env)
    assert result.exit_code == 0, result.output
    ingest_into(migrated, [_write(tmp_path / "drop", EMBARGO + PRESS)], expected=len(EMBARGO + PRESS))
    listed = {
        json.loads(line)["name"]: json.loads(line)
        for line in runner.invoke(cli, ["collections", "list", "--json"], env=env).output.splitlines()
    }
    assert listed["wire"]["articles"] == len(EMBARGO) and listed["wire"]["readable_by"] == ["admins only"]
    assert listed["main"]["articles"] == len(PRESS)


def test_open_mode_serves_everyone_and_refuses_a_network_address_unless_set(settings, tmp_path):
    runner = CliRunner()
    upgrade(settings)
    refused = runner.invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "5999"], env=cli_env(settings))
    assert refused.exit_code != 0 and "NEWSARCHIVE_ACCESS=login" in refused.output
    with served(settings) as app:
        client = app.test_client()
        assert client.get("/api/me").get_json() == {
            "mode": "open",
            "user": None,
            "role": "admin",
            "groups": [],
            "via": "open",
            "scope": None,
        }
        assert client.get("/status").status_code == 200
        assert "Access: open" in client.get("/status").get_data(as_text=True)
        assert client.get("/api/status").get_json()["access"]["mode"] == "open"


def test_users_command_adds_lists_and_checks_names_and_passwords(settings):
    upgrade(settings)
    runner = CliRunner()
    env = cli_env(settings)
    short = runner.invoke(cli, ["users", "add", "zoe", "--password", "short"], env=env)
    assert short.exit_code != 0 and "at least 10 characters" in short.output
    bad = runner.invoke(cli, ["users", "add", "../zoe", "--password", PASSWORD], env=env)
    assert bad.exit_code != 0 and "user name" in bad.output
    added = runner.invoke(
        cli, ["users", "add", "zoe", "--role", "editor", "--groups", "desk,photo"], input=f"{PASSWORD}\n", env=env
    )
    assert added.exit_code == 0, added.output
    again = runner.invoke(cli, ["users", "add", "Zoe", "--password", PASSWORD], env=env)
    assert again.exit_code != 0 and "already" in again.output
    listed = [json.loads(line) for line in runner.invoke(cli, ["users", "list", "--json"], env=env).output.splitlines()]
    assert listed == [{"name": "zoe", "role": "editor", "groups": "desk,photo", "disabled": False}]
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            stored = session.scalar(select(User.password_hash))
            assert stored.startswith("$argon2id$") and PASSWORD not in stored
            assert session.scalar(select(AuditEvent.action).where(AuditEvent.action == "user_add")) == "user_add"
    finally:
        engine.dispose()


def test_an_editor_moves_only_articles_they_may_read_into_collections_they_may_read(archive):
    app, settings, ids = archive
    eddie = signed_in(app, "eddie")
    headers = {"X-CSRF-Token": csrf_of(eddie)}
    harbour, zorblatt = ids[MAIN[1]["headline"]], ids[EMBARGO[0]["headline"]]
    try:
        moved = eddie.post("/api/collections/press/articles", json={"ids": [harbour, zorblatt]}, headers=headers)
        assert moved.status_code == 200 and moved.get_json() == {"collection": "press", "moved": 1}
        assert app.test_client().get("/api/search?q=cranes").get_json()["total"] == 1  # public now
        assert app.test_client().get("/api/search?q=zorblatt").get_json()["total"] == 0  # not his to move
        hidden = eddie.post("/api/collections/embargo/articles", json={"ids": [harbour]}, headers=headers)
        assert hidden.status_code == 404  # a collection he may not read is not there for him
        whole = eddie.post("/api/collections/press/articles", json={"source": "Reuters"}, headers=headers)
        assert whole.status_code == 400 and "admin" in whole.get_json()["error"]["message"]
        assert (
            signed_in(app, "rita").post("/api/collections/press/articles", json={"ids": [harbour]}).status_code == 403
        )
    finally:
        back = eddie.post("/api/collections/main/articles", json={"ids": [harbour]}, headers=headers)
        assert back.get_json()["moved"] == 1
    assert app.test_client().get("/api/search?q=cranes").get_json()["total"] == 0


def test_alerts_tell_each_owner_only_what_they_may_read(settings, tmp_path):
    settings = make_settings(settings.home, settings.database_url, access="login", login_failure_delay_ms=0)
    upgrade(settings)
    engine = make_engine(settings)
    with make_sessionmaker(engine).begin() as session:
        dora = access.add_user(session, "dora", PASSWORD, "reader", ["desk"])
        rita = access.add_user(session, "rita", PASSWORD, "reader")
        access.create_collection(session, "embargo", grants=("group:desk",))
        owners = {"dora": access.principal_of(dora, "session"), "rita": access.principal_of(rita, "session")}
    engine.dispose()
    ingest_into(settings, [_write(tmp_path / "main", MAIN)], expected=len(MAIN))
    reader = Archive(settings)
    try:
        for name, owner in owners.items():
            saved_searches.save(reader, name, saved_searches.request_of("q=zorblatt OR bridge"), owner)
        ingest_into(settings, [_write(tmp_path / "later", EMBARGO[:1], "embargo")], expected=1)
        ingest_into(settings, [_write(tmp_path / "later-main", PRESS[:1])], expected=1)
        told = {saved.name: [m["headline"] for m in matches] for saved, matches in saved_searches.alerts(reader)}
    finally:
        reader.close()
    assert told == {"dora": [EMBARGO[0]["headline"]], "rita": []}


def test_behind_a_proxy_lockouts_count_the_readers_address(settings):
    upgrade(settings)
    settings = make_settings(settings.home, settings.database_url, access="login", login_failure_delay_ms=0, proxies=1)
    engine = make_engine(settings)
    with make_sessionmaker(engine).begin() as session:
        access.add_user(session, "eddie", PASSWORD, "editor")
    engine.dispose()
    with served(settings) as app:
        for i in range(settings.login_address_max_failures):
            client = app.test_client()
            client.environ_base["HTTP_X_FORWARDED_FOR"] = "203.0.113.7"
            _try_login(client, f"guess{i}", "wrong password")
        other = app.test_client()
        other.environ_base["HTTP_X_FORWARDED_FOR"] = "198.51.100.2"
        assert _try_login(other, "eddie", PASSWORD).status_code == 303  # another reader behind the same proxy
        blocked = app.test_client()
        blocked.environ_base["HTTP_X_FORWARDED_FOR"] = "203.0.113.7"
        assert _try_login(blocked, "eddie", PASSWORD).status_code == 429
        secure = app.test_client().get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "Secure" in secure.headers.get("Set-Cookie", "")


def test_an_original_file_holding_an_article_the_reader_may_not_read_is_not_handed_out(settings, tmp_path):
    settings = make_settings(settings.home, settings.database_url, access="login", login_failure_delay_ms=0)
    upgrade(settings)
    engine = make_engine(settings)
    with make_sessionmaker(engine).begin() as session:
        for name, groups in (("dora", ["desk"]), ("rita", [])):
            access.add_user(session, name, PASSWORD, "reader", groups)
        access.create_collection(session, "embargo", grants=("group:desk",))
        access.assign(session, "embargo", source="Quillfeather Wire")
    engine.dispose()
    # One file, two sources: the source rule puts one of its articles in `embargo`.
    ingest_into(settings, [_write(tmp_path / "mixed", [MAIN[1], EMBARGO[0]])], expected=2)
    with served(settings) as app:
        rita, dora = signed_in(app, "rita"), signed_in(app, "dora")
        harbour = rita.get("/api/search?q=cranes").get_json()["hits"][0]["id"]
        assert rita.get(f"/articles/{harbour}").status_code == 200
        assert "Download the original" not in rita.get(f"/articles/{harbour}").get_data(as_text=True)
        assert rita.get(f"/articles/{harbour}/original").status_code == 404
        assert "Download the original" in dora.get(f"/articles/{harbour}").get_data(as_text=True)
        original = dora.get(f"/articles/{harbour}/original")
        assert original.status_code == 200 and b"Zorblatt" in original.data
