"""Who may see what: accounts and roles, sign-in sessions and lockouts, API tokens, collections and their
grants, and the audit log.

In `open` mode (NEWSARCHIVE_ACCESS=open, or `auto` on a loopback address) nothing here is checked: the one
person at the machine reads and does everything, as `Principal.OPEN`. In `login` mode every request has a
principal: a signed-in user (a session cookie), a user's API token (`Authorization: Bearer`, scope `read`
or `admin`), or nobody (anonymous: public collections only).

Roles: reader < editor < admin; each may do what the roles before it may. Admins read every collection.
A collection is public (everyone, signed in or not) or readable by its grants: `role:reader` (every
signed-in user: the default of `main` and of new collections), `role:editor`, `group:NAME`, `user:NAME`.
Articles carry their collection's id in SQL only; the index does not hold it, so collections are made,
renamed, re-permissioned and refilled without re-ingesting or reindexing. Every such change raises
`access_state.version`, which each web server reads once per request.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import Iterable, Optional

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from .models import (
    ROLES,
    AccessState,
    ApiToken,
    Article,
    AuditEvent,
    Collection,
    CollectionGrant,
    CollectionSource,
    LoginFailure,
    LoginSession,
    SavedSearch,
    Source,
    User,
    utcnow,
)

MAIN = 1  # the collection every article joins unless its folder or source names another
SCOPES = ("read", "admin")
TOKEN_PREFIX = "na_"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")
MIN_PASSWORD = 10
_hasher = PasswordHasher()  # Argon2id with the library's current parameters (kept in each hash)
# A hash to verify against when the account does not exist, so a wrong name costs what a wrong password does.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


class AccessError(ValueError):
    """A request about accounts, tokens or collections that cannot be done, with the reason to show."""


@dataclass(frozen=True)
class Principal:
    """Who is asking: a user (by session or token), nobody, or everyone (open mode)."""

    user_id: Optional[int] = None
    name: Optional[str] = None
    role: Optional[str] = None  # reader, editor, admin; None for nobody
    groups: frozenset[str] = field(default_factory=frozenset)
    via: str = "anonymous"  # open, session, token, feed, anonymous
    scope: Optional[str] = None  # a token's scope
    token_id: Optional[int] = None

    @property
    def open(self) -> bool:
        return self.via == "open"

    @property
    def signed_in(self) -> bool:
        return self.open or self.user_id is not None

    def at_least(self, role: str) -> bool:
        """Whether this principal's role is `role` or above (always, in open mode)."""
        if self.open:
            return True
        return self.role is not None and ROLES.index(self.role) >= ROLES.index(role)

    @property
    def admin(self) -> bool:
        """May use admin pages and commands: an admin signed in, or an admin's `admin`-scoped token."""
        if self.open:
            return True
        return self.role == "admin" and (self.via != "token" or self.scope == "admin")

    @property
    def reads_everything(self) -> bool:
        return self.open or self.role == "admin"

    def principals(self) -> set[str]:
        """The grant names that admit this principal ("role:reader", "group:wire", "user:alice")."""
        if self.role is None:
            return set()
        names = {f"role:{r}" for r in ROLES[: ROLES.index(self.role) + 1]}
        names |= {f"group:{g}" for g in self.groups}
        if self.name:
            names.add(f"user:{self.name}")
        return names


OPEN = Principal(via="open")
ANONYMOUS = Principal()


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _check_name(name: str, what: str = "a user name") -> str:
    name = (name or "").strip()
    if not NAME.match(name):
        raise AccessError(
            f"{what} is 1 to 100 letters, digits, '.', '_', '@' or '-', starting with a letter or digit, "
            f"not {name[:40]!r}"
        )
    return name


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise AccessError(f"a role is one of {', '.join(ROLES)}, not {role[:40]!r}")
    return role


def _groups(text: Optional[str]) -> frozenset[str]:
    return frozenset(g for g in (text or "").split(",") if g)


def _check_groups(groups: Iterable[str]) -> str:
    names = sorted({_check_name(g, "a group name") for g in groups if g.strip()})
    return ",".join(names)


# -- version: every change of who may read what ------------------------------------------------------------


def bump(session: Session) -> None:
    """Raise the access version: web servers re-read permissions and article collections on their next request."""
    session.execute(update(AccessState).where(AccessState.id == 1).values(version=AccessState.version + 1))


def version(connection) -> int:
    return connection.execute(select(AccessState.version).where(AccessState.id == 1)).scalar() or 0


# -- accounts ---------------------------------------------------------------------------------------------


def hash_password(password: str) -> str:
    if len(password or "") < MIN_PASSWORD:
        raise AccessError(f"a password is at least {MIN_PASSWORD} characters")
    if len(password) > 1000:
        raise AccessError("a password is at most 1,000 characters")
    return _hasher.hash(password)


def add_user(session: Session, name: str, password: str, role: str = "reader", groups: Iterable[str] = ()) -> User:
    """A new account. The first admin made adopts the saved searches made in open mode (no owner)."""
    name = _check_name(name)
    _check_role(role)
    if session.scalar(select(User.id).where(func.lower(User.name) == name.lower())):
        raise AccessError(f"there is already a user named {name!r}")
    first_admin = role == "admin" and not session.scalar(select(User.id).where(User.role == "admin").limit(1))
    user = User(
        name=name,
        password_hash=hash_password(password),
        role=role,
        groups=_check_groups(groups),
        disabled=False,
        failed_logins=0,
    )
    session.add(user)
    session.flush()
    if first_admin:
        session.execute(update(SavedSearch).where(SavedSearch.owner_id.is_(None)).values(owner_id=user.id))
    bump(session)
    return user


def find_user(session: Session, name: str) -> User:
    user = session.scalar(select(User).where(func.lower(User.name) == (name or "").strip().lower()))
    if user is None:
        raise AccessError(f"there is no user named {name[:100]!r}")
    return user


def set_user(
    session: Session,
    name: str,
    *,
    role: Optional[str] = None,
    groups: Optional[Iterable[str]] = None,
    disabled: Optional[bool] = None,
    password: Optional[str] = None,
) -> User:
    """Change an account; a new password, a new role or disabling ends its sign-ins (and disabling stops
    its tokens)."""
    user = find_user(session, name)
    ends_sessions = False
    if role is not None:
        user.role = _check_role(role)
        ends_sessions = True
    if groups is not None:
        user.groups = _check_groups(groups)
    if disabled is not None:
        user.disabled = disabled
        ends_sessions = ends_sessions or disabled
    if password is not None:
        user.password_hash = hash_password(password)
        user.failed_logins = 0
        user.locked_until = None
        ends_sessions = True
    if ends_sessions:
        session.execute(delete(LoginSession).where(LoginSession.user_id == user.id))
    bump(session)
    return user


def users(session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.name)))


def principal_of(user: User, via: str, scope: Optional[str] = None, token_id: Optional[int] = None) -> Principal:
    return Principal(
        user_id=user.id,
        name=user.name,
        role=user.role,
        groups=_groups(user.groups),
        via=via,
        scope=scope,
        token_id=token_id,
    )


# -- signing in -------------------------------------------------------------------------------------------


@dataclass
class LoginResult:
    user: Optional[User]
    message: str = ""  # why not, in words that do not say whether the name exists
    locked: bool = False


def login(session: Session, name: str, password: str, address: str, settings) -> LoginResult:
    """Check a name and password. Failures count per account (`login_max_failures` in a row lock it for
    `login_lockout_s`) and per address (`login_address_max_failures` within that window lock the address);
    while locked, even the right password is refused. The answer never tells a wrong name from a wrong
    password."""
    now = utcnow()
    window = dt.timedelta(seconds=settings.login_lockout_s)
    address = (address or "unknown")[:64]
    failures = session.get(LoginFailure, address)
    if failures is not None and failures.locked_until and failures.locked_until > now:
        return LoginResult(None, "too many failed sign-ins from your address: try again later", locked=True)
    user = session.scalar(select(User).where(func.lower(User.name) == (name or "").strip().lower()))
    if user is not None and user.locked_until and user.locked_until > now:
        _hasher_verify(_DUMMY_HASH, password)
        return LoginResult(None, "this account is locked after too many failed sign-ins: try again later", True)
    good = _hasher_verify(user.password_hash if user is not None else _DUMMY_HASH, password)
    if user is not None and good and not user.disabled:
        user.failed_logins = 0
        user.locked_until = None
        if _hasher.check_needs_rehash(user.password_hash):
            user.password_hash = _hasher.hash(password)
        return LoginResult(user)
    # A failure: count it against the address and the account.
    if failures is None:
        failures = LoginFailure(address=address, failures=0, window_start=now)
        session.add(failures)
    if failures.window_start is None or now - failures.window_start > window:
        failures.failures, failures.window_start = 0, now
    failures.failures += 1
    if failures.failures >= settings.login_address_max_failures:
        failures.locked_until = now + window
    if user is not None and not user.disabled:
        user.failed_logins = (user.failed_logins or 0) + 1
        if user.failed_logins >= settings.login_max_failures:
            user.locked_until = now + window
            user.failed_logins = 0
    return LoginResult(None, "the name or the password is wrong (or the account is disabled)")


def _hasher_verify(hashed: str, password: str) -> bool:
    try:
        return _hasher.verify(hashed, (password or "")[:1000])
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def start_session(session: Session, user: User, hours: int) -> str:
    """A new sign-in for `user`: the random id its cookie keeps (only its SHA-256 is stored)."""
    raw = secrets.token_urlsafe(32)
    session.add(LoginSession(id_hash=_digest(raw), user_id=user.id, expires_at=utcnow() + dt.timedelta(hours=hours)))
    session.execute(delete(LoginSession).where(LoginSession.expires_at < utcnow()))
    return raw


def session_principal(session: Session, raw: str) -> Optional[Principal]:
    """The signed-in user of a session id, or None when it has ended, expired or the user is disabled."""
    if not raw:
        return None
    row = session.execute(
        select(User, LoginSession.expires_at)
        .join(LoginSession, LoginSession.user_id == User.id)
        .where(LoginSession.id_hash == _digest(raw))
    ).first()
    if row is None or row[1] < utcnow() or row[0].disabled:
        return None
    return principal_of(row[0], "session")


def end_session(session: Session, raw: str) -> None:
    if raw:
        session.execute(delete(LoginSession).where(LoginSession.id_hash == _digest(raw)))


# -- API tokens -------------------------------------------------------------------------------------------


def create_token(session: Session, user: User, name: str, scope: str = "read", days: Optional[int] = 90) -> str:
    """A new token for `user`, returned once (only its SHA-256 is kept). `admin` scope only for admins."""
    if scope not in SCOPES:
        raise AccessError(f"a token's scope is one of {', '.join(SCOPES)}, not {scope[:40]!r}")
    if scope == "admin" and user.role != "admin":
        raise AccessError("only an admin's token may have the admin scope")
    name = " ".join((name or "").split())[:100] or "token"
    if days is not None and not 1 <= days <= 3650:
        raise AccessError("a token lasts from 1 to 3,650 days")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    session.add(
        ApiToken(
            user_id=user.id,
            name=name,
            token_hash=_digest(raw),
            prefix=raw[:10],
            scope=scope,
            expires_at=utcnow() + dt.timedelta(days=days) if days else None,
        )
    )
    session.flush()
    return raw


def token_principal(session: Session, raw: str, touch: bool = True) -> Optional[Principal]:
    """The principal of a bearer token, or None when it is unknown, revoked, expired or its user disabled."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    row = session.execute(
        select(
            User.id,
            User.name,
            User.role,
            User.groups,
            User.disabled,
            ApiToken.id.label("token_id"),
            ApiToken.scope,
            ApiToken.expires_at,
            ApiToken.revoked_at,
            ApiToken.last_used_at,
        )
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == _digest(raw))
    ).first()
    if row is None:
        return None
    now = utcnow()
    if row.revoked_at is not None or (row.expires_at is not None and row.expires_at < now) or row.disabled:
        return None
    if touch and (row.last_used_at is None or now - row.last_used_at > dt.timedelta(minutes=1)):
        session.execute(update(ApiToken).where(ApiToken.id == row.token_id).values(last_used_at=now))
    return Principal(
        user_id=row.id,
        name=row.name,
        role=row.role,
        groups=_groups(row.groups),
        via="token",
        scope=row.scope,
        token_id=row.token_id,
    )


def tokens(session: Session, user_id: Optional[int] = None) -> list[dict]:
    """Tokens (never their secrets), newest first: every user's, or one user's."""
    q = select(ApiToken, User.name).join(User, User.id == ApiToken.user_id).order_by(ApiToken.id.desc())
    if user_id is not None:
        q = q.where(ApiToken.user_id == user_id)
    now = utcnow()
    out = []
    for token, user_name in session.execute(q):
        state = "active"
        if token.revoked_at is not None:
            state = "revoked"
        elif token.expires_at is not None and token.expires_at < now:
            state = "expired"
        out.append(
            {
                "id": token.id,
                "user": user_name,
                "name": token.name,
                "prefix": token.prefix,
                "scope": token.scope,
                "state": state,
                "created_at": _stamp(token.created_at),
                "expires_at": _stamp(token.expires_at),
                "last_used_at": _stamp(token.last_used_at),
            }
        )
    return out


def revoke_token(session: Session, token_id: int, user_id: Optional[int] = None) -> bool:
    """Revoke a token (only `user_id`'s own, when given); whether there was one to revoke."""
    q = update(ApiToken).where(ApiToken.id == token_id, ApiToken.revoked_at.is_(None)).values(revoked_at=utcnow())
    if user_id is not None:
        q = q.where(ApiToken.user_id == user_id)
    return session.execute(q).rowcount > 0


def _stamp(value: Optional[dt.datetime]) -> Optional[str]:
    return value.isoformat(timespec="seconds") + "Z" if value else None


# -- collections ------------------------------------------------------------------------------------------


def readable(session_or_connection, principal: Principal) -> Optional[frozenset[int]]:
    """The ids of the collections `principal` may read; None means every collection."""
    if principal.reads_everything:
        return None
    ids = set(session_or_connection.execute(select(Collection.id).where(Collection.public.is_(True))).scalars())
    names = principal.principals()
    if names:
        ids |= set(
            session_or_connection.execute(
                select(CollectionGrant.collection_id).where(CollectionGrant.principal.in_(sorted(names)))
            ).scalars()
        )
    return frozenset(ids)


def find_collection(session: Session, name: str) -> Collection:
    found = session.scalar(select(Collection).where(func.lower(Collection.name) == (name or "").strip().lower()))
    if found is None:
        raise AccessError(f"there is no collection named {name[:100]!r}")
    return found


def _check_principal(text: str) -> str:
    kind, _, name = (text or "").strip().partition(":")
    if kind == "role":
        return f"role:{_check_role(name)}"
    if kind in ("group", "user"):
        return f"{kind}:{_check_name(name, f'a {kind} name')}"
    raise AccessError(f"a grant names role:ROLE, group:NAME or user:NAME, not {text[:60]!r}")


def create_collection(session: Session, name: str, public: bool = False, grants: Iterable[str] = ("role:reader",)):
    name = _check_name(name, "a collection name")
    if session.scalar(select(Collection.id).where(func.lower(Collection.name) == name.lower())):
        raise AccessError(f"there is already a collection named {name!r}")
    collection = Collection(name=name, public=public)
    session.add(collection)
    session.flush()
    for principal in {_check_principal(g) for g in grants}:
        session.add(CollectionGrant(collection_id=collection.id, principal=principal))
    bump(session)
    return collection


def rename_collection(session: Session, name: str, new_name: str) -> Collection:
    collection = find_collection(session, name)
    new_name = _check_name(new_name, "a collection name")
    clash = session.scalar(select(Collection.id).where(func.lower(Collection.name) == new_name.lower()))
    if clash and clash != collection.id:
        raise AccessError(f"there is already a collection named {new_name!r}")
    collection.name = new_name
    bump(session)
    return collection


def set_public(session: Session, name: str, public: bool) -> Collection:
    collection = find_collection(session, name)
    collection.public = public
    bump(session)
    return collection


def grant(session: Session, name: str, principal: str) -> None:
    collection = find_collection(session, name)
    principal = _check_principal(principal)
    if session.get(CollectionGrant, (collection.id, principal)) is None:
        session.add(CollectionGrant(collection_id=collection.id, principal=principal))
    bump(session)


def revoke(session: Session, name: str, principal: str) -> bool:
    collection = find_collection(session, name)
    gone = session.execute(
        delete(CollectionGrant).where(
            CollectionGrant.collection_id == collection.id, CollectionGrant.principal == _check_principal(principal)
        )
    ).rowcount
    bump(session)
    return gone > 0


def assign(
    session: Session, name: str, *, source: Optional[str] = None, ids: Iterable[int] = (), remember: bool = True
) -> int:
    """Move articles into collection `name`: those of a source (and, with `remember`, the source's later
    articles too), or the given ids. How many moved. No re-ingest, no reindex."""
    collection = find_collection(session, name)
    moved = 0
    if source is not None:
        source_id = session.scalar(select(Source.id).where(func.lower(Source.name) == source.strip().lower()))
        if source_id is None and not remember:
            raise AccessError(f"there is no source named {source[:100]!r}")
        if source_id is not None:
            moved += session.execute(
                update(Article).where(Article.source_id == source_id).values(collection_id=collection.id)
            ).rowcount
        if remember:
            canonical = session.scalar(select(Source.name).where(Source.id == source_id)) if source_id else source
            row = session.get(CollectionSource, canonical)
            if row is None:
                session.add(CollectionSource(source=canonical, collection_id=collection.id))
            else:
                row.collection_id = collection.id
    wanted = sorted({int(i) for i in ids})
    for start in range(0, len(wanted), 500):
        moved += session.execute(
            update(Article).where(Article.id.in_(wanted[start : start + 500])).values(collection_id=collection.id)
        ).rowcount
    bump(session)
    return moved


def collections(session: Session) -> list[dict]:
    """Every collection with its grants, source rules and article count."""
    counts = dict(session.execute(select(Article.collection_id, func.count()).group_by(Article.collection_id)).all())
    grants_of: dict[int, list[str]] = {}
    for cid, principal in session.execute(select(CollectionGrant.collection_id, CollectionGrant.principal)):
        grants_of.setdefault(cid, []).append(principal)
    sources_of: dict[int, list[str]] = {}
    for source, cid in session.execute(select(CollectionSource.source, CollectionSource.collection_id)):
        sources_of.setdefault(cid, []).append(source)
    return [
        {
            "id": c.id,
            "name": c.name,
            "public": c.public,
            "readable_by": ["everyone"] if c.public else sorted(grants_of.get(c.id, [])) or ["admins only"],
            "sources": sorted(sources_of.get(c.id, [])),
            "articles": counts.get(c.id, 0),
        }
        for c in session.scalars(select(Collection).order_by(Collection.id))
    ]


def collection_ids(session: Session) -> tuple[dict[str, int], dict[str, int]]:
    """(collection id by lower-case name, collection id by lower-case source name): what ingest stores by."""
    by_name = {name.lower(): cid for cid, name in session.execute(select(Collection.id, Collection.name))}
    by_source = {
        source.lower(): cid
        for source, cid in session.execute(select(CollectionSource.source, CollectionSource.collection_id))
    }
    return by_name, by_source


# -- audit ------------------------------------------------------------------------------------------------


def record(
    session: Session,
    principal: Optional[Principal],
    action: str,
    target: Optional[str] = None,
    detail: Optional[str] = None,
    address: Optional[str] = None,
) -> None:
    session.add(
        AuditEvent(
            actor=principal.name if principal is not None else None,
            address=(address or None) and address[:64],
            action=action[:40],
            target=target,
            detail=detail,
        )
    )


def audit_events(session: Session, limit: int = 200, before: Optional[int] = None) -> list[dict]:
    q = select(AuditEvent).order_by(AuditEvent.id.desc()).limit(limit)
    if before:
        q = q.where(AuditEvent.id < before)
    return [
        {
            "id": e.id,
            "at": _stamp(e.at),
            "actor": e.actor,
            "address": e.address,
            "action": e.action,
            "target": e.target,
            "detail": e.detail,
        }
        for e in session.scalars(q)
    ]


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two secrets."""
    return hmac.compare_digest((a or "").encode(), (b or "").encode())
