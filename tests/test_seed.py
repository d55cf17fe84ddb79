"""The seed article, as SPEC.md says the archive must see it, read back from the SQL store."""

import datetime as dt

from sqlalchemy import select

from store.models import Article

from .conftest import SEED_FILE

HEADLINE = "Islamic State fighters admit they lost Syrian town of Kobani, blame US-led airstrike campaign"


def test_the_seed_comes_out_as_the_spec_says(ingester, sessions):
    summary = ingester.run([SEED_FILE])
    assert (summary.ingested, summary.duplicates, summary.failed) == (1, 0, 0)
    with sessions() as session:
        article = session.scalars(select(Article)).one()
        assert article.headline == HEADLINE
        assert article.source.name == "The Associated Press"
        assert article.published == "2015-01-30"
        assert article.published_day == dt.date(2015, 1, 30)
        assert article.date_inferred is True
        assert article.language == "en"
        assert article.dateline is None

        captions = [(c.photographer, c.agency, c.credit) for c in article.captions]
        assert captions == [
            ("Emrah Gurel", "AP", "AP Photo/Emrah Gurel"),
            ("Emrah Gurel", "AP", "AP Photo/Emrah Gurel"),
            (None, "AP", "AP Photo"),
        ]
        assert article.captions[0].text.startswith("Syrian refugee children who fled violence")
        assert article.captions[0].text.endswith("mid-September, 2014.")
        assert "(AP Photo" not in article.captions[0].text

        assert len(article.paragraphs) == 12
        assert article.paragraphs[0].startswith("The Islamic State group has acknowledged")
        assert (
            article.paragraphs[-1]
            == '"The warplanes were bombarding us night and day. They bombarded everything, even motorcycles," the fighter said.'
        )
        for caption in article.captions:
            assert caption.text not in article.body
        assert "AP Photo" not in article.body and "refugee children" not in article.body

        places = [p.name for p in article.places]
        assert {"Kobani", "Syria", "Turkey"} <= set(places)
        assert "Obama" not in places  # a surname, not the Japanese city
        assert article.original_file == str(SEED_FILE)


def test_a_seed_read_in_place_is_never_moved(ingester):
    before = SEED_FILE.read_bytes()
    ingester.run([SEED_FILE.parent])
    assert SEED_FILE.read_bytes() == before
    assert not any(ingester.settings.archive_dir.iterdir())
