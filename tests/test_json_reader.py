import datetime as dt
import json

import pytest

from ingest.errors import InputError
from ingest.readers import read_bytes


def test_common_field_names():
    data = json.dumps(
        {
            "title": "Exxon offers plan to end dispute",
            "byline": "Jane Doe",
            "published": "Fri Oct 20, 2006 6:15pm EDT",
            "url": "http://example.com/2006/10/20/exxon",
            "body": "ANCHORAGE, Alaska  (Reuters) - Exxon Mobil offered \nto pay a $20 million fine on Friday. \n\n"
            "  In a proposal sent earlier this week, the company offered \nmore. It is a fine.  The state will decide, officials said.",
        }
    ).encode()
    [a] = read_bytes(data, "x.json")
    assert a.headline == "Exxon offers plan to end dispute"
    assert a.byline == "Jane Doe"
    assert a.published == dt.datetime(2006, 10, 20, 18, 15, tzinfo=dt.timezone(dt.timedelta(hours=-4)))
    assert a.date_inferred is False
    assert a.url == "http://example.com/2006/10/20/exxon"
    assert a.dateline == "ANCHORAGE, Alaska" and a.source == "Reuters"
    assert a.paragraphs == [
        "ANCHORAGE, Alaska (Reuters) - Exxon Mobil offered to pay a $20 million fine on Friday.",
        "In a proposal sent earlier this week, the company offered more. It is a fine.",
        "The state will decide, officials said.",
    ]


def test_images_with_caption_and_credit_and_an_explicit_source():
    data = json.dumps(
        {
            "headline": "Camp grows",
            "content": ["First paragraph.", "Second paragraph."],
            "date": "2015-01-30",
            "author": [{"name": "A. Writer"}, {"name": "B. Writer"}],
            "source": "AP",
            "images": [{"caption": "Refugees in Suruc, Turkey.", "credit": "AP Photo/Emrah Gurel"}],
        }
    ).encode()
    [a] = read_bytes(data)
    assert a.paragraphs == ["First paragraph.", "Second paragraph."]
    assert a.byline == "A. Writer, B. Writer"
    assert a.source == "The Associated Press"
    assert [(c.text, c.photographer, c.agency) for c in a.captions] == [
        ("Refugees in Suruc, Turkey.", "Emrah Gurel", "AP")
    ]


def test_ninjs():
    data = json.dumps(
        {
            "uri": "urn:example:1",
            "type": "text",
            "headline": "Quake shakes city",
            "body_html": "<p>A strong quake shook the city on Monday.</p><figure><img src=x>"
            "<figcaption>Damaged houses. <span class='credit'>Reuters/Jane Roe</span></figcaption></figure>"
            "<p>Officials said damage was light.</p>",
            "versioncreated": "2019-03-04T05:06:07Z",
            "byline": "By Staff",
            "language": "en",
            "located": "TOKYO",
            "associations": {
                "featureimage": {"type": "picture", "description_text": "Rescuers search rubble.", "byline": "Kim Lee"}
            },
        }
    ).encode()
    [a] = read_bytes(data)
    assert a.paragraphs == ["A strong quake shook the city on Monday.", "Officials said damage was light."]
    assert a.published == dt.datetime(2019, 3, 4, 5, 6, 7, tzinfo=dt.timezone.utc)
    assert a.byline == "Staff" and a.dateline == "TOKYO" and a.language == "en"
    assert [(c.text, c.photographer, c.agency) for c in a.captions] == [
        ("Damaged houses.", "Jane Roe", "Reuters"),
        ("Rescuers search rubble.", "Kim Lee", None),
    ]


def test_a_json_array_and_a_wrapper_object():
    records = [{"headline": f"Story {i}", "text": f"Body of story {i}."} for i in range(3)]
    assert [a.headline for a in read_bytes(json.dumps(records).encode())] == ["Story 0", "Story 1", "Story 2"]
    assert len(read_bytes(json.dumps({"articles": records}).encode())) == 3


def test_json_lines():
    lines = "\n".join(json.dumps({"title": f"T{i}", "body": f"Body {i}."}) for i in range(4)).encode()
    articles = read_bytes(lines, "x.jsonl")
    assert [a.source_line for a in articles] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "data, reason",
    [
        (b'{"headline": "x", "body": "y"', "invalid JSON"),
        (b"[1]", "expected an article object, found a JSON number"),
        (b"[]", "no articles"),
        (b'{"headline": "Only a headline"}', "no body text"),
        (b'{"other": 1}', "neither a headline nor body"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    ],
)
def test_bad_json_says_why(data, reason):
    with pytest.raises(InputError, match=reason):
        read_bytes(data)
