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
