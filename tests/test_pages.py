"""The HTML pages, as a browser receives them from the real app."""

import re


def page(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.data[:500]
    return response.get_data(as_text=True)


def test_home_has_a_search_box_and_the_archive_facets(client):
    html = page(client, "/")
    assert '<input id="q" name="q" type="search"' in html
    assert "The Associated Press" in html and "Reuters" in html
    assert "6 articles in the archive" in html


def test_results_highlight_and_link_facets(client):
    html = page(client, "/search?q=kobani")
    assert "2 results" in html
    assert "<mark>Kobani</mark>" in html
    assert 'href="/search?q=kobani&amp;source=The+Associated+Press"' in html
    narrowed = page(client, "/search?q=kobani&source=Reuters")
    assert '<p class="total">0 results' in narrowed and "<mark>" not in narrowed


def test_corrections_did_you_mean_and_pagination(client):
    html = page(client, "/search?q=kobanni")
    assert "Showing results for" in html and 'href="/search?q=kobani"' in html and "2 results" in html
    assert 'Search instead for <a href="/search?q=kobanni&amp;correct=false">kobanni</a>' in html
    html = page(client, "/search?q=kobanni&correct=false")
    assert "0 results" in html and "Did you mean" in html and 'href="/search?q=kobani"' in html
    html = page(client, "/search?q=oil+pricess")
    assert "Did you mean" in html and 'href="/search?q=oil+prices"' in html
    assert "articles with the most of them come first" in html
    first = page(client, "/search?per_page=2")
    assert 'rel="next" href="/search?page=2&amp;per_page=2"' in first and 'rel="prev"' not in first
    assert '<a aria-current="page" href="/search?per_page=2">1</a>' in first
    assert 'href="/search?page=3&amp;per_page=2" aria-label="Page 3">3</a>' in first
    last = page(client, "/search?per_page=2&page=3")
    assert '<a aria-current="page" href="/search?page=3&amp;per_page=2">3</a>' in last and 'rel="next"' not in last


def test_the_article_page_shows_captions_credits_metadata_and_related(client):
    html = page(client, "/search?q=kobani+caption:refugee")
    article_url = re.search(r'href="(/articles/\d+)"', html).group(1)
    html = page(client, article_url)
    assert "Islamic State fighters admit" in html
    assert html.count("<figure>") == 3
    assert "AP Photo/Emrah Gurel" in html and "Photographer: Emrah Gurel" in html
    assert "inferred from the text" in html
    assert "Related" in html and "Kurdish fighters hold Kobani" in html


def test_a_friendly_404_page(client):
    html = page(client, "/articles/424242", 404)
    assert "Not found" in html and "Traceback" not in html


def test_bad_input_on_the_page_is_a_400_with_the_message(client):
    html = page(client, "/search?per_page=1000", 400)
    assert "per_page must be from 1 to 100" in html


def test_user_text_is_escaped(client):
    html = page(client, "/search?q=%3Cscript%3Ealert(1)%3C/script%3E")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_security_headers_on_every_response(client):
    for url in ("/", "/search?q=x", "/api/search", "/articles/9999"):
        response = client.get(url)
        assert "default-src 'none'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
