"""Papers and keys as PDF, through typst (the `typst` package from PyPI: no TeX installation).

The bank writes Markdown with TeX math, which `quizforge.text.typst` turns into typst markup
and math; this module lays out papers and keys, and draws a matrix of attention weights (the
rule in `quizforge.text.matrix`) as a heatmap. A page is laid out as a printed exam is: each question in one block that is never
split across pages, a bubble per option (circles for MCQ, squares for MSQ) and a box per
number, the name, roll number and "page n of N" on every page, nothing numbered, a chain of
equalities set a step per line and any formula wider than the text scaled to fit. A paper is
padded to an even number of pages for double-sided printing; a key's or return sheet's entry
stays on one page unless it is longer than one; sections follow on without a page break. Names in
Devanagari, Tamil and Telugu are set in the Noto fonts the fontpkg packages bundle. Should typst
refuse a document, it is set again with all its math as plain text rather than not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from quizforge.bank.question import Step
from quizforge.bank.steps import plural
from quizforge.problemsets.forked import POLL_SECONDS
from quizforge.text.terminal import markdown_to_terminal
from quizforge.text.tex import Untranslatable
from quizforge.text.typst import escape, markdown_to_typst, matrix_math, string, typst_matrix


def answer_grid(question) -> str:
    """A matrix answer's boxes on the paper: one box per entry, in the matrix's shape."""
    from quizforge.answers.matrix_questions import shape_of

    rows, cols = shape_of(question.answer)
    cells = ", ".join(["[]"] * (rows * cols))
    return (f"*Answer:* #box(baseline: 50%, table(columns: (1.6cm,) * {cols}, rows: 18pt, "
            f"stroke: 0.6pt, {cells}))")


def key_matrix(question) -> str:
    """A matrix answer's key, set as a bracketed matrix (−∞ for an additive mask's -inf)."""
    from quizforge.answers.matrix_questions import entry_text

    rows = [["−∞" if x == float("-inf") else entry_text(x, question.decimals) for x in row]
            for row in question.answer]
    return matrix_math(Step("Answer", matrix=tuple(tuple(row) for row in rows)))


# Scripts the bundled fonts set (Libertinus Serif: Latin, Greek, Cyrillic; Noto Sans: the rest).
SCRIPTS = ("LATIN", "GREEK", "CYRILLIC", "DEVANAGARI", "TAMIL", "TELUGU")
TEXT_FONTS = '("Libertinus Serif", "Noto Sans Devanagari", "Noto Sans Tamil", "Noto Sans Telugu")'

PREAMBLE = (
    '#set document(date: none)\n'
    '#set page(paper: "a4", margin: (x: 18mm, top: 22mm, bottom: 20mm))\n'
    f'#set text(size: 10pt, font: {TEXT_FONTS})\n'   # ragged right: justifying costs typst a sixth of its time
    '#set heading(numbering: none)\n'
    # a display formula wider than the text is scaled down to fit it
    '#let fit(body) = layout(size => { let w = measure(body).width\n'
    '  if w > size.width { scale(size.width / w * 100%, reflow: true, body) } else { body } })\n'
    # answer marks as on an OMR sheet: a circle for one answer, a square for several
    '#let bubble-mcq = box(baseline: 1.5pt, circle(radius: 4.5pt, stroke: 0.6pt))\n'
    '#let bubble-mcq-filled = box(baseline: 1.5pt, circle(radius: 4.5pt, stroke: 0.6pt, fill: black))\n'
    '#let bubble-msq = box(baseline: 1.5pt, rect(width: 9pt, height: 9pt, stroke: 0.6pt))\n'
    '#let bubble-msq-filled = box(baseline: 1.5pt, rect(width: 9pt, height: 9pt, stroke: 0.6pt, fill: black))\n'
    '#let answer-box = [*Answer:* #box(baseline: 4pt, rect(width: 6cm, height: 16pt, stroke: 0.6pt))]\n'
)


def printable(name: str) -> bool:
    """Whether the bundled fonts set every letter of NAME."""
    import unicodedata

    return all(not unicodedata.category(ch).startswith(("L", "M")) or unicodedata.name(ch, "").startswith(SCRIPTS)
               for ch in name)


def name_markup(name: str) -> str:
    """A student's name as typst markup; a name in a script no bundled font sets is left for the
    student to write, as a blank line, rather than printed as empty boxes."""
    if name and printable(name):
        return escape(name)
    return "#box(width: 6cm, repeat[.])" + ("" if not name else " _(write your name)_")


def _option_lines(question, md, with_answer: bool) -> list[str]:
    from quizforge.bank.question import LETTERS

    kind = question.kind.lower()
    return [_marked_line(f"bubble-{kind}" + ("-filled" if with_answer and option.correct else ""), LETTERS[i],
                         md(option.md)) for i, option in enumerate(question.options)]


STEP_INDENT = "1.6em"   # a solution step's number, and where its later lines start
MARK_COLUMN, LETTER_COLUMN = "2.4em", "1.6em"   # an option's bubble, then its letter
OPTION_SPACING = "0.75em"   # options (and reasons) sit closer together than paragraphs, as in a list


def _marked_line(mark: str, letter: str, text: str) -> str:
    """An option (or a reason) as one paragraph: its mark and its letter in columns of their
    own, its later lines hanging under its text (a typst grid or list costs far more)."""
    return (f"#par(spacing: {OPTION_SPACING}, hanging-indent: {MARK_COLUMN} + {LETTER_COLUMN})"
            f"[#box(width: {MARK_COLUMN}, align(center, {mark}))#box(width: {LETTER_COLUMN})[({letter})]{text}]")


@dataclass(frozen=True)
class Returned:
    """What a student wrote for one question and what it earned, for their return sheet."""
    answer: str          # as read ('' when not answered)
    marks: str           # as GATE prints them: +2, -0.33, 0
    feedback: str        # why, in words (a mistake named, or why it was not graded)


def question_typst(question, number: int, with_answer: bool, plain_math: bool,
                   returned: Returned | None = None, heading: str = "") -> str:
    """A question as it stands on the paper, in one block that is never split across pages, with
    a bubble for each option or a box for the number; with_answer gives its entry in the answer
    key instead: the same question (its ID in the heading, the right bubbles filled), its key,
    the worked solution and why each option is right or wrong, as in the Markdown key."""
    from quizforge.bank.export import accepted_text
    from quizforge.bank.question import LETTERS

    md = lambda text: markdown_to_typst(text, plain_math)  # noqa: E731
    marks = f"{question.marks} mark{'s' if question.marks > 1 else ''}"
    parts = [f"=== Q{number}. {escape(question.title)}" + (f" #raw(\"{question.id}\")" if with_answer else ""),
             f"_{question.kind} · {marks}_", "", md(question.prompt), ""]
    for exhibit in question.exhibits:
        parts.append(typst_matrix(exhibit, exhibit.title))
    parts += _option_lines(question, md, with_answer)
    parts += ["", f"_{escape(question.instruction('paper'))}_", ""]
    if question.is_matrix and not with_answer:
        parts += [answer_grid(question), ""]
    elif question.kind == "NAT" and not with_answer:
        parts += ["#answer-box", ""]
    shown = "#block(breakable: false, width: 100%)[\n" + "\n".join(parts) + "\n]"
    if not with_answer:
        return shown
    accepted = f" (accepted: {escape(accepted_text(question))})" if question.kind == "NAT" else ""
    answer = key_matrix(question) if question.is_matrix else md(question.answer_md)
    # The entry is kept on one page as a chain of sticky blocks, each moving to the next page
    # with the one after it; typst breaks a chain only where it is longer than a page. (Measuring
    # the entry to decide would lay it out twice: twice the time.)
    head = [heading, shown] if heading else [shown]   # a section's heading kept with its first entry
    if returned is not None:
        written = escape(returned.answer) if returned.answer else "_not answered_"
        head.append(f"#block(fill: luma(235), inset: 6pt, radius: 2pt, width: 100%)[*Your answer:* {written} "
                    f"#h(1fr) *Marks:* {escape(returned.marks)} \\\n{escape(markdown_to_terminal(returned.feedback))}]")
    head += [f"*Answer:* {answer}{accepted}", "", "*Solution.*"]
    blocks = [("", "\n".join(head))]
    for n, step in enumerate(question.solution, 1):
        # numbered by hand in the step's indent: a typst list (or a hanging-indent rule) costs
        # typst several times as much to lay out, and a block would break a list anyway
        body = f"#place(dx: -{STEP_INDENT})[{n}.]*{md(step.title)}.* {md(step.md)}"
        if step.matrix is not None:
            body += "\n" + typst_matrix(step)
        blocks.append((f", inset: (left: {STEP_INDENT})", body))
    reasons = [(i, option) for i, option in enumerate(question.options) if option.why]
    if reasons:
        blocks.append(("", "\n".join(["*Why each option is right or wrong.*", ""] + [
            _marked_line("[•]", LETTERS[i], f"{'✓' if option.correct else '✗'} {md(option.why)}")
            for i, option in reasons])))
    return "\n".join(f"#block(breakable: false, sticky: {'true' if k < len(blocks) - 1 else 'false'}, "
                     f"width: 100%{extra})[\n{body}\n]" for k, (extra, body) in enumerate(blocks))


WHAT = {"paper": "", "key": " — answer key", "return": " — return sheet"}


def document(spec, slots, paper, kind: str, plain_math: bool = False, returned: dict | None = None) -> str:
    """A student's paper, key or return sheet (KIND), as the body of its own pages. A return
    sheet is the key with what the student wrote and earned (RETURNED: question number ->
    Returned, and "total" -> their total as text) above each question's key."""
    student = paper.student
    total = sum(q.marks for q in paper.questions)
    with_answer = kind != "paper"
    parts = [f"= {escape(spec.title + WHAT[kind])}", "",
             f"*Name:* {name_markup(student.name)} #h(1fr) *Roll number:* {escape(student.id)}", "",
             f"*Time:* {spec.duration} minutes #h(1fr) *Total:* {total} {plural(total, 'mark')}, "
             f"{len(paper.questions)} {plural(len(paper.questions), 'question')}", ""]
    if kind == "return":
        parts += [f"*Your marks:* {escape(returned['total'])}", ""]
    if spec.instructions:
        parts += [escape(spec.instructions), ""]
    parts += ["_A wrong MCQ answer costs 1/3 of its marks; MSQ and NAT carry no negative marks._", ""]
    if with_answer:
        parts += ["Each question's ID regenerates it, with this worked solution: #raw(\"quiz explain ID\").", ""]
    section = None
    for slot, question in zip(slots, paper.questions):
        heading = ""
        if slot.section != section:
            # no page break: the heading stays with its first question, and the page's rest is used
            section = slot.section
            heading = f"== {escape(section)}\n"
            if not with_answer:
                parts.append(heading)
        mine = returned.get(slot.number) if returned else None
        parts += [question_typst(question, slot.number, with_answer, plain_math, mine,
                                 heading if with_answer else ""), ""]
    return "\n".join(parts)


BLANK = "This page is intentionally left blank."


def _student_pages(spec, paper, n: int, body: str, kind: str) -> str:
    """BODY on pages of its own, numbered from 1, the name and roll number at the head of each
    and "page n of N" (N this student's pages) at the foot. A paper is padded to an even
    number of pages, so that printed double-sided the next student starts on a new sheet: N
    counts the padding page, which `_blank_page` sets after every paper (`cut` puts it in place)."""
    header, footer = _head_and_foot(spec, paper, n, kind, _paper_pages(n) if kind == "paper" else
                                    f'#counter(page).at(label("end-{n}")).first()')
    marker = f'#context [#metadata((id: {string(paper.student.id)}, page: here().page())) <paper-start>]'
    return (f"#page(header: [{header}], footer: [{footer}])[\n#counter(page).update(1)\n{marker}\n"
            f"#metadata(none) <start-{n}>\n"
            f"{body}\n#metadata(none) <end-{n}>\n]")


def _head_and_foot(spec, paper, n: int, kind: str, pages: str, page: str = "#counter(page).display()") -> tuple[str, str]:
    """A student's header (title, name, roll number) and footer ("Page PAGE of PAGES", both typst code)."""
    student = paper.student
    shown_name = f"{escape(student.name)} ·" if student.name and printable(student.name) else ""
    header = (f"#set text(size: 8.5pt)\n{escape(spec.title)}{WHAT[kind]} #h(1fr) {shown_name} "
              f"*{escape(student.id)}*\n#v(-4pt)#line(length: 100%, stroke: 0.4pt)")
    footer = f'#set text(size: 8.5pt)\n#h(1fr) #context [Page {page} of {pages}] #h(1fr)'
    return header, footer


def _paper_pages(n: int) -> str:
    """Paper N's number of pages, padding included (typst code, in context): its body's, made even."""
    return f'#{{let b = counter(page).at(label("end-{n}")).first(); b + calc.rem(b, 2)}}'


def _blank_page(spec, paper, n: int) -> str:
    """The page that pads paper N to an even number of pages, if its body's is odd: laid out
    after every paper, where adding it moves no other page (typst lays out again whatever
    follows a page that an earlier pass did not know of: padding each paper in place doubled
    the time), with a <paper-blank> marker that `cut` moves it by."""
    header, footer = _head_and_foot(spec, paper, n, "paper", _paper_pages(n), page=_paper_pages(n))
    marker = f'#context [#metadata((id: {string(paper.student.id)}, page: here().page())) <paper-blank>]'
    return (f'#context if calc.odd(counter(page).at(label("end-{n}")).first()) {{ '
            f'page(header: [{header}], footer: [{footer}])[{marker}\n'
            f'#align(center + horizon, emph({string(BLANK)}))] }}')


def class_source(spec, slots, papers, kind: str, plain_math: bool = False, returned: dict | None = None) -> str:
    """Every paper (key, or return sheet) in one document, each on pages of its own (numbered
    from 1) with a marker that tells its first page, so one compilation can be cut into one
    PDF per student. A formula this module cannot translate sets the document's math as
    plain text rather than stopping."""
    def source(plain: bool) -> str:
        parts = [PREAMBLE]
        for n, paper in enumerate(papers):
            mine = returned.get(paper.student.id) if returned is not None else None
            parts.append(_student_pages(spec, paper, n, document(spec, slots, paper, kind, plain, mine), kind))
        if kind == "paper":
            parts += [_blank_page(spec, paper, n) for n, paper in enumerate(papers)]
        return "\n".join(parts)

    if plain_math:
        return source(True)
    try:
        return source(False)
    except Untranslatable:
        return source(True)


# The answer book's text table: column widths in characters of its monospace type, the Key and
# Accepted columns capped so that a row fits a page column (a longer entry wraps inside its column).
BOOK_CAPS = {"Key": 25, "Accepted": 24}
BOOK_GAP = "  "


def book_table(questions: list) -> str:
    """A student's keys as a text table, one row per question (a long key or range on more lines
    of its own column): typst sets a table's 25 cells per row at a hundredth of a second each
    (two seconds for a class of 300), a monospace block in a fraction of that."""
    import textwrap

    from quizforge.bank.export import accepted_text

    header = ("Q", "Kind", "Key", "Accepted")
    rows = []
    for number, q in enumerate(questions, 1):
        key, accepted = (markdown_to_terminal(q.answer_md), accepted_text(q)) if q.kind == "NAT" else (q.correct_letters, "")
        rows.append((str(number), q.kind, " ".join(key.split()), " ".join(accepted.split())))
    caps = [None, None, BOOK_CAPS["Key"], BOOK_CAPS["Accepted"]]
    widths = [min(max(len(row[c]) for row in [header, *rows]), caps[c] or 999) for c in range(4)]
    lines = []
    for row in [header, *rows]:
        cells = [textwrap.wrap(cell, width, break_on_hyphens=False) or [""] if caps[c] else [cell]
                 for c, (cell, width) in enumerate(zip(row, widths))]
        for k in range(max(len(cell) for cell in cells)):
            parts = [(cell[k] if k < len(cell) else "").ljust(width) for cell, width in zip(cells, widths)]
            lines.append(BOOK_GAP.join(parts).rstrip())
    return "\n".join(lines)


def answer_book_source(spec, papers: list) -> str:
    """The instructor's answer book: for each student a table of every question's key (the
    letters of an MCQ or MSQ) and a NAT's accepted range, several students to a page, none
    split across two."""
    parts = [PREAMBLE,
             f'#set page(columns: 2, header: [#set text(size: 8.5pt)\n{escape(spec.title)} — answer book '
             '#h(1fr) #context [Page #counter(page).display() of #counter(page).final().first()]'
             '\n#v(-4pt)#line(length: 100%, stroke: 0.4pt)])',
             "#set text(size: 8pt)",
             "#show raw.line.where(number: 1): set text(weight: \"bold\")",   # the table's header row
             f"= {escape(spec.title)}: answer book", "",
             "Each student's keys: the letters to mark for an MCQ or MSQ, and for a number the range "
             "accepted, both ends included.", ""]
    for paper in papers:
        student = paper.student
        shown = f" · {escape(student.name)}" if student.name and printable(student.name) else ""
        parts.append(f"#block(breakable: false, width: 100%)[*{escape(student.id)}*{shown}\n"
                     f"#raw(block: true, {string(book_table(paper.questions))})]")
    return "\n".join(parts)


FONT_PACKAGES = ("fontpkg_noto_sans_devanagari", "fontpkg_noto_sans_tamil", "fontpkg_noto_sans_telugu")


def font_paths() -> list[str]:
    """The folders of the bundled Noto fonts (typst's own embedded fonts set the rest)."""
    import importlib.util

    found = [importlib.util.find_spec(name) for name in FONT_PACKAGES]
    return [str(Path(spec.origin).parent / "files") for spec in found if spec is not None]


def compile_class(source: Path) -> tuple[bytes, list[dict], list[dict]]:
    """Compile a class's document; returns the PDF, the <paper-start> markers (each student's
    id and first page) and the <paper-blank> markers (the padding pages, laid out after every
    paper). Raises typst's error if the source does not compile."""
    import json

    import typst

    compiler = typst.Compiler(str(source), font_paths=font_paths(), ignore_system_fonts=True)
    pdf = compiler.compile(pdf_tags=False)
    return (pdf, json.loads(compiler.query("<paper-start>", field="value")),
            json.loads(compiler.query("<paper-blank>", field="value")))


def page_order(pages: int, starts: list[dict], blanks: list[dict]) -> list[tuple[str, list[int]]]:
    """Each student's id and pages (0-based, in the compiled PDF), in order: their own pages,
    then their padding page if they have one (the padding pages follow the last paper)."""
    firsts = [s["page"] - 1 for s in starts]
    ends = firsts[1:] + [min([b["page"] - 1 for b in blanks], default=pages)]
    padding = {b["id"]: b["page"] - 1 for b in blanks}
    return [(marker["id"], list(range(first, end)) + ([padding[marker["id"]]] if marker["id"] in padding else []))
            for marker, first, end in zip(starts, firsts, ends)]


def cut(whole: bytes, starts: list[dict], blanks: list[dict] = ()) -> tuple[dict[str, bytes], bytes | None]:
    """One PDF per student from the class's PDF, at the pages the markers give; and, when there
    are padding pages to put in place, the class's PDF with every page where it belongs (else None)."""
    import io

    import pikepdf

    source = pikepdf.open(io.BytesIO(whole))
    order = page_order(len(source.pages), starts, blanks)
    pieces = {}
    for sid, pages in order:
        piece = pikepdf.new()
        piece.pages.extend(source.pages[i] for i in pages)
        pieces[sid] = _saved(piece)
    if not blanks:
        return pieces, None
    ordered = pikepdf.new()
    ordered.pages.extend(source.pages[i] for _, pages in order for i in pages)
    return pieces, _saved(ordered)


def join(parts: list[Path], into: Path) -> None:
    """The class's PDF from its parts, in order."""
    import pikepdf

    opened = [pikepdf.open(part) for part in parts]
    joined = pikepdf.new()
    for part in opened:
        joined.pages.extend(part.pages)
    into.write_bytes(_saved(joined))


def _saved(pdf) -> bytes:
    import io

    buffer = io.BytesIO()
    pdf.save(buffer, deterministic_id=True)  # the same set gives the same bytes
    return buffer.getvalue()


CHUNK = 250  # students per typst compilation: fewer compilations share more, but memory grows with each
# The class goes to HELPERS shares, each queued for a helper process as soon as it exists, so
# typesetting begins while the rest is still being generated.
HELPERS = 4
NICENESS = 5  # helpers yield to the process that generates the shares and writes the exports


def cores() -> int:
    """The cores this process may run on."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@dataclass(eq=False)
class _Job:
    """One helper's work: its typst jobs, how to write them again with plain math, its students."""
    jobs: list[str]
    write: object
    students: int
    early: bool = False             # to start before any share still queued
    process: object = None
    errors: Path | None = None
    returncode: int | None = None   # once finished


class Typesetting:
    """Documents typeset as PDF by helper processes while the caller writes everything else.
    `add` queues a helper for a share of the class (compiled in chunks of CHUNK students, each
    cut into FOLDER/<id>.pdf), `add_whole` one for a single document; `wait` joins the shares'
    parts into one PDF per name given to `add` and moves each whole document into place.

    Helpers run at most one per core, the cores the caller's own work takes counted out (see
    `poll`): typst is memory-bound, and five helpers sharing two cores took a fifth more CPU
    time than two did (bench/bench_problemsets.py)."""

    def __init__(self, out: Path):
        import tempfile

        self.out = Path(out)
        self._tmp = tempfile.TemporaryDirectory(prefix="quizforge-typst-")
        self.work = Path(self._tmp.name)
        self.helpers: list[_Job] = []              # in the order added
        self.parts: dict[str, list[Path]] = {}     # a joined PDF's name -> its parts, in order
        self.wholes: list[tuple[Path, Path]] = []  # (compiled, where it goes)
        self.sources = 0

    @staticmethod
    def shares(students: list, count: int = HELPERS) -> list[list]:
        """The class split into COUNT shares, in roll order."""
        size = max(1, -(-len(students) // count))
        return [students[i:i + size] for i in range(0, len(students), size)]

    def add(self, name: str | None, papers: list, folder: Path, source_of) -> None:
        """Typeset PAPERS (a share of the class) with SOURCE_OF(chunk, plain_math) into
        FOLDER/<id>.pdf; their parts join into OUT/NAME unless NAME is None."""
        chunks = [papers[i:i + CHUNK] for i in range(0, len(papers), CHUNK)]
        base, self.sources = self.sources, self.sources + len(chunks)

        def write(plain_math: bool) -> list[str]:
            jobs = []
            for k, chunk in enumerate(chunks):
                source = self.work / f"{base + k}.typ"
                source.write_text(source_of(chunk, plain_math), "utf-8")
                jobs += [str(source), str(folder), str(self.work / f"{base + k}.pdf")]
            return jobs

        if name is not None:
            self.parts.setdefault(name, []).extend(self.work / f"{base + k}.pdf" for k in range(len(chunks)))
        self.helpers.append(_Job(write(False), write, len(papers)))
        self.poll()

    def add_whole(self, into: Path, source_of) -> None:
        """Typeset one document, SOURCE_OF(plain_math), into INTO (no cutting)."""
        n, self.sources = self.sources, self.sources + 1
        source, pdf = self.work / f"{n}.typ", self.work / f"{n}.pdf"

        def write(plain_math: bool) -> list[str]:
            source.write_text(source_of(plain_math), "utf-8")
            return [str(source), "-", str(pdf)]

        self.wholes.append((pdf, into))
        # Started before the shares still queued: a whole document cannot be split between the
        # cores at the end, as the last shares are.
        self.helpers.append(_Job(write(False), write, 0, early=True))
        self.poll()

    def poll(self, busy: int = 1) -> None:
        """Note the helpers that have finished and start queued ones, in order, while a core is
        free: BUSY cores are taken by the caller's own work (it, or a process of its own), and
        one helper always runs. The caller polls as it works; `wait` polls until the end."""
        running = 0
        for job in self.helpers:
            if job.process is not None and job.returncode is None:
                job.returncode = job.process.poll()
                running += job.returncode is None
        for job in sorted(self.helpers, key=lambda job: not job.early):   # stable: otherwise in order
            if running >= max(1, cores() - busy):
                break
            if job.process is None:
                job.errors = self.work / f"helper-{self.helpers.index(job)}.err"
                job.process = self._spawn(job.jobs, job.errors)
                running += 1

    @staticmethod
    def _spawn(jobs: list[str], errors: Path):
        import os
        import subprocess
        import sys

        command = [sys.executable, "-m", "quizforge.problemsets.typeset", *jobs]
        # One thread each: the helpers already take every core, so typst's own threads would only contend.
        env = {**os.environ, "RAYON_NUM_THREADS": "1"}
        with open(errors, "wb") as stderr:   # a file, not a pipe: nobody need read it while the helper runs
            return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=env)

    def wait(self, progress=None) -> None:
        """Wait for every helper, now on every core; PROGRESS(students done) is told as each
        share is done, in order."""
        import time

        done = 0
        try:
            for job in self.helpers:
                while job.returncode is None:
                    self.poll(busy=0)
                    if job.returncode is None:
                        time.sleep(POLL_SECONDS)
                if job.returncode == UNTRANSLATED:
                    # A formula typst refused: set this share's math as plain text rather than not at all.
                    job.process = self._spawn(job.write(True), job.errors)   # so that close() stops it too
                    job.returncode = job.process.wait()
                if job.returncode != 0:
                    error = job.errors.read_text("utf-8", errors="replace").strip()
                    raise RuntimeError(f"typesetting failed: {error[-500:]}")
                done += job.students
                if progress is not None:
                    progress(done)
            for name, parts in self.parts.items():
                join(parts, self.out / name)
            for pdf, into in self.wholes:
                into.write_bytes(pdf.read_bytes())
        finally:
            self.close()

    def finish(self, students: int, progress: Callable[[int, int], None] | None = None) -> None:
        """`wait`, PROGRESS(done, STUDENTS) told from 0 as the shares are done."""
        if progress is not None:
            progress(0, students)
        self.wait(None if progress is None else lambda done: progress(done, students))

    def __enter__(self) -> Typesetting:
        return self

    def __exit__(self, *raised) -> None:
        self.close()   # stops the helpers when queueing failed; nothing is left to stop after `wait`

    def close(self) -> None:
        """Stop every helper still running, and start no more."""
        for job in self.helpers:
            if job.process is None:
                job.process, job.returncode = False, -1   # never to start
            elif job.process and job.process.poll() is None:
                job.process.kill()
                job.process.wait()
        self._tmp.cleanup()


UNTRANSLATED = 3  # the helper's exit status when typst refused a document


def typeset_share(jobs: list[tuple[Path, str, Path]]) -> None:
    """For each (source, folder, part): compile the source, cut it into FOLDER/<id>.pdf (unless
    FOLDER is "-"), and keep the whole as PART."""
    for source, folder, share in jobs:
        whole, starts, blanks = compile_class(source)
        if folder != "-":
            pieces, ordered = cut(whole, starts, blanks)
            for sid, data in pieces.items():
                (Path(folder) / f"{sid}.pdf").write_bytes(data)
            whole = ordered or whole
        share.write_bytes(whole)


def _helper_main(argv: list[str]) -> int:
    """python -m quizforge.problemsets.typeset (SOURCE FOLDER PART)...: one helper of Typesetting."""
    import os
    import sys

    import typst

    # Yield to the process still generating the class: the sooner it hands out every share,
    # the sooner every helper is typesetting; once it is done, the helpers have the cores.
    os.nice(NICENESS)
    try:
        typeset_share([(Path(argv[i]), argv[i + 1], Path(argv[i + 2])) for i in range(0, len(argv), 3)])
    except typst.TypstError as error:
        print(f"typst: {error}", file=sys.stderr)
        return UNTRANSLATED
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_helper_main(sys.argv[1:]))
