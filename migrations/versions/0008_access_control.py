"""who may see what: accounts, sessions, API tokens, collections, grants and the audit log

Every article joins the collection `main` (id 1), readable by every signed-in user (`role:reader`) until
an admin makes it public; in `open` mode (the default on a loopback address) nothing is checked. Saved
searches get an owner (NULL for those made before accounts: the first admin added adopts them) and a
feed secret. See store/access.py.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 06:00:00
"""

import datetime as dt
import secrets
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: Union[str, None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("groups", sa.Text(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("name", name=op.f("uq_users_name")),
    )
    op.create_table(
        "login_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_login_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_login_sessions")),
    )
    op.create_index(op.f("ix_login_sessions_user_id"), "login_sessions", ["user_id"])
    op.create_table(
        "login_failures",
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.DateTime(), nullable=False),
        sa.Column("locked_until", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_login_failures")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("scope", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_api_tokens_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_index(op.f("ix_api_tokens_user_id"), "api_tokens", ["user_id"])
    collections = op.create_table(
        "collections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_collections")),
        sa.UniqueConstraint("name", name=op.f("uq_collections_name")),
    )
    grants = op.create_table(
        "collection_grants",
        sa.Column("collection_id", sa.Integer(), nullable=False),
        sa.Column("principal", sa.String(length=120), nullable=False),
        sa.ForeignKeyConstraint(
            ["collection_id"],
            ["collections.id"],
            name=op.f("fk_collection_grants_collection_id_collections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("collection_id", "principal", name=op.f("pk_collection_grants")),
    )
    op.create_table(
        "collection_sources",
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.Column("collection_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["collection_id"],
            ["collections.id"],
            name=op.f("fk_collection_sources_collection_id_collections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("source", name=op.f("pk_collection_sources")),
    )
    state = op.create_table(
        "access_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_access_state")),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=True),
        sa.Column("address", sa.String(length=64), nullable=True),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
    )
    op.create_index(op.f("ix_audit_events_at"), "audit_events", ["at"])
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    op.get_bind().execute(collections.insert().values(id=1, name="main", public=False, created_at=now))
    if op.get_bind().dialect.name == "postgresql":
        op.execute("SELECT setval(pg_get_serial_sequence('collections', 'id'), 1)")
    op.get_bind().execute(grants.insert().values(collection_id=1, principal="role:reader"))
    op.get_bind().execute(state.insert().values(id=1, version=0))

    with op.batch_alter_table("articles") as batch:
        batch.add_column(sa.Column("collection_id", sa.Integer(), server_default="1", nullable=False))
    with op.batch_alter_table("saved_searches") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("shared_group", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("feed_secret", sa.String(length=64), nullable=True))
        batch.create_index(batch.f("ix_saved_searches_owner_id"), ["owner_id"])
    saved = sa.table("saved_searches", sa.column("id", sa.Integer), sa.column("feed_secret", sa.String))
    connection = op.get_bind()
    for (saved_id,) in connection.execute(sa.select(saved.c.id)).all():
        connection.execute(saved.update().where(saved.c.id == saved_id).values(feed_secret=secrets.token_urlsafe(24)))


def downgrade() -> None:
    with op.batch_alter_table("saved_searches") as batch:
        batch.drop_index(batch.f("ix_saved_searches_owner_id"))
        batch.drop_column("feed_secret")
        batch.drop_column("shared_group")
        batch.drop_column("owner_id")
    with op.batch_alter_table("articles") as batch:
        batch.drop_column("collection_id")
    for table in (
        "audit_events",
        "access_state",
        "collection_sources",
        "collection_grants",
        "collections",
        "api_tokens",
        "login_failures",
        "login_sessions",
        "users",
    ):
        op.drop_table(table)
