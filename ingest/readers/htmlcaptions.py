"""Photo captions and credits of an HTML page, found by structure and taken out of the page.

A caption is a `figcaption`, an element whose class or id names a caption ("caption", "wp-caption-text",
"cutline", "image-caption"...) or one marked `itemprop="caption"`. A credit is an element inside a caption
or a figure whose class, id or itemprop names a credit, copyright, photographer or attribution, or a
credit the caption text ends with ("(AP Photo/Evan Vucci)"). Each credit is split into photographer and
agency by `ingest.credits`. Every caption and credit node is removed from the tree, so that what is left
for the body holds neither.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import Iterable, Optional
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, NavigableString, Tag

from ..credits import (
    COUNTER_LABEL,
    MAX_CAPTION_WORDS,
    RIGHTS_RESERVED,
    caption_from_parts,
    find_agency,
    is_credit,
    looks_like_person,
    parse_credit,
    split_caption,
)
from ..normalise import collapse
from ..records import CaptionData
from .htmlcredit import spread_article_credit
from .htmlnames import (
    MAX_FURNITURE_WORDS,
    first_descendant,
    first_heading,
    holds_headline,
    holds_running_text,
    in_furniture,
    is_furniture,
    name_words,
    removed,
    tags_in,
    word_count_upto,
    wraps_main_column,
)

# "caption" in the languages of the archive's pages: German Bildunterschrift/Bildtext, French and German
# légende/Legende, Italian didascalia, Spanish leyenda, Dutch onderschrift/bijschrift, Polish podpis.
CAPTION_WORDS = {
    "caption",
    "captions",
    "figcaption",
    "cutline",
    "cutlines",
    "bildunterschrift",
    "bildtext",
    "legende",
    "legend",
    "didascalia",
    "leyenda",
    "onderschrift",
    "bijschrift",
    "podpis",
}
CREDIT_WORDS = {
    "credit",
    "credits",
    "copyright",
    "photographer",
    "attribution",
    "photocredit",
    "imagesource",
    "photosource",
}
# Words ending in these name a credit too ("imagecredit", "fotocopyright", "bildnachweis"), in several languages.
_CREDIT_ENDINGS = ("credit", "credits", "copyright", "credito", "creditos", "crédito", "créditos", "nachweis")
CAPTION_ITEMPROPS = {"caption"}
CREDIT_ITEMPROPS = {"copyrightholder", "copyrightnotice", "creditText".lower(), "creator", "author"}
# Gallery furniture inside caption blocks: "Image 1 of 23", "more", "less", "Close".
_COUNTER = re.compile(
    r"^(?:(?:(?:image|photo|picture|slide|foto|bild)s?\s*)?\d+\s*(?:of|/|von|de|di|sur)\s*\d+|"
    r"\d+\s+(?:images|photos|pictures|bilder|fotos|slides)"
    # "Slideshow (15 images)", "Bildergalerie: 12 Bilder": a gallery's button
    r"|(?:slideshow|(?:photo\s+)?gallery|galerie|bildergalerie|fotogalerie|fotostrecke)\s*[:(]?\s*\d+\s+"
    r"(?:images|photos|pictures|bilder|fotos|slides)\)?)$",
    re.I,
)
_TOGGLE = re.compile(
    r"(?:\s*(?:\.{3}|…))?\s*\b(?:(?:read|show|see)\s+)?(?:more|less)\s*$"
    # a link's notice for screen readers: "(Vergrößerung öffnet sich in einem neuen Fenster)", "(opens in a new window)"
    r"|\s*\((?:[^()]{0,30}\s)?(?:öffnet\s+sich\s+(?:in\s+einem|im)\s+neuen\s+fenster|opens\s+in\s+a\s+new\s+(?:window|tab))\)\s*$",
    re.I,
)
_TOGGLE_ONLY = re.compile(
    r"^[.\s]*(?:\.{3}|…)?\s*(?:(?:read|show|see|view|open)\s+)?(?:more|less|close|expand|collapse|hide|"
    r"caption|hide\s+caption|show\s+caption|enlarge|zoom|fullscreen|gallery|slideshow|expand\s*/\s*contract|"
    r"vergrößern|agrandir|ampliar|ingrandisci|next|previous|prev|weiter|zurück|suivant|précédent|siguiente|anterior|"
    r"(?:bildunterschrift|bildbeschreibung|bildtext|beschreibung|legende)\s+(?:einblenden|ausblenden|anzeigen))$",
    re.I,
)
# An advertisement's label standing where a caption would ("Anzeige", "Reklama").
_AD_LABEL = re.compile(
    r"^(?:advertisement|advertising|ad|anzeige|werbung|reklama|publicidad|publicité|pubblicità|publicidade|"
    r"sponsored|annonce|advertentie|mainos|reklam|reklame)$",
    re.I,
)
# A sponsored post's disclosure before what it advertises ("WERBUNG für Harbour Shampoo", "Anzeige: ...").
_AD_LEAD = re.compile(
    r"^(?:WERBUNG|ANZEIGE|SPONSORED|ADVERTISEMENT|PUBLICIDAD|PUBLICITÉ)\b|^(?i:werbung|anzeige|sponsored|advertisement)\s*[:|]"
)
_LEADING_COUNTER_ANY = re.compile(
    r"^(?:(?:image|photo|picture|slide|foto|bild)s?\s*)?\d+\s*(?:of|/|von|de|di|sur)\s*\d+\s+", re.I
)
_LEADING_COUNTER = re.compile(r"^(?:(?:image|photo|picture|slide)s?\s+)\d+\s*(?:of|/)\s*\d+\s+", re.I)
# Caption text and credit shorter than this are furniture ("Caption", "Photo").
MIN_CAPTION_CHARS = 3
MAX_CREDIT_CHARS = 150
# A box named "image"/"photo" with a picture in it holds a caption when its text has this many words.
PICTURE_BOX_WORDS = {"image", "images", "photo", "photos", "picture", "pic", "img", "foto", "media", "figure"}
MIN_BOX_CAPTION_WORDS = 4
# A caption that starts another one is its shortened copy only when it is at least this long.
MIN_PREFIX_CHARS = 40
# Blocks that can never be a caption however they are named (the whole page, the article's body).
_NEVER = {"html", "body", "main", "article", "header", "footer", "nav", "form", "table", "ul", "ol"}


_PICTURES = frozenset({"img", "picture", "video"})
_STORY_STRUCTURE = frozenset({"blockquote", "h1", "h2", "h3", "h4", "article"})
_NOT_CONTENT = ("script", "style", "noscript", "template", "textarea", "svg")
_CONTROLS = ("input", "button", "label", "select", "option")


def _itemprop(tag: Tag) -> set[str]:
    value = tag.get("itemprop")
    return {v.lower() for v in value.split()} if isinstance(value, str) else set()


def _word_count(tag: Tag, limit: int) -> int:
    return word_count_upto(tag, limit)


def is_caption_node(tag: Tag) -> bool:
    if tag.name == "figcaption" or (tag.name == "caption" and tag.find_parent("table") is None):
        return True  # a <caption> outside a table: a picture's caption written with the table's tag
    if tag.name in _NEVER:
        return False
    words = name_words(tag)
    if "caption" in words:
        words = name_words(tag, without=_TYPE_SCALE)
    if CAPTION_WORDS & words or CAPTION_ITEMPROPS & _itemprop(tag):
        return True
    if _DESCRIPTION_WORDS & words and _DESCRIBED_WORDS & words:
        return True  # "img-desc", "ImageDescriptionText", "multimedia_desc": a picture's description
    return any(w.endswith(_CAPTION_ENDINGS) for w in words)  # "thumbcaption", "photocaption", "imgcutline"


# A design system's type scale calls its small print "caption" ("caption-s5-fx", "text-caption", "type-caption",
# "mdc-typography--caption"): a font size given to dates and menus, not a picture's caption. A figure's text in
# such a block is still its caption, found as the text beside the figure's picture.
_TYPE_SCALE = re.compile(
    r"^(?:(?:text|typography|type|font|t|mdc-typography)-+caption"
    r"|caption-+(?:s?\d+|xs|sm|md|lg|xl|small|medium|large|regular|bold|light|semibold)(?:-.*)?)$",
    re.I,
)
_DESCRIPTION_WORDS = frozenset({"desc", "description", "descr", "beschreibung", "descripcion", "descricao"})
_DESCRIBED_WORDS = frozenset(
    {"img", "image", "photo", "foto", "picture", "pic", "media", "multimedia", "bild", "slideshow", "slide"}
)


_CAPTION_ENDINGS = ("caption", "cutline", "bildunterschrift")


def is_credit_node(tag: Tag) -> bool:
    if tag.name in _NEVER:
        return False
    words = name_words(tag)
    named = _credit_named(words)
    # Inside a figure or a caption, a block named for an author or a source names the photo's, and so does a
    # <cite> ("<figcaption>The bridge at dawn.</figcaption><cite>Ines Rowe/Harbour Times</cite>").
    marked = named or CREDIT_ITEMPROPS & _itemprop(tag) or _FIGURE_CREDIT_WORDS & words or tag.name == "cite"
    if not marked:
        return False  # most elements: decided without the caption tests below
    if is_caption_node(tag) and first_descendant(tag, (), is_caption_node) is not None:
        return False  # "<figcaption class=image__caption-credit>" holding the caption and the credit
    return named or tag.find_parent(_holds_a_photo) is not None


def _credit_named(words: frozenset[str]) -> bool:
    return bool(CREDIT_WORDS & words) or any(w.endswith(_CREDIT_ENDINGS) for w in words)


def _holds_a_photo(tag: Tag) -> bool:
    return tag.name in ("figure", "figcaption") or is_caption_node(tag) or _gallery_item(tag)


_FIGURE_CREDIT_WORDS = frozenset({"author", "autor", "auteur", "source", "quelle", "fotograf", "byline"})


def _short(tag: Tag) -> bool:
    return _word_count(tag, MAX_CAPTION_WORDS) <= MAX_CAPTION_WORDS


def _text(tag: Tag) -> str:
    return collapse(tag.get_text(" "))


# "<a>Ines Rowe</a>, about 90 euros": the space the text's join put between the link and its comma. No language
# writes a space before a comma or a full stop (French does before ":", "!" and "?", which stay).
_SPACE_BEFORE_STOP = re.compile(r"\s+([,.])(?=\s|$)")
_SPACE_INSIDE_BRACKETS = re.compile(r"\(\s+(?=\S)|(?<=\S)\s+\)")


def _clean_caption_text(text: str) -> str:
    text = _HIDDEN_LABEL.sub("", _LEADING_COUNTER.sub("", _LEADING_FILE_NAME.sub("", text.lstrip())))
    text = text.lstrip(" /|·•.")  # a credit's separator left over, or a stray full stop
    text = _TEMPLATE_COUNTER.sub("", text)  # "... © Ines Rowe --pageNumber-- von --total--"
    text = _USAGE_TERMS.sub("", text)  # "... © Harbour TV/Ines Rowe, honorarfrei - Verwendung gemäß der AGB ..."
    text = _SPACE_BEFORE_STOP.sub(r"\1", _FOOTNOTE_MARKS.sub("", text))
    text = _SPACE_INSIDE_BRACKETS.sub(lambda m: m.group(0).replace(" ", ""), text)  # "( WFP )" -> "(WFP)"
    if len(_CAPTION_LABEL.sub("", text).split()) >= MIN_LAYOUT_CAPTION_WORDS:
        text = _CAPTION_LABEL.sub("", text)
    previous = None
    while previous != text:
        previous = text
        text = _TOGGLE.sub("", text).rstrip()
    return _once(text.strip())


def _once(text: str) -> str:
    """A caption printed twice in one block (a slideshow's cloned slide, a mobile and a desktop copy): once."""
    words = text.split()
    half = len(words) // 2
    if half >= 2 and len(words) % 2 == 0 and words[:half] == words[half:]:
        return " ".join(words[:half])
    return text


# A press photo's terms of use after its credit, to the caption's end: "..., honorarfrei - Verwendung nur ...",
# "- For editorial use only".
_USAGE_TERMS = re.compile(
    r"\s*[,;–—-]?\s*\b(?:honorarfrei|royalty[- ]free|(?:for\s+)?editorial\s+use\s+only|free\s+for\s+editorial\s+use|"
    r"verwendung\s+(?:nur|gem[äa](?:ß|ss)|ausschlie(?:ß|ss)lich)|nur\s+(?:zur|für)\s+(?:redaktionelle|die\s+redaktionelle))\b.*$",
    re.I | re.S,
)
# An unfilled counter of a slideshow's template after a credit: "--pageNumber-- von --total--".
_TEMPLATE_COUNTER = re.compile(r"\s*--\w+--(?:\s+\w{1,4}\s+--\w+--)?")


def _clean_credit(text: str) -> Optional[str]:
    text = _TEMPLATE_COUNTER.sub("", _LEADING_COUNTER_ANY.sub("", collapse(text))).strip(" |·•-–—")
    if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
        text = text[1:-1].strip()
    if len(text) < 2 or len(text) > MAX_CREDIT_CHARS or COUNTER_LABEL.match(text):
        return None  # "Foto 1 de 1": the slideshow's counter in the credit's place
    return text


def extract_captions(root: BeautifulSoup | Tag, base_url: Optional[str] = None) -> list[CaptionData]:
    """Find the captions and credits under `root`, remove them (and the figures holding them) from the tree,
    and return the captions in page order without repeats. Captions inside page furniture (a sidebar of
    other stories, a footer) are removed but not kept: they belong to other articles."""
    for tag in [t for t in tags_in(root) if t.name in _NOT_CONTENT]:
        if not removed(tag):
            tag.decompose()
    site = _host(base_url)
    galleries: dict[int, bool] = {}
    photo_asides: dict[int, bool] = {}
    playlists: dict[int, int] = {}
    tags = list(tags_in(root))  # held, so that each tag's place stays known after it is removed
    order = {id(t): i for i, t in enumerate(tags)}
    # Read first: a caption block read below may hold a gallery's lightbox links, and is removed whole.
    in_attributes = _captions_in_attributes(root, site)
    found: list[tuple[Tag, CaptionData]] = []
    ends: dict[int, int] = {}  # a caption block's end: the place of the first element after it
    # a form's group of fields ("<legend><span class=field-label>with an amount of") holds no caption
    in_fields = {id(t) for fields in [*root.find_all("fieldset"), *_polls(root)] for t in tags_in(fields)}
    for tag in [t for t in tags if id(t) not in in_fields and _candidate(t)]:
        if removed(tag):
            continue
        if is_caption_node(tag):
            if tag.name != "figcaption" and not _short(tag):
                continue  # a wrapper that happens to mention "caption" in its class, not a caption
            if tag.name in _CONTROLS or not _text(tag):
                continue  # a "show caption" toggle or an empty slot: the figure's real caption comes later
            if tag.name != "figcaption" and tag.find_parent("figure") is None and _heading_only(tag):
                continue  # "<div class=c-module-caption><h2>Related topics</h2>": a section's heading
            group, figure = tag, tag.find_parent("figure")
            if figure is not None and is_credit_node(tag) and _short(figure):
                group = figure  # a credit marked as the caption ("<span class=copyright itemprop=caption>")
        elif _picture_with_text(tag):
            group, figure = tag, tag  # a picture with text beside it but no caption markup
        else:
            continue
        if figure is not None and _social_post(figure):
            # another account's post embedded in the story: its text is the story's, no photo caption; kept
            # for the body as plain blocks (an extractor leaves out what a figure holds)
            for block in [figure, *figure.find_all("figcaption")]:
                block.name = "div"
                block.attrs.pop("class", None)  # named for a caption, a block is left out of the body
            continue
        furniture = in_furniture(group) or _in_gallery_aside(group, galleries)
        furniture = furniture and not _photo_aside(group, photo_asides) and not _main_media(group)
        furniture = furniture or _teaser(group, site)
        furniture = furniture or _later_in_playlist(group, playlists)
        ends[id(group)] = order[id(group)] + 1 + len(tags_in(group))
        if not furniture and _credit_block(group, found, (tags, order, ends)):
            continue  # a caption block holding only a credit: the caption's beside it
        slides = _slides(group) if not furniture else []
        captions = _read_group(group, figure)
        if not furniture:
            found.extend(_other_slides(slides, captions) or [(group, c) for c in captions])
    found.extend(_captions_agreeing_with_alt(root))
    found.extend(_captions_cut_from_alt(root))
    found.extend(_captions_beside_pictures(root, site))
    found.extend(in_attributes)
    # Credits outside any caption ("<span class=credit>" under a picture): never body text. A credit block
    # that holds the caption too ("Paul Volcker ... in 2009. (Saul Loeb/AFP/Getty Images)") is kept as one;
    # a credit alone just after a caption without one is that caption's.
    for tag in [t for t in tags_in(root) if is_credit_node(t)]:
        if not removed(tag) and _short(tag):
            split = split_caption(_clean_caption_text(_text(tag)))
            if split and len(split[0]) >= MIN_CAPTION_CHARS and not in_furniture(tag):
                found.append((tag, caption_from_parts(split[0], split[1])))
            elif (credit := _clean_credit(_text(tag))) and not split:
                _credit_beside_caption(found, tags, order, ends, tag, credit)
            tag.decompose()
    in_page_order = [c for _, c in sorted(found, key=lambda pair: order.get(id(pair[0]), len(order)))]
    heading = first_heading(root)
    kept = [c for c in _unique(_without_labels(in_page_order, heading and _text(heading))) if is_caption_text(c.text)]
    if not kept:
        kept = _credited_alt_caption(root, site)
    for caption in kept:
        caption.image_url = _absolute(caption.image_url, base_url)
    spread_article_credit(root, kept)  # "Fotos: Harbour Works" once for the whole article
    return kept


MAX_LABEL_WORDS = 4  # a text this short under this many pictures is a label, not a caption
MIN_LABEL_REPEATS = 3


# Section headings; a template may set a caption in a small heading ("<div class=bildunterschrift><h6>").
_HEADINGS = ("h1", "h2", "h3")


# A form this short holding choices is a poll or a survey ("Is the harbour bridge safe?" ( ) Yes ( ) No), not a
# page wrapped whole in one form.
MAX_POLL_WORDS = 120


def _polls(root: BeautifulSoup | Tag) -> list[Tag]:
    """Short forms offering choices (radio buttons, check boxes): their question and answers are no captions,
    however the template names their cells."""
    return [
        form
        for form in root.find_all("form")
        if form.find("input", attrs={"type": re.compile(r"^(?:radio|checkbox)$", re.I)}) is not None
        and word_count_upto(form, MAX_POLL_WORDS) < MAX_POLL_WORDS
    ]


def _heading_only(tag: Tag) -> bool:
    """All the text of a block outside any figure is in section headings: a box's title, named "caption" by a
    template ("c-module-caption")."""
    if tag.name in _HEADINGS:
        return True
    headings = [t for t in tags_in(tag) if t.name in _HEADINGS]
    return bool(headings) and sum(len(_text(h)) for h in headings) >= len(_text(tag)) - 1


def _without_labels(captions: list[CaptionData], headline: Optional[str]) -> list[CaptionData]:
    """Drop a short text standing under three or more pictures ("Download graphic", "Enlarge"): a control's
    label repeated by the page's template, not what any one photo shows; so is the story's headline set under
    each picture of its slider."""
    pictures: dict[str, set] = {}
    for caption in captions:
        if headline and _key(headline) == _key(caption.text):
            # the headline itself in three caption boxes is a template's, whether or not their pictures are known
            pictures.setdefault(_key(caption.text), set()).add(caption.image_url or id(caption))
        elif (
            len(caption.text.split()) <= MAX_LABEL_WORDS
            or headline
            and _agreement(headline, caption.text) >= ALT_AGREEMENT
        ):
            pictures.setdefault(_key(caption.text), set()).add(caption.image_url)
    return [c for c in captions if len(pictures.get(_key(c.text), ())) < MIN_LABEL_REPEATS]


_CREDIT_LINE_TAGS = frozenset({"div", "span", "p", "small"})


def _figure_credits(figure: Tag, group: Tag) -> list[Tag]:
    """Credit blocks of a figure outside its caption block: a second figcaption holding only the credit
    ("<figcaption class=below-caption>"), a credit line of its own ("<div class=copy>© Getty Images</div>")."""
    inside = tags_in(figure)
    return [t for t in inside if t.name == "figcaption" and t is not group and _only_credit(t)] + [
        t for t in inside if t.name in _CREDIT_LINE_TAGS and _credit_leaf(t, group)
    ]


def _credit_leaf(tag: Tag, group: Tag) -> bool:
    """A short block of the figure outside its caption block, holding nothing but a credit."""
    if tag is group or any(p is group for p in tag.parents) or first_descendant(tag, ("div", "p", "figcaption")):
        return False
    if any(d is group for d in tag.descendants):
        return False
    return len(_text(tag)) <= MAX_CREDIT_CHARS and _only_credit(tag)


def _only_credit(block: Tag) -> bool:
    return first_descendant(block, _PICTURES) is None and is_credit(_clean_caption_text(_text(block)).strip(" ()"))


def _credit_block(group: Tag, found: list, places: tuple) -> bool:
    """A caption block holding only a credit, no picture ("<figcaption class=below-caption>Photo: Harbour
    Times</figcaption>" after the caption's own block): given to the caption beside it, then removed."""
    if not _only_credit(group):
        return False
    credit = _clean_credit(_clean_caption_text(_text(group)))
    if credit and _credit_beside_caption(found, *places, group, credit):
        group.decompose()
        return True
    return False


MAX_CREDIT_GAP = 8  # elements between a caption block and a credit standing alone beside it


def _credit_beside_caption(found: list, tags: list[Tag], order: dict, ends: dict, credit_tag: Tag, credit: str) -> bool:
    """Give a credit standing alone to the caption just before it ("<p><em class=caption>The bridge</em></p>
    <p><em class=copyright>Ines Rowe</em></p>"), or else just after it (a credit over the picture, the caption
    under it), when that caption has none and no text stands between."""
    at = order.get(id(credit_tag))
    if at is None:
        return False
    after = at + 1 + len(tags_in(credit_tag))
    spans = [(ends.get(id(g), order.get(id(g), -1) + 1), order.get(id(g), -1), k) for k, (g, _) in enumerate(found)]
    before = [(end, k) for end, _, k in spans if 0 <= end <= at and at - end <= MAX_CREDIT_GAP]
    later = [(start, k) for _, start, k in spans if start >= after and start - after <= MAX_CREDIT_GAP]
    candidates = []  # (the elements between, the caption's place in `found`): the one before first
    if before:
        end, k = max(before)
        candidates.append((tags[end:at], k))
    if later:
        start, k = min(later)
        candidates.append((tags[after:start], k))
    for gap, k in candidates:
        group, caption = found[k]
        if caption.credit:
            continue  # that caption has its own (a credit after it may be the next picture's, over it)
        if any(collapse("".join(t.find_all(string=True, recursive=False))) for t in gap if not removed(t)):
            continue  # text between the caption and the credit: not the caption's
        found[k] = (group, _with_credit(caption, credit))
        return True
    return False


# Attributes that hold a picture's address, lazy-loading ones first (`src` is often a placeholder then).
_SRC_ATTRS = ("data-src", "data-original", "data-lazy-src", "data-full-src", "data-hi-res-src", "src")
_PLACEHOLDER = re.compile(r"(?:^data:|blank|spacer|pixel|preload|placeholder|loading|1x1|transparent)", re.I)


def _image_address(scope: Tag) -> Optional[str]:
    """The address of the first picture in `scope` (as written: maybe relative), or None."""
    img = scope if scope.name in ("img", "amp-img") else scope.find(("img", "amp-img"))
    candidates: list[str] = []
    if img is not None:
        candidates += [str(img.get(a) or "") for a in _SRC_ATTRS]
        srcset = img.get("srcset") or img.get("data-srcset")
        if isinstance(srcset, str) and srcset.strip():
            candidates.append(srcset.split(",")[0].split()[0])
    source = scope.find("source")
    if source is not None and isinstance(source.get("srcset"), str) and source["srcset"].strip():
        candidates.append(source["srcset"].split(",")[0].split()[0])
    for candidate in candidates:
        candidate = candidate.strip()
        if candidate and not _PLACEHOLDER.search(candidate.rsplit("/", 1)[-1]) and not candidate.startswith("data:"):
            return candidate
    return None


def _absolute(address: Optional[str], base_url: Optional[str]) -> Optional[str]:
    """An http(s) address for a picture: relative ones resolved against the page's own address; anything
    else (javascript:, data:, a relative address on a page with none) is dropped."""
    if not address or len(address) > 2000 or re.search(r"\s", address):
        return None
    if base_url and not address.startswith(("http://", "https://")):
        try:
            address = urljoin(base_url, address)
        except ValueError:
            return None
    return address if address.startswith(("http://", "https://")) else None


_IMAGE_FILE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif)(?:[?#].*)?$", re.I)


def _photo_aside(tag: Tag, seen: dict[int, bool]) -> bool:
    """Each block of furniture around a caption holds just this one photo, its caption and no link or heading of
    its own: a photo set beside the story's text ("<aside class=story-enhancement><figure>", an embed named
    "related"), not a sidebar or a box of other stories. Each block is judged once, as the page came (before
    the captions read in it were taken out)."""
    around = [p for p in tag.parents if p.name != "[document]" and is_furniture(p)]
    if not around or any(p.name in ("nav", "footer") for p in around):
        return False
    for block in around:
        if id(block) not in seen:
            inside = tags_in(block)
            pictures = sum(t.name in ("img", "amp-img", "video") for t in inside)
            linked = any(t.name == "a" and t.get("href") for t in inside)
            headed = any(
                t.name in _ALL_HEADINGS and t is not tag and not any(p is tag for p in t.parents) for t in inside
            )
            own = word_count_upto(block, 200) - word_count_upto(tag, 200)
            alone = pictures == 1 and own <= 3 and not headed
            seen[id(block)] = not linked and (alone or pictures > 1 and _story_gallery(block))
        if not seen[id(block)]:
            return False
    return True


# "main-media", "primary-media", "mainphoto": a block named for the story's own main picture ("lead-image" and
# "hero" are not: teasers in boxes of other stories are named so too).
_MAIN_WORDS = ("main", "primary")
_MEDIA_WORDS = ("media", "photo", "image", "picture")


def _main_media(tag: Tag) -> bool:
    """Inside a block named for the story's main picture ("<div id=story-related-media><div id=story-main-media>
    <img><cite class=caption>"): the story's photo (one photo; a video's title is no caption), even where the
    page keeps it with related links. Only the blocks between the caption and the nearest furniture count, and
    a teaser (a caption linking to another story) stays a teaser."""
    for parent in tag.parents:
        if parent.name == "[document]" or is_furniture(parent):
            return False
        words = name_words(parent)
        if any(m in words and d in words for m in _MAIN_WORDS for d in _MEDIA_WORDS) or any(
            w.startswith(_MAIN_WORDS) and w.endswith(_MEDIA_WORDS) and len(w) <= 12 for w in words
        ):
            inside = tags_in(parent)
            one_photo = sum(t.name in ("img", "amp-img") for t in inside) == 1
            return one_photo and not any(t.name == "video" or "video" in name_words(t) for t in inside)
    return False


_ALL_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# A paragraph of the story has at least this many words; a gallery is set in the story when such paragraphs
# stand right before and after it (or the wrapper it is the last or first block of, this many levels up).
MIN_STORY_PARAGRAPH_WORDS = 12
MAX_WRAPPER_LEVELS = 2


def _story_gallery(block: Tag) -> bool:
    """A gallery of the story's photos: set in the story's text, its captions say what each photo shows and
    none carries a heading of its own (a gallery of other news titles each item)."""
    captions = block.find_all("figcaption")
    return not any(first_descendant(c, _ALL_HEADINGS) for c in captions) and _between_story_text(block)


def _between_story_text(block: Tag) -> bool:
    """A gallery of the story's own photos set in its text: a paragraph of the story stands before and after
    it. A gallery of other news ("In pictures") stands beside the story or after its end."""
    for _ in range(MAX_WRAPPER_LEVELS + 1):
        before, after = block.find_previous_sibling(), block.find_next_sibling()
        if _story_paragraph(before) and _story_paragraph(after):
            return True
        block = block.parent
        if block is None or block.name in _NEVER:
            return False
    return False


def _story_paragraph(tag: Optional[Tag]) -> bool:
    if tag is None or tag.name not in ("p", "div") or is_furniture(tag) or first_descendant(tag, _PICTURES):
        return False
    words = word_count_upto(tag, MIN_STORY_PARAGRAPH_WORDS)
    linked = sum(word_count_upto(a, MIN_STORY_PARAGRAPH_WORDS) for a in tag.find_all("a"))
    return words >= MIN_STORY_PARAGRAPH_WORDS and linked * 2 < words


MAX_PLAYLIST_DEPTH = 8


def _later_in_playlist(tag: Tag, firsts: dict[int, int]) -> bool:
    """A video playlist's first item is the story's own video; the items after it are other stories'.
    `firsts` keeps each playlist's first caption block."""
    for depth, parent in enumerate(tag.parents):
        if depth >= MAX_PLAYLIST_DEPTH or parent.name in ("[document]", "body", "article", "main"):
            return False
        if "playlist" in name_words(parent):
            return firsts.setdefault(id(parent), id(tag)) != id(tag)
    return False


def _in_gallery_aside(tag: Tag, seen: dict[int, bool]) -> bool:
    """Inside furniture (an `<aside>`, a related box) that is big only by its captions: a gallery of other
    news beside the story ("News in pictures"), whose many captions lift it past the words of a wrapper.
    `seen` keeps each furniture block's answer, so a gallery of many figures is counted once."""
    for parent in tag.parents:
        if parent.name == "[document]" or not is_furniture(parent):
            continue
        if id(parent) not in seen and (
            holds_headline(parent) or wraps_main_column(parent) or holds_running_text(parent)
        ):
            seen[id(parent)] = False  # a layout wrapper around the story, named for the sidebar beside it
        if id(parent) not in seen:
            words = word_count_upto(parent, 20 * MAX_FURNITURE_WORDS)
            in_captions = sum(word_count_upto(c, words) for c in parent.find_all("figcaption"))
            seen[id(parent)] = words - in_captions < MAX_FURNITURE_WORDS
        if seen[id(parent)]:
            return True
    return False


# A web archive's copy of a page links to the archive's copies of other pages ("https://web.archive.org/web/
# 20190517125742/http://www.example.org/story"): the site is the one in the archived address.
_ARCHIVED_ADDRESS = re.compile(r"/web/\d{4,14}[a-z_]*/+((?:https?:/+)?[^/]+)", re.I)


def _host(address: Optional[str]) -> Optional[str]:
    """The site an address leads to, without "www."; None for a relative address (or a malformed one)."""
    archived = _ARCHIVED_ADDRESS.search(address or "")
    if archived:
        inner = re.sub(r"^(https?:)/+", r"\1//", archived.group(1), flags=re.I)
        address = inner if inner.lower().startswith("http") else "http://" + inner
    try:
        host = urlsplit(address or "").hostname
    except ValueError:  # a malformed address ("http://[x"): no host
        return None
    return host.removeprefix("www.") if host else None


def _same_site(link: Tag, site: Optional[str]) -> bool:
    """A link to a page of this site (relative, or to the page's own host): where its other stories are."""
    href = str(link.get("href") or "").strip()
    host = _host(href)
    return host is None or (
        site is not None and (host == site or host.endswith("." + site) or site.endswith("." + host))
    )


# A caption whose words are mostly those of links to this site's other pages is a teaser: "Television <a>Soap
# star's family at home</a> 15 April" under a thumbnail. A link to another site (a shop, a source) in a caption
# is part of what it says.
TEASER_LINK_SHARE = 0.7


def _teaser(group: Tag, site: Optional[str] = None) -> bool:
    """A caption that is another story's teaser: inside a link to another page (a link to the picture file
    itself is a lightbox, not a teaser), whose whole text is a link, or mostly links to this site's pages."""
    link = group.find_parent("a")
    if link is not None and _leads_away(link):
        return True
    away = [a for a in group.find_all("a") if _leads_away(a)]
    whole = _key(_text(group))
    links = " ".join(_text(a) for a in away)
    if links and _key(links) == whole:
        return True
    # a card covered by one empty link to another story, titled with the card's headline ("<a href=/other
    # title='Gulls return' class=card-link></a><img><div>Gulls return</div><div>Summary ...</div>")
    titles = [_key(str(a.get("title") or "")) for a in away if not _text(a)]
    if any(len(title.split()) >= MIN_LAYOUT_CAPTION_WORDS and whole.startswith(title) for title in titles):
        return True
    inner = _key(" ".join(_text(a) for a in away if _same_site(a, site)))
    return bool(inner) and len(inner) >= TEASER_LINK_SHARE * len(whole)


def _leads_away(link: Tag) -> bool:
    """A link to another page: not to a place on this one, a script, or the picture's own file (a lightbox)."""
    href = str(link.get("href") or "").strip()
    return bool(href) and not href.startswith(("#", "javascript:")) and not _IMAGE_FILE.search(href)


MIN_DATA_ROW_CELLS = 3


def _table_row_entry(img: Tag, block: Tag) -> bool:
    """The picture and the text are cells of one row of a data table (a league table's badge beside the team's
    name, a party's logo beside its votes): an entry, not a photo and its caption."""
    row = img.find_parent("tr")
    if row is None or row is not block.find_parent("tr"):
        return False
    return len(row.find_all(["td", "th"], recursive=False)) >= MIN_DATA_ROW_CELLS


def _captions_agreeing_with_alt(root: BeautifulSoup | Tag) -> list[tuple[Tag, CaptionData]]:
    """A picture without caption markup whose next text says what its `alt` (or `title`) says: a caption set
    as a plain block after the picture ("<p><img alt='Figure 2: ...'></p><p><em>Figure 2: ...</em></p>").
    The text must be short, not a heading, not a link (another story's teaser), not page furniture."""
    found: list[tuple[Tag, CaptionData]] = []
    for img in [t for t in tags_in(root) if t.name == "img"]:
        if removed(img) or _small_picture(img) or any(_NOT_PHOTO_WORDS & name_words(p) for p in _near(img)):
            continue  # an author's head shot with the byline beside it ("<div class=avatar><img alt='Dana Whitlow'>")
        described = [d for d in (str(img.get(a) or "").strip() for a in ("alt", "title")) if len(d.split()) >= 3]
        if not described:
            continue
        block = _next_text_block(img)
        if block is None or in_furniture(block) or _table_row_entry(img, block):
            continue
        text = _clean_caption_text(_text(block))
        if not text or len(text.split()) > MAX_ALT_CAPTION_WORDS or _BYLINE_START.match(text):
            continue
        if max(_agreement(d, text) for d in described) < ALT_AGREEMENT:
            continue
        caption = caption_from_text(text)
        if not caption.credit and (credit := _described_credit(img, caption.text)):
            caption = caption_from_parts(caption.text, credit)
        caption.image_url = _image_address(img)
        if len(caption.text) >= MIN_CAPTION_CHARS:
            found.append((img, caption))
        block.decompose()
    return found


_SLIDESHOW_WORDS = frozenset({"slideshow", "carousel", "slider", "slides"})
# A slideshow's slides are found this many levels above its one caption box at most.
MAX_SLIDESHOW_LEVELS = 10


def _slides(group: Tag) -> list[tuple[Tag, str]]:
    """The slides of a slideshow around a caption box holding no picture: the pictures of the nearest block (at
    most a few levels up) holding two or more, each with its description, when every one has one."""
    if first_descendant(group, _PICTURES) is not None or not _SLIDESHOW_WORDS & name_words(group):
        return []  # only a caption box named for the slideshow shows each slide's description
    box = group
    for _ in range(MAX_SLIDESHOW_LEVELS):
        box = box.parent
        if box is None or box.name in _NEVER:
            return []
        pictures = [t for t in tags_in(box) if t.name == "img" and not removed(t)]
        if len(pictures) >= 2:
            alts = [
                _clean_caption_text(collapse(BeautifulSoup(str(t.get("alt") or ""), "html.parser").get_text(" ")))
                for t in pictures
            ]
            if any(len(alt.split()) < MIN_LAYOUT_CAPTION_WORDS - 1 for alt in alts):
                return []  # not every picture is described: pictures of another kind share this box
            return list(zip(pictures, alts, strict=True))
    return []


def _other_slides(slides: list[tuple[Tag, str]], captions: list[CaptionData]) -> list[tuple[Tag, CaptionData]]:
    """A slideshow showing one caption box for all its slides ("<ul><li><figure><img alt='The ferry at dawn'>
    </figure></li><li>...</li></ul><div class=slideshow-description>The ferry at dawn</div>"): the box says what
    the shown slide's `alt` says, and the page's script writes each other slide's `alt` into it in turn. So each
    slide's description is its caption. Each caption comes with its slide (the shown one in its place)."""
    if len(captions) != 1 or not slides:
        return []
    agreement = [_agreement(alt, captions[0].text) for _, alt in slides]
    shown = max(range(len(slides)), key=agreement.__getitem__)
    if agreement[shown] < ALT_AGREEMENT:
        return []
    captions[0].image_url = captions[0].image_url or _image_address(slides[shown][0])
    return [
        (img, captions[0] if i == shown else _with_image(caption_from_text(alt), img))
        for i, (img, alt) in enumerate(slides)
    ]


def _with_image(caption: CaptionData, img: Tag) -> CaptionData:
    caption.image_url = _image_address(img)
    return caption


# A link naming where the photo comes from, set before its caption: "AP Photo:", "Reuters Photo:", "Photo:".
_PHOTO_LABEL = re.compile(r"^(?:[\w&.'’/ -]{1,30}\s)?(?:photo|foto|picture|image)s?\s*:$", re.I)
_CUT = re.compile(r"\s*(?:\.{3}|…)$")
MIN_CUT_CAPTION_WORDS = 5


def _captions_cut_from_alt(root: BeautifulSoup | Tag) -> list[tuple[Tag, CaptionData]]:
    """A photo's caption shortened under it, after a label naming the photo's source ("<a><img alt='The ferry at
    dawn on Friday, as the harbour reopened. (AP Photo/Ines Rowe)'></a><div><a>AP Photo:</a> The ferry at
    dawn on...</div>"): the text as shown, cut where the page cut it, is the start of the picture's `alt`.
    The label is the credit the page shows."""
    found: list[tuple[Tag, CaptionData]] = []
    for img in [t for t in tags_in(root) if t.name == "img"]:
        alt = _key(str(img.get("alt") or ""))
        holder = img.parent if img.parent is not None and img.parent.name == "a" else img
        block = holder.find_next_sibling()
        if len(alt.split()) < MIN_CUT_CAPTION_WORDS or block is None or block.name not in _BLOCKS or removed(block):
            continue
        label = next((c for c in block.children if isinstance(c, Tag) or str(c).strip()), None)
        if not isinstance(label, Tag) or label.name != "a" or not _PHOTO_LABEL.match(_text(label)):
            continue
        shown = collapse(_text(block)[len(_text(label)) :])
        cut = _key(_CUT.sub("", shown)).split()
        if not _CUT.search(shown) or len(cut) < MIN_CUT_CAPTION_WORDS or not alt.startswith(" ".join(cut[:-1])):
            continue  # not shortened, or not the start of what the picture's description says
        caption = caption_from_parts(_clean_caption_text(_CUT.sub("", shown)), _text(label).rstrip(" :"))
        caption.image_url = _image_address(img)
        found.append((block, caption))
        block.decompose()
    return found


# A picture counts as the article's photo unless its width or height attribute says it is smaller than
# this (an icon, an avatar, a rating's stars).
MIN_PHOTO_PIXELS = 100
# Class or id words of a box around a picture that is not the article's photo.
_NOT_PHOTO_WORDS = frozenset(
    {"author", "avatar", "profile", "byline", "logo", "icon", "ad", "ads", "advert", "sponsor"}
)
# A caption told by layout alone has at least this many words (a brand's name under its logo has fewer).
MIN_LAYOUT_CAPTION_WORDS = 3
_BYLINE_START = re.compile(r"^(?:by|von|par|por|di|door|av|af)\s", re.I)
_EMPHASIS = frozenset({"em", "i", "small", "center", "cite"})


# "site-logo.png", "ts_printlogo.png", alt="Harbour Times logo": the site's sign, not a photo.
_LOGO = re.compile(r"logo(?![a-z])", re.I)


def _logo(img: Tag) -> bool:
    name = urlsplit(str(img.get("src") or "")).path.rsplit("/", 1)[-1]
    return bool(_LOGO.search(name) or _LOGO.search(str(img.get("alt") or "")))


def _small_picture(img: Tag) -> bool:
    for attribute in ("width", "height"):
        value = str(img.get(attribute) or "").strip().removesuffix("px")
        if value.isdigit() and int(value) < MIN_PHOTO_PIXELS:
            return True
    return False


def _captions_beside_pictures(root: BeautifulSoup | Tag, site: Optional[str]) -> list[tuple[Tag, CaptionData]]:
    """Captions set without caption markup, told by layout: the short text sharing a small box with one
    picture and nothing else ("<div><img><span>Text</span></div>", a table cell under the picture), or a short
    emphasised or credited line standing right after a picture in the story ("<p><img></p><p><em>Text</em></p>")."""
    found: list[tuple[Tag, CaptionData]] = []
    for img in [t for t in tags_in(root) if t.name == "img"]:
        if removed(img) or _small_picture(img) or in_furniture(img) or img.find_parent("fieldset") is not None:
            continue  # a form's fields hold no photo of the story
        holder, box = img, img.parent
        while box is not None and box.name not in _NEVER and not _text(box):
            holder, box = box, box.parent
        if box is None or any(_NOT_PHOTO_WORDS & name_words(t) for t in _up_to(img, box)) or _logo(img):
            continue  # an author's head shot, a logo, an ad (named on the picture or a block up to its box)
        block = _box_caption(box, holder) or _line_after(holder)
        if block is None or _teaser(block, site):
            continue
        text = _clean_caption_text(_text(block))
        caption = caption_from_text(text)
        first = _credit_first(block)
        if first is not None:
            caption = caption_from_parts(_clean_caption_text(first[0]), first[1])
        if (
            len(caption.text.split()) >= MIN_LAYOUT_CAPTION_WORDS
            and not caption.text.endswith(":")  # a line introducing what follows ("And some more:")
            and is_caption_text(caption.text)
            and not _BYLINE_START.match(text)
        ):
            caption.image_url = _image_address(img)
            found.append((img, caption))
            block.decompose()
    return found


# Where galleries and lightboxes keep the caption they show when a photo is opened.
# "data-caption", "data-image-caption", "data-fresco-caption": a gallery's or lightbox's caption for the photo.
_CAPTION_ATTRIBUTE = re.compile(r"^(?:data-(?:[a-z]+-)*)?caption$")
# An explicit caption attribute may be short ("Group photo 1"); a title shown by a lightbox or slider, not.
MIN_ATTRIBUTE_CAPTION_WORDS = 2
_CREDIT_ATTRIBUTES = ("data-credit", "data-photo-credit", "data-image-credit", "data-copyright")


def _captions_in_attributes(root: BeautifulSoup | Tag, site: Optional[str]) -> list[tuple[Tag, CaptionData]]:
    """Captions a gallery or lightbox shows from an attribute of the photo's element ("<li data-caption='The
    ferry at dawn. (AP Photo/Ines Rowe)'><img ...></li>", "<a href=big.jpg data-caption=...>")."""
    found: list[tuple[Tag, CaptionData]] = []
    for tag in tags_in(root):
        value, least = _caption_attribute(tag), MIN_ATTRIBUTE_CAPTION_WORDS
        if not value and tag.name == "a" and _lightbox_link(tag):
            value, least = _lightbox_text(tag), MIN_LAYOUT_CAPTION_WORDS
        if not value or removed(tag) or in_furniture(tag) or _teaser(tag, site):
            continue
        img = tag if tag.name == "img" else first_descendant(tag, ("img",))
        if img is None and not (tag.name == "a" and _IMAGE_FILE.search(str(tag.get("href") or ""))):
            continue
        text = _clean_caption_text(collapse(BeautifulSoup(value, "html.parser").get_text(" ")))
        if len(text.split()) < least or len(text.split()) > MAX_CAPTION_WORDS or _NAMES_A_FILE.search(text):
            continue  # too short or long, or a file's name ("Harbour.jpg (21 KB)")
        if least > MIN_ATTRIBUTE_CAPTION_WORDS and _names_the_page(tag, text):
            continue  # a lightbox link's title that is the story's (or the product's) headline, not a caption
        caption = caption_from_text(text)
        credit = next((tag.get(a) for a in _CREDIT_ATTRIBUTES if isinstance(tag.get(a), str)), None)
        if credit and _clean_credit(credit) and not caption.credit:
            caption = caption_from_parts(caption.text, _clean_credit(credit))
        if is_caption_text(caption.text):
            caption.image_url = _image_address(img) if img is not None else str(tag.get("href"))
            found.append((tag, caption))
    return found


# A credit's mark in a picture's description: "©", "Bildquelle:", "Foto:", "Photo:".
_CREDIT_MARK = re.compile(r"©|\b(?:bildquelle|fotoquelle|foto|photo|bild|image|credit)s?\s*:", re.I)


def _credited_alt_caption(root: BeautifulSoup | Tag, site: Optional[str]) -> list[CaptionData]:
    """On a page that shows no caption, the lead photo's description when it ends in the photo's credit ("The
    ferry at dawn | Bildquelle: dpa", "... © Ines Rowe"): a caption written by the editor, shown on hover. Only
    the first photo of the page's content is looked at; other pictures' descriptions are often tooltips."""
    for img in tags_in(root):
        if img.name != "img" or removed(img) or _small_picture(img) or _logo(img) or in_furniture(img):
            continue
        if img.find_parent("a") is not None or any(_TEASER_PHOTO_WORDS & name_words(p) for p in img.parents):
            continue  # a teaser's picture, an author's head shot, a picture that links elsewhere
        alt = collapse(str(img.get("alt") or ""))
        # "The ferry at dawn © Ines Rowe/Harbour Times": a copyright sign opens the credit after any word
        split = split_caption(alt) or ((m["text"], m["credit"]) if (m := _TRAILING_COPYRIGHT.match(alt)) else None)
        if split is None or not _CREDIT_MARK.search(split[1]):
            return []
        caption = caption_from_parts(_clean_caption_text(split[0]), split[1])
        if len(caption.text.split()) < MIN_LAYOUT_CAPTION_WORDS or not is_caption_text(caption.text):
            return []
        caption.image_url = _image_address(img)
        return [caption]
    return []


_TEASER_PHOTO_WORDS = _NOT_PHOTO_WORDS | {"teaser", "teaserbox", "promo"}


def _names_the_page(tag: Tag, text: str) -> bool:
    heading = first_heading(tag)
    return heading is not None and _agreement(_text(heading), text) >= ALT_AGREEMENT


def _lightbox_text(link: Tag) -> Optional[str]:
    """What a lightbox shows under the picture: the link's title."""
    return next((v for a in ("data-title", "title") if isinstance(v := link.get(a), str) and v.strip()), None)


def _caption_attribute(tag: Tag) -> Optional[str]:
    return next((v for a, v in tag.attrs.items() if isinstance(v, str) and _CAPTION_ATTRIBUTE.match(a)), None)


def _lightbox_link(link: Tag) -> bool:
    """A link that opens its picture in a lightbox, which shows the link's title as the caption
    ("<a href=big.jpg data-lightbox=gallery title='The ferry at dawn.'>", "rel=lightbox", "data-fancybox")."""
    if not _IMAGE_FILE.search(str(link.get("href") or "")):
        return False
    rel = link.get("rel")
    rel_words = " ".join(rel) if isinstance(rel, list) else str(rel or "")
    if (
        any(a.startswith(("data-lightbox", "data-fancybox", "data-fresco")) for a in link.attrs)
        or "lightbox" in rel_words
    ):
        return True
    return any(w.endswith(_LIGHTBOX_NAMES) or w.startswith("zoom") for w in name_words(link))


# Class names of the scripts that open a picture in a lightbox ("fancybox", "js-image-popup", "glightbox",
# "highslide"), or of a link that opens it larger ("zoomimage").
_LIGHTBOX_NAMES = (
    "lightbox",
    "fancybox",
    "fresco",
    "colorbox",
    "swipebox",
    "photoswipe",
    "popup",
    "magnific",
    "highslide",
)


# A picture's own box is named at most this many levels above it ("<div class=avatar><a><img>").
NEAR_LEVELS = 3


def _near(tag: Tag) -> list[Tag]:
    """`tag` and its nearest few parents."""
    return [tag, *itertools.islice(tag.parents, NEAR_LEVELS)]


def _up_to(tag: Tag, top: Tag) -> Iterable[Tag]:
    """`tag` and its parents up to `top`, both included."""
    yield tag
    for parent in tag.parents:
        yield parent
        if parent is top:
            return


def _box_caption(box: Tag, holder: Tag) -> Optional[Tag]:
    """`box` (the smallest block around the picture holding text) when it holds this one picture, a short text
    in elements of its own and no heading or link text."""
    if box.name in ("p", "li", "a", *_CONTROLS) or box.find_parent(("a", "button", "math")) is not None:
        return None
    words = _word_count(box, MAX_ALT_CAPTION_WORDS)
    if words < MIN_BOX_CAPTION_WORDS or words > MAX_ALT_CAPTION_WORDS:
        return None
    if any(isinstance(c, NavigableString) and c.strip() for c in box.children):
        return None  # text running beside the picture: a paragraph with a picture in it
    texts = [c for c in box.children if isinstance(c, Tag) and c is not holder and _text(c)]
    if len(texts) == 2 and _credit_first(box) is not None:
        texts = texts[1:]  # the credit's line, then the caption's ("<img><div>Ines Rowe/AP</div><div>Text</div>")
    if len(texts) != 1 or first_descendant(box, _CONTROLS + ("math", "time")) is not None:
        return None  # several lines (a teaser's title, author and date), a button's label, a formula
    if _story_named(box):
        return None  # a slideshow story's slide: its picture, then the story's text ("<div class=entry-content>")
    if sum(1 for t in box.find_all("img") if not _small_picture(t)) != 1 or _links_or_headings(box):
        return None
    return box


# Names of the story's text ("entry-content", "article-body", "post-content"): what such a block holds is the
# story, unless the name says it is a picture's ("media-body", "image-content").
_STORY_TEXT_WORDS = frozenset({"content", "entry", "body"})


def _story_named(block: Tag) -> bool:
    return any(
        _STORY_TEXT_WORDS & words and not (PICTURE_BOX_WORDS | CAPTION_WORDS) & words
        for words in (name_words(t) for t in (block, *block.find_all(True)))
    )


def _line_after(holder: Tag) -> Optional[Tag]:
    """The element right after the picture's holder when it is a short line in emphasis (italics, small
    print, centred) or one ending in a photo credit."""
    sibling = holder.next_sibling
    while sibling is not None and (not isinstance(sibling, Tag) or sibling.name == "br" or _control_line(sibling)):
        if not isinstance(sibling, Tag) and str(sibling).strip():
            return None
        sibling = sibling.next_sibling  # a picture's buttons ("Expand / Contract", "Zoom") come before its caption
    if sibling is None or sibling.name not in _BLOCKS or _links_or_headings(sibling):
        return None
    words = _word_count(sibling, MAX_ALT_CAPTION_WORDS)
    if not words or words > MAX_ALT_CAPTION_WORDS or first_descendant(sibling, _PICTURES) is not None:
        return None
    text = _text(sibling)
    inner = sibling if sibling.name in _EMPHASIS else first_descendant(sibling, _EMPHASIS)
    if inner is not None and _key(_text(inner)) == _key(text):
        return sibling
    if _FIGURE_LABEL.match(text):
        return sibling  # "Figure 2: The profile of the snow pack"
    return sibling if split_caption(text) or _credit_first(sibling) else None


# A numbered figure's label opening its caption ("Figure 2:", "Abb. 3.", "Abbildung 1:").
_FIGURE_LABEL = re.compile(
    r"^(?:fig(?:ure)?|abb(?:ildung)?|bild|image|photo|foto|grafik|chart|tabelle|table|gráfico|figura)\.?\s*\d+\s*[:.]\s+\S",
    re.I,
)


def _control_line(tag: Tag) -> bool:
    """A picture's button or counter standing between it and its caption."""
    text = _text(tag)
    return tag.name in _CONTROLS or bool(text) and (_TOGGLE_ONLY.match(text) or _COUNTER.match(text)) is not None


def _credit_first(block: Tag) -> Optional[tuple[str, str]]:
    """(caption, credit) for a block whose first line is the photo's credit alone and whose second is the
    caption ("<div><div>Ines Rowe / Harbour Times</div><div>The ferry at dawn.</div></div>")."""
    lines = [c for c in block.children if isinstance(c, Tag) and _text(c)]
    if len(lines) != 2 or any(isinstance(c, NavigableString) and c.strip() for c in block.children):
        return None
    credit, text = _text(lines[0]), _text(lines[1])
    if not (is_credit(credit) or credit.startswith("©")) or len(text.split()) < MIN_LAYOUT_CAPTION_WORDS:
        return None
    return text, credit


def _links_or_headings(block: Tag) -> bool:
    if first_descendant(block, ("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "form")) is not None:
        return True
    linked = [t for t in (_text(a) for a in block.find_all("a")) if t]
    if not linked:
        return False
    # A link in the credit is the photographer's or the source's ("... via <a>Harbour Archive</a>"); anywhere else it
    # is a teaser's or a notice's ("click here to watch").
    text = _text(block)
    split = split_caption(text)
    credit = split[1] if split else (text.rsplit(" via ", 1)[1] if " via " in text else "")
    return not all(t in credit for t in linked)


# A block after a picture is its caption when it agrees with the picture's alt text this well (token-F1,
# or the alt's words all in it), and is at most this long.
ALT_AGREEMENT = 0.6
MAX_ALT_CAPTION_WORDS = 60
_BLOCKS = frozenset({"p", "div", "span", "em", "strong", "small", "i", "b", "center", "figcaption", "font", "td"})


def _next_text_block(img: Tag) -> Optional[Tag]:
    """The smallest block holding the first text after the picture (and nothing else), or None."""
    for node in img.next_elements:
        if isinstance(node, Tag):
            if node.name in ("script", "style", "noscript", "template") or node.name in _PICTURES:
                if node.name in _PICTURES:
                    return None  # another picture comes first
            continue
        if not str(node).strip():
            continue
        parent = node.parent
        if parent is None or parent.name in ("script", "style", "noscript", "template"):
            continue
        block = parent
        while (
            block.parent is not None
            and block.parent.name in _BLOCKS
            and _key(_text(block.parent)) == _key(_text(block))
        ):
            block = block.parent
        if block.name not in _BLOCKS or block.find_parent(["h1", "h2", "h3", "h4", "a"]) is not None:
            return None
        if block.name == "a" or first_descendant(block, ("h1", "h2", "h3", "h4")) is not None:
            return None
        if any(_text(a) for a in block.find_all("a")):
            return None  # a teaser's link (a picture's own link has no text)
        return block
    return None


def _agreement(described: str, text: str) -> float:
    a, b = _key(described).split(), _key(text).split()
    if not a or not b:
        return 0.0
    common = sum((Counter(a) & Counter(b)).values())
    if common == len(a):
        return 1.0
    return 2 * common / (len(a) + len(b))


def _picture_with_text(tag: Tag) -> bool:
    """A figure, or a small box named "image"/"photo", holding a picture and a few words but no story
    structure (headings, several paragraphs, a quotation)."""
    if not _short(tag) or first_descendant(tag, _PICTURES) is None:
        return False
    if first_descendant(tag, _STORY_STRUCTURE, is_caption_node) is not None:
        return False  # a story block, or a figure whose caption markup is read on its own
    if tag.name == "figure":
        return bool(_text(tag))  # a figure holding only its picture: its caption stands after it
    if "no" in name_words(tag) or sum(1 for t in tag.descendants if isinstance(t, Tag) and t.name == "p") > 2:
        return False  # "no-image" names the absence of a picture
    return _word_count(tag, MIN_BOX_CAPTION_WORDS) >= MIN_BOX_CAPTION_WORDS


_SOCIAL_EMBEDS = frozenset({"amp-instagram", "amp-twitter", "amp-facebook", "amp-tiktok"})
_SOCIAL_POST_CLASSES = frozenset({"instagram-media", "twitter-tweet", "tiktok-embed", "fb-post"})
_SOCIAL_HOSTS = re.compile(
    r"^https?://(?:www\.)?(?:instagram\.com|twitter\.com|x\.com|facebook\.com|tiktok\.com)/", re.I
)


def _social_post(figure: Tag) -> bool:
    """A figure holding a social network's embedded post (an Instagram or X post) and no picture of its own."""
    inside = tags_in(figure)
    if any(t.name in ("img", "picture", "amp-img", "video") for t in inside):
        return False
    return any(
        t.name in _SOCIAL_EMBEDS
        or t.name == "blockquote"
        and _SOCIAL_POST_CLASSES & set(t.get("class") or [])
        or t.name == "iframe"
        and _SOCIAL_HOSTS.match(str(t.get("src") or ""))
        for t in inside
    )


def _candidate(tag: Tag) -> bool:
    return (
        tag.name == "figure"
        or is_caption_node(tag)
        or bool(PICTURE_BOX_WORDS & name_words(tag))
        and tag.name in ("div", "span", "section", "p")
        or _gallery_item(tag)
    )


# Names of a gallery or slideshow, in the languages of the archive's pages.
GALLERY_WORDS = frozenset({"gallery", "galerie", "galeria", "slideshow", "carousel", "bildstrecke"})
_GALLERY_ENDINGS = tuple(GALLERY_WORDS)
MIN_GALLERY_CAPTION_WORDS = 4


def gallery_named(tag: Tag) -> bool:
    """A block named for a gallery or slideshow, also inside a longer name ("fotogalerie", "owl-carousel")."""
    return tag.name not in _NEVER and any(w.endswith(_GALLERY_ENDINGS) for w in name_words(tag))


def _gallery_item(tag: Tag) -> bool:
    """One item of a gallery or slideshow ("<div class=slideshow><ul><li><img> <p>Text</p></li>"): the list or
    stage holding it is named for the gallery, it holds one picture that leads nowhere else, and words of its
    own (not a menu's or a teaser's links)."""
    if tag.name not in ("li", "div", "dl"):
        return False
    holders = (tag.parent, getattr(tag.parent, "parent", None))
    if not any(isinstance(h, Tag) and gallery_named(h) for h in holders):
        return False
    inside = tags_in(tag)
    pictures = [t for t in inside if t.name == "img"]
    if len(pictures) != 1 or any(_credit_named(name_words(t)) for t in inside):
        return False  # several pictures: a gallery of its own; a credit block: read as one, with what it holds
    link = pictures[0].find_parent("a")
    if link is not None and _leads_away(link) and tag in link.parents:
        return False
    own = _word_count(tag, 200) - sum(_word_count(a, 200) for a in tag.find_all("a"))
    return own >= MIN_GALLERY_CAPTION_WORDS


_INLINE_CREDIT_TAGS = frozenset({"span", "small", "em", "i", "b", "strong", "cite", "p", "div", "font"})


def _read_group(group: Tag, figure: Optional[Tag]) -> list[CaptionData]:
    """Read one caption block (and the credit nodes of its figure) into captions, then remove it."""
    scope = figure if figure is not None and _short(figure) else group
    address = _image_address(scope)
    credits: list[str] = []
    # A credit block holding a credit of its own ("<div class=attribution>Text <span class=credit>Photo: X</span>")
    # holds the caption too: only the inner credit is the credit.
    nodes = [t for t in tags_in(scope) if is_credit_node(t) and first_descendant(t, (), is_credit_node) is None]
    if scope is not group:
        nodes += _figure_credits(scope, group)
    if scope is group:
        # A credit standing beside the caption, in the same holder ("<div class=caption>...</div><div
        # class=credit>Photo: AP</div>")
        nodes += [t for t in (group.find_next_sibling(), group.find_previous_sibling()) if _beside_credit(t)]
    for node in nodes:
        if removed(node):
            continue
        # The caption inside the credit's block ("<div class=copyright>Photo: X<span class=description>
        # Text</span></div>"): moved out before the credit is taken.
        inner = first_descendant(node, (), lambda t: is_caption_node(t) or "description" in name_words(t))
        if inner is not None and _text(inner) and not is_credit_node(inner):
            node.insert_after(inner.extract())
        credit = _clean_credit(_text(node))
        if credit and credit not in credits:
            credits.append(credit)
        node.decompose()
    if not credits:
        # A credit kept in the picture's attribute ("<img data-credit=...>" above a <figcaption>)
        credits += [c for c in map(_clean_credit, _attribute_credits(scope)) if c][:1]
    _inline_credits(group, credits)
    for node in tags_in(group):
        if removed(node):
            continue
        text = _text(node)
        if (
            node.name in ("script", "style", "noscript", "button", "template")
            or _COUNTER.match(text or "x")
            or _TOGGLE_ONLY.match(text or "x")
        ):
            node.decompose()
    leaves = [
        t
        for t in tags_in(group)
        if is_caption_node(t) and first_descendant(t, (), is_caption_node) is None and _text(t)
    ]
    if leaves and sum(len(_text(t)) for t in leaves) < 0.6 * len(_text(group)):
        leaves = []  # "<span class=newsCaption>Text <span class=caption>(Image: GETTY)</span></span>": one caption
    texts = [_clean_caption_text(_text(t)) for t in (leaves or [group])]
    credit = credits[0] if credits else None
    captions: list[CaptionData] = []
    for text in texts:
        own_credit = credit
        split = split_caption(text)
        if split:
            text, trailing_credit, _source = split
            own_credit = _better_credit(own_credit, trailing_credit, text)
        else:
            text, line_credit = _credit_line(text)
            own_credit = _better_credit(own_credit, line_credit, text)
        if own_credit and text.endswith(own_credit):
            text = text[: -len(own_credit)].rstrip(" (").rstrip()
        own_credit = own_credit or _described_credit(scope, text)
        if len(text) >= MIN_CAPTION_CHARS:
            captions.append(caption_from_parts(text, own_credit))
            captions[-1].image_url = address
    (scope if scope is figure else group).decompose()
    return captions


def _inline_credits(group: Tag, credits: list[str]) -> None:
    """A credit in an element of its own inside the caption, unnamed ("<figcaption><span>Photo: Adil
    Boukind</span> The scooters...</figcaption>"): known by its text, added to `credits` and removed."""
    whole = _key(_text(group))
    for node in [t for t in tags_in(group) if t.name in _INLINE_CREDIT_TAGS]:
        if removed(node) or first_descendant(node, ("p", "div", "br")) is not None:
            continue
        text = _text(node)
        if _key(text) == whole or not 2 <= len(text) <= MAX_CREDIT_CHARS:
            continue
        # the caption's last line holding only an agency's name ("<p>Text</p><p>Reuters</p>") is its credit
        if is_credit(text.strip(" ()")) or find_agency(text.strip(" ()")) and _last_line(node, group):
            credit = _clean_credit(text)
            if credit and credit not in credits:
                credits.append(credit)
            node.decompose()


def _last_line(node: Tag, group: Tag) -> bool:
    """No text of `group` comes after `node`."""
    for later in node.next_elements:
        if not any(p is group for p in later.parents):
            return True  # past the group's end
        if isinstance(later, NavigableString) and later.strip() and not any(p is node for p in later.parents):
            return False
    return True


def _described_credit(scope: Tag, text: str) -> Optional[str]:
    """The credit ending a picture's `title` or `alt` that says what the caption says ("<img title='The bridge
    at dawn - © Ines Rowe'>" above "<figcaption>The bridge at dawn</figcaption>"), or the whole `title` when it
    is a marked credit."""
    pictures = [scope] if scope.name == "img" else [t for t in tags_in(scope) if t.name == "img"]
    before = scope.find_previous_sibling() if not pictures else None
    if before is not None:
        # the picture just before a caption block of its own ("<a><img title='Foto: Ines Rowe'></a><p class=
        # caption>")
        shown = [before] if before.name == "img" else before.find_all("img")
        pictures = shown if len(shown) == 1 else []
    for picture in pictures[:2]:
        tooltip = collapse(str(picture.get("title") or ""))
        if _CREDIT_MARK.match(tooltip) and is_credit(tooltip):
            return tooltip  # "<img title='Foto: © Ines Rowe'>": the credit shown on hover, marked as one
        for attribute in ("title", "alt"):
            described = collapse(str(picture.get(attribute) or ""))
            if len(described) <= len(text):
                continue  # no room for a credit after the caption's words
            read = caption_from_text(described)
            if read.credit and _agreement(read.text, text) >= ALT_AGREEMENT:
                return read.credit
    return None


def _attribute_credits(scope: Tag) -> list[str]:
    pictures = [scope] if scope.name in _PICTURES else [t for t in tags_in(scope) if t.name in _PICTURES]
    return [v for p in pictures for a in _CREDIT_ATTRIBUTES if isinstance(v := p.get(a), str) and v.strip()]


def _beside_credit(tag: Optional[Tag]) -> bool:
    """A credit block beside a caption: named for a credit, or for an author or source (a caption's author is
    its photo's: "<figcaption>The bridge</figcaption><span class=author>Harbour Times</span>")."""
    if tag is None or removed(tag) or is_caption_node(tag) or not _short(tag):
        return False
    return is_credit_node(tag) or bool((_FIGURE_CREDIT_WORDS - {"byline"}) & name_words(tag) and _text(tag))


def _better_credit(marked: Optional[str], in_text: Optional[str], text: str = "") -> Optional[str]:
    """The credit in the caption's markup, unless the one ending its text says more (names the agency too:
    "Photo: Gene J. Puskar" in the markup, "(AP Photo/Gene J. Puskar)" in the text) or the marked one is the
    name of who the caption shows ("<p class=photo-credit>Dana Whitlow</p>", "Dana Whitlow, harbour master
    (Photo by Ines Rowe)")."""
    if not marked or not in_text:
        return marked or in_text
    if _key(marked) and f" {_key(marked)} " in f" {_key(text)} ":
        return in_text

    def known(credit: str) -> int:
        return sum(part is not None for part in parse_credit(credit))

    return in_text if known(in_text) > known(marked) else marked


_CREDIT_LINE = re.compile(
    r"^(?P<text>.*?)\s*(?P<credit>(?:photo|image|picture|foto|credit)s?(?:\s+(?:source|credit))?\s*(?::|by)\s*"
    r"[^.:]{2,100})$",
    re.I,
)


# A credit's label and name before the caption, set off by a dash ("Foto: Ines Rowe - The ferry at dawn").
_LEADING_LABELLED = re.compile(
    r"^(?P<credit>(?:fotos?|photos?|bild(?:er)?|images?|credit|archivfoto|archivbild|symbolfoto|symbolbild)\s*:\s*"
    r"[^:.!?–—]{2,60}?)\s+[–—-]\s+(?P<text>\S.{10,})$",
    re.I,
)


def caption_from_text(text: str) -> CaptionData:
    """A caption written as one text, its credit at the end or in any form a caption writes it."""
    text = _clean_caption_text(text)
    lead = _LEADING_LABELLED.match(text)
    if lead and is_credit(lead.group("credit")):
        return caption_from_parts(lead.group("text").strip(), lead.group("credit").strip())
    split = split_caption(text)
    return caption_from_parts(split[0], split[1]) if split else caption_from_parts(*_credit_line(text))


def _credit_line(text: str) -> tuple[str, Optional[str]]:
    """A caption's credit written the ways only a caption writes it (the text is known to be a caption): "...
    Photo: Jane Doe, AP" (no brackets, no sentence end before it), a bare agency in brackets at the end ("...
    on Friday. (AP)"), an agency run on after the last sentence ("... on Friday.AP", two elements printed
    without a space), a copyright sign and what follows it ("... at dawn. © Harbour Times"), an agency before
    a dash ("Reuters – Relatives watch ...") or a photo's origin
    ("Ines Rowe Submitted photo") or a name in brackets at the end ("... at dawn. (Harbour Port Authority)")."""
    m = _CREDIT_LINE.match(text)
    if m and is_credit(m.group("credit")):
        return m.group("text").strip(), m.group("credit").strip()
    m = _TRAILING_SOURCE.search(text)
    if m and len(m.group("text").split()) >= 2:
        return m.group("text").strip(), m.group("credit").strip()
    m = _SCREENSHOT.search(text)
    if m:
        return m.group("text").strip(), m.group("credit").strip()
    m = _AFTER_SLASH.search(text) if "©" not in text else None  # "... — © Ines Rowe/Harbour Works": whole
    if m and len(m.group("text").split()) >= 2 and (is_credit(m.group("credit")) or find_agency(m.group("credit"))):
        caption, credit = m.group("text").strip(), m.group("credit").strip()
        # "Dana Whitlow / Ines Rowe/Harbour Works": the photographer's name before the agency's
        before = _AFTER_SLASH.search(caption)
        if before and len(before.group("text").split()) >= 2 and looks_like_person(before.group("credit").strip()):
            caption, credit = before.group("text").strip(), f"{before.group('credit').strip()}/{credit}"
        return caption, credit
    m = _TRAILING_DASH.search(text)
    if m and is_credit(m.group("credit")):
        return m.group("text").strip(), m.group("credit").strip()
    m = _TRAILING_NAME.search(text)
    long_enough = m is not None and (len(m.group("text").split()) >= 3 or len(m.group("text")) >= 12)
    if m and long_enough and re.search(r"[a-z]{2}|[^\x00-\u2fff]", m.group("credit")):
        return m.group("text").strip(), m.group("credit").strip()
    m = _SHOT_BY.search(text)
    if m:
        return m.group("text").strip(), m.group("credit").strip()
    m = _TRAILING_COPYRIGHT.search(text)
    if m and len(m.group("text").split()) >= 2:
        return m.group("text").strip(" ,;–—-"), m.group("credit").strip()
    for pattern in (_TRAILING_AGENCY, _GLUED_AGENCY, _LEADING_AGENCY):
        m = pattern.search(text)
        if m and len(m.group("text").split()) >= 2 and find_agency(m.group("credit").split("/")[0]) is not None:
            return m.group("text").strip(), m.group("credit").strip()
    m = _ORIGIN_PHOTO.search(text)
    if m and m.group("text").strip():
        return m.group("text").strip(), m.group("credit").strip()
    return text, None


# A source named after the caption's last comma ("..., Quelle HTA Davos", "..., source: Harbour Authority").
_TRAILING_SOURCE = re.compile(
    r"^(?P<text>.+?)[,;]\s*(?P<credit>(?:quelle|source|fuente|fonte)\b:?\s*[^,;:]{2,60})$", re.I
)
# A screenshot's source after the caption's last sentence ("... at dawn. Screenshot from Harbour TV").
_SCREENSHOT = re.compile(
    r"^(?P<text>.*[.!?])\s+(?P<credit>(?:screenshots?|captura\s+de\s+pantalla|capture\s+d['’]écran|bildschirmfoto)"
    r"\b[^.!?]{0,60})$",
    re.I,
)
# A credit after the caption's last slash ("The bridge at dawn / AFP", "... at dawn/Foto Ines Rowe").
_AFTER_SLASH = re.compile(r"^(?P<text>.+?)\s*/\s*(?P<credit>[^/]{2,60}?)\s*\.?$")
# A credit after a dash that follows the caption's last sentence ("... on Friday. — AFP pic").
_TRAILING_DASH = re.compile(r"^(?P<text>.+?[.!?\"”’])\s+[—–]\s+(?P<credit>[^—–.!?]{2,60})$")
# A name in brackets ending a caption: who supplied the picture ("... at dawn. (Harbour Port Authority)").
_TRAILING_NAME = re.compile(
    r"^(?P<text>.*?)\s*[(（]\s*(?P<credit>[A-Z][\w.&'’-]*(?:\s+(?:[A-Z][\w.&'’-]*|of|the|and|de|du|für|for)){0,5}|"
    r"[\w-]+(?:\.[\w-]+)*\.[a-z]{2,6}|[^\x00-\u2fff（）]{2,24})\s*[)）]\s*[.。]?$"
)
# A Chinese credit ending the caption: "... 新华社记者 某某 摄" ("photographed by ...").
_SHOT_BY = re.compile(r"^(?P<text>.*?[。，,.!?])\s*(?P<credit>[^。，,.!?]{2,30}\s*摄)\s*$")
_TRAILING_COPYRIGHT = re.compile(r"^(?P<text>.*?)\s*(?P<credit>©\s*[^©]{2,100}?)\s*\.?$")
_TRAILING_AGENCY = re.compile(r"^(?P<text>.*?)\s*\((?P<credit>[^()]{2,40})\)\s*\.?$")
_GLUED_AGENCY = re.compile(r"^(?P<text>.*[.!?\"”])(?P<credit>[A-Z][\w-]*(?: [A-Z][\w-]*){0,2})$")
# "Reuters – Relatives watch ...", "AFP/File – ...", "AFP/Harbour Times – ...": the agency before a dash.
_LEADING_AGENCY = re.compile(
    r"^(?P<credit>[A-Z][\w-]*(?: [A-Z][\w-]*){0,2}(?:/[A-Z][\w-]*(?: [A-Z][\w-]*){0,2})?)\s+[–—-]\s+(?P<text>.+)$"
)
_ORIGIN_PHOTO = re.compile(
    r"^(?P<text>.*?)[\s,.(]+(?P<credit>(?:submitted|courtesy|contributed)\s+(?:photo|image|picture)s?)\)?\.?$", re.I
)


def _unique(captions: Iterable[CaptionData]) -> list[CaptionData]:
    """Drop repeats: the same text, or a shortened copy ("... more") of a longer caption already kept. The same
    words under two different photos are two captions (a gallery whose photos share one caption)."""
    kept: list[CaptionData] = []
    for caption in captions:
        key = _key(caption.text)
        if not key:
            continue
        for i, other in enumerate(kept):
            if caption.image_url and other.image_url:
                if not same_photo(caption.image_url, other.image_url) or _second_upload(
                    caption.image_url, other.image_url
                ):
                    continue
            other_key = _key(other.text)
            if key == other_key or (len(key) >= MIN_PREFIX_CHARS and other_key.startswith(key)):
                if other.credit is None and caption.credit:
                    kept[i] = _with_credit(other, caption.credit, caption.image_url)
                break
            if len(other_key) >= MIN_PREFIX_CHARS and key.startswith(other_key):
                kept[i] = caption if caption.credit or not other.credit else _with_credit(caption, other.credit)
                kept[i].image_url = kept[i].image_url or other.image_url
                break
        else:
            kept.append(caption)
    return kept


# What a caption block can hold that is not a caption: a template left unfilled, a video in a playlist
# ("Neighbors describe London attacker 02:29"), a share bar, a player's notice.
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\$\{.*?\}|\{f:\w+\(|<%=?")  # also a TYPO3 Fluid call, "{f:render(..."
# A form's field labels ("Name * Comment *"), a weather box ("19°C | Harbour City 10/12/2020").
_FORM_LABELS = re.compile(r"^(?:[^\W\d_][\w-]*\s*\*\s*){2,}$")
# A pager's buttons ("« Previous Next »", "Vorheriges Weiter").
_PAGER = re.compile(
    r"^(?:[«»‹›<>←→\s]|\b(?:previous|prev|next|vorherige[sr]?|nächste[sr]?|weiter|zurück|suivant|précédent)\b)+$", re.I
)
_WEATHER = re.compile(r"^-?\d{1,2}\s*°\s*[CF]?\s*(?:\||$)")
_DURATION_END = re.compile(r"\s\(?\d{1,2}:\d{2}(?::\d{2})?\)?$|^\(?\d{1,2}:\d{2}(?::\d{2})?\)?\s")
# A label alone ("Fig. 1", "Abb. 3") or a file's name ("2022/01/Rescue_AdobeStock_1692.jpeg").
_LABEL_ONLY = re.compile(r"^(?:fig(?:ure)?|abb(?:ildung)?|bild|image|photo|foto|grafik|chart)\.?\s*\d+[.:]?$", re.I)
# A file's name, or its stem written with underscores ("harbour_ferry_dawn_8"): no caption says that.
_FILE_NAME = re.compile(r"^\S+\.(?:jpe?g|png|gif|webp|avif|svg|tiff?)$|^[^\s_]+(?:_[^\s_]+){2,}$", re.I)
# A picture's file name that a CMS printed (often hidden) before its caption: "harbour-2019-1160x768.jpg A crane ..."
_NAMES_A_FILE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|tiff?)\b", re.I)
_LEADING_FILE_NAME = re.compile(r"^\S+\.(?:jpe?g|png|gif|webp|avif|tiff?)\s+(?=\S)", re.I)
_SOCIAL = {
    "facebook",
    "twitter",
    "pinterest",
    "linkedin",
    "reddit",
    "whatsapp",
    "email",
    "mail",
    "share",
    "tweet",
    "print",
    "messenger",
    "telegram",
    "flipboard",
    "xing",
    "copy",
    "link",
    "teilen",
    "pin",
    "pinnen",
    "drucken",
}
# A site's footer notice in caption markup.
_RIGHTS_NOTICE = re.compile(
    RIGHTS_RESERVED + r"|"
    r"unter einer creative commons|terms of (?:use|service)|privacy policy|registered trademark",
    re.I,
)
_PLAYER_NOTICE = re.compile(r"^(?:media playback is (?:unsupported|not supported)|your browser does not support)", re.I)
# A box of links to other stories ("More on: ..."), an instruction to the reader ("Click on the map ..."), and a
# teaser's byline with its time ("JANE DOE 2 hours ago", "JANE DOE June 30, 2013").
_LINKS_LABEL = re.compile(
    r"^(?:more\s+on|related|see\s+also|read\s+more|read\s+also|also\s+read|mehr\s+zum\s+thema|lesen\s+sie\s+auch|"
    r"à\s+lire\s+aussi|lea\s+también|leia\s+também)\s*:",
    re.I,
)
_INSTRUCTION = re.compile(
    r"^(?:click|tap|klicken|cliquez|haga\s+clic|rate\s+this)\b|\b(?:click|tap)\s+(?:on|here)\b|\bein\s+klick\s+auf\b"
    r"|\b(?:cliquez|klicken\s+sie|haga\s+clic|fai\s+clic)\s+(?:sur|auf|en|su)\b",  # "..., cliquez sur l'icône"
    re.I,
)
# A time alone ("16 days ago", "Published Nov 8, 2023"), a shop's listing ("Sneaker blue 59,99 € Zum Shop").
# A teaser's badge for what its story holds ("mit Video", "with audio", "con fotos").
# A rating widget's line ("Average (Not Rated)", "Unproven About this rating", "4.5 out of 5 stars").
_RATING = re.compile(r"\b(?:not\s+rated|about\s+this\s+rating|out\s+of\s+(?:5|five)\s+stars?)\b", re.I)
MAX_RATING_WORDS = 6
_MEDIA_BADGE = re.compile(
    r"^(?:mit|with|con|avec|com|met)\s+(?:videos?|audio|podcast|fotos?|photos?|bildergalerie|galerie|gallery)$", re.I
)
_TIME_ALONE = re.compile(
    r"^(?:(?:published|updated|posted|veröffentlicht|aktualisiert)\s*:?\s*)?(?:\d+\s+(?:seconds?|minutes?|hours?|days?|"
    r"weeks?|months?|years?)\s+ago|[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+\d{4})$",
    re.I,
)
_SHOP_LISTING = re.compile(
    r"(?:\d[\d.,]*\s?(?:€|eur|\$|£)|(?:€|\$|£)\s?\d).{0,40}\b(?:zum\s+shop|kaufen|ausverkauft|buy(?:\s+now)?|"
    r"shop\s+now|add\s+to\s+(?:cart|basket)|in\s+den\s+warenkorb)\W*$",
    re.I,
)
# A shop's button after a product, with or without its price ("... 250g Dose ZUM WARENKORB HINZUFÜGEN").
_CART_BUTTON = re.compile(
    r"\b(?:(?:zum|in\s+den)\s+warenkorb(?:\s+hinzuf[üu]gen|\s+legen)?|add\s+to\s+(?:cart|basket|bag)|ajouter\s+au\s+panier|"
    r"a[ñn]adir\s+al\s+carrito)\W*$",
    re.I,
)
# A promotion of the site itself: a subscription, a newsletter, its social accounts.
_PROMOTION = re.compile(
    r"\bsubscribe\s+(?:to|now|today|for)\b|\bsign\s+up\s+(?:for|to)\s+(?:our|the)\s+newsletter|\babonnieren\s+sie\b|"
    r"\bjetzt\s+abonnieren\b|\b(?:folgen\s+sie|follow)\s+(?:uns|us|der|dem|the)\b[^.!?]{0,40}\b(?:instagram|facebook|twitter)\b"
    # an affiliate disclosure: "we may earn a commission", "erhält ... eine Provision", "affiliate links"
    r"|\b(?:may|might)\s+(?:earn|receive|get)\s+(?:a\s+)?(?:small\s+)?(?:commission|share\s+of\s+sales)\b"
    r"|\b(?:erhalten|erhält|bekommen|bekommt)\b[^!?]{0,40}\b(?:eine\s+)?(?:kleine\s+)?provision\b"
    r"|\baffiliate[-\s]links?\b"
    # the site's own shop: "Besuchen Sie unseren Fan-Shop!", "Visit our online store"
    r"|\b(?:besuchen\s+sie\s+unseren|visit\s+our)\s+(?:[\w-]+\s+)?(?:[\w-]*shop|store)\b",
    re.I,
)
# Contact details ("Dana Whitlow Tel.: +49 (0)30-212 341 E-Mail: presse@example.org"): an address box.
_CONTACT = re.compile(
    r"\b(?:tel(?:efon|éfono)?|phone|fax|mobil(?:e)?)\.?\s*:?\s*\(?\+?\d[\d\s()/.-]{5,}|\be-?mail\s*:\s*\S+@\S+", re.I
)
# A price box's shipping line ("ab 5 € Versand", "Versand s. Shop", "Free shipping").
_SHIPPING = re.compile(
    r"^(?:(?:ab|from|zzgl\.?|inkl\.?|plus|free|gratis|kostenloser)\s+)?(?:[\d.,]+\s?(?:€|eur|\$|£)\s+)?"
    r"(?:versand|shipping|delivery|lieferung)(?:\s+(?:s\.|siehe|see)\s+shop)?\.?$",
    re.I,
)
_TEASER_BYLINE = re.compile(
    r"^[A-Z][A-Z.'’ -]+(?:,\s*[A-Z][A-Z.'’ -]+)*(?:\s+and\s+[A-Z][A-Z.'’ -]+)?\s+"
    r"(?:\d+\s+(?:minutes?|hours?|days?|weeks?)\s+ago|[A-Z][a-z]{2,8}\.?\s+\d{1,2},\s+\d{4})$"
)
# A wiki's footnote marks after a caption ("Ines Rowe[3][4]"); a label before the caption ("Bild:",
# "Symbolbild:", "Légende :").
_FOOTNOTE_MARKS = re.compile(r"(?:\s*\[\d{1,3}\])+\s*$")
_CAPTION_LABEL = re.compile(
    r"^(?:bild|symbolbild|symbolfoto|archivbild|caption|bildunterschrift|l[ée]gende|leyenda|didascalia)\s*:\s*"
    # a wire photo's archive label ("FILE PHOTO: The ferry ...", "Archive picture: ..."): when, not who
    r"|^(?:file|archive)\s+(?:photo|picture|image)\s*:\s*"
    # a numbered figure's label ("Abb. 2: Die Fähre", "Figure 3. The harbour"): the number, not the picture
    r"|^(?:fig(?:ure)?|abb(?:ildung)?|bild|image|photo|foto|figura)\.?\s*\d+\s*[:.]\s+(?=\S)",
    re.I,
)
# What a credit alone says where a caption would stand ("Reprodução": reproduced from another publication).
_CREDIT_WORD = re.compile(r"^(?:reprodu[çc][ãa]o|reproducci[óo]n|reproduction|divulga[çc][ãa]o|handout|archiv)$", re.I)
# A list of tags or sections ("01.12.2022 / CSP / International / Photovoltaik / Speicher").
_TAG_LIST = re.compile(r"^[^/]{1,30}(?:\s*/\s*[^/\s]?[^/]{0,30}){3,}$")
_HIDDEN_LABEL = re.compile(r"^(?:image|media|photo|video)\s+caption\s*:?\s+", re.I)


def _widget_text(bare: str) -> bool:
    """The page's machinery where a caption would stand: a player's notice, a label or file name, a rights
    notice, a button, a counter, an advertisement's label, a form, a weather box, a pager, a shop's listing."""
    if _PLAYER_NOTICE.match(bare) or _LABEL_ONLY.match(bare) or _FILE_NAME.match(bare) or _RIGHTS_NOTICE.search(bare):
        return True
    if _TOGGLE_ONLY.match(bare) or _COUNTER.match(bare) or _AD_LABEL.match(bare.strip(" -–—")) or _AD_LEAD.match(bare):
        return True
    if _LINKS_LABEL.match(bare) or _INSTRUCTION.search(bare) or _TEASER_BYLINE.match(bare) or _PAGER.match(bare):
        return True
    if _CART_BUTTON.search(bare) or _CONTACT.search(bare) or _FORM_LABELS.match(bare) or _WEATHER.match(bare):
        return True
    if _PROMOTION.search(bare):
        return True
    return bool(
        _TIME_ALONE.match(bare) or _SHOP_LISTING.search(bare) or _SHIPPING.match(bare) or _MEDIA_BADGE.match(bare)
    )


def is_caption_text(text: str) -> bool:
    """False for what caption markup can hold that describes no photo: a credit alone ("© Jane Doe",
    "Shutterstock", "(Getty Images via @daylife)"), an unfilled template, a playlist entry ending in its
    running time, a share bar, a player's notice."""
    bare = text.strip(" ()[]")
    if not bare or _TEMPLATE.search(text) or _DURATION_END.search(text) or _widget_text(bare):
        return False
    if _CREDIT_WORD.match(bare) or (_TAG_LIST.match(bare) and not re.search(r"[.!?]\s", bare)):
        return False
    if _RATING.search(bare) and len(bare.split()) <= MAX_RATING_WORDS:
        return False
    letters = [c for c in bare if c.isalpha()]
    if 2 <= len(bare.split()) <= 6 and len(letters) >= 4 and all(c.isupper() for c in letters):
        return False  # "QUALITY SINCE 2006", "HOMEMADE LOAF": a banner's slogan or a link to another page
    if bare.endswith(":") and len(bare.split()) <= 3:
        return False  # "Hide Caption", "Photos:"
    words = re.findall(r"\w+", bare.casefold())
    least = 1 if len(words) == 1 else max(2, len(words) - 1)
    if words and sum(w in _SOCIAL or w.isdigit() for w in words) >= least:
        return False
    if text.lstrip().startswith(("©", "(c)", "(C)", "Copyright")) or find_agency(bare) is not None or is_credit(bare):
        return False
    if text.strip().startswith("(") and any(find_agency(p) for p in re.split(r"\s*/\s*|\s+via\s+", bare)):
        return False  # "(Getty Images via @daylife)"
    if len(words) <= 6 and not re.search(r"[.!?]\s", bare):
        photographer, agency = parse_credit(bare)
        if photographer and agency and (find_agency(agency) is not None or "/" in bare):
            return False  # "Ines Rowe, Associated Press", "hafenfoto / harbourpics.com": a credit alone
    return True


# A size or variant in a picture's file name ("-580x386", "_w630", "-scaled", "@2x"): the same photo in
# another size.
_SIZE_TOKEN = re.compile(
    r"[-_.@]?(?:\d{2,5}x\d{2,5}|[whq]\d{2,5}|\d(?:\.\d)?x)(?![0-9a-z])|[-_](?:scaled|thumb|small|large|orig)"
)


def _second_upload(a: str, b: str) -> bool:
    """ "lockdown.jpg" and "lockdown-0.jpg": a second file uploaded under the same name. Two pictures the page
    shows under one caption are then two photos; the page's sharing image may be either file of one photo."""
    stems = sorted((_file_stem(a), _file_stem(b)), key=len)
    return bool(re.fullmatch(re.escape(stems[0]) + r"[-_]\d", stems[1]))


def _file_stem(url: str) -> str:
    return _SIZE_TOKEN.sub("", urlsplit(url).path.rsplit("/", 1)[-1].casefold().rsplit(".", 1)[0])


def same_photo(a: str, b: str) -> bool:
    """Two addresses of one photo, maybe in other sizes: their file names share a word of 6 or more letters."""

    def words(url: str) -> set[str]:
        name = urlsplit(url).path.rsplit("/", 1)[-1]
        return {w for w in re.split(r"[^a-z0-9]+", name.casefold()) if len(w) >= 6 and not w.isdigit()}

    def numbers(url: str) -> set[str]:
        name = _SIZE_TOKEN.sub(" ", urlsplit(url).path.rsplit("/", 1)[-1].casefold())
        return set(re.findall(r"(?<![0-9a-z])[0-9]+(?![0-9a-z])", name.rsplit(".", 1)[0]))

    if urlsplit(a).path == urlsplit(b).path:
        return True
    # "IMG_20240630_101544.jpg" and "IMG_20240630_114502.jpg", "harbour-bridge-2-580x386.jpg"
    # and "harbour-bridge-3-580x386.jpg": two shots, each numbered as the other is not (sizes aside).
    if numbers(a) - numbers(b) and numbers(b) - numbers(a):
        return False
    return bool(words(a) & words(b))


def _with_credit(caption: CaptionData, credit: str, image_url: Optional[str] = None) -> CaptionData:
    merged = caption_from_parts(caption.text, credit)
    merged.image_url = caption.image_url or image_url
    return merged


def _key(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().casefold()
