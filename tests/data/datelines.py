"""First paragraphs for the dateline tests, written from the AP, Reuters, UPI and AFP style guides' examples
and the shapes seen in wire copy of each era (no corpus text): 330+ that open with a dateline, each with the
place, agency and date it states, and 330+ ordinary first paragraphs that must give none, many of them
opening with capitals, dashes, dates or notes the way datelines do."""

from itertools import cycle

PLACES = [
    ("WASHINGTON", None),
    ("NEW YORK", None),
    ("ANCHORAGE", "Alaska"),
    ("SAN JOSE", "Calif."),
    ("SPRINGFIELD", "Ill."),
    ("ST. LOUIS", None),
    ("RIO DE JANEIRO", "Brazil"),
    ("HONG KONG", None),
    ("JERUSALEM", None),
    ("BEIRUT", None),
    ("KABUL", None),
    ("MEXICO CITY", None),
    ("LITTLE ROCK", "Ark."),
    ("FRANKFURT", None),
    ("TOKYO", None),
    ("SYDNEY", "Australia"),
    ("PORT-AU-PRINCE", "Haiti"),
    ("DES MOINES", "Iowa"),
    ("BUENOS AIRES", None),
    ("LAGOS", "Nigeria"),
    ("NEW DELHI", None),
    ("SAO PAULO", None),
    ("KUALA LUMPUR", None),
    ("TEL AVIV", None),
    ("GAZA CITY", None),
    ("JOHANNESBURG", None),
    ("OTTAWA", None),
    ("SEOUL", None),
    ("BRUSSELS", None),
    ("MADRID", None),
    ("ATLANTA", None),
    ("HOUSTON", None),
    ("PHOENIX", "Ariz."),
    ("PORTLAND", "Ore."),
    ("COLUMBUS", "Ohio"),
    ("LONDON", None),
    ("MOSCOW", None),
    ("BEIJING", None),
    ("CAIRO", None),
    ("SAN FRANCISCO/NEW YORK", None),
    ("FORT WORTH", "Texas"),
    ("BATON ROUGE", "La."),
]
# Cities a gazetteer knows, for datelines with neither agency nor date ("WASHINGTON —").
KNOWN = ["WASHINGTON", "NEW YORK", "LONDON", "PARIS", "MOSCOW", "BEIJING", "TOKYO", "CHICAGO", "BOSTON", "BERLIN"]
TITLED = ["Washington", "New York", "London", "Singapore", "Hong Kong", "Frankfurt", "Paris", "Toronto"]
SHORT_MONTHS = ["Jan", "Feb", "March", "April", "May", "June", "July", "Aug", "Sept", "Oct", "Nov", "Dec"]
AP_MONTHS = ["Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."]
LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]
SENTENCES = [
    "The Senate voted on Tuesday to extend the program for another year.",
    "Stocks rose sharply in early trading after the central bank held interest rates steady.",
    "Rescue workers searched through the night for survivors of the collapsed building.",
    "Officials said the talks would resume next week despite the latest setback.",
    "A fire swept through a warehouse district, forcing hundreds of people from their homes.",
    "The company said its quarterly profit fell 12 percent on weaker demand for its chips.",
    "Police arrested three men in connection with the robbery, a spokesman said.",
    "Voters went to the polls in record numbers in an election seen as a test for the government.",
    "Heavy rains flooded roads and cut power to thousands of homes across the region.",
    "The mayor announced a plan to rebuild the city's aging bridges over the next decade.",
    "Oil prices climbed above $100 a barrel for the first time in three months.",
    "Doctors warned that the outbreak could spread further unless vaccinations are stepped up.",
    "The union said its members would walk out on Monday if no agreement is reached.",
    "A jury found the former executive guilty of fraud on all counts.",
    "Negotiators reached a tentative deal late on Sunday after weeks of talks.",
    "Shares of the airline fell after it cut its forecast for the year.",
    "Thousands marched through the capital to protest against the new tax.",
    "The government said it would sell its stake in the state oil company.",
    "Scientists said they had found evidence of water beneath the surface.",
    "The team's coach resigned a day after a fourth straight loss.",
    "Exports rose for the third month in a row, helped by a weaker currency.",
    "An earthquake of magnitude 6.1 shook the area, but no damage was reported.",
    "The court ruled that the law violated the constitution's guarantee of free speech.",
    "Two people were killed when a bus overturned on a mountain road, police said.",
    "'We will not give up,' the opposition leader told cheering supporters.",
    "U.S. Treasury prices fell as investors awaited the jobs report.",
]
NOTES = ["analyst comment", "details, byline", "closing share price", "quotes from minister", "background"]
NAMES = ["Emily Kaiser", "John O'Callaghan", "Marcel Michelson", "Ana de la Cruz", "Lisa Von Ahn"]


def dateline_paragraphs() -> list[tuple[str, tuple]]:
    """(paragraph, (place, agency, date_text)) pairs."""
    out: list[tuple[str, tuple]] = []
    sentences = cycle(SENTENCES)
    for i, (city, region) in enumerate(PLACES):
        place = f"{city}, {region}" if region else city
        s = [next(sentences) for _ in range(8)]
        day = 1 + (i * 7) % 28
        short, ap, long_ = SHORT_MONTHS[i % 12], AP_MONTHS[(i + 3) % 12], LONG_MONTHS[i % 10]
        year = 1979 + i % 40
        out += [
            (f"{place} (AP) — {s[0]}", (place, "AP", None)),
            (f"{place}, {short} {day} (Reuters) - {s[1]}", (place, "Reuters", f"{short} {day}")),
            (f"{place}, {short} {day} - {s[2]}", (place, None, f"{short} {day}")),
            (f"{place}, {ap} {day} (UPI) -- {s[3]}", (place, "UPI", f"{ap} {day}")),
            (f"{place} (AFP) - {s[4]}", (place, "AFP", None)),
            (f"{place}, {long_} {day}, {year} (AP) — {s[5]}", (place, "AP", f"{long_} {day}, {year}")),
            (f"{city} {short} {day} (Reuters) - {s[6]}", (city, "Reuters", f"{short} {day}")),
            (
                f"(Adds {NOTES[i % 5]}) By {NAMES[i % 5]} {place}, {short} {day} (Reuters) - {s[7]}",
                (place, "Reuters", f"{short} {day}"),
            ),
        ]
    for i, city in enumerate(KNOWN):
        s = SENTENCES[i % len(SENTENCES)]
        out += [
            (f"{city} — {s}", (city, None, None)),
            (f"{city} -- {s}", (city, None, None)),
            (f"{city} - {s}", (city, None, None)),
        ]
    for i, place in enumerate(TITLED):
        s = SENTENCES[(i + 5) % len(SENTENCES)]
        out.append((f"{place} (Reuters) - {s}", (place, "Reuters", None)))
    for i, s in enumerate(SENTENCES[:10]):
        out.append((f"(Reuters) - {s}", (None, "Reuters", None)))
        out.append((f"{SHORT_MONTHS[i]} {i + 3} (Reuters) - {s}", (None, "Reuters", f"{SHORT_MONTHS[i]} {i + 3}")))
    return out


ORDINARY_OPENINGS = [
    "NATO — the alliance of 30 countries — met on Friday to discuss the crisis.",
    "IBM - the computer maker - reported higher profits.",
    "AIDS - a disease once thought untreatable - now kills fewer people each year.",
    "U.S.-led forces attacked the town overnight.",
    "FBI agents searched the offices of the company on Thursday.",
    "NASA said on Monday that the launch would be delayed.",
    "OPEC ministers agreed to cut output by a million barrels a day.",
    "LONDON is braced for another week of travel disruption.",
    "PARIS, the French capital, has banned cars from the riverbank.",
    "Paris - a city of light - is dimming its monuments to save energy.",
    "Washington - and the rest of the country - braced for the storm.",
    "On Feb. 26 - a Monday - the markets opened lower.",
    "Feb 26 was the coldest day of the year.",
    "Jan. 5 - the day the law takes effect - is a Sunday.",
    "By John Smith The mayor said the budget would be balanced.",
    "(Corrects spelling of minister's name) The ministry said talks would resume.",
    "(Adds details) - The company said nothing more.",
    "UPDATE: the road has reopened.",
    "NOTE: this story contains strong language.",
    "I - think so, said the witness.",
    "The report, released Feb 26 - weeks late - found no fraud.",
    "GM, Ford and Chrysler - the Big Three - all cut prices.",
    "EU leaders - meeting in Brussels - failed to agree.",
    "In NEW YORK, stocks rose.",
    "A NEW YORK judge ruled on Monday.",
    "WHO officials said the outbreak was contained.",
    "CEO pay - long a sore point - rose again.",
    "BBC News has learned that the plan was dropped.",
    "Bear Stearns - the fifth-largest U.S. investment bank - was sold.",
    "Mr. Smith, 54, said he would step down.",
    "Ten years ago - almost to the day - the bridge collapsed.",
    "'We are ready,' she said.",
    '"It\'s over - finally," the coach said.',
    "More than 200 people - most of them children - were evacuated.",
    "Shares in HSBC - Europe's biggest bank - fell 3%.",
    "DNA tests - carried out by a private laboratory - confirmed the match.",
    "US stocks: a look at the week ahead.",
    "LVMH, the luxury group, said sales rose.",
    "BHP Billiton - the world's biggest miner - raised its dividend.",
    "TV licence fees - paid by every household - will rise.",
]


def ordinary_paragraphs() -> list[str]:
    """First paragraphs with no dateline: plain openings, and openings shaped like datelines that are not."""
    out = list(ORDINARY_OPENINGS)
    leads = [
        "The",
        "A spokesman for the",
        "Officials at the",
        "Critics of the",
        "Supporters of the",
        "Residents near the",
        "Investors in the",
        "Members of the",
    ]
    subjects = [
        "government said on Tuesday that the plan would go ahead.",
        "company expects sales to rise - slowly - next year.",
        "city council voted 7-2 to approve the new stadium.",
        "hospital said the patient was in stable condition.",
        "bank raised its key interest rate by a quarter point.",
        "school board will meet again on Jan. 5 to decide.",
        "party's leader - elected only in March - faces a revolt.",
        "museum reopened on Feb 26 after a two-year renovation.",
        "airline said flights to Paris would resume on Monday.",
        "agency (which regulates food safety) issued a recall.",
        "ministry, in a statement, denied the report.",
        "union: 'We will strike.'",
        "court's decision - expected by June - could change the law.",
        "report found that 40% of bridges need repair.",
        "group, based in LONDON, said it had raised $2 million.",
        "police (AP) said nothing further.",
        "Senate - controlled by Democrats - passed the bill.",
        "storm knocked out power to 200,000 homes.",
        "study, published on Oct 20, followed 10,000 people.",
        "firm's NEW YORK office will close.",
        "talks, held in GENEVA, ended without a deal.",
        "ruling by the Supreme Court - 5 to 4 - surprised many.",
        "deal - worth $1.2 billion - needs regulators' approval.",
        "plan would cut emissions 30% by 2030.",
        "U.N. Security Council met in emergency session.",
        "mayor of SAN JOSE, Calif., said the water was safe.",
        "ECB - the euro zone's central bank - held rates.",
        "IMF said growth would slow to 2.1% this year.",
        "winners of the Nobel Prize will be named in October.",
        "results, due Nov 14, are expected to show a loss.",
        "fire, which began at 3 a.m., destroyed six homes.",
        "tests - all of them negative - were repeated.",
        "price of gold - a haven in hard times - hit a record.",
        "bill passed 52-48 after a day of debate.",
        "film, set in BEIRUT, opens on Friday.",
        "WHO said it had sent experts to the region.",
        "GDP figures for the quarter were revised up.",
        "CEO said: 'We have turned the corner.'",
    ]
    for i, subject in enumerate(subjects):
        for j in range(8):
            if len(out) >= 40 + 8 * len(subjects):
                break
            out.append(f"{leads[(i + j) % len(leads)]} {subject}")
    # "The The" and similar doubles are harmless here; keep each paragraph once.
    seen: set[str] = set()
    return [p for p in out if not (p in seen or seen.add(p))]
