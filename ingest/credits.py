"""Photo credits and news agencies: recognise a caption by its credit, and split a credit into photographer
and agency."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from .normalise import collapse
from .records import CaptionData


@dataclass(frozen=True)
class Agency:
    short: str  # as credits name it: "AP"
    source: str  # as an article's source: "The Associated Press"
    aliases: tuple[str, ...]


# Aliases include the names the agencies go by in other scripts (Arabic, Russian, Chinese, Korean), as credits in
# those languages write them.
AGENCIES = (
    Agency(
        "AP",
        "The Associated Press",
        ("AP", "Associated Press", "The Associated Press", "AP Images", "أسوشيتد برس", "美联社", "美聯社"),
    ),
    Agency(
        "Reuters",
        "Reuters",
        ("Reuters", "Reuter", "Thomson Reuters", "Reuters Pictures", "رويترز", "Рейтер", "Рейтерс", "路透社", "로이터"),
    ),
    Agency(
        "AFP",
        "Agence France-Presse",
        ("AFP", "Agence France-Presse", "Agence France Presse", "AFP Images", "أ ف ب", "فرانس برس", "АФП", "法新社"),
    ),
    Agency(
        "Getty Images",
        "Getty Images",
        (
            "Getty Images",
            "Getty",
            "Gettyimages",  # as its web address writes it
            "Getty Images Plus",
            "iStock",
            "iStockphoto",
            "iStock by Getty Images",
            "Getty Images/iStock",
            "Getty Images Europe",
            "Getty Images North America",
            "Getty Images South America",
            "Getty Images AsiaPac",
            "Getty Images News",
            "Getty Images Sport",
            "Getty Images Entertainment",
            "Thinkstock",
            "ThinkstockPhotos",
            "Thinkstock Photos",
        ),
    ),
    Agency("EPA-EFE", "EPA-EFE", ("EPA-EFE", "EPA EFE")),
    Agency("EPA", "European Pressphoto Agency", ("EPA", "European Pressphoto Agency")),
    Agency("EFE", "EFE", ("EFE", "Agencia EFE")),
    Agency("PA", "PA Media", ("PA", "PA Wire", "PA Images", "PA Media", "Press Association")),
    Agency("UPI", "United Press International", ("UPI", "United Press International")),
    Agency("Bloomberg", "Bloomberg", ("Bloomberg", "Bloomberg News")),
    Agency("Xinhua", "Xinhua", ("Xinhua", "Xinhua News Agency", "新华社", "新華社")),
    Agency("Anadolu", "Anadolu Agency", ("Anadolu", "Anadolu Agency", "Anadolu Images")),
    Agency(
        "dpa", "Deutsche Presse-Agentur", ("dpa", "Deutsche Presse-Agentur", "picture alliance", "picture-alliance")
    ),
    Agency("Kyodo", "Kyodo News", ("Kyodo", "Kyodo News")),
    Agency("Yonhap", "Yonhap", ("Yonhap", "연합뉴스", "Yonhap News")),
    Agency("TASS", "TASS", ("TASS", "ITAR-TASS")),
    Agency("ANSA", "ANSA", ("ANSA",)),
    Agency("Shutterstock", "Shutterstock", ("Shutterstock", "Rex Features", "REX")),
    Agency("Alamy", "Alamy", ("Alamy", "Alamy Stock Photo", "Alamy Live News")),
    Agency("ZUMA Press", "ZUMA Press", ("ZUMA", "ZUMA Press", "ZUMA Wire", "Zuma Press Wire")),
    Agency("NurPhoto", "NurPhoto", ("NurPhoto",)),
    Agency("SOPA Images", "SOPA Images", ("SOPA Images", "SOPA")),
    Agency("Sipa", "Sipa", ("Sipa", "Sipa USA", "Sipa Press")),
    Agency("Abaca", "Abaca Press", ("Abaca", "ABACAPRESS", "Abaca Press")),
    Agency("Adobe Stock", "Adobe Stock", ("Adobe Stock", "AdobeStock", "stock.adobe.com", "Fotolia")),
    Agency("Imago", "Imago", ("Imago", "Imago Images", "imago images", "imago stock&people")),
    Agency("Keystone", "Keystone-SDA", ("Keystone", "Keystone-SDA", "Keystone SDA")),
    Agency("APA", "Austria Presse Agentur", ("APA", "Austria Presse Agentur", "APA-Images")),
    Agency("ANP", "ANP", ("ANP",)),
    Agency("Belga", "Belga", ("Belga",)),
    Agency("Lusa", "Lusa", ("Lusa", "Agência Lusa")),
    Agency("Europa Press", "Europa Press", ("Europa Press",)),
    Agency("Agência Brasil", "Agência Brasil", ("Agência Brasil", "Agencia Brasil")),
    Agency("Sputnik", "Sputnik", ("Sputnik", "RIA Novosti", "RIA Nowosti")),
    Agency("AAP", "Australian Associated Press", ("AAP", "Australian Associated Press", "AAP Image")),
    Agency("Canadian Press", "The Canadian Press", ("The Canadian Press", "Canadian Press")),
    Agency("PTI", "Press Trust of India", ("PTI", "Press Trust of India")),
    Agency("Jiji", "Jiji Press", ("Jiji", "Jiji Press")),
    Agency("WENN", "WENN", ("WENN", "WENN.com")),
    Agency("Scanpix", "Scanpix", ("Scanpix", "Ritzau Scanpix", "NTB Scanpix", "TT News Agency")),
    # stock and photo-sharing sites: the site a contributor's picture comes from ("Dana Whitlow / Pixabay")
    Agency("Unsplash", "Unsplash", ("Unsplash", "unsplash.com")),
    Agency("Flickr", "Flickr", ("Flickr", "flickr.com")),
    Agency("Pixabay", "Pixabay", ("Pixabay", "pixabay.com")),
    Agency("Pexels", "Pexels", ("Pexels", "pexels.com")),
    Agency("pixelio", "pixelio", ("pixelio", "pixelio.de")),
    Agency("Depositphotos", "Depositphotos", ("Depositphotos", "depositphotos.com")),
    Agency("Dreamstime", "Dreamstime", ("Dreamstime", "dreamstime.com")),
    Agency("123RF", "123RF", ("123RF", "123rf.com")),
    Agency("Freepik", "Freepik", ("Freepik", "freepik.com")),
    Agency("PantherMedia", "PantherMedia", ("PantherMedia", "panthermedia.net")),
    Agency("Wikimedia Commons", "Wikimedia Commons", ("Wikimedia Commons", "Wikimedia", "commons.wikimedia.org")),
    Agency("photothek", "photothek", ("photothek", "photothek.net", "photothek.de")),
    Agency("Pool", "Pool", ("Pool",)),
)

_ALIAS = {alias.casefold(): agency for agency in AGENCIES for alias in agency.aliases}
_BUILT_IN_ALIAS = dict(_ALIAS)


def use_source_table(table: Mapping[str, Sequence[str]]) -> None:
    """Add the user's source names ({"BBC News": ["BBC", "BBC Online"]}) to the built-in agencies: each name
    and alias then stands for its canonical name, as a source and in credits. A user's name wins over a
    built-in alias. Called with {} it restores the built-in table."""
    aliases = dict(_BUILT_IN_ALIAS)
    for canonical, others in table.items():
        agency = Agency(canonical, canonical, (canonical, *others))
        for alias in agency.aliases:
            aliases[alias.casefold()] = agency
    _ALIAS.clear()
    _ALIAS.update(aliases)


_PHOTO_WORDS = r"(?:Photos?|Photograph|Pictures?|Images|Foto|Video|pic|pix)"  # "AFP pic", a Malaysian paper's
_AGENCY_PART = re.compile(r"^(?P<name>.+?)(?:\s+(?:file\s+)?" + _PHOTO_WORDS + r")?$", re.I)  # "PTI File Photo"


def find_agency(name: str) -> Optional[Agency]:
    """The agency a name or alias stands for ("AP Photo", "REUTERS", "Getty Images"), or None."""
    name = collapse(name).strip(" .,;:-")
    if not name:
        return None
    agency = _ALIAS.get(name.casefold())
    if agency is None:
        m = _AGENCY_PART.match(name)
        if m:
            agency = _ALIAS.get(m.group("name").casefold())
    if agency is None:
        domain = re.fullmatch(r"(?:www\.)?([a-z0-9-]+)\.(?:com|net|org|co\.uk|de|fr|es|it)", name.casefold())
        if domain:  # "afp.com/Michael Regan"
            agency = _ALIAS.get(domain.group(1))
    return agency


def source_for(name: str) -> str:
    """The canonical source name for an agency name, or the name itself tidied."""
    agency = find_agency(name)
    return agency.source if agency else collapse(name)


_LEAD_IN = re.compile(
    r"^(?:(?:photo|image|picture|video|bild)\s*(?:credits?|source|copyright|quelle)|credits?|photos?|photograph(?:s|er)?|"
    r"pictures?|images?|foto|fot[oó]s?|fot\.|bild|illustration|copyright|quelle|cr[ée]ditos?|cr[ée]dits?|фото|©|\(c\))"
    r"(?:\s*(?:\.{2,}|…)\s*|\s*:\s*|\s+by\s+|\s+|(?<=©))"
    # labels that are also words of a caption ("Symbolbild Rettungsdienst"): a credit only before a colon
    r"|^(?:symbolbild|symbolfoto|archivbild|archivfoto|titelbild|titelfoto|bildquelle|fotoquelle|bildrechte|"
    r"bildnachweis|fotonachweis|imagen|imagem|immagine|sources?|kuva|bilde|billede|fotografia|zdj[eę]cie)\s*:\s*",
    re.I,
)
# A screenshot's source: "Screenshot: Harbour TV", "Screenshot aus Twitter" (not "Screenshot of the menu").
SCREENSHOT_SOURCE = re.compile(
    r"^(?:screenshots?|captura\s+de\s+pantalla|capture\s+d['’]écran|bildschirmfoto)"
    r"(?:\s*[:,]\s*|\s+(?:aus|from|via|von|de|du)\s+)(?P<source>[^.!?–—:]{2,50})$",
    re.I,
)
# A screenshot named after its source: "Harbour TV Screenshot", "Tag24 – Twitter-Screenshot", "YouTube screengrab".
SCREENSHOT_AFTER = re.compile(r"^[^.!?:]{2,50}?[\s-](?:screenshots?|screengrabs?|screen\s+grabs?|screencaps?)$", re.I)
_PHOTO_BY = re.compile(r"^(?:photos?|photograph|picture|image)s?\s+by\s+", re.I)
_MONTH = (
    r"(?:jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz|apr(?:il)?|may|mai|june?|juni|july?|juli|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|dec(?:ember)?|dez(?:ember)?)\.?"
)
_TRAILING_NOTE = re.compile(
    r"(?:\s*[,/;-]\s*|\s+(?!pool\b))\(?(?:files?|file\s+photo|pool|handout|symbolbild|symbolfoto|archivbild|archiv|"
    r"(?:bild)?ausschnitt|crop(?:ped)?|bearbeitet|edited)\)?\.?$"
    r"|\s*[,;]?\s*(?:\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})|\d{4}-\d{2}-\d{2})\.?$"  # or the day it was taken,
    r"|\s*[,;/]\s*(?:" + _MONTH + r"\s+\d{1,2},?\s+\d{4}|\d{1,2}\.?\s+" + _MONTH + r"\s+\d{4})\.?$",  # in words
    re.I,
)
# "NASA via AP", "Handout via Reuters", "Saul Loeb/AFP via Getty Images": a picture distributed by an agency.
_VIA_AGENCY = re.compile(r"^(?P<origin>.{2,80}?)\s+v[ií]a\s+(?P<agency>[^/,;]{2,40})$", re.I)
_NOT_A_NAME = {
    "file",
    "pool",
    "handout",
    "courtesy",
    "staff",
    "stringer",
    "str",
    "str.",
    "photo",
    "photos",
    "ho",
    "contributor",
}
_DISTRIBUTORS = {"Getty Images", "Pool", "Shutterstock", "Alamy", "ZUMA Press"}
_NAME = re.compile(r"^[^\W\d_][\w'’.\- ]{0,60}$")


def _looks_like_person(name: str) -> bool:
    words = name.split()
    return (
        2 <= len(words) <= 5
        and bool(_NAME.match(name))
        and all(w[:1].isupper() or w in _PARTICLES for w in words)
        and not any(len(w) >= 2 and w.isupper() and "." not in w for w in words)  # "PGA of America"
    )


def looks_like_person(name: str) -> bool:
    """Two to five capitalised words, no organisation's word: how a person's name is written in a credit."""
    return _looks_like_person(name) and not _ORG_WORDS.search(name)


_PARTICLES = {"de", "da", "di", "van", "von", "der", "den", "al", "el", "bin", "la", "le", "du", "dos", "das"}


def _could_be_photographer(name: str) -> bool:
    """A person's name as credits write it: one to five words, not a role ("File", "Staff"), and starting like a
    name, not like a phrase or an organisation ("the family", "The New York Times")."""
    words = name.split()
    if not words or len(words) > 5 or name.casefold() in _NOT_A_NAME or not _NAME.match(name):
        return False
    if _PHOTO_SERVICE.search(name):
        return False  # "SZ Photo", "Harbour Foto": a picture service's name
    first = words[0]
    return (first[:1].isupper() or first in _PARTICLES) and first.casefold() not in ("the", "a", "an")


def _tidy_name(name: str) -> str:
    name = collapse(name).strip(" .,;:-")
    if name.isupper() and len(name) > 3 and not _USER_DIGITS.search(name):  # "PIRO4D", a user name, as written
        name = " ".join(w.capitalize() if not re.fullmatch(r"[A-Z]\.?", w) else w for w in name.split())
    return name


def _strip_notes(text: str) -> str:
    while True:
        trimmed = _TRAILING_NOTE.sub("", text)
        if trimmed == text:
            return text
        text = trimmed


_SENTENCE_END = re.compile(r"(?<=[a-z])\.\s+(?=[A-Z])")
# A web address names one organisation, slashes and all ("Image credit: www.example.com/in/").
_WEB_ADDRESS = re.compile(
    r"(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-zA-Z]{2,6}\b(?:/[a-z0-9._-]+)*(?:/(?=\s|$))?"
)
# A stock contributor's user name ("hafenfoto/stock.adobe.com").
_USER_NAME = re.compile(r"^(?=\d*[a-z])[a-z0-9][\w.\-]{2,30}$")


_STOCK = frozenset(
    {
        "Getty Images",
        "Shutterstock",
        "Adobe Stock",
        "Unsplash",
        "Flickr",
        "Pixabay",
        "Pexels",
        "pixelio",
        "Depositphotos",
        "Dreamstime",
        "123RF",
        "Freepik",
        "PantherMedia",
    }
)


_USER_DIGITS = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")


def _beside_stock(part: str, pieces: list[str]) -> bool:
    """Beside a stock site, where contributors go by user names ("PIRO4D / Pixabay")."""
    return any((a := find_agency(p)) is not None and a.short in _STOCK for p in pieces if p != part)


def _split_parts(origin: str) -> list[str]:
    addresses: list[str] = []

    def hold(m: re.Match) -> str:
        addresses.append(m.group(0))
        return f"\x00{len(addresses) - 1}\x00"

    held = _WEB_ADDRESS.sub(hold, origin)
    # ", Inc." and ", Ltd." belong to the name before them.
    parts = re.split(
        r"\s*/\s*|\s*\|\s*|\s+[-–—]\s+|,\s+(?!(?:inc|ltd|llc|corp|co|plc|gmbh|ag|s\.?a)\b)|;\s*|\s*[()]\s*",
        held,
        flags=re.I,
    )
    restored = [re.sub(r"\x00(\d+)\x00", lambda m: addresses[int(m.group(1))], p) for p in parts]
    # "iStock.com/hafenfoto": a known agency's address and its contributor's page
    split: list[str] = []
    for part in restored:
        at = re.fullmatch(r"((?:[\w-]+\.)+[a-zA-Z]{2,6})/([\w.-]{2,40})/?", part)  # "stock.adobe.com/hafenfoto"
        split += [at.group(1), at.group(2)] if at and find_agency(at.group(1)) is not None else [part]
    return split


_POSITION = re.compile(r"^(?:l|r|left|right|top|bottom|above|below|links|rechts|oben|unten|gauche|droite)\s*:\s*", re.I)
MIN_ORGANISATION_WORDS = 4  # a part this long is an organisation's name, not a person's


def _names_an_organisation(pieces: list[str]) -> bool:
    return any(_ORG_WORDS.search(p) or _WEB_ADDRESS.fullmatch(p) or _ABBREVIATION.fullmatch(p) for p in pieces) or (
        # an organisation's long name ("Presse- und Informationsamt der Bundesregierung | Ines Rowe")
        len(pieces) == 2 and any(len(p.split()) >= MIN_ORGANISATION_WORDS for p in pieces)
    )


def _pieces(origin: str) -> tuple[list[str], list[str]]:
    """A credit's parts without their labels, notes and dates, and as written; none when every part is a note."""
    # "L: Harbour House / R: Rowe Books": each picture's place ("left:", "oben:") before its credit
    written = [_POSITION.sub("", p.strip(" ()[]")) for p in _split_parts(origin) if p.strip(" ()[]")]
    written = [p for p in written if p]
    # "Mark Wilson/2011 Getty Images"
    pieces = [re.sub(r"^(?:19|20)\d\d\s+", "", p if find_agency(p) else _LEAD_IN.sub("", p).strip()) for p in written]
    # "Symbolbild / Harbour AG", "Reprodução/Harbour TV": a note or the photo's origin, not a name
    kept = [(p, w) for p, w in zip(pieces, written, strict=True) if not _PART_NOTE.match(p)]
    return [p for p, _ in kept], [w for _, w in kept]


def _read_parts(origin: str, *, beside: bool, described: bool) -> tuple[Optional[str], list[Agency], list[str]]:
    """A credit's parts ("Saul Loeb/AFP", "Ric Clarson/PGA Tour Archive") read into a photographer, the known
    agencies and the other organisations named. Beside an agency or organisation (or after "Photo by",
    before "via") a name is its photographer; alone it must start with a known first name to be one
    ("Markus Leitner", not "Blue Origin"). `described`: a long description before "via" is a handout's
    origin, not an organisation's name."""
    pieces, written = _pieces(origin)
    if not pieces:
        return None, [], []  # "Reprodução", "Arquivo pessoal": where the photo came from, no one named
    archives = {_ARCHIVE_OF.sub("", p) for p in pieces if _ARCHIVE_OF.match(p)}  # "Archivo El País": its own archive
    pieces = [_ARCHIVE_OF.sub("", p) for p in pieces]
    known_agency = any(find_agency(p) for p in pieces)
    beside = beside or known_agency or _names_an_organisation(pieces)
    photographer: Optional[str] = None
    agencies: list[Agency] = []
    organisations: list[str] = []
    if (
        len(pieces) == 2
        and _ABBREVIATION.fullmatch(pieces[0])
        and _SURNAME.fullmatch(pieces[1])
        and find_agency(pieces[1]) is None
    ):
        # "HTA / Whitlow": an organisation's initials, then its photographer's surname
        if find_agency(pieces[0]) is None:
            return pieces[1], [], [pieces[0]]
    behind: list[Agency] = []  # a picture library beside the agency that made the picture
    for part, as_written in zip(pieces, written, strict=True):
        found = find_agency(part)
        if found is not None and len(pieces) > 1 and _LIBRARY.fullmatch(part):
            behind.append(found)  # "picture alliance / Xinhua": Xinhua's picture, from dpa's library
        elif found is not None:
            agencies.append(found)
        if found is not None:
            continue
        if part in archives:
            organisations.append(part)
            continue
        name = _tidy_name(part)
        # a stock or social site's user ("hafenfoto/stock.adobe.com", "@harbourcam / Twitter")
        user = (known_agency or any(_WEB_ADDRESS.fullmatch(p) for p in pieces if p != part)) and part == as_written
        user = (
            user and bool(_USER_NAME.match(part)) and part not in _NOT_A_NAME or bool(re.fullmatch(r"@\w{2,30}", part))
        )
        if photographer is None and user:
            photographer = name
        elif (
            photographer is None
            and _could_be_photographer(name)
            and (
                _is_person(name)
                or beside
                and _looks_like_person(name)
                and not _ORG_WORDS.search(name)
                # a stock contributor's one-word name beside its agency or site ("Sarawut / Adobe Stock",
                # "Rike/harbourpics.de")
                or (known_agency or any(_WEB_ADDRESS.fullmatch(p) for p in pieces if p != part))
                and len(name.split()) == 1
                and (
                    not part.isupper() or _USER_DIGITS.search(part) and _beside_stock(part, pieces)
                )  # "PIRO4D / Pixabay": a user's name
                and name.casefold() not in _NOT_A_NAME
                and not _ORG_WORDS.search(name)
                and not _WEB_ADDRESS.fullmatch(part)  # "HarbourPhotos.com / Adobe Stock": a studio's site
            )
        ):
            photographer = name
        elif photographer is not None and _could_be_photographer(name) and _is_person(name):
            photographer = f"{photographer}, {name}"  # "© Jörg Harbour, Ines Rowe": two photographers
        elif _is_organisation(part) and not (described and len(part.split()) > 4 and not _ORG_WORDS.search(part)):
            organisations.append(part.strip(" .,;:-"))  # as written: "NASA", "WENN.com"
        elif len(pieces) > 1 and _BRAND.fullmatch(part) and part.casefold() not in _NOT_A_NAME:
            organisations.append(part)  # "sidm / Harbour TV": a magazine's short name, written small
    if not agencies and not organisations:
        agencies = behind
    return photographer, agencies, organisations


_LIBRARY = re.compile(r"picture[\s-]alliance", re.I)


# A brand written in small letters ("hafenfoto", "harbour-works.de"), not a role or a note.
_BRAND = re.compile(
    r"(?!(?:privat|private|archiv|archive|file|pool|handout|staff|symbolbild|symbolfoto)$)[a-z][a-z0-9.\-]{2,30}"
)
_PHOTO_SERVICE = re.compile(r"\s(?:photos?|fotos?)$", re.I)
# Not a lead-in of `is_credit`: AP captions start "FILE: In this photo ...".
_FILE_LABEL = re.compile(r"^file\s*:\s*(?=\S)", re.I)
# "Foto 1 de 1", "Photo 3 of 12": a slideshow's counter, not a credit.
COUNTER_LABEL = re.compile(
    r"^(?:fotos?|photos?|bild|image[ns]?|imagen|slide)\s+\d+\s*(?:de|of|von|/|sur|di|z)\s*\d+$", re.I
)
# "CC-BY-NC 2.0 Dana Whitlow": a licence written before the name.
_LEADING_LICENCE = re.compile(r"^CC[\s-]?(?:BY|0)(?:[\s-](?:NC|ND|SA))*(?:\s+\d\.\d)?\s+(?=[A-ZÀ-Þ])", re.I)
_ARCHIVE_OF = re.compile(r"^(?:[Aa]rchivo|[Aa]rquivo|[Aa]rchiv|[Aa]rchive|[Aa]rchivio)\s+(?=[A-ZÀ-Þ])")
_PART_NOTE = re.compile(
    r"^(?:symbolbild|symbolfoto|archivbild|archivfoto|archiv|archivo|arquivo|archivio|archive|file|reprodu[çc][ãa]o|reproducci[óo]n|divulga[çc][ãa]o|"
    r"arquivo\s+pessoal|archivo\s+personal|archivio\s+personale|privat|private|privatarchiv|"
    # the maker of the product shown, as a role: "Foto: Hersteller", "PR"
    r"hersteller|manufacturer|pr|promo|anbieter|beigestellt|zur\s+verf[üu]gung\s+gestellt)$",
    re.I,
)
_ORIGIN_ONLY = re.compile(
    r"^(?:(?:file|submitted|contributed|courtesy|staff|handout|stock|archive)\s+(?:photo|image|picture)s?|"
    r"cedida|cortes[ií]a|divulga[çc][ãa]o|reprodu[çc][ãa]o|privat|private)$",
    re.I,
)
# A licence after the credit ("(Unsplash License)", "CC BY-SA 2.0"): how the photo may be used, not who made it.
_LICENCE = re.compile(
    r"\s*[,(|/-]?\s*(?:CC[\s-]?(?:BY|0)\b[\w\s.-]*|public\s+domain|gemeinfrei|[\w-]+\s+licen[sc]e|lizenz\w*)\s*\)?\s*$",
    re.I,
)


# A last sentence that gives a photo's licence ("Verwendung unter den Bedingungen der Creative Commons (BY-SA).",
# "Used under a CC BY 2.0 licence.").
_LICENCE_SENTENCE = re.compile(
    r"(?<=[.!?])\s+[^.!?]*\b(?:creative\s+commons|CC[\s-]?BY|licen[sc]e[ds]?|lizenz\w*)\b(?:[^.!?]|\.(?=\d))*[.!?]?\s*$",
    re.I,
)


# "..., Inc. All Rights Reserved", "Alle Rechte vorbehalten": the copyright notice's formula, no name in it.
# The formula in the languages of the archive's pages (also read by the caption reader's rights notices).
RIGHTS_RESERVED = (
    r"all\s+rights\s+reserved|alle\s+rechte\s+vorbehalten|tous\s+droits\s+r[ée]serv[ée]s|"
    r"tod[oa]s\s+(?:los|os)\s+(?:derechos|direitos)\s+reservados|tutti\s+i\s+diritti\s+riservati|"
    r"alle\s+rechten\s+voorbehouden|wszelkie\s+prawa\s+zastrze[żz]one"
)
_RIGHTS = re.compile(r"[,.]?\s*(?:" + RIGHTS_RESERVED + r"|all\s+rights?)\.?\s*$", re.I)  # also cut short
_LEADING_YEARS = re.compile(r"^(?:19|20)\d\d(?:\s*[-–]\s*(?:19|20)?\d\d)?\s+(?=\D)")
_YEAR_BETWEEN = re.compile(r"(?<=[^\W\d])\s+(?:19|20)\d\d\s+(?=[A-ZÀ-Þ])")


def _without_rights(text: str) -> str:
    """A copyright notice read as a credit: "1996-98 Harbour Works Inc., All rights reserved" names Harbour Works;
    "Ines Rowe 2021 Harbour Works, Inc." names its photographer, the year, then the owner."""
    text = _LEADING_YEARS.sub("", _RIGHTS.sub("", text))
    return _YEAR_BETWEEN.sub(" / ", text)


def parse_credit(credit: str) -> tuple[Optional[str], Optional[str]]:
    """Split a photo credit into (photographer, agency): "AP Photo/Emrah Gurel" -> ("Emrah Gurel", "AP").

    The agency is a known agency's short name ("AP", "Getty Images") or the organisation the credit names
    ("John Smith/The New York Times" -> "The New York Times", "Image credit: Blue Origin" -> "Blue Origin").
    A picture made by one and distributed by another names its maker: "Saul Loeb/AFP via Getty Images" ->
    AFP, "Elias Funez/The Union via AP" -> The Union, "NASA via AP" -> NASA; a handout ("Governor's office
    of Kursk Region, via Reuters", "Pool photo by ...") names no photographer unless a person is named as
    taking it. A part is a person when it reads as a name and starts with a known first name."""
    credit = re.sub(r"^\s*\([cC]\)\s*", "© ", credit)  # "(C) Dana Whitlow": the copyright sign as typed
    credit = _TRAILING_ADDRESS.sub("", credit)  # "Foto: Jesco Rowe, CC BY-SA 3.0, https://...": the source's address
    text = _FILE_LABEL.sub("", collapse(credit).strip(" .()"))  # "[File: Reuters]": an archive photo's credit
    if _ORIGIN_ONLY.match(text) or COUNTER_LABEL.match(text):
        return None, None  # "Submitted photo", "File photo": where the photo came from, nobody named
    korean = _KOREAN_CREDIT.fullmatch(text)
    if korean:
        # "사진=하버시 제공" (photo: supplied by Harbour City), "부산=김하버 기자" (Busan: reporter Kim Harbour)
        if korean.group("reporter"):
            return korean.group("reporter"), None
        source = korean.group("source").strip()
        known = find_agency(source)
        return None, known.short if known else source
    screenshot = SCREENSHOT_SOURCE.match(text)
    if screenshot:
        source = screenshot.group("source").strip()
        return None, (source if _is_organisation(source) else None)
    sentences = [p for p in _SENTENCE_END.split(text) if p.strip(" .")]
    if len(sentences) > 1 and all(is_credit(p) for p in sentences):
        # "Photo illustration by Harbour Times. Photo by Dana Whitlow.": the sentence naming a photographer.
        readings = [parse_credit(p) for p in sentences]
        return next((r for r in readings if r[0]), readings[0])
    by_line = bool(re.match(r"^(?:(?:pool\s+)?photo(?:graph)?s?|pictures?|images?)\s+by\s+", text, re.I))
    unlabelled = text
    for _ in range(2):
        if find_agency(re.split(r"\s*[/|,]\s*", text)[0]) is not None:
            break  # "picture alliance / dpa": an agency's name, not a "Picture:" label
        text = _LEAD_IN.sub("", text).strip()
    signed = unlabelled.startswith("©")  # the copyright sign, not a "Foto" label ("Foto beigestellt")
    pool = bool(re.match(r"^pool\b", text, re.I))
    courtesy = bool(re.match(r"^(?:photo\s+)?(?:courtesy|care\s+of)\b", text, re.I))  # "Care of X": X's own
    text = re.sub(r"^(?:pool\s+)?(?:photo\s+)?(?:courtesy(?:\s+of)?|care\s+of|by|von)\s+", "", text, flags=re.I)
    text = _without_rights(_LEADING_LICENCE.sub("", text))
    while (shorter := _LICENCE.sub("", text)) != text:
        text = shorter  # "Dana Whitlow, Lizenz CC BY-SA 4.0": the licence, then its label
    text = _strip_notes(text)
    origin, distributor = text, ""
    # "Dana Whitlow on Unsplash": a photo-sharing site's own credit line, read as "via".
    via_at = re.search(r"\s*,?\s+v[ií]a\s+", text, re.I) or re.search(r"\s+on\s+(?=[A-Z][\w.-]*$)", text)
    if via_at:
        origin, distributor = text[: via_at.start()], text[via_at.end() :]
    # "... for Ithaca Holdings": the client a picture was made for, the agency only when no agency is named
    # ("Jane Doe for The New York Times").
    client = ""
    for_at = re.search(r"\s+for\s+", origin, re.I)
    if for_at:
        origin, client = origin[: for_at.start()], origin[for_at.end() :].strip(" .,;:-")
    photographer, agencies, organisations = _read_parts(
        origin, beside=via_at is not None or pool or by_line, described=bool(distributor)
    )
    if signed and not (photographer or agencies or organisations or distributor) and _BRAND.fullmatch(origin):
        organisations.append(origin)  # "© hafenfoto", "(c) harbourworks": the owner's brand, written small
    if client and not agencies and _is_organisation(client):
        maker = organisations[0] if len(organisations) == 1 and not photographer else ""
        if maker and len(maker.split()) <= 3 and _could_be_photographer(maker) and not _ORG_WORDS.search(maker):
            # "Harbourcam for Harbour Magazine": a maker working for the client, by the name it signs with
            photographer, organisations = maker, []
        if not organisations:
            organisations.append(client)
    if distributor and photographer is None and not agencies and not organisations and _USER_NAME.match(origin):
        photographer = origin.strip()  # a site's user ("harbourcam via Unsplash")
    agency = _maker(agencies, organisations, distributor, pool=pool)
    if courtesy and not agencies:
        # "Courtesy of Piyum Moghadam", "... of Dylan Tinsley and Hannah Phalen": a family's or a subject's
        # own picture, supplied by people, not taken by a named photographer for an agency.
        photographer = None
        if agency and (" and " in agency or _looks_like_person(agency) and not _ORG_WORDS.search(agency)):
            agency = None
    return photographer, agency


def _maker(agencies: list[Agency], organisations: list[str], distributor: str, *, pool: bool) -> Optional[str]:
    """The agency a credit names: who made the picture before who distributes it ("Saul Loeb/AFP via Getty
    Images" -> AFP), an organisation before a distributing agency, "Pool" when only a pool is named."""
    via = find_agency(distributor) if distributor else None
    makers = [a for a in agencies if a.short not in _DISTRIBUTORS]
    if makers:
        return makers[0].short
    if organisations:
        return organisations[0]
    if via is not None:
        return via.short
    if agencies:
        return agencies[0].short
    if distributor and _is_organisation(distributor):
        return distributor.strip(" .,;:-")
    return "Pool" if pool else None


_ABBREVIATION = re.compile(r"[A-ZÄÖÜ][A-ZÄÖÜ0-9]{1,5}")
_SURNAME = re.compile(r"[A-ZÄÖÜ][a-zà-ÿß]+(?:-[A-ZÄÖÜ][a-zà-ÿß]+)?")
_ORG_WORDS = re.compile(
    r"\b(?:inc|corp|corporation|co|ltd|llc|gmbh|ag|plc|company|media|news|press|images|photos|pictures|agency|"
    r"archive|archives|museum|library|university|office|ministry|department|government|police|studios?|films?|"
    r"records|foundation|institute|association|magazine|times|post|tribune|journal|herald|wire|network|group|"
    r"robotics|systems|twitter|facebook|instagram|youtube|nasa|handout|national|international|club|league|tour|"
    r"federation|council|committee|service|center|centre|hospital|school|college|church|team|festival|bank|pool)\b\.?"
    # other languages' words, also closing a compound ("Bundesfinanzministerium", "Landratsamt")
    r"|\b\w*(?:ministerium|ministerio|minist[eè]re|minist[eé]rio|gobierno|governo|gouvernement|regierung|polic[ií]a|"
    r"polizei|universidad|universit[éàä]t?|hochschule|stiftung|verein|verband|gesellschaft|agentur|amt|beh[öo]rde|"
    r"kommission|ayuntamiento|prefeitura|municipalidad|gemeinde|feuerwehr|klinikum|krankenhaus|museo|mus[ée]e|"
    r"bibliothek|fundaci[óo]n|funda[çc][ãa]o|fondation|instituto?|zentrum|centro|verlag|rundfunk|zeitung)\b",
    re.I,
)
_first_names = None


def _is_person(name: str) -> bool:
    """A name whose first word is a known first name (of any country), and no organisation's word in it."""
    global _first_names
    words = name.split()
    if len(words) < 2 or _ORG_WORDS.search(name):
        return False
    if not all(w[:1].isupper() or w in _PARTICLES for w in words):
        return False  # "Lily of the Valley": a place's or a firm's name
    if _first_names is None:
        import gender_guesser.detector as gender  # noqa: PLC0415 (its name table loads on first use)

        _first_names = gender.Detector(case_sensitive=False)
    first = words[0].strip(".")
    if len(first) == 1:  # "J. Scott Applewhite", "E. Blaževič", not "LG"
        return True
    # "Juergen": a name spelt without its umlaut
    spellings = {first, first.split("-")[0], re.sub(r"([aou])e", lambda m: {"a": "ä", "o": "ö", "u": "ü"}[m[1]], first)}
    known = any(_first_names.get_gender(f) != "unknown" for f in spellings)
    return known or words[0] in _PARTICLES  # "Kurt-Walter Harbour": a double first name by its first part


def _is_organisation(name: str) -> bool:
    """A named organisation or source: capitalised, one to eight words, not a role ("File", "Staff")."""
    words = name.split()
    if not words or len(words) > 8 or name.casefold() in _NOT_A_NAME:
        return False
    # "iG Harbour": a brand written with a small first letter
    camel = bool(re.match(r"^[a-z][A-Z]", words[0]))
    return words[0][:1].isupper() or words[0][:1].isdigit() or camel or bool(_WEB_ADDRESS.fullmatch(name))


_ARTICLE_FIRST = re.compile(r"(?:der|die|das|ein|eine|einen|the|a|an|le|les|un|une|el|los|las|il|lo|o|os|as)\s")


def is_credit(text: str) -> bool:
    """True for text that reads as a photo credit: "AP Photo/Emrah Gurel", "Photo by X/Getty Images", "Reuters/X"."""
    text = collapse(text).strip(" .")
    if not text or len(text) > 150 or COUNTER_LABEL.match(text):
        return False
    if _KOREAN_CREDIT.fullmatch(text):
        return True
    rest = _LEAD_IN.sub("", text)
    if _LEAD_IN.match(text) and _ARTICLE_FIRST.match(rest):
        return False  # "Bild: der Harbour Cruiser, ein Campingbus": the picture described, not credited
    if _LEAD_IN.match(text) and len(rest) >= 2 and not (len(rest.split()) > 8 and re.search(r"[.!?]\s+\S", rest)):
        return True  # "Photo: Ines Rowe/AP", not "Bild: The ferry leaves. Dana Whitlow took it."
    if re.match(r"^(?:courtesy|care\s+of)\b", text, re.I) or SCREENSHOT_SOURCE.match(text):
        return True
    if SCREENSHOT_AFTER.match(text) and len(text.split()) <= 6:
        return True
    text = _strip_notes(text)
    via = _VIA_AGENCY.match(text)
    if via and find_agency(via.group("agency")) is not None and len(via.group("origin").split()) <= 6:
        return True
    parts = [p for p in re.split(r"\s*/\s*|\s+v[ií]a\s+", text) if p.strip()]
    agencies = [find_agency(p) for p in parts]
    if len(parts) == 2 and any(_PART_NOTE.match(p) for p in parts) and all(map(_is_organisation, parts)):
        return True  # "Archivo/Harbour Times": the paper's own archive photo
    if len(parts) == 2 and not any(agencies):
        # "Karl Mondon/Bay Area News Group": a person and an organisation that names itself as one.
        # Or the other way round: "Goddard Space Flight Center/Ines Rowe".
        for person, organisation in ((_tidy_name(parts[0]), parts[1]), (_tidy_name(parts[1]), parts[0])):
            if _looks_like_person(person) and _ORG_WORDS.search(organisation) and len(organisation.split()) <= 6:
                return True
        return False
    if len(parts) >= 2 and any(agencies):
        # "Reuters/Kevin Lamarque" names a photographer; "Reuters/VNU" or "Reuters/Nielsen" is a syndication tag.
        names = [_tidy_name(p) for p, a in zip(parts, agencies, strict=False) if a is None]
        return all(_looks_like_person(n) or n.casefold() in _NOT_A_NAME or _USER_NAME.match(n) for n in names)
    if len(parts) == 1 and agencies[0] is not None:
        # A bare agency name is a wire sign-off ("(Reuters)"); with "Photo"/"Images" it is a credit.
        return bool(re.search(_PHOTO_WORDS + r"$", text, re.I)) or agencies[0].short == "Getty Images"
    return False


# A group in round or square brackets at the very end of a paragraph.
_TRAILING_PARENS = re.compile(r"\s*(?:\(([^()]{1,160})\)|\[([^\[\]]{1,160})\])\s*\.?\s*$")
# Unbracketed credits at the end: "... on Friday. Photograph: Peter Byrne/PA" or "... REUTERS/Kevin Lamarque".
_TRAILING_LABELLED = re.compile(
    r"(?:(?<=[.!?\"”’'»)\]])|(?<=,)|^)\s*(?:[–—-]\s+)?((?:(?:(?:photo|image|picture)\s+credit|credit|photo(?:graph(?:er)?)?|foto|"
    r"picture|image|imagen|imagem|immagine|bild)s?\s*(?::|by)"
    r"|(?:bildquelle|fotoquelle|quelle|sources?|kuva|bilde|billede|fotografia|zdj[eę]cie)\s*:|fot\.)\s*"
    # a dot only inside a name ("Harbourpics.com"), after a short abbreviation ("Theater St. Gallen") or an initial
    r"(?:[^.:]|\.(?=\w))(?:[^.:]|\.(?=\w)|(?<=\b[A-Z][a-z])\.(?=\s[A-Z])|(?<=\b[A-Z])\.(?=\s[A-Z])){1,99}?)\s*\.?\s*$",
    re.I,
)
# "Rep. Mark Meadows. | Alex Wong/Getty Images": a credit after a bar.
# "... Datacenter. Foto Ines Rowe via Unsplash": the label without its colon, before a name (checked as a credit).
_TRAILING_BARE_LABEL = re.compile(
    r"(?<=[.!?\"”])\s+((?:[Pp]hoto|PHOTO|[Ff]oto|FOTO|[Bb]ild|[Pp]icture|[Ii]mage)s?\s+[A-ZÀ-Þ@][^.!?:]{2,80}?)\s*\.?\s*$"
)
# "... in Peking, 23. Oktober Bild: picture alliance / Ines Rowe": a capitalised label with its colon straight after
# the caption's last word (the page dropped the line break between them); kept when it names someone.
_TRAILING_LABEL_AFTER_WORD = re.compile(
    r"(?<=\w)\s+((?:Photo|PHOTO|Foto|FOTO|Bild|BILD|Picture|Image|IMAGE|Kuva|Photograph|Credit|CREDIT)s?\s*:\s*[^:]{2,100}?)"
    r"\s*\.?\s*$"
)
_TRAILING_AFTER_BAR = re.compile(r"\s+\|\s+([^|]{2,100}?)\s*$")
# "... the harbour at dawn / Foto: Ines Rowe", "... / Фото з фейсбуку Ines Rowe": a labelled credit after a slash.
_TRAILING_SLASH_LABEL = re.compile(
    r"\s+/\s+((?:(?:photo|foto|фото|bild|image|picture)s?\b|fot\.)[^/]{2,100}?)\s*\.?\s*$", re.I
)
# "... warme Tage? (c) Harbour Tourismus | hafenfoto.at": a copyright sign opening the credit after a sentence.
_TRAILING_COPYRIGHT_SIGN = re.compile(r"(?<=[.!?\"”])\s+((?:©|\([cC]\))\s*[^©]{2,100}?)\s*$")
# "... Foto: Jesco Rowe, CC BY-SA 3.0, https://commons.example.org/file/12": the credit's source address.
_TRAILING_ADDRESS = re.compile(r",?\s+https?://\S+$")
# "... in Braunau am Inn, Austria. Leonhard Foeger / Reuters file": a name and an agency after the last sentence.
_TRAILING_NAME_SLASH = re.compile(
    r"(?<=[.!?\"”])(?<!\s[A-Z]\.)\s+((?:[A-Z]\.\s*)*[^.!?/]{2,60}?\s*/\s*[^.!?/]{2,60}?)\s*\.?\s*$"
)
_TRAILING_AGENCY_SLASH = re.compile(
    r"(?:(?<=[.!?\"”])|^)\s*((?:REUTERS|Reuters|AFP|EPA(?:-EFE)?|AP)\s*/\s*[^\s/][^/]{1,60}?)\s*\.?\s*$"
)


MAX_CAPTION_WORDS = 150
MIN_WORDS_BEFORE_GLUED_LABEL = 3  # "Left Image: ...": a picture's place before its credit, no caption
_LABEL_IN = re.compile(r"\b(?:photo|foto|bild|picture|image|credit)s?\s*:", re.I)
# Korean papers' credits: "사진=하버시 제공" (photo = supplied by Harbour City), "사진=연합뉴스", and the place and
# reporter ending a photo's caption: "잠실=김하버 기자 harbour@example.com /2020.08.20/".
_KOREAN_CREDIT = re.compile(
    r"(?:사진|자료|그래픽)\s*=\s*(?P<source>[^=.!?]{1,30}?)(?:\s*제공)?"
    r"|[^\s=]{1,10}\s*=\s*(?P<reporter>[가-힣]{2,4})\s*기자(?:\s+\S+@\S+)?(?:\s*/?\s*\d{4}[./]\d{1,2}[./]\d{1,2}\.?\s*/?)?"
)
_TRAILING_KOREAN = re.compile(r"(?:(?<=[.!?。\s])|^)\s*(" + _KOREAN_CREDIT.pattern + r")\s*$")


# A date closing a credit in brackets: "/ January 27, 2013".
_CREDIT_DATE = re.compile(
    r"\s*/\s*(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},\s+\d{4}$", re.I
)
# "Ines Rowe, Harbour Times": a person, a comma, then a publisher's capitalised name.
_PERSON_COMMA_PUBLISHER = re.compile(
    r"^(?P<person>[^,()]{3,40}),\s+(?P<publisher>(?:The\s+)?[A-Z][\w.&'’-]*(?:\s+[A-Z][\w.&'’-]*){0,4})$"
)


def _person_and_publisher(inner: str) -> bool:
    """A bracket closing a caption that names a person then a publisher ("... at dawn. (Ines Rowe, Harbour
    Times)"): the photographer and the paper they shot it for."""
    m = _PERSON_COMMA_PUBLISHER.match(inner)
    return m is not None and looks_like_person(m.group("person")) and not looks_like_person(m.group("publisher"))


def split_caption(paragraph: str) -> Optional[tuple[str, str, Optional[str]]]:
    """If the paragraph ends in a photo credit, return (caption text, credit, source named after it); else None.

    Handles "... 2015. (AP Photo/Emrah Gurel) (The Associated Press)", "... (Photo by X/Getty Images)",
    "... Photograph: X/PA", "... Foto: X/dpa", "... REUTERS/X" and "... | X/Getty Images". A paragraph
    longer than any caption is body text.
    """
    text = paragraph.rstrip()
    if text.count(" ") >= MAX_CAPTION_WORDS:
        return None
    # "... Bild: Ines Rowe auf Wikimedia Commons. Verwendung unter CC BY-SA.": the credit's licence, after it;
    # "..., https://commons.example.org/file/12": its address
    for after, joint in ((_LICENCE_SENTENCE, ". "), (_TRAILING_ADDRESS, ", ")):
        tail = after.search(text)
        if tail and tail.start() > 0 and (split := split_caption(text[: tail.start()])) is not None:
            return split[0], f"{split[1]}{joint}{tail.group(0).strip(' .,')}", split[2]
    source: Optional[str] = None
    credit: Optional[str] = None
    for _ in range(3):
        m = _TRAILING_PARENS.search(text)
        if not m:
            break
        inner = (m.group(1) or m.group(2)).strip()
        # in square brackets, a bare agency is a photo's credit too ("... in 2001 [File: Reuters]", "[AFP]")
        bracketed = m.group(2) is not None and find_agency(_FILE_LABEL.sub("", inner))
        inner = _CREDIT_DATE.sub("", inner)  # "(Ines Rowe, Harbour Times / January 27, 2013)": when, not who
        if credit is None and (is_credit(inner) or bracketed or _person_and_publisher(inner)):
            credit = inner
            text = text[: m.start()].rstrip()
            continue
        agency = find_agency(inner)
        if agency is not None and source is None and credit is None:
            # A trailing source tag such as "(The Associated Press)" after the credit.
            source = agency.source
            text = text[: m.start()].rstrip()
            continue
        break
    if credit is None:
        for pattern in (
            _TRAILING_KOREAN,
            _TRAILING_LABELLED,
            _TRAILING_AGENCY_SLASH,
            _TRAILING_AFTER_BAR,
            _TRAILING_SLASH_LABEL,
            _TRAILING_COPYRIGHT_SIGN,
            _TRAILING_NAME_SLASH,
        ):
            m = pattern.search(text)
            # after a bar, a known agency alone is the credit too ("... in Tokyo. | KYODO")
            bare_agency = pattern is _TRAILING_AFTER_BAR and m and find_agency(m.group(1).strip(" .")) is not None
            if m and (is_credit(m.group(1)) or bare_agency):
                credit = m.group(1).strip()
                text = text[: m.start(1)].rstrip(" |–—-/,")
                break
    if credit is None and (m := _TRAILING_BARE_LABEL.search(text)) and is_credit(m.group(1)):
        named = parse_credit(m.group(1))
        if named[0] is not None and (named[1] is not None or len(m.group(1).split()) <= 4):
            credit = m.group(1).strip()
            text = text[: m.start(1)].rstrip()
    # (not after a copyright sign: "... Drosten © picture alliance/dpa Foto: Ines Rowe" ends in a credit's repeat)
    if credit is None and "©" not in text and (m := _TRAILING_LABEL_AFTER_WORD.search(text)) and is_credit(m.group(1)):
        before = text[: m.start(1)]
        # not after another credit's label ("Left Image: NOAA, Right Image: Ines Rowe": credits alone)
        if (
            any(parse_credit(m.group(1)))
            and len(before.split()) >= MIN_WORDS_BEFORE_GLUED_LABEL
            and not _LABEL_IN.search(before)
        ):
            credit = m.group(1).strip()
            text = text[: m.start(1)].rstrip()
    if credit is None:
        return None
    return collapse(text), collapse(credit).strip(" ."), source


def caption_from_parts(text: str, credit: Optional[str]) -> CaptionData:
    """A CaptionData with its credit split into photographer and agency."""
    photographer, agency = parse_credit(credit) if credit else (None, None)
    return CaptionData(text=collapse(text), credit=credit or None, photographer=photographer, agency=agency)
