"""Agency XML: IPTC NITF 3.x and IPTC NewsML-G2 (newsMessage, newsItem, packageItem).

XML is parsed with entity expansion, DTD loading and network access off (lxml's `resolve_entities=False`,
`load_dtd=False`, `no_network=True`): a document that declares a billion-laughs entity or an external one
yields its text without them, never a file's or a URL's content. Namespaces are dropped after parsing, so
NewsML-G2 of any namespace version and NITF with or without its namespace read the same way.

NITF: `hedline/hl1`, `byline` (its `byttl` title left out), `dateline` (`location`), the publication date
from `pubdata/@date.publication`, `date.issue/@norm` or `date.release/@norm`, the paragraphs of
`body.content` (`p` and `hl2` in order, `block` entered), `media` as captions (`media-caption`, with
`media-producer` as credit), `doc-id/@id-string` as identity with `du-key/@version` as its version,
`docdata/@management-status` canceled or withheld as a withdrawal with `ed-msg/@info` as its notice.

NewsML-G2: every `newsItem` of class text is one article (`headline`, `by`, `dateline`, `located`,
`firstCreated`/`contentCreated`/`versionCreated`, `language`, provider, `guid`, `version`, `pubStatus`, an
inline XHTML, NITF or plain-text body). Picture and graphic items in the same document give their
`description` with `creditline` (or `by`) as captions of the text items; a `packageItem`'s `itemRef`s say
which pictures go with which text when there is more than one text item.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable, Optional

from dateutil import parser as date_parser
from lxml import etree

from search.languages import language_tag

from ..credits import caption_from_parts, source_for
from ..errors import InputError
from ..normalise import collapse, split_paragraphs
from ..records import ArticleData, CaptionData, Withdrawal
from .html import fragment_paragraphs  # the HTML rules read XHTML bodies

_PARSER_OPTIONS = dict(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_comments=True,
    remove_pis=True,
)


def parse_xml(data: bytes) -> etree._Element:
    """The document's root with namespaces dropped; InputError when it is not well-formed XML."""
    parser = etree.XMLParser(**_PARSER_OPTIONS)
    try:
        root = etree.fromstring(data.lstrip(), parser)
    except etree.XMLSyntaxError as exc:
        raise InputError(f"the XML is not well-formed: {exc}") from None
    if root is None:
        raise InputError("the XML document is empty")
    for entity in list(root.iter(etree.Entity)):  # an entity never expanded is dropped, its tail kept
        _remove_keeping_tail(entity)
    for element in root.iter():
        if isinstance(element.tag, str) and "}" in element.tag:
            element.tag = element.tag.split("}", 1)[1]
        for name in [n for n in element.attrib if "}" in n]:
            element.attrib[name.split("}", 1)[1]] = element.attrib.pop(name)
    return root


def _remove_keeping_tail(node) -> None:
    parent = node.getparent()
    if parent is None:
        return
    if node.tail:
        previous = node.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + node.tail
        else:
            parent.text = (parent.text or "") + node.tail
    parent.remove(node)


def text_of(element: Optional[etree._Element], *, skip: Iterable[str] = ()) -> str:
    """An element's text with its descendants', on one line; the `skip` children's text left out."""
    if element is None:
        return ""
    skipped = set(skip)
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if not (isinstance(child.tag, str) and child.tag in skipped):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return collapse(" ".join(parts))


def _date(value: Optional[str]) -> Optional[dt.datetime | dt.date]:
    """An ISO 8601 date or datetime (basic or extended form, as NITF's `norm` and NewsML's elements give)."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        parsed = date_parser.isoparse(value)
    except (ValueError, OverflowError):
        try:
            parsed = date_parser.parse(value)
        except (ValueError, OverflowError):
            return None
    if len(value) <= 10 and parsed.hour == parsed.minute == parsed.second == 0 and "T" not in value:
        return parsed.date()
    return parsed


# --- NITF ---------------------------------------------------------------------------------------------


def read_nitf(data: bytes | etree._Element) -> ArticleData:
    root = parse_xml(data) if isinstance(data, bytes) else data
    nitf = root if root.tag == "nitf" else root.find(".//nitf")
    if nitf is None:
        raise InputError("the XML is not an NITF document (no <nitf> element)")
    head = nitf.find("head")
    body = nitf.find("body")
    body_head = body.find("body.head") if body is not None else None
    headline = text_of(body_head.find("hedline/hl1")) if body_head is not None else ""
    if not headline and head is not None:
        headline = text_of(head.find("title"))
    paragraphs, captions = nitf_body(body.find("body.content") if body is not None else None)
    docdata = head.find("docdata") if head is not None else None
    # NITF 3.1+: docdata's management-status says canceled (a kill) or withheld (not to be used until
    # further notice); an editorial message (`ed-msg`) says why.
    status = (docdata.get("management-status") or "").strip().lower() if docdata is not None else ""
    ed_msg = docdata.find("ed-msg") if docdata is not None else None
    notice = (collapse(ed_msg.get("info") or text_of(ed_msg)) or None) if ed_msg is not None else None
    withdrawal = Withdrawal(status in ("canceled", "cancelled", "withheld"), notice)
    paragraphs = withdrawal.body(paragraphs, headline)
    if not headline and not paragraphs:
        raise InputError("the NITF document has neither a headline nor body text")
    article = ArticleData(headline=headline or _first_words(paragraphs), paragraphs=paragraphs, captions=captions)
    if body_head is not None:
        byline = body_head.find("byline")
        article.byline = _byline(text_of(byline, skip=("byttl",))) if byline is not None else None
        dateline = body_head.find("dateline")
        if dateline is not None:
            place = text_of(dateline.find("location")) or text_of(dateline, skip=("story.date",))
            article.dateline = place.rstrip(" ,-–—") or None
        distributor = text_of(body_head.find("distributor"))
        if distributor:
            article.source = source_for(distributor)
    published = None
    if head is not None:
        pubdata = head.find("pubdata")
        if pubdata is not None:
            published = _date(pubdata.get("date.publication"))
    if docdata is not None:
        for path in ("date.issue", "date.release"):
            if published is None and docdata.find(path) is not None:
                published = _date(docdata.find(path).get("norm"))
        if not article.source:
            holder = docdata.find("doc.copyright")
            regsrc = docdata.find("doc-id")
            name = (holder.get("holder") if holder is not None else None) or (
                regsrc.get("regsrc") if regsrc is not None else None
            )
            if name and name.strip():
                article.source = source_for(name.strip())
    if published is None and body_head is not None:
        story_date = body_head.find("dateline/story.date")
        if story_date is not None:
            published = _date(story_date.get("norm")) or _date(text_of(story_date))
    article.published = published
    doc_id = docdata.find("doc-id") if docdata is not None else None
    if doc_id is not None and (doc_id.get("id-string") or "").strip():
        du_key = docdata.find("du-key")
        version = _int(du_key.get("version")) if du_key is not None else None
        article.identify("nitf:" + doc_id.get("id-string").strip(), version=version, withdrawal=withdrawal)
    language = nitf.get("baselang") or nitf.get("lang")
    if language:
        article.language = language_tag(language)
    return article


def nitf_body(content: Optional[etree._Element]) -> tuple[list[str], list[CaptionData]]:
    """Paragraphs (`p`, `hl2`, list items, in order) and captions (`media`) of an NITF `body.content`."""
    paragraphs: list[str] = []
    captions: list[CaptionData] = []
    if content is None:
        return paragraphs, captions
    for element in content.iter():
        if not isinstance(element.tag, str):
            continue
        if element.tag in ("p", "hl2", "li", "bq") and not _inside(element, ("media", "p", "li", "table")):
            text = text_of(element)
            if text:
                paragraphs.append(text)
        elif element.tag == "media":
            caption = text_of(element.find(".//media-caption"))
            credit = text_of(element.find(".//media-producer")) or None
            if caption:
                captions.append(caption_from_parts(caption, credit))
    return paragraphs, captions


def _inside(element: etree._Element, names: tuple[str, ...]) -> bool:
    parent = element.getparent()
    while parent is not None:
        if parent.tag in names:
            return True
        if parent.tag == "body.content":
            return False
        parent = parent.getparent()
    return False


def _byline(text: str) -> Optional[str]:
    text = collapse(text)
    for prefix in ("By ", "BY ", "by "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return text or None


def _first_words(paragraphs: list[str], words: int = 12) -> str:
    return " ".join(" ".join(paragraphs).split()[:words]) if paragraphs else ""


# --- NewsML-G2 ----------------------------------------------------------------------------------------

# Item classes by their code without the scheme: "ninat:text" (IPTC) and "icls:text" (older Reuters) alike.
TEXT_CLASSES = ("text", "composite")
PICTURE_CLASSES = ("picture", "graphic")


def newsml_items(root: etree._Element) -> list[tuple[etree._Element, list[CaptionData]]]:
    """The text items of a NewsML-G2 document, each with the captions of the pictures that go with it."""
    items = [root] if root.tag == "newsItem" else list(root.iter("newsItem"))
    texts, pictures = [], {}
    for item in items:
        kind = _item_class(item)
        if kind in PICTURE_CLASSES or (kind is None and _is_picture(item)):
            caption = _picture_caption(item)
            if caption is not None:
                pictures[item.get("guid") or str(id(item))] = caption
        elif kind is None or kind in TEXT_CLASSES:
            texts.append(item)
    if not texts:
        classes = sorted({_item_class(i) or "unknown" for i in items})
        found = ", ".join(classes) if items else root.tag
        raise InputError(f"the NewsML-G2 document holds no text item (found: {found})")
    if len(texts) == 1 or not pictures:
        return [(t, list(pictures.values())) for t in texts]
    # Several stories: a package says which pictures go with which text (its groups); else none are guessed.
    groups = [[ref.get("residref") for ref in group.iter("itemRef")] for group in root.iter("group") if len(group)]
    result = []
    for text in texts:
        guid = text.get("guid")
        mine = []
        for refs in groups:
            if guid in refs:
                mine.extend(pictures[r] for r in refs if r in pictures)
        result.append((text, mine))
    return result


def _item_class(item: etree._Element) -> Optional[str]:
    element = item.find("itemMeta/itemClass")
    if element is None:
        return None
    return (element.get("qcode") or "").strip().lower().rpartition(":")[2] or None


def _is_picture(item: etree._Element) -> bool:
    return any((r.get("contenttype") or "").startswith("image/") for r in item.iter("remoteContent")) and not list(
        item.iter("inlineXML")
    )


def _picture_caption(item: etree._Element) -> Optional[CaptionData]:
    meta = item.find("contentMeta")
    if meta is None:
        return None
    description = next((text_of(d) for d in meta.iter("description") if text_of(d)), "")
    if not description:
        description = text_of(meta.find("headline"))
    if not description:
        return None
    credit = text_of(meta.find("creditline")) or text_of(meta.find("by")) or None
    return caption_from_parts(description, credit)


def read_newsml_item(item: etree._Element, captions: list[CaptionData]) -> ArticleData:
    """One NewsML-G2 text item as an article."""
    meta = item.find("contentMeta")
    item_meta = item.find("itemMeta")
    headline = ""
    if meta is not None:
        headlines = meta.findall("headline")
        main = [h for h in headlines if not h.get("role") or h.get("role", "").endswith(("main", "headline"))]
        headline = text_of((main or headlines)[0]) if headlines else ""
    if not headline and item_meta is not None:
        headline = text_of(item_meta.find("title"))
    if not headline:
        headline = next((text_of(t) for t in item.iter("title") if text_of(t)), "")  # an XHTML body's <title>
    paragraphs, body_captions = _newsml_body(item)
    status = item_meta.find("pubStatus") if item_meta is not None else None
    code = (status.get("qcode") or "").rpartition(":")[2].lower() if status is not None else ""
    notes = [text_of(n) for n in item_meta.findall("edNote")] if item_meta is not None else []
    withdrawal = Withdrawal(code in ("canceled", "cancelled"), " ".join(n for n in notes if n) or None)
    paragraphs = withdrawal.body(paragraphs, headline)
    if not headline and not paragraphs:
        raise InputError("the NewsML-G2 item has neither a headline nor body text")
    article = ArticleData(
        headline=headline or _first_words(paragraphs), paragraphs=paragraphs, captions=body_captions + captions
    )
    if meta is not None:
        article.byline = _byline(" ".join(text_of(b) for b in meta.findall("by") if text_of(b))) or None
        dateline = text_of(meta.find("dateline"))
        located = meta.find("located")
        place = text_of(located.find("name")) if located is not None else ""
        article.dateline = _dateline_place(dateline) or place or None
        language = meta.find("language")
        if language is not None and language.get("tag"):
            article.language = language_tag(language.get("tag"))
        published = None
        for name in ("contentCreated",):
            published = published or _date(text_of(meta.find(name)))
    else:
        published = None
    if item_meta is not None:
        first = _date(text_of(item_meta.find("firstCreated")))
        version = _date(text_of(item_meta.find("versionCreated")))
        published = first or published or version
        article.source = _provider(item, item_meta)
        link = item_meta.find("link[@rel='irel:seeAlso']")
        if link is not None and (link.get("href") or "").startswith(("http://", "https://")):
            article.url = link.get("href")
    article.published = published
    guid = (item.get("guid") or "").strip()
    if guid:
        stamp = _instant(_date(text_of(item_meta.find("versionCreated")))) if item_meta is not None else None
        article.identify("newsml:" + guid, version=_int(item.get("version")), version_time=stamp, withdrawal=withdrawal)
    if not article.language:
        lang = item.get("lang")
        if lang:
            article.language = language_tag(lang)
    return article


def _int(value: Optional[str]) -> Optional[int]:
    try:
        number = int((value or "").strip())
    except ValueError:
        return None
    return number if 0 <= number < 2**31 else None


def _instant(value) -> Optional[dt.datetime]:
    return value if isinstance(value, dt.datetime) else None


def _dateline_place(dateline: str) -> str:
    """The place of a NewsML dateline ("Erfurt (dpa) - ", "NEW YORK, Oct 20 (Reuters) -")."""
    text = dateline.strip().rstrip("-–— ").strip()
    if "(" in text:
        text = text.split("(", 1)[0].strip()
    if "," in text:
        head, _, tail = text.partition(",")
        if any(ch.isdigit() for ch in tail):
            text = head
    return text.strip(" ,")


def _provider(item: etree._Element, item_meta: etree._Element) -> Optional[str]:
    provider = item_meta.find("provider")
    names = []
    if provider is not None:
        names += [text_of(provider.find("name")), provider.get("literal") or ""]
        qcode = provider.get("qcode") or ""
        if ":" in qcode and not qcode.split(":", 1)[1].startswith("z"):
            names.append(qcode.split(":", 1)[1])
    holder = item.find("rightsInfo/copyrightHolder")
    if holder is not None:
        names += [text_of(holder.find("name")), holder.get("literal") or ""]
    for name in names:
        if name and name.strip():
            return source_for(name.strip())
    return None


def _newsml_body(item: etree._Element) -> tuple[list[str], list[CaptionData]]:
    for inline in item.iter("inlineXML"):
        nitf = inline.find(".//nitf")
        content = inline.find(".//body.content")
        if nitf is not None or content is not None:
            return nitf_body(content)
        html = inline.find(".//html")
        body = html.find("body") if html is not None else None
        target = body if body is not None else inline
        markup = "".join(etree.tostring(child, encoding="unicode", method="html") for child in target)
        if target.text and target.text.strip():
            markup = target.text + markup
        paragraphs, captions = fragment_paragraphs(markup)
        if paragraphs:
            return paragraphs, captions
    for inline in item.iter("inlineData"):
        text = inline.text or ""
        if text.strip():
            return split_paragraphs(text), []
    return [], []
