import pytest

from ingest.credits import find_agency, is_credit, parse_credit, split_caption


@pytest.mark.parametrize(
    "credit, photographer, agency",
    [
        ("AP Photo/Emrah Gurel", "Emrah Gurel", "AP"),
        ("AP Photo", None, "AP"),
        ("AP Photo/Emrah Gurel, File", "Emrah Gurel", "AP"),
        ("AP Photo/File", None, "AP"),
        ("Reuters/Kevin Lamarque", "Kevin Lamarque", "Reuters"),
        ("REUTERS/Kevin Lamarque", "Kevin Lamarque", "Reuters"),
        ("Photo by John Moore/Getty Images", "John Moore", "Getty Images"),
        ("Saul Loeb/AFP via Getty Images", "Saul Loeb", "AFP"),
        ("AFP Photo/Bulent Kilic", "Bulent Kilic", "AFP"),
        ("Tolga Akmen/AFP/Getty Images", "Tolga Akmen", "AFP"),
        ("EPA/JIM LO SCALZO", "Jim Lo Scalzo", "EPA"),
        ("EPA-EFE/Rungroj Yongrit", "Rungroj Yongrit", "EPA-EFE"),
        ("Photograph: Peter Byrne/PA", "Peter Byrne", "PA"),
        ("Photo: Reuters", None, "Reuters"),
        # a web address is one name; a stock site's contributor is named by a user name
        ("Image credit: www.example-maker.com/in/", None, "www.example-maker.com/in/"),
        ("Foto: hafenfoto/stock.adobe.com", "hafenfoto", "Adobe Stock"),
        ("afp.com/Dana Whitlow", "Dana Whitlow", "AFP"),
        ("Image credit: Harbour Lander Systems, Inc.", None, "Harbour Lander Systems, Inc"),
        ("Foto: picture alliance / dpa", None, "dpa"),
        ("dpa/picture alliance", None, "dpa"),
        # several sentences: the one naming who took the photo
        ("Photo illustration by Harbour Times. Photo by Dana Whitlow.", "Dana Whitlow", None),
    ],
)
def test_credits_split_into_photographer_and_agency(credit, photographer, agency):
    assert is_credit(credit)
    assert parse_credit(credit) == (photographer, agency)


@pytest.mark.parametrize(
    "credit, photographer, agency",
    [
        ("Courtesy of the family", None, None),
        ("John Smith/The New York Times", "John Smith", "The New York Times"),
        ("The New York Times", None, "The New York Times"),
        ("Photo by de la Cruz/AFP", "de la Cruz", "AFP"),
        # Credits seen on real feeds that used to stand as photographers in the facet.
        ("Pool photo by David Mareuil", "David Mareuil", "Pool"),
        ("Photo courtesy of The Weinstein Company", None, "The Weinstein Company"),
        ("Getty Images Plus", None, "Getty Images"),
        ("iStock / Getty Images", None, "Getty Images"),
        ("Image credit: Blue Origin", None, "Blue Origin"),
        ("© Markus Leitner", "Markus Leitner", None),
        ("Image copyright EPA", None, "EPA"),
        ("Photo: Jeff Kravitz/FilmMagic", "Jeff Kravitz", "FilmMagic"),
        ("Photo: Mark Wilson/2011 Getty Images", "Mark Wilson", "Getty Images"),
        ("© Ric Clarson/PGA TOUR Archive", "Ric Clarson", "PGA TOUR Archive"),
        ("© PGA of America via Getty Images", None, "PGA of America"),
        ("Photo by Kevin Mazur/Getty Images for Ithaca Holdings", "Kevin Mazur", "Getty Images"),
    ],
)
def test_only_a_name_is_taken_for_the_photographer(credit, photographer, agency):
    assert parse_credit(credit) == (photographer, agency)


@pytest.mark.parametrize("text", ["Reuters", "AP", "The Associated Press", "Barack Obama", "2015", "see below"])
def test_a_wire_sign_off_or_a_name_is_not_a_photo_credit(text):
    assert not is_credit(text)


def test_a_caption_paragraph_is_split_from_its_credit_and_source_tag():
    text, credit, source = split_caption(
        "Refugees walk in a camp in Suruc, Turkey, Friday, Jan. 30, 2015. (AP Photo/Emrah Gurel) (The Associated Press)"
    )
    assert text == "Refugees walk in a camp in Suruc, Turkey, Friday, Jan. 30, 2015."
    assert credit == "AP Photo/Emrah Gurel"
    assert source == "The Associated Press"


@pytest.mark.parametrize(
    "paragraph, credit",
    [
        ("Smoke rises over the city on Friday. Photograph: Peter Byrne/PA", "Photograph: Peter Byrne/PA"),
        ("Smoke rises over the city on Friday. REUTERS/Kevin Lamarque", "REUTERS/Kevin Lamarque"),
        ("A man walks past a poster. (Photo by Chris McGrath/Getty Images)", "Photo by Chris McGrath/Getty Images"),
    ],
)
def test_unbracketed_and_getty_credits_end_captions(paragraph, credit):
    assert split_caption(paragraph)[1] == credit


@pytest.mark.parametrize(
    "paragraph",
    [
        "ANCHORAGE, Alaska (Reuters) - Exxon Mobil offered to pay a fine, according to a letter made public on Friday.",
        "The company said profits rose. (Reuters)",
        "Prices fell 3 percent (see chart).",
    ],
)
def test_body_paragraphs_are_not_captions(paragraph):
    assert split_caption(paragraph) is None


@pytest.mark.parametrize("text", ["Reuters/VNU", "Reuters/Nielsen"])
def test_syndication_tags_are_not_photo_credits(text):
    assert not is_credit(text)


def test_a_paragraph_longer_than_any_caption_is_body_text():
    # "Hollywood Reporter" reads like a photographer's name; the length says this is a story, not a caption.
    assert split_caption("The studio said it would sell the unit. " * 40 + "(Reuters/Hollywood Reporter)") is None


def test_a_name_and_agency_after_the_last_sentence_is_the_credit():
    assert split_caption("Rep. Ilhan Omar speaks at the Capitol on July 25, 2019. J. Scott Applewhite / AP file") == (
        "Rep. Ilhan Omar speaks at the Capitol on July 25, 2019.",
        "J. Scott Applewhite / AP file",
        None,
    )
    assert split_caption("The plant's input/output ratio rose. Output per worker / hour fell.") is None


@pytest.mark.parametrize(
    "paragraph, text, credit",
    [
        # a known agency alone after a bar, or a stock contributor's user name
        ("A ferry leaves the quay in early February. | KYODO", "A ferry leaves the quay in early February.", "KYODO"),
        ("A crane lifts the last span (hafenfoto11/iStock)", "A crane lifts the last span", "hafenfoto11/iStock"),
        # an organisation before the person, a label without its colon, a screenshot named after its source
        (
            "An artist's impression of the bridge. (Harbour Works Design Office/Ines Rowe)",
            "An artist's impression of the bridge.",
            "Harbour Works Design Office/Ines Rowe",
        ),
        ("The data centre by the quay. Foto Dana Whitlow via Unsplash", "The data centre by the quay.", None),
        ("A picture from better days. (Harbour TV – Twitter Screenshot)", "A picture from better days.", None),
    ],
)
def test_credits_after_a_bar_in_other_scripts_and_without_labels_end_captions(paragraph, text, credit):
    split = split_caption(paragraph)
    assert split is not None and split[0] == text
    assert credit is None or split[1] == credit


@pytest.mark.parametrize(
    "paragraph",
    ["The race ended on Friday. Photo Finish won it", "Markets | Sport", "We left at dawn. Foto shoots ran late."],
)
def test_a_sentence_starting_with_a_label_word_or_a_section_bar_is_not_a_credit(paragraph):
    assert split_caption(paragraph) is None


def test_agencies_are_known_by_their_names_in_other_scripts():
    assert [find_agency(n).short for n in ("رويترز", "路透社", "أ ف ب", "Рейтер", "新华社")] == [
        "Reuters",
        "Reuters",
        "AFP",
        "Reuters",
        "Xinhua",
    ]


@pytest.mark.parametrize(
    "credit, photographer, agency",
    [
        ("Foto: Ines Rowe/HT1", "Ines Rowe", "HT1"),  # a broadcaster's short name with a digit
        ("© Dana Whitlow/photothek.net", "Dana Whitlow", "photothek"),
        ("© iStock.com/hafenfoto", "hafenfoto", "Getty Images"),  # an agency's address and its contributor
        ("Foto: hafenfoto – stock.adobe.com", "hafenfoto", "Adobe Stock"),
        ("ThinkstockPhotos", None, "Getty Images"),
        ("Foto: CC-BY-NC 2.0 Dana Whitlow", "Dana Whitlow", None),
        ("Foto: Archivo Harbour Times", None, "Harbour Times"),  # the paper's own archive
        ("Ines Rowe/Arquivo Pessoal", "Ines Rowe", None),  # a family's own picture
        ("Foto: Reprodução", None, None),
        ("Foto 1 de 12", None, None),  # a slideshow's counter
        ("HTA / Photothek", None, "photothek"),
    ],
)
def test_credits_of_many_sites_are_normalised(credit, photographer, agency):
    assert parse_credit(credit) == (photographer, agency)


@pytest.mark.parametrize(
    "credit, photographer, agency",
    [
        ("© stock.adobe.com/hafenfoto", "hafenfoto", "Adobe Stock"),  # a site's address, then its contributor
        ("Bild: HAFEN4D / Pixabay", "HAFEN4D", "Pixabay"),  # a user name in capitals, kept as written
        ("NASA/Getty Images", None, "NASA"),  # capitals without digits: an organisation
        ("Photo Credit : PTI File Photo", None, "PTI"),
        ("© Dana Whitlow / Getty Images / iStock (Ausschnitt)", "Dana Whitlow", "Getty Images"),  # a crop note
        ("Ines Rowe/AP (cropped)", "Ines Rowe", "AP"),
        # beside an organisation's long name, a name is its photographer's even without a known first name
        (
            "© Presse- und Informationsamt der Stadt Harbour | Jesco Rowe",
            "Jesco Rowe",
            "Presse- und Informationsamt der Stadt Harbour",
        ),
    ],
)
def test_stock_contributors_file_photos_and_crop_notes_are_read(credit, photographer, agency):
    assert parse_credit(credit) == (photographer, agency)


@pytest.mark.parametrize(
    "paragraph, text, agency",
    [
        (
            "Crowds wait on the quay for the last crossing [File: Reuters]",
            "Crowds wait on the quay for the last crossing",
            "Reuters",
        ),
        ("A crane lifts the last span [AFP]", "A crane lifts the last span", "AFP"),
        (
            "The ship was held for two months. (Ines Rowe / AFP/Getty Images / January 9, 2013)",
            "The ship was held for two months.",
            "AFP",
        ),
    ],
)
def test_a_credit_in_square_brackets_or_with_its_date_in_words_ends_a_caption(paragraph, text, agency):
    split = split_caption(paragraph)
    assert split is not None and split[0] == text
    assert parse_credit(split[1])[1] == agency


@pytest.mark.parametrize(
    "paragraph", ["The rule in section [1] applies", "Crowds wait on the quay [video]", "The quay (Reuters)"]
)
def test_a_footnote_a_bracketed_word_or_a_wire_sign_off_is_not_a_photo_credit(paragraph):
    assert split_caption(paragraph) is None


def test_an_archive_photos_caption_starting_with_file_stays_a_caption():
    caption = "FILE: Undated: The main beach of Harbour Island, a barrier island on the west coast"
    assert not is_credit(caption)
    assert split_caption(caption + ". (AP)") is None


@pytest.mark.parametrize(
    "paragraph, text, credit",
    [
        (
            "The ferry leaves the harbour at dawn / Foto: Ines Rowe",
            "The ferry leaves the harbour at dawn",
            "Foto: Ines Rowe",
        ),
        (
            "Паром виходить з гавані на світанку / Фото з фейсбуку Ines Rowe",
            "Паром виходить з гавані на світанку",
            "Фото з фейсбуку Ines Rowe",
        ),
        (
            "The clock tower melts in the sun. Bild: Jesco Rowe auf Harbour Commons. Verwendung unter CC BY-SA 4.0.",
            "The clock tower melts in the sun.",
            "Bild: Jesco Rowe auf Harbour Commons. Verwendung unter CC BY-SA 4.0",
        ),
    ],
)
def test_a_labelled_credit_after_a_slash_or_before_its_licence_ends_a_caption(paragraph, text, credit):
    assert split_caption(paragraph) == (text, credit, None)


def test_a_slash_in_a_caption_or_a_licence_mentioned_in_it_is_no_credit():
    assert split_caption("AC/DC play at Harbour Works / Jesco Rowe") is None
    assert split_caption("The ferry leaves. Its licence was renewed in 2019.") is None
    assert is_credit("Фото: Reuters") and parse_credit("Фото: Reuters") == (None, "Reuters")


def test_a_picture_services_name_beside_an_agency_is_not_the_photographer():
    # picture alliance is dpa's picture library: the service it carries made the picture
    assert parse_credit("© picture alliance/Harbour Photo|Jesco Rowe") == ("Jesco Rowe", "Harbour Photo")


@pytest.mark.parametrize(
    "credit, expected",
    [
        ("Hafenfoto/Gettyimages", ("Hafenfoto", "Getty Images")),
        ("HT FILE PHOTO", (None, "HT")),
        ("(C) Dana Whitlow", ("Dana Whitlow", None)),
    ],
)
def test_an_agencys_web_name_a_file_photo_note_and_a_typed_copyright_sign(credit, expected):
    assert parse_credit(credit) == expected


@pytest.mark.parametrize(
    "paragraph, text, credit",
    [
        (
            "Who says cycling is only for warm days? (c) Harbour Tourism | hafenfoto.example",
            "Who says cycling is only for warm days?",
            "(c) Harbour Tourism | hafenfoto.example",
        ),
        (
            "A rack railway in the vineyard. Foto: Von Jesco Rowe, CC BY-SA 3.0, https://commons.example.org/f?id=17",
            "A rack railway in the vineyard.",
            "Foto: Von Jesco Rowe, CC BY-SA 3.0, https://commons.example.org/f?id=17",
        ),
        ("El ferry sale del puerto al amanecer. Imagen: Harbour Press", "El ferry sale del puerto al amanecer.", None),
    ],
)
def test_a_copyright_sign_or_an_address_after_the_last_sentence_is_part_of_the_credit(paragraph, text, credit):
    split = split_caption(paragraph)
    assert split is not None and split[0] == text
    assert split[1] == (credit or paragraph[len(text) :].strip(" ."))
    assert parse_credit("Foto: Von Jesco Rowe, CC BY-SA 3.0, https://commons.example.org/f?id=17")[1] == "Jesco Rowe"


def test_a_caption_starting_with_the_word_image_is_no_credit():
    caption = "Imagen de la base antártica en primer plano, tomada hace unos días, casi sin nieve"
    assert not is_credit(caption) and split_caption(caption) is None
    assert is_credit("Imagen: Harbour Press") and is_credit("Imagem: Divulgação/Harbour FC")


def test_credit_labels_with_an_accent_in_the_plural_or_in_capitals():
    assert parse_credit("Fotó: Ines Rowe / MTI") == ("Ines Rowe", "MTI")
    assert is_credit("Photocredits HARBOUR: Ines Rowe")
    assert split_caption("The ferry leaves the quay at dawn. FOTO Ines Rowe.") == (
        "The ferry leaves the quay at dawn.",
        "FOTO Ines Rowe",
        None,
    )


@pytest.mark.parametrize(
    "paragraph, text, credit",
    [
        # after the caption's closing quote, bracket or comma, and with the labels of more languages
        (
            "‘The ferry is late again.’ Photograph: AFP via Getty",
            "‘The ferry is late again.’",
            "Photograph: AFP via Getty",
        ),
        ("«I came for the harbour.» Bild: Ines Rowe", "«I came for the harbour.»", "Bild: Ines Rowe"),
        (
            "The ferry leaves the harbour at dawn, fot. shutterstock",
            "The ferry leaves the harbour at dawn",
            "fot. shutterstock",
        ),
        (
            "Wind power for a sailing boat, Bildquelle: G. Whitlow",
            "Wind power for a sailing boat",
            "Bildquelle: G. Whitlow",
        ),
        (
            "The mayor met the minister on Tuesday. Kuva: DANA WHITLOW",
            "The mayor met the minister on Tuesday.",
            "Kuva: DANA WHITLOW",
        ),
        (
            "People enjoy the harbour on Sunday. Source: Getty Images",
            "People enjoy the harbour on Sunday.",
            "Source: Getty Images",
        ),
        ("The harbour at dawn. (Source: Harbour Works)", "The harbour at dawn.", "Source: Harbour Works"),
        ("A test in the bay (Ministerio de Defensa vía AP)", "A test in the bay", "Ministerio de Defensa vía AP"),
        # a label glued to the caption's last word, when the credit names someone
        (
            "The harbour master in Bergen, 23. Oktober Bild: picture alliance / Xinhua | Ines Rowe",
            "The harbour master in Bergen, 23. Oktober",
            "Bild: picture alliance / Xinhua | Ines Rowe",
        ),
    ],
)
def test_a_labelled_credit_after_a_quote_a_comma_or_a_word_ends_a_caption(paragraph, text, credit):
    assert split_caption(paragraph) == (text, credit, None)


def test_a_label_before_a_description_or_a_copyright_sign_is_no_second_credit():
    # "Bild: der ...": the picture described, not credited
    assert split_caption("The camper of the year, Bild: der Harbour Cruiser, ein Campingbus mit Bad") is None
    # the caption's credit after "©"; the label after it repeats the credit
    split = split_caption("The virologist Dana Whitlow © picture alliance/Ines Rowe/dpa Foto: Ines Rowe")
    assert split is None or "©" not in split[0]


@pytest.mark.parametrize(
    "credit, expected",
    [
        ("Foto: Dana | flickr | CC BY 2.0", ("Dana", "Flickr")),  # a photo-sharing site's user
        ("Harbourcam for Harbour Magazine", ("Harbourcam", "Harbour Magazine")),  # the maker, for the client
        ("(c) harbourworks", (None, "harbourworks")),  # a brand written small, after the copyright sign
        ("Foto beigestellt", (None, None)),  # "supplied": nobody named
        ("Foto: Hersteller", (None, None)),
        ("PR", (None, None)),
        ("©Ines Rowe 2021 Harbour Works, Inc. All Rights Reserved", ("Ines Rowe", "Harbour Works, Inc")),
        ("1996-98 Harbour Works Inc., All rights reserved", (None, "Harbour Works Inc")),
        ("© Jörg Harbour, Ines Rowe", ("Jörg Harbour, Ines Rowe", None)),  # two photographers
        ("Ministerio de Defensa de Rusia vía AP", (None, "Ministerio de Defensa de Rusia")),  # a handout
        ("Foto: –/Bundesverkehrsministerium/dpa", (None, "dpa")),  # a ministry is no photographer
        ("Bild: picture alliance / Xinhua | Ines Rowe", ("Ines Rowe", "Xinhua")),  # from dpa's library
        ("picture alliance/dpa", (None, "dpa")),
        ("Quelle: Juergen Rowe", ("Juergen Rowe", None)),  # a first name without its umlaut
        ("HV Harbour Dortmund", (None, "HV Harbour Dortmund")),  # a club's initials, not a person's
        ("Lily of the Harbour", (None, "Lily of the Harbour")),  # a hotel's name
        ("Foto: Harbour Content Pool", (None, "Harbour Content Pool")),
        ("L: Harbour House / R: Rowe Books", (None, "Harbour House")),  # each picture's place, then its credit
        ("Screenshot,Harbour TV", (None, "Harbour TV")),
        ("© 2630dana / Getty Images / iStock (Ausschnitt)", ("2630dana", "Getty Images")),
        ("Foto: hbm / Harbour TV", (None, "hbm")),  # a magazine's short name, written small, first
        ("Foto: privat / Harbour TV", (None, "Harbour TV")),  # a note is no name
    ],
)
def test_credits_read_the_way_pages_write_them(credit, expected):
    assert parse_credit(credit) == expected


def test_korean_papers_credits():
    assert split_caption("하버시청에서 전달식이 열렸다. 왼쪽부터 김하버 시장. 사진=하버시 제공") == (
        "하버시청에서 전달식이 열렸다. 왼쪽부터 김하버 시장.",
        "사진=하버시 제공",
        None,
    )
    assert parse_credit("사진=하버시 제공") == (None, "하버시")
    assert parse_credit("사진=연합뉴스") == (None, "Yonhap")
    # the place, then the reporter who took the photo
    text = "경기가 21일 열렸다. 선발투수가 상대하고 있다."
    split = split_caption(f"{text} 잠실=김하버 기자 harbour@example.com /2020.08.20/")
    assert split is not None and split[0] == text and parse_credit(split[1]) == ("김하버", None)
    # an equals sign inside a caption is no credit
    assert split_caption("경기 결과는 1=1 무승부였다.") is None


def test_a_studios_web_address_beside_a_stock_site_is_not_its_photographer():
    assert parse_credit("Bild: © HarbourPhotos.com/Adobestock") == (None, "Adobe Stock")
    assert parse_credit("hafenfoto/stock.adobe.com") == ("hafenfoto", "Adobe Stock")


def test_a_papers_archive_photo_or_credits_for_two_pictures_are_credits_alone():
    assert is_credit("Archivo/Harbour Times") and parse_credit("Archivo/Harbour Times") == (None, "Harbour Times")
    # "Left Image: ..., Right Image: ...": each picture's credit, no caption before the second label
    assert split_caption("Left Image: Harbour Survey Office, Right Image: Ines Rowe") is None


def test_a_person_and_their_paper_in_brackets_close_a_caption_without_the_date_of_the_photo():
    assert split_caption("Dana Whitlow waves from the ferry. (Ines Rowe, Harbour Times / January 27, 2013)") == (
        "Dana Whitlow waves from the ferry.",
        "Ines Rowe, Harbour Times",
        None,
    )
    assert parse_credit("Ines Rowe, Harbour Times") == ("Ines Rowe", "Harbour Times")
    split = split_caption("The ferry at the old quay. (Ines Rowe / Harbour Times / March 3, 2013)")
    assert split is not None and split[1] == "Ines Rowe / Harbour Times"
    # two people named in brackets, or a person and a place: who is shown, not who took the photo
    assert split_caption("The mayor opened the quay on Friday (Dana Whitlow, left, Jesco Rowe)") is None
