import datetime as dt

import pytest

from ingest.errors import InputError
from ingest.normalise import split_paragraphs
from ingest.readers import detect_format, read_bytes

STORY = "Markets rally after rate cut\n\nShares rose on Friday.\n\nBonds fell, traders said.\n"


def one(data: bytes, name: str = "a.txt"):
    articles = read_bytes(data, name)
    assert len(articles) == 1
    return articles[0]


def test_headline_then_paragraphs():
    a = one(STORY.encode())
    assert a.headline == "Markets rally after rate cut"
    assert a.paragraphs == ["Shares rose on Friday.", "Bonds fell, traders said."]
    assert a.captions == [] and a.published is None and a.source is None


def test_hard_wrapped_lines_join_into_one_paragraph():
    a = one(b"Title here\n\nThis sentence is wrapped\nover two lines.\n\nSecond paragraph.")
    assert a.paragraphs == ["This sentence is wrapped over two lines.", "Second paragraph."]


def test_paragraph_breaks_flattened_into_double_spaces_are_restored():
    body = (
        "It began on Friday. Officials said so.  The second paragraph starts here. It goes on.  "
        "A third one follows, the officials said."
    )
    assert split_paragraphs(body) == [
        "It began on Friday. Officials said so.",
        "The second paragraph starts here. It goes on.",
        "A third one follows, the officials said.",
    ]


def test_double_spaced_sentences_alone_do_not_split_paragraphs():
    body = "One sentence.  Two sentences.  Three sentences."
    assert split_paragraphs(body) == ["One sentence.  Two sentences.  Three sentences.".replace("  ", " ")]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"])
def test_any_common_encoding_comes_out_as_the_same_text(encoding):
    text = "Café owners cheer\n\nThe café in Zürich said prices were £3 “higher” – or so.\n"
    if encoding == "latin-1":
        text = text.replace("“", '"').replace("”", '"').replace("–", "-")
    a = one(text.encode(encoding))
    assert a.headline == "Café owners cheer"
    assert "café in Zürich" in a.paragraphs[0] and "£3" in a.paragraphs[0]


def test_a_latin1_pound_sign_in_otherwise_ascii_text():
    a = one(b"Rates rise\n\nThe fee is \xa3300 a year for every household in the country, the report said.\n")
    assert "£300" in a.paragraphs[0]


def test_mojibake_is_repaired_and_text_is_nfc():
    broken = "Caf\u00c3\u00a9 owners\n\nThe caf\u00c3\u00a9 said it\u00e2\u20ac\u2122s open. Cafe\u0301 too.\n"
    a = one(broken.encode("utf-8"))
    assert a.headline == "Café owners"
    assert a.paragraphs[0] == "The café said it’s open. Café too."


def test_byline_and_date_lines_under_the_headline():
    a = one(b"Storm hits coast\nBy Jane Doe\nPublished: 30 January 2015\n\nThe storm hit on Friday.\n")
    assert a.byline == "Jane Doe"
    assert a.published == dt.date(2015, 1, 30) and a.date_inferred is False
    assert a.paragraphs == ["The storm hit on Friday."]


def test_a_sentence_starting_with_by_is_not_a_byline():
    a = one(b"Storm hits coast\n\nBy the end of the day the storm had passed.\n")
    assert a.byline is None
    assert a.paragraphs == ["By the end of the day the storm had passed."]


def test_empty_and_headline_only_files_are_refused_with_reasons():
    with pytest.raises(InputError, match="empty"):
        read_bytes(b"  \n\n ")
    with pytest.raises(InputError, match="no body text"):
        read_bytes(b"Just a headline\n")


@pytest.mark.parametrize("data", [b"\x00\x01\x02binary\x00" * 50, bytes(range(256)) * 40])
def test_binary_bytes_are_refused(data):
    with pytest.raises(InputError, match="binary"):
        read_bytes(data)


@pytest.mark.parametrize(
    "data, expected",
    [
        (b'{"headline": "x"}', "json"),
        (b'[{"headline": "x"}]', "json"),
        (b'{"headline": "x"}\n{"headline": "y"}\n', "jsonl"),
        (b"<!DOCTYPE html><html><body><p>x</p></body></html>", "html"),
        (b"<p>Some fragment</p>", "html"),
        (b"<style>\n" + b"  .grid { opacity: 1; }\n" * 400 + b"</style><html><body><p>x</p></body></html>", "html"),
        (b"Headline\n\nBody", "text"),
        (b'\xef\xbb\xbf  {"title": "BOM first"}', "json"),
    ],
)
def test_format_is_chosen_by_content_not_extension(data, expected):
    assert detect_format(data, "misleading.txt") == expected


def test_a_multibyte_character_cut_by_the_sniffing_sample_is_not_an_encoding_error():
    # 8 KiB of ASCII then Korean text: the first 64 KiB (or the 8 KiB of a buffer) may end mid-character.
    for pad in range(3):
        text = "Headline\n\n" + "x" * (8192 - 10 + pad) + " " + "한국어 기사 본문입니다. " * 5000
        [article] = read_bytes(text.encode("utf-8"), "page.txt")
        assert "한국어" in article.body
