"""A problem set as IMS QTI: a QTI 2.1 content package, and the QTI 1.2 zip Canvas imports.

Both hold one quiz for the whole class, delivered by question slot: every distinct variant
of a slot is an item, and the quiz draws one item per slot for each student.

QTI 2.1: an assessmentTest with one assessmentSection per slot (`selection select="1"`) over
that slot's items. Each item declares its correct response (for a NAT, a value inside the
range), SCORE and MAXSCORE, and scores itself: a NAT answer between the printed range ends
(`gte`/`lte` on the decimal strings the key prints) earns the marks; an MCQ earns the marks
or loses a third of them; an MSQ earns the marks only when every choice is right. The
worked solution is modal feedback. Identifiers are NCNames (`I_Q1_001`, `S_Q1`); the
question ID is only in the manifest's metadata.

Canvas (QTI 1.2): one quiz with one question group per slot (pick 1, the slot's points),
HTML text, `render_fib` for numbers, fill-in-multiple-blanks for a matrix answer, the worked solution as general feedback, and
`assessment_meta.xml` with the time limit. Canvas cannot take marks away, so a wrong MCQ
scores 0 there, and the loss report says so.
"""

from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET
import zipfile

from quizforge.problemsets import xmlwrite
from quizforge.problemsets.lmstext import SlotVariants, Variant, midpoint_and_halfwidth

QTI21 = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"
LOM = "http://ltsc.ieee.org/xsd/LOM"
QTI12 = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CANVAS = "http://canvas.instructure.com/xsd/cccv1p0"
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
ET.register_namespace("lom", LOM)
LOSSES = [
    "QTI 2.1 and Canvas: math is LaTeX between \\( \\) for the platform's MathJax, not MathML.",
    "QTI 2.1: the time limit is the test's timeLimits maxTime; an LMS that ignores it needs it set by hand.",
    "Canvas: no negative marks, so a wrong GATE MCQ scores 0 instead of losing a third of its marks.",
    "Canvas: an MSQ (multiple_answers_question) gives partial credit where GATE gives all or nothing.",
]
# Attributes markdown-it may write that QTI 2.1's XHTML subset does not have (inside a tag: text
# has its quotes escaped, so ` style="` is never text).
_NOT_QTI = re.compile(r' (?:style|start|align)="[^"]*"')


FILE_MODE = 0o644   # what unzip gives each file: readable by all, written by its owner


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            # A ZipInfo of our own (for a fixed date) is stored uncompressed and mode 0 unless told
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | FILE_MODE) << 16   # a regular file, rw-r--r--
            info.create_system = 3   # Unix, so unzip reads those mode bits
            archive.writestr(info, files[name])
    return buffer.getvalue()


def _xml(root: ET.Element, namespace: str, indent: bool = True) -> bytes:
    """The document with `namespace` as its default one (no ns0: prefixes). ElementTree's own
    default_namespace option refuses unprefixed attributes, so the prefix is registered instead."""
    ET.register_namespace("", namespace)
    if indent:  # not where XHTML is inline: indenting would add blank lines inside <pre>
        ET.indent(root)
    # Serialized to str (as ET.tostring would, in one walk), then encoded: ElementTree's own
    # utf-8 writer is several times slower.
    return ("<?xml version='1.0' encoding='utf-8'?>\n" + xmlwrite.tostring(root)).encode("utf-8")


def item_identifier(slot_number: int, variant: int) -> str:
    """An NCName for the variant-th item of a slot: 'I_Q1_001' (never the question ID)."""
    return f"I_Q{slot_number}_{variant:03d}"


def section_identifier(slot_number: int) -> str:
    return f"S_Q{slot_number}"


# --- QTI 2.1 ---------------------------------------------------------------------------

def _q(tag: str) -> str:
    return f"{{{QTI21}}}{tag}"


def _xhtml(parent: ET.Element, html_text: str) -> None:
    """Append HTML (from lmstext, XHTML-well-formed) as QTI 2.1 XHTML: the same elements, in
    the item's default namespace (QTI's), less the attributes QTI's subset lacks."""
    xmlwrite.raw(parent, _NOT_QTI.sub("", html_text))


def _value(parent: ET.Element, tag: str, base_type: str, text: str) -> ET.Element:
    element = ET.SubElement(parent, _q(tag), {"baseType": base_type})
    element.text = text
    return element


def _set_outcome(parent: ET.Element, identifier: str, base_type: str, value: str) -> None:
    _value(ET.SubElement(parent, _q("setOutcomeValue"), {"identifier": identifier}), "baseValue", base_type, value)


def _outcomes21(item: ET.Element, marks: int) -> None:
    for name, default in (("SCORE", "0"), ("MAXSCORE", str(marks))):
        outcome = ET.SubElement(item, _q("outcomeDeclaration"), {
            "identifier": name, "cardinality": "single", "baseType": "float"})
        ET.SubElement(ET.SubElement(outcome, _q("defaultValue")), _q("value")).text = default
    ET.SubElement(item, _q("outcomeDeclaration"), {"identifier": "FEEDBACK", "cardinality": "single",
                                                   "baseType": "identifier"})


def _matrix_item21(identifier: str, title: str, variant: Variant) -> ET.Element:
    """A matrix answer: one text entry per entry, each with its own range; the marks only when
    every entry is in its range (GATE's all or nothing)."""
    from quizforge.problemsets.lms_matrix import blank_answers, entry_table, fields, text_fields

    q = variant.question
    item = ET.Element(_q("assessmentItem"), {"identifier": identifier, "title": title, "adaptive": "false",
                                             "timeDependent": "false"})
    entries = fields(q)
    # One type for every entry: a float field beside string ones would show where the −∞ are.
    as_text = text_fields(q)
    for f in entries:
        declaration = ET.SubElement(item, _q("responseDeclaration"), {
            "identifier": f"RESPONSE_{f.name}", "cardinality": "single", "baseType": "string" if as_text else "float"})
        ET.SubElement(ET.SubElement(declaration, _q("correctResponse")), _q("value")).text = \
            blank_answers(q, f)[0] if as_text else midpoint_and_halfwidth(f.low, f.high)[0]
    _outcomes21(item, q.marks)
    body = ET.SubElement(item, _q("itemBody"))
    _xhtml(body, variant.html)
    _xhtml(body, entry_table(q, lambda f: f'<textEntryInteraction responseIdentifier="RESPONSE_{f.name}" '
                                          'expectedLength="8"/>'))
    processing = ET.SubElement(item, _q("responseProcessing"))
    when = ET.SubElement(ET.SubElement(processing, _q("responseCondition")), _q("responseIf"))
    every = ET.SubElement(when, _q("and"))
    for f in entries:
        if as_text:
            either = ET.SubElement(every, _q("or"))
            for writing in blank_answers(q, f):
                match = ET.SubElement(either, _q("stringMatch"), {"caseSensitive": "false"})
                ET.SubElement(match, _q("variable"), {"identifier": f"RESPONSE_{f.name}"})
                _value(match, "baseValue", "string", writing)
            continue
        for test, end in (("gte", f.low), ("lte", f.high)):
            compare = ET.SubElement(every, _q(test))
            ET.SubElement(compare, _q("variable"), {"identifier": f"RESPONSE_{f.name}"})
            _value(compare, "baseValue", "float", end)
    _set_outcome(when, "SCORE", "float", str(q.marks))
    _set_outcome(processing, "FEEDBACK", "identifier", "SOLUTION")
    feedback = ET.SubElement(item, _q("modalFeedback"), {"outcomeIdentifier": "FEEDBACK", "showHide": "show",
                                                         "identifier": "SOLUTION", "title": "Worked solution"})
    _xhtml(feedback, variant.solution)
    return item


def _item21(identifier: str, title: str, variant: Variant) -> ET.Element:
    q = variant.question
    if q.is_matrix:
        return _matrix_item21(identifier, title, variant)
    item = ET.Element(_q("assessmentItem"), {"identifier": identifier, "title": title, "adaptive": "false",
                                             "timeDependent": "false"})
    choices = [f"choice_{c}" for c in "abcd"[:len(q.options)]]
    if q.kind == "NAT":
        low, high = variant.ends
        declaration = ET.SubElement(item, _q("responseDeclaration"), {
            "identifier": "RESPONSE", "cardinality": "single", "baseType": "float"})
        ET.SubElement(ET.SubElement(declaration, _q("correctResponse")), _q("value")).text = \
            midpoint_and_halfwidth(low, high)[0]
    else:
        declaration = ET.SubElement(item, _q("responseDeclaration"), {
            "identifier": "RESPONSE", "cardinality": "single" if q.kind == "MCQ" else "multiple",
            "baseType": "identifier"})
        correct = ET.SubElement(declaration, _q("correctResponse"))
        for i in sorted(q.correct):
            ET.SubElement(correct, _q("value")).text = choices[i]
    _outcomes21(item, q.marks)
    body = ET.SubElement(item, _q("itemBody"))
    _xhtml(body, variant.html)
    if q.kind == "NAT":
        ET.SubElement(ET.SubElement(body, _q("p")), _q("textEntryInteraction"),
                      {"responseIdentifier": "RESPONSE", "expectedLength": "16"})
    else:
        interaction = ET.SubElement(body, _q("choiceInteraction"), {
            "responseIdentifier": "RESPONSE", "shuffle": "false", "maxChoices": "1" if q.kind == "MCQ" else "0"})
        for choice, option in zip(choices, variant.options):
            _xhtml(ET.SubElement(interaction, _q("simpleChoice"), {"identifier": choice}), option)
    processing = ET.SubElement(item, _q("responseProcessing"))
    condition = ET.SubElement(processing, _q("responseCondition"))
    when = ET.SubElement(condition, _q("responseIf"))
    if q.kind == "NAT":
        both = ET.SubElement(when, _q("and"))
        for test, end in (("gte", low), ("lte", high)):
            compare = ET.SubElement(both, _q(test))
            ET.SubElement(compare, _q("variable"), {"identifier": "RESPONSE"})
            _value(compare, "baseValue", "float", end)
    else:
        match = ET.SubElement(when, _q("match"))
        ET.SubElement(match, _q("variable"), {"identifier": "RESPONSE"})
        ET.SubElement(match, _q("correct"), {"identifier": "RESPONSE"})
    _set_outcome(when, "SCORE", "float", str(q.marks))
    if q.kind == "MCQ":  # answered and wrong: GATE takes a third of the marks away
        otherwise = ET.SubElement(condition, _q("responseElseIf"))
        not_null = ET.SubElement(ET.SubElement(otherwise, _q("not")), _q("isNull"))
        ET.SubElement(not_null, _q("variable"), {"identifier": "RESPONSE"})
        _set_outcome(otherwise, "SCORE", "float", repr(-q.marks / 3))
    _set_outcome(processing, "FEEDBACK", "identifier", "SOLUTION")
    feedback = ET.SubElement(item, _q("modalFeedback"), {"outcomeIdentifier": "FEEDBACK", "showHide": "show",
                                                         "identifier": "SOLUTION", "title": "Worked solution"})
    _xhtml(feedback, variant.solution)
    return item


def instructions_html(instructions: str) -> str:
    """The spec's instructions as the paragraph a student reads before the questions (plain text,
    as the papers print them)."""
    return f"<p>{html.escape(instructions, quote=False)}</p>" if instructions else ""


def _test21(title: str, duration: int, groups: list[SlotVariants], instructions: str) -> ET.Element:
    test = ET.Element(_q("assessmentTest"), {"identifier": "T_quiz", "title": title})
    for name in ("SCORE", "MAXSCORE"):
        ET.SubElement(test, _q("outcomeDeclaration"), {"identifier": name, "cardinality": "single",
                                                       "baseType": "float"})
    ET.SubElement(test, _q("timeLimits"), {"maxTime": str(duration * 60)})
    part = ET.SubElement(test, _q("testPart"), {"identifier": "P_quiz", "navigationMode": "nonlinear",
                                                "submissionMode": "simultaneous"})
    for group in groups:
        section = ET.SubElement(part, _q("assessmentSection"), {
            "identifier": section_identifier(group.slot.number), "title": group.title, "visible": "true"})
        ET.SubElement(section, _q("selection"), {"select": "1"})
        if instructions and group is groups[0]:   # QTI 2.1 has rubrics in sections only: the first one shows them
            _xhtml(ET.SubElement(section, _q("rubricBlock"), {"view": "candidate"}), instructions_html(instructions))
        for number in range(1, len(group.variants) + 1):
            identifier = item_identifier(group.slot.number, number)
            ET.SubElement(section, _q("assessmentItemRef"), {"identifier": identifier,
                                                             "href": f"items/{identifier}.xml"})
    processing = ET.SubElement(test, _q("outcomeProcessing"))
    for name in ("SCORE", "MAXSCORE"):
        total = ET.SubElement(ET.SubElement(processing, _q("setOutcomeValue"), {"identifier": name}), _q("sum"))
        ET.SubElement(total, _q("testVariables"), {"variableIdentifier": name})
    return test


def _cp(tag: str) -> str:
    return f"{{{CP}}}{tag}"


def _instructor_metadata(resource: ET.Element, question_id: str, students: tuple[str, ...]) -> None:
    """The question ID (and whose paper had it) in LOM metadata: seen by the instructor, not the student."""
    general = ET.SubElement(ET.SubElement(ET.SubElement(resource, _cp("metadata")), f"{{{LOM}}}lom"),
                            f"{{{LOM}}}general")
    identifier = ET.SubElement(general, f"{{{LOM}}}identifier")
    ET.SubElement(identifier, f"{{{LOM}}}catalog").text = "quizforge question ID"
    ET.SubElement(identifier, f"{{{LOM}}}entry").text = question_id
    description = ET.SubElement(general, f"{{{LOM}}}description")
    ET.SubElement(description, f"{{{LOM}}}string").text = f"On the papers of {', '.join(students)}"


def qti21_zip(title: str, duration: int, groups: list[SlotVariants], instructions: str = "") -> bytes:
    files: dict[str, bytes] = {}

    manifest = ET.Element(_cp("manifest"), {"identifier": "M_quizforge_set"})
    ET.SubElement(manifest, _cp("organizations"))
    resources = ET.SubElement(manifest, _cp("resources"))
    test_resource = ET.SubElement(resources, _cp("resource"), {
        "identifier": "R_test", "type": "imsqti_test_xmlv2p1", "href": "test.xml"})
    ET.SubElement(test_resource, _cp("file"), {"href": "test.xml"})
    for group in groups:
        for number, variant in enumerate(group.variants, 1):
            identifier = item_identifier(group.slot.number, number)
            path = f"items/{identifier}.xml"
            files[path] = _xml(_item21(identifier, group.title, variant), QTI21, indent=False)
            ET.SubElement(test_resource, _cp("dependency"), {"identifierref": f"R_{identifier}"})
            resource = ET.SubElement(resources, _cp("resource"), {
                "identifier": f"R_{identifier}", "type": "imsqti_item_xmlv2p1", "href": path})
            _instructor_metadata(resource, variant.question.id, variant.students)
            ET.SubElement(resource, _cp("file"), {"href": path})
    files["test.xml"] = _xml(_test21(title, duration, groups, instructions), QTI21)
    files["imsmanifest.xml"] = _xml(manifest, CP)
    return _zip(files)


# --- Canvas (QTI 1.2) ----------------------------------------------------------------------

def _c(tag: str) -> str:
    return f"{{{QTI12}}}{tag}"


def _fields(parent: ET.Element, fields: dict[str, str]) -> None:
    meta = ET.SubElement(parent, _c("qtimetadata"))
    for label, entry in fields.items():
        field = ET.SubElement(meta, _c("qtimetadatafield"))
        ET.SubElement(field, _c("fieldlabel")).text = label
        ET.SubElement(field, _c("fieldentry")).text = entry


def _mattext(parent: ET.Element, html_text: str) -> None:
    ET.SubElement(ET.SubElement(parent, _c("material")), _c("mattext"), {"texttype": "text/html"}).text = html_text


def _scoring12(item: ET.Element) -> ET.Element:
    """The item's resprocessing: a SCORE out of 100, and the general feedback shown whatever the answer."""
    processing = ET.SubElement(item, _c("resprocessing"))
    ET.SubElement(ET.SubElement(processing, _c("outcomes")), _c("decvar"), {
        "maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"})
    general = ET.SubElement(processing, _c("respcondition"), {"continue": "Yes"})
    ET.SubElement(ET.SubElement(general, _c("conditionvar")), _c("other"))
    ET.SubElement(general, _c("displayfeedback"), {"feedbacktype": "Response", "linkrefid": "general_fb"})
    return processing


def _matrix_item12(identifier: str, title: str, variant: Variant) -> ET.Element:
    """A matrix answer for Canvas: fill in multiple blanks, one blank per entry, each accepting the
    texts of its range (lms_matrix.blank_answers); Canvas shares the points out per blank."""
    from quizforge.problemsets.lms_matrix import blank_answers, blank_text, fields

    q = variant.question
    entries = fields(q)
    item = ET.Element(_c("item"), {"ident": identifier, "title": title})
    _fields(ET.SubElement(item, _c("itemmetadata")), {"question_type": "fill_in_multiple_blanks_question",
                                                      "points_possible": str(q.marks)})
    presentation = ET.SubElement(item, _c("presentation"))
    _mattext(presentation, blank_text(q, variant.html))
    processing = _scoring12(item)
    share = f"{100 / len(entries):.4f}"
    for f in entries:
        response = ET.SubElement(presentation, _c("response_lid"), {"ident": f"response_{f.name}"})
        ET.SubElement(ET.SubElement(response, _c("material")), _c("mattext")).text = f.name
        choices = ET.SubElement(response, _c("render_choice"))
        for n, text in enumerate(blank_answers(q, f)):
            label = f"{identifier}_{f.name}_{n}"
            ET.SubElement(ET.SubElement(ET.SubElement(choices, _c("response_label"), {"ident": label}),
                                        _c("material")), _c("mattext"), {"texttype": "text/plain"}).text = text
            condition = ET.SubElement(processing, _c("respcondition"), {"continue": "Yes"})
            ET.SubElement(ET.SubElement(condition, _c("conditionvar")), _c("varequal"),
                          {"respident": f"response_{f.name}"}).text = label
            ET.SubElement(condition, _c("setvar"), {"action": "Add", "varname": "SCORE"}).text = share
    feedback = ET.SubElement(item, _c("itemfeedback"), {"ident": "general_fb"})
    _mattext(ET.SubElement(feedback, _c("flow_mat")), variant.solution)
    return item


def _item12(identifier: str, title: str, variant: Variant) -> ET.Element:
    q = variant.question
    if q.is_matrix:
        return _matrix_item12(identifier, title, variant)
    kind = {"NAT": "numerical_question", "MCQ": "multiple_choice_question", "MSQ": "multiple_answers_question"}[q.kind]
    item = ET.Element(_c("item"), {"ident": identifier, "title": title})
    _fields(ET.SubElement(item, _c("itemmetadata")), {"question_type": kind, "points_possible": str(q.marks)})
    presentation = ET.SubElement(item, _c("presentation"))
    _mattext(presentation, variant.html)
    processing = _scoring12(item)
    condition = ET.SubElement(processing, _c("respcondition"), {"continue": "No"})
    variables = ET.SubElement(condition, _c("conditionvar"))
    if q.kind == "NAT":
        response = ET.SubElement(presentation, _c("response_str"), {"ident": "response1", "rcardinality": "Single"})
        ET.SubElement(ET.SubElement(response, _c("render_fib"), {"fibtype": "Decimal"}), _c("response_label"),
                      {"ident": "answer1"})
        low, high = variant.ends
        ET.SubElement(variables, _c("vargte"), {"respident": "response1"}).text = low
        ET.SubElement(variables, _c("varlte"), {"respident": "response1"}).text = high
    else:
        lid = ET.SubElement(presentation, _c("response_lid"), {
            "ident": "response1", "rcardinality": "Single" if q.kind == "MCQ" else "Multiple"})
        choices = ET.SubElement(lid, _c("render_choice"))
        for i, option in enumerate(variant.options):
            _mattext(ET.SubElement(choices, _c("response_label"), {"ident": f"{identifier}_{i}"}), option)
        group = ET.SubElement(variables, _c("and")) if q.kind == "MSQ" else variables
        for i in range(len(q.options)):
            equal = ET.Element(_c("varequal"), {"respident": "response1"})
            equal.text = f"{identifier}_{i}"
            if i in q.correct:
                group.append(equal)
            elif q.kind == "MSQ":
                ET.SubElement(group, _c("not")).append(equal)
    ET.SubElement(condition, _c("setvar"), {"action": "Set", "varname": "SCORE"}).text = "100"
    feedback = ET.SubElement(item, _c("itemfeedback"), {"ident": "general_fb"})
    _mattext(ET.SubElement(feedback, _c("flow_mat")), variant.solution)
    return item


def _assessment_meta(quiz_id: str, title: str, duration: int, points: int, instructions: str) -> ET.Element:
    n = lambda tag: f"{{{CANVAS}}}{tag}"  # noqa: E731
    quiz = ET.Element(n("quiz"), {"identifier": quiz_id})
    for tag, value in (("title", title), ("description", instructions_html(instructions)), ("shuffle_answers", "false"),
                       ("scoring_policy", "keep_highest"), ("quiz_type", "assignment"),
                       ("points_possible", str(points)), ("allowed_attempts", "1"), ("time_limit", str(duration)),
                       ("show_correct_answers", "false"), ("one_question_at_a_time", "false"),
                       ("available", "false")):
        ET.SubElement(quiz, n(tag)).text = value
    return quiz


def canvas_zip(title: str, duration: int, groups: list[SlotVariants], instructions: str = "") -> bytes:
    quiz_id = "Q_quizforge_set"
    root = ET.Element(_c("questestinterop"))
    assessment = ET.SubElement(root, _c("assessment"), {"ident": quiz_id, "title": title})
    _fields(assessment, {"cc_maxattempts": "1", "qmd_timelimit": str(duration)})
    top = ET.SubElement(assessment, _c("section"), {"ident": "root_section"})
    for group in groups:
        marks = group.marks
        section = ET.SubElement(top, _c("section"), {"ident": section_identifier(group.slot.number),
                                                    "title": group.title})
        selection = ET.SubElement(ET.SubElement(section, _c("selection_ordering")), _c("selection"))
        ET.SubElement(selection, _c("selection_number")).text = "1"
        ET.SubElement(ET.SubElement(selection, _c("selection_extension")), _c("points_per_item")).text = str(marks)
        for number, variant in enumerate(group.variants, 1):
            section.append(_item12(item_identifier(group.slot.number, number), group.title, variant))
    points = sum(group.marks for group in groups)
    files = {f"{quiz_id}/{quiz_id}.xml": _xml(root, QTI12),
             f"{quiz_id}/assessment_meta.xml": _xml(_assessment_meta(quiz_id, title, duration, points, instructions), CANVAS)}
    manifest = ET.Element(_cp("manifest"), {"identifier": "M_quizforge_canvas"})
    ET.SubElement(manifest, _cp("organizations"))
    resources = ET.SubElement(manifest, _cp("resources"))
    quiz = ET.SubElement(resources, _cp("resource"), {"identifier": quiz_id, "type": "imsqti_xmlv1p2"})
    ET.SubElement(quiz, _cp("file"), {"href": f"{quiz_id}/{quiz_id}.xml"})
    ET.SubElement(quiz, _cp("dependency"), {"identifierref": f"{quiz_id}_meta"})
    meta = ET.SubElement(resources, _cp("resource"), {
        "identifier": f"{quiz_id}_meta", "type": "associatedcontent/imscc_xmlv1p1/learning-application-resource",
        "href": f"{quiz_id}/assessment_meta.xml"})
    ET.SubElement(meta, _cp("file"), {"href": f"{quiz_id}/assessment_meta.xml"})
    files["imsmanifest.xml"] = _xml(manifest, CP)
    return _zip(files)
