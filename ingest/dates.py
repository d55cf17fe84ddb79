"""Dates: parse the publication date a file states, and find the dates an article states about itself."""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from typing import Iterable, Optional

from dateutil import parser as dateutil_parser
from dateutil import tz

# Zone abbreviations dateutil cannot resolve on its own; wire services stamp US and European zones.
_TZINFOS = {
    "UTC": tz.UTC,
    "GMT": tz.UTC,
    "Z": tz.UTC,
    "EST": tz.tzoffset("EST", -5 * 3600),
    "EDT": tz.tzoffset("EDT", -4 * 3600),
    "CST": tz.tzoffset("CST", -6 * 3600),
    "CDT": tz.tzoffset("CDT", -5 * 3600),
    "MST": tz.tzoffset("MST", -7 * 3600),
    "MDT": tz.tzoffset("MDT", -6 * 3600),
    "PST": tz.tzoffset("PST", -8 * 3600),
    "PDT": tz.tzoffset("PDT", -7 * 3600),
    "AKST": tz.tzoffset("AKST", -9 * 3600),
    "AKDT": tz.tzoffset("AKDT", -8 * 3600),
    "HST": tz.tzoffset("HST", -10 * 3600),
    "BST": tz.tzoffset("BST", 3600),
    "IST": tz.tzoffset("IST", 5 * 3600 + 1800),
    "CET": tz.tzoffset("CET", 3600),
    "CEST": tz.tzoffset("CEST", 2 * 3600),
    "EET": tz.tzoffset("EET", 2 * 3600),
    "EEST": tz.tzoffset("EEST", 3 * 3600),
    "MSK": tz.tzoffset("MSK", 3 * 3600),
    "JST": tz.tzoffset("JST", 9 * 3600),
    "KST": tz.tzoffset("KST", 9 * 3600),
    "HKT": tz.tzoffset("HKT", 8 * 3600),
    "SGT": tz.tzoffset("SGT", 8 * 3600),
    "AEST": tz.tzoffset("AEST", 10 * 3600),
    "AEDT": tz.tzoffset("AEDT", 11 * 3600),
}
MIN_YEAR = 1800


def _plausible(value: dt.date) -> bool:
    return MIN_YEAR <= value.year <= dt.date.today().year + 1


def parse_date(value) -> Optional[dt.datetime | dt.date]:
    """Parse a publication date as files state it: ISO 8601, RFC 2822, "Fri Oct 20, 2006 6:15pm EDT", epoch numbers.

    Returns a datetime when a time of day is given (aware when a zone is given), a date when only a day
    is given, and None for anything empty, unparseable or implausible.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            result = dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
        return result if _plausible(result) else None
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > 80:
        return None
    result: Optional[dt.datetime | dt.date] = None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            result = dt.date.fromisoformat(text)
        except ValueError:
            return None
    elif re.match(r"\d{4}-\d{2}-\d{2}[T ]\d", text):
        try:
            result = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            result = None
    if result is None and re.match(r"(?:[A-Z][a-z]{2}, )?\d{1,2} [A-Z][a-z]{2} \d{4} \d", text):
        try:
            result = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            result = None
    if result is None:
        result = _parse_us_style(text)
    if result is None:
        result = _parse_loose(text)
    if result is None or not _plausible(result):
        return None
    return result


_US_STYLE = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+)?(?P<month>[A-Z][a-z]{2})[a-z]*\.?\s+(?P<day>\d{1,2}),?\s+"
    r"(?P<year>\d{4})(?:,?\s+(?:at\s+)?(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?\s*"
    r"(?:(?P<ampm>[aApP])\.?[mM]\.?)?(?:\s+(?P<zone>[A-Z]{1,5}))?)?"
)


def _parse_us_style(text: str) -> Optional[dt.datetime | dt.date]:
    """ "Fri Oct 20, 2006 6:15pm EDT", "October 20, 2006", "Oct. 20, 2006 at 18:15 GMT": the usual wire style,
    read without dateutil's general (and slower) parser; anything unusual is left to dateutil."""
    m = _US_STYLE.fullmatch(text)
    if not m:
        return None
    month = _MONTHS.get(m.group("month").lower())
    if month is None:
        return None
    try:
        day = dt.date(int(m.group("year")), month, int(m.group("day")))
    except ValueError:
        return None
    if m.group("hour") is None:
        return day
    hour, minute = int(m.group("hour")), int(m.group("minute"))
    ampm = m.group("ampm")
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower() == "p" else 0)
    zone = m.group("zone")
    tzinfo = _TZINFOS.get(zone) if zone else None
    if zone and tzinfo is None:
        return None
    try:
        return dt.datetime(day.year, day.month, day.day, hour, minute, int(m.group("second") or 0), tzinfo=tzinfo)
    except ValueError:
        return None


_HAS_TIME = re.compile(r"\d{1,2}:\d{2}|\d{1,2}\s*[ap]\.?m\b", re.I)
_HAS_YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")


def _parse_loose(text: str) -> Optional[dt.datetime | dt.date]:
    if not _HAS_YEAR.search(text) and not re.fullmatch(r"\d{8}", text):
        return None
    try:
        parsed = dateutil_parser.parse(text, tzinfos=_TZINFOS, default=dt.datetime(2000, 1, 1))
        if parsed.day == 1 or parsed.month == 1:
            # A second default tells whether the text gave a day and month at all ("2015", "January 2015").
            check = dateutil_parser.parse(text, tzinfos=_TZINFOS, default=dt.datetime(2001, 2, 2))
            if (parsed.month, parsed.day) != (check.month, check.day):
                return None
    except (ValueError, OverflowError, TypeError, dateutil_parser.ParserError):
        return None
    if _HAS_TIME.search(text) or "T" in text:
        return parsed
    return parsed.date()


_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_MONTH = (
    r"(?P<month>Jan(?:uary|\.)?|Feb(?:ruary|\.)?|Mar(?:ch|\.)?|Apr(?:il|\.)?|May|June?|July?|Aug(?:ust|\.)?|"
    r"Sept?(?:ember|\.)?|Oct(?:ober|\.)?|Nov(?:ember|\.)?|Dec(?:ember|\.)?)"
)
_WEEKDAY = r"(?:(?P<weekday>Mon|Tues?|Wed(?:nes)?|Thu(?:rs?)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?,?\s+)"
# "Friday, Jan. 30, 2015", "Jan 30, 2015", "30 January 2015", "Friday 30 January 2015".
_DATE_STATEMENT = re.compile(
    r"\b" + _WEEKDAY + r"?(?:" + _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})"
    r"|(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH.replace("month", "month2") + r",?\s+(?P<year2>\d{4}))\b"
)


def find_dates(text: str) -> list[tuple[dt.date, Optional[bool]]]:
    """Every full calendar date stated in `text`, with True/False when a weekday is given and does/doesn't match."""
    found = []
    for m in _DATE_STATEMENT.finditer(text):
        month_name = m.group("month") or m.group("month2")
        day = m.group("day") or m.group("day2")
        year = m.group("year") or m.group("year2")
        try:
            value = dt.date(int(year), _MONTHS[month_name[:3].lower()], int(day))
        except (ValueError, KeyError):
            continue
        if not _plausible(value):
            continue
        weekday = m.group("weekday")
        matches = None if weekday is None else _WEEKDAYS[weekday[:3].lower()] == value.weekday()
        found.append((value, matches))
    return found


# Captions of old pictures ("FILE - In this Sept. 5, 2014 file photo ...") state a past date, not the story's.
_FILE_PHOTO = re.compile(r"^\s*FILE\b|\bfile (?:photo|picture|image)\b|\barchive (?:photo|picture|image)\b", re.I)


def date_from_captions(captions: Iterable[str]) -> Optional[dt.date]:
    """The day the article's pictures were taken, as its captions state it, or None.

    Dates in file or archive pictures are skipped, and so is a date whose weekday contradicts it; a
    date stated with a matching weekday ("Friday, Jan. 30, 2015") wins over a bare one.
    """
    confirmed: list[dt.date] = []
    bare: list[dt.date] = []
    for caption in captions:
        if _FILE_PHOTO.search(caption):
            continue
        for value, weekday_ok in find_dates(caption):
            if weekday_ok is True:
                confirmed.append(value)
            elif weekday_ok is None:
                bare.append(value)
    if confirmed:
        return max(confirmed)
    if bare:
        return max(bare)
    return None


def date_from_dateline(date_text: str, year_hint: Optional[int] = None) -> Optional[dt.date]:
    """The date in a dateline ("Jan. 30, 2015", or "Oct 20" with the year known from elsewhere)."""
    dates = find_dates(date_text)
    if dates and dates[0][1] is not False:
        return dates[0][0]
    if year_hint:
        m = re.fullmatch(_MONTH + r"\s+(?P<day>\d{1,2})", date_text.strip())
        if m:
            try:
                return dt.date(year_hint, _MONTHS[m.group("month")[:3].lower()], int(m.group("day")))
            except ValueError:
                return None
    return None
