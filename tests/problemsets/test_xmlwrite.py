"""xmlwrite.tostring writes what ElementTree writes, character for character: on random trees
(namespaces, attributes in their order, text and tails needing escapes, empty elements) and on
the trees the LMS exports build."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from quizforge.problemsets.xmlwrite import tostring

NAMESPACES = ["", "{http://www.imsglobal.org/xsd/imsqti_v2p1}", "{http://www.w3.org/2001/XMLSchema-instance}",
              "{urn:example:other}"]
names = st.sampled_from(["item", "p", "value", "mattext", "response_lid"])
texts = st.one_of(st.none(), st.text(alphabet=st.one_of(st.sampled_from(list("ab <>&\"'\n\r\t√−∞")),
                                                      st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"])),
                                     max_size=12))


@st.composite
def trees(draw, depth=3):
    tag = draw(st.sampled_from(NAMESPACES)) + draw(names)
    elem = ET.Element(tag)
    for key in draw(st.lists(st.sampled_from(["ident", "title", "{http://www.w3.org/2001/XMLSchema-instance}type",
                                              "shuffle"]), unique=True, max_size=3)):
        elem.set(key, draw(st.text(alphabet="ab <>&\"'\n\t=", max_size=6)))
    elem.text = draw(texts)
    elem.tail = draw(texts)
    if depth:
        for child in draw(st.lists(trees(depth=depth - 1), max_size=3)):
            elem.append(child)
    return elem


@settings(max_examples=150, deadline=None)
@given(trees())
def test_random_trees_are_written_as_elementtree_writes_them(root):
    root.tail = None
    assert tostring(root) == ET.tostring(root, encoding="unicode")


def test_what_elementtree_alone_handles_goes_to_it():
    root = ET.Element("quiz")
    root.append(ET.Comment("made by quizforge"))
    root.append(ET.Element(ET.QName("urn:x", "item")))
    assert tostring(root) == ET.tostring(root, encoding="unicode")
    assert "<!--made by quizforge-->" in tostring(root)


def test_raw_markup_is_written_as_it_is_where_it_stands():
    from quizforge.problemsets.xmlwrite import raw

    root = ET.Element("{urn:q}item")
    body = ET.SubElement(root, "{urn:q}itemBody")
    body.text = "a < b"
    raw(body, '<p>x &quot;y&quot; <em>z</em></p>').tail = " & after"
    ET.SubElement(body, "{urn:q}p").text = "next"
    assert tostring(root) == ('<ns0:item xmlns:ns0="urn:q"><ns0:itemBody>a &lt; b<p>x &quot;y&quot; <em>z</em></p>'
                              ' &amp; after<ns0:p>next</ns0:p></ns0:itemBody></ns0:item>')


def test_raw_markup_in_a_tree_only_elementtree_can_write_is_refused():
    import pytest

    from quizforge.problemsets.xmlwrite import raw

    root = ET.Element("item")
    root.append(ET.Comment("only ElementTree writes comments"))
    raw(root, "<p>x</p>")
    with pytest.raises(ValueError, match="markup written as it is"):
        tostring(root)


def test_qti_items_keep_their_html_as_qti_xhtml():
    """The question's HTML in a QTI 2.1 item: in the item's namespace, without the attributes
    QTI's XHTML lacks (a table cell's style, a list's start)."""
    from quizforge.problemsets.qti import QTI21, _xhtml, _xml

    item = ET.Element(f"{{{QTI21}}}itemBody")
    # as markdown-it writes it: a quote in text is &quot;, so the text below keeps its words
    _xhtml(item, '<table><tr><td style="text-align:right">1 style=&quot;x&quot;</td></tr></table>'
                 '<ol start="3"><li>a</li></ol>')
    parsed = ET.fromstring(_xml(item, QTI21, indent=False))
    assert [e.tag for e in parsed.iter()][:4] == [f"{{{QTI21}}}{t}" for t in ("itemBody", "table", "tr", "td")]
    assert all(not e.attrib for e in parsed.iter()) and parsed.find(f".//{{{QTI21}}}td").text == '1 style="x"'
