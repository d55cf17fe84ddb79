"""The archive's shared core: its settings, its SQL schema and sessions, and the read side.

`ingest` writes through these models; `webapp` (the web pages, the JSON API and the `newsarchive` command)
reads through `store.read.Archive`, which answers searches from the index (the `search` package) and fills
them from SQL.
"""
