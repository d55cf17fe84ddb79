"""The SQL schema: articles with their captions, sources and places, and the ingest log."""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# The articles of one identity that may be searched at once: one (the partial unique index on identity).
ONE_USABLE_VERSION = "status = 'usable' AND identity IS NOT NULL"


def utcnow() -> dt.datetime:
    """The current time in UTC, without tzinfo, as every timestamp column stores it."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


article_places = Table(
    "article_places",
    Base.metadata,
    Column("article_id", ForeignKey("articles.id", ondelete="CASCADE"), primary_key=True),
    Column("place_id", ForeignKey("places.id", ondelete="CASCADE"), primary_key=True, index=True),
)


class Source(Base):
    """A publisher or agency, e.g. "The Associated Press"."""

    __tablename__ = "sources"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)


class Place(Base):
    """A place an article is about or filed from."""

    __tablename__ = "places"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(20))  # country, city, region
    country_code: Mapped[Optional[str]] = mapped_column(String(2))


class IngestFile(Base):
    """One row per input file read: where it came from, where its bytes are now, and what became of it."""

    __tablename__ = "ingest_files"
    id: Mapped[int] = mapped_column(primary_key=True)
    path: Mapped[str] = mapped_column(Text)  # where it was read
    stored_path: Mapped[Optional[str]] = mapped_column(Text)  # where the original bytes are now
    sha256: Mapped[Optional[str]] = mapped_column(String(64), index=True)
    size_bytes: Mapped[Optional[int]] = mapped_column(BigInteger)
    format: Mapped[Optional[str]] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), index=True)  # ingested, duplicate, failed
    reason: Mapped[Optional[str]] = mapped_column(Text)
    articles_ingested: Mapped[int] = mapped_column(Integer, default=0)
    duplicates: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[Optional[list[dict[str, Any]]]] = mapped_column(JSON)  # [{"line": n, "reason": "..."}]
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)


class Article(Base):
    """A stored article: headline, body paragraphs, metadata; `indexed` is false until Whoosh has it."""

    __tablename__ = "articles"
    id: Mapped[int] = mapped_column(primary_key=True)
    headline: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)  # paragraphs joined by blank lines
    published: Mapped[Optional[str]] = mapped_column(String(40))  # ISO date or datetime as the article states it
    published_day: Mapped[Optional[dt.date]] = mapped_column(Date, index=True)  # the article's own calendar day
    published_utc: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)  # for ordering; midnight for a bare date
    date_inferred: Mapped[bool] = mapped_column(Boolean, default=False)
    source_id: Mapped[Optional[int]] = mapped_column(ForeignKey("sources.id"), index=True)
    byline: Mapped[Optional[str]] = mapped_column(Text)
    dateline: Mapped[Optional[str]] = mapped_column(String(200))
    url: Mapped[Optional[str]] = mapped_column(Text)
    language: Mapped[Optional[str]] = mapped_column(String(16))
    content_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    original_file: Mapped[str] = mapped_column(Text)
    ingest_file_id: Mapped[Optional[int]] = mapped_column(ForeignKey("ingest_files.id"), index=True)
    source_line: Mapped[Optional[int]] = mapped_column(Integer)  # line (JSON Lines) or position (JSON array)
    source_member: Mapped[Optional[str]] = mapped_column(Text)  # the member of a zip or tar bundle, if any
    # Versions of one article: its identity as the source gives it, its version, and which one is searched.
    identity: Mapped[Optional[str]] = mapped_column(Text, index=True)
    version: Mapped[Optional[int]] = mapped_column(Integer)
    version_time: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)  # UTC
    status: Mapped[str] = mapped_column(String(12), default="usable", server_default="usable")  # see STATUSES
    notice: Mapped[Optional[str]] = mapped_column(Text)  # a withdrawal's notice
    ingested_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    indexed: Mapped[bool] = mapped_column(Boolean, default=False)
    # Who may read it: the collection it belongs to (store/access.py); `main` (id 1) unless the inbox folder
    # or the source names another. Moving an article is an update here: the index does not hold it.
    # No index: a reader's filter lets most articles through, and an index tempted SQLite's planner to scan by
    # collection instead of fetching a few rows by id (label_stories: 70 ms instead of 1 ms at 106,520 articles).
    collection_id: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # Story clusters (ingest/stories.py): the id of the story's first article, NULL when it is that first
    # article itself; and the MinHash signature its later versions are compared with.
    story_id: Mapped[Optional[int]] = mapped_column(Integer, index=True)
    minhash: Mapped[Optional[bytes]] = mapped_column(LargeBinary)
    shingles: Mapped[Optional[int]] = mapped_column(Integer)  # distinct word shingles the minhash summarises

    source: Mapped[Optional[Source]] = relationship(lazy="joined")
    captions: Mapped[list["Caption"]] = relationship(
        order_by="Caption.position", cascade="all, delete-orphan", back_populates="article"
    )
    places: Mapped[list[Place]] = relationship(secondary=article_places, order_by="Place.name")

    __table_args__ = (
        Index("ix_articles_pending", "indexed"),
        # One searched version of an article identity, however many ingesters write (migration 0010).
        Index(
            "uq_articles_usable_identity",
            "identity",
            unique=True,
            postgresql_where=text(ONE_USABLE_VERSION),
            sqlite_where=text(ONE_USABLE_VERSION),
        ),
    )

    @property
    def paragraphs(self) -> list[str]:
        return [p for p in self.body.split("\n\n") if p] if self.body else []


class Caption(Base):
    """A photo caption with its credit split into photographer and agency."""

    __tablename__ = "captions"
    id: Mapped[int] = mapped_column(primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("articles.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    credit: Mapped[Optional[str]] = mapped_column(Text)
    photographer: Mapped[Optional[str]] = mapped_column(String(200))
    agency: Mapped[Optional[str]] = mapped_column(String(100))
    image_url: Mapped[Optional[str]] = mapped_column(Text)  # the photo at its source (http or https only)

    article: Mapped[Article] = relationship(back_populates="captions")


class SavedSearch(Base):
    """A search a user saved by name: its parameters as a query string, and how far it has been read.

    Article ids grow in ingest order, so "new" means an article id above `seen_article_id` (for the page's
    "N new since you last looked") or `alerted_article_id` (for `newsarchive alerts`)."""

    __tablename__ = "saved_searches"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    params: Mapped[str] = mapped_column(Text)  # the search's query string, e.g. "q=kobani&source=Reuters"
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    seen_article_id: Mapped[int] = mapped_column(Integer, default=0)
    alerted_article_id: Mapped[int] = mapped_column(Integer, default=0)
    # Its owner (NULL: made in `open` mode, before accounts; admins see those), the group it is shared with
    # (read-only for the group's members; set by an editor or admin), and the secret in its feed's address.
    owner_id: Mapped[Optional[int]] = mapped_column(Integer, index=True)  # users.id (disabled, never deleted)
    shared_group: Mapped[Optional[str]] = mapped_column(String(100))
    feed_secret: Mapped[Optional[str]] = mapped_column(String(64))


class StoryKey(Base):
    """LSH band keys of articles' signatures: undated versions of a story are found by a shared key (dated
    ones are compared with every article of the same and the neighbouring days); none are kept until the
    archive holds an undated article (ingest/stories.py)."""

    __tablename__ = "story_keys"
    __table_args__ = {"sqlite_with_rowid": False}
    key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    article_id: Mapped[int] = mapped_column(ForeignKey("articles.id", ondelete="CASCADE"), primary_key=True)


# -- who may see what (store/access.py) -------------------------------------------------------------------

ROLES = ("reader", "editor", "admin")  # each may do what the ones before it may


class User(Base):
    """An account: a name, an argon2 password hash, a role and the groups it belongs to."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    role: Mapped[str] = mapped_column(String(10), default="reader")  # one of ROLES
    groups: Mapped[Optional[str]] = mapped_column(Text)  # comma-separated group names
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    failed_logins: Mapped[int] = mapped_column(Integer, default=0)  # in a row
    locked_until: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class LoginSession(Base):
    """A signed-in browser: the SHA-256 of the random id its cookie holds, and until when it is good."""

    __tablename__ = "login_sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime)


class LoginFailure(Base):
    """Failed logins from one address within the current window (the per-address lockout)."""

    __tablename__ = "login_failures"
    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    locked_until: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)


class ApiToken(Base):
    """An API token: only its SHA-256 is kept; shown once when made. Scope `read` or `admin`."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the token's first characters, to tell tokens apart
    scope: Mapped[str] = mapped_column(String(10), default="read")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)
    revoked_at: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)
    last_used_at: Mapped[Optional[dt.datetime]] = mapped_column(DateTime)


class Collection(Base):
    """A set of articles read by the same people: public, or readable by the principals of its grants."""

    __tablename__ = "collections"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class CollectionGrant(Base):
    """Who may read a collection: "role:reader" (every signed-in user), "role:editor", "group:NAME",
    "user:NAME"."""

    __tablename__ = "collection_grants"
    collection_id: Mapped[int] = mapped_column(ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True)
    principal: Mapped[str] = mapped_column(String(120), primary_key=True)


class CollectionSource(Base):
    """Articles of this source are stored in this collection (unless their inbox folder names another)."""

    __tablename__ = "collection_sources"
    source: Mapped[str] = mapped_column(String(200), primary_key=True)
    collection_id: Mapped[int] = mapped_column(ForeignKey("collections.id", ondelete="CASCADE"))


class AccessState(Base):
    """One row: a number raised by every change of who may read what, so every web server notices."""

    __tablename__ = "access_state"
    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)


class AuditEvent(Base):
    """Who exported, downloaded an original, or changed accounts, tokens or permissions, and when."""

    __tablename__ = "audit_events"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    actor: Mapped[Optional[str]] = mapped_column(String(100))  # a user's name; NULL in open mode
    address: Mapped[Optional[str]] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[Optional[str]] = mapped_column(Text)
    detail: Mapped[Optional[str]] = mapped_column(Text)


class SearchIndexState(Base):
    """One row, with the PostgreSQL search backend (store/pgindex.py): the live index's generation and the
    number of its last commit (its Whoosh TOC), and the schema version it was built under."""

    __tablename__ = "search_index_state"
    id: Mapped[int] = mapped_column(primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)
    toc: Mapped[int] = mapped_column(Integer)
    schema_version: Mapped[int] = mapped_column(Integer)
    changed_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SearchIndexBuild(Base):
    """A `newsarchive reindex` under way with the PostgreSQL search backend (store/pgbuild.py): the new
    generation's files are uploaded at every checkpoint, with the last article id they hold, so an
    interrupted rebuild goes on from there the next time it is run."""

    __tablename__ = "search_index_builds"
    generation: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    toc: Mapped[int] = mapped_column(Integer)
    last_article_id: Mapped[int] = mapped_column(BigInteger)
    documents: Mapped[int] = mapped_column(BigInteger)
    schema_version: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    saved_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SearchIndexFile(Base):
    """A file of the search index (PostgreSQL backend): written once, never changed, kept in parts."""

    __tablename__ = "search_index_files"
    generation: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))


class SearchIndexPart(Base):
    """Up to PART_BYTES of one index file (a bytea value is at most 1 GB; parts keep reads and writes small)."""

    __tablename__ = "search_index_parts"
    generation: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    part: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
