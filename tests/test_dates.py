import datetime as dt

import pytest

from ingest.dates import date_from_captions, parse_date


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Fri Oct 20, 2006 6:15pm EDT", dt.datetime(2006, 10, 20, 18, 15, tzinfo=dt.timezone(dt.timedelta(hours=-4)))),
        ("Tue Jan 15, 2008 8:52am EST", dt.datetime(2008, 1, 15, 8, 52, tzinfo=dt.timezone(dt.timedelta(hours=-5)))),
        ("2015-01-30", dt.date(2015, 1, 30)),
        ("2015-01-30T10:00:00Z", dt.datetime(2015, 1, 30, 10, tzinfo=dt.timezone.utc)),
        ("2015-01-30T10:00:00+02:00", dt.datetime(2015, 1, 30, 10, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
        ("Fri, 30 Jan 2015 10:00:00 +0000", dt.datetime(2015, 1, 30, 10, tzinfo=dt.timezone.utc)),
        ("January 30, 2015", dt.date(2015, 1, 30)),
        ("30 January 2015", dt.date(2015, 1, 30)),
    ],
)
def test_publication_dates_in_common_forms(text, expected):
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    "text", ["", "soon", "2015", "January 2015", "Friday", "3015-01-01", None, "99999999999999999999"]
)
def test_no_date_rather_than_a_guess(text):
    assert parse_date(text) is None


def test_epoch_numbers_are_dates():
    assert parse_date(1422612000) == dt.datetime(2015, 1, 30, 10, tzinfo=dt.timezone.utc)
    assert parse_date(1422612000000) == dt.datetime(2015, 1, 30, 10, tzinfo=dt.timezone.utc)


def test_caption_dates_skip_file_photos_and_wrong_weekdays():
    assert date_from_captions(
        [
            "FILE - In this Sept. 5, 2014 file photo, fighters stand guard.",
            "Rubble in Kobani, Syria, Monday, Jan. 30, 2015.",  # Jan. 30, 2015 was a Friday
            "In this picture taken Friday, Jan. 30, 2015, rubble and damaged buildings are seen.",
        ]
    ) == dt.date(2015, 1, 30)
    assert date_from_captions(["FILE - In this Sept. 5, 2014 file photo, fighters stand guard."]) is None


def test_a_caption_without_a_full_date_gives_none():
    assert date_from_captions(["Fighting since mid-September, 2014 has driven 200,000 people out."]) is None
