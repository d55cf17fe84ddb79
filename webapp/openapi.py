"""The OpenAPI 3 description served at /api/openapi.json."""

from __future__ import annotations

from search.request import INTERVALS, MAX_FACET_SIZE, MAX_PER_PAGE, SORTS
from search.schema import FACETS

PUBLISHED = (
    "ISO 8601 as the article states it: a date (2007-02-19) when only the day is known, else a datetime with "
    "its offset (2007-02-19T07:54:00-05:00); a datetime whose source named no zone has no offset"
)
PUBLISHED_DISPLAY = (
    "`published` for people: 19 Feb 2007, or 19 Feb 2007, 12:54 UTC (a datetime with an offset is shown in "
    "the archive's NEWSARCHIVE_TIME_ZONE)"
)
PUBLISHED_FIELDS = {
    "published": {"type": "string", "nullable": True, "description": PUBLISHED},
    "published_display": {"type": "string", "nullable": True, "description": PUBLISHED_DISPLAY},
}


def _param(name: str, description: str, schema: dict, **extra) -> dict:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema, **extra}


def _list_param(name: str, description: str) -> dict:
    return _param(name, description, {"type": "array", "items": {"type": "string"}}, style="form", explode=True)


def _search_params() -> list[dict]:
    """The parameters of /api/search, which its exports and /api/facets/<name> take too."""
    return [
        _param(
            "q",
            "Query text, read as people type it: bare words (stop words are never required; "
            "every word is required first, and when that finds fewer than a page the search "
            'relaxes to "most words", see `match`), "phrases", AND/OR/NOT in capitals with '
            "brackets, -word to exclude, +word to require, field:term for headline, body, caption, "
            "credit, source, place, byline, dateline, year, url; wildcards like kob*; a pasted URL. "
            "Nothing typed is an error: what was read differently is listed in `notices`. "
            "Empty lists the archive, newest first.",
            {"type": "string", "maxLength": 1000},
        ),
        *[_list_param(f, f"Only articles with this {f} (repeatable; values of one facet are OR'ed)") for f in FACETS],
        _param(
            "from",
            "Earliest publication date, inclusive (YYYY-MM-DD)",
            {"type": "string", "format": "date"},
        ),
        _param(
            "to",
            "Latest publication date, inclusive (YYYY-MM-DD)",
            {"type": "string", "format": "date"},
        ),
        _param("sort", "Result order", {"type": "string", "enum": list(SORTS), "default": "relevance"}),
        _param(
            "page",
            "Page number, from 1",
            {"type": "integer", "minimum": 1, "maximum": 10000, "default": 1},
        ),
        _param(
            "per_page",
            "Hits per page",
            {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": 20},
        ),
        _param(
            "facet_size",
            "Values listed per facet",
            {"type": "integer", "minimum": 0, "maximum": MAX_FACET_SIZE, "default": 20},
        ),
        _param(
            "correct",
            "When the query finds nothing and a correction from the archive's own words "
            "finds something, answer the corrected query (`corrected` true). false: "
            "answer the query as typed (the correction is still offered as `suggestion`)",
            {"type": "boolean", "default": True},
        ),
        *[_list_param(f"not_{f}", f"No hit carries this {f} (repeatable)") for f in FACETS],
        _param(
            "collapse",
            "One hit per story (its best version, with `versions`); false: every version",
            {"type": "boolean", "default": True},
        ),
        _param(
            "after",
            "Only articles stored after the article with this id (ids grow in ingest order)",
            {"type": "integer", "minimum": 0},
        ),
        _param(
            "interval",
            "The date histogram's bars: chosen from the span of the hits' dates (auto), or year, month, day",
            {"type": "string", "enum": list(INTERVALS), "default": "auto"},
        ),
    ]


def _export_params() -> list[dict]:
    return [
        _param(
            "text",
            "The last column: the matching passage or the whole body",
            {"type": "string", "enum": ["snippet", "body"]},
        ),
        _param("limit", "The most rows (at most NEWSARCHIVE_EXPORT_MAX_ROWS)", {"type": "integer", "minimum": 1}),
    ]


def _export_path(kind: str, description: str, content: dict) -> dict:
    return {
        "get": {
            "summary": f"Every hit of a search as {kind}, in the order of the pages (streamed)",
            "parameters": [*_search_params(), *_export_params()],
            "responses": {
                "200": {"description": description, "content": content},
                "400": {
                    "description": "A parameter needs fixing",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
            },
        }
    }


def openapi_document() -> dict:
    error = {"$ref": "#/components/schemas/Error"}
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "newsarchive",
            "version": "1.0.0",
            "description": "Search a news archive: full text with facets, and article records.",
        },
        "paths": {
            "/api/search": {
                "get": {
                    "summary": "Search the archive",
                    "parameters": _search_params(),
                    "responses": {
                        "200": {
                            "description": "Results",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/SearchResponse"}}
                            },
                        },
                        "400": {
                            "description": "A parameter or the query needs fixing",
                            "content": {"application/json": {"schema": error}},
                        },
                        "503": {
                            "description": "The search index is unavailable",
                            "content": {"application/json": {"schema": error}},
                        },
                    },
                }
            },
            "/api/search.csv": _export_path("CSV", "CSV with a header row", {"text/csv": {}}),
            "/api/search.jsonl": _export_path(
                "JSON Lines",
                "One ExportRow per line",
                {"application/x-ndjson": {"schema": {"$ref": "#/components/schemas/ExportRow"}}},
            ),
            "/api/facets/{name}": {
                "get": {
                    "summary": "Values of one facet among a search's hits, by prefix",
                    "parameters": [
                        {
                            "name": "name",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string", "enum": list(FACETS)},
                        },
                        _param(
                            "prefix",
                            "Values starting with this, or with a word that does (any case)",
                            {"type": "string", "maxLength": 100},
                        ),
                        *_search_params(),
                    ],
                    "responses": {
                        "200": {"description": "{facet, prefix, values: [FacetValue]}"},
                        "400": {
                            "description": "No such facet, or a parameter needs fixing",
                            "content": {"application/json": {"schema": error}},
                        },
                    },
                }
            },
            "/api/articles/{id}/related": {
                "get": {
                    "summary": "Articles like this one, each with the words they share",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                        _param("limit", "How many", {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}),
                    ],
                    "responses": {
                        "200": {"description": "{id, related: [{id, headline, published, source, shared}]}"},
                        "404": {"description": "No such article", "content": {"application/json": {"schema": error}}},
                    },
                }
            },
            "/api/articles/{id}/versions": {
                "get": {
                    "summary": "Every stored version of the article (same identity from its source), oldest first",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {
                        "200": {
                            "description": "{id, identity, status (usable, superseded or withdrawn), current (the "
                            "id searched, or null when withdrawn), versions: [{id, headline, version, version_time, "
                            "status, notice, ingested_at}]}"
                        },
                        "404": {"description": "No such article", "content": {"application/json": {"schema": error}}},
                    },
                }
            },
            "/api/saved": {
                "get": {
                    "summary": "Saved searches with their matches stored since last opened, and their Atom feeds",
                    "responses": {"200": {"description": "{saved: [{id, name, params, new, problem, feed}]}"}},
                }
            },
            "/api/articles/{id}": {
                "get": {
                    "summary": "One article",
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {
                        "200": {
                            "description": "The article",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Article"}}},
                        },
                        "404": {"description": "No such article", "content": {"application/json": {"schema": error}}},
                    },
                }
            },
            "/api/openapi.json": {
                "get": {"summary": "This description", "responses": {"200": {"description": "OpenAPI 3 document"}}}
            },
            "/api/me": {
                "get": {
                    "summary": "Who is asking: {mode (open or login), user, role, groups, via, scope}",
                    "responses": {"200": {"description": "The principal of this request"}},
                }
            },
            "/api/collections": {
                "get": {
                    "summary": "The collections this reader may read (every one, with its grants, for an admin)",
                    "responses": {"200": {"description": "{collections: [{id, name, public, articles, ...}]}"}},
                }
            },
            "/api/collections/{name}/articles": {
                "post": {
                    "summary": "Move articles into a collection (editors: ids they may read; admins: a source too)",
                    "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "ids": {"type": "array", "items": {"type": "integer"}},
                                        "source": {"type": "string"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": {
                        "200": {"description": "{collection, moved}"},
                        "400": {"description": "A bad body, or a missing CSRF token (X-CSRF-Token) from a browser"},
                        "403": {"description": "Editors and admins only; a read token changes nothing"},
                        "404": {"description": "No such collection that you may read"},
                    },
                }
            },
            "/api/audit": {
                "get": {
                    "summary": "The audit log, newest first (admins; an admin token)",
                    "parameters": [
                        _param("limit", "At most this many events", {"type": "integer", "minimum": 1, "maximum": 1000}),
                        _param("before", "Only events before this event id (the next page)", {"type": "integer"}),
                    ],
                    "responses": {
                        "200": {"description": "{events: [{id, at, actor, address, action, target, detail}]}"}
                    },
                }
            },
            "/api/status": {
                "get": {
                    "summary": "What the ingester is doing and has done, and who may read the archive (admins)",
                    "responses": {"200": {"description": "Ingest status with `access`: {mode, note}"}},
                }
            },
            "/healthz": {
                "get": {
                    "summary": "Health: the database and the index are reachable",
                    "responses": {
                        "200": {"description": "Healthy, with counts and `index_backend` (whoosh or postgres)"},
                        "503": {"description": "Unhealthy, with the reason"},
                    },
                }
            },
        },
        "security": [{}, {"bearer": []}],
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "In login mode (NEWSARCHIVE_ACCESS=login): an API token (`newsarchive tokens "
                    "create`, or the account page), `Authorization: Bearer na_...`. Without one, a request reads "
                    "only public collections; a missing, expired or revoked token is a 401. Every answer (hits, "
                    "totals, facets, histogram, suggestions, related articles, versions, exports) holds only "
                    "articles the token's user may read, and an article they may not read is a 404.",
                }
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message"],
                            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                        }
                    },
                },
                "FacetValue": {
                    "type": "object",
                    "properties": {"value": {"type": "string"}, "count": {"type": "integer"}},
                },
                "Hit": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "headline": {"type": "string"},
                        **PUBLISHED_FIELDS,
                        "source": {"type": "string", "nullable": True},
                        "byline": {"type": "string", "nullable": True},
                        "dateline": {"type": "string", "nullable": True},
                        "places": {"type": "array", "items": {"type": "string"}},
                        "snippet": {"type": "string", "description": "HTML-escaped text with matches in <mark>"},
                        "caption_match": {
                            "type": "object",
                            "nullable": True,
                            "description": "The first photo caption holding a query word: its snippet "
                            "(HTML-escaped, matches in <mark>) and its credit",
                            "properties": {
                                "snippet": {"type": "string"},
                                "credit": {"type": "string", "nullable": True},
                            },
                        },
                        "url": {"type": "string", "nullable": True},
                        "score": {"type": "number"},
                        "story_id": {"type": "integer", "description": "The id of the story's first article"},
                        "versions": {"type": "integer", "description": "Matching versions of this hit's story"},
                    },
                },
                "SearchResponse": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "total": {"type": "integer", "description": "Hits: stories when collapsed, else articles"},
                        "articles": {"type": "integer", "description": "Matching articles"},
                        "collapse": {"type": "boolean"},
                        "page": {"type": "integer"},
                        "per_page": {"type": "integer"},
                        "took_ms": {"type": "number"},
                        "hits": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}},
                        "facets": {
                            "type": "object",
                            "properties": {
                                f: {"type": "array", "items": {"$ref": "#/components/schemas/FacetValue"}}
                                for f in FACETS
                            },
                        },
                        "suggestion": {
                            "type": "string",
                            "nullable": True,
                            "description": "A corrected query that finds clearly more, from the archive's own words",
                        },
                        "corrected": {
                            "type": "boolean",
                            "description": "True when the hits answer `suggestion` because `query` found nothing",
                        },
                        "match": {
                            "type": "string",
                            "enum": ["all", "most", "url", "list"],
                            "description": "all: every word and required part matched "
                            "(also any query with AND/OR/NOT); most: "
                            "fewer than a page held every word, so articles holding any of the words are ranked, "
                            "those holding the typed words as a run first, then by BM25F with relevance feedback; "
                            "url: the article stored with the URL in the query; list: no words to look for, the "
                            "archive (filtered) newest first",
                        },
                        "notices": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "How parts of the query were read differently from how they were typed",
                        },
                        "sort": {"type": "string", "enum": list(SORTS)},
                        "filters": {
                            "type": "object",
                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                        },
                        "exclude": {
                            "type": "object",
                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                        },
                        "from": {"type": "string", "format": "date", "nullable": True},
                        "to": {"type": "string", "format": "date", "nullable": True},
                        "histogram": {"$ref": "#/components/schemas/Histogram"},
                    },
                },
                "Histogram": {
                    "type": "object",
                    "description": "Hits per year, month or day; the buckets and `undated` add up to `total`",
                    "properties": {
                        "interval": {"type": "string", "nullable": True, "enum": ["year", "month", "day"]},
                        "undated": {"type": "integer"},
                        "buckets": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "key": {"type": "string"},
                                    "from": {"type": "string", "format": "date"},
                                    "to": {"type": "string", "format": "date"},
                                    "count": {"type": "integer"},
                                },
                            },
                        },
                    },
                },
                "ExportRow": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "headline": {"type": "string"},
                        "published": {"type": "string", "nullable": True},
                        "source": {"type": "string", "nullable": True},
                        "byline": {"type": "string", "nullable": True},
                        "dateline": {"type": "string", "nullable": True},
                        "places": {"type": "array", "items": {"type": "string"}},
                        "language": {"type": "string", "nullable": True},
                        "url": {"type": "string", "nullable": True},
                        "snippet": {"type": "string", "description": "plain text; `body` instead with text=body"},
                    },
                },
                "Caption": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "credit": {"type": "string", "nullable": True},
                        "photographer": {"type": "string", "nullable": True},
                        "agency": {"type": "string", "nullable": True},
                        "image_url": {
                            "type": "string",
                            "nullable": True,
                            "description": "the photo at its source (http or https), where the file gave one",
                        },
                    },
                },
                "Article": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "headline": {"type": "string"},
                        **PUBLISHED_FIELDS,
                        "date_inferred": {"type": "boolean"},
                        "source": {"type": "string", "nullable": True},
                        "byline": {"type": "string", "nullable": True},
                        "dateline": {"type": "string", "nullable": True},
                        "body": {"type": "string"},
                        "paragraphs": {"type": "array", "items": {"type": "string"}},
                        "captions": {"type": "array", "items": {"$ref": "#/components/schemas/Caption"}},
                        "places": {"type": "array", "items": {"type": "string"}},
                        "url": {"type": "string", "nullable": True},
                        "language": {"type": "string", "nullable": True},
                        "content_sha256": {"type": "string"},
                        "original_file": {"type": "string"},
                        "source_member": {
                            "type": "string",
                            "nullable": True,
                            "description": "the member of a zip or tar bundle the article was read from",
                        },
                        "ingested_at": {"type": "string"},
                        "status": {
                            "type": "string",
                            "enum": ["usable", "superseded", "withdrawn"],
                            "description": "usable: searched; superseded: an older version kept as history; "
                            "withdrawn: taken out of search by a withdrawal (see notice)",
                        },
                        "notice": {"type": "string", "nullable": True, "description": "what a withdrawal said"},
                        "identity": {
                            "type": "string",
                            "nullable": True,
                            "description": "the identity its source gives it (guid:, newsml:, ninjs:, nitf:, url:)",
                        },
                        "version": {"type": "integer", "nullable": True},
                        "version_time": {"type": "string", "nullable": True},
                    },
                },
            },
        },
    }
