"""Files on disk: finding input files, reading them without following links out of their folder, moving them on."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

# Names that tools give files while they are still being written; never read until renamed.
PARTIAL_SUFFIXES = (".part", ".partial", ".tmp", ".temp", ".crdownload", ".download", ".swp", ".filepart", ".!sync")
ERROR_SUFFIX = ".error.json"


@dataclass
class InputFile:
    path: Path  # absolute, not resolved through links
    in_inbox: bool
    relative: Path  # where it goes under archive/ or failed/
    refusal: Optional[str] = None  # why it will not be read, when known before opening it


def display_path(path: Path | str) -> str:
    """A path as text that any database can store: undecodable bytes in names become backslash escapes."""
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")


def is_within(path: Path, folder: Path) -> bool:
    try:
        Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(folder)))
        return True
    except ValueError:
        return False


def _skip_name(name: str) -> bool:
    return name.startswith(".") or name.endswith(ERROR_SUFFIX) or name.lower().endswith(PARTIAL_SUFFIXES)


def discover(paths: Iterable[Path], inbox: Path) -> Iterator[InputFile]:
    """Every input file under `paths` (files or folders), in name order; links inside folders are refused,
    not followed."""
    inbox = Path(os.path.abspath(inbox))
    for given in paths:
        given = Path(os.path.abspath(given))
        in_inbox = is_within(given, inbox)
        if given.is_dir() and not (in_inbox and given.is_symlink() and given != inbox):
            base = given if not in_inbox else inbox
            for folder, dirs, files in os.walk(given, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if _skip_name(name):
                        continue
                    path = Path(folder) / name
                    relative = path.relative_to(base) if in_inbox else Path(name)
                    refusal = None
                    if path.is_symlink():
                        refusal = "symbolic link: the archive does not follow links out of the folder it reads"
                    yield InputFile(path, in_inbox, relative, refusal)
                # Links to folders show up among dirs; report them rather than skip them silently.
                for name in list(dirs):
                    if (Path(folder) / name).is_symlink():
                        yield InputFile(
                            Path(folder) / name,
                            in_inbox,
                            (Path(folder) / name).relative_to(base) if in_inbox else Path(name),
                            "symbolic link to a folder: the archive does not follow links out of the folder it reads",
                        )
        elif given.is_symlink() and in_inbox:
            yield InputFile(
                given,
                True,
                given.relative_to(inbox),
                "symbolic link: the archive does not follow links out of the folder it reads",
            )
        elif given.exists() or given.is_symlink():
            yield InputFile(given, in_inbox, given.relative_to(inbox) if in_inbox else Path(given.name))
        else:
            yield InputFile(given, False, Path(given.name), "no such file")


def open_input(path: Path, follow_links: bool) -> tuple[io.BufferedReader, int]:
    """Open a regular file for reading, without following a link when `follow_links` is false; (a buffered
    reader that can peek 64 KiB, its size). OSError/ValueError with a reason otherwise."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError("symbolic link: the archive does not follow links out of the folder it reads") from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file (a device, pipe or socket)")
        return io.BufferedReader(io.FileIO(fd, "rb", closefd=True), buffer_size=1 << 16), info.st_size
    except BaseException:
        os.close(fd)
        raise


def read_all(handle: io.BufferedReader, max_bytes: int) -> bytes:
    """The rest of an open file, at most `max_bytes` (ValueError if it grew past them while being read)."""
    chunks = []
    total = 0
    while True:
        chunk = handle.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:
            raise ValueError(f"the file grew past max_file_bytes={max_bytes:_} while being read")
        chunks.append(chunk)
    return b"".join(chunks)


def hash_stream(handle: io.BufferedReader) -> str:
    """SHA-256 of the rest of an open file, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        digest.update(chunk)
    return digest.hexdigest()


def free_destination(folder: Path, relative: Path) -> Path:
    """A path under `folder` for `relative` that does not exist yet: "name.txt", then "name~1.txt", ..."""
    parts = [p for p in relative.parts if p not in ("", ".", "..", "/")] or ["unnamed"]
    target = folder.joinpath(*parts)
    if not is_within(target, folder):
        target = folder / parts[-1]
    candidate = target
    n = 0
    while candidate.exists() or candidate.is_symlink() or Path(str(candidate) + ERROR_SUFFIX).exists():
        n += 1
        name = target.name
        stem, dot, suffix = name.partition(".")
        candidate = target.with_name(f"{stem}~{n}{dot}{suffix}")
    return candidate


def move_file(source: Path, destination: Path) -> None:
    """Move a file (or a link, as a link) to `destination`, across file systems too; never overwrite."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    if destination.exists() or destination.is_symlink():
        raise FileExistsError(f"{destination} already exists")
    try:
        os.rename(source, destination)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    if source.is_symlink():
        os.symlink(os.readlink(source), destination)
    else:
        shutil.copy2(source, destination)
        with open(destination, "rb") as f:
            os.fsync(f.fileno())
    os.unlink(source)


def write_error_file(destination: Path, payload: dict) -> Path:
    """Write `<name>.error.json` beside a quarantined file."""
    path = Path(str(destination) + ERROR_SUFFIX)
    path.parent.mkdir(parents=True, exist_ok=True)  # failed/<subfolder>/ may not exist yet
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


@dataclass
class Seen:
    size: int
    mtime_ns: int


def settled(path: Path, previous: dict[Path, Seen], settle_ns: int, now_ns: int) -> bool:
    """True when a file's size and time have not changed since the last look and it is at least `settle_ns` old.

    Watch mode reads a file only then, so a file still being copied in is not read half-way.
    """
    try:
        info = path.lstat()
    except OSError:
        previous.pop(path, None)
        return False
    seen = Seen(info.st_size, info.st_mtime_ns)
    before = previous.get(path)
    previous[path] = seen
    if stat.S_ISLNK(info.st_mode):
        return True
    return before == seen and now_ns - info.st_mtime_ns >= settle_ns


def unique_files(files: Iterable[InputFile]) -> list[InputFile]:
    """`files` without repeats of a path, in order (a folder and a file in it, both named)."""
    seen: set[Path] = set()
    out = []
    for f in files:
        if f.path not in seen:
            seen.add(f.path)
            out.append(f)
    return out
