"""A problem set as IMS QTI: QTI 2.1 items in a content package, and the QTI 1.2 zip Canvas imports.

QTI 2.1: one assessmentItem per question and student, scored in its own responseProcessing:
a NAT answer within the GATE range (an absolute tolerance around its midpoint) earns the
marks; an MCQ earns the marks or loses a third of them; an MSQ earns the marks only when
every choice is right. Canvas (QTI 1.2): one quiz per student; Canvas cannot take marks away,
so a wrong MCQ scores 0 there, and the loss report says so. Math stays LaTeX in the text.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile

from quizforge.problemsets.lms import _math, _nat_range, _num, _prompt
from quizforge.problemsets.variants import Paper

QTI21 = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
LOSSES = [
    "QTI 2.1 and Canvas: math is LaTeX text between \\( \\) for the platform's MathJax, not MathML.",
    "Canvas: no negative marks, so a wrong GATE MCQ scores 0 instead of losing a third of its marks.",
    "Canvas: an MSQ (multiple_answers_question) gives partial credit where GATE gives all or nothing.",
]


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(name, ZIP_TIME), files[name])
    return buffer.getvalue()


def _xml(root: ET.Element) -> bytes:
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _paragraphs(parent: ET.Element, tag: str, text: str) -> None:
    for block in re.split(r"\n\s*\n", text.strip()):
        ET.SubElement(parent, tag).text = block


# --- QTI 2.1 ---------------------------------------------------------------------------

def _item21(identifier: str, title: str, q) -> ET.Element:
    ET.register_namespace("", QTI21)
    n = lambda tag: f"{{{QTI21}}}{tag}"  # noqa: E731
    item = ET.Element(n("assessmentItem"), {"identifier": identifier, "title": title, "adaptive": "false",
                                            "timeDependent": "false"})
    letters = [f"choice_{c}" for c in "abcd"[:len(q.options)]]
    if q.kind == "NAT":
        ET.SubElement(item, n("responseDeclaration"), {"identifier": "RESPONSE", "cardinality": "single",
                                                       "baseType": "float"})
    else:
        cardinality = "single" if q.kind == "MCQ" else "multiple"
        declaration = ET.SubElement(item, n("responseDeclaration"), {"identifier": "RESPONSE",
                                                                     "cardinality": cardinality,
                                                                     "baseType": "identifier"})
        correct = ET.SubElement(declaration, n("correctResponse"))
        for i in sorted(q.correct):
            ET.SubElement(correct, n("value")).text = letters[i]
    outcome = ET.SubElement(item, n("outcomeDeclaration"), {"identifier": "SCORE", "cardinality": "single",
                                                            "baseType": "float"})
    ET.SubElement(ET.SubElement(outcome, n("defaultValue")), n("value")).text = "0"
    body = ET.SubElement(item, n("itemBody"))
    _paragraphs(body, n("p"), _prompt(q))
    if q.kind == "NAT":
        ET.SubElement(ET.SubElement(body, n("p")), n("textEntryInteraction"),
                      {"responseIdentifier": "RESPONSE", "expectedLength": "16"})
    else:
        interaction = ET.SubElement(body, n("choiceInteraction"), {
            "responseIdentifier": "RESPONSE", "shuffle": "false", "maxChoices": "1" if q.kind == "MCQ" else "0"})
        for letter, option in zip(letters, q.options):
            ET.SubElement(interaction, n("simpleChoice"), {"identifier": letter}).text = _math(option.md)
    processing = ET.SubElement(item, n("responseProcessing"))
    condition = ET.SubElement(processing, n("responseCondition"))
    when = ET.SubElement(condition, n("responseIf"))
    if q.kind == "NAT":
        low, high = _nat_range(q)
        half = _num((high - low) / 2)
        equal = ET.SubElement(when, n("equal"), {"toleranceMode": "absolute", "tolerance": f"{half} {half}"})
        ET.SubElement(equal, n("variable"), {"identifier": "RESPONSE"})
        ET.SubElement(equal, n("baseValue"), {"baseType": "float"}).text = _num((low + high) / 2)
    else:
        match = ET.SubElement(when, n("match"))
        ET.SubElement(match, n("variable"), {"identifier": "RESPONSE"})
        ET.SubElement(match, n("correct"), {"identifier": "RESPONSE"})
    ET.SubElement(ET.SubElement(when, n("setOutcomeValue"), {"identifier": "SCORE"}),
                  n("baseValue"), {"baseType": "float"}).text = str(q.marks)
    if q.kind == "MCQ":  # answered and wrong: GATE takes a third of the marks away
        otherwise = ET.SubElement(condition, n("responseElseIf"))
        not_null = ET.SubElement(ET.SubElement(otherwise, n("not")), n("isNull"))
        ET.SubElement(not_null, n("variable"), {"identifier": "RESPONSE"})
        ET.SubElement(ET.SubElement(otherwise, n("setOutcomeValue"), {"identifier": "SCORE"}),
                      n("baseValue"), {"baseType": "float"}).text = repr(-q.marks / 3)
    return item


def qti21_zip(papers: list[Paper]) -> bytes:
    files: dict[str, bytes] = {}
    ET.register_namespace("", CP)
    manifest = ET.Element(f"{{{CP}}}manifest", {"identifier": "quizforge-set"})
    ET.SubElement(manifest, f"{{{CP}}}organizations")
    resources = ET.SubElement(manifest, f"{{{CP}}}resources")
    for paper in papers:
        for number, q in enumerate(paper.questions, 1):
            identifier = f"{paper.student.id}-Q{number}"
            path = f"items/{identifier}.xml"
            files[path] = _xml(_item21(identifier, f"Q{number} {q.id}", q))
            resource = ET.SubElement(resources, f"{{{CP}}}resource", {
                "identifier": identifier, "type": "imsqti_item_xmlv2p1", "href": path})
            ET.SubElement(resource, f"{{{CP}}}file", {"href": path})
    files["imsmanifest.xml"] = _xml(manifest)
    return _zip(files)


# --- Canvas (QTI 1.2) ----------------------------------------------------------------------

def _meta(parent: ET.Element, fields: dict[str, str]) -> None:
    meta = ET.SubElement(ET.SubElement(parent, "itemmetadata"), "qtimetadata")
    for label, entry in fields.items():
        field = ET.SubElement(meta, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def _item12(identifier: str, q) -> ET.Element:
    kind = {"NAT": "numerical_question", "MCQ": "multiple_choice_question", "MSQ": "multiple_answers_question"}[q.kind]
    item = ET.Element("item", {"ident": identifier, "title": q.title})
    _meta(item, {"question_type": kind, "points_possible": str(q.marks)})
    presentation = ET.SubElement(item, "presentation")
    ET.SubElement(ET.SubElement(presentation, "material"), "mattext", {"texttype": "text/plain"}).text = _prompt(q)
    processing = ET.SubElement(item, "resprocessing")
    ET.SubElement(ET.SubElement(processing, "outcomes"), "decvar", {"maxvalue": "100", "minvalue": "0",
                                                                    "varname": "SCORE", "vartype": "Decimal"})
    if q.kind == "NAT":
        ET.SubElement(presentation, "response_str", {"ident": "response1", "rcardinality": "Single"})
        low, high = _nat_range(q)
        condition = ET.SubElement(processing, "respcondition", {"continue": "No"})
        variables = ET.SubElement(condition, "conditionvar")
        ET.SubElement(variables, "vargte", {"respident": "response1"}).text = _num(low)
        ET.SubElement(variables, "varlte", {"respident": "response1"}).text = _num(high)
        ET.SubElement(condition, "setvar", {"action": "Set", "varname": "SCORE"}).text = "100"
        return item
    lid = ET.SubElement(presentation, "response_lid", {
        "ident": "response1", "rcardinality": "Single" if q.kind == "MCQ" else "Multiple"})
    choices = ET.SubElement(lid, "render_choice")
    for i, option in enumerate(q.options):
        label = ET.SubElement(choices, "response_label", {"ident": f"{identifier}-{i}"})
        ET.SubElement(ET.SubElement(label, "material"), "mattext", {"texttype": "text/plain"}).text = _math(option.md)
    condition = ET.SubElement(processing, "respcondition", {"continue": "No"})
    variables = ET.SubElement(condition, "conditionvar")
    group = ET.SubElement(variables, "and") if q.kind == "MSQ" else variables
    for i in range(len(q.options)):
        equal = ET.Element("varequal", {"respident": "response1"})
        equal.text = f"{identifier}-{i}"
        if i in q.correct:
            group.append(equal)
        elif q.kind == "MSQ":
            ET.SubElement(group, "not").append(equal)
    ET.SubElement(condition, "setvar", {"action": "Set", "varname": "SCORE"}).text = "100"
    return item


def canvas_zip(title: str, papers: list[Paper]) -> bytes:
    files: dict[str, bytes] = {}
    manifest = ET.Element("manifest", {"identifier": "quizforge-canvas", "xmlns": CP})
    resources = ET.SubElement(manifest, "resources")
    for paper in papers:
        quiz_id = f"quiz-{paper.student.id}"
        root = ET.Element("questestinterop", {"xmlns": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"})
        assessment = ET.SubElement(root, "assessment", {"ident": quiz_id, "title": f"{title} ({paper.student.id})"})
        section = ET.SubElement(assessment, "section", {"ident": "root_section"})
        for number, q in enumerate(paper.questions, 1):
            section.append(_item12(f"{paper.student.id}-Q{number}", q))
        path = f"{quiz_id}/{quiz_id}.xml"
        files[path] = _xml(root)
        resource = ET.SubElement(resources, "resource", {"identifier": quiz_id, "type": "imsqti_xmlv1p2",
                                                        "href": path})
        ET.SubElement(resource, "file", {"href": path})
    files["imsmanifest.xml"] = _xml(manifest)
    return _zip(files)
