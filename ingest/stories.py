"""Story clusters: the versions of one story (a rewrite, a write-through, the same wire story in another
outlet) share a story id.

Each article's text (headline and body, case-folded words) is cut into SHINGLE_WORDS-word shingles and
summarised by a MinHash signature of NUM_PERM values (rensa, a MinHash in Rust: 0.2 ms an article where
datasketch took 1.1 ms and 70 MB of imports per process; computed in the parser processes and stored
with the article). Two signatures agreeing on a share s of their values estimate the Jaccard
similarity of the two shingle sets as s.

A new article is compared with the articles it could be a version of:
- when it is dated, every article dated the same day or the day before or after (versions of a story
  follow each other within hours, and a story told again weeks later is a new story): a day's
  signatures are read from SQL by the indexed day column and compared all at once with NumPy, so no
  version is missed for want of a shared hash bucket;
- when it is undated, the articles sharing one of its BANDS band keys (LSH: BANDS bands of ROWS values,
  kept in `story_keys`); a dated article also looks there for undated ones. A wholly dated archive keeps
  no keys (they would only cost ingest time): the first undated article writes the keys of every dated
  one stored before it, and from then on every article's keys are kept.
The most similar candidate that joins gives the article its story. Within one news cycle (stated times
less than NEWS_CYCLE_HOURS apart, or a time unknown) a candidate joins
- at JOIN_SIMILARITY or above on the text alone;
- at HEADLINE_SIMILARITY or above when the two headlines also share HEADLINE_OVERLAP of their words (wire
  slugs such as "UPDATE 2-" and function words left out). Text alone cannot tell a write-through
  rewritten from the top (a fifth of its shingles shared) from the same day's market report quoting one
  of its paragraphs; the headline names the story in the first and not in the second;
- at HEADLINE_SIMILARITY or above when the headlines share CONTAINMENT_OVERLAP of their words and the
  longer text holds CONTAINMENT of the shorter one's shingles (estimated from the two signatures and the
  two shingle counts): a brief and the full story written from it, whose Jaccard is low only because one
  is short.
The two headline rules do not join two articles whose headlines each name someone the other article
never mentions (one retailer's October sales and another's; an order from one airline and from another).
Articles of different news cycles join only at FAR_SIMILARITY on the text alone: the next day's news is
told in the last day's words (talks, then the deal; a preview, then the event), while a version rewritten
the next morning keeps most of its text. A candidate of another product kind never joins: a factbox,
timeline or chronology, Q&A, explainer, scenarios or profile ("NEWSMAKER"), an "Instant view" or
"Analysts' view" of reactions and the full text of a document or a table are separate articles from the
news story whose paragraphs they reuse, as a wire service's headline label says ("FACTBOX:", "INSTANT
VIEW 2-", "TEXT-"). Articles in two different languages never join: the same names and numbers in a
German and an English article do not make them versions of one text (a translation is a story of its
own). An article that joins none starts its own story, whose id is its own article id
(`story_id` stays NULL). Story ids live in SQL, so `reindex` keeps them, and ingesting the same files
again in the same order gives the same stories. The constants were chosen on Reuters pairs read by hand
(five samples, each rule checked on samples it was not chosen on: bench/stories/rules.py, BENCHMARKS.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import NamedTuple, Optional

import numpy as np
from rensa import RMinHash
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session
from whoosh.analysis import STOP_WORDS

from search.analysis import written_capitalised
from search.languages import analysis, analysis_key
from store.models import Article, StoryKey

NUM_PERM = 64
SHINGLE_WORDS = 3
JOIN_SIMILARITY = 0.3  # joins on text alone
HEADLINE_SIMILARITY = 0.1  # joins when the headlines also share HEADLINE_OVERLAP of their words
HEADLINE_OVERLAP = 0.3
NEWS_CYCLE_HOURS = 18  # articles stated this far apart or more are of different news cycles
FAR_SIMILARITY = 0.4  # joins articles of different news cycles, on text alone
CONTAINMENT = 0.5  # within a news cycle, joins when the longer text holds this share of the shorter's shingles
CONTAINMENT_OVERLAP = 0.1  # and the headlines share this share of their words
MIN_SHINGLES = 12  # texts shorter than this are too short to tell a version from a look-alike
WINDOW_DAYS = 1  # a dated version is looked for this many days before and after
BANDS, ROWS = (
    21,
    3,
)  # LSH to and from undated articles: a pair at similarity 0.5 shares a band with p = 0.94, at 0.3 p = 0.44
SEED = 1
_WORD = re.compile(r"\w+")
_NAME_WORD = re.compile(r"[^\W\d_][\w&]*")  # a word that may be a name: "Nordstrom", "S&P", "A320neo"
_LOOKUP_CHUNK = 500
_BACKFILL_CHUNK = 5000
UNDATED = -(10**9)  # the day ordinal of an undated article in the candidate arrays (never within a window)
# A wire slug before a headline ("UPDATE 2-", "INSTANT VIEW:", "US STOCKS-") and words that say nothing of
# the story are left out when headlines are compared.
_SLUG = re.compile(r"^(?:\s*[A-Z][A-Z0-9.&' ]*[A-Z0-9.]\s*[-:]+)+")
_HEADLINE_NOISE = frozenset(STOP_WORDS) | {
    "update", "refile", "corrected", "wrapup", "rpt", "instant", "view", "factbox", "timeline", "analysis",
    "exclusive", "highlights", "factfile", "explainer", "says", "said", "say", "new", "after", "over", "more",
    "than", "s",
}  # fmt: skip
# Headline labels of wire products that are separate articles from the news story they draw on; a label
# may be numbered ("INSTANT VIEW 2:") or follow an update slug.
_KINDS = {
    "factbox": "background", "factfile": "background", "timeline": "background", "chronology": "background",
    "qa": "background", "explainer": "background", "scenarios": "background", "newsmaker": "background",
    "instantview": "reactions", "analystview": "reactions", "analystsview": "reactions",
    "text": "document", "table": "document",
}  # fmt: skip
_KIND = re.compile(
    r"^\s*(?:(?:update|refile|corrected|rpt)\s*\d*\s*[-:]+\s*)*"
    r"(fact\s?box|fact\s?file|timeline|chronology|q\s?[+&]\s?a|explainer|scenarios|newsmaker|instant\s+view|"
    r"analysts?'?\s+view|text|table)\s*\d*\s*[-:]",
    re.IGNORECASE,
)
# An attribution at a headline's end ("...: source", "... -NYT"): who reported it, not whom it is about.
_ATTRIBUTION = re.compile(r"\s*(?::|\s-)\s*[^:]{1,30}$")


def shingles(text: str) -> list[str]:
    words = _WORD.findall(text.casefold())
    return list({" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)})


def sign(headline: str, body: str) -> tuple[Optional[bytes], int]:
    """The MinHash signature of an article's text as NUM_PERM little-endian uint32 values (None when the
    text is too short to cluster) and the number of distinct shingles it summarises."""
    parts = shingles(f"{headline}\n{body}")
    if len(parts) < MIN_SHINGLES:
        return None, len(parts)
    minhash = RMinHash(num_perm=NUM_PERM, seed=SEED)
    minhash.update(parts)
    return np.asarray(minhash.digest(), dtype="<u4").tobytes(), len(parts)


def signature(headline: str, body: str) -> Optional[bytes]:
    """The MinHash signature of an article's text (`sign`'s first half)."""
    return sign(headline, body)[0]


def containment(share: float, shingles_a: Optional[int], shingles_b: Optional[int]) -> float:
    """The share of the shorter text's shingles that the longer one holds, estimated from the signatures'
    agreement `share` (a Jaccard estimate J): the intersection is J (|A| + |B|) / (1 + J). 0 when a count
    is unknown."""
    if not shingles_a or not shingles_b:
        return 0.0
    return min(1.0, share * (shingles_a + shingles_b) / ((1 + share) * min(shingles_a, shingles_b)))


def headline_kind(headline: Optional[str]) -> str:
    """The product kind a wire headline's label names ("background", "reactions", "document"), or "" for
    a news story. Versions of a story are of one kind; an update slug before the label is passed over."""
    found = _KIND.match(headline or "")
    return _KINDS[re.sub(r"\W+", "", found.group(1).casefold())] if found else ""


def headline_words(headline: Optional[str], language: Optional[str] = None) -> frozenset[str]:
    """The words of a headline that name its story: no wire slug, no function words (English ones, and
    the stop words of the article's `language`)."""
    text = _SLUG.sub("", headline or "")
    stops = analysis(analysis_key(language)).stoplist
    return frozenset(w for w in _WORD.findall(text.casefold()) if w not in _HEADLINE_NOISE and w not in stops)


def other_languages(a: Optional[str], b: Optional[str]) -> bool:
    """Whether two articles' languages are both known and differ: they are never versions of one text."""
    return bool(a and b and a != b)


def headline_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def headline_names(headline: Optional[str], body: Optional[str]) -> frozenset[str]:
    """The names in a headline (case-folded): capitalised words that its own letters mark as a name (an
    acronym, a capital inside the word), that follow the first word of a sentence-case headline, or that
    the body writes capitalised inside its sentences. No wire slug, no attribution at the end ("...: TV"),
    no function words."""
    text = _ATTRIBUTION.sub("", _SLUG.sub("", headline or ""))
    words = [w for w in _NAME_WORD.findall(text) if w.casefold() not in _HEADLINE_NOISE]
    if not words:
        return frozenset()
    sentence_case = 2 * sum(w[0].islower() for w in words[1:]) >= len(words) - 1
    capitalised, lower = written_capitalised(body or "")
    names = set()
    for n, word in enumerate(words):
        if not word[0].isupper():
            continue
        folded = word.casefold()
        marked = (len(word) > 1 and word.isupper()) or any(c.isupper() for c in word[1:])
        if marked or (sentence_case and n > 0) or capitalised[folded] > lower[folded]:
            names.add(folded)
    return frozenset(names)


def text_words(headline: Optional[str], body: Optional[str]) -> frozenset[str]:
    """Every word of an article (case-folded, as `headline_names` cuts them)."""
    return frozenset(w.casefold() for w in _NAME_WORD.findall(f"{headline or ''}\n{body or ''}"))


def name_each_other_unknown(a: tuple[frozenset[str], frozenset[str]], b: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether each of two articles, given as (headline names, text words), has a headline name that the
    other article never mentions: two companies' or two people's news told alike."""
    return bool(a[0] - b[1]) and bool(b[0] - a[1])


def band_keys(sig: bytes) -> list[int]:
    """The signature's BANDS band keys, as signed 64-bit integers (SQL BIGINT)."""
    width = ROWS * 4
    keys = []
    for band in range(BANDS):
        digest = hashlib.blake2b(sig[band * width : (band + 1) * width], digest_size=8, person=b"band%02d" % band)
        keys.append(int.from_bytes(digest.digest(), "little", signed=True))
    return keys


def similarity(a: bytes, b: bytes) -> float:
    """The share of signature values two articles agree on: an estimate of their shingles' Jaccard."""
    return float(np.mean(np.frombuffer(a, "<u4") == np.frombuffer(b, "<u4")))


@dataclass
class NewArticle:
    id: int
    signature: Optional[bytes]
    day: Optional[dt.date]
    headline: Optional[str] = None
    keys: Optional[list[int]] = None  # band_keys(signature), when worked out already (in a parser process)
    time: Optional[dt.datetime] = None  # the stated publication instant (UTC), when it has a time of day
    body: Optional[str] = None
    shingles: Optional[int] = None  # how many distinct shingles the signature summarises
    language: Optional[str] = None


def _any_undated(session: Session, before: int) -> bool:
    """Whether any article stored before id `before` is undated and has a signature (one index probe)."""
    found = session.execute(
        select(Article.id)
        .where(Article.published_day.is_(None), Article.minhash.is_not(None), Article.id < before)
        .limit(1)
    ).first()
    return found is not None


def _insert_keys(session: Session, rows: list[tuple[int, int]]) -> None:
    """(key, article id) rows into story_keys, through the driver (qmark for SQLite, format for psycopg):
    SQLAlchemy's per-row parameter handling cost more than the insert itself."""
    if not rows:
        return
    connection = session.connection()
    marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    connection.exec_driver_sql(f"INSERT INTO story_keys (key, article_id) VALUES ({marker}, {marker})", rows)


def _store_earlier_keys(session: Session, before: int) -> None:
    """Band keys of every dated article stored before id `before` (a wholly dated archive keeps none: dated
    articles find each other by day, and only an undated article needs them)."""
    last = 0
    while True:
        rows = session.execute(
            select(Article.id, Article.minhash)
            .where(
                Article.id > last,
                Article.id < before,
                Article.minhash.is_not(None),
                Article.published_day.is_not(None),
            )
            .order_by(Article.id)
            .limit(_BACKFILL_CHUNK)
        ).all()
        if not rows:
            return
        _insert_keys(session, [(key, r.id) for r in rows for key in set(band_keys(r.minhash))])
        last = rows[-1].id


class _Candidate(NamedTuple):
    story_id: Optional[int]
    signature: bytes
    ordinal: Optional[int]  # the day's ordinal
    headline: Optional[str]
    time: Optional[dt.datetime]  # the stated instant (UTC), when the article states a time of day
    shingles: Optional[int]
    language: Optional[str]

    @classmethod
    def of(cls, article: NewArticle) -> "_Candidate":
        """A new article of the batch as a candidate for the articles after it."""
        ordinal = article.day.toordinal() if article.day else None
        return cls(None, article.signature, ordinal, article.headline, article.time, article.shingles, article.language)


_CANDIDATE_COLUMNS = (
    Article.id, Article.story_id, Article.minhash, Article.published_day, Article.headline, Article.published,
    Article.published_utc, Article.date_inferred, Article.shingles, Article.language,
)  # fmt: skip


def stated_time(published: Optional[str], utc: Optional[dt.datetime], inferred: bool) -> Optional[dt.datetime]:
    """The UTC instant of a publication date that the article states with a time of day (ISO text with a
    "T"), else None: a bare date or one inferred (a web archive's capture time) says nothing of the hour."""
    return utc if published and "T" in published and not inferred else None


def _candidate(r) -> _Candidate:
    ordinal = r.published_day.toordinal() if r.published_day else None
    return _Candidate(
        r.story_id,
        r.minhash,
        ordinal,
        r.headline,
        stated_time(r.published, r.published_utc, r.date_inferred),
        r.shingles,
        r.language,
    )


def assign_stories(session: Session, batch: list[NewArticle]) -> dict[int, int]:
    """Give the just-inserted articles of `batch` (in insert order) their stories; {article id: story id}
    for every article of the batch (its own id when it starts a story). Writes story_id and story_keys."""
    stories: dict[int, int] = {a.id: a.id for a in batch}
    signed = [a for a in batch if a.signature is not None]
    if not signed:
        return stories
    keys = {a.id: a.keys if a.keys is not None else band_keys(a.signature) for a in signed}
    known, holders, keep_dated_keys = _load_candidates(session, signed, keys)
    table = CandidateTable(len(known) + len(signed))
    for article_id, candidate in known.items():
        table.add(article_id, candidate)
    bodies = {a.id: a.body for a in batch if a.body is not None}

    def body_of(article_id: int) -> str:  # an earlier article's body, read only for the headline rule
        if article_id not in bodies:
            bodies[article_id] = session.execute(select(Article.body).where(Article.id == article_id)).scalar() or ""
        return bodies[article_id]

    joined: dict[int, int] = {}
    for article in signed:
        best = best_version(article, table, table.eligible(article, keys[article.id], holders), body_of)
        if best is not None:
            stories[article.id] = joined[article.id] = table.story_of[best]
        # The new article is a candidate for the rest of the batch.
        table.add(article.id, _Candidate.of(article), story=stories[article.id])
        for key in keys[article.id]:
            holders.setdefault(key, []).append(article.id)
    _write_stories(session, signed, keys, keep_dated_keys, joined)
    return stories


def _load_candidates(
    session: Session, signed: list[NewArticle], keys: dict[int, list[int]]
) -> tuple[dict[int, _Candidate], dict[int, list[int]], bool]:
    """The earlier articles that could be versions of the new ones, the holders of the new ones' band keys,
    and whether dated articles' keys are kept from now on.

    Candidates: those dated within the window of a dated new article, and those sharing a band key with
    any new one (the only way to an undated article, or from one). An undated new article looks for every
    holder of its keys; a dated one only for undated holders (dated ones it finds by day), which keeps the
    rows read small when boilerplate makes a key common."""
    first_new = min(a.id for a in signed)
    known: dict[int, _Candidate] = {}
    days = sorted({a.day + dt.timedelta(days=k) for a in signed if a.day for k in range(-WINDOW_DAYS, WINDOW_DAYS + 1)})
    for start in range(0, len(days), _LOOKUP_CHUNK):
        for r in session.execute(
            select(*_CANDIDATE_COLUMNS).where(
                Article.published_day.in_(days[start : start + _LOOKUP_CHUNK]),
                Article.minhash.is_not(None),
                Article.id < first_new,
            )
        ):
            known[r.id] = _candidate(r)
    undated_keys = sorted({key for a in signed if a.day is None for key in keys[a.id]})
    dated_keys = sorted({key for a in signed if a.day is not None for key in keys[a.id]} - set(undated_keys))
    undated_before = _any_undated(session, first_new)
    if not undated_before:
        dated_keys = []  # no earlier undated article to find: skip the lookups (a wholly dated archive)
        if undated_keys:  # the archive's first undated articles: they need the dated ones' keys from now on
            _store_earlier_keys(session, first_new)
    holders: dict[int, list[int]] = {}
    for wanted, only_undated in ((undated_keys, False), (dated_keys, True)):
        for start in range(0, len(wanted), _LOOKUP_CHUNK):
            query = select(StoryKey.key, StoryKey.article_id).where(
                StoryKey.key.in_(wanted[start : start + _LOOKUP_CHUNK])
            )
            if only_undated:
                query = query.join(Article, Article.id == StoryKey.article_id).where(Article.published_day.is_(None))
            for key, article_id in session.execute(query):
                holders.setdefault(key, []).append(article_id)
    missing = sorted({i for found in holders.values() for i in found} - known.keys())
    for start in range(0, len(missing), _LOOKUP_CHUNK):
        for r in session.execute(
            select(*_CANDIDATE_COLUMNS).where(Article.id.in_(missing[start : start + _LOOKUP_CHUNK]))
        ):
            known[r.id] = _candidate(r)
    return known, holders, undated_before or bool(undated_keys)


class CandidateTable:
    """The candidates of a batch as arrays, one row each (ids, day ordinals, UNDATED for none, and
    signatures, compared all at once), with what the join rules read of each row, worked out once when a
    rule first needs it; the batch's new articles are appended as they are assigned."""

    def __init__(self, size: int) -> None:
        self.ids = np.zeros(size, dtype=np.int64)
        self.ordinals = np.full(size, UNDATED, dtype=np.int64)
        self.matrix = np.zeros((size, NUM_PERM), dtype="<u4")
        self.count = 0
        self.rows: list[_Candidate] = []
        self.story_of: dict[int, int] = {}  # article id -> story id
        self.position_of: dict[int, int] = {}  # article id -> row
        self._words: dict[int, frozenset[str]] = {}
        self._kinds: dict[int, str] = {}
        self._names: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    def add(self, article_id: int, candidate: _Candidate, story: Optional[int] = None) -> None:
        n = self.count
        self.ids[n] = article_id
        self.matrix[n] = np.frombuffer(candidate.signature, "<u4")
        if candidate.ordinal is not None:
            self.ordinals[n] = candidate.ordinal
        self.rows.append(candidate)
        self.story_of[article_id] = story if story is not None else candidate.story_id or article_id
        self.position_of[article_id] = n
        self.count += 1

    def eligible(self, article: NewArticle, keys: list[int], holders: dict[int, list[int]]) -> np.ndarray:
        """Rows stored before `article` that could be versions of it: for a dated article, those dated the
        same day or the day before or after, and undated ones sharing a band key; for an undated article,
        those sharing a band key."""
        count = self.count
        day = article.day.toordinal() if article.day else None
        earlier = self.ids[:count] < article.id
        if day is not None:
            eligible = earlier & (np.abs(self.ordinals[:count] - day) <= WINDOW_DAYS)
        else:
            eligible = np.zeros(count, dtype=bool)
        by_key = {self.position_of[i] for key in keys for i in holders.get(key, ()) if i in self.position_of}
        if by_key:
            rows = np.fromiter(by_key, dtype=np.int64, count=len(by_key))
            if day is not None:
                rows = rows[self.ordinals[rows] == UNDATED]
            eligible[rows[earlier[rows]]] = True
        return np.flatnonzero(eligible)

    def headline_words(self, row: int) -> frozenset[str]:
        if row not in self._words:
            self._words[row] = headline_words(self.rows[row].headline, self.rows[row].language)
        return self._words[row]

    def kind(self, row: int) -> str:
        if row not in self._kinds:
            self._kinds[row] = headline_kind(self.rows[row].headline)
        return self._kinds[row]

    def names(self, article_id: int, headline: Optional[str], body_of) -> tuple[frozenset[str], frozenset[str]]:
        """(headline names, text words) of an article, its body from `body_of(article_id)`."""
        if article_id not in self._names:
            body = body_of(article_id)
            self._names[article_id] = (headline_names(headline, body), text_words(headline, body))
        return self._names[article_id]


def best_version(article: NewArticle, table: CandidateTable, near: np.ndarray, body_of) -> Optional[int]:
    """The id of the most similar candidate among the rows `near` that is a version of `article` (of its
    kind, and joining by `joins`), or None. Reads no SQL: an earlier article's body comes from `body_of`."""
    if not near.size:
        return None
    shared = (table.matrix[near] == np.frombuffer(article.signature, "<u4")).mean(axis=1)
    mine = headline_words(article.headline, article.language)
    my_kind = headline_kind(article.headline)
    for position in np.argsort(-shared, kind="stable"):
        share = float(shared[position])
        if share < HEADLINE_SIMILARITY:
            break
        row = int(near[position])
        if table.kind(row) == my_kind and joins(article, mine, table, row, share, body_of):
            return int(table.ids[row])
    return None


def joins(article: NewArticle, mine: frozenset[str], table: CandidateTable, row: int, share: float, body_of) -> bool:
    """Whether a candidate of the article's kind at signature agreement `share` is a version of it: by text
    alone, or, within one news cycle, by some text and the headline (shared headline words, or a few and
    most of the shorter text), unless each headline names someone the other article never mentions. Never
    across two languages."""
    candidate = table.rows[row]
    if other_languages(article.language, candidate.language):
        return False
    apart = article.time is not None and candidate.time is not None
    apart = apart and abs((article.time - candidate.time).total_seconds()) >= NEWS_CYCLE_HOURS * 3600
    if share >= (FAR_SIMILARITY if apart else JOIN_SIMILARITY):
        return True
    if apart:
        return False
    overlap = headline_overlap(mine, table.headline_words(row))
    if overlap < HEADLINE_OVERLAP and (
        overlap < CONTAINMENT_OVERLAP or containment(share, article.shingles, candidate.shingles) < CONTAINMENT
    ):
        return False
    other = int(table.ids[row])
    return not name_each_other_unknown(
        table.names(article.id, article.headline, body_of), table.names(other, candidate.headline, body_of)
    )


def _write_stories(
    session: Session,
    signed: list[NewArticle],
    keys: dict[int, list[int]],
    keep_dated_keys: bool,
    joined: dict[int, int],
) -> None:
    """Store the batch's band keys (an undated article's always; a dated one's when they are kept) and the
    story ids of the articles that joined one."""
    _insert_keys(session, [(key, a.id) for a in signed if keep_dated_keys or a.day is None for key in set(keys[a.id])])
    if joined:
        table = Article.__table__
        session.connection().execute(
            update(table).where(table.c.id == bindparam("b_id")).values(story_id=bindparam("b_story")),
            [{"b_id": article_id, "b_story": story} for article_id, story in joined.items()],
        )
