"""What an HTML page says about itself: JSON-LD, OpenGraph and `article:` meta tags, `<time>`, `<link rel=canonical>`,
`<html lang>`. Each field is read in order of trust: JSON-LD, then meta tags, then page markup."""

from __future__ import annotations

import html as html_lib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from bs4 import BeautifulSoup, Tag

from search.languages import language_tag

from .. import dates
from ..normalise import collapse
from .htmltitle import PageText, page_text

ARTICLE_TYPES = {
    "newsarticle",
    "article",
    "reportagenewsarticle",
    "analysisnewsarticle",
    "blogposting",
    "opinionnewsarticle",
    "backgroundnewsarticle",
    "reviewnewsarticle",
    "liveblogposting",
    "report",
    "scholarlyarticle",
    "techarticle",
    "socialmediaposting",
    "askpublicnewsarticle",
    "satiricalarticle",
    "advertisercontentarticle",
    "posting",
}
DATE_META = (
    "article:published_time",
    "og:published_time",
    "og:article:published_time",
    "datepublished",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "published_time",
    "article.published",
    "dc.date.issued",
    "dc.date",
    "dcterms.date",
    "dcterms.issued",
    "date",
    "sailthru.date",
    "parsely-pub-date",
    "citation_date",
    "citation_publication_date",
    "article_date_original",
    "original-publish-date",
    "displaydate",
)
AUTHOR_META = ("author", "article:author", "parsely-author", "sailthru.author", "dc.creator", "dcterms.creator", "byl")
SITE_META = ("og:site_name", "application-name", "publisher", "dc.publisher", "cre")
TITLE_META = ("og:title", "twitter:title", "title", "dc.title", "parsely-title", "sailthru.title", "headline")
MAX_LD_BYTES = 2_000_000


@dataclass
class PageMeta:
    headline: Optional[str] = None
    h1: Optional[str] = None
    title_tag: Optional[str] = None
    description: Optional[str] = None
    article_body: Optional[str] = None
    published: Any = None
    byline: Optional[str] = None
    source: Optional[str] = None
    url: Optional[str] = None
    language: Optional[str] = None
    ld_types: list[str] = field(default_factory=list)
    titles: list[tuple[str, Optional[str]]] = field(default_factory=list)  # (where, text), most trusted first
    shown: Optional[PageText] = None  # the page's text and headings (htmltitle)
    # The lead photo's caption in the metadata: (text, credit, address) from JSON-LD ImageObject or og:image:alt.
    image_caption: Optional[tuple[str, Optional[str], Optional[str]]] = None


class _Scan:
    """The elements metadata comes from, gathered in one walk over the tree."""

    def __init__(self, soup: BeautifulSoup) -> None:
        self.metas: list[Tag] = []
        self.ld_scripts: list[Tag] = []
        self.h1: Optional[Tag] = None
        self.title: Optional[Tag] = None
        self.canonical: Optional[Tag] = None
        self.author: Optional[Tag] = None
        self.marked_dates: list[Tag] = []  # itemprop=datePublished, <time pubdate>
        self.article_times: list[Tag] = []  # <time datetime> inside article/main
        self.times: list[Tag] = []
        for tag in soup.descendants:
            if not isinstance(tag, Tag):
                continue
            name = tag.name
            if name == "meta":
                self.metas.append(tag)
            elif name == "script":
                kind = tag.get("type")
                if isinstance(kind, str) and "ld+json" in kind.lower():
                    self.ld_scripts.append(tag)
            elif name == "h1" and self.h1 is None:
                self.h1 = tag
            elif name == "title" and self.title is None:
                self.title = tag
            elif name == "link" and self.canonical is None and "canonical" in _tokens(tag.get("rel")):
                self.canonical = tag
            if self.author is None and (
                "author" in _tokens(tag.get("rel")) or "author" in _tokens(tag.get("itemprop"))
            ):
                self.author = tag
            if "datepublished" in _tokens(tag.get("itemprop")) or (name == "time" and tag.has_attr("pubdate")):
                self.marked_dates.append(tag)
            elif name == "time" and tag.has_attr("datetime") and len(self.times) < 10:
                self.times.append(tag)
                if len(self.article_times) < 3 and tag.find_parent(["article", "main"]) is not None:
                    self.article_times.append(tag)


def _tokens(value: Any) -> list[str]:
    if isinstance(value, list):
        return [v.lower() for v in value if isinstance(v, str)]
    if isinstance(value, str):
        return value.lower().split()
    return []


def read_meta(soup: BeautifulSoup) -> PageMeta:
    """The page's metadata; reads only (the tree is not changed)."""
    scan = _Scan(soup)
    objects = list(json_ld_objects(scan.ld_scripts))
    ld = json_ld_article(objects)
    meta = meta_tags(scan.metas)
    page = PageMeta()
    page.ld_types = [t for t in _as_list(ld.get("@type")) if isinstance(t, str)]
    page.h1 = collapse(scan.h1.get_text(" ")) if scan.h1 is not None else None
    page.title_tag = collapse(scan.title.get_text(" ")) if scan.title is not None else None
    page.description = _first_text(_str(ld.get("description")), meta.get("og:description"), meta.get("description"))
    body = ld.get("articleBody")
    page.article_body = body if isinstance(body, str) and body.strip() else None
    page.published = _published(ld, meta, scan)
    page.byline = (
        _person_names(ld.get("author"))
        or _person_names(ld.get("creator"))
        or _meta_author(meta)
        or _markup_author(scan.author)
    )
    publisher = ld.get("publisher") or ld.get("sourceOrganization")
    page.source = _first_text(
        *(
            v
            for v in (_str(publisher), *(meta.get(k) for k in SITE_META))
            if not (isinstance(v, str) and v.strip().startswith(("http://", "https://", "www.")))
        )
    )
    site_key = _key(page.source) if page.source else None
    page.headline = _first_text(
        *(
            v
            for v in (
                _str(ld.get("headline")),
                _str(ld.get("name")) if ld else None,
                *(meta.get(k) for k in TITLE_META),
                page.h1,
                page.title_tag,
            )
            if not (isinstance(v, str) and site_key and _key(v) == site_key)
        )
    )
    page.headline = _without_site_name(page.headline, page.h1, page.source)
    page.titles = [
        ("json-ld headline", _str(ld.get("headline"))),
        *((key, meta.get(key)) for key in TITLE_META),
        ("title", page.title_tag),
    ]
    page.shown = page_text(soup)
    page.image_caption = _image_caption(ld, meta, objects)
    page.url = (
        _http(scan.canonical.get("href") if scan.canonical is not None else None)
        or _http(meta.get("og:url"))
        or _http(_str(ld.get("url")))
        or _http(
            _str(ld.get("mainEntityOfPage"))
            if not isinstance(ld.get("mainEntityOfPage"), dict)
            else _str(ld["mainEntityOfPage"].get("@id"))
        )
    )
    page.language = page_language(soup, meta, ld)
    return page


def _image_caption(
    ld: dict, meta: dict[str, str], objects: Sequence[dict] = ()
) -> Optional[tuple[str, Optional[str], Optional[str]]]:
    """The article's image caption as its metadata states it: a JSON-LD ImageObject's `caption` (with its
    `creditText`, `copyrightHolder` or `author`), else `og:image:alt` / `twitter:image:alt`. An image given by
    reference (`{"@id": "...#primaryimage"}`, as in a `@graph`, also the page's `primaryImageOfPage`) is
    looked up among the page's JSON-LD objects."""
    by_id = {o["@id"]: o for o in objects if isinstance(o.get("@id"), str) and len(o) > 1}
    pages = [o for o in objects if o.get("primaryImageOfPage")]
    images = _as_list(ld.get("image")) + _as_list(ld.get("associatedMedia"))
    images += [o.get("primaryImageOfPage") for o in pages]
    for image in images:
        if isinstance(image, dict) and len(image) == 1 and isinstance(image.get("@id"), str):
            image = by_id.get(image["@id"], image)
        if not isinstance(image, dict):
            continue
        text = _first_text(_str(image.get("caption")), _str(image.get("description")))
        if text:
            credit = _first_text(
                _str(image.get("creditText")), _str(image.get("copyrightHolder")), _str(image.get("author"))
            )
            return text, credit, _http(_str(image.get("url")) or _str(image.get("contentUrl")))
    alt = _first_text(meta.get("og:image:alt"), meta.get("twitter:image:alt"))
    if alt:
        return alt, None, _http(meta.get("og:image")) or _http(meta.get("og:image:url"))
    return None


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _first_text(*values: Optional[str]) -> Optional[str]:
    for value in values:
        if isinstance(value, str):
            if "&" in value and ";" in value:
                value = html_lib.unescape(value)  # "&#8216;" in a meta tag or JSON-LD string, escaped twice
            text = collapse(value)
            if text:
                return text
    return None


_TITLE_SEPARATOR = re.compile(r"\s+[|\-–—:·•»]+\s+|\s*\|\s*")


def _without_site_name(headline: Optional[str], h1: Optional[str], site: Optional[str]) -> Optional[str]:
    """A page title without the site's name around it: "Bridge to close | The Harbour Times" -> "Bridge to close".
    The page's own h1 wins when it is one of the title's parts (and not the site's name set in an h1);
    else a part naming the site is dropped."""
    if not headline:
        return headline
    parts = [p.strip() for p in _TITLE_SEPARATOR.split(headline) if p.strip()]
    if len(parts) < 2:
        return headline
    key = _key(site) if site else None
    if h1 and h1 != headline and h1 in parts and _key(h1) != key:
        return h1
    if key:
        kept = [p for p in parts if _key(p) != key]
        if kept and len(kept) < len(parts):
            return " - ".join(kept) if len(kept) > 1 else kept[0]
    return headline


def _key(text: str) -> str:
    return re.sub(r"\W+", "", html_lib.unescape(text)).casefold()


def _str(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value:
        return _str(value[0])
    if isinstance(value, dict):
        return _str(value.get("name") or value.get("@value"))
    return None


def _http(url: Optional[str]) -> Optional[str]:
    if isinstance(url, str):
        url = url.strip()
        if url.startswith(("http://", "https://")) and len(url) <= 2000 and not re.search(r"\s", url):
            return url
    return None


# -- JSON-LD ------------------------------------------------------------------------------------------


def json_ld_objects(scripts: Iterable[Tag]) -> Iterable[dict]:
    """Every object of the JSON-LD blocks, `@graph` and `mainEntity` included."""
    for script in scripts:
        text = script.string or script.get_text() or ""
        if not text.strip() or len(text) > MAX_LD_BYTES:
            continue
        data = _loads(text)
        if data is not None:
            yield from _walk_ld(data)


def _loads(text: str) -> Any:
    text = text.strip()
    if text.startswith("<!--"):
        text = text[4:]
    if text.endswith("-->"):
        text = text[:-3]
    text = re.sub(r"^\s*(?://[^\n]*\n|/\*.*?\*/)", "", text, flags=re.S)
    for candidate in (text, re.sub(r",\s*([}\]])", r"\1", text)):
        try:
            return json.loads(candidate, strict=False)  # raw newlines and tabs inside strings are common
        except (ValueError, RecursionError):
            continue
    return None


def _walk_ld(data: Any, depth: int = 0) -> Iterable[dict]:
    if depth > 6:
        return
    if isinstance(data, list):
        for item in data[:200]:
            yield from _walk_ld(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        if "@graph" in data:
            yield from _walk_ld(data["@graph"], depth + 1)
        for key in ("mainEntity", "mainEntityOfPage"):
            if isinstance(data.get(key), dict) and data[key].get("@type"):
                yield from _walk_ld(data[key], depth + 1)


def json_ld_article(objects: Iterable[dict]) -> dict:
    """The page's JSON-LD article object (NewsArticle, Article, BlogPosting...) among its JSON-LD objects
    (`json_ld_objects`), or {}; the one with an articleBody or a headline wins over a bare mention."""
    best: dict = {}
    best_score = -1
    for obj in objects:
        types = [t.lower() for t in _as_list(obj.get("@type")) if isinstance(t, str)]
        if not any(t in ARTICLE_TYPES or t.endswith("article") for t in types):
            continue
        score = 2 * isinstance(obj.get("articleBody"), str) + isinstance(obj.get("headline"), str)
        if score > best_score:
            best, best_score = obj, score
    return best


# -- meta tags and markup -----------------------------------------------------------------------------


def meta_tags(metas: Iterable[Tag]) -> dict[str, str]:
    """`<meta>` content by lower-cased property, name, itemprop or http-equiv; the first of each wins."""
    found: dict[str, str] = {}
    for tag in metas:
        content = tag.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        for attr in ("property", "name", "itemprop", "http-equiv"):
            key = tag.get(attr)
            if isinstance(key, str) and key.strip():
                found.setdefault(key.strip().lower(), content.strip())
    return found


def _published(ld: dict, meta: dict[str, str], scan: _Scan):
    for value in (ld.get("datePublished"), ld.get("dateCreated"), *(meta.get(k) for k in DATE_META)):
        parsed = dates.parse_date(_str(value) if not isinstance(value, (int, float)) else value)
        if parsed is not None:
            return parsed
    # `<time>` marked as the publication date, then the first ones inside the article, then any.
    for tag in scan.marked_dates + scan.article_times + scan.times:
        parsed = dates.parse_date(tag.get("datetime") or tag.get("content") or collapse(tag.get_text(" ")))
        if parsed is not None:
            return parsed
    return None


def _person_names(value: Any) -> Optional[str]:
    if isinstance(value, list):
        names = [n for n in (_person_names(v) for v in value[:20]) if n]
        return ", ".join(dict.fromkeys(names)) or None
    if isinstance(value, dict):
        return _person_names(value.get("name"))
    if isinstance(value, str):
        text = collapse(value)
        if not text or text.startswith(("http://", "https://", "/")) or len(text) > 200:
            return None
        return re.sub(r"^by\s+", "", text, flags=re.I) or None
    return None


def _meta_author(meta: dict[str, str]) -> Optional[str]:
    for key in AUTHOR_META:
        name = _person_names(meta.get(key))
        if name:
            return name
    return None


def _markup_author(tag: Optional[Tag]) -> Optional[str]:
    if tag is None:
        return None
    name_tag = tag.find(attrs={"itemprop": "name"}) if tag.name != "a" else None
    if tag.name == "meta":
        return _person_names(tag.get("content"))
    return _person_names((name_tag or tag).get_text(" "))


# -- language -----------------------------------------------------------------------------------------


def language_code(value: Any) -> Optional[str]:
    """ "en-US" -> "en", "pt_BR" -> "pt"; None for anything that is not a language tag (search.languages)."""
    return language_tag(value)


def page_language(soup: BeautifulSoup, meta: dict[str, str], ld: dict) -> Optional[str]:
    """The language the page declares: `<html lang>`, then the content-language meta, og:locale, JSON-LD."""
    html = soup.find("html")
    candidates = [
        html.get("lang") or html.get("xml:lang") if html is not None else None,
        meta.get("content-language"),
        meta.get("language"),
        meta.get("og:locale"),
        _str(ld.get("inLanguage")),
    ]
    for value in candidates:
        code = language_code(value.split(",")[0] if isinstance(value, str) else value)
        if code:
            return code
    return None
