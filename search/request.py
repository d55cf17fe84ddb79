"""Search requests: the parameters of SPEC.md's /api/search, checked once for the API, the pages and the CLI."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Callable, Optional

from .schema import FACETS

SORTS = ("relevance", "newest", "oldest", "stored")  # stored: the most recently ingested first
INTERVALS = ("auto", "year", "month", "day")  # the date histogram's bars
MAX_PER_PAGE = 100
PER_PAGE_CHOICES = (10, 20, 50, 100)  # offered on the results page; any of 1-MAX_PER_PAGE is accepted
MAX_FACET_SIZE = 200
MAX_PAGE = 10_000
MAX_QUERY_CHARS = 1000
MAX_FILTER_VALUES = 50
EXCLUDE_PREFIX = "not_"  # not_source=AP: no hit carries that value


class BadRequest(ValueError):
    """A request a user can fix; `code` and `message` go into the JSON error and the page."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class SearchRequest:
    q: str = ""
    filters: dict[str, list[str]] = field(default_factory=dict)
    exclude: dict[str, list[str]] = field(default_factory=dict)  # facet -> values no hit may carry (not_<facet>)
    date_from: Optional[dt.date] = None
    date_to: Optional[dt.date] = None
    sort: str = "relevance"
    page: int = 1
    per_page: int = 20
    facet_size: int = 20
    correct: bool = True  # answer a query that finds nothing with its correction, when that finds something
    collapse: bool = True  # one hit per story (its best version), with how many versions matched
    after: Optional[int] = None  # only articles stored after the article with this id (saved-search alerts)
    interval: str = "auto"  # the date histogram's bars: chosen from the span of the hits, or year/month/day

    def cache_key(self) -> tuple:
        """Everything of this request but its page, as a hashable key: requests equal here share an answer."""
        return (
            self.q,
            tuple(sorted((k, tuple(v)) for k, v in self.filters.items() if v)),
            tuple(sorted((k, tuple(v)) for k, v in self.exclude.items() if v)),
            self.date_from,
            self.date_to,
            self.sort,
            self.per_page,
            self.facet_size,
            self.correct,
            self.collapse,
            self.after,
            self.interval,
        )

    def params(self, **changes) -> list[tuple[str, str]]:
        """This request as query parameters, with `changes` applied (for links: next page, facet clicks)."""
        values = {
            "q": self.q,
            "from": self.date_from.isoformat() if self.date_from else "",
            "to": self.date_to.isoformat() if self.date_to else "",
            "sort": self.sort,
            "page": str(self.page),
            "per_page": str(self.per_page),
            "correct": "" if self.correct else "false",
            "interval": "" if self.interval == "auto" else self.interval,
            "after": "" if self.after is None else str(self.after),
            "collapse": "" if self.collapse else "false",
        }
        filters = {k: list(v) for k, v in self.filters.items()}
        exclude = {k: list(v) for k, v in self.exclude.items()}
        for key, value in changes.items():
            if key in FACETS:
                filters[key] = value
            elif key.startswith(EXCLUDE_PREFIX) and key[len(EXCLUDE_PREFIX) :] in FACETS:
                exclude[key[len(EXCLUDE_PREFIX) :]] = value
            else:
                values[key] = "" if value is None else str(value)
        out = [
            (k, v)
            for k, v in values.items()
            if v
            and not (k == "sort" and v == "relevance")
            and not (k == "page" and v == "1")
            and not (k == "per_page" and v == "20")
        ]
        for facet in FACETS:
            out.extend((facet, v) for v in filters.get(facet, []))
            out.extend((EXCLUDE_PREFIX + facet, v) for v in exclude.get(facet, []))
        return out


def _int(name: str, raw: Optional[str], default: int, low: int, high: int) -> int:
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise BadRequest(
            "bad_parameter", f"{name} must be a whole number from {low} to {high}, not {raw[:40]!r}"
        ) from None
    if not low <= value <= high:
        raise BadRequest("bad_parameter", f"{name} must be from {low} to {high}, not {value}")
    return value


def _date(name: str, raw: Optional[str]) -> Optional[dt.date]:
    if raw is None or raw.strip() == "":
        return None
    text = raw.strip()
    try:
        if len(text) == 4 and text.isdigit():
            return dt.date(int(text), 1, 1) if name == "from" else dt.date(int(text), 12, 31)
        return dt.date.fromisoformat(text[:10]) if len(text) >= 10 else dt.date.fromisoformat(text)
    except ValueError:
        raise BadRequest(
            "bad_parameter", f"{name} must be an ISO date like 2015-01-30 (or a year like 2015), not {raw[:40]!r}"
        ) from None


def parse_request(get: Callable[[str], Optional[str]], get_all: Callable[[str], list[str]]) -> SearchRequest:
    """Build a SearchRequest from query parameters; raise BadRequest saying what to fix."""
    q = (get("q") or "").strip()
    if len(q) > MAX_QUERY_CHARS:
        raise BadRequest("bad_parameter", f"q is {len(q)} characters long; the limit is {MAX_QUERY_CHARS}")
    if "\x00" in q:
        raise BadRequest("bad_parameter", "q must not contain NUL characters")
    sort = (get("sort") or "relevance").strip().lower()
    if sort not in SORTS:
        raise BadRequest("bad_parameter", f"sort must be one of {', '.join(SORTS)}, not {sort[:40]!r}")
    interval = (get("interval") or "auto").strip().lower()
    if interval not in INTERVALS:
        raise BadRequest("bad_parameter", f"interval must be one of {', '.join(INTERVALS)}, not {interval[:40]!r}")
    after = get("after")
    request = SearchRequest(
        after=_int("after", after, 0, 0, 2**31 - 1) if after not in (None, "") else None,
        interval=interval,
        q=q,
        sort=sort,
        page=_int("page", get("page"), 1, 1, MAX_PAGE),
        per_page=_int("per_page", get("per_page"), 20, 1, MAX_PER_PAGE),
        facet_size=_int("facet_size", get("facet_size"), 20, 0, MAX_FACET_SIZE),
        date_from=_date("from", get("from")),
        date_to=_date("to", get("to")),
    )
    correct = (get("correct") or "true").strip().lower()
    if correct not in ("true", "false", "1", "0", "yes", "no"):
        raise BadRequest("bad_parameter", f"correct must be true or false, not {correct[:40]!r}")
    request.correct = correct in ("true", "1", "yes")
    collapse = (get("collapse") or "true").strip().lower()
    if collapse not in ("true", "false", "1", "0", "yes", "no"):
        raise BadRequest("bad_parameter", f"collapse must be true or false, not {collapse[:40]!r}")
    request.collapse = collapse in ("true", "1", "yes")
    if request.date_from and request.date_to and request.date_from > request.date_to:
        raise BadRequest("bad_parameter", f"from ({request.date_from}) is after to ({request.date_to})")
    for facet in FACETS:
        for name, chosen in ((facet, request.filters), (EXCLUDE_PREFIX + facet, request.exclude)):
            values = [v.strip() for v in get_all(name) if v and v.strip()]
            if len(values) > MAX_FILTER_VALUES:
                raise BadRequest("bad_parameter", f"at most {MAX_FILTER_VALUES} values of {name} at once")
            if any("\x00" in v or len(v) > 300 for v in values):
                raise BadRequest("bad_parameter", f"a {name} value is too long or holds a NUL character")
            if facet == "year" and any(not (v.isdigit() and len(v) == 4) for v in values):
                raise BadRequest("bad_parameter", f"{name} must be a four-digit year like 2015")
            if values:
                chosen[facet] = list(dict.fromkeys(values))
    return request
