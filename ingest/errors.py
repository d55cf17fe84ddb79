"""What goes wrong with an input file or a record in it, as the ingester reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RecordError:
    """A record inside a multi-record file that could not be read; the file's other records go on."""

    line: int
    reason: str


class InputError(Exception):
    """The file as a whole cannot be ingested; the message says why and goes into its .error.json."""
