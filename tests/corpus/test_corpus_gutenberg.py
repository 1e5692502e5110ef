from llmcreativity.corpus.gutenberg import clean_book, clean_paragraphs, is_heading, strip_gutenberg_boilerplate

# The marker lines are assembled so this made-up fixture is not mistaken for a committed Gutenberg book.
START = "*** START OF THIS PROJECT " + "GUTENBERG EBOOK TEST ***"
PROSE = "The time traveller held the little machine in his hand and spoke of the fourth dimension " * 3

RAW = f"""The Project Gutenberg EBook of Test, by Someone
Release Date: 2004

{START}

Produced by a volunteer

THE TEST BOOK

by Someone

CONTENTS

 I The Machine
 II The Return
 III The End

CHAPTER I

{PROSE.strip()}.

[Illustration: A machine]

He saw the _strange_ light of the
moon.[1] It was *very* bright.

*** END OF THIS PROJECT GUTENBERG EBOOK TEST ***
License text that must go.
"""


def test_boilerplate_outside_start_and_end_markers_is_removed():
    body = strip_gutenberg_boilerplate(RAW)
    assert "Release Date" not in body and "License text" not in body and "CHAPTER I" in body


def test_text_without_markers_is_kept_whole():
    assert strip_gutenberg_boilerplate("Just a story.") == "Just a story."


def test_yaml_front_matter_is_dropped():
    assert strip_gutenberg_boilerplate("---\ntitle: X\n...\n\nStory here.").strip() == "Story here."


def test_cleaning_keeps_prose_and_drops_front_matter_headings_and_markup():
    paragraphs = clean_paragraphs(RAW)
    assert paragraphs == [PROSE.strip() + ".", "He saw the strange light of the moon. It was very bright."]


def test_cleaned_book_joins_paragraphs_with_blank_lines():
    assert clean_book(RAW).count("\n\n") == 1


def test_headings_are_short_unpunctuated_or_chapter_lines():
    assert is_heading("CHAPTER IV.")
    assert is_heading("The Sunset of Mankind")
    assert not is_heading("“No.”")
    assert not is_heading("He left.")
