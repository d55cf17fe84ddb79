"""What a folder says about the files in it: `.newsarchive.json` (source, language, time zone), and the
user's own table of source names.

A folder's defaults file applies to every file read under it; a deeper folder's file overrides the keys it
names. Defaults only fill what a file does not state itself (see `ingest.enrich.enrich`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from search.languages import language_tag

from .errors import InputError

DEFAULTS_FILE = ".newsarchive.json"
KEYS = ("source", "language", "timezone", "collection")


@dataclass(frozen=True)
class FolderDefaults:
    source: Optional[str] = None  # e.g. "BBC News"
    language: Optional[str] = None  # ISO 639 code, e.g. "en"
    timezone: Optional[str] = None  # IANA name, e.g. "Europe/London": for times a file gives without an offset
    collection: Optional[str] = None  # who may read its articles (store/access.py); it must exist

    def merged(self, nearer: "FolderDefaults") -> "FolderDefaults":
        return FolderDefaults(
            source=nearer.source or self.source,
            language=nearer.language or self.language,
            timezone=nearer.timezone or self.timezone,
            collection=nearer.collection or self.collection,
        )

    @property
    def zone(self) -> Optional[ZoneInfo]:
        return ZoneInfo(self.timezone) if self.timezone else None


NONE = FolderDefaults()


def parse_defaults(text: str, where: str) -> FolderDefaults:
    """A defaults file's content, checked; InputError naming the file and the problem otherwise."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the folder defaults file {where} is not valid JSON: {exc.msg} at line {exc.lineno}"
        ) from None
    if not isinstance(data, dict):
        raise InputError(f'the folder defaults file {where} must hold a JSON object such as {{"source": "BBC News"}}')
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise InputError(
            f"the folder defaults file {where} has unknown keys {', '.join(unknown)} (known: {', '.join(KEYS)})"
        )
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise InputError(f"the folder defaults file {where}: {key} must be a short text, not {value!r}")
    written = data.get("language", "").strip() or None
    language = language_tag(written) if written else None
    if written and language is None:
        raise InputError(
            f"the folder defaults file {where}: language must be a language tag such as en or pt-BR, not {written!r}"
        )
    timezone = data.get("timezone", "").strip() or None
    if timezone:
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise InputError(
                f"the folder defaults file {where}: timezone must be an IANA name such as Europe/London, "
                f"not {timezone!r}"
            ) from None
    return FolderDefaults(
        source=data.get("source", "").strip() or None,
        language=language,
        timezone=timezone,
        collection=data.get("collection", "").strip() or None,
    )


class FolderDefaultsCache:
    """Defaults for a file, from the `.newsarchive.json` files of its folder and the folders above it (up to
    `top`, inclusive, when the file is under it; else up to the file system's root), read once per run."""

    def __init__(self) -> None:
        self._folders: dict[Path, FolderDefaults | InputError] = {}

    def for_file(self, path: Path, top: Optional[Path] = None) -> FolderDefaults:
        folders = []
        folder = path.parent
        while True:
            folders.append(folder)
            if folder == top or folder.parent == folder:
                break
            folder = folder.parent
        result = NONE
        for folder in reversed(folders):  # farthest first, so nearer folders override
            result = result.merged(self._read(folder))
        return result

    def _read(self, folder: Path) -> FolderDefaults:
        if folder not in self._folders:
            file = folder / DEFAULTS_FILE
            try:
                text = file.read_text(encoding="utf-8") if file.is_file() else None
                self._folders[folder] = parse_defaults(text, str(file)) if text is not None else NONE
            except InputError as exc:
                self._folders[folder] = exc
            except (OSError, UnicodeDecodeError) as exc:
                self._folders[folder] = InputError(f"cannot read the folder defaults file {file}: {exc}")
        found = self._folders[folder]
        if isinstance(found, InputError):
            raise found
        return found


def load_source_table(path: Optional[Path]) -> Mapping[str, list[str]]:
    """The user's source names (`NEWSARCHIVE_SOURCES_FILE`): {"canonical name": ["alias", ...]}; ValueError
    with the reason when the file cannot be used."""
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read the sources file {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"the sources file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, list) and all(isinstance(a, str) and a.strip() for a in v)
        for k, v in data.items()
    ):
        raise ValueError(
            f'the sources file {path} must map each source name to a list of other names: {{"BBC News": ["BBC"]}}'
        )
    return {k.strip(): [a.strip() for a in v] for k, v in data.items()}
