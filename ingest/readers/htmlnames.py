"""Reading an element's class and id names: which blocks are captions, credits or page furniture."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from bs4 import NavigableString, Tag

# Words in class/id names, split at "-", "_", spaces and camelCase humps.
_NAME_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# Words in class or id names of blocks that are not the story.
FURNITURE_WORDS = {
    "share",
    "sharing",
    "sharebar",
    "social",
    "sociallinks",
    "related",
    "recirc",
    "recirculation",
    "recommended",
    "recommendations",
    "newsletter",
    "newsletters",
    "subscribe",
    "subscription",
    "signup",
    "comments",
    "comment",
    "disqus",
    "promo",
    "sponsored",
    "outbrain",
    "taboola",
    "breadcrumb",
    "breadcrumbs",
    "menu",
    "navbar",
    "sidebar",
    "widget",
    "advert",
    "advertisement",
    "ad",
    "ads",
    "popular",
    "trending",
    "cookie",
    "cookies",
    "gdpr",
    "consent",
    "toolbar",
    "pagination",
    "tags",
    "keywords",
    "bio",
    "more",
}
# Names that mark the story itself; a block named both ways ("article-share") is furniture only when the
# furniture word is one no story container carries.
STORY_WORDS = {"article", "content", "story", "body", "main", "text", "entry", "post"}
ALWAYS_FURNITURE = {
    "related",
    "share",
    "sharing",
    "newsletter",
    "newsletters",
    "comments",
    "recirc",
    "outbrain",
    "taboola",
}
FURNITURE_TAGS = ("nav", "aside", "footer")
FURNITURE_ROLES = {
    "navigation",
    "complementary",
    "contentinfo",
    "banner",
    "search",
    "menu",
    "menubar",
    "dialog",
    "alert",
}
_NEVER_FURNITURE = ("html", "body", "main", "article", "p", "h1", "h2", "h3")


def name_words(tag: Tag, without: Optional[re.Pattern] = None) -> frozenset[str]:
    """Lower-case words of an element's class and id: "wp-caption-text" -> {wp, caption, text}; `without`
    leaves out the classes it matches."""
    classes = tag.get("class")
    ident = tag.get("id")
    if not classes and not ident:
        return frozenset()
    key = " ".join(classes) if isinstance(classes, list) else (classes if isinstance(classes, str) else "")
    if without is not None:
        key = " ".join(c for c in key.split() if not without.match(c))
    return _words_of(key, ident if isinstance(ident, str) else "")


@lru_cache(maxsize=20_000)
def _words_of(classes: str, ident: str) -> frozenset[str]:
    words: set[str] = set()
    for value in (*classes.split(), ident):
        if not value or len(value) > 80:
            continue
        for chunk in re.split(r"[-_\s:.]+", value):
            if not chunk:
                continue
            words.add(chunk.lower())
            for part in _NAME_PARTS.findall(chunk):
                words.add(part.lower())
    return frozenset(words)


def removed(tag: Tag) -> bool:
    """True once `tag` (or a block holding it) was decomposed. bs4's own `tag.decomposed` looks the flag up
    through `Tag.__getattr__`, which searches the subtree for a child element of that name on every call."""
    return tag.__dict__.get("_decomposed", False)


def tags_in(root: Tag) -> list[Tag]:
    """Every element under `root` in document order (a plain walk: much faster than a filtered find_all)."""
    return [node for node in root.descendants if isinstance(node, Tag)]


def first_descendant(tag: Tag, names: tuple[str, ...] | frozenset[str] = (), test=None) -> Tag | None:
    """The first element under `tag` with one of `names` (or passing `test`), by a plain walk."""
    for node in tag.descendants:
        if isinstance(node, Tag) and (node.name in names or (test is not None and test(node))):
            return node
    return None


def word_count_upto(tag: Tag, limit: int) -> int:
    """Words of a tag's text, counting no further than `limit` + 1 (a caption is short; a wrapper is not)."""
    count = 0
    for node in tag.descendants:
        if isinstance(node, NavigableString) and type(node) is NavigableString:
            count += len(node.split())
            if count > limit:
                break
    return count


# Class names that say what a block has beside it, not what it is: "has-sidebar" and "with-ads" wrap the story
# beside a sidebar; "non-ad-column" and "no-ads" say the opposite of furniture.
_LAYOUT_NAME = re.compile(r"^(?:has|with|non|no|not|without)[-_]", re.I)


def _named_words(tag: Tag) -> frozenset[str]:
    classes = tag.get("class")
    ident = tag.get("id")
    values = classes if isinstance(classes, list) else str(classes or "").split()
    kept = " ".join(v for v in values if not _LAYOUT_NAME.match(v))
    ident = ident if isinstance(ident, str) and not _LAYOUT_NAME.match(ident) else ""
    return _words_of(kept, ident)


def furniture_named(tag: Tag) -> bool:
    """A block whose class or id names it share bar, related stories, newsletter box, comments, menu, ad..."""
    if tag.name in _NEVER_FURNITURE:
        return False
    words = name_words(tag)
    hits = words & FURNITURE_WORDS
    if hits:
        words = _named_words(tag)  # without the names that say what a block has, not what it is
        hits = words & FURNITURE_WORDS
    return bool(hits) and (not words & STORY_WORDS or bool(hits & ALWAYS_FURNITURE))


def is_furniture(tag: Tag) -> bool:
    """nav, aside, footer, a navigation/complementary role, or a furniture-named block."""
    if tag.name in FURNITURE_TAGS:
        return True
    role = tag.get("role")
    if isinstance(role, str) and role.lower() in FURNITURE_ROLES:
        return True
    return furniture_named(tag)


# A block named like furniture that holds this many words is a layout wrapper around the story ("l-section
# for_sidebar" holding the article and its sidebar), not furniture.
MAX_FURNITURE_WORDS = 1000


def in_furniture(tag: Tag) -> bool:
    """Inside page furniture: a sidebar, a footer, a related-stories box (not a wrapper of the whole story)."""
    return any(
        is_furniture(parent)
        and word_count_upto(parent, MAX_FURNITURE_WORDS) < MAX_FURNITURE_WORDS
        and not holds_headline(parent)
        and not wraps_main_column(parent)
        and not holds_running_text(parent)
        for parent in tag.parents
        if parent.name != "[document]"
    )


# Furniture words a page builder gives every block ("elementor-widget-container"): only such a block can turn
# out to be the story's wrapper by the text it holds.
BUILDER_WORDS = frozenset({"widget"})
# A story's running text: this many paragraphs of at least this many words each. A sidebar, a related-stories
# box or an author's bio holds one such paragraph at most.
RUNNING_TEXT_PARAGRAPHS = 3
RUNNING_TEXT_WORDS = 30


def holds_running_text(block: Tag) -> bool:
    """A block named like furniture that holds several long paragraphs of text is the story's wrapper (a page
    builder names every block a "widget": "<div class=builder-widget-container><p>...</p><p>...</p>"). Only
    blocks named for a builder's widget count: an `<aside>`, a `<nav>`, a footer, comments or a cookie notice
    is furniture whatever it holds."""
    if block.name in FURNITURE_TAGS or str(block.get("role") or "").lower() in FURNITURE_ROLES:
        return False
    if name_words(block) & FURNITURE_WORDS - BUILDER_WORDS:
        return False  # a comments section, a cookie notice or a bio holds long paragraphs of its own
    long_paragraphs = 0
    for paragraph in block.find_all("p"):
        if word_count_upto(paragraph, RUNNING_TEXT_WORDS) >= RUNNING_TEXT_WORDS:
            long_paragraphs += 1
            if long_paragraphs >= RUNNING_TEXT_PARAGRAPHS:
                return True
    return False


# A layout's main column, named as an element of the layout's block ("lay-sidebar" > "sidebar__main").
MAIN_COLUMN_WORDS = frozenset({"main"})
SIDEBAR_WORDS = frozenset({"sidebar", "rail"})


def wraps_main_column(block: Tag) -> bool:
    """A layout named for its sidebar whose own block holds the main column ("<div class=lay-sidebar><div
    class=sidebar__main>story</div><aside>...</aside>"): a wrapper around the story, not furniture. Only named
    blocks count: an `<aside>`, a `<nav>` or a banner is furniture whatever it holds."""
    if block.name in FURNITURE_TAGS or str(block.get("role") or "").lower() in FURNITURE_ROLES:
        return False
    layout = name_words(block) & SIDEBAR_WORDS  # "sidebar": the main column is the sidebar layout's "main"
    return bool(layout) and any(
        isinstance(c, Tag) and MAIN_COLUMN_WORDS & (words := name_words(c)) and layout & words for c in block.children
    )


def holds_headline(block: Tag) -> bool:
    """A block named like furniture that holds the page's headline (its first `<h1>`, of a few words) wraps the
    story ("st-sidebar__container" around the article and the sidebar beside it): no sidebar holds the page's
    headline. A widget's own `<h1>` further down ("Subscribe now") does not count, nor does a banner or a
    `<nav>` holding the headline, which are furniture by what they are, not by a name."""
    if block.name in FURNITURE_TAGS or str(block.get("role") or "").lower() in FURNITURE_ROLES:
        return False
    heading = first_heading(block)
    return heading is not None and any(parent is block for parent in heading.parents)


def first_heading(tag: Tag) -> Tag | None:
    """The page's first `<h1>` of three words or more, found once per page and kept on the page's root."""
    root = tag
    while root.parent is not None:
        root = root.parent
    if "_first_heading" not in root.__dict__:
        heading = first_descendant(root, ("h1",))
        root.__dict__["_first_heading"] = heading if heading is not None and word_count_upto(heading, 3) >= 3 else None
    return root.__dict__["_first_heading"]
