"""The main text of an HTML page: boilerplate blocks dropped by structure, the rest handed to trafilatura.

trafilatura (a maintained extractor that also carries readability and jusText fallbacks) finds the main
text; before it runs, the reader has taken the captions out (htmlcaptions) and drops the blocks any news
page marks as not being the story: navigation, asides, footers, share and follow widgets, related-story
lists, newsletter and subscription boxes, comments.
"""

from __future__ import annotations

import html as _html
import logging
import re

from bs4 import BeautifulSoup, Comment, Tag

from ..normalise import collapse, split_paragraphs
from .htmlnames import FURNITURE_TAGS, first_descendant, is_furniture, name_words, removed, tags_in, word_count_upto

# trafilatura logs a warning for every page it finds too little in; the reader says so itself (InputError).
logging.getLogger("trafilatura").setLevel(logging.ERROR)
logging.getLogger("readability").setLevel(logging.ERROR)

# Elements that never hold article text.
DROP_TAGS = (
    "script",
    "style",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "embed",
    "select",
    "button",
    "input",
    "textarea",
    "dialog",
    "map",
)
# A block named like furniture is dropped only when it is smaller than this (a whole-page wrapper named
# "has-sidebar" or "comments-open" is not furniture).
MAX_FURNITURE_WORDS = 400


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def prune(soup: BeautifulSoup) -> None:
    """Drop scripts, HTML comments, hidden elements, page landmarks (nav, aside, footer, navigation roles)
    and furniture-named blocks (share, related, newsletter, comments...) in place, in one walk."""
    comments = [node for node in soup.descendants if isinstance(node, Comment)]
    for node in comments:
        node.extract()
    for tag in tags_in(soup):
        if removed(tag) or tag.name in ("html", "body", "[document]"):
            continue
        if tag.name in DROP_TAGS or tag.has_attr("hidden") or _HIDDEN_STYLE.search(tag.get("style") or ""):
            tag.decompose()
        elif (
            is_furniture(tag)
            and not _holds_article(tag)
            and (tag.name in FURNITURE_TAGS or word_count_upto(tag, MAX_FURNITURE_WORDS) <= MAX_FURNITURE_WORDS)
        ):
            tag.decompose()


MAX_LINKS = 3000
# Class words of a story's text container: a story word and a body word ("article__body", "story-body",
# "entry-content"); a bare "text" or "content" names any block.
_BODY_CLASS_WORDS = {"body", "content", "text"}
_STORY_CLASS_WORDS = {"article", "story", "entry", "post"}
# A block shorter than this is a teaser card, not a part of a story's body.
MIN_BODY_PART_WORDS = 30


def join_split_body(soup: BeautifulSoup) -> None:
    """Put back together a story body that the page splits into several blocks of the same class between
    ads ("article__body" three times): the extractor would otherwise keep the first block only. Blocks are
    joined only when nothing between them starts another story (an h1 or an article element): an
    infinite-scroll page's next story keeps its own body."""
    groups: dict[str, list[Tag]] = {}
    for tag in tags_in(soup):
        classes = tag.get("class")
        if not classes or tag.name not in ("div", "section") or not (_BODY_CLASS_WORDS & name_words(tag)):
            continue
        if not (_STORY_CLASS_WORDS & name_words(tag)) or first_descendant(tag, ("p",)) is None:
            continue
        if word_count_upto(tag, MIN_BODY_PART_WORDS) < MIN_BODY_PART_WORDS:
            continue
        groups.setdefault(" ".join(classes), []).append(tag)
    for blocks in groups.values():
        blocks = [b for b in blocks if not any(parent in blocks for parent in b.parents)]
        if len(blocks) < 2:
            continue
        first = blocks[0]
        for block in blocks[1:]:
            if _story_starts_between(first, block):
                break
            for child in list(block.contents):
                first.append(child.extract())
            block.decompose()


def _story_starts_between(first: Tag, block: Tag) -> bool:
    for node in first.next_elements:
        if node is block:
            return False
        if (
            isinstance(node, Tag)
            and node.name in ("h1", "article")
            and first not in node.parents
            and node not in first.parents
        ):
            return True
    return True


# A "link" longer than this is a story caught inside an anchor left open, not a menu entry or a teaser.
MAX_LINK_WORDS = 60


def link_texts(soup: BeautifulSoup) -> list[str]:
    """The texts of the page's links (two words or more, up to MAX_LINK_WORDS), longest first."""
    texts = {collapse(tag.get_text(" ")) for tag in tags_in(soup) if tag.name == "a"}
    texts = {t for t in texts if " " in t and word_count(t) <= MAX_LINK_WORDS}
    return sorted(texts, key=len, reverse=True)[:MAX_LINKS]


def _holds_article(tag: Tag) -> bool:
    return first_descendant(tag, _STORY_TAGS) is not None


_STORY_TAGS = frozenset({"article", "main", "h1"})


def main_text(html: str, *, favor_precision: bool = True) -> list[str]:
    """The page's main text as paragraphs, by trafilatura (comments left out), or [] when it finds none."""
    import trafilatura  # noqa: PLC0415 (0.3 s to import; `search`, `stats` and the web app never read HTML)

    doc = trafilatura.bare_extraction(
        html, include_comments=False, favor_precision=favor_precision, include_tables=True, output_format="python"
    )
    if doc is None or getattr(doc, "body", None) is None:
        return []
    return _paragraphs_of(doc.body)


_READABLE_BLOCKS = ["p", "h2", "h3", "h4", "li", "blockquote", "pre"]


def readable_text(html: str) -> list[str]:
    """The paragraphs of the block readability-lxml (a port of Mozilla's Readability) takes for the
    article, or [] when it finds none. Text outside paragraph elements (a story in table cells) is split
    at its line breaks instead."""
    from readability import Document  # noqa: PLC0415 (0.1 s to import; only for pages the others fail on)

    try:
        summary = Document(html).summary(html_partial=True)
    except ValueError:  # readability's Unparseable
        return []
    soup = BeautifulSoup(summary, "lxml")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    blocks = [b for b in soup.find_all(_READABLE_BLOCKS) if b.find(["p", "li"]) is None]
    paragraphs = [t for t in (collapse(b.get_text(" ")) for b in blocks) if t]
    everything = split_paragraphs(soup.get_text("\n"))
    return paragraphs if words(paragraphs) >= words(everything) / 2 else everything


def _paragraphs_of(body) -> list[str]:
    out: list[str] = []
    for element in body:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag == "list":
            for item in element.iter("item"):
                text = collapse("".join(item.itertext()))
                if text:
                    out.append(text)
        elif tag == "table":
            for row in element.iter("row"):
                cells = [collapse("".join(cell.itertext())) for cell in row]
                text = " | ".join(c for c in cells if c)
                if text:
                    out.append(text)
        else:
            text = collapse("".join(element.itertext()))
            if text:
                out.append(text)
    return out


def text_of_article_body(value: str) -> list[str]:
    """A JSON-LD articleBody as paragraphs: HTML in it is read as HTML, plain text by its blank lines."""
    if re.search(r"<(?:p|br|div|body|span|a|em|strong)\b[^>]*>", value, re.I):
        soup = BeautifulSoup(value, "lxml")
        for tag in soup.find_all(DROP_TAGS):
            tag.decompose()
        blocks = soup.find_all(["p", "h2", "h3", "h4", "li", "blockquote"])
        if blocks:
            return [t for t in (collapse(b.get_text(" ")) for b in blocks if b.find(["p", "li"]) is None) if t]
        value = soup.get_text("\n")
    return split_paragraphs(_html.unescape(value))


# Scripts written without spaces between words: each character counts as a word.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words of a text; in Chinese, Japanese, Korean and Thai every character counts as one."""
    unspaced = len(_UNSPACED.findall(text))
    if not unspaced:
        return len(text.split())
    return len(_UNSPACED.sub(" ", text).split()) + unspaced


def words(paragraphs: list[str]) -> int:
    return sum(word_count(p) for p in paragraphs)


_BLOCK_TAGS = frozenset(
    {"p", "div", "td", "li", "article", "section", "main", "blockquote", "pre", "dd", "body", "center", "font"}
)
_NEVER_TEXT = [
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "header",
    "footer",
    "aside",
    "button",
    "select",
    "textarea",
]  # not "form": ASP.NET pages wrap the whole page in one
_TEMPLATE_TYPES = ["text/template", "text/html", "text/x-template", "text/x-handlebars-template"]


def largest_text_block(html: str) -> list[str]:
    """The page's largest block of running text, as paragraphs: the last resort when the extractors find no
    article. Each piece of text outside links counts for the block holding it and for that block's parent (so
    a column of paragraphs beats any one of them); the block with the most is taken."""
    soup = BeautifulSoup(html, "lxml")
    for script in soup.find_all("script", type=_TEMPLATE_TYPES):
        # Pages built in the browser keep their story as HTML in a template script (Blogger's "post-content").
        inner = BeautifulSoup(script.string or "", "lxml").body
        if inner is not None and inner.contents:
            script.replace_with(*inner.contents)
    for tag in soup(_NEVER_TEXT):
        tag.decompose()
    for tag in soup("noscript"):
        tag.unwrap()  # what a browser without scripts shows: some pages keep their whole story there
    scores: dict[int, float] = {}
    blocks: dict[int, Tag] = {}
    for node in soup.find_all(string=True):
        if isinstance(node, Comment) or node.find_parent("a") is not None:
            continue
        n = word_count(str(node))
        if not n:
            continue
        block = node.parent
        while block is not None and block.name not in _BLOCK_TAGS:
            block = block.parent
        if block is None:
            continue
        for share, tag in ((1.0, block), (1.0, block.parent), (0.5, getattr(block.parent, "parent", None))):
            if isinstance(tag, Tag) and tag.name not in ("[document]", "html"):
                scores[id(tag)] = scores.get(id(tag), 0.0) + share * n
                blocks[id(tag)] = tag
    if not scores:
        return []
    best = blocks[max(scores, key=scores.__getitem__)]
    for link in best.find_all("a"):
        link.decompose()
    for br in best.find_all("br"):
        br.replace_with("\n")
    leaves = [t for t in best.find_all(_BLOCK_TAGS) if t.find(_BLOCK_TAGS) is None] or [best]
    paragraphs = []
    for leaf in leaves:
        paragraphs += [t for t in (collapse(line) for line in leaf.get_text(" ").split("\n")) if t]
    return paragraphs
