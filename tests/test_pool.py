"""The grouped posting pool writes exactly the index Whoosh's own pool writes, spilled to disk or not."""

import random

import whoosh.index
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.filetables import OrderedHashReader, OrderedHashWriter
from whoosh.writing import SegmentWriter

from search.index import ArchiveIndex
from search.internals import ArchiveCodec, CompactTermTable, GroupingSegmentWriter, open_writer
from search.schema import CaptionFields, IndexDocument, build_schema

WORDS = (
    "kobani syria turkey refugee refugees camp border fighters airstrike coalition islamic state town "
    "market shares bank rates oil prices 2015 35,000 suruç müller u.s. reuters photo gurel"
).split()


def make_docs(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    docs = []
    for n in range(1, count + 1):

        def words(k):
            return " ".join(rng.choice(WORDS) for _ in range(k))

        captions = (CaptionFields(words(12), "AP Photo/Emrah Gurel", "Emrah Gurel", "AP"),) if n % 3 == 0 else ()
        places = tuple(rng.sample(["Kobani", "Syria", "Turkey", "Iraq"], k=n % 4))
        docs.append(
            IndexDocument(
                id=n,
                headline=words(8),
                body="\n\n".join(words(40) for _ in range(3)),
                byline="By Jane Doe" if n % 2 else None,
                dateline="BEIRUT" if n % 5 == 0 else None,
                source="Reuters" if n % 2 else "The Associated Press",
                captions=captions,
                places=places,
                url=f"https://example.com/story/{n}",
            ).fields()
        )
    return docs


def postings_by_id(path) -> set:
    """Every posting of an index as (field, term, stored id, weight, value): the same whatever the segments."""
    reader = whoosh.index.open_dir(str(path)).reader()
    ids = {docnum: fields["id"] for docnum, fields in reader.iter_docs()}
    return [(f, t, ids.get(d, d), w, v) for f, t, d, w, v in reader.iter_postings()]


def write(path, docs, writer_of):
    path.mkdir()
    ix = whoosh.index.create_in(str(path), build_schema())
    writer = writer_of(ix)
    for doc in docs:
        writer.add_document(**doc)
    writer.commit()
    return ix


def whoosh_writer(limitmb=256):
    return lambda ix: SegmentWriter(ix, limitmb=limitmb, compound=False, codec=ArchiveCodec())


def grouped_writer(limitmb=256):
    return lambda ix: GroupingSegmentWriter(ix, limitmb=limitmb, compound=False, codec=ArchiveCodec())


def test_same_postings_in_the_same_order_as_whoosh(tmp_path):
    docs = make_docs(300)
    write(tmp_path / "whoosh", docs, whoosh_writer())
    write(tmp_path / "grouped", docs, grouped_writer())
    theirs = list(whoosh.index.open_dir(str(tmp_path / "whoosh")).reader().iter_postings())
    ours = list(whoosh.index.open_dir(str(tmp_path / "grouped")).reader().iter_postings())
    assert len(ours) == len(theirs) > 10_000
    assert ours == theirs
    assert any(field.startswith("spell_") for field, *_ in ours)  # the did-you-mean vocabulary is there too


def test_spilled_runs_give_the_same_index(tmp_path):
    docs = make_docs(300)
    write(tmp_path / "whoosh", docs, whoosh_writer())
    path = tmp_path / "spilled"
    path.mkdir()
    writer = GroupingSegmentWriter(
        whoosh.index.create_in(str(path), build_schema()), compound=False, codec=ArchiveCodec()
    )
    writer.pool.limit = 64 * 1024  # bytes: far less than these documents need
    for doc in docs:
        writer.add_document(**doc)
    assert len(writer.pool.runs) >= 3  # it wrote sorted runs to disk, which Whoosh's merge then reads back
    writer.commit()
    theirs = list(whoosh.index.open_dir(str(tmp_path / "whoosh")).reader().iter_postings())
    ours = list(whoosh.index.open_dir(str(path)).reader().iter_postings())
    assert ours == theirs


def test_updates_and_merged_segments_match_whoosh(tmp_path):
    """Replacing documents across commits makes Whoosh merge small segments through the pool."""
    first, second = make_docs(120, seed=1), make_docs(80, seed=2)  # the second replaces ids 1..80
    for name, writer_of in (("whoosh", whoosh_writer()), ("grouped", grouped_writer())):
        ix = write(tmp_path / name, first, writer_of)
        writer = writer_of(ix)
        for doc in second:
            writer.update_document(**doc)
        writer.commit()
        assert ix.doc_count() == 120
    assert postings_by_id(tmp_path / "grouped") == postings_by_id(tmp_path / "whoosh")


def test_the_archive_writer_with_two_processes(tmp_path):
    """The multi-process writer (one segment per process) indexes every document once, as Whoosh would."""
    docs = make_docs(400)
    write(tmp_path / "whoosh", docs, whoosh_writer())
    index = ArchiveIndex(tmp_path / "archive")
    writer = open_writer(index.ensure(), procs=2, memory_mb=64)
    for doc in docs:
        writer.add_document(**doc)
    writer.commit()
    assert index.doc_count() == 400
    ours, theirs = postings_by_id(index.current_path()), postings_by_id(tmp_path / "whoosh")
    # Spelling words are postings of document 0 of each segment: compare them as a vocabulary.
    assert {p[:2] for p in ours if p[0].startswith("spell_")} == {p[:2] for p in theirs if p[0].startswith("spell_")}
    assert sorted(p for p in ours if not p[0].startswith("spell_")) == sorted(
        p for p in theirs if not p[0].startswith("spell_")
    )


def test_the_compact_term_table_writes_whooshs_file_byte_for_byte(tmp_path):
    """The segment's term table (every distinct term, held until the segment is written) is written from
    packed arrays: the file must be the one Whoosh's own writer makes, and read back the same."""
    rng = random.Random(3)
    keys = sorted({bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12))) for _ in range(20_000)})
    storage = FileStorage(str(tmp_path))
    for name, compact in (("whoosh.trm", False), ("compact.trm", True)):
        writer = OrderedHashWriter(storage.create_file(name))
        if compact:
            CompactTermTable.adopt(writer)
        writer.extras["fieldmap"] = {"body": 0}
        for n, key in enumerate(keys):
            writer.add(key, n.to_bytes(4, "big"))
        writer.close()
    theirs, ours = (tmp_path / "whoosh.trm").read_bytes(), (tmp_path / "compact.trm").read_bytes()
    assert len(ours) > 20 * len(keys) and ours == theirs
    reader = OrderedHashReader.open(storage, "compact.trm")
    assert reader[keys[1234]] == (1234).to_bytes(4, "big") and list(reader.keys()) == keys
    # The archive's codec uses it on every segment it writes: the index above reads as Whoosh's.
    codec = ArchiveCodec()
    segment = codec.new_segment(storage, "probe")
    assert isinstance(codec.field_writer(storage, segment)._tindex, CompactTermTable)
