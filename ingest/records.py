"""Plain data passed from readers to the store: no database, no side effects."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from typing import Optional

from . import stories
from .normalise import drop_invisible, safe_text


def http_url(value: object) -> Optional[str]:
    """An absolute http(s) address, or None (a photo's address is kept only in that form)."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if value.startswith(("http://", "https://")) and len(value) <= 2000 and not any(c.isspace() for c in value):
        return value
    return None


@dataclass
class CaptionData:
    text: str
    credit: Optional[str] = None
    photographer: Optional[str] = None
    agency: Optional[str] = None
    image_url: Optional[str] = None  # the photo itself, where the page gave an http(s) address for it

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "credit": self.credit,
            "photographer": self.photographer,
            "agency": self.agency,
            "image_url": self.image_url,
        }


@dataclass
class PlaceData:
    name: str
    kind: str  # country, city, region
    country_code: Optional[str] = None


@dataclass
class ArticleData:
    """One article as a reader and the extractors see it."""

    headline: str
    paragraphs: list[str]
    captions: list[CaptionData] = field(default_factory=list)
    published: Optional[dt.datetime | dt.date] = None
    date_inferred: bool = False
    source: Optional[str] = None
    byline: Optional[str] = None
    dateline: Optional[str] = None
    url: Optional[str] = None
    language: Optional[str] = None
    places: list[PlaceData] = field(default_factory=list)
    source_line: Optional[int] = None
    source_member: Optional[str] = None  # the bundle member it was read from ("2015/story.xml")
    # Versions: the identity its source gives it, which version this is, and whether it withdraws the article.
    identity: Optional[str] = None  # "guid:…", "newsml:…", "ninjs:…", "nitf:…", "url:…"
    version: Optional[int] = None
    version_time: Optional[dt.datetime] = None
    withdrawn: bool = False
    notice: Optional[str] = None  # what a withdrawal says
    collection: Optional[str] = None  # the collection its inbox folder names (.newsarchive.json), if any
    # Source names the text itself carries ("(The Associated Press)" after a caption), weaker than metadata.
    source_hints: list[str] = field(default_factory=list)
    # Computed once by `prepare()` (in the parsing process, so the storing process has less to do).
    _digest: Optional[str] = field(default=None, repr=False, compare=False)
    _published: Optional[tuple] = field(default=None, repr=False, compare=False)
    _signature: Optional[bytes] = field(default=None, repr=False, compare=False)
    _shingles: int = field(default=0, repr=False, compare=False)
    _band_keys: Optional[list[int]] = field(default=None, repr=False, compare=False)

    @property
    def body(self) -> str:
        return "\n\n".join(self.paragraphs)

    def identify(
        self,
        identity: str,
        *,
        version: Optional[int] = None,
        version_time: Optional[dt.datetime] = None,
        withdrawal: Optional["Withdrawal"] = None,
    ) -> None:
        """Name the article across its versions (the identity as the source gives it, "newsml:…"), with its
        version and whether this version withdraws it; the notice is kept only for a withdrawal."""
        self.identity = identity[:1000]
        self.version = version
        self.version_time = version_time
        if withdrawal is not None:
            self.withdrawn = withdrawal.withdrawn
            self.notice = withdrawal.notice if withdrawal.withdrawn else None

    def prepare(self) -> "ArticleData":
        """Make every text storable and compute the content hash and publication fields now."""
        self.headline = safe_text(drop_invisible(self.headline))
        self.paragraphs = [safe_text(drop_invisible(p)) for p in self.paragraphs]
        for name in ("source", "byline", "dateline", "url", "language", "source_member", "identity", "notice"):
            setattr(self, name, safe_text(getattr(self, name)))
        for caption in self.captions:
            caption.text, caption.credit = safe_text(drop_invisible(caption.text)), safe_text(caption.credit)
            caption.photographer, caption.agency = safe_text(caption.photographer), safe_text(caption.agency)
        for place in self.places:
            place.name = safe_text(place.name)
        self._digest = self._compute_digest()
        self._published = self._compute_published()
        self._signature, self._shingles = stories.sign(self.headline, self.body)
        self._band_keys = stories.band_keys(self._signature) if self._signature is not None else None
        return self

    @property
    def story_signature(self) -> Optional[bytes]:
        """The MinHash signature that finds the other versions of this story (None for a very short text)."""
        return self._signature if self._digest is not None else stories.signature(self.headline, self.body)

    @property
    def story_shingles(self) -> Optional[int]:
        """How many distinct word shingles the signature summarises (None without a signature)."""
        signature, count = (
            (self._signature, self._shingles) if self._digest is not None else stories.sign(self.headline, self.body)
        )
        return count if signature is not None else None

    @property
    def story_keys(self) -> Optional[list[int]]:
        """The signature's LSH band keys (None without a signature)."""
        if self._digest is not None:
            return self._band_keys
        signature = self.story_signature
        return stories.band_keys(signature) if signature is not None else None

    @property
    def prepared(self) -> bool:
        return self._digest is not None

    @property
    def content_sha256(self) -> str:
        """Hash of the normalised headline and body: equal for the same story stored twice."""
        return self._digest if self._digest is not None else self._compute_digest()

    def _compute_digest(self) -> str:
        key = " ".join(self.headline.split()).casefold() + "\n\n" + " ".join(self.body.split()).casefold()
        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    def published_fields(self) -> tuple[Optional[str], Optional[dt.date], Optional[dt.datetime]]:
        """(ISO text as stated, the article's own day, the UTC instant without tzinfo) for `published`."""
        return self._published if self._published is not None else self._compute_published()

    def _compute_published(self) -> tuple[Optional[str], Optional[dt.date], Optional[dt.datetime]]:
        value = self.published
        if value is None:
            return None, None, None
        if isinstance(value, dt.datetime):
            iso = value.isoformat()
            utc = value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
            return iso, value.date(), utc
        return value.isoformat(), value, dt.datetime(value.year, value.month, value.day)


@dataclass(frozen=True)
class Withdrawal:
    """Whether a version withdraws its article (a kill, or withheld), and the editor's note that says why."""

    withdrawn: bool
    notice: Optional[str]

    def body(self, paragraphs: list[str], headline: str) -> list[str]:
        """The paragraphs to store: a kill notice may carry no story text, and its note stands in."""
        if self.withdrawn and not paragraphs:
            return [self.notice or f"Withdrawn: {headline}"]
        return paragraphs
