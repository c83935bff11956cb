"""Keys and grading of instructor problem sets (issue 21, items 14 to 19 and overrides)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from decimal import Context, Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from quizforge.bank import registry
from quizforge.bank.registry import question as regenerate
from quizforge.answers.check import check_answer
from quizforge.answers.question_keys import numeric_key

# Matrix answers have a range per entry: tests/test_matrix_questions.py checks those ends.
NAT_TEMPLATES = [t for t in registry.all_templates() if t.kind == "NAT" and not t.question(0).is_matrix]


def _decimal_text(x: Fraction) -> str:
    """x in e-notation to 200 significant digits (exact for the decimals these tests make)."""
    return format(Context(prec=200).divide(Decimal(x.numerator), Decimal(x.denominator)), "e")


def _just_outside(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    nudge = (high - low) / 10**6 if high > low else max(abs(low), Fraction(1)) / 10**9
    return low - nudge, high + nudge


@pytest.mark.parametrize("template", NAT_TEMPLATES, ids=[t.id for t in NAT_TEMPLATES])
def test_the_printed_range_ends_are_exactly_what_is_accepted(template):
    for seed in range(50):
        q = template.question(seed)
        key = numeric_key(q)
        printed = key.range_text()
        ends = printed.split(" to ") if " to " in printed else [printed, printed]
        for end in ends:
            assert check_answer(q, end).correct, (q.id, printed, end)
        low, high = (key.parse(end) for end in ends)
        below, above = _just_outside(Fraction(low), Fraction(high))
        for outside in (below, above):
            text = _decimal_text(outside)
            assert not check_answer(q, text).correct, (q.id, printed, text)


def test_a_one_percent_range_around_a_float_key_is_read_as_its_decimals():
    q = registry.question("flops.training-a477")
    assert numeric_key(q).range_text() == "1.0395e24 to 1.0605e24"
    assert check_answer(q, "1.0395e24").correct and check_answer(q, "1.0605e24").correct
    assert not check_answer(q, "1.03949e24").correct and not check_answer(q, "1.06051e24").correct


REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "quiz1.toml"
ROSTER = REPO / "examples" / "roster.csv"


def _spec(tmp_path: Path, templates: list[str], extra: str = "") -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(f'title = "t"\nseed = 7\n{extra}\n[[sections]]\ntemplates = {json.dumps(templates)}\n'
                    f"count = {len(templates)}\n", encoding="utf-8")
    return path


def test_keys_csv_keeps_negative_numbers_numeric_and_guards_only_formulas(run_quiz, tmp_path):
    spec = _spec(tmp_path, ["attention.score", "softmax.masked_positions"])
    code, _, err = run_quiz("set", "make", str(spec), "--variants", "8", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    text = (tmp_path / "s" / "keys.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    nat = [r for r in rows if r["kind"] == "NAT"]
    negative = [r for r in nat if r["key"].startswith("-")]
    assert negative, "the seeds should give at least one negative score"
    for r in nat:
        float(r["key"]), float(r["low"]), float(r["high"])         # numbers, not text
        q = regenerate(r["question_id"])
        assert check_answer(q, r["low"]).correct and check_answer(q, r["high"]).correct
        assert f"{r['low']} to {r['high']}" == r["accepted"].removeprefix("'").replace(",", "")
    for r in negative:   # written bare: a spreadsheet reads a number
        assert f",NAT,{r['key']},'{r['low']} to {r['high']},{r['low']},{r['high']}," in text
    from quizforge.problemsets.keys import spreadsheet_cell

    assert spreadsheet_cell("-0.58") == "-0.58" and spreadsheet_cell("-1,234.5") == '"-1,234.5"'
    assert spreadsheet_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and spreadsheet_cell("-0.5 to -0.4") == "'-0.5 to -0.4"
    assert spreadsheet_cell("@SUM(A1)") == "'@SUM(A1)" and spreadsheet_cell(-0.5) == "-0.5"


# ---------------------------------------------------------------- quiz set grade

@pytest.fixture(scope="module")
def made(tmp_path_factory):
    from quizforge.problemsets.make import make_set

    out = tmp_path_factory.mktemp("set") / "quiz1"
    make_set(EXAMPLE, out, roster=ROSTER, pdf=False)
    return out


def _papers(folder: Path) -> dict[str, list]:
    record = json.loads((folder / "set.json").read_text(encoding="utf-8"))
    return {s["id"]: [regenerate(q) for q in s["questions"]] for s in record["students"]}


def _right(q) -> str:
    from quizforge.answers import format_number

    return format_number(q.answer, q.decimals) if q.kind == "NAT" else q.correct_letters


def _wrong_letter(q) -> str:
    return next(letter for i, letter in enumerate("abcd") if i not in q.correct)


def _grade(run_quiz, made, tmp_path, rows, *extra, raw: bytes | None = None):
    path = tmp_path / "responses.csv"
    if raw is None:
        buffer = io.StringIO()
        csv.writer(buffer).writerows([("student", "question", "answer"), *rows])
        raw = buffer.getvalue().encode("utf-8")
    path.write_bytes(raw)
    out = tmp_path / "graded"
    # return sheets (PDF) are read back in test_problemset_pdfs.py
    code, stdout, err = run_quiz("set", "grade", str(made), str(path), "-o", str(out), "--no-pdf", *extra)
    return code, stdout, err, out


def _book(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(encoding="utf-8"))}


def _rejects(out: Path) -> list[dict]:
    return list(csv.DictReader((out / "rejects.csv").open(encoding="utf-8")))


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "cp1252"])
def test_what_spreadsheets_write_is_read(run_quiz, made, tmp_path, delimiter, encoding):
    papers = _papers(made)
    rows = [("Name", "student", "question", "answer")]
    # Roll numbers as typed by hand: other case, stray spaces; a name only cp1252 or Unicode can hold.
    rows += [("José Müller", " 21cs001 ", n, _right(q)) for n, q in enumerate(papers["21CS001"], 1)]
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    code, _, err, out = _grade(run_quiz, made, tmp_path, [], raw=buffer.getvalue().encode(encoding))
    assert code == 0, err
    book = _book(out)
    assert float(book["21CS001"]["total"]) == float(book["21CS001"]["max"]) == sum(q.marks for q in papers["21CS001"])
    assert _rejects(out) == []


def test_an_excel_separator_line_and_q_numbers_are_read(run_quiz, made, tmp_path):
    papers = _papers(made)
    lines = ["sep=;", "Student;Question;Answer"] + [f"21CS003;Q{n};{_right(q)}" for n, q in enumerate(papers["21CS003"], 1)]
    code, _, err, out = _grade(run_quiz, made, tmp_path, [], raw="\r\n".join(lines).encode("cp1252"))
    assert code == 0, err
    assert float(_book(out)["21CS003"]["total"]) == sum(q.marks for q in papers["21CS003"]) and _rejects(out) == []


def test_a_zero_tolerance_key_prints_and_accepts_its_exact_value():
    from quizforge.answers import in_range, within_abs

    third = within_abs(Fraction(1, 3), 0)
    assert third.range_text() == "1/3" and third.accepts(third.parse("1/3")) and not third.accepts(Fraction(333, 1000))
    wide = in_range(Fraction(1, 3), Fraction(2, 3))          # no short decimal: rounded outward, never inward
    assert wide.range_text() == "0.333 to 0.667" and wide.accepts(Fraction(1, 3)) and wide.accepts(Fraction(2, 3))


def test_a_blank_is_not_answered_and_a_double_sign_is_refused(run_quiz, made, tmp_path):
    papers = _papers(made)
    nat = [n for n, q in enumerate(papers["21CS002"], 1) if q.kind == "NAT"]
    rows = [("21CS002", nat[0], ""), ("21CS002", nat[1], "--" + _right(papers["21CS002"][nat[1] - 1])),
            ("21CS002", nat[0], _right(papers["21CS002"][nat[0] - 1]))]   # a blank then an answer: it counts
    code, stdout, err, out = _grade(run_quiz, made, tmp_path, rows)
    assert code == 0, err
    (reject,) = _rejects(out)
    assert reject["student"] == "21CS002" and "two signs in a row" in reject["reason"]
    book = _book(out)
    assert float(book["21CS002"][f"Q{nat[0]}"]) == papers["21CS002"][nat[0] - 1].marks
    assert float(book["21CS002"][f"Q{nat[1]}"]) == 0
    feedback = (out / "feedback" / "21CS002.md").read_text(encoding="utf-8")
    received = "--" + _right(papers["21CS002"][nat[1] - 1])
    assert (f"**Q{nat[1]}** (`{papers['21CS002'][nat[1] - 1].id}`): received {received!r}, not graded: "
            in feedback and "two signs in a row" in feedback.split(f"**Q{nat[1]}**")[1].split("\n")[0])
    assert stdout.startswith("1 answer of 3 students graded, 1 rejected")


@pytest.mark.parametrize("raw, message", [
    (b"roll;answer\n21CS001;a\n", "must name the columns student, question and answer (found 'roll', 'answer')"),
    (b"\xff\xfe" + "student,question,answer\n".encode("utf-16-le")[:-1], "starts like UTF-16 but is not valid"),
    (b"", "is empty"),
])
def test_an_unreadable_responses_file_is_one_line(run_quiz, made, tmp_path, raw, message):
    code, _, err, out = _grade(run_quiz, made, tmp_path, [], raw=raw)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_options_are_counted_by_what_they_say_and_facility_per_variant(run_quiz, made, tmp_path):
    papers = _papers(made)
    mcq = next(n for n, q in enumerate(papers["21CS001"], 1) if q.kind == "MCQ")
    letters = {sid: qs[mcq - 1].correct_letters for sid, qs in papers.items()}
    assert len(set(letters.values())) > 1, "the example's option orders differ between papers"
    rows = [(sid, mcq, letters[sid]) for sid in papers]
    rows.append(("21CS001", mcq + 1 if mcq + 1 <= len(papers["21CS001"]) else 1, ""))
    code, _, err, out = _grade(run_quiz, made, tmp_path, rows)
    assert code == 0, err
    item = json.loads((out / "item_stats.json").read_text(encoding="utf-8"))[mcq - 1]
    assert sum(item["choices"].values()) == 3 and all(k.startswith("✓ ") for k in item["choices"])
    assert item["facility"] == 1.0
    assert [v["question_id"] for v in item["variants"]] == sorted(qs[mcq - 1].id for qs in papers.values())
    assert all(v["facility"] == 1.0 and v["students"] == 1 for v in item["variants"])
    assert "## Facility per variant" in (out / "item_stats.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- overrides

def _overrides(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "overrides.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_overrides_drop_award_and_accept_and_a_regrade_without_them_undoes_them(run_quiz, made, tmp_path):
    papers = _papers(made)
    first = papers["21CS001"]
    mistaken = next(n for n, q in enumerate(first, 1)
                    if q.kind == "NAT" and any(m.value is not None for m in q.misconceptions))
    mistake = next(m for m in first[mistaken - 1].misconceptions if m.value is not None)
    mcq = next(n for n, q in enumerate(papers["21CS002"], 1) if q.kind == "MCQ")
    wrong = _wrong_letter(papers["21CS002"][mcq - 1])
    drop, award = [n for n in range(1, len(first) + 1) if n not in (mistaken, mcq)][:2]
    from quizforge.answers import format_number

    rows = [("21CS001", mistaken, format_number(mistake.value)), ("21CS002", mcq, wrong),
            ("21CS001", drop, _right(first[drop - 1]))]
    overrides = _overrides(tmp_path, f"""
[[overrides]]
question = {drop}
action = "drop"
reason = "ambiguous wording"

[[overrides]]
question = {award}
action = "award"

[[overrides]]
question = {mistaken}
action = "accept"
mistake = "{mistake.label}"

[[overrides]]
question = {mcq}
action = "accept"
student = "21cs002"
answer = "{wrong}"
""")
    code, stdout, err, out = _grade(run_quiz, made, tmp_path, rows, "--overrides", str(overrides))
    assert code == 0, err
    assert "4 overrides applied" in stdout
    book = _book(out)
    total_marks = sum(q.marks for q in first)
    assert float(book["21CS001"]["max"]) == total_marks - first[drop - 1].marks     # dropped: max falls
    assert float(book["21CS001"][f"Q{drop}"]) == 0                                   # even though it was right
    assert float(book["21CS003"][f"Q{award}"]) == papers["21CS003"][award - 1].marks  # unanswered, awarded
    assert float(book["21CS001"][f"Q{mistaken}"]) == first[mistaken - 1].marks       # the mistake accepted
    assert float(book["21CS002"][f"Q{mcq}"]) == papers["21CS002"][mcq - 1].marks     # the one answer accepted
    assert float(book["21CS001"]["total"]) == first[award - 1].marks + first[mistaken - 1].marks
    report = (out / "item_stats.md").read_text(encoding="utf-8")
    assert f"- Q{drop}: dropped for everyone (ambiguous wording): 3 students changed" in report
    assert f"- Q{award}: marks given for everyone: 3 students changed" in report
    assert f"- Q{mistaken}: also accepted: the mistake '{mistake.label}' for everyone: 1 student changed" in report
    assert f"- Q{mcq}: also accepted: '{wrong}' for 21CS002: 1 student changed" in report
    stats = json.loads((out / "item_stats.json").read_text(encoding="utf-8"))
    assert stats[mistaken - 1]["facility"] == 0 and stats[mistaken - 1]["overrides"]   # stats: answers as given
    feedback = (out / "feedback" / "21CS001.md").read_text(encoding="utf-8")
    earned, most = first[award - 1].marks + first[mistaken - 1].marks, total_marks - first[drop - 1].marks
    assert f"**Total:** {earned:g} of {most}" in feedback and "Accepted by the instructor." in feedback

    code, _, err, out = _grade(run_quiz, made, tmp_path, rows)                   # a regrade without them
    book = _book(out)
    assert float(book["21CS001"]["max"]) == total_marks and float(book["21CS001"][f"Q{mistaken}"]) == 0
    assert "Overrides applied" not in (out / "item_stats.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, message", [
    ('[[overrides]]\nquestion = 1\naction = "drop"\nwhy = "x"\n', "override 1: unknown field 'why'"),
    ('[[overrides]]\nquestion = 99\naction = "drop"\n', "override 1: question must be a question number from 1 to 7"),
    ('[[overrides]]\nquestion = 1\naction = "bonus"\n', "action must be one of accept, drop, award, grade, not 'bonus'"),
    ('[[overrides]]\nquestion = 1\naction = "accept"\nanswer = "0.5"\n', "name the student it is for"),
    ('[[overrides]]\nquestion = 1\naction = "accept"\n', "'accept' needs either answer (with student) or mistake"),
    ('[[overrides]]\nquestion = 1\naction = "accept"\nmistake = "typo"\n', "question 1 names no mistake 'typo'"),
    ('[[overrides]]\nquestion = 1\naction = "accept"\nstudent = "21CS001"\nanswer = "--1"\n',
     "cannot read answer '--1' (two signs in a row"),
    ('[[overrides]]\nquestion = 1\naction = "drop"\nstudent = "nobody"\n', "unknown student 'nobody'"),
    ('[[overrides]]\nquestion = 1\naction = "drop"\nmistake = "x"\n', "'drop' takes no answer or mistake"),
    ('[[overrides]]\nquestion = 2\naction = "drop"\n[[overrides]]\nquestion = 2\naction = "award"\n'
     'student = "21CS003"\n', "question 2 is dropped or awarded twice"),
    ('overrides = 3\n', "overrides must be [[overrides]] tables"),
    ('[overrides\n', "not valid TOML"),
])
def test_a_bad_overrides_file_is_one_line_and_grades_nothing(run_quiz, made, tmp_path, text, message):
    code, _, err, out = _grade(run_quiz, made, tmp_path, [("21CS001", 1, "0.5")],
                               "--overrides", str(_overrides(tmp_path, text)))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


# ---------------------------------------------------------------- variety

def test_the_example_class_differs_in_every_wide_slot(made):
    """Variety comes from the templates' width, not from coordinating students: a slot whose template
    has hundreds of texts gives each of the three students their own."""
    from quizforge.problemsets.variants import question_text_key

    papers = _papers(made)
    wide = 0
    for n in range(len(papers["21CS001"])):
        template = registry.get_template(papers["21CS001"][n].template)
        if len({question_text_key(template.question(seed)) for seed in range(0, 65536, 331)}) < 100:
            continue
        wide += 1
        texts = {question_text_key(qs[n]) for qs in papers.values()}
        assert len(texts) == 3, f"Q{n + 1} repeats a text across three students"
    assert wide >= 3
    for qs in papers.values():            # every ID still regenerates its question
        assert all(regenerate(q.id) == q for q in qs)


def test_set_make_says_how_many_texts_each_slot_has_and_warns_when_shared(run_quiz, tmp_path):
    spec = _spec(tmp_path, ["params.gpt3_layer", "attention.output"])
    code, out, err = run_quiz("set", "make", str(spec), "--variants", "12", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    from quizforge.problemsets.variants import question_text_key

    papers = _papers(tmp_path / "s")
    shares = [Counter(question_text_key(qs[n]) for qs in papers.values()) for n in range(2)]
    assert len(shares[0]) <= 6 and len(shares[1]) == 12    # GPT-3 has six layer sizes; the other is wide
    assert f"Different questions per slot (of 12 papers): Q1 {len(shares[0])} · Q2 12" in out
    assert err.strip().splitlines() == [
        "warning: Q1 (params.gpt3_layer) is a fixed-fact template, unsuitable for per-student variants: "
        "6 published widths: 6 questions (params.gpt3_shaped_layer draws its own width)",
        f"warning: Q1 (params.gpt3_layer) has {len(shares[0])} different texts for 12 papers; up to "
        f"{max(shares[0].values())} students share one, so neighbours can compare answers"]


def test_set_make_warns_of_no_fixed_fact_template_where_the_slot_can_vary(run_quiz, tmp_path):
    spec = _spec(tmp_path, ["params.gpt3_shaped_layer", "params.ffn_wide"])
    code, out, err = run_quiz("set", "make", str(spec), "--variants", "12", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0 and "fixed-fact" not in err, err


# ---------------------------------------------------------------- the README's example

def test_the_readme_instructor_commands_run_as_written(run_quiz, tmp_path, monkeypatch):
    import shlex
    import shutil

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Problem sets for a class"):]
    block = section[section.index("```bash") + len("```bash"):section.index("```", section.index("```bash") + 7)]
    commands = [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("quiz set")]
    assert [c[:3] for c in commands] == [["quiz", "set", "make"], ["quiz", "set", "grade"], ["quiz", "set", "keys"]]
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    said = []
    for command in commands:
        code, out, err = run_quiz(*command[1:])
        assert code == 0, (command, err)
        said.append(out)
    assert said[1].startswith("19 answers of 3 students graded, 1 rejected")   # 21 rows: a blank, a reject
    assert said[2] == "2 answer keys as PDF in quiz1/keys\n"
    assert sorted(p.name for p in (tmp_path / "quiz1" / "keys").glob("*.pdf")) == ["21CS001.pdf", "21CS003.pdf"]
    assert sorted(p.name for p in (tmp_path / "quiz1" / "graded" / "returns").iterdir()) == [
        "21CS001.pdf", "21CS002.pdf", "21CS003.pdf"]
    book = _book(tmp_path / "quiz1" / "graded")
    assert float(book["21CS001"]["total"]) == float(book["21CS001"]["max"]) == 10   # 21CS001 got all right
    (reject,) = _rejects(tmp_path / "quiz1" / "graded")
    assert "511.97M" in reject["reason"] and "significant figures" in reject["reason"]


def test_facility_per_variant_groups_the_papers_that_read_the_same(run_quiz, tmp_path):
    spec = _spec(tmp_path, ["params.gpt3_layer"])
    code, _, err = run_quiz("set", "make", str(spec), "--variants", "12", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    papers = _papers(tmp_path / "s")
    rows = [(sid, 1, _right(qs[0])) for sid, qs in list(papers.items())[:3]]
    code, _, err, out = _grade(run_quiz, tmp_path / "s", tmp_path, rows)
    assert code == 0, err
    (item,) = json.loads((out / "item_stats.json").read_text(encoding="utf-8"))
    from quizforge.problemsets.variants import question_text_key

    texts = Counter(question_text_key(qs[0]) for qs in papers.values())   # six layer sizes at most
    assert 1 < len(texts) <= 6 and max(texts.values()) > 1
    assert len(item["variants"]) == len(texts) and sum(v["students"] for v in item["variants"]) == 12
    assert sorted(v["students"] for v in item["variants"]) == sorted(texts.values())
    assert sum(v["facility"] * v["students"] for v in item["variants"]) == pytest.approx(3, abs=1e-3)


def test_grading_share_by_share_writes_what_grading_the_class_at_once_writes(made, tmp_path, monkeypatch):
    """Overrides for everyone and for one student, and the statistics, gather over every share."""
    from quizforge.problemsets import responses, typeset
    from quizforge.problemsets.responses import grade_responses

    example = EXAMPLE.parent
    assert len(typeset.Typesetting.shares(list(_papers(made)), responses.RETURN_SHARES)) == 3   # one student each
    grade_responses(made, example / "responses.csv", tmp_path / "shares", example / "overrides.toml",
                    return_sheets=False)
    monkeypatch.setattr(typeset.Typesetting, "shares", staticmethod(lambda students, count: [students]))
    grade_responses(made, example / "responses.csv", tmp_path / "whole", example / "overrides.toml",
                    return_sheets=False)
    files = sorted(p.relative_to(tmp_path / "whole") for p in (tmp_path / "whole").rglob("*") if p.is_file())
    assert len(files) == 3 + 4 and all((tmp_path / "shares" / f).read_bytes() == (tmp_path / "whole" / f).read_bytes()
                                       for f in files)
    stats = {i["question"]: i["overrides"] for i in json.loads((tmp_path / "shares" / "item_stats.json").read_text())}
    assert stats[3] == ["dropped for everyone (the masking statements could be read two ways): 3 students changed"]
    assert stats[7] == ["graded '511967232' for 21CS003 (the paper says 511,967,232; the spreadsheet cut it to "
                        "511.97M): 1 student changed"]


def test_a_shares_return_sheets_are_queued_before_the_next_share_is_graded(made, tmp_path, monkeypatch):
    from quizforge.problemsets import responses, typeset

    graded, queued = [], []
    mark = responses.mark_written
    monkeypatch.setattr(responses, "mark_written", lambda q, text: graded.append(q.id) or mark(q, text))
    monkeypatch.setattr(typeset.Typesetting, "add",
                        lambda self, name, papers, folder, source: queued.append((len(graded), len(papers))))
    monkeypatch.setattr(typeset.Typesetting, "wait", lambda self, progress=None: self.close())
    rows = [(sid, n, "1") for sid in ("21CS001", "21CS002", "21CS003") for n in (1, 2)]
    path = tmp_path / "responses.csv"
    path.write_text("student,question,answer\n" + "".join(f"{s},{n},{a}\n" for s, n, a in rows), "utf-8")
    responses.grade_responses(made, path, tmp_path / "graded")
    assert queued == [(2, 1), (4, 1), (6, 1)] and len(graded) == 6


def test_the_example_overrides_regrade_the_example(run_quiz, made, tmp_path):
    rows = list(csv.reader((REPO / "examples" / "responses.csv").open(encoding="utf-8")))[1:]
    code, stdout, err, out = _grade(run_quiz, made, tmp_path, rows, "--overrides",
                                    str(REPO / "examples" / "overrides.toml"))
    assert code == 0, err
    assert "3 overrides applied" in stdout
    book = _book(out)
    assert float(book["21CS003"]["Q7"]) == 2   # rejected as received, graded as the override reads it
    assert {sid: float(r["max"]) for sid, r in book.items()} == {"21CS001": 9, "21CS002": 9, "21CS003": 9}
    assert float(book["21CS002"]["Q5"]) == 1 and float(book["21CS002"]["Q3"]) == 0     # accepted; dropped
    report = (out / "item_stats.md").read_text(encoding="utf-8")
    assert "- Q3: dropped for everyone (the masking statements could be read two ways): 3 students changed" in report
    assert "- Q5: also accepted: '4915200' for 21CS002" in report
    assert "- Q7: graded '511967232' for 21CS003 (the paper says 511,967,232; the spreadsheet cut it to 511.97M): " \
           "1 student changed" in report
    feedback = (out / "feedback" / "21CS003.md").read_text(encoding="utf-8")
    assert "received '511.97M', not graded: '511.97M' gives only 5 significant figures" in feedback


@pytest.mark.parametrize("end", ["low", "high"])
def test_every_printed_range_end_in_keys_csv_scores_through_set_grade(run_quiz, made, tmp_path, end):
    keys = list(csv.DictReader((made / "keys.csv").open(encoding="utf-8")))
    rows = [(k["student"], k["question"], k[end] if k["kind"] == "NAT" else k["accepted"]) for k in keys]
    code, _, err, out = _grade(run_quiz, made, tmp_path, rows)
    assert code == 0, err
    assert all(float(r["total"]) == float(r["max"]) for r in _book(out).values()) and _rejects(out) == []


def _e_notation(q) -> str:
    """The key of a NAT question written in e-notation with every digit, e.g. 1,050,624 → 1.050624e6."""
    from decimal import Decimal

    digits = Decimal(_right(q).replace(",", "")).normalize()
    mantissa, exponent = f"{digits:e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def test_feedback_prints_marks_to_2_decimals_and_echoes_answers_as_typed(run_quiz, made, tmp_path):
    papers = _papers(made)
    paper = papers["21CS001"]
    nat = next(n for n, q in enumerate(paper, 1) if q.kind == "NAT")
    mcq = next(n for n, q in enumerate(paper, 1) if q.kind == "MCQ")
    typed = _e_notation(paper[nat - 1])
    rows = [("21CS001", nat, f"  {typed} "), ("21CS001", mcq, _wrong_letter(paper[mcq - 1]))]
    code, _, err, out = _grade(run_quiz, made, tmp_path, rows)
    assert code == 0, err
    feedback = (out / "feedback" / "21CS001.md").read_text(encoding="utf-8")
    penalty = {1: "-0.33", 2: "-0.67"}[paper[mcq - 1].marks]
    assert f"**Q{nat}** (`{paper[nat - 1].id}`): {typed} · +{paper[nat - 1].marks} · Correct." in feedback
    assert f"**Q{mcq}** (`{paper[mcq - 1].id}`): {_wrong_letter(paper[mcq - 1])} · {penalty} · " in feedback
    earned = {(1, 1): "0.67", (2, 1): "1.67", (1, 2): "0.33", (2, 2): "1.33"}[
        (paper[nat - 1].marks, paper[mcq - 1].marks)]
    assert f"**Total:** {earned} of {sum(q.marks for q in paper)}\n" in feedback
