"""Dates as people read them: "19 Feb 2007", or "19 Feb 2007, 12:54 UTC" when the time is known.

`published` is kept as the article states it (ISO 8601: a date stays a date, a datetime keeps its
offset). For display a datetime with an offset is shown in the archive's time zone (the `time_zone`
setting, UTC by default) with the zone's abbreviation; a datetime its source gave without any zone is
shown as stated, without one, since the archive cannot know where it was written.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Optional
from zoneinfo import ZoneInfo


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def human_date(published: Optional[str], zone_name: str = "UTC") -> Optional[str]:
    """`published` (ISO 8601) as a reader's date; None for None, the text itself when it is not ISO."""
    if not published:
        return None
    try:
        if len(published) <= 10:
            day = dt.date.fromisoformat(published)
            return f"{day.day} {day:%b %Y}"
        moment = dt.datetime.fromisoformat(published)
    except ValueError:
        return published
    if moment.tzinfo is None:
        return f"{moment.day} {moment:%b %Y, %H:%M}"
    local = moment.astimezone(zone(zone_name))
    return f"{local.day} {local:%b %Y, %H:%M} {local.tzname()}"
