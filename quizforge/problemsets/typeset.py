"""Papers and keys as PDF, through typst (the `typst` package from PyPI: no TeX installation).

The bank writes Markdown with LaTeX math; this module turns the small subset it uses into
typst markup and typst math (fractions, roots, bold and calligraphic letters, operators,
matrices), sets matrices the question shows as tables, and draws a matrix of attention
weights as a heatmap. Should a formula ever not translate, the document is set again with
its math as plain text rather than not at all.
"""

from __future__ import annotations

import re

from quizforge.bank.question import Step

# LaTeX commands -> typst math symbols.
SYMBOLS = {
    "cdot": "dot.c", "times": "times", "approx": "approx", "infty": "infinity", "to": "->", "top": "top",
    "le": "<=", "leq": "<=", "ge": ">=", "geq": ">=", "neq": "!=", "ldots": "...", "cdots": "dots.c",
    "odot": "dot.o", "log": "log", "cos": "cos", "sin": "sin", "exp": "exp", "sum": "sum", "max": "max",
    "min": "min", "in": "in", "pm": "plus.minus", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋",
    "mid": "|", "quad": "quad", "qquad": "wide", "ell": "ell", "partial": "diff", "nabla": "nabla",
    "cdotp": "dot.c", "colon": ":", "prime": "prime", "tanh": "tanh", "ln": "ln", "arg": "arg",
    "lVert": "||", "rVert": "||", "Vert": "||", "vert": "|", "ge": ">=", "gg": ">>", "ll": "<<",
    "sim": "tilde.op", "propto": "prop", "cap": "sect", "cup": "union", "forall": "forall", "exists": "exists",
}
ACCENTS = {"hat": "hat", "bar": "overline", "overline": "overline", "tilde": "tilde", "vec": "arrow", "dot": "dot"}
GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
         "nu", "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "Gamma", "Delta", "Theta",
         "Lambda", "Pi", "Sigma", "Phi", "Psi", "Omega"}
SPACES = {",": "thin", ";": "med", ":": "med", "!": "", " ": " "}
FONTS = {"mathbf": "bold", "mathcal": "cal", "mathrm": "upright", "mathbb": "bb", "boldsymbol": "bold",
         "mathit": "italic"}


class Untranslatable(ValueError):
    pass


class _Reader:
    def __init__(self, text: str):
        self.text, self.i = text, 0

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def group(self) -> str:
        """The next {…} group (or single token) as LaTeX source."""
        while self.peek() == " ":
            self.i += 1
        if self.peek() != "{":
            if self.peek() == "\\":
                m = re.match(r"\\([a-zA-Z]+|.)", self.text[self.i:])
                self.i += m.end()
                return m.group(0)
            ch = self.peek()
            self.i += 1
            return ch
        depth, start = 0, self.i
        while self.i < len(self.text):
            ch = self.text[self.i]
            depth += (ch == "{") - (ch == "}")
            self.i += 1
            if depth == 0:
                return self.text[start + 1:self.i - 1]
        raise Untranslatable("unbalanced braces")


def _letters(run: str) -> str:
    """Juxtaposed letters are a product in LaTeX, a single name in typst: space them out."""
    return " ".join(run) if len(run) > 1 else run


def latex_to_typst(latex: str) -> str:
    """The bank's LaTeX math subset as typst math. Raises Untranslatable on anything else."""
    r = _Reader(latex)
    out: list[str] = []
    while r.i < len(latex):
        ch = r.peek()
        if ch == "\\":
            m = re.match(r"\\([a-zA-Z]+|.)", latex[r.i:])
            r.i += m.end()
            name = m.group(1)
            if name == "frac":
                num, den = latex_to_typst(r.group()), latex_to_typst(r.group())
                out.append(f" frac({num}, {den})")
            elif name == "sqrt":
                out.append(f" sqrt({latex_to_typst(r.group())})")
            elif name in FONTS:
                out.append(f" {FONTS[name]}({latex_to_typst(r.group())})")
            elif name in ACCENTS:
                out.append(f" {ACCENTS[name]}({latex_to_typst(r.group())})")
            elif name == "operatorname":
                out.append(f' op("{_plain(r.group())}")')
            elif name == "text":
                out.append(f' "{_plain(r.group())}"')
            elif name == "begin":
                env = r.group()
                end = latex.find(f"\\end{{{env}}}", r.i)
                if env not in ("bmatrix", "pmatrix", "matrix") or end < 0:
                    raise Untranslatable(f"environment {env}")
                body, r.i = latex[r.i:end], end + len(f"\\end{{{env}}}")
                rows = [row for row in body.split("\\\\") if row.strip()]
                cells = "; ".join(", ".join(latex_to_typst(c.strip()) or "" for c in row.split("&")) for row in rows)
                delim = {"bmatrix": '"["', "pmatrix": '"("', "matrix": "#none"}[env]
                out.append(f"mat(delim: {delim}, {cells})")
            elif name in SYMBOLS:
                out.append(f" {SYMBOLS[name]} ")
            elif name in GREEK:
                out.append(f" {name} ")
            elif name in SPACES:
                out.append(f" {SPACES[name]} ")
            elif name in "{}":
                out.append(f"\\{name}")
            elif name == "left" or name == "right":
                continue
            else:
                raise Untranslatable(f"\\{name}")
        elif ch in "_^":
            r.i += 1
            out.append(f"{ch}({latex_to_typst(r.group())})")
        elif ch == "{":
            out.append(f"({latex_to_typst(r.group())})")
        elif ch.isalpha() and ch.isascii():
            m = re.match(r"[A-Za-z]+", latex[r.i:])
            r.i += m.end()
            out.append(_letters(m.group(0)))
        elif ch in "#$\"":
            raise Untranslatable(ch)
        else:
            if ch.isdigit() and out and out[-1][-1:].isalpha():
                out.append(" ")  # "j1" would be one name in typst
            out.append("\\/" if ch == "/" else ch)  # a bare / is a fraction in typst, a slash in LaTeX
            r.i += 1
    return re.sub(r"  +", " ", "".join(out)).strip()


def _plain(text: str) -> str:
    return text.replace("\\", "").replace('"', "'")


# --- markup ----------------------------------------------------------------------------

_MARKUP_SPECIAL = re.compile(r"([\\#*_`<>@\[\]~/$=+-])")


def _escape(text: str) -> str:
    return _MARKUP_SPECIAL.sub(r"\\\1", text)


def _inline(text: str, math) -> str:
    """A line of the bank's Markdown (bold, italics, code, $math$) as typst markup."""
    out = []
    for token in re.split(r"(\$[^$]+\$|\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)", text):
        if not token:
            continue
        if token.startswith("$"):
            out.append(math(token[1:-1], display=False))
        elif token.startswith("**"):
            out.append(f"*{_inline(token[2:-2], math)}*")
        elif token.startswith("*"):
            out.append(f"_{_inline(token[1:-1], math)}_")
        elif token.startswith("`"):
            out.append(f'#raw("{token[1:-1]}")')
        else:
            out.append(_escape(token))
    return "".join(out)


def markdown_to_typst(markdown: str, plain_math: bool = False) -> str:
    def math(latex: str, display: bool) -> str:
        if plain_math:
            from quizforge.bank.mathtext import markdown_to_terminal

            return _escape(markdown_to_terminal(f"${latex}$"))
        body = latex_to_typst(latex)
        return f"$ {body} $" if display else f"${body}$"

    lines = []
    for block in re.split(r"(\$\$.+?\$\$)", markdown, flags=re.S):
        if block.startswith("$$"):
            lines.append("\n" + math(block[2:-2].strip(), display=True) + "\n")
            continue
        for line in block.split("\n"):
            heading = re.match(r"(#+) (.*)", line)
            item = re.match(r"(\s*)- (.*)", line)
            numbered = re.match(r"(\s*)(\d+)\. (.*)", line)
            if heading:
                lines.append("=" * len(heading.group(1)) + " " + _inline(heading.group(2), math))
            elif item:
                lines.append(f"{item.group(1)}- {_inline(item.group(2), math)}")
            elif numbered:
                lines.append(f"{numbered.group(1)}{numbered.group(2)}. {_inline(numbered.group(3), math)}")
            else:
                lines.append(_inline(line, math))
    return "\n".join(lines)


def heatmap(step: Step) -> str:
    """A matrix of attention weights as a table of cells shaded by their weight."""
    rows = step.matrix or ()
    cells = []
    for row in rows:
        for value in row:
            try:
                w = min(max(float(value), 0.0), 1.0)
            except ValueError:
                w = 0.0
            cells.append(f'table.cell(fill: blue.transparentize({100 - round(100 * w)}%))[{_escape(value)}]')
    return (f"#figure(table(columns: {len(rows[0]) if rows else 1}, align: center, {', '.join(cells)}), "
            f"caption: [{_escape(step.title)}: darker is more weight])")


def matrix_table(step: Step) -> str:
    rows = step.matrix or ()
    cells = ", ".join(f"[{_escape(v)}]" for row in rows for v in row)
    return f"#figure(table(columns: {len(rows[0]) if rows else 1}, align: right, {cells}), caption: [{_escape(step.title)}])"


def is_weights(step: Step) -> bool:
    if step.matrix is None or "weight" not in step.title.lower():
        return False
    try:
        return all(0.0 <= float(v) <= 1.0 for row in step.matrix for v in row)
    except ValueError:
        return False


PREAMBLE = ('#set document(date: none)\n#set page(paper: "a4", margin: 18mm, numbering: "1")\n'
            '#set text(size: 10pt)\n#set par(justify: true)\n')


def question_typst(question, number: int, with_answer: bool, plain_math: bool) -> str:
    from quizforge.bank.export import accepted_text
    from quizforge.bank.question import LETTERS

    md = lambda text: markdown_to_typst(text, plain_math)  # noqa: E731
    marks = f"{question.marks} mark{'s' if question.marks > 1 else ''}"
    parts = [f"=== Q{number}. {_escape(question.title)}" + (f" #raw(\"{question.id}\")" if with_answer else ""),
             f"_{question.kind} · {marks}_", "", md(question.prompt), ""]
    for exhibit in question.exhibits:
        parts.append(heatmap(exhibit) if is_weights(exhibit) else matrix_table(exhibit))
    for i, option in enumerate(question.options):
        parts.append(f"- ({LETTERS[i]}) {md(option.md)}")
    parts += ["", f"_{_escape(question.instruction())}_", ""]
    if with_answer:
        accepted = f" (accepted: {_escape(accepted_text(question))})" if question.kind == "NAT" else ""
        parts += [f"*Answer:* {md(question.answer_md)}{accepted}", "", "*Solution.*", ""]
        for n, step in enumerate(question.solution, 1):
            parts.append(f"{n}. *{md(step.title)}.* {md(step.md)}")  # numbered explicitly: figures break lists
            if step.matrix is not None:
                parts.append(heatmap(step) if is_weights(step) else matrix_table(step))
    return "\n".join(parts)


def document(spec, slots, paper, with_answer: bool, plain_math: bool = False, preamble: bool = True) -> str:
    student = paper.student
    total = sum(q.marks for q in paper.questions)
    title = spec.title + (" — answer key" if with_answer else "")
    parts = [PREAMBLE if preamble else "", f"= {_escape(title)}", "",
             f"*Name:* {_escape(student.name) if student.name else '#box(width: 6cm, repeat[.])'} #h(1fr) "
             f"*Roll number:* {_escape(student.id)}", "",
             f"*Time:* {spec.duration} minutes #h(1fr) *Total:* {total} marks, {len(paper.questions)} questions", ""]
    if spec.instructions:
        parts += [_escape(spec.instructions), ""]
    parts += ["_A wrong MCQ answer costs 1/3 of its marks; MSQ and NAT carry no negative marks._", ""]
    section = None
    for slot, question in zip(slots, paper.questions):
        if slot.section != section:
            if section is not None:
                parts.append("#pagebreak()")
            section = slot.section
            parts += [f"== {_escape(section)}", ""]
        parts += [question_typst(question, slot.number, with_answer, plain_math), ""]
    return "\n".join(parts)


def _combined(spec, slots, papers, with_answer: bool, plain_math: bool) -> str:
    """Every paper in one document, each starting a page (numbered from 1) with a marker
    that tells its first page, so one compilation can be cut into one PDF per student."""
    parts = [PREAMBLE]
    for n, paper in enumerate(papers):
        if n:
            parts.append("#pagebreak()")
        parts += ["#counter(page).update(1)",
                  f'#context [#metadata((id: "{paper.student.id}", page: here().page())) <paper-start>]',
                  document(spec, slots, paper, with_answer, plain_math, preamble=False)]
    return "\n".join(parts)


def compile_class(sources: tuple[str, str], folder) -> tuple[bytes, list[dict]]:
    """Compile a class's combined document (its plain-math twin if typst refuses the first);
    returns the PDF and the <paper-start> markers (each student's id and first page)."""
    import json
    from pathlib import Path

    import typst

    main = Path(folder) / "main.typ"
    for n, source in enumerate(sources):
        main.write_text(source, encoding="utf-8")
        compiler = typst.Compiler(str(main), ignore_system_fonts=True)
        try:
            return compiler.compile(pdf_tags=False), json.loads(compiler.query("<paper-start>", field="value"))
        except Exception:  # noqa: BLE001 - typst's errors have no public base class; set the math as text
            if n == len(sources) - 1:
                raise
    raise AssertionError("unreachable")


def cut(whole: bytes, starts: list[dict]) -> dict[str, bytes]:
    """One PDF per student from the class's PDF, at the pages the markers give."""
    import io

    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(whole))
    firsts = [s["page"] - 1 for s in starts] + [len(reader.pages)]
    pieces = {}
    for (start, end), marker in zip(zip(firsts, firsts[1:]), starts):
        writer = pypdf.PdfWriter()
        for page in range(start, end):
            writer.add_page(reader.pages[page])
        buffer = io.BytesIO()
        writer.write(buffer)
        pieces[marker["id"]] = buffer.getvalue()
    return pieces


def sources(spec, slots, papers, with_answer: bool) -> tuple[str, str]:
    return (_combined(spec, slots, papers, with_answer, False), _combined(spec, slots, papers, with_answer, True))


CHUNK = 1000  # students per typst compilation: a compilation shares its caches, so the fewer the better


def papers_and_keys(spec, slots, papers) -> tuple[tuple[bytes, dict], tuple[bytes, dict]]:
    """The class's papers and keys, each as one PDF to print and one per student. Papers and
    keys are typeset side by side, in this process and a helper one (typst holds the GIL)."""
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    import pypdf

    chunks = [papers[i:i + CHUNK] for i in range(0, len(papers), CHUNK)]
    jobs = [(kind, n, with_answer) for kind, with_answer in (("keys", True), ("papers", False))
            for n in range(len(chunks))]
    # Keys take about three times as long as papers: deal the jobs out so both sides weigh about the same.
    mine, theirs, load = [], [], [0, 0]
    for job in jobs:
        side = 0 if load[0] <= load[1] else 1
        (mine if side == 0 else theirs).append(job)
        load[side] += 3 if job[2] else 1
    with tempfile.TemporaryDirectory(prefix="quizforge-typst-") as tmp:
        root = Path(tmp)
        for kind, n, with_answer in jobs:
            folder = root / f"{kind}-{n}"
            folder.mkdir()
            for k, source in enumerate(sources(spec, slots, chunks[n], with_answer)):
                (folder / f"source{k}.typ").write_text(source, encoding="utf-8")
        helper = subprocess.Popen([sys.executable, "-m", "quizforge.problemsets.typeset",
                                   *(str(root / f"{kind}-{n}") for kind, n, _ in theirs)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            for kind, n, _ in mine:
                _typeset_folder(str(root / f"{kind}-{n}"))
        finally:
            _, error = helper.communicate()
        if helper.returncode != 0:
            raise RuntimeError(f"typesetting failed: {error.strip()[-500:]}")
        result = []
        for kind in ("papers", "keys"):
            whole, pieces = pypdf.PdfWriter(), {}
            for n in range(len(chunks)):
                folder = root / f"{kind}-{n}"
                data = (folder / "class.pdf").read_bytes()
                pieces.update(cut(data, json.loads((folder / "starts.json").read_text())))
                whole.append(pypdf.PdfReader(folder / "class.pdf"))
            import io

            buffer = io.BytesIO()
            whole.write(buffer)
            result.append((buffer.getvalue(), pieces))
    return result[0], result[1]


def _typeset_folder(folder: str) -> None:
    """Compile FOLDER/source0.typ (or its plain-math twin source1.typ) into class.pdf and starts.json."""
    import json
    from pathlib import Path

    path = Path(folder)
    whole, starts = compile_class(tuple((path / f"source{n}.typ").read_text("utf-8") for n in (0, 1)), path)
    (path / "class.pdf").write_bytes(whole)
    (path / "starts.json").write_text(json.dumps(starts), encoding="utf-8")


if __name__ == "__main__":  # the helper process of papers_and_keys: python -m quizforge.problemsets.typeset DIR...
    import sys

    for argument in sys.argv[1:]:
        _typeset_folder(argument)
