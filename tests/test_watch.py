"""Watch mode: files are read once, and only when they have stopped changing."""

import threading
import time

from sqlalchemy import func, select

from ingest.pipeline import Ingester, watch
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, IngestFile

from .conftest import make_settings

BODY = "The river rose overnight and flooded the lower town, officials said on Tuesday. " * 20


def wait_for(condition, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_slowly_written_file_is_read_once_and_only_when_complete(tmp_path, database_url):
    settings = make_settings(tmp_path / "home", database_url, watch_interval_ms=50, settle_ms=600)
    upgrade(settings)
    results = []
    stop = threading.Event()
    with Ingester(settings, workers=1) as ingester:
        thread = threading.Thread(target=watch, args=(ingester,), kwargs={"stop": stop, "on_result": results.append})
        thread.start()
        try:
            path = settings.inbox / "slow.txt"
            with open(path, "w") as f:
                f.write("Flood reaches town\n\n")
                for _ in range(15):  # 1.5 s of writing, never pausing as long as settle_ms
                    f.write(BODY[:100])
                    f.flush()
                    time.sleep(0.1)
                    assert results == [], "read while still being written"
                f.write("\n\nThe end of the story.\n")
            (settings.inbox / "done.txt.part").write_text("Renamed story\n\n" + BODY)
            (settings.inbox / "done.txt.part").rename(settings.inbox / "done.txt")
            assert wait_for(lambda: len(results) == 2)
            time.sleep(0.5)  # no second reading of either file
        finally:
            stop.set()
            thread.join(10)
    assert sorted(r.status for r in results) == ["ingested", "ingested"]
    assert (settings.archive_dir / "slow.txt").read_text().endswith("The end of the story.\n")

    engine = make_engine(settings)
    with make_sessionmaker(engine)() as s:
        assert s.scalar(select(func.count()).select_from(IngestFile)) == 2
        body = s.scalar(select(Article.body).where(Article.headline == "Flood reaches town"))
        assert body.endswith("The end of the story.")
    engine.dispose()
