"""Reading the LMS exports as their consumers do: Moodle XML's required elements and its numerical
check, QTI 2.1 items scored by pyslet's engine, and QTI 2.1's XHTML subset."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from decimal import Decimal

from quizforge.bank.registry import question as regenerate

QTI = {"q": "http://www.imsglobal.org/xsd/imsqti_v2p1"}
CP = {"cp": "http://www.imsglobal.org/xsd/imscp_v1p1", "lom": "http://ltsc.ieee.org/xsd/LOM"}
C12 = {"c": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}

MOODLE_TYPES = {"category", "multichoice", "numerical", "cloze"}
# A numerical Cloze field: the answer and its tolerance, then the 0 % answer that sets its width.
CLOZE_NUMERICAL = re.compile(r"\{1:NUMERICAL:=(-?[\d.]+):([\d.]+)~%0%(-?\d+):0\}")


def check_moodle_question(item: ET.Element) -> None:
    """Moodle XML as documented (docs.moodle.org/en/Moodle_XML_format): the elements each type needs."""
    kind = item.get("type")
    assert kind in MOODLE_TYPES
    if kind == "category":
        assert item.findtext("category/text").startswith("$course$/")
        return
    assert item.findtext("name/text")
    for field in ("questiontext", "generalfeedback"):
        assert item.find(field).get("format") == "html"
        ET.fromstring(f"<div>{item.findtext(f'{field}/text')}</div>")  # well-formed HTML
    if kind == "cloze":  # a matrix answer: one field per entry, its grade the count of fields
        q = regenerate(item.findtext("idnumber"))
        text = item.findtext("questiontext/text")
        numeric = CLOZE_NUMERICAL.findall(text)
        assert len(numeric) + text.count("{1:SHORTANSWER:") == len(q.answer) * len(q.answer[0])
        assert float(item.findtext("penalty")) == 0 and not item.findall("answer")
        return
    assert float(item.findtext("defaultgrade")) > 0 and float(item.findtext("penalty")) == 0
    answers = item.findall("answer")
    fractions = [float(a.get("fraction")) for a in answers]
    if kind == "numerical":
        assert len(answers) == 1 and fractions == [100]
        Decimal(answers[0].findtext("text")), Decimal(answers[0].findtext("tolerance"))
    else:
        assert item.findtext("single") in ("true", "false") and all(a.get("format") == "html" for a in answers)
        assert 2 <= len(answers) <= 4 and all(-100 <= f <= 100 for f in fractions)
        if item.findtext("single") == "true":
            assert max(fractions) == 100
        else:
            assert abs(sum(f for f in fractions if f > 0) - 100) < 1e-3


def moodle_accepts(answer: str, tolerance: str, response: str) -> bool:
    """Moodle's numerical check (qtype_numerical, nominal tolerance) in PHP's doubles: the
    tolerance grows by 1e-14 of the larger of it and the answer before comparing."""
    a, t, x = float(answer), float(tolerance), float(response)
    t = t + 1e-14 * max(abs(t), abs(a), 1e-14)
    return a - t <= x <= a + t


def pyslet_item(xml: bytes):
    import pyslet.qtiv2.xml as qtixml

    document = qtixml.QTIDocument()
    document.read(src=xml)  # raises QTIValidityError on an element QTI 2.1 does not allow there
    return document.root


def pyslet_score(item, value):
    """Score one response with pyslet's QTI 2.1 engine: SCORE and MAXSCORE after response processing.
    `value` answers the item's one RESPONSE, or is a dict by identifier for an item with several."""
    from pyslet.qtiv2 import variables

    session = variables.ItemSessionState(item)
    session.begin_session()
    values = value if isinstance(value, dict) else {"RESPONSE": value}
    for declaration in item.ResponseDeclaration:
        response = variables.Value.new_value(declaration.cardinality, declaration.baseType)
        if values.get(declaration.identifier) is not None:
            response.set_value(values[declaration.identifier])
        session[declaration.identifier] = response
    session.end_attempt()
    return session["SCORE"].value, session["MAXSCORE"].value


def correct_responses(item) -> dict:
    """Every response declaration's correct value, by identifier."""
    return {d.identifier: d.get_correct_value().value for d in item.ResponseDeclaration}


# QTI 2.1's XHTML subset (the spec's content model) and the attributes it allows, beyond which
# pyslet is lenient: it accepts <del> or a style attribute, which the IMS schema refuses.
QTI_XHTML = {"a", "abbr", "acronym", "address", "b", "big", "blockquote", "br", "caption", "cite", "code", "col",
             "colgroup", "dd", "dfn", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
             "kbd", "li", "object", "ol", "p", "param", "pre", "q", "samp", "small", "span", "strong", "sub", "sup",
             "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "ul", "var"}
QTI_XHTML_ATTRIBUTES = {"id", "class", "label", "{http://www.w3.org/XML/1998/namespace}lang", "href", "type", "src",
                        "alt", "longdesc", "height", "width", "headers", "scope", "abbr", "axis", "rowspan",
                        "colspan", "summary", "cite", "span"}


def check_qti_xhtml(item: ET.Element) -> None:
    for part in [item.find("q:itemBody", QTI), *item.findall("q:modalFeedback", QTI)]:
        for element in part.iter():
            tag = element.tag.split("}")[1]
            if tag in ("itemBody", "modalFeedback", "choiceInteraction", "simpleChoice", "textEntryInteraction"):
                continue
            assert tag in QTI_XHTML, tag
            assert set(element.attrib) <= QTI_XHTML_ATTRIBUTES, (tag, element.attrib)
