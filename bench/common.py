"""Shared pieces of the benchmarks: the corpus, a served archive, HTTP clients, percentiles, BENCHMARKS.md."""

from __future__ import annotations

import datetime as dt
import gzip
import http.client
import json
import os
import platform
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")
REUTERS = CORPUS / "reuters-financial"
BENCHMARKS = ROOT / "BENCHMARKS.md"
STOPWORDS = set(
    """a an and are as at be by for from has have he in is it its of on or that the to was were will with
after over new says say said up down off out into than more most us u.s. s""".split()
)


def require_corpus() -> None:
    if not REUTERS.is_dir():
        print(f"skipped: the Reuters corpus is not at {REUTERS} (set NEWSARCHIVE_CORPUS)")
        sys.exit(0)


def reuters_lines(limit: Optional[int] = None, skip: int = 0) -> Iterator[bytes]:
    """Raw JSON Lines of the Reuters corpus, in date order across its four chunks."""
    seen = 0
    for chunk in sorted(REUTERS.glob("reuters-financial-0*.jsonl.gz")):
        with gzip.open(chunk, "rb") as f:
            for line in f:
                if seen >= skip:
                    if limit is not None and seen - skip >= limit:
                        return
                    yield line
                seen += 1


def write_feed(path: Path, lines, *, compress: bool = True) -> int:
    count = 0
    opener = gzip.open if compress else open
    with opener(path, "wb") as f:
        for line in lines:
            f.write(line if line.endswith(b"\n") else line + b"\n")
            count += 1
    return count


PART_LINES = 27_000  # lines per file when a benchmark splits Reuters lines into a feed, as the corpus comes


def write_parts(feed: Path, lines: list) -> None:
    """`lines` as gzipped JSON Lines files of at most PART_LINES lines each in the folder `feed`."""
    feed.mkdir(parents=True, exist_ok=True)
    for part, start in enumerate(range(0, len(lines), PART_LINES), start=1):
        write_feed(feed / f"part-{part:02}.jsonl.gz", lines[start : start + PART_LINES])


def headline_queries(count: int = 96, seed: int = 20061020, sample: int = 20000) -> list[str]:
    """One- and two-word queries drawn from Reuters headlines (half each), fixed by the seed."""
    rng = random.Random(seed)
    words_of = []
    for line in reuters_lines(sample):
        title = json.loads(line).get("title") or ""
        words = [w for w in re.findall(r"[a-z]+", title.lower()) if len(w) >= 3 and w not in STOPWORDS]
        if len(words) >= 2:
            words_of.append(words)
    rng.shuffle(words_of)
    queries = []
    for i, words in enumerate(words_of):
        if len(queries) >= count:
            break
        if i % 2 == 0:
            queries.append(rng.choice(words))
        else:
            a = rng.randrange(len(words) - 1)
            queries.append(f"{words[a]} {words[a + 1]}")
    return queries


def query_mix(count: int = 96, seed: int = 20061020, sample: int = 20000) -> list[tuple[str, str]]:
    """(kind, text): a quarter each of single words and word pairs from Reuters headlines, Reuters headlines
    pasted whole, and the judged natural-language questions of bench/relevance/questions.json."""
    rng = random.Random(seed)
    quarter = count // 4
    words = headline_queries(2 * quarter, seed=seed, sample=sample)
    titles = [json.loads(line).get("title") or "" for line in reuters_lines(sample)]
    pasted = rng.sample([t for t in titles if len(t.split()) >= 4], quarter)
    questions = [q["question"] for q in json.loads((ROOT / "bench" / "relevance" / "questions.json").read_text())]
    asked = rng.sample(questions, min(quarter, len(questions)))
    mix = (
        [("word" if " " not in w else "pair", w) for w in words]
        + [("headline", t) for t in pasted]
        + [("question", q) for q in asked]
    )
    rng.shuffle(mix)
    return mix


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def archive_env(home: Path, **extra) -> dict:
    """The environment of a benchmark archive: none of the caller's NEWSARCHIVE_* settings leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEWSARCHIVE_")}
    env.update(NEWSARCHIVE_HOME=str(home), **{k: str(v) for k, v in extra.items()})
    return env


def newsarchive(home: Path, *args: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli", *args],
        env=archive_env(home, **env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )


class Server:
    """`newsarchive serve` in a subprocess, for the benchmarks' HTTP clients."""

    def __init__(self, home: Path, threads: int = 4, workers: Optional[int] = None, **env) -> None:
        self.port = free_port()
        command = [sys.executable, "-m", "webapp.cli", "serve", "--port", str(self.port), "--threads", str(threads)]
        self.process = subprocess.Popen(
            command + (["--workers", str(workers)] if workers else []),
            env=archive_env(home, **env),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                conn.request("GET", "/healthz")
                if conn.getresponse().status in (200, 503):
                    break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError(
                        "server did not start: " + self.process.stderr.read().decode(errors="replace")
                    ) from None
                time.sleep(0.2)

    def client(self, headers: Optional[dict] = None) -> "Client":
        return Client(self.port, headers)

    def rss_bytes(self) -> int:
        return peak_rss_bytes(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Client:
    """One keep-alive HTTP connection."""

    def __init__(self, port: int, headers: Optional[dict] = None) -> None:
        self.port = port
        self.headers = headers or {}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path: str, params: dict) -> tuple[int, bytes, float]:
        url = path + "?" + urllib.parse.urlencode(params, doseq=True)
        started = time.perf_counter()
        try:
            self.conn.request("GET", url, headers=self.headers)
            response = self.conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            return 599, b"", time.perf_counter() - started
        return response.status, body, time.perf_counter() - started


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def peak_rss_bytes(pid: int) -> int:
    """Peak resident memory (VmHWM) of a process and its living children, from /proc."""
    total = 0
    for p in _descendants(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores ({cpu}){mem}, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def update_benchmarks(section: str, body: str) -> None:
    """Replace (or add) one section of BENCHMARKS.md, between its markers, leaving the others alone."""
    start, end = f"<!-- {section}:start -->", f"<!-- {section}:end -->"
    text = (
        BENCHMARKS.read_text()
        if BENCHMARKS.exists()
        else "# Benchmarks\n\nMeasured with `make bench`; each section is rewritten by the script that measured it.\n"
    )
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    BENCHMARKS.write_text(text)


def today() -> str:
    return dt.date.today().isoformat()


def _descendants(pid: int) -> list[int]:
    found = [pid]
    i = 0
    while i < len(found):
        try:
            for task in Path(f"/proc/{found[i]}/task").iterdir():
                found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
        i += 1
    return found


def tree_pss_bytes(pid: int) -> int:
    """Proportional memory (PSS) now, of a process and all its descendants: pages shared between forked
    processes are counted once in all, not once per process as RSS would."""
    total = 0
    for p in _descendants(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
                    break
        except OSError:
            pass
    return total


def ingest_watching_memory(target: Path, home: Path, fresh: bool = True, **settings) -> tuple[dict, float, int, int]:
    """`newsarchive ingest TARGET --json` into a fresh archive at `home` (with NEWSARCHIVE_* `settings`;
    with `fresh=False`, into the archive there), timed from process start to exit; its summary, seconds,
    and peak memory (PSS of the process and its workers, sampled every 0.2 s) over the whole run and over
    its first half (equal peaks mean memory stopped growing with the input)."""
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
        newsarchive(home, "db", "upgrade", **settings)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", str(target), "--json"],
        env=archive_env(home, **settings),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    samples: list[tuple[float, int]] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            samples.append((time.perf_counter() - started, tree_pss_bytes(process.pid)))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    stop.set()
    watcher.join()
    if process.returncode != 0:
        raise RuntimeError(err.decode(errors="replace")[-4000:])
    peak = max((pss for _, pss in samples), default=0)
    first_half = max((pss for t, pss in samples if t <= seconds / 2), default=0)
    return json.loads(out), seconds, peak, first_half
