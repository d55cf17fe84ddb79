"""A photo credit the page gives once for all the article's photos.

Many pages credit their photos once rather than under each: "Fotos: Harbour Works" after the story, "Words:
Dana Whitlow Photos: Ines Rowe" at its end, a "Foto(s)" row in the article's info box. Such a line is the
credit of every photo of the article that has no credit of its own (bench/captions/GUIDELINES.md). The label
must speak of photos in the plural ("Photos", "Fotos", "Foto(s)", "Bilder", "Text & Fotos"): a singular
"Photo: X" may be one photo's. When a page holds two such lines naming different people, neither is taken:
a list of other stories, each with its own photographer, is not this article's credit.
"""

from __future__ import annotations

import re
from typing import Iterator, Optional

from bs4 import BeautifulSoup, NavigableString, Tag

from ..credits import parse_credit
from ..normalise import collapse
from ..records import CaptionData
from .htmlnames import word_count_upto

_PLURAL = (
    r"(?:fotos|photos|foto'?s|foto\(s\)|photo\(s\)|bilder|billeder|images|pictures|photographs|photography"
    r"|fotografie|fotografien|fotograf[ií]as|immagini|zdj[eę]cia|kuvat)"
)
_WITH_TEXT = rf"(?:(?:text|texte|texto|testo|tekst|words|story)\s*(?:&|und|and|y|et|e|en|/|\+)\s*{_PLURAL})"
_LABEL = rf"(?:{_WITH_TEXT}|{_PLURAL})"
LABEL_ONLY = re.compile(rf"^{_LABEL}\s*:?$", re.I)
_LABEL_SEEN = re.compile(rf"(?<![\w-]){_LABEL}(?![\w-])", re.I)  # a text that names the label somewhere
# "Fotos: Harbour Works", "Words: Dana Whitlow Photos: Ines Rowe": the value runs to the line's end, a bar or
# the next label.
_INLINE = re.compile(rf"(?:^|[\s|•·,;])(?<![\w-]){_LABEL}\s*:\s*(?P<value>[^:|•·]+?)\s*(?=$|[|•·]|\s[\w-]+\s*:)", re.I)
MAX_LINE_WORDS = 20
MAX_LINE_DEPTH = 4  # blocks climbed from the label's text to its line
MAX_VALUE_WORDS = 8
_NOT_HERE = ("a", "nav", "button", "select", "option", "h1", "h2", "h3", "h4", "h5", "h6")
# Blocks that hold a credit line or one of its cells.
_LINES = frozenset("p div span li small em strong b dt dd th td footer section address".split())


# Words a list of names may hold besides the names ("Dana Whitlow und Ines Rowe", "Ines Rowe for Harbour Times").
_CONNECTORS = frozenset(
    "und and & y et e en og och i von van de der den da di du del la le dos das for of the via / © - –".split()
)
_LETTER = re.compile(r"[^\W\d_]")
_MARKS = frozenset({"/", "©", "&", "-", "–", "+"})


def _value(text: str) -> Optional[str]:
    """The credit named after a label, when it reads as names ("Ines Rowe / Harbour Works", "© Dana Whitlow"),
    not as a phrase ("Crossgates Mall through the years") or a counter."""
    value = collapse(text).strip(" .,;")
    words = value.replace("/", " / ").split()
    if not words or len(words) > MAX_VALUE_WORDS or any(not _LETTER.search(w) for w in words if w not in _MARKS):
        return None
    if not all(w[0].isupper() or not w[0].isalpha() or w.casefold() in _CONNECTORS for w in words):
        return None  # a phrase, not a name
    photographer, agency = parse_credit(value)
    return value if photographer or agency else None


def _in_the_way(tag: Tag) -> bool:
    return tag.name in _NOT_HERE or tag.find_parent(_NOT_HERE) is not None


LINK_SHARE = 0.8


def _a_link(tag: Tag, text: str) -> bool:
    """A line that is mostly one link: a teaser ("Photos: Harbour Works through the years"), not a credit."""
    return any(len(collapse(a.get_text(" ", strip=True))) >= LINK_SHARE * len(text) for a in tag.find_all("a"))


def _label_pair(tag: Tag) -> Optional[str]:
    """A label alone in its element, its value in the next: "<dt>Fotos</dt><dd>Ines Rowe</dd>", a two-cell row
    ("<li><div>Foto(s)</div><div>Ines Rowe</div></li>"); not an entry of a menu ("Photos", "Videos", ...)."""
    value_tag = tag.find_next_sibling()
    if value_tag is None or value_tag.find(["img", "picture", "figure"]) is not None:
        return None
    pair = (tag.name, value_tag.name) in (("dt", "dd"), ("th", "td"))
    if not pair and ("li" in (tag.name, value_tag.name) or len(tag.parent.find_all(True, recursive=False)) != 2):
        return None  # two entries of a list ("Photos", "Videos"), not a label and its value
    text = value_tag.get_text(" ", strip=True)
    return _value(text) if text else None


def _inline(text: str) -> list[Optional[str]]:
    """ "Fotos: Harbour Works", "Words: Dana Whitlow Photos: Ines Rowe", "Text: A | Fotos: B": the label opens
    the line or follows another labelled part. A bar-separated list after it ("Images: Smile | Window") names
    several photos' credits, none of them the article's."""
    parts = re.split(r"\s*[|•·]\s*", text)
    if len(parts) > 1 and not all(":" in part for part in parts if part):
        return []
    values = []
    for part in parts:
        for m in _INLINE.finditer(part):
            before = part[: m.start()].strip()
            if not before or ":" in before:
                values.append(_value(m.group("value")))
    return values


def _lines_around(string: NavigableString) -> Iterator[Tag]:
    """The few blocks holding a text that names the label, innermost first ("<strong>Fotos</strong>", then
    "<p><strong>Fotos</strong>: Ines Rowe</p>"), up to the first too long to be a credit line."""
    block = string.parent
    for _ in range(MAX_LINE_DEPTH):
        if block is None or block.name in ("body", "html", "[document]"):
            return
        if block.name in _LINES:
            if word_count_upto(block, MAX_LINE_WORDS) > MAX_LINE_WORDS:
                return
            yield block
        block = block.parent


def article_photo_credit(root: BeautifulSoup | Tag) -> Optional[str]:
    """The credit written once for the article's photos, or None when the page has none or more than one.
    Read from the texts naming a label, so a page's size (or depth) costs no more than a walk through it."""
    found: dict[str, str] = {}
    seen: set[int] = set()
    for string in root.find_all(string=_LABEL_SEEN):
        for tag in _lines_around(string):
            if id(tag) in seen:
                continue
            seen.add(id(tag))
            text = collapse(tag.get_text(" ", strip=True))
            if not text or _in_the_way(tag) or _a_link(tag, text):
                continue
            values = [_label_pair(tag)] if LABEL_ONLY.match(text) else _inline(text)
            for value in filter(None, values):
                found.setdefault(value.casefold(), value)
    return next(iter(found.values())) if len(found) == 1 else None


def spread_article_credit(root: BeautifulSoup | Tag, captions: list[CaptionData]) -> None:
    """Give the article's photo credit to each caption that has none of its own."""
    if all(c.credit for c in captions):
        return
    credit = article_photo_credit(root)
    if credit is None:
        return
    photographer, agency = parse_credit(credit)
    for caption in captions:
        if not caption.credit:
            caption.credit, caption.photographer, caption.agency = credit, photographer, agency
