"""The LMS exports of `quiz set make`: one quiz per class delivered by question slot, HTML with
MathJax math that survives, the worked solution as feedback, exact NAT range ends, and no
question ID where a student can see it. QTI 2.1 is read and scored by pyslet; Moodle XML by
a checker written from Moodle's documented format; GIFT by a reader that follows Moodle's
own import steps; Canvas QTI 1.2 by its structure."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest

from quizforge.bank.registry import question as regenerate
from quizforge.text.html import inline_html, to_html
from quizforge.problemsets.make import make_set

from lms_support import (C12, CP, QTI, check_moodle_question, check_qti_xhtml, correct_responses, moodle_accepts,
                         pyslet_item, pyslet_score)

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "quiz1.toml"
ROSTER = """id,name
21CS001,Asha Rao
21CS002,Bilal Khan
21cs003,Chen Wei
22EE104,अनुष्का शर्मा
X-9,Dana Lee
"""
# pyslet still calls its own deprecated names; that is its business, not a failure here.
pytestmark = pytest.mark.filterwarnings("ignore:.* is deprecated, use:DeprecationWarning")
NCNAME = re.compile(r"[A-Za-z_][\w.\-]*\Z")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lms")
    (folder / "roster.csv").write_text(ROSTER, "utf-8")
    out = folder / "quiz1"
    make_set(EXAMPLE, out, roster=folder / "roster.csv", pdf=False)
    return out


def record(folder: Path) -> dict:
    return json.loads((folder / "set.json").read_text("utf-8"))


def slot_titles(folder: Path) -> list[str]:
    first = record(folder)["students"][0]["questions"]
    return [f"Q{n} · {regenerate(qid).title}" for n, qid in enumerate(first, 1)]


def ids_by_slot(folder: Path) -> list[set[str]]:
    """For each slot, the question IDs of every student's paper."""
    students = record(folder)["students"]
    return [{s["questions"][i] for s in students} for i in range(len(students[0]["questions"]))]


def printed_ends(folder: Path) -> dict[str, tuple[str, str]]:
    """The accepted range of every NAT as keys.json prints it, without thousands separators."""
    ends = {}
    for row in json.loads((folder / "keys.json").read_text("utf-8")):
        if row["kind"] == "NAT":
            parts = row["accepted"].replace(",", "").split(" to ")
            ends[row["question_id"]] = (parts[0], parts[-1])
    return ends


def all_question_ids(folder: Path) -> set[str]:
    return {q for s in record(folder)["students"] for q in s["questions"]}


# --- HTML and math ----------------------------------------------------------------------------

def test_markdown_becomes_html_and_the_math_is_left_for_mathjax():
    text = to_html("Let $d_k = 4$ and **bold**, `x*y`, a < b:\n\n"
                   "$$\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}$$\n\n"
                   "- one\n- two $a_{i}*b$\n\n| h | k |\n|---|--:|\n| 1 | 2 |\n\n```\ncode *here*\n```")
    assert r"\(d_k = 4\)" in text and "<strong>bold</strong>" in text and "<code>x*y</code>" in text
    assert r"\[\begin{bmatrix} 1 &amp; 2 \\ 3 &amp; 4 \end{bmatrix}\]" in text  # \\ kept, & escaped for HTML
    assert r"<li>two \(a_{i}*b\)</li>" in text  # no emphasis made of the math's * or _
    assert "<table>" in text and "<td" in text and "<pre><code>code *here*\n</code></pre>" in text
    assert "a &lt; b" in text
    ET.fromstring(f"<div>{text}</div>")  # well-formed, so it can be XHTML in QTI
    assert inline_html(r"$\sqrt{d_k}$ *is* $x<y$") == r"\(\sqrt{d_k}\) <em>is</em> \(x&lt;y\)"


def test_a_worked_solution_stays_one_numbered_list_with_its_matrices():
    from quizforge.bank.registry import get_template
    from quizforge.problemsets.lmstext import solution_html

    q = get_template("attention.weight").question(1)
    html = solution_html(q)
    steps = ET.fromstring(f"<div>{html}</div>").findall("ol/li")
    assert len(steps) == len(q.solution) and html.count("<ol>") == 1
    assert any(r"\begin{bmatrix}" in "".join(li.itertext()) for li in steps)
    assert "(accepted: " in html


def test_range_ends_are_the_printed_decimals():
    from fractions import Fraction

    from quizforge.bank.question import Question
    from quizforge.problemsets.lmstext import midpoint_and_halfwidth, range_ends

    def nat(answer, **how) -> Question:
        return Question("t.x-0001", "t.x", "dims", "NAT", 1, 1, "T", "p", answer=answer, **how)

    assert range_ends(nat(Fraction(1234567, 1000), decimals=2)) == ("1234.56", "1234.58")  # no thousands comma
    assert range_ends(nat(1048576)) == ("1048576", "1048576")
    assert range_ends(nat(Fraction(1, 3))) == ("0.333333333333", "0.333333333333")  # as the key prints it
    assert midpoint_and_halfwidth("1.0395e24", "1.0605e24") == ("1.05E+24", "1.05E+22")


def test_category_paths_double_a_slash_in_a_name():
    from quizforge.problemsets.lmstext import category_path

    assert category_path("Quiz 1/2", "Q3 · KV cache") == "$course$/top/Quiz 1//2/Q3 · KV cache"


# --- Moodle XML --------------------------------------------------------------------------------



def test_moodle_xml_has_one_category_per_slot_with_every_students_variant(made):
    root = ET.parse(made / "moodle.xml").getroot()
    assert root.tag == "quiz"
    for item in root:
        check_moodle_question(item)
    titles = slot_titles(made)
    categories = [c.findtext("category/text") for c in root if c.get("type") == "category"]
    assert categories == [f"$course$/top/Transformers quiz 1/{t}" for t in titles]
    current, held = None, {t: set() for t in titles}
    for item in root:
        if item.get("type") == "category":
            current = item.findtext("category/text").rsplit("/", 1)[1]
            continue
        assert item.findtext("name/text") == current  # the slot's title, not the question ID
        held[current].add(item.findtext("idnumber"))
    assert [held[t] for t in titles] == ids_by_slot(made)


def test_moodle_numerical_accepts_the_printed_ends_and_nothing_beyond(made):
    root = ET.parse(made / "moodle.xml").getroot()
    ends = printed_ends(made)
    checked = 0
    for item in root.iter("question"):
        if item.get("type") != "numerical":
            continue
        low, high = ends[item.findtext("idnumber")]
        answer, tolerance = item.findtext("answer/text"), item.findtext("answer/tolerance")
        assert Decimal(answer) - Decimal(tolerance) == Decimal(low)
        assert Decimal(answer) + Decimal(tolerance) == Decimal(high)
        assert moodle_accepts(answer, tolerance, low) and moodle_accepts(answer, tolerance, high)
        step = max(abs(Decimal(high)), Decimal(1)) * Decimal("1e-6")
        assert not moodle_accepts(answer, tolerance, str(Decimal(high) + step))
        assert not moodle_accepts(answer, tolerance, str(Decimal(low) - step))
        checked += 1
    assert checked >= 5


def test_moodle_marks_mcq_the_gate_way_and_shows_the_solution(made):
    root = ET.parse(made / "moodle.xml").getroot()
    for item in root.iter("question"):
        if item.get("type") == "category":
            continue
        q = regenerate(item.findtext("idnumber"))
        assert item.findtext("defaultgrade") == str(q.marks)
        assert "<strong>Answer:</strong>" in item.findtext("generalfeedback/text")
        if q.kind == "MCQ":
            fractions = [a.get("fraction") for a in item.findall("answer")]
            assert sorted(fractions) == ["-33.33333", "-33.33333", "-33.33333", "100"]
            assert [f == "100" for f in fractions] == [o.correct for o in q.options]


# --- GIFT -------------------------------------------------------------------------------------

_GIFT_ESCAPES = {":": "\x01", "#": "\x02", "=": "\x03", "{": "\x04", "}": "\x05", "~": "\x06", "n": "\x07"}


def read_gift(text: str) -> list[dict]:
    """A strict GIFT reader that takes the steps Moodle's importer (qformat_gift) takes: blank
    lines end a question, // lines are dropped, \\\\ and \\: \\# \\= \\{ \\} \\~ \\n are escapes,
    the name sits between ::, [html] marks the format, #### starts the general feedback."""
    def pre(s: str) -> str:
        return re.sub(r"\\(\\|[:#={}~n])", lambda m: "\\" if m.group(1) == "\\" else _GIFT_ESCAPES[m.group(1)], s)

    def post(s: str) -> str:
        for char, mark in _GIFT_ESCAPES.items():
            s = s.replace(mark, "\n" if char == "n" else char)
        return s

    def formatted(s: str, default: str = "moodle") -> tuple[str, str]:
        m = re.match(r"\[(html|moodle|plain|markdown)\]", s)
        return (m.group(1), post(s[m.end():]).strip()) if m else (default, post(s).strip())

    found, category = [], None
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.split("\n") if not line.strip().startswith("//")]
        body = pre("\n".join(lines).strip())
        if not body:
            continue
        if body.startswith("$CATEGORY:"):
            category = body[len("$CATEGORY:"):].strip()
            continue
        assert body.startswith("::") and "::" in body[2:], body[:80]
        name, rest = body[2:].split("::", 1)
        assert rest.count("{") == 1 and rest.count("}") == 1 and rest.rstrip().endswith("}"), rest[:80]
        question_text, answers = rest.split("{")
        answers = answers.rstrip()[:-1]
        answers, _, feedback = answers.rpartition("####") if "####" in answers else (answers, "", "")
        answers = answers.strip()
        text = formatted(question_text.strip())  # answers and feedback default to the text's format
        item = {"category": category, "name": post(name), "text": text, "feedback": formatted(feedback.strip(), text[0])}
        if answers.startswith("#"):
            low, _, high = answers[1:].strip().partition("..")
            item["range"] = (Decimal(low), Decimal(high))
        else:
            choices = [c.strip() for c in answers.replace("=", "~=").split("~") if c.strip()]
            item["choices"] = []
            for choice in choices:
                if choice.startswith("="):
                    weight, choice = 100.0, choice[1:]
                else:
                    m = re.match(r"%(-?[\d.]+)%", choice)
                    weight, choice = (float(m.group(1)), choice[m.end():]) if m else (0.0, choice)
                assert "#" not in choice  # no stray per-answer feedback
                item["choices"].append((weight, formatted(choice, text[0])))
        found.append(item)
    return found


def test_gift_reads_back_as_the_moodle_xml_says(made):
    gift = read_gift((made / "quiz.gift").read_text("utf-8"))
    xml = [q for q in ET.parse(made / "moodle.xml").getroot() if q.get("type") != "category"]
    categories = [c.findtext("category/text") for c in ET.parse(made / "moodle.xml").getroot()
                  if c.get("type") == "category"]
    assert len(gift) == len(xml) and sorted({g["category"] for g in gift}) == sorted(categories)
    for parsed, item in zip(gift, xml):
        assert parsed["name"] == item.findtext("name/text")
        assert parsed["text"] == ("html", item.findtext("questiontext/text"))
        assert parsed["feedback"] == ("html", item.findtext("generalfeedback/text"))
        if item.get("type") == "numerical":
            answer, tolerance = Decimal(item.findtext("answer/text")), Decimal(item.findtext("answer/tolerance"))
            assert parsed["range"] == (answer - tolerance, answer + tolerance)
        else:
            expected = [(float(a.get("fraction")), ("html", a.findtext("text"))) for a in item.findall("answer")]
            assert parsed["choices"] == expected


def test_gift_keeps_tex_backslashes_and_braces(made):
    gift = read_gift((made / "quiz.gift").read_text("utf-8"))
    texts = " ".join(g["text"][1] + g["feedback"][1] for g in gift)
    assert r"\(" in texts and r"\frac{" in texts and r"\infty" in texts
    # \n inside TeX (\neq, \nabla) must not turn into a line break: written as \\n, read back as \n
    from quizforge.problemsets.lms import gift_escape

    assert gift_escape(r"a \neq b: {x}") == r"a \\neq b\: \{x\}"


# --- QTI 2.1 (pyslet) ------------------------------------------------------------------------



def test_qti21_package_is_one_test_with_a_section_per_slot(made):
    import pyslet.imscpv1p2 as imscp
    import pyslet.qtiv2.xml as qtixml

    package = imscp.ContentPackage(str(made / "qti21.zip"))  # pyslet reads it as an IMS content package
    try:
        listed = package.manifest.root.Resources.Resource
        assert {r.type for r in listed} == {"imsqti_test_xmlv2p1", "imsqti_item_xmlv2p1"}
        known = {r.id for r in listed}
        assert all(d.identifierref in known for r in listed for d in r.Dependency)
        (test_entry,) = [r for r in listed if r.type == "imsqti_test_xmlv2p1"]
        assert len(test_entry.Dependency) == len(listed) - 1
    finally:
        package.close()

    archive = zipfile.ZipFile(made / "qti21.zip")
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    resources = manifest.findall("cp:resources/cp:resource", CP)
    assert all(r.get("href") in archive.namelist() for r in resources)
    assert {f.get("href") for r in resources for f in r.findall("cp:file", CP)} == set(archive.namelist()) - {
        "imsmanifest.xml"}
    question_of = {r.get("href"): r.findtext(".//lom:entry", namespaces=CP) for r in resources
                   if r.get("type") == "imsqti_item_xmlv2p1"}
    (test_resource,) = [r for r in resources if r.get("type") == "imsqti_test_xmlv2p1"]
    document = qtixml.QTIDocument()
    document.read(src=archive.read(test_resource.get("href")))
    assert type(document.root).__name__ == "AssessmentTest"
    from pyslet.qtiv2.tests import TestForm

    for _ in range(5):  # pyslet draws a form of the test the way a delivery engine does: one item per slot
        form = list(TestForm(document.root))
        drawn = [c for c in form if c.startswith("I_")]
        assert [c.split("_")[1] for c in drawn] == [f"Q{n}" for n in range(1, len(slot_titles(made)) + 1)]
    first_section = document.root.TestPart[0].AssessmentSection[0]
    (rubric,) = first_section.RubricBlock           # pyslet reads the instructions as the candidate's rubric
    from pyslet.qtiv2.core import View

    assert list(rubric.view) == [View.candidate]
    test = ET.fromstring(archive.read(test_resource.get("href")))
    assert test.find("q:timeLimits", QTI).get("maxTime") == str(45 * 60)
    rubrics = test.findall("q:testPart/q:assessmentSection/q:rubricBlock", QTI)
    assert len(rubrics) == 1 and rubrics[0].findtext("q:p", namespaces=QTI) == "Answer every question. Calculators allowed."
    sections = test.findall("q:testPart/q:assessmentSection", QTI)
    assert [s.get("title") for s in sections] == slot_titles(made)
    for section, wanted in zip(sections, ids_by_slot(made)):
        assert NCNAME.match(section.get("identifier"))
        assert section.find("q:selection", QTI).get("select") == "1"
        hrefs = [ref.get("href") for ref in section.findall("q:assessmentItemRef", QTI)]
        assert {question_of[h] for h in hrefs} == wanted  # every student's variant is in its slot


def test_qti21_items_are_valid_and_score_each_printed_end(made):
    archive = zipfile.ZipFile(made / "qti21.zip")
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    ends = printed_ends(made)
    nat = 0
    for resource in manifest.findall("cp:resources/cp:resource[@type='imsqti_item_xmlv2p1']", CP):
        q = regenerate(resource.findtext(".//lom:entry", namespaces=CP))
        item = pyslet_item(archive.read(resource.get("href")))
        assert NCNAME.match(item.identifier) and q.id not in item.identifier
        full = (float(q.marks), float(q.marks))
        declaration = item.ResponseDeclaration[0]
        correct = declaration.get_correct_value()
        assert correct, f"{q.id}: no correctResponse"
        assert pyslet_score(item, correct.value) == full
        assert pyslet_score(item, None) == (0.0, float(q.marks))
        if q.kind == "NAT":
            nat += 1
            low, high = ends[q.id]
            assert pyslet_score(item, low) == full and pyslet_score(item, high) == full
            step = max(abs(Decimal(high)), Decimal(1)) * Decimal("1e-6")
            assert pyslet_score(item, str(Decimal(high) + step))[0] == 0
            assert pyslet_score(item, str(Decimal(low) - step))[0] == 0
        elif q.kind == "MCQ":
            wrong = next(f"choice_{'abcd'[i]}" for i, o in enumerate(q.options) if not o.correct)
            assert pyslet_score(item, wrong)[0] == pytest.approx(-q.marks / 3)
        else:  # MSQ: the right choices plus a wrong one score nothing
            wrong = next(i for i, o in enumerate(q.options) if not o.correct)
            assert pyslet_score(item, [f"choice_{'abcd'[i]}" for i in sorted(q.correct | {wrong})])[0] == 0
    assert nat >= 5


def test_qti21_items_carry_html_math_and_the_solution(made):
    archive = zipfile.ZipFile(made / "qti21.zip")
    names = sorted(n for n in archive.namelist() if n.startswith("items/"))
    bodies = "".join(archive.read(n).decode() for n in names)
    assert "*" not in re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", "", bodies, flags=re.S)  # no Markdown left
    assert r"\(" in bodies and "<strong>" in bodies
    for name in names:
        item = ET.fromstring(archive.read(name))
        check_qti_xhtml(item)
        feedback = item.find("q:modalFeedback", QTI)
        assert feedback is not None and "Answer:" in "".join(feedback.itertext())
        assert item.find("q:outcomeDeclaration[@identifier='MAXSCORE']", QTI) is not None


# --- Canvas QTI 1.2 ---------------------------------------------------------------------------

def test_canvas_is_one_quiz_with_a_group_per_slot(made):
    archive = zipfile.ZipFile(made / "canvas_qti12.zip")
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    hrefs = [f.get("href") for f in manifest.iter(f"{{{CP['cp']}}}file")]
    assert sorted(hrefs) == sorted(n for n in archive.namelist() if n != "imsmanifest.xml")
    (quiz_file,) = [h for h in hrefs if not h.endswith("assessment_meta.xml")]
    (meta_file,) = [h for h in hrefs if h.endswith("assessment_meta.xml")]
    meta = ET.fromstring(archive.read(meta_file))
    canvas = {"m": "http://canvas.instructure.com/xsd/cccv1p0"}
    assert meta.findtext("m:time_limit", namespaces=canvas) == "45"
    assert meta.findtext("m:title", namespaces=canvas) == "Transformers quiz 1"
    assert meta.findtext("m:description", namespaces=canvas) == "<p>Answer every question. Calculators allowed.</p>"
    root = ET.fromstring(archive.read(quiz_file))
    (assessment,) = root.findall("c:assessment", C12)
    groups = assessment.findall("c:section/c:section", C12)
    assert [g.get("title") for g in groups] == slot_titles(made)
    total = 0
    ends = printed_ends(made)
    for group, wanted in zip(groups, ids_by_slot(made)):
        items = group.findall("c:item", C12)
        assert len(items) == len(wanted)
        assert group.findtext("c:selection_ordering/c:selection/c:selection_number", namespaces=C12) == "1"
        points = group.findtext(".//c:points_per_item", namespaces=C12)
        total += int(points)
        texts = []
        for item in items:
            assert item.get("title") == group.get("title")
            fields = {f.findtext("c:fieldlabel", namespaces=C12): f.findtext("c:fieldentry", namespaces=C12)
                      for f in item.iter(f"{{{C12['c']}}}qtimetadatafield")}
            assert fields["points_possible"] == points
            mattexts = list(item.iter(f"{{{C12['c']}}}mattext"))
            assert mattexts and all(m.get("texttype") == "text/html" for m in mattexts)
            assert item.find("c:itemfeedback[@ident='general_fb']", C12) is not None
            texts.append(mattexts[0].text)
            if fields["question_type"] == "numerical_question":
                assert item.find(".//c:response_str/c:render_fib", C12) is not None
                low = item.findtext(".//c:vargte", namespaces=C12)
                high = item.findtext(".//c:varlte", namespaces=C12)
                assert (low, high) in {ends[q] for q in wanted}
        # each student's question text is one of the group's items
        assert {to_question_text(q) for q in wanted} <= set(texts)
    assert meta.findtext("m:points_possible", namespaces=canvas) == str(total)


def to_question_text(question_id: str) -> str:
    from quizforge.problemsets.lmstext import question_html

    return question_html(regenerate(question_id))


# --- what students see ------------------------------------------------------------------------

def test_no_question_id_where_a_student_can_see_it(made):
    ids = all_question_ids(made)
    seen: list[str] = []
    moodle = ET.parse(made / "moodle.xml").getroot()
    for item in moodle:
        if item.get("type") != "category":
            seen += [item.findtext("name/text"), item.findtext("questiontext/text"),
                     item.findtext("generalfeedback/text")] + [a.findtext("text") for a in item.findall("answer")]
    for g in read_gift((made / "quiz.gift").read_text("utf-8")):
        seen += [g["category"], g["name"], g["text"][1], g["feedback"][1]]
    qti = zipfile.ZipFile(made / "qti21.zip")
    seen += [qti.read(n).decode() for n in qti.namelist() if n != "imsmanifest.xml"]
    canvas = zipfile.ZipFile(made / "canvas_qti12.zip")
    seen += [canvas.read(n).decode() for n in canvas.namelist()]
    visible = "\n".join(seen)
    assert not [qid for qid in ids if qid in visible]
    # ...and the instructor still has them
    assert {i.findtext("idnumber") for i in moodle if i.get("type") != "category"} == ids
    assert ids <= set(re.findall(r"question ID (\S+)", (made / "quiz.gift").read_text("utf-8")))


def test_the_report_says_how_to_set_up_each_lms(made):
    report = (made / "lms_report.md").read_text("utf-8")
    for words in ("random question", "question group per slot", "one section per slot", "45 minutes",
                  "partial credit", "no negative marks"):
        assert words in report
    marks = [regenerate(q).marks for q in record(made)["students"][0]["questions"]]
    assert ", ".join(f"Q{n} {m}" for n, m in enumerate(marks, 1)) in report


def test_the_report_gives_moodle_the_instructions_to_paste(made):
    report = (made / "lms_report.md").read_text("utf-8")
    assert 'Description: paste the set\'s instructions, "Answer every question. Calculators allowed."' in report


@pytest.mark.parametrize("name", ["qti21.zip", "canvas_qti12.zip"])
def test_lms_zips_are_compressed_with_ordinary_file_modes(made, name, tmp_path):
    import shutil
    import stat
    import subprocess

    archive = zipfile.ZipFile(made / name)
    infos = archive.infolist()
    assert infos and all(i.compress_type == zipfile.ZIP_DEFLATED for i in infos)
    assert sum(i.compress_size for i in infos) < sum(i.file_size for i in infos) / 2   # XML shrinks well
    assert all(stat.S_IMODE(i.external_attr >> 16) == 0o644 and stat.S_ISREG(i.external_attr >> 16) for i in infos)
    if shutil.which("unzip"):   # what an instructor's unzip makes of it
        subprocess.run(["unzip", "-q", str(made / name), "-d", str(tmp_path / "x")], check=True)
        modes = {stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "x").rglob("*") if p.is_file()}
        assert modes <= {0o644, 0o644 & ~_umask()} and modes


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_every_template_exports_to_every_format(tmp_path):
    """The whole bank, two variants each: well-formed Moodle XML, GIFT that reads back the same,
    QTI 2.1 items pyslet accepts and scores full for their correct response, Canvas HTML."""
    from quizforge.bank.registry import all_templates

    ids = [t.id for t in all_templates()]   # named, so fixed-fact ones too (a topic skips them)
    spec = tmp_path / "bank.toml"
    spec.write_text(f'title = "Whole bank"\nseed = 7\n\n[[sections]]\nname = "All"\n'
                    f'templates = {json.dumps(ids)}\ncount = {len(ids)}\n', "utf-8")
    out = tmp_path / "bank"
    make_set(spec, out, variants=2, pdf=False)
    root = ET.parse(out / "moodle.xml").getroot()
    for item in root:
        check_moodle_question(item)
    xml = [q for q in root if q.get("type") != "category"]
    gift = read_gift((out / "quiz.gift").read_text("utf-8"))
    assert [(g["text"][1], g["feedback"][1]) for g in gift] == [   # matrix answers (cloze) are not in GIFT
        (i.findtext("questiontext/text"), i.findtext("generalfeedback/text")) for i in xml if i.get("type") != "cloze"]
    assert sum(i.get("type") == "cloze" for i in xml) >= 6
    archive = zipfile.ZipFile(out / "qti21.zip")
    items = [n for n in archive.namelist() if n.startswith("items/")]
    assert len(items) == len(xml)
    for name in items:
        check_qti_xhtml(ET.fromstring(archive.read(name)))
        item = pyslet_item(archive.read(name))
        score, most = pyslet_score(item, correct_responses(item))
        assert score == most > 0, name
    html = "".join(i.findtext("questiontext/text") + i.findtext("generalfeedback/text") for i in xml)
    assert "**" not in html and "$" not in re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", "", html, flags=re.S)
