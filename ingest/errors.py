"""What goes wrong with an input file or a record in it, as the ingester reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RecordError:
    """A record inside a multi-record file that could not be read; the file's other records go on."""

    line: int
    reason: str


# What a skipped record's number counts, by the format of its file.
POSITION_NAMES = {"jsonl": "line", "feed": "item", "newsml": "item", "warc": "record", "zip": "member", "tar": "member"}


def position_name(fmt: str | None) -> str:
    """ "line 12" of a JSON Lines file, "item 3" of a feed, "member 7" of a bundle, "record 40" of a WARC."""
    return POSITION_NAMES.get(fmt or "", "record")


class InputError(Exception):
    """The file as a whole cannot be ingested; the message says why and goes into its .error.json."""


class DatabaseUnavailable(RuntimeError):
    """The database stopped answering (down, restarting, out of reach): the run stops at once, and the file
    being read stays in the inbox to be read again (a big file's committed slices are kept and its reading
    resumes where it stopped). Nothing is quarantined for it: the file is not at fault."""
