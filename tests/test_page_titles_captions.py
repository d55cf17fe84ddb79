"""Headlines chosen by agreement, and captions found the way real pages set them (issue 35).

Pages are written the way sites write them (site names in the browser title, kickers, logos in <h1>,
captions as plain blocks after a picture); what is asserted is what a reader of the archive sees: the
headline, each caption's text and credit, and a body without the captions.
"""

from __future__ import annotations

import json

from bs4 import BeautifulSoup

from ingest.credits import is_credit, parse_credit
from ingest.pipeline import Ingester
from ingest.readers import read_bytes
from ingest.readers.htmlnames import in_furniture
from search.request import SearchRequest
from store.read import Archive
from tests.test_html_reader import FURNITURE, SIDEBAR, STORY, page, paragraphs_html, read
from webapp import create_app

HEADLINE = "Council votes to close the old harbour bridge"


def captions_in_story(blocks: str) -> list:
    """The captions the reader finds when `blocks` stand inside a story, between its paragraphs."""
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html(STORY[:2]) + blocks + paragraphs_html(STORY[2:])
    return read(page("", body + "</article>")).captions


def figures(texts, name: str = "") -> str:
    """One captioned figure per text, each with its own picture."""
    return "".join(
        f"<figure><img src='/{name}{i}.jpg'><figcaption>{t}</figcaption></figure>" for i, t in enumerate(texts)
    )


def test_the_shown_headline_wins_over_a_site_wide_meta_title():
    # An old page: its meta title names the section, the headline is a span marked "headline" above the story.
    body = FURNITURE + f"<p class='body'><span class='headline'>{HEADLINE}</span></p>" + paragraphs_html() + SIDEBAR
    article = read(page("<title>Harbour Times Online Edition: Breaking News</title>", body))
    assert article.headline == HEADLINE


def test_a_logo_in_h1_is_not_the_headline():
    body = (
        "<h1><a href='/'>The Harbour Times</a></h1>"
        + FURNITURE
        + f"<article><h2 class='entry-title'>{HEADLINE}</h2>"
        + paragraphs_html()
        + "</article>"
        + SIDEBAR
    )
    head = f"<title>{HEADLINE} | The Harbour Times</title><meta property='og:title' content='{HEADLINE}'>"
    assert read(page(head, body)).headline == HEADLINE


def test_a_kicker_above_the_headline_is_left_out():
    body = (
        FURNITURE
        + f"<article><h1><span class='kicker'>Harbour</span> {HEADLINE}</h1>"
        + paragraphs_html()
        + "</article>"
    )
    head = f"<meta property='og:title' content='{HEADLINE}'><title>Harbour: {HEADLINE} - The Harbour Times</title>"
    assert read(page(head, body)).headline == HEADLINE


def test_the_longer_headline_shown_on_the_page_wins_over_a_short_meta_title():
    shown = "Council votes to close the old harbour bridge to cars from next spring after a decade of arguments"
    body = FURNITURE + f"<article><h1>{shown}</h1>" + paragraphs_html() + "</article>" + SIDEBAR
    head = "<meta property='og:title' content='Bridge to close'><title>Bridge to close - Harbour Times</title>"
    assert read(page(head, body)).headline == shown


def test_a_browser_title_alone_loses_its_domain_and_section():
    body = f"<div><p>{HEADLINE}</p>" + paragraphs_html() + "</div>"
    title = f"<title>HarbourTimes.com - {HEADLINE} - U.S. &amp; World</title>"
    assert read(page(title, body)).headline == HEADLINE


def test_teaser_headlines_of_other_stories_are_not_the_headline():
    teasers = "".join(
        f"<h2 class='headline'><a href='/s{i}'>Other story number {i} about the harbour</a></h2>" for i in range(30)
    )
    body = teasers + f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>"
    head = f"<meta property='og:title' content='{HEADLINE}'>"
    assert read(page(head, body)).headline == HEADLINE


def test_a_caption_set_as_a_plain_block_after_its_picture_is_found_and_kept_out_of_the_body():
    caption = "Figure 2: The old harbour bridge seen from the east bank at low tide."
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + "<p><img src='/bridge.jpg' alt='The old harbour bridge from the east bank at low tide'></p>"
        + f"<p style='text-align:center'><em><strong>{caption}</strong></em></p>"
        + paragraphs_html(STORY[2:])
        + "</article>"
    )
    article = read(page("", body))
    # the figure's number is a label, not what the photo shows (as "Photo:" is)
    assert [c.text for c in article.captions] == [caption.removeprefix("Figure 2: ")]
    assert not any("low tide" in p for p in article.paragraphs)


def test_a_teaser_after_a_thumbnail_is_not_a_caption():
    teaser = (
        "<div class='box'><img src='/t.jpg' alt='Ferry timetable changes again as storms close the harbour'>"
        "<a href='/ferry'>Ferry timetable changes again as storms close the harbour</a></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + teaser + "</article>"
    assert read(page("", body)).captions == []


def test_caption_markup_holding_no_description_gives_no_caption():
    figures = "".join(
        f"<figure><img src='/{i}.jpg'><figcaption>{text}</figcaption></figure>"
        for i, text in enumerate(
            [
                "{{article.images.featured.caption}}",
                "Neighbours describe the bridge closure 02:29",
                "© Jane Doe",
                "Shutterstock",
                "(Getty Images via @daylife)",
                "Hide Caption",
                "10 Bilder",
                "0 Facebook Twitter Pinterest LinkedIn Reddit",
                "- Anzeige -",
                "Average (Not Rated)",
                "Pour écouter l'entretien, cliquez sur l'icône ci-dessous.",
            ]
        )
    )
    figures += "<figure><img src='/ok.jpg'><figcaption>The bridge at dusk. (AP Photo/Evan Vucci)</figcaption></figure>"
    body = f"<article><h1>{HEADLINE}</h1>" + figures + paragraphs_html() + "</article>"
    captions = read(page("", body)).captions
    assert [(c.text, c.photographer, c.agency) for c in captions] == [("The bridge at dusk.", "Evan Vucci", "AP")]


def test_credits_name_the_organisation_and_the_maker():
    figures = (
        "<figure><img src='/a.jpg'><figcaption>Launch pad at dawn.<span class='credit'>Image credit: Blue Origin"
        "</span></figcaption></figure>"
        "<figure><img src='/b.jpg'><figcaption>Shoppers on Tuesday. (Elias Funez/The Union via AP)</figcaption></figure>"
        "<figure><img src='/c.jpg'><figcaption>The director at the festival.<span class='credit'>Pool photo by David "
        "Mareuil</span></figcaption></figure>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + figures + paragraphs_html() + "</article>"
    captions = read(page("", body)).captions
    assert [(c.photographer, c.agency) for c in captions] == [
        (None, "Blue Origin"),
        ("Elias Funez", "The Union"),
        ("David Mareuil", "Pool"),
    ]


def test_a_caption_keeps_the_address_of_its_photo_and_the_article_page_links_it(migrated, tmp_path):
    figures = (
        # A lazy-loaded picture: `src` is a placeholder, the photo is in data-src (relative to the page).
        "<figure><img src='/img/preloader.gif' data-src='/photos/bridge.jpg'>"
        "<figcaption>The bridge at dusk. (AP Photo/Evan Vucci)</figcaption></figure>"
        "<figure><img src='javascript:alert(1)'><figcaption>Councillors <b>inspect</b> the deck. "
        "<span class='credit'>Jane Smith/Reuters</span></figcaption></figure>"
    )
    head = "<link rel='canonical' href='https://harbour.example/news/bridge.html'>"
    folder = tmp_path / "pages"
    folder.mkdir()
    body = f"<article><h1>{HEADLINE}</h1>" + figures + paragraphs_html() + "</article>"
    (folder / "bridge.html").write_text(page(head, body))
    with Ingester(migrated, workers=1) as ingester:
        assert ingester.run([folder]).ingested == 1
    archive = Archive(migrated)
    try:
        [hit] = archive.search(SearchRequest(q="bridge"))["hits"]
        record = archive.article(hit["id"])
    finally:
        archive.close()
    assert [c["image_url"] for c in record["captions"]] == ["https://harbour.example/photos/bridge.jpg", None]
    html = create_app(migrated).test_client().get(f"/articles/{hit['id']}").get_data(as_text=True)
    assert '<a href="https://harbour.example/photos/bridge.jpg" rel="noopener noreferrer nofollow">' in html
    assert "javascript:" not in html
    assert html.count("Photo not kept") == 1


def test_json_and_feed_pictures_keep_their_http_addresses_only():
    record = {
        "headline": HEADLINE,
        "body": "\n\n".join(STORY),
        "images": [
            {"caption": "The bridge at dusk.", "credit": "AP Photo/Evan Vucci", "url": "https://img.example/1.jpg"},
            {"caption": "The deck from above.", "credit": "Reuters", "url": "file:///etc/passwd"},
        ],
    }
    [article] = read_bytes(json.dumps(record).encode(), "bridge.json")
    assert [c.image_url for c in article.captions] == ["https://img.example/1.jpg", None]
    feed = (
        "<?xml version='1.0'?><rss version='2.0' xmlns:media='http://search.yahoo.com/mrss/'><channel>"
        "<title>Harbour Times</title><item><title>" + HEADLINE + "</title><description>" + STORY[0] + "</description>"
        "<media:content url='https://img.example/2.jpg' medium='image'><media:description>The bridge at dawn."
        "</media:description><media:credit>Jane Smith/Reuters</media:credit></media:content></item></channel></rss>"
    )
    [item] = read_bytes(feed.encode(), "feed.xml")
    assert [(c.text, c.image_url, c.agency) for c in item.captions] == [
        ("The bridge at dawn.", "https://img.example/2.jpg", "Reuters")
    ]


def test_a_caption_holding_its_credit_in_a_caption_named_span_is_one_caption():
    figure = (
        "<div class='photo'><img src='/p.jpg' alt='plague'><span class='newsCaption'>The plague doctor's mask "
        "on show in the town museum <span class='caption'>(Image: GETTY)</span></span></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html(STORY[:2]) + figure + paragraphs_html(STORY[2:])
    [caption] = read(page("", body + "</article>")).captions
    assert (caption.text, caption.agency) == ("The plague doctor's mask on show in the town museum", "Getty Images")


def test_a_figure_inside_a_link_to_another_story_is_a_teaser_not_a_caption():
    teaser = (
        "<ul><li><a href='/2017/03/27/fearless-girl/index.html'><figure><img src='/t.jpg' alt=''></figure>"
        "<figcaption class='thumb-caption'>Fearless Girl statue will stay through early next year</figcaption>"
        "</a></li></ul>"
    )
    lightbox = (
        "<a href='/photos/bridge-large.jpg'><figure><img src='/b.jpg'><figcaption>The bridge at dusk."
        "</figcaption></figure></a>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + lightbox + paragraphs_html() + teaser + "</article>"
    assert [c.text for c in read(page("", body)).captions] == ["The bridge at dusk."]


def test_the_lead_photo_caption_in_the_metadata_counts_when_the_page_shows_none():
    ld = (
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "' + HEADLINE + '", '
        '"image": {"@type": "ImageObject", "url": "https://harbour.example/lead.jpg", '
        '"caption": "Engineers inspect the underside of the harbour bridge in March.", '
        '"creditText": "Jane Smith/Reuters"}}</script>'
    )
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>"
    [caption] = read(page(ld, body)).captions
    assert (caption.text, caption.photographer, caption.agency, caption.image_url) == (
        "Engineers inspect the underside of the harbour bridge in March.",
        "Jane Smith",
        "Reuters",
        "https://harbour.example/lead.jpg",
    )
    # A label is not a description, and a caption the page shows is not taken twice.
    label = ld.replace("Engineers inspect the underside of the harbour bridge in March.", "press shot")
    assert read(page(label, body)).captions == []
    shown = "<figure><img src='/l.jpg'><figcaption>Engineers inspect the underside of the harbour bridge.</figcaption></figure>"
    assert len(read(page(ld, f"<article><h1>{HEADLINE}</h1>" + shown + paragraphs_html() + "</article>")).captions) == 1
    # The site's sharing text set as the picture's alt is the page's description, not the photo's.
    sharing = "The Harbour Times brings you the news of the bay and its towns every morning."
    meta = f"<meta property='og:description' content='{sharing}'><meta property='og:image:alt' content='{sharing}'>"
    assert read(page(meta, body)).captions == []


def test_a_section_label_matching_part_of_the_title_is_not_the_headline():
    shown = "Firefox – Less advertising, more speed on Android"
    body = (
        f"<div class='cat'><h2>Firefox</h2></div><article><h1>{shown}</h1>"
        + "<h2>Firefox</h2>"
        + paragraphs_html()
        + "</article>"
    )
    head = f"<meta property='og:title' content='{shown}'><title>{shown} | The Blog</title>"
    assert read(page(head, body)).headline == shown


def test_a_blog_title_keeps_its_longest_part():
    title = "<title>Four Years Remaining » Blog Archive » Interning of small integers in Python</title>"
    body = "<div class='post'>" + paragraphs_html() + "</div>"
    assert read(page(title, body)).headline == "Interning of small integers in Python"


def test_credits_written_in_their_own_element_or_after_a_caption_are_split_off():
    figures = (
        "<figure><img src='/a.jpg'><figcaption><span>Photo: Jane Smith/Reuters</span> Scooters parked by the "
        "bridge on Tuesday.</figcaption></figure>"
        "<figure><img src='/b.jpg'><figcaption>The bridge is back home after a month. (Karl Mondon/Bay Area News "
        "Group)</figcaption></figure>"
        "<figure><img src='/c.jpg'><figcaption>The family at the bridge in 1960. (Courtesy of Piyum Moghadam)"
        "</figcaption></figure>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + figures + paragraphs_html() + "</article>"
    captions = read(page("", body)).captions
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("Scooters parked by the bridge on Tuesday.", "Jane Smith", "Reuters"),
        ("The bridge is back home after a month.", "Karl Mondon", "Bay Area News Group"),
        ("The family at the bridge in 1960.", None, None),
    ]


def test_a_caption_sharing_a_small_box_with_its_picture_is_found_and_kept_out_of_the_body():
    # Old and hand-made layouts: no caption markup, the picture and its words alone in a box or a table.
    boxed = "Harbour master Ines Rowe on the closed bridge, which has carried cars since 1921."
    tabled = "The east pier after the storm of March 3."
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + f"<div class='pic'><div><img src='/rowe.jpg' width='600'></div><div>{boxed}</div></div>"
        + paragraphs_html(STORY[2:4])
        + f"<table><tr><td><img src='/pier.jpg'></td></tr><tr><td class='x'>{tabled}</td></tr></table>"
        + paragraphs_html(STORY[4:])
        + "</article>"
    )
    article = read(page("", body))
    assert [c.text for c in article.captions] == [boxed, tabled]
    assert [c.image_url for c in article.captions] == [None, None]  # relative addresses on a page with no URL
    assert not any("Ines Rowe" in p or "east pier" in p for p in article.paragraphs)


def test_an_emphasised_line_or_a_credited_line_right_after_a_picture_is_its_caption():
    emphasised = "The bridge seen from the ferry in 1998"
    credited = "Cars queue at the bridge on its last open day. (Photo: Tom Ellery)"
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + f"<img src='/a.jpg'><center><em>{emphasised} via <a href='https://archive.example'>Harbour Archive</a>"
        + "</em></center>"
        + paragraphs_html(STORY[2:4])
        + f"<p><img src='/b.jpg'></p><p>{credited}</p>"
        + paragraphs_html(STORY[4:])
        + "</article>"
    )
    captions = read(page("", body)).captions
    assert [c.text for c in captions] == [
        f"{emphasised} via Harbour Archive",
        "Cars queue at the bridge on its last open day.",
    ]
    assert captions[1].photographer == "Tom Ellery"


def test_text_beside_a_picture_that_is_not_its_caption_stays_out_of_the_captions():
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        # a byline with the author's head shot, a teaser card, an icon button, a rating's stars
        + "<div class='author-box'><img src='/me.jpg'><span>By Ines Rowe, transport reporter</span></div>"
        + "<div><img src='/t.jpg'><div><a href='/ferry'>Ferry timetable changes again as storms close it</a></div></div>"
        + "<div><button><img src='/x.svg'><span>Close the menu now</span></button></div>"
        + "<p><img src='/stars.svg' width='80' height='16'><br>Lovely article about the bridge and the town.</p>"
        + "<div><img src='/m.jpg'><span>Letzte Änderung:</span><span>14.01.2022 um 09:25</span></div>"
        + paragraphs_html()
        + "</article>"
    )
    assert read(page("", body)).captions == []


def test_a_gallery_whose_photos_share_one_caption_keeps_it_for_each_photo_and_a_lightbox_copy_once():
    shared = "Volunteers clear the harbour path after the storm."
    gallery = "".join(
        f"<figure><img src='/gallery/harbour-path-{n}-580x386.jpg'><figcaption>{shared}</figcaption></figure>"
        for n in "123"
    )
    lightbox = (
        f"<div class='lightbox'><img src='/gallery/harbour-path-1-1200x800.jpg'><p class='caption'>{shared}</p></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + gallery + paragraphs_html() + lightbox + "</article>"
    captions = read(page("", body)).captions
    # Photos numbered 1, 2 and 3 are three photos; the lightbox's larger copy of photo 1 is not a fourth.
    assert [c.text for c in captions] == [shared, shared, shared]


def test_a_figcaption_named_for_caption_and_credit_keeps_both():
    figure = (
        "<figure><img src='/f.jpg'><figcaption class='image__caption-credit'>"
        "<div class='image__caption'>The bridge in 1987.</div>"
        "<div class='image__credit'>Photo illustration by Harbour Times. Photo by Dana Whitlow.</div>"
        "</figcaption></figure>"
        "<div class='thumb'><img src='/g.jpg'><div class='thumbcaption'>The bridge under repair in 2002</div></div>"
    )
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + figure
        + paragraphs_html(STORY[2:])
        + "</article>"
    )
    captions = read(page("", body)).captions
    assert [(c.text, c.photographer) for c in captions] == [
        ("The bridge in 1987.", "Dana Whitlow"),
        ("The bridge under repair in 2002", None),
    ]


def test_a_layout_caption_is_judged_by_its_own_box_not_by_the_page_around_it():
    caption = "Harbour master Ines Rowe on the closed bridge at dawn."
    body = (
        f"<div class='profile-layout'><article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + f"<div><div><img src='/rowe.jpg'></div><div>{caption}</div></div>"
        + paragraphs_html(STORY[2:4])
        + "<p><img src='/more.jpg'></p><p><em>And a few more from the pier:</em></p>"
        + paragraphs_html(STORY[4:])
        + "</article></div>"
    )
    # A wrapper named for the site's profile pages is not an author's head shot.
    assert [c.text for c in read(page("", body)).captions] == [caption]


def test_a_gallery_caption_kept_in_an_attribute_is_found_with_its_credit_for_each_photo():
    first = "Ferries wait at the closed bridge on Sunday, June 30, 2024."
    second = "Harbour master Ines Rowe speaks to drivers at the barrier."
    third = "The last ferry of the day leaves the closed harbour."
    gallery = (
        "<ul class='lightbox'>"
        f"<li data-caption=\"{first} (AP Photo/Dana Whitlow)\"><img src='/g/IMG_20240630_101544.jpg' alt=''></li>"
        f"<li data-caption='{second} (Harbour Times)'><img src='/g/IMG_20240630_114502.jpg' alt=''></li>"
        f"<li><img src='/g/IMG_20240630_120001.jpg' data-caption='{third}' data-credit='Ines Rowe/Reuters'></li>"
        "</ul>"
    )
    captions = captions_in_story(gallery)
    # Two shots of one camera (serial numbers in their names) are two photos.
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        (first, "Dana Whitlow", "AP"),
        (second, None, "Harbour Times"),
        (third, "Ines Rowe", "Reuters"),
    ]


def test_credits_written_before_beside_or_glued_to_a_caption_are_split_off():
    blocks = (
        # the credit's line above the caption's, in the picture's box
        "<div><img src='/a.jpg'><div>Dana Whitlow / Harbour Times</div><div>The old bridge at dawn.</div></div>"
        # a credit block beside the caption block, no figure around them
        "<div class='wp-caption-text'>Cars queue at the barrier on the first morning.</div>"
        "<div class='credit'><p>Photo: AP</p></div>"
        # a copyright sign run on after the caption
        "<figure><img src='/c.jpg'><figcaption>Walkers cross the bridge.© Ines Rowe</figcaption></figure>"
        # a bare agency in brackets, an agency glued to the last sentence, an agency before a dash
        "<figure><img src='/d.jpg'><figcaption>The council meets on Tuesday. (Reuters)</figcaption></figure>"
        "<figure><img src='/e.jpg'><figcaption>The bridge seen from the pier.AP</figcaption></figure>"
        "<figure><img src='/f.jpg'><figcaption>AFP/File – The bridge in 1987, the year it opened.</figcaption></figure>"
        "<figure><img src='/g.jpg'><figcaption>Harbour master Ines Rowe Submitted photo</figcaption></figure>"
        "<figure><img src='/h.jpg'><figcaption>The ferry terminal from above. (Harbour Port Authority)</figcaption>"
        "</figure>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("The old bridge at dawn.", "Dana Whitlow", "Harbour Times"),
        ("Cars queue at the barrier on the first morning.", None, "AP"),
        ("Walkers cross the bridge.", "Ines Rowe", None),
        ("The council meets on Tuesday.", None, "Reuters"),
        ("The bridge seen from the pier.", None, "AP"),
        ("The bridge in 1987, the year it opened.", None, "AFP"),
        ("Harbour master Ines Rowe", None, None),
        ("The ferry terminal from above.", None, "Harbour Port Authority"),
    ]
    assert captions[6].credit == "Submitted photo"


def test_labels_buttons_link_boxes_and_bylines_in_caption_places_are_not_captions():
    caption = "The old bridge at dawn, a day before it closed."
    furniture = [
        "Anzeige",
        ". View gallery",
        "More on: Harbour bridge closure, ferry timetables and parking",
        "Click on a red pin on the map to see stories from that place.",
        "DANA WHITLOW and INES ROWE June 30, 2024",
        "DANA WHITLOW 2 hours ago",
        "HARBOUR TIMES is a registered trademark of Harbour Media Ltd.",
        "Dana Whitlow, Associated Press",
    ]
    # A picture's button between it and its caption is skipped, not taken for the caption.
    shown = f"<p><img src='/x.jpg'></p><div>Expand / Contract</div><p><em>{caption}</em></p>"
    assert [c.text for c in captions_in_story(figures(furniture) + shown)] == [caption]


def test_credits_lose_dates_notes_and_lead_ins_and_name_a_sites_user():
    assert parse_credit("Foto: I. Rowe, 15.01.2022") == ("I. Rowe", None)
    assert parse_credit("Credit... Dana Whitlow/The Harbour Times") == ("Dana Whitlow", "The Harbour Times")
    assert parse_credit("Foto: Getty Images (Symbolbild)") == (None, "Getty Images")
    assert parse_credit("crédito: Ines Rowe/Harbour Times") == ("Ines Rowe", "Harbour Times")
    assert parse_credit("Foto: hafenfoto/harbourpics.com") == ("hafenfoto", "harbourpics.com")
    assert parse_credit("Photo: @hafenfoto / Twitter") == ("@hafenfoto", "Twitter")
    assert parse_credit("File photo") == (None, None)
    assert parse_credit("Foto: Dana Whitlow on Unsplash") == ("Dana Whitlow", "Unsplash")
    assert parse_credit("Photo by Dana Whitlow via Flickr (CC BY-SA 2.0)") == ("Dana Whitlow", "Flickr")
    assert parse_credit("Symbolbild: Ines Rowe/AdobeStock") == ("Ines Rowe", "Adobe Stock")
    assert not is_credit("Symbolbild Hafenfähre")  # a caption that starts like a label


def test_a_block_named_for_the_author_inside_a_figure_is_the_photos_credit():
    figure = (
        "<figure><img src='/f.jpg'><div class='image-description'>"
        "<h2 class='image-description__caption'>The old ferry leaves the harbour for the last time.</h2>"
        "<div class='image-description__author'><span>Dana Whitlow / Reuters</span></div></div></figure>"
    )
    captions = captions_in_story(figure)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("The old ferry leaves the harbour for the last time.", "Dana Whitlow", "Reuters")
    ]


def test_credits_after_a_slash_or_a_screenshot_label_and_wiki_marks_are_split_off_captions():
    captions = [
        ("Bild: The mayor opens the new ferry terminal / AFP", "The mayor opens the new ferry terminal", "AFP"),
        ("Cars stolen at the harbour/Screenshot from Harbour TV", "Cars stolen at the harbour", "Harbour TV"),
        ("Ines Rowe, harbour master of the year/ Foto Dana Whitlow", "Ines Rowe, harbour master of the year", None),
        ("A drone flew over the pier. Screenshot aus Twitter", "A drone flew over the pier.", "Twitter"),
        ("Harbour master Ines Rowe[3][4]", "Harbour master Ines Rowe", None),
        (
            "Screenshots of the old ferry timetable, printed in 1987.",
            "Screenshots of the old ferry timetable, printed in 1987.",
            None,
        ),
    ]
    not_captions = ["Reprodução", "01.12.2022 / Harbour / International / Ferries / Economy"]
    found = captions_in_story(figures(c for c, _, _ in captions) + figures(not_captions, "n"))
    assert [(c.text, c.agency) for c in found] == [(text, agency) for _, text, agency in captions]
    assert found[2].photographer == "Dana Whitlow"


def test_a_figure_holding_only_its_picture_keeps_the_caption_standing_after_it():
    caption = "Three holiday periods break up the school year."
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + f"<figure><img src='/holidays.png' alt='{caption} Foto: Harbour Agency'></figure>"
        + f"<div class='internal-descent'><span>{caption} Foto: Harbour Agency</span></div>"
        + paragraphs_html(STORY[2:])
        + "</article>"
    )
    captions = read(page("", body)).captions
    assert [(c.text, c.agency) for c in captions] == [(caption, "Harbour Agency")]


def test_the_lead_photos_metadata_caption_given_by_reference_in_a_graph_counts():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "NewsArticle", "headline": HEADLINE, "image": {"@id": "https://ht.example/a#primaryimage"}},
            {
                "@type": "ImageObject",
                "@id": "https://ht.example/a#primaryimage",
                "url": "https://ht.example/bridge.jpg",
                "caption": "Bild: A drone flew low over the closed bridge on Sunday. Screenshot aus Twitter",
            },
        ],
    }
    head = f"<script type='application/ld+json'>{json.dumps(graph)}</script>"
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>"
    captions = read(page(head, body)).captions
    assert [(c.text, c.credit, c.agency) for c in captions] == [
        ("A drone flew low over the closed bridge on Sunday.", "Screenshot aus Twitter", "Twitter")
    ]


def test_a_numbered_figure_line_after_its_picture_is_its_caption_with_its_source():
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + "<p><img src='/profile.jpg'><br><em><sub>Abbildung 3: The snow pack in layers, Quelle HTA Davos</sub></em></p>"
        + paragraphs_html(STORY[2:])
        + "</article>"
    )
    captions = read(page("", body)).captions
    assert [(c.text, c.credit, c.agency) for c in captions] == [
        ("The snow pack in layers", "Quelle HTA Davos", "HTA Davos")
    ]
    assert parse_credit("HTA / Whitlow") == ("Whitlow", "HTA")
    assert parse_credit("Dana Whitlow/imagebank.harbour.se") == ("Dana Whitlow", "imagebank.harbour.se")
    assert parse_credit("Credit: Getty - Contributor") == (None, "Getty Images")


def test_more_credit_forms_and_a_caption_held_inside_its_credit_block():
    texts = [
        # the caption inside the credit's block
        "<div class='copyright'>Bild: hafenfoto"
        "<span class='picture-description'> The court is no place for a quarrel</span></div>",
        "Oil pumps at sunset. Bild: hafenfoto/Harbourpics.com",
        "Posters of the harbour campaign. (harbourcampaign.org)",
        "2月17日，港口的渡轮在清晨出发。港口日报记者 李明 摄",
        "市长说，渡轮明年恢复运行。（取自市政府网站）",
        "QUALITY SINCE 2006",  # a banner, not a caption
    ]
    captions = captions_in_story(figures(texts))
    assert [(c.text, c.credit) for c in captions] == [
        ("The court is no place for a quarrel", "Bild: hafenfoto"),
        ("Oil pumps at sunset.", "Bild: hafenfoto/Harbourpics.com"),
        ("Posters of the harbour campaign.", "harbourcampaign.org"),
        ("2月17日，港口的渡轮在清晨出发。", "港口日报记者 李明 摄"),
        ("市长说，渡轮明年恢复运行。", "取自市政府网站"),
    ]


def test_times_shop_listings_and_reader_instructions_in_caption_places_are_not_captions():
    caption = "The ferry costs 5 € and you can buy tickets at the pier."
    furniture = [
        "16 days ago",
        "Published Nov 8, 2023",
        "Harbour Sneaker blue 59,99 € Zum Shop",
        "(ein Klick auf das Bild öffnet die größere Ansicht)",
        "Rate this post",
        "Pin",
    ]
    assert [c.text for c in captions_in_story(figures([*furniture, caption]))] == [caption]


def test_credits_standing_beside_their_caption_in_their_own_blocks_are_the_captions_credits():
    blocks = (
        # a <cite> after the figcaption, inside the figure
        "<figure><img src='/a.jpg'><span class='meta'><figcaption>The old ferry leaves the harbour.</figcaption>"
        "<cite>Dana Whitlow/Harbour Times</cite></span></figure>"
        # a block named for the author beside a caption that stands outside any figure
        "<div><figure><img src='/b.jpg'></figure><figcaption>Crowds on the quay at dawn.</figcaption>"
        "<span class='author'>Reuters</span></div>"
        # a credit in the paragraph after the caption's paragraph
        "<div><img src='/c.jpg'><p class='annotation'><em class='caption'>The mayor cuts the ribbon.</em></p>"
        "<p class='annotation'><em class='copyright'>© Ines Rowe</em></p></div>"
        # a credit over the picture, the caption under it
        "<div class='slide'><div class='slide-img'><img src='/d.jpg'><span class='article-copyright'>Harbour "
        "Authority</span></div><div class='img-caption'>The new pier seen from the lighthouse.</div></div>"
        # a second figcaption holding only the credit
        "<figure><img src='/e.jpg'><figcaption class='caption'>Gulls over the fish market.</figcaption>"
        "<figcaption class='below'>Photo: Getty Images</figcaption></figure>"
        # the credit kept on the picture itself
        "<figure><img src='/f.jpg' data-credit='Dana Whitlow/WENN.com'><figcaption>The lighthouse keeper's "
        "cottage.</figcaption></figure>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("The old ferry leaves the harbour.", "Dana Whitlow", "Harbour Times"),
        ("Crowds on the quay at dawn.", None, "Reuters"),
        ("The mayor cuts the ribbon.", "Ines Rowe", None),
        ("The new pier seen from the lighthouse.", None, "Harbour Authority"),
        ("Gulls over the fish market.", None, "Getty Images"),
        ("The lighthouse keeper's cottage.", "Dana Whitlow", "WENN"),
    ]
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html(STORY[:2]) + blocks + paragraphs_html(STORY[2:])
    paragraphs = read(page("", body + "</article>")).paragraphs
    assert not [p for p in paragraphs if "Ines Rowe" in p or "Getty" in p or "Harbour Authority" in p]


def test_a_credit_ending_the_pictures_title_or_the_caption_after_a_dash_is_split_off():
    blocks = (
        "<figure><img src='/a.jpg' title='The flooded towpath near the lock - © Ines Rowe'>"
        "<figcaption>The flooded towpath near the lock</figcaption></figure>"
        "<figure><img src='/b.jpg'><figcaption>The dictionary team at work in the archive. - Bild: hafenfoto / "
        "Pixabay</figcaption></figure>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.credit, c.photographer, c.agency) for c in captions] == [
        ("The flooded towpath near the lock", "© Ines Rowe", "Ines Rowe", None),
        ("The dictionary team at work in the archive.", "Bild: hafenfoto / Pixabay", "hafenfoto", "Pixabay"),
    ]


def test_stock_sites_and_more_agencies_are_agencies_and_a_licence_is_no_name():
    assert parse_credit("© Rike/harbourpics.de") == ("Rike", "harbourpics.de")
    assert parse_credit("Foto: Dana Whitlow/Belga") == ("Dana Whitlow", "Belga")
    assert parse_credit("Bild: Ines Rowe, Lizenz CC BY-SA 4.0") == ("Ines Rowe", None)
    assert parse_credit("hafenfoto on Unsplash") == ("hafenfoto", "Unsplash")


def test_credit_parts_that_are_notes_origins_or_an_agencys_region_name_nobody():
    assert parse_credit("picture alliance | Dana Whitlow") == ("Dana Whitlow", "dpa")
    assert parse_credit("Symbolbild / Harbour Works AG") == (None, "Harbour Works AG")
    assert parse_credit("Reprodução/iG Harbour") == (None, "iG Harbour")
    assert parse_credit("Dana Whitlow/Reuters files") == ("Dana Whitlow", "Reuters")
    assert parse_credit("Photographer: Dana Whitlow/Getty Images Europe") == ("Dana Whitlow", "Getty Images")
    assert parse_credit("© Kurt-Walter Whitlow, 31.05.2013") == ("Kurt-Walter Whitlow", None)
    assert parse_credit("Foto: PantherMedia / HafenFoto") == ("HafenFoto", "PantherMedia")
    assert is_credit("Care of Harbour Works LLC") and parse_credit("Care of Harbour Works LLC") == (
        None,
        "Harbour Works LLC",
    )


def test_a_lightbox_links_title_and_a_credit_set_before_the_caption_with_a_dash_are_read():
    blocks = (
        "<p>Photos of the day:</p><p><a href='/big/1.jpg' data-lightbox='day' title='The ferry leaves the "
        "harbour at dawn.'><img src='/small/1.jpg' width='56' height='56'></a>"
        "<a href='/big/2.jpg' data-fancybox='day' data-caption='Foto: Ines Rowe - Crowds wait on the quay "
        "for the last crossing'><img src='/small/2.jpg'></a></p>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer) for c in captions] == [
        ("The ferry leaves the harbour at dawn.", None),
        ("Crowds wait on the quay for the last crossing", "Ines Rowe"),
    ]


def test_teasers_of_this_sites_stories_are_not_captions_but_a_caption_linking_elsewhere_is():
    blocks = (
        "<figure><img src='/teaser.jpg'><figcaption><a href='/sport'>Sport</a> <a href='/sport/ferry-race'>Ferry "
        "crews race across the bay for the summer cup</a> 15 April</figcaption></figure>"
        "<figure><img src='/boots.jpg'><figcaption><a href='https://shop.example/boots' rel='nofollow'>Harbour "
        "boots in waxed leather by Ines Rowe</a>, about 90 euros</figcaption></figure>"
    )
    assert [c.text for c in captions_in_story(blocks)] == [
        "Harbour boots in waxed leather by Ines Rowe, about 90 euros"
    ]


def test_a_label_under_many_pictures_and_a_data_tables_badges_are_not_captions():
    charts = "".join(
        f"<figure><img src='/chart{i}.png'><figcaption><a class='icon-link' href='/chart{i}.pdf'>Download graphic"
        "</a></figcaption></figure>"
        for i in range(3)
    )
    rows = "".join(
        f"<tr><td>{i + 1}</td><td><img src='/badge{i}.png' alt='{team} FC badge'></td><td>{team}</td><td>{40 - i}"
        "</td></tr>"
        for i, team in enumerate(["Harbour Rovers", "Quay Wanderers United", "Ferry Town"])
    )
    blocks = charts + f"<table><tbody>{rows}</tbody></table>" + figures(["The old bridge seen from the east bank."])
    assert [c.text for c in captions_in_story(blocks)] == ["The old bridge seen from the east bank."]


def test_a_gallery_of_other_news_in_an_aside_is_not_the_storys():
    slide = (
        "<figure><img src='/news{0}.jpg'><figcaption><h3>Harbour news in pictures</h3><p>Day {0}: crowds "
        "gather on the quay as the ferry crews race across the bay, while stall holders sell fish and bread to "
        "visitors who came from the whole coast for the summer cup and its fireworks</p></figcaption></figure>"
    )
    aside = "<aside class='gallery'>" + "".join(slide.format(i) for i in range(40)) + "</aside>"
    assert len(aside.split()) > 1000
    blocks = figures(["The old bridge seen from the east bank."]) + aside
    assert [c.text for c in captions_in_story(blocks)] == ["The old bridge seen from the east bank."]


def test_a_story_wrapped_in_a_block_named_for_the_sidebar_beside_it_keeps_its_captions():
    for wrapper in ("layout has-sidebar", "non-ad-column"):
        body = (
            f"<div class='{wrapper}'><article><h1>{HEADLINE}</h1>"
            + figures(["The old bridge seen from the east bank."])
            + paragraphs_html()
            + "</article></div>"
        )
        article = read(page("", body))
        assert [c.text for c in article.captions] == ["The old bridge seen from the east bank."], wrapper
        assert STORY[0] in article.body


def test_in_a_web_archives_copy_teasers_linking_to_the_archived_site_are_still_teasers():
    archived = "https://web.archive.org/web/20200105120000/https://www.harbourtimes.example"
    head = f"<link rel='canonical' href='{archived}/news/bridge-vote'>"
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + f"<figure><img src='/teaser.jpg'><figcaption>Sport: <a href='{archived}/sport/ferry-race'>Ferry crews "
        "race across the bay for the summer cup</a></figcaption></figure>"
        + "<figure><img src='/boots.jpg'><figcaption>Boots by <a href='https://web.archive.org/web/"
        "20200105120000/https://shop.example/boots'>Ines Rowe's workshop on the quay</a></figcaption></figure>"
        + paragraphs_html(STORY[2:])
        + "</article>"
    )
    # the archive's address of another site (a shop) is a link away from this one: the caption stays
    assert [c.text for c in read(page(head, body)).captions] == ["Boots by Ines Rowe's workshop on the quay"]


def test_slides_of_a_slideshow_are_captions_with_their_credits_but_a_gallery_pages_footer_is_not():
    slides = "".join(
        f"<li><div class='m'><a href='#'><img src='/slide{i}.jpg' alt='slide{i}.jpg'></a></div><div class='summary'>"
        f"<p>{text}<span class='source'>{credit}</span></p></div></li>"
        for i, (text, credit) in enumerate(
            [
                ("Feb. 2: Crowds wait on the quay for the last crossing before the bridge closes.", "AP"),
                ("The old bridge seen from the east bank at dawn, a week before the vote.", "Ines Rowe"),
            ]
        )
    )
    footer = (
        "<div class='footer-wrap'><img src='/logo.png'><p>Copyright 2022 The Harbour Times. All rights reserved. "
        "Subscribe to the print edition</p></div>"
    )
    body = (
        f"<div class='slideshow'><ul>{slides}</ul></div><article><h1>{HEADLINE}</h1>"
        + paragraphs_html()
        + "</article>"
        + footer
    )
    html = page("", body).replace("<body>", "<body class='node-type-gallery'>")
    captions = read(html).captions
    assert [(c.text, c.agency, c.photographer) for c in captions] == [
        ("Feb. 2: Crowds wait on the quay for the last crossing before the bridge closes.", "AP", None),
        ("The old bridge seen from the east bank at dawn, a week before the vote.", None, "Ines Rowe"),
    ]


def test_a_block_named_for_a_pictures_description_is_its_caption_and_a_show_description_toggle_is_not():
    blocks = (
        "<div class='atc-Image'><img src='/quay.jpg'></div><p class='img-desc-container'><span class='img-desc'>"
        "Crowds wait on the quay for the last crossing</span> <a class='img-action' href='/quay-big.jpg'>Zoom</a></p>"
        "<div class='atc-Image'><img src='/bridge.jpg'></div><div class='atc-ImageDescription'><button>"
        "Bildbeschreibung einblenden</button><p><span class='atc-ImageDescriptionText'>The old bridge seen from the "
        "east bank.</span> <span class='atc-ImageDescriptionCopyright'>Bild: dpa</span></p></div>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.agency) for c in captions] == [
        ("Crowds wait on the quay for the last crossing", None),
        ("The old bridge seen from the east bank.", "dpa"),
    ]


def test_a_story_in_a_wrapper_named_for_its_sidebar_keeps_its_captions():
    # "st-sidebar__container" wraps the headline, the story and the sidebar: the story's captions are kept, the
    # sidebar's are not
    body = (
        f"<div class='st-sidebar__container'><div class='st-sidebar__main'><h1>{HEADLINE}</h1>"
        + paragraphs_html(STORY[:2])
        + figures(["Crowds wait on the quay for the last crossing"])
        + paragraphs_html(STORY[2:])
        + "</div><div class='sidebar-list'>"
        + figures(["Ferry crews race across the bay for the summer cup"], "side")
        + "</div></div>"
    )
    assert [c.text for c in read(page("", body)).captions] == ["Crowds wait on the quay for the last crossing"]


def test_a_widgets_own_h1_does_not_make_its_sidebar_part_of_the_story():
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        + paragraphs_html()
        + "</article><div class='sidebar'><h1>Support our newsroom</h1>"
        + figures(["Ferry crews race across the bay for the summer cup"], "side")
        + "</div>"
    )
    assert read(page("", body)).captions == []


def test_lightbox_and_gallery_attributes_are_captions_but_a_headline_in_a_title_is_not():
    blocks = (
        "<a href='/big/quay.jpg' data-fresco-caption='Crowds wait on the quay in early February. | KYODO'>"
        "<img src='/quay.jpg'></a>"
        "<a href='/big/group1.jpg' data-fancybox='g' data-caption='Group photo 1'><img src='/group1.jpg'></a>"
        "<div class='pic'><img src='/crane.jpg' caption='A crane lifts the last span (رويترز)'></div>"
        f"<a href='/big/lead.jpg' class='js-image-popup' title='{HEADLINE}'><img src='/lead.jpg'></a>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.agency) for c in captions] == [
        ("Crowds wait on the quay in early February.", "Kyodo"),
        ("Group photo 1", None),
        ("A crane lifts the last span", "Reuters"),
    ]


def test_a_caption_block_named_for_its_attribution_keeps_its_text_and_splits_its_credit():
    blocks = (
        "<div class='lede-image-wrapper'><img src='/quay.jpg'><div class='lede-image-data'><div class='attribution'>"
        "Crowds wait on the quay. <span class='credit'>Photo: Ines Rowe/AFP via Getty Images</span></div></div></div>"
        "<div class='blog-multimedia--figure-caption'><figure><h2 class='element-invisible'>harbour-2019-1160x768.jpg"
        "</h2><img src='/crane.jpg' alt='A crane lifts the last span'></figure><figcaption>A crane lifts the last "
        "span</figcaption></div>"
        "<div class='owl-carousel'><div class='img'><img src='/ferry.jpg'><div class='row-title'><a>The ferry leaves "
        "the quay at dawn</a></div></div><div class='img cloned'><img src='/ferry.jpg'><div class='row-title'><a>The "
        "ferry leaves the quay at dawn</a></div></div></div>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("Crowds wait on the quay.", "Ines Rowe", "AFP"),
        ("A crane lifts the last span", None, None),
        ("The ferry leaves the quay at dawn", None, None),
    ]


def test_a_section_heading_named_caption_is_not_a_caption_but_a_caption_set_in_a_small_heading_is():
    blocks = (
        "<div class='c-module-caption'><h2>Related topics</h2></div>"
        "<figure><img src='/teaser.jpg'><figcaption>mit Video</figcaption></figure>"
        "<div class='pic'><img src='/crane.jpg'></div><div class='bildunterschrift'><h6>A crane lifts the last span "
        "of the old bridge (Foto: Sarawut /Adobe Stock)</h6></div>"
        "<div class='pic'><img src='/ferry.jpg'></div><div class='image-caption'>The ferry leaves the quay at dawn. "
        "Bildrechte: Harbour TV/Ines Rowe</div>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("A crane lifts the last span of the old bridge", "Sarawut", "Adobe Stock"),
        ("The ferry leaves the quay at dawn.", "Ines Rowe", "Harbour TV"),
    ]


def test_a_gallerys_lightbox_titles_beside_a_captioned_photo_are_each_photos_captions():
    blocks = (
        "<div class='news-detail-image-row'><img src='/lead.jpg'><p>The old bridge seen from the east bank.</p>"
        "<a data-lightbox='gallery' href='/big/quay.jpg' title='Crowds wait on the quay for the ferry.'>"
        "<img src='/quay-56.jpg'></a><a class='zoomimage' href='/big/crane.jpg' title='A crane lifts the last span "
        "(Vergrößerung öffnet sich in einem neuen Fenster)'><img src='/crane-56.jpg'></a>"
        "<a data-lightbox='gallery' href='/big/buoy.jpg' title='A buoy marks the channel (Vergrößerung öffnet sich im "
        "neuen Fenster)'><img src='/buoy-56.jpg'></a>"
        "<a data-fancybox='g' href='/big/ferry.jpg' data-caption='Archivfoto: Harbour Times - The ferry leaves the "
        "quay at dawn'><img src='/ferry-56.jpg'></a>"
        "<a data-lightbox='gallery' href='/big/x.jpg' title='Ines Rowe portrait.jpg (21 KB)'><img src='/x.jpg'></a></div>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.agency) for c in captions] == [
        ("The old bridge seen from the east bank.", None),
        ("Crowds wait on the quay for the ferry.", None),
        ("A crane lifts the last span", None),
        ("A buoy marks the channel", None),
        ("The ferry leaves the quay at dawn", "Harbour Times"),
    ]


def test_a_photo_set_beside_the_text_in_its_own_aside_is_the_storys_but_an_aside_with_links_is_not():
    blocks = (
        "<aside class='story-enhancement'><figure><picture><img src='/quay.jpg'></picture><figcaption><p>Crowds "
        "wait on the quay for the last crossing. | Ines Rowe/AP Photo</p></figcaption></figure></aside>"
        "<aside class='story-enhancement'><figure><img src='/ferry.jpg'><figcaption>Ferry crews race across the bay"
        "</figcaption></figure><a href='/sport/ferry-race'>Read: the summer cup</a></aside>"
        "<div class='embed-related'><img src='/crane.jpg'><div class='embed-related-caption'>A crane lifts the last "
        "span of the old bridge.</div></div>"
    )
    captions = captions_in_story(blocks)
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("Crowds wait on the quay for the last crossing.", "Ines Rowe", "AP"),
        ("A crane lifts the last span of the old bridge.", None, None),
    ]


def test_a_credit_written_once_for_the_articles_photos_is_each_uncredited_photos_credit():
    shots = (
        figures(["Crowds wait on the quay for the last crossing."])
        + "<figure><img src='/crane.jpg'><figcaption>A crane lifts the last span. Photo: Dana Whitlow/AP"
        "</figcaption></figure>" + figures(["Ferry crews race across the bay."], name="ferry")
    )
    credited = [(c.text, c.photographer, c.agency) for c in captions_in_story(shots + ENDING)]
    assert credited == [
        ("Crowds wait on the quay for the last crossing.", None, "Harbour Works"),
        ("A crane lifts the last span.", "Dana Whitlow", "AP"),
        ("Ferry crews race across the bay.", None, "Harbour Works"),
    ]
    info_box = "<ul class='info'><li><div>Datum</div><div>1.2.2022</div></li><li><div>Foto(s)</div>"
    info_box += "<div>Ines Rowe / Harbour Times</div></li></ul>"
    captions = captions_in_story(figures(["Crowds wait on the quay for the last crossing."]) + info_box)
    assert [(c.photographer, c.agency) for c in captions] == [("Ines Rowe", "Harbour Times")]
    details = "<dl><dt>Text</dt><dd>Ines Rowe</dd><dt>Fotos</dt><dd>Dana Whitlow</dd></dl>"
    captions = captions_in_story(figures(["Crowds wait on the quay for the last crossing."]) + details)
    assert [(c.photographer, c.agency) for c in captions] == [("Dana Whitlow", None)]


ENDING = "<p><strong>Words:</strong> Ines Rowe <strong>Photos:</strong> Harbour Works</p>"


def test_menus_teasers_lists_of_credits_and_one_photos_label_are_not_the_articles_photo_credit():
    shot = figures(["Crowds wait on the quay for the last crossing."])
    for ending in (
        "<ul><li>Photos</li><li>Videos</li><li>Podcasts</li></ul>",
        "<ul class='tabs'><li>Photos</li><li>Videos</li></ul>",
        "<p><a href='/gallery/harbour'>Photos: Harbour Works Open Day</a></p>",
        "<p>Images: <a href='/u/dana'>Dana Whitlow</a> | <a href='/u/ines'>Ines Rowe</a></p>",
        "<p>Photo: Ines Rowe</p>",
        "<p>Five Great Photos: Harbour Works Open Day</p>",
        ENDING + "<p>Text und Fotos: Dana Whitlow</p>",
    ):
        assert [c.credit for c in captions_in_story(shot + ending)] == [None], ending


def test_small_print_styled_as_caption_and_other_videos_of_a_playlist_are_not_captions():
    type_scale = (
        "<div class='flex'><a class='NavigationLink px-5 caption-s5-fx uppercase' href='/harbour/'>Harbour News</a>"
        "<a class='NavigationLink px-5 caption-s5-fx uppercase' href='/sport/'>More Sport Today</a></div>"
        "<div class='inline-flex caption-s6-fx'>Updated by the harbour desk this morning</div>"
        "<figure><img src='/quay.jpg'><div class='text-caption'>Crowds wait on the quay for the last crossing."
        "</div></figure>"
    )
    assert [c.text for c in captions_in_story(type_scale)] == ["Crowds wait on the quay for the last crossing."]
    playlist = "<div class='thumbnails thumbnails--playlist'>" + "".join(
        f"<button class='thumbnails__item'><figure><img src='/v{i}.jpg'><figcaption class='caption'><span>{text}"
        f"</span><span class='caption__element--source'>{agency}</span></figcaption></figure></button>"
        for i, (text, agency) in enumerate(
            [
                ("Ferry crews race across the bay at dawn", "Harbour Times"),
                ("Council debates the new parking rules", "Reuters"),
                ("A storm closes the coast road for a day", "AP"),
            ]
        )
    )
    captions = captions_in_story(playlist + "</div>")
    assert [(c.text, c.agency) for c in captions] == [("Ferry crews race across the bay at dawn", "Harbour Times")]


def test_a_caption_with_a_copyright_credit_and_a_slideshow_template_keeps_text_and_credit_apart():
    shot = (
        "<figure class='gallery-item'><img src='/quay.jpg'><figcaption class='gallery-item__caption'><span>The mayor "
        "meets the harbour board ( HB ) on the quay &mdash; &copy;&nbsp;Ines Rowe/photothek.net</span>"
        "<span class='gallery-item__pagination'><span>--pageNumber-- von --total--</span></span></figcaption></figure>"
    )
    [caption] = captions_in_story(shot)
    assert (caption.text, caption.credit) == (
        "The mayor meets the harbour board (HB) on the quay",
        "© Ines Rowe/photothek.net",
    )
    assert (caption.photographer, caption.agency) == ("Ines Rowe", "photothek")


def test_a_credit_line_of_its_own_in_the_figure_or_after_a_dash_is_the_photos_credit():
    shots = (
        "<figure class='align'><div class='image'><img src='/quay.jpg'><div class='copy'>&copy; Getty Images</div>"
        "</div><figcaption>Crowds wait on the quay for the last crossing</figcaption></figure>"
        "<figure><img src='/crane.jpg'><figcaption>A crane lifts the last span on Friday. — AFP pic</figcaption>"
        "</figure>"
        "<figure><img src='/ferry.jpg'><figcaption>Ferry crews race across the bay. — Picture by Dana Whitlow"
        "</figcaption></figure>"
    )
    assert [(c.text, c.photographer, c.agency) for c in captions_in_story(shots)] == [
        ("Crowds wait on the quay for the last crossing", None, "Getty Images"),
        ("A crane lifts the last span on Friday.", None, "AFP"),
        ("Ferry crews race across the bay.", "Dana Whitlow", None),
    ]


def test_a_donation_forms_field_labels_and_a_price_boxs_shipping_line_are_not_captions():
    blocks = (
        "<form><fieldset class='Fieldset DonationTeaser-amount'><legend class='Fieldset-legend'>"
        "<span class='Fieldset-label'>with an amount of</span></legend><div class='image'><img src='/heart.png'>"
        "<span class='image-caption'>I support the Harbour Trust</span></div></fieldset></form>"
        "<div class='media'><a href='https://shop.example.com/ferry-model'><img src='/shop.png'></a>"
        "<a href='https://shop.example.com/ferry-model'>Ferry model</a><p class='caption delivery'>ab 5 € Versand</p>"
        "</div>" + figures(["Crowds wait on the quay for the last crossing."])
    )
    assert [c.text for c in captions_in_story(blocks)] == ["Crowds wait on the quay for the last crossing."]


def test_the_storys_own_gallery_set_in_an_aside_between_its_paragraphs_is_read_with_agency_lines():
    slides = "".join(
        f"<figure><amp-img src='/quay{i}.jpg' alt='{text}'></amp-img><figcaption><p>{text}</p><p>{agency}</p>"
        "</figcaption></figure>"
        for i, (text, agency) in enumerate(
            [
                ("Crowds wait on the quay for the last crossing", "Reuters"),
                ("The ferry leaves the harbour at dawn", "AP"),
                ("Cyclists cross the old bridge for the last time", "AFP via Getty Images"),
            ]
        )
    )
    gallery = "<div><div>The bridge's last week</div><aside><amp-carousel>" + slides + "</amp-carousel></aside></div>"
    captions = captions_in_story(gallery)
    assert [(c.text, c.agency) for c in captions] == [
        ("Crowds wait on the quay for the last crossing", "Reuters"),
        ("The ferry leaves the harbour at dawn", "AP"),
        ("Cyclists cross the old bridge for the last time", "AFP"),
    ]
    # the same aside after the story's end, or linking to other stories, is a gallery of other news
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>" + gallery
    assert read(page("", body)).captions == []
    linked = gallery.replace("<figcaption>", "<figcaption><a href='/news/other'>More</a>")
    assert captions_in_story(linked) == []
    # an agency's name is a credit on the caption's last line only
    named = figures(["<b>Reuters</b> reporters wait on the quay for the last crossing"])
    assert [(c.text, c.credit) for c in captions_in_story(named)] == [
        ("Reuters reporters wait on the quay for the last crossing", None)
    ]


def test_a_slideshow_storys_text_beside_each_picture_is_the_story_not_a_caption():
    slide = (
        "<div class='slide'><figure><img src='/s{0}.jpg' width='800'></figure><div class='entry-content'>"
        "<p>Part {0}: the council met again on the quay and heard the engineers explain the bridge's age.</p>"
        "</div></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + "".join(slide.format(i) for i in range(4)) + "</article>"
    article = read(page("", body))
    assert article.captions == []
    assert any("Part 2: the council met again" in p for p in article.paragraphs)


def test_the_headline_repeated_under_each_picture_of_a_slider_is_no_caption():
    slider = "".join(f"<figure><img src='/b{i}.jpg'><figcaption>{HEADLINE}</figcaption></figure>" for i in range(4))
    assert captions_in_story(slider) == []
    assert [c.text for c in captions_in_story(figures([HEADLINE]))] == [HEADLINE]  # once: it may describe it


def test_a_print_edition_line_beside_the_sites_logo_is_no_caption():
    block = (
        "<div><img src='/img/site_printlogo.png' alt='Harbour Times logo'>"
        "<div>This article was printed from the address: www.harbourtimes.example/news/bridge-vote</div></div>"
    )
    assert captions_in_story(block) == []


def test_a_credited_description_of_the_lead_photo_is_its_caption_when_the_page_shows_none():
    lead = "<img src='/bridge.jpg' alt='The old harbour bridge at dusk | Bildquelle: Harbour Times/Ines Rowe'>"
    captions = read(page("", f"<article>{lead}<h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>")).captions
    assert [(c.text, c.photographer, c.agency) for c in captions] == [
        ("The old harbour bridge at dusk", "Ines Rowe", "Harbour Times")
    ]
    copyright_sign = lead.replace(" | Bildquelle: ", " © ")
    captions = read(page("", f"<article>{copyright_sign}<h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>"))
    assert [c.credit for c in captions.captions] == ["© Harbour Times/Ines Rowe"]
    # a description without a credit, a teaser's picture or a photo after a shown caption: not read
    for block in (
        "<img src='/bridge.jpg' alt='The old harbour bridge at dusk'>",
        f"<div class='teaser'>{lead}</div>",
        f"<a href='/news/other'>{lead}</a>",
    ):
        body = f"<article>{block}<h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>"
        assert read(page("", body)).captions == [], block
    shown = figures(["The ferry leaves the harbour at dawn."]) + lead
    assert [c.text for c in captions_in_story(shown)] == ["The ferry leaves the harbour at dawn."]


def test_a_story_in_the_main_column_of_a_layout_named_for_its_sidebar_keeps_its_captions():
    story = (
        paragraphs_html(STORY[:2]) + figures(["The old bridge seen from the east bank."]) + paragraphs_html(STORY[2:])
    )
    body = (
        f"<header><h1>{HEADLINE}</h1></header><div class='lay-sidebar'><div class='sidebar__main'>{story}</div>"
        "<div class='sidebar__side'>Most read</div></div>"
    )
    assert [c.text for c in read(page("", body)).captions] == ["The old bridge seen from the east bank."]
    # a sidebar whose inner block is named for its content stays a sidebar
    teasers = figures(["Ferry fares rise again in spring", "A new lighthouse keeper for the point"])
    side = f"<div class='sidebar'><div class='sidebar-content'><h3>Most read</h3>{teasers}</div></div>"
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article>" + side
    assert read(page("", body)).captions == []
    # a cookie box whose modal is styled "main_color" and named for consent is still furniture
    box = BeautifulSoup(
        "<div class='cookie-consent-wrap'><div class='modal main_color' id='consent-extra-info'>"
        "<h3>Cookie settings</h3></div></div>",
        "html.parser",
    )
    assert in_furniture(box.h3)


def test_a_figcaption_naming_the_person_shown_then_the_photographer_and_agency_splits_after_the_subject():
    # "Subject / Photographer/Agency": the subject is the caption, the rest its credit
    caption = captions_in_story(figures(["Dana Whitlow / Ines Rowe/GettyImages"]))
    assert [(c.text, c.photographer, c.agency) for c in caption] == [("Dana Whitlow", "Ines Rowe", "Getty Images")]


def test_a_marked_credit_in_the_tooltip_of_the_picture_before_a_caption_block_is_its_credit():
    block = (
        "<a href='/img/bridge-large.jpg' class='lightbox'><img src='/img/bridge.jpg' alt='' "
        "title='Foto: © harbourcam/stock.adobe.com'></a><p class='flex-caption'>The old harbour bridge at dusk.</p>"
    )
    [caption] = captions_in_story(block)
    assert (caption.text, caption.photographer, caption.agency) == (
        "The old harbour bridge at dusk.",
        "harbourcam",
        "Adobe Stock",
    )
    # a tooltip that only describes the picture gives no credit
    [caption] = captions_in_story(block.replace("Foto: © harbourcam/stock.adobe.com", "The bridge"))
    assert caption.credit is None


def test_a_press_photos_terms_of_use_are_neither_caption_nor_credit():
    text = "The harbour film, on Monday at 20:15. Cartoon: The Ferry"
    terms = ", honorarfrei - Verwendung gemäß der AGB im engen redaktionellen Zusammenhang mit der Sendung."
    [caption] = captions_in_story(figures([f"{text} © Harbour TV/Ines Rowe{terms}"]))
    assert (caption.text, caption.credit, caption.photographer, caption.agency) == (
        text,
        "© Harbour TV/Ines Rowe",
        "Ines Rowe",
        "Harbour TV",
    )
    # the same caption in the page's metadata is not a second caption
    ld = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": HEADLINE,
        "image": {
            "@type": "ImageObject",
            "url": "https://example.org/lead.jpg",
            "caption": f"{text} © Harbour TV/Ines Rowe{terms}",
        },
    }
    head = f"<script type='application/ld+json'>{json.dumps(ld)}</script>"
    body = f"<article><h1>{HEADLINE}</h1>" + figures([f"{text} © Harbour TV/Ines Rowe{terms}"]) + paragraphs_html()
    assert [c.text for c in read(page(head, body + "</article>")).captions] == [text]


def test_a_sponsored_posts_label_a_sites_rights_notice_contact_details_or_a_cart_button_is_no_caption():
    for shown in (
        "WERBUNG für Harbour Shampoo",
        "Anzeige: Harbour Shampoo im Test",
        "Harbour Media ME - CNPJ: 13.321.695/0001-55 Todos os direitos reservados - É proibida a reprodução.",
        "Dana Whitlow Tel.: +49 (0)30-212 341-253 E-Mail: presse@harbour.example",
        "Harbour Roast - Perfect Symphony, 250g Dose ZUM WARENKORB HINZUFÜGEN",
        'Need more harbour? Subscribe to our sister title "All About Ports" for the latest news.',
        "Folgen Sie der HAFENPOST auf Instagram, Facebook und Twitter.",
    ):
        assert captions_in_story(figures([shown])) == [], shown
    # an old advertisement described in its caption is a caption, and so is a caption naming a telephone
    for shown in (
        "Advertisement for Harbour soap, printed in 1912.",
        "The harbour's first telephone, from 1912.",
        "Fans follow the ferry along the quay on Sunday.",
    ):
        assert [c.text for c in captions_in_story(figures([shown]))] == [shown]


def test_two_amp_photos_with_one_caption_are_two_captions_with_their_own_pictures():
    # an AMP gallery: <amp-img>, and a second upload of a file under the same name ("-0")
    block = "".join(
        f"<figure><amp-img src='https://example.org/img/harbourlockdown{suffix}.jpg?width=640' layout='fill'>"
        "</amp-img><figcaption><p>Workers at the harbour wear masks in Bergen</p><p>AFP via Getty Images</p>"
        "</figcaption></figure>"
        for suffix in ("-0", "")
    )
    captions = captions_in_story(block)
    assert [(c.text, c.agency) for c in captions] == [("Workers at the harbour wear masks in Bergen", "AFP")] * 2
    assert [c.image_url for c in captions] == [
        "https://example.org/img/harbourlockdown-0.jpg?width=640",
        "https://example.org/img/harbourlockdown.jpg?width=640",
    ]
    # the same file in two sizes is one photo
    sizes = block.replace("harbourlockdown-0.jpg", "harbourlockdown-580x386.jpg")
    assert len(captions_in_story(sizes)) == 1


def test_a_form_a_weather_box_a_pager_or_an_unfilled_template_in_caption_markup_is_no_caption():
    for shown in (
        "Name * Comment *",
        "19°C | Harbour City 10/12/2020",
        "Next",
        "« Vorheriges Weiter »",
        "{f:render(section: 'caption', arguments: {image: 'Harbour'})}",
    ):
        assert captions_in_story(figures([shown])) == [], shown
    for shown in ("12 °C in the harbour at dawn: swimmers at the pier", "Next to the pier, the old harbour crane"):
        assert [c.text for c in captions_in_story(figures([shown]))] == [shown]


def test_the_text_under_an_embedded_social_post_is_the_storys_not_a_photo_caption():
    post = (
        "<figure><h2>2. The harbour master</h2><div><amp-instagram data-shortcode='Bx1' width='658' height='658'>"
        "</amp-instagram></div><figcaption class='slide-caption'><p>Learn the harbour master's wave to get into character.</p>"
        "<p>What you need: a navy coat and a captain's hat.</p></figcaption></figure>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html(STORY[:2]) + post + paragraphs_html(STORY[2:])
    article = read(page("", body + "</article>"))
    assert article.captions == []
    assert any("captain's hat" in p for p in article.paragraphs)
    # a photo of the story credited to a social network keeps its caption
    photo = post.replace(
        "<amp-instagram data-shortcode='Bx1' width='658' height='658'></amp-instagram>",
        "<img src='/harbour-master.jpg'>",
    )
    assert [c.text for c in captions_in_story(photo)] != []


def test_the_sharing_image_of_a_photo_uploaded_twice_is_that_photo_not_a_second_caption():
    # the page shows "bridge-2.jpg" (a second upload of "bridge.jpg"); og:image names the first file
    head = (
        "<meta property='og:image' content='https://example.org/up/harbourbridge.jpg?w=951'>"
        "<meta property='og:image:alt' content='a ferry worker smiles as she poses for a photo'>"
    )
    shown = (
        "<figure><img src='https://example.org/up/harbourbridge-2.jpg'><figcaption>Dana Whitlow, 27, won the vote "
        "on Tuesday to run the harbour ferry.</figcaption></figure>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + shown + paragraphs_html() + "</article>"
    assert [c.text for c in read(page(head, body)).captions] == [
        "Dana Whitlow, 27, won the vote on Tuesday to run the harbour ferry."
    ]


def test_a_wire_photos_file_photo_label_is_neither_its_text_nor_its_credit():
    # a TinyMCE attribute keeps the wire's caption ("FILE PHOTO: ...") beside the shorter caption the page shows
    body = (
        f"<article><h1>{HEADLINE}</h1>"
        "<figure><img src='https://example.org/ferry.jpg' data-mce-source='Reuters' data-mce-caption='FILE PHOTO: "
        "The ferry Harbour Star leaves the old quay at dawn'><figcaption>The ferry Harbour Star leaves the old quay "
        "at dawn. <span class='credit'>Reuters</span></figcaption></figure>"
        "<figure><img src='https://example.org/quay.jpg'><figcaption>File photo: Workers repair the old quay wall "
        "in Harbour Town. REUTERS/Ines Rowe</figcaption></figure>" + paragraphs_html() + "</article>"
    )
    captions = read(page(body=body)).captions
    assert [(c.text, c.agency) for c in captions] == [
        ("The ferry Harbour Star leaves the old quay at dawn", "Reuters"),  # one caption, not "FILE" and another
        ("Workers repair the old quay wall in Harbour Town.", "Reuters"),
    ]
    assert captions[1].photographer == "Ines Rowe"


def test_the_storys_main_photo_kept_in_a_box_of_related_media_is_its_photo_but_a_teaser_there_is_not():
    related = (
        "<div id='story-related-media'><div id='story-main-media'><a href='/photo/1'><img src='ferry.jpg' "
        "alt='Dana Whitlow waves from the ferry'></a><cite class='caption'>AP – Dana Whitlow waves from the ferry "
        "Harbour Star as it leaves the old quay on Friday …</cite></div>"
        "<div class='lead-image'><img src='gull.jpg'><span class='caption'>Gulls return to the harbour</span>"
        "<a href='/news/gulls'>Gulls return to the harbour</a></div></div>"
    )
    captions = captions_in_story(related)
    assert [(c.text, c.agency) for c in captions] == [
        ("Dana Whitlow waves from the ferry Harbour Star as it leaves the old quay on Friday …", "AP")
    ]


def test_a_caption_cut_short_after_a_photo_label_is_the_start_of_the_pictures_description():
    alt = (
        "Dana Whitlow of Harbour Town shows a photo she took of the ferry Harbour Star at dawn, Friday, Sept. 23. "
        "(AP Photo/Ines Rowe)"
    )
    photo = (
        f"<div class='mainphoto'><a href='/photo/1'><img src='https://example.org/ferry.jpg' alt='{alt}'></a>"
        "<div class='source'><a href='/photo/1'>AP Photo:</a> Dana Whitlow of Harbour Town shows a photo she took "
        "of the ferry...</div></div>"
    )
    other = (  # shortened, but not what the picture's description says: another photo's teaser
        "<div><a href='/photo/2'><img src='gull.jpg' alt='Gulls over the old quay wall on a grey morning'></a>"
        "<div><a href='/photo/2'>AP Photo:</a> Gulls return to the harbour town after ten years...</div></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + paragraphs_html() + "</article><div>" + photo + other + "</div>"
    captions = read(page(body=body)).captions
    assert [(c.text, c.credit, c.agency) for c in captions] == [
        ("Dana Whitlow of Harbour Town shows a photo she took of the ferry", "AP Photo", "AP")
    ]
    assert captions[0].image_url.endswith("ferry.jpg")


def slideshow(alts: list[str], shown: str) -> str:
    slides = "".join(
        f"<li class='carousel-item'><figure class='slideshow-figure'><img src='https://example.org/s{i}.jpg' "
        f'alt="{alt}"></figure></li>'
        for i, alt in enumerate(alts)
    )
    return (
        f"<div class='slideshow'><div><ul class='carousel'>{slides}</ul></div>"
        f"<div><span>1 / {len(alts)}</span><div class='slideshow-description'>{shown}</div></div></div>"
    )


def test_a_slideshows_one_caption_box_gives_each_slide_its_own_description_as_caption():
    alts = [
        "The ferry Harbour Star at the old quay",
        "The ferry Harbour Star seen from the side",
        "&lt;p&gt;The ferry's bridge, where Dana Whitlow steers. (Photo: Ines Rowe/AP)&lt;/p&gt;",
    ]
    captions = captions_in_story(slideshow(alts, alts[0]))
    assert [(c.text, c.photographer, c.image_url) for c in captions] == [
        ("The ferry Harbour Star at the old quay", None, "https://example.org/s0.jpg"),
        ("The ferry Harbour Star seen from the side", None, "https://example.org/s1.jpg"),
        ("The ferry's bridge, where Dana Whitlow steers.", "Ines Rowe", "https://example.org/s2.jpg"),
    ]
    # a slide without a description: the box is not known to describe each slide, only the one it shows
    assert [c.text for c in captions_in_story(slideshow([*alts[:2], ""], alts[0]))] == [
        "The ferry Harbour Star at the old quay"
    ]


def test_a_file_stem_or_the_headline_in_every_slides_caption_box_is_no_caption():
    slides = "".join(
        f"<div class='slideshow_view'><div class='slideshow_slide slideshow_slide_image'>"
        f"<img src='https://example.org/harbour_bridge_{i}.jpg' alt='{HEADLINE}' width='1500' height='1000'>"
        f"<div class='slideshow_description_box'><div class='slideshow_title'>{title}</div></div></div></div>"
        for i, title in enumerate([HEADLINE, "harbour_bridge_1", "harbour_bridge_2", HEADLINE, HEADLINE])
    )
    show = (
        f"<div class='slideshow_container'><div class='slideshow_content' style='display: none;'>{slides}</div></div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>{show}" + paragraphs_html() + "</article>"
    assert read(page(body=body)).captions == []


def test_a_video_kept_as_the_storys_main_media_gives_no_caption_and_two_agencies_lead_a_caption():
    video = (
        "<div id='story-related-media'><div id='story-main-media'><a class='media video' href='/video/1'>"
        "<img src='https://example.org/still.jpg'><span>Play Video</span></a><cite class='caption'><a href='/ap'>AP"
        "</a> – Harbour ferry fares to rise in spring</cite></div></div>"
    )
    assert captions_in_story(video) == []
    photo = (
        "<div id='story-related-media'><div id='story-main-media'><a href='/photo/1'>"
        "<img src='https://example.org/quay.jpg'></a><cite class='caption'>AFP/Harbour Times – Dana Whitlow "
        "speaks to the press at the old quay on Friday …</cite></div></div>"
    )
    captions = captions_in_story(photo)
    assert [(c.text, c.credit, c.agency) for c in captions] == [
        ("Dana Whitlow speaks to the press at the old quay on Friday …", "AFP/Harbour Times", "AFP")
    ]


def test_a_box_of_related_links_inside_a_block_named_for_the_main_media_is_still_furniture():
    minor = "".join(
        f"<li class='slideshow'><a href='/ss/{i}'><img src='https://example.org/t{i}.jpg'></a>"
        f"<a href='/ss/{i}'>Slideshow: Harbour pictures {i}</a></li>"
        for i in range(2)
    )
    related = (
        "<div id='story-related-media'><div class='primary-media'><div id='story-main-media'><a href='/photo/1'>"
        "<img src='https://example.org/quay.jpg'></a><cite class='caption'>Reuters – Dana Whitlow at the old quay "
        f"on Friday …</cite></div><div id='story-minor-media'><ul>{minor}</ul><p>Related quotes 0.69 -0.01</p>"
        "</div></div></div>"
    )
    assert [c.text for c in captions_in_story(related)] == ["Dana Whitlow at the old quay on Friday …"]


def test_an_authors_head_shot_beside_the_byline_or_an_affiliate_disclosure_is_no_caption():
    byline = (
        "<div class='story-avatar'><img src='https://example.org/rowe.jpg' alt='Ines Rowe, Harbour Times'></div>"
        "<div class='byline'>By <strong>Ines Rowe</strong>, Harbour Times</div>"
    )
    disclosure = (
        "<figure><img src='https://example.org/grill.jpg'><figcaption>Für Links auf dieser Seite erhält Harbour Times "
        "ggf. eine Provision vom Händler.</figcaption></figure>"
        "<figure><img src='https://example.org/pan.jpg'><figcaption>We may earn a commission when you buy through "
        "links on our site.</figcaption></figure>"
        "<figure><img src='https://example.org/quay.jpg'><figcaption>The old quay at dawn.</figcaption></figure>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + byline + disclosure + paragraphs_html() + "</article>"
    assert [c.text for c in read(page(body=body)).captions] == ["The old quay at dawn."]


def test_a_polls_question_and_answers_or_a_gallery_button_are_no_captions():
    poll = (
        "<form name='poll'><table><tr><td class='poll-caption'>Should the old harbour bridge close for good?</td></tr>"
        "<tr><td class='poll-caption'><input type='radio' name='o' value='1'>Yes</td>"
        "<td class='poll-caption'><input type='radio' name='o' value='2'>No</td></tr></table></form>"
    )
    gallery = (
        "<figure><img src='https://example.org/quay.jpg'><figcaption>The old quay at dawn.</figcaption></figure>"
        "<div class='slideshow-caption'>Slideshow (15 images)</div>"
    )
    body = f"<article><h1>{HEADLINE}</h1>" + gallery + paragraphs_html() + poll + "</article>"
    assert [c.text for c in read(page(body=body)).captions] == ["The old quay at dawn."]
    # a page wrapped whole in one form keeps its captions
    wrapped = page(body=f"<form id='page'><input type='checkbox' name='remember'>{body}</form>".replace(poll, ""))
    assert [c.text for c in read(wrapped).captions] == ["The old quay at dawn."]


def test_a_credit_block_naming_the_person_shown_gives_way_to_the_photographer_in_the_caption():
    figure = (
        "<div class='wp-caption'><img src='https://example.org/whitlow.jpg'><p class='article-photo-credit'>Dana "
        "Whitlow</p><p class='wp-caption-text'>Dana Whitlow, harbour master of Harbour Town (Photo by Ines Rowe)"
        "</p></div>"
    )
    captions = captions_in_story(figure)
    assert [(c.text, c.photographer) for c in captions] == [
        ("Dana Whitlow, harbour master of Harbour Town", "Ines Rowe")
    ]


def test_a_page_builders_widget_holding_the_story_keeps_its_captions_but_not_its_link_cards_or_shop_banner():
    long_paragraphs = "".join(
        f"<p>{sentence} The council met on Tuesday evening in the town hall to hear the engineers, the ferry "
        "operators and the people who cross the bridge every day, and it listened for three hours.</p>"
        for sentence in ("The bridge is old.", "The repairs are dear.", "The vote was close.")
    )
    card = (
        "<div class='lp-link-container'><a href='https://example.org/news/gulls' title='Gulls return to the harbour "
        "town' class='lp-link'></a><div class='lp-link-image-container'><div class='lp-link-image'>"
        "<img src='https://example.org/gull.jpg' width='150' height='100'></div></div>"
        "<div class='lp-link-text-container'><div class='lp-link-title'>Gulls return to the harbour town</div>"
        "<div class='lp-link-summary'>After ten years away the gulls are back on the old quay.</div></div></div>"
    )
    shop = (
        "<figure class='wp-caption'><a href='https://shop.example.org'><img src='https://example.org/shop.jpg'></a>"
        "<figcaption>Jetzt neu! Besuchen Sie unseren Fan-Shop!</figcaption></figure>"
    )
    story = (
        f"<div class='builder-widget-wrap'><div class='builder-widget-container'><h1>{HEADLINE}</h1></div>"
        f"<div class='builder-widget-container'>{long_paragraphs}<figure><img src='https://example.org/quay.jpg'>"
        f"<figcaption>The old quay at dawn.</figcaption></figure>{card}{shop}</div></div>"
    )
    assert [c.text for c in read(page(body=f"<article>{story}</article>")).captions] == ["The old quay at dawn."]


def test_a_cookie_notices_marked_heading_over_long_paragraphs_is_not_the_headline():
    notice_text = "".join(
        f"<p>{topic} cookies help us run this site. We use them to remember your choices, to count visits and to "
        "show you content from other services, and you can change your settings at any time below.</p>"
        for topic in ("Needed", "Statistics", "Marketing")
    )
    notice = (
        "<div id='consent-extra-info' class='inline-modal'><h3 itemprop='headline'>Cookie and privacy settings</h3>"
        f"{notice_text}</div>"
    )
    title = f"<div class='title_container'><h1 class='entry-title'><a href='/2021/bridge' rel='bookmark'>{HEADLINE}</a></h1></div>"
    story = "<section itemscope itemtype='https://schema.org/BlogPosting'><div itemprop='text'>" + paragraphs_html()
    body = title + story + "</div></section>" + notice
    assert read(page(body=body)).headline == HEADLINE
