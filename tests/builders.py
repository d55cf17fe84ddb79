"""What several test modules build: the steelmaker story and its versions, the 160 generated research
stories, a long wire file and an ingest of it in another process."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

from ingest.pipeline import Ingester

from .conftest import ROOT, SEED_FILE, cli_env

# -- the steelmaker story and its versions (story clusters) -------------------------------------------

LEAD = (
    "FRANKFURT (Reuters) - Germany's biggest steelmaker said on Tuesday it would close two blast furnaces in "
    "the Ruhr valley and cut 3,000 jobs by the end of next year, blaming cheap imports and weak demand from "
    "carmakers for a third straight quarterly loss."
)
REST = [
    "The company said the closures would save about 400 million euros a year from 2027 and that it would "
    "talk to the IG Metall union about early retirement and transfers to other sites before any layoffs.",
    "Its shares fell 4.2 percent in Frankfurt trading, the biggest drop on the MDAX index of mid-sized "
    "companies, as analysts said the cuts were deeper than they had expected.",
    'Chief executive Anna Keller told reporters the group had no choice. "We are producing steel that our '
    'customers no longer buy at prices that cover our costs," she said.',
]
FIRST = {
    "headline": "German steelmaker to close two furnaces, cut 3,000 jobs",
    "date": "2026-03-03T09:12:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join([LEAD, *REST[:2]]),
}
WRITE_THROUGH = {
    "headline": "UPDATE 1-German steelmaker to shut furnaces, cut 3,000 jobs; shares slide",
    "date": "2026-03-03T13:40:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            LEAD.replace("said on Tuesday it would", "will"),
            "The announcement came hours after the government in Berlin said it would not extend energy price "
            "subsidies for heavy industry beyond the end of the year.",
            *REST,
        ]
    ),
}
OTHER_OUTLET = {
    "headline": "Steel group plans 3,000 job cuts in the Ruhr",
    "date": "2026-03-04",
    "source": "Rhine Daily",
    "body": "\n\n".join([LEAD.replace("FRANKFURT (Reuters) - ", ""), REST[0], REST[2]]),
}
SAME_DAY_OTHER_STORY = {
    "headline": "German carmaker raises outlook as electric sales climb",
    "date": "2026-03-03",
    "source": "Reuters",
    "body": "MUNICH (Reuters) - A German carmaker raised its full-year profit forecast on Tuesday after sales of "
    "its electric models rose by a third in the first two months, sending its shares to a six-month high.\n\n"
    "The company said it now expected an operating margin of 8 to 9 percent, up from 7 to 8 percent, and that "
    "a new battery plant in Bavaria would open on schedule in the summer.",
}
WEEKS_LATER = dict(FIRST, headline="Steelmaker repeats plan to close furnaces", date="2026-04-20")
UNDATED = {  # a republished copy without a date, its dateline cut
    "headline": "Steelmaker cuts 3,000 jobs",
    "body": "\n\n".join([LEAD.replace("FRANKFURT (Reuters) - ", ""), *REST[:2]]),
}

STORIES = [FIRST, SAME_DAY_OTHER_STORY, WRITE_THROUGH, OTHER_OUTLET, WEEKS_LATER]


def ingest(settings, tmp_path, name: str, items: list[dict]) -> None:
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "stories.json").write_text(json.dumps(items))
    with Ingester(settings, workers=1) as ingester:
        ingester.run([folder])


REWRITE = {  # rewritten from the top hours later: little of the text is left, the headline names the story
    "headline": "German steelmaker's plan to cut 3,000 jobs angers union",
    "date": "2026-03-03T18:05:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            "FRANKFURT (Reuters) - The IG Metall union vowed on Tuesday to fight plans by Germany's biggest "
            "steelmaker to shut two blast furnaces, calling the loss of 3,000 jobs in the Ruhr a betrayal of "
            "workers who had accepted pay cuts two years ago.",
            REST[1],
            "Union leaders said they would meet on Thursday to discuss strikes at the group's other plants.",
        ]
    ),
}
MARKET_REPORT = {  # the same day's market report quotes one paragraph of the story under its own headline
    "headline": "Frankfurt mid-caps slip as industrials lag",
    "date": "2026-03-03T17:45:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            "FRANKFURT (Reuters) - German mid-sized stocks ended lower on Tuesday, weighed down by industrial "
            "names after a string of weak results, while exporters held steady as the euro eased.",
            REST[1],
            "Chemicals makers also fell, with traders citing worries about energy costs next winter.",
        ]
    ),
}


# -- the generated research archive ---------------------------------------------------------------------

SOURCES = ["Reuters", "The Associated Press", "Agence France-Presse", "BBC News"]
CITIES = ["Paris", "Berlin", "Nairobi", "Lima", "Osaka"]
WRITERS = ["Jane Doe", "John Roe", "Ana Lima", "Kenji Sato", "Marie Curtin", "Omar Haddad"]
TOPICS = ["harbour strike", "grain prices", "river flood", "rail tender", "school reform", "bank merger"]
FRENCH = (
    "Le gouvernement a annoncé mardi une nouvelle série de mesures pour soutenir les agriculteurs touchés par "
    "la sécheresse, selon un communiqué publié dans la soirée."
)
GERMAN = (
    "Die Regierung hat am Dienstag neue Maßnahmen angekündigt, um die von der Dürre betroffenen Landwirte zu "
    "unterstützen, wie aus einer am Abend veröffentlichten Mitteilung hervorgeht."
)


# English words to give each generated story text of its own, so that no two are versions of one story.
WORDS = sorted({w.lower() for w in re.findall(r"[A-Za-z]{4,}", SEED_FILE.read_text(encoding="utf-8"))})


def stories(n: int = 160) -> list[dict]:
    rng = random.Random(13)
    out = []
    for i in range(n):
        topic = rng.choice(TOPICS)
        city = rng.choice(CITIES)
        own = " ".join(rng.choice(WORDS) for _ in range(60))
        story = {
            "headline": f"{topic.capitalize()} report number {i} from {city}",
            "source": rng.choice(SOURCES),
            "body": f"Officials in {city} spoke on the {topic} in a statement numbered {i}. "
            f"The {topic} has drawn crowds in {city} for days, residents said. They also said: {own}.",
        }
        if rng.random() < 0.85:
            year = rng.randint(2005, 2015)
            story["date"] = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if rng.random() < 0.8:
            writers = rng.sample(WRITERS, rng.choice([1, 1, 1, 2]))
            story["byline"] = " and ".join(writers)
        if i % 16 == 0:
            story["body"] = f"{FRENCH} {city}. Numéro {i}."
        elif i % 16 == 8:
            story["body"] = f"{GERMAN} {city}. Nummer {i}."
        out.append(story)
    return out


def ingest_generated(settings, tmp_path) -> None:
    """Store and index the 160 generated stories in the archive of `settings`."""
    folder = tmp_path / "generated"
    folder.mkdir()
    (folder / "stories.json").write_text(json.dumps(stories()), encoding="utf-8")
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([folder])
    assert summary.ingested == 160, summary.as_dict()


# -- a long wire file ----------------------------------------------------------------------------------


def wire_records(count: int, bad_every: int = 0) -> str:
    """A JSON Lines file of `count` harbour reports, every `bad_every`-th line broken."""
    lines = []
    for i in range(count):
        if bad_every and i % bad_every == bad_every - 1:
            lines.append("{not json")
            continue
        lines.append(
            json.dumps(
                {
                    "headline": f"Harbour report number {i}",
                    "date": "2012-05-01",
                    "body": f"Ship {i} came into the harbour on Tuesday carrying {i % 97} containers of grain.",
                }
            )
        )
    return "\n".join(lines) + "\n"


def start_long_ingest(settings, path):
    """`newsarchive ingest path` in a subprocess, in small batches so that its progress moves often."""
    return subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", str(path), "--workers", "1"],
        env=cli_env(settings, NEWSARCHIVE_INGEST_BATCH_ARTICLES="200"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
