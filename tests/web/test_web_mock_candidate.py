"""What the candidate sees in the browser mock, in Debian's Chromium at a laptop's and a phone's
size: the Exam Summary against the palette, no giveaway titles, the caret in the NAT box and
matrix cells, GATE's MCQ and candidate panel, and the phone layout."""

from __future__ import annotations

import pytest

import time

pytest.importorskip("uvicorn")
from browser_support import chromium_browser  # noqa: E402
from practice_helpers import right_answer, wrong_answer  # noqa: E402
from quizforge.practice.mock import MockEngine  # noqa: E402
from quizforge.practice.store import History, MockState  # noqa: E402
from quizforge.web.launch import BackgroundServer  # noqa: E402
from quizforge.web.sitting import WebSitting  # noqa: E402
from test_web_mock_browser import MCQ, MSQ, NAT, NAT_NEGATIVE, WEIGHTS, wait_question  # noqa: E402


class LiveServer(BackgroundServer):
    """The exam server for one sitting of `paper` on a fresh history, its sections and name as set."""

    def __init__(self, tmp_path, paper, minutes: float = 30, sections: str = "marks", name: str = "Asha"):
        self.history = History(tmp_path / "history.db")
        session = self.history.start_session("mock", {"sections": sections}, time.time())
        state = MockState(session, "gate", list(paper), minutes, sections=sections)
        self.history.create_mock(state)
        super().__init__(WebSitting(MockEngine(self.history, state), name=name))

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.history.close()


SIZES = [(1366, 768), (390, 844)]
STATES = ["answered", "not-answered", "not-visited", "marked", "answered-marked"]


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as context:
        yield context


def begin(page, url: str, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    page.click("#instructions-next")
    page.check("#declaration")
    page.click("#begin")
    wait_question(page, 1)


@pytest.mark.parametrize("width, height", SIZES)
def test_the_exam_summary_counts_what_the_palette_counts(browser, tmp_path, width, height):
    paper = [MCQ, NAT, MSQ, NAT_NEGATIVE, WEIGHTS]   # sections: Q1–2 one mark, Q3–5 two marks
    with LiveServer(tmp_path, paper=paper) as live:
        page = browser.new_page()
        begin(page, live.url, width, height)
        page.locator(f'#response input[value="{wrong_answer(MCQ)}"]').click()
        page.click("#mark-next")                      # Q1 answered and marked
        wait_question(page, 2)
        page.click("#mark-next")                      # Q2 marked, not answered
        wait_question(page, 3)
        for letter in right_answer(MSQ).split(","):
            page.check(f'#response input[value="{letter}"]')
        page.click("#save-next")                      # Q3 answered; Q4 seen, not answered; Q5 not visited
        wait_question(page, 4)
        palettes = []
        for section in (0, 1):
            page.click(f'.tab[data-section="{section}"]')
            page.wait_for_selector(f'.tab.active[data-section="{section}"]')
            palettes.append({state: int(page.inner_text(f"#count-{state}")) for state in STATES})
        page.click("#submit-button")
        table = "table.summary.by-section" if width > 760 else "table.summary.by-state"
        page.wait_for_selector(table)
        summary = page.evaluate("""table => {
            const rows = [...document.querySelector(table).rows].map(r => [...r.cells].map(c => c.textContent));
            return rows;
        }""", table)
        page.screenshot(path=str(tmp_path / f"summary-{width}.png"))
    columns = ["Questions", "Answered", "Not Answered", "Marked for Review", "Answered & Marked", "Not Visited"]
    if width > 760:   # a row per section
        assert summary[0][1:] == columns
        counts = [dict(zip(columns, map(int, row[1:]))) for row in summary[1:]]
    else:             # a column per section
        assert [row[0] for row in summary[1:]] == columns
        counts = [{row[0]: int(row[1 + s]) for row in summary[1:]} for s in (0, 1)]
    assert palettes == [{"answered": 0, "not-answered": 0, "not-visited": 0, "marked": 1, "answered-marked": 1},
                        {"answered": 1, "not-answered": 1, "not-visited": 1, "marked": 0, "answered-marked": 0}]
    for palette, row in zip(palettes, counts):
        assert (row["Answered"], row["Not Answered"], row["Not Visited"], row["Marked for Review"],
                row["Answered & Marked"]) == tuple(palette[s] for s in STATES)
        assert sum(v for k, v in row.items() if k != "Questions") == row["Questions"]


GIVEAWAY = "attention.softmax_axis_bug-0000"   # titled "Code reading: softmax over the wrong axis"


def test_no_question_title_reaches_the_exam_page_only_the_report(browser, tmp_path):
    from quizforge.bank.registry import question

    title = question(GIVEAWAY).title
    assert "wrong axis" in title
    with LiveServer(tmp_path, paper=[GIVEAWAY, NAT]) as live:
        page = browser.new_page()
        seen: list[str] = []
        page.on("response", lambda r: seen.append(r.text()) if "/api/" in r.url else None)
        begin(page, live.url, 1366, 768)
        assert "This attention code has a bug" in page.inner_text("#question-body")
        assert page.inner_text("#question-meta") == "MCQ · 1 mark · −1/3 for a wrong answer"
        page.click("#question-paper-button")
        page.wait_for_selector(".paper-question >> nth=1")
        exam_html = page.content()
        page.click("#paper-close")
        page.click("#submit-button")
        page.click("#summary-submit")
        page.click("#confirm-yes")
        page.wait_for_url("**/report")
        report = page.inner_text("#q1 h3")
    assert "wrong axis" not in exam_html and "Code reading" not in exam_html
    assert seen and not any("wrong axis" in body or '"title"' in body for body in seen)
    assert "Code reading: softmax over the wrong axis" in report   # after submission, the report names it


CARET_X = """([selector, prefix]) => {
    // Where a caret after `prefix` is drawn in the box: its text's left edge plus the prefix's width.
    const field = document.querySelector(selector);
    const style = getComputedStyle(field);
    const context = document.createElement("canvas").getContext("2d");
    context.font = style.font;
    const box = field.getBoundingClientRect();
    const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const width = style.textAlign === "right" ? context.measureText(field.value).width : 0;
    const start = style.textAlign === "right"
        ? box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight) - width : left;
    return {x: start + context.measureText(prefix).width - field.scrollLeft, y: box.top + 4, height: box.height - 8};
}"""


def caret_drawn_at(page, selector: str, prefix: str) -> bool:
    """Whether a caret is painted in the box right after `prefix`: a strip of the screen there
    differs from the same strip with carets hidden, within a few blinks."""
    spot = page.evaluate(CARET_X, [selector, prefix])
    clip = {"x": spot["x"] - 2, "y": spot["y"], "width": 4, "height": spot["height"]}
    hidden = page.screenshot(clip=clip, caret="hide")
    for _ in range(8):
        if page.screenshot(clip=clip, caret="initial") != hidden:
            return True
        page.wait_for_timeout(150)
    return False


def press(page, *keys: str) -> None:
    for key in keys:
        page.click(f'#response [data-keypad="{key}"]')


@pytest.mark.parametrize("width, height", SIZES)
def test_the_nat_box_shows_its_caret_where_the_keypad_writes(browser, tmp_path, width, height):
    with LiveServer(tmp_path, paper=[NAT, MCQ]) as live:
        page = browser.new_page()
        begin(page, live.url, width, height)
        assert page.evaluate("document.activeElement.id") == "nat-answer"   # the caret is there from the start
        press(page, "1", "2", "3", "4", "Left", "Left")
        field = page.evaluate("""() => { const f = document.getElementById('nat-answer');
            return {focused: document.activeElement === f, readOnly: f.readOnly, start: f.selectionStart,
                    end: f.selectionEnd, caret: getComputedStyle(f).caretColor}; }""")
        assert field == {"focused": True, "readOnly": False, "start": 2, "end": 2, "caret": "rgb(17, 17, 17)"}
        assert caret_drawn_at(page, "#nat-answer", "12") and not caret_drawn_at(page, "#nat-answer", "1234")
        page.screenshot(path=str(tmp_path / f"nat-caret-{width}.png"), caret="initial")
        page.keyboard.type("7")                    # the keyboard still writes nothing (GATE) ...
        page.keyboard.press("ArrowLeft")           # ... but its arrows move the caret, as the keypad's do
        press(page, "9")
        assert page.input_value("#nat-answer") == "19234"
        assert caret_drawn_at(page, "#nat-answer", "19")
        page.keyboard.press("Home")                # Home and End move it too
        press(page, "-")
        page.keyboard.press("End")
        press(page, "5")
        assert page.input_value("#nat-answer") == "-192345"
        # What an input method writes cannot be cancelled beforehand: it is taken out at once.
        page.evaluate("""() => { const f = document.getElementById('nat-answer');
            f.value = '-1923漢45'; f.dispatchEvent(new InputEvent('input', {inputType: 'insertCompositionText'})); }""")
        assert page.input_value("#nat-answer") == "-192345"
        page.click("#save-next")
        wait_question(page, 2)
        assert live.sitting.state.answers == {0: "-192345"}


def test_a_matrix_cell_shows_its_caret(browser, tmp_path):
    with LiveServer(tmp_path, paper=["matrices.causal_mask-000a", MCQ]) as live:   # 3×3 of 0 and 1
        page = browser.new_page()
        begin(page, live.url, 1366, 768)
        first = '#response [data-cell="0"]'
        assert page.evaluate("document.activeElement.dataset.cell") == "0"
        page.click('#response [data-cell="4"]')
        press(page, "1", "0", "Left")
        cell = '#response [data-cell="4"]'
        assert page.evaluate("document.activeElement.dataset.cell") == "4"
        assert page.evaluate("document.activeElement.selectionStart") == 1
        assert caret_drawn_at(page, cell, "1") and not caret_drawn_at(page, first, "")
        page.screenshot(path=str(tmp_path / "matrix-caret.png"), caret="initial")


def test_gates_subject_section_the_given_name_and_an_mcq_choice_kept_on_a_second_click(browser, tmp_path):
    name = 'Asha "<b>" Rao'   # shown as typed, never as markup
    with LiveServer(tmp_path, paper=[MCQ, NAT, MSQ], sections="subject", name=name) as live:
        page = browser.new_page()
        page.goto(live.url)
        page.click("#instructions-next")
        assert "Data Science & Artificial Intelligence\t3" in page.inner_text(".paper-sections")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        assert page.inner_text("#candidate-name") == name
        assert page.locator(".tab").all_inner_texts() == ["Data Science & Artificial Intelligence"]
        assert page.inner_text("#palette-section") == "Data Science & Artificial Intelligence"
        assert page.locator("#palette [data-goto]").count() == 3
        assert page.inner_text(".instruction") == (
            "Choose ONE option. Clicking the chosen option again keeps it chosen; Clear Response removes it.")
        option = page.locator(f'#response input[value="{right_answer(MCQ)}"]')
        option.click()
        page.locator(f'#response input[value="{right_answer(MCQ)}"] + .letter').click()   # its label: the same
        option.click()
        assert option.is_checked()
        page.click("#save-next")
        wait_question(page, 2)
        page.click('#palette [data-goto="1"]')
        wait_question(page, 1)
        option.click()                                 # a second click on the saved choice keeps it
        assert option.is_checked()
        page.click("#clear-response")                  # only Clear Response takes it back
        page.wait_for_function("!document.querySelector('#response input:checked')")
        assert live.sitting.state.answers == {}


IN_VIEW = """selector => {
    // Wholly inside the viewport and on top there (not under the header or another box).
    const e = document.querySelector(selector);
    const r = e.getBoundingClientRect();
    const inside = r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return inside && (top === e || e.contains(top));
}"""


@pytest.mark.parametrize("width, height", SIZES)
def test_the_layout_keeps_the_timer_save_and_next_and_the_palette_at_hand(browser, tmp_path, width, height):
    phone = width < 760
    with LiveServer(tmp_path, paper=[GIVEAWAY, NAT, MSQ, WEIGHTS], sections="subject") as live:
        page = browser.new_page()
        begin(page, live.url, width, height)
        code = page.evaluate("""() => { const p = document.querySelector('#question-body pre');
            const r = p.getBoundingClientRect();
            return {right: r.right, scrolls: p.scrollWidth > p.clientWidth, overflow: getComputedStyle(p).overflowX}; }""")
        assert code["right"] <= width and code["overflow"] == "auto"
        assert code["scrolls"] == phone   # the long line scrolls inside its box on a phone; a laptop shows it whole
        for number in range(1, 5):
            wait_question(page, number)
            page.wait_for_timeout(100)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, number   # nothing sideways
            for scroll in (0, 400, 100_000):   # the top, the middle and the bottom of the page
                page.evaluate(f"window.scrollTo(0, {scroll})")
                assert page.evaluate(IN_VIEW, "#time-left"), (number, scroll)
                assert page.evaluate(IN_VIEW, "#save-next"), (number, scroll)
                assert page.evaluate(IN_VIEW, "#palette-jump" if phone else '#palette [data-goto="1"]'), (number, scroll)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(tmp_path / f"q{number}-{width}.png"))
            if number < 4:
                page.click("#save-next")
        if phone:   # the header's Palette button brings the palette up, and a jump lands on the question's top
            page.click("#palette-jump")
            page.wait_for_timeout(300)
            assert page.evaluate(IN_VIEW, '#palette [data-goto="2"]')
            page.screenshot(path=str(tmp_path / f"palette-{width}.png"))
            page.click('#palette [data-goto="2"]')
            wait_question(page, 2)
            assert page.evaluate("window.scrollY") == 0
        else:
            assert not page.is_visible("#palette-jump")
        page.click("#submit-button")
        page.click("#summary-submit")
        page.click("#confirm-yes")
        page.wait_for_url("**/report")
        page.wait_for_selector("body[data-typeset]")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        cells = page.evaluate("""() => { const box = document.querySelector('.scroll').getBoundingClientRect();
            return [...document.querySelectorAll('table.topics td')].map(td => { const r = td.getBoundingClientRect();
                return r.width > 0 && r.left >= box.left && r.right <= box.right; }); }""")
        assert cells and all(cells)   # every cell of the topic table is inside its box: none clipped
        assert page.locator("table.topics tr").nth(1).inner_text().replace("\n", " ").startswith("Attention by hand")
        page.locator("h2:has-text('By topic')").scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / f"report-{width}.png"))
