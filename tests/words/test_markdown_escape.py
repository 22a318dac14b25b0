"""words/markdown_escape.py: the one Markdown escaper, for running text (the change report) and for the text
inside a link's brackets (a badge's snippet), and a link's target."""

from podium.words.markdown_escape import LINK_TEXT, md, md_url


def test_names_cannot_inject_markdown():
    assert md("[x](https://evil.example)") == "\\[x\\](https\\://evil.example)"
    assert md("a|b") == "a\\|b"
    assert md("@team #1 <b>") == "\\@team \\#1 \\<b\\>"
    assert md("www.evil.example") == "www\\.evil.example"
    assert md("x\ny") == "x\ufffdy"


def test_link_text_escapes_what_closes_its_brackets_and_keeps_the_rest():
    assert md("podium: a]b", LINK_TEXT) == "podium: a\\]b"  # the badge's alt text reads "podium: <name>"
    assert md("[x](y) `c` *e* _f_ <g>\\", LINK_TEXT) == "\\[x\\](y) \\`c\\` \\*e\\* \\_f\\_ \\<g\\>\\\\"
    assert md("x\u2028y\x7fz\x85", LINK_TEXT) == "x\ufffdy\ufffdz\ufffd"  # no line break inside the brackets
    assert md("www.example", LINK_TEXT) == "www\\.example"


def test_a_link_target_cannot_end_early():
    assert md_url("https://x.example/a b(c)<d>") == "https://x.example/a%20b%28c%29%3Cd%3E"
