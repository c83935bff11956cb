"""The browser mock end to end in Debian's Chromium (Playwright): a whole small paper taken as a
candidate would, the keypad's logic, and the layout at a laptop's and a phone's width.
Skips with the reason where Chromium or Playwright is missing (CI installs both)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
from browser_support import chromium_browser  # noqa: E402
from practice_helpers import expected_marks, right_answer, wrong_answer  # noqa: E402
from quizforge.practice.mock import MockEngine  # noqa: E402
from quizforge.practice.store import History, MockState  # noqa: E402
from quizforge.web.launch import BackgroundServer  # noqa: E402
from quizforge.web.server import STATIC  # noqa: E402
from quizforge.web.sitting import WebSitting  # noqa: E402

MCQ = "dims.shapes-0000"
NAT = "dims.d_k-0001"
MSQ = "concepts.complexity-0002"        # three correct options
NAT_NEGATIVE = "norms.layernorm-0001"   # a negative key: the keypad's minus sign
WEIGHTS = "attention.weight-0001"       # its worked solution has attention weights: a heatmap
PAPER = [MCQ, NAT, MSQ, NAT_NEGATIVE, WEIGHTS]


class LiveServer(BackgroundServer):
    """The exam server for one sitting of `paper`, on a fresh history."""

    def __init__(self, tmp_path: Path, paper=PAPER, minutes: float = 30, keyboard: bool = False):
        self.history = History(tmp_path / "history.db")
        session = self.history.start_session("mock", {}, time.time())
        state = MockState(session, "gate", list(paper), minutes)
        self.history.create_mock(state)
        super().__init__(WebSitting(MockEngine(self.history, state), name="Asha"), keyboard=keyboard)

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.history.close()


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module: each test opens its own page."""
    with chromium_browser() as context:
        yield context


def palette_class(page, number: int) -> str:
    return page.get_attribute(f'#palette [data-goto="{number}"]', "class")


def wait_question(page, number: int) -> None:
    page.wait_for_function(f"document.getElementById('question-number').textContent === 'Question No. {number}'")


def keypad(page, text: str) -> None:
    for ch in text:
        page.click(f'#response [data-keypad="{ch}"]')


def test_a_whole_paper_in_chromium_scores_as_the_engine(browser, tmp_path):
    with LiveServer(tmp_path) as live:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(live.url)

        # Instructions: two pages, then the declaration unlocks the start.
        assert page.is_visible("text=General instructions")
        page.click("#instructions-next")
        assert page.is_visible("text=Paper-specific instructions")
        assert page.is_visible("text=5 questions for 8 marks")
        assert page.is_disabled("#begin")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        assert page.inner_text("#candidate-name") == "Asha"
        assert page.inner_text("#question-meta") == "MCQ · 1 mark · −1/3 for a wrong answer"
        assert page.inner_text(".tab.active") == "1-mark questions"
        assert page.get_attribute(".tab.active", "title") == (   # the section's counts, on hover
            "Answered: 0\nNot Answered: 1\nNot Visited: 1\nMarked for Review: 0\nAnswered & Marked: 0")

        # MCQ: a radio; clicking the chosen option again keeps it.
        mcq_answer = wrong_answer(MCQ)
        option = page.locator(f'#response input[value="{mcq_answer}"]')
        option.click()
        option.click()
        assert option.is_checked()
        page.click("#save-next")
        wait_question(page, 2)
        assert "answered" in palette_class(page, 1).split()

        # NAT through the keypad; the keyboard is blocked.
        page.click("#nat-answer")
        page.keyboard.type("999")
        assert page.input_value("#nat-answer") == ""
        keypad(page, "-")
        page.click("#save-next")   # unreadable: refused in a line, and the entry stays to be corrected
        page.wait_for_function("document.getElementById('response-error').textContent !== ''")
        assert "a number should follow" in page.inner_text("#response-error")
        assert page.input_value("#nat-answer") == "-"
        page.click('#response [data-keypad="Clear All"]')
        keypad(page, "12")
        page.click('#response [data-keypad="Backspace"]')
        keypad(page, right_answer(NAT)[1:])
        assert page.input_value("#nat-answer") == right_answer(NAT)

        # The calculator (another engineer's file): 2 + 3 = 5 when it is there.
        page.click("#calculator-button")
        if (STATIC / "calculator.js").exists():
            page.wait_for_selector("#gate-calculator")
            for key in ("2", "+", "3", "="):
                page.click(f'#gate-calculator [data-key="{key}"]')
            assert "5" in page.inner_text("#gate-calculator .calc-display")
            page.click("#gate-calculator .calc-close")
            assert not page.is_visible("#gate-calculator")
        page.click("#save-next")
        wait_question(page, 3)   # the first section's last question: on to the next section
        if (STATIC / "calculator.js").exists():   # the same calculator on the next question, as it was left
            page.click("#calculator-button")
            assert page.is_visible("#gate-calculator") and "5" in page.inner_text("#gate-calculator .calc-display")
            page.click("#gate-calculator .calc-close")
        assert "active" in page.get_attribute('.tab[data-section="1"]', "class")

        # MSQ: checkboxes, then Mark for Review & Next (answered and marked: evaluated).
        for letter in right_answer(MSQ).split(","):
            page.check(f'#response input[value="{letter}"]')
        page.click("#mark-next")
        wait_question(page, 4)
        assert "answered-marked" in palette_class(page, 3).split()

        # A negative NAT typed on the keypad, then a palette jump: not saved.
        keypad(page, "-3.08")
        assert page.input_value("#nat-answer") == "-3.08"
        page.click('#palette [data-goto="5"]')
        wait_question(page, 5)
        assert "not-answered" in palette_class(page, 4).split()
        assert "current" in palette_class(page, 5).split()
        page.click('#palette [data-goto="4"]')
        wait_question(page, 4)
        assert page.input_value("#nat-answer") == ""
        keypad(page, right_answer(NAT_NEGATIVE))
        page.click("#save-next")
        wait_question(page, 5)

        # Mark the last one unanswered; then back through a section tab, clear and re-answer.
        page.click("#mark-next")
        wait_question(page, 1)   # after the paper's last question: its first
        assert page.locator('#response input[type="radio"]:checked').get_attribute("value") == mcq_answer
        page.click("#clear-response")
        page.wait_for_function("!document.querySelector('#response input:checked')")
        assert "not-answered" in palette_class(page, 1).split()
        page.locator(f'#response input[value="{right_answer(MCQ)}"]').click()
        page.click("#save-next")
        wait_question(page, 2)
        assert "answered" in palette_class(page, 1).split()
        page.click('.tab[data-section="1"]')
        wait_question(page, 3)
        assert "marked" in palette_class(page, 5).split()
        assert page.inner_text("#count-answered-marked") == "1" and page.inner_text("#count-marked") == "1"

        # The palette folds away and opens again.
        page.click("#palette-toggle")
        assert not page.is_visible("#palette") and page.get_attribute("#palette-toggle", "aria-expanded") == "false"
        page.click("#palette-toggle")
        assert page.is_visible("#palette")

        # Question Paper and Instructions open over the exam and close again.
        page.click("#question-paper-button")
        page.wait_for_selector(".paper-question >> nth=4")
        page.click("#paper-close")
        page.click("#instructions-button")
        assert page.is_visible("#dialog-body >> text=General instructions")
        page.click("#instructions-close")

        # Submit: the summary per section, then the confirmation.
        page.click("#submit-button")
        page.wait_for_selector("table.summary.by-section")
        rows = page.locator("table.summary.by-section tr").all_inner_texts()
        assert rows[1].split("\t") == ["1-mark questions", "2", "2", "0", "0", "0", "0"]
        assert rows[2].split("\t") == ["2-mark questions", "3", "1", "0", "1", "1", "0"]
        page.click("#summary-submit")
        page.click("#confirm-yes")
        page.wait_for_url("**/report")
        page.wait_for_selector("body[data-typeset]")

        result = live.sitting.result
        answers = {MCQ: right_answer(MCQ), NAT: right_answer(NAT), MSQ: right_answer(MSQ),
                   NAT_NEGATIVE: right_answer(NAT_NEGATIVE)}
        assert result["score"] == round(sum(expected_marks(q, answers.get(q)) for q in PAPER), 2) == 6
        assert page.inner_text("#score") == f"{result['score']:g} / 8"
        assert page.locator(".review.right").count() == 4 and page.locator(".review.skipped").count() == 1
        assert page.locator(".solution .katex").count() > 10        # math typeset by the shipped KaTeX
        assert page.locator("table.heatmap td").count() >= 4         # the attention weights
        assert not errors, errors


def test_at_zero_the_page_hands_the_paper_in_and_shows_the_report(browser, tmp_path):
    with LiveServer(tmp_path, paper=[MCQ, NAT], minutes=0.05) as live:   # 3 seconds
        page = browser.new_page()
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        page.locator(f'#response input[value="{right_answer(MCQ)}"]').click()
        page.click("#save-next")
        wait_question(page, 2)
        page.wait_for_url("**/report", timeout=15_000)   # nobody pressed Submit
        assert "Time ran out" in page.inner_text(".notice")
        assert live.sitting.result["status"] == "timed_out" and live.sitting.result["answered"] == 1


# (text, caret), key → (text, caret)
KEYPAD_CASES = [
    (("", 0), "5", ("5", 1)),
    (("12", 1), "7", ("172", 2)),
    (("1.5", 3), ".", ("1.5", 3)),              # one decimal point
    (("15", 2), ".", ("15.", 3)),
    (("15", 0), "-", ("-15", 1)),               # a minus only in front
    (("15", 1), "-", ("15", 1)),
    (("-15", 0), "-", ("-15", 0)),
    (("-15", 0), "3", ("-15", 0)),              # nothing in front of the minus
    (("-15", 3), "Backspace", ("-1", 2)),
    (("-15", 0), "Backspace", ("-15", 0)),
    (("-15", 2), "Left", ("-15", 1)),
    (("-15", 0), "Left", ("-15", 0)),
    (("-15", 2), "Right", ("-15", 3)),
    (("-15", 3), "Right", ("-15", 3)),
    (("-15", 1), "Clear All", ("", 0)),
    (("12", 9), "3", ("123", 3)),               # a caret past the end sits at the end
    (("1" * 20, 20), "2", ("1" * 20, 20)),      # at most 20 characters
    (("12", 2), "x", ("12", 2)),                # not a key
    (("12", 1), "-inf", ("-inf", 4)),           # −∞ fills a matrix cell whole
    (("-inf", 4), "3", ("-inf", 4)),            # ... and nothing goes inside it
    (("-inf", 4), ".", ("-inf", 4)),
    (("-inf", 2), "Backspace", ("", 0)),        # it goes out whole
    (("-inf", 4), "Clear All", ("", 0)),
]


def test_the_keypad_logic(browser):
    page = browser.new_page()
    page.add_script_tag(path=str(STATIC / "keypad.js"))
    for state, key, expected in KEYPAD_CASES:
        got = page.evaluate("([text, caret, key]) => GateKeypad.press({text, caret}, key)", [*state, key])
        assert (got["text"], got["caret"]) == expected, (state, key)


def test_the_keyboard_types_nat_answers_only_with_keyboard_allowed(browser, tmp_path):
    with LiveServer(tmp_path, paper=[NAT, MCQ], keyboard=True) as live:
        page = browser.new_page()
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        page.click("#nat-answer")
        page.keyboard.type("12")
        keypad(page, "8")
        assert page.input_value("#nat-answer") == "128"
        page.click("#save-next")
        wait_question(page, 2)
        assert live.sitting.state.answers == {0: "128"}


def _boxes_overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


@pytest.mark.parametrize("width, height", [(1366, 768), (390, 844)])
def test_nothing_overlaps_and_everything_is_reachable(browser, tmp_path, width, height):
    with LiveServer(tmp_path, paper=[NAT_NEGATIVE, MSQ, WEIGHTS]) as live:
        page = browser.new_page()
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        page.wait_for_selector("#question-body .katex")   # the math is typeset
        assert page.evaluate("document.documentElement.scrollWidth") <= width   # no sideways scrolling
        controls = ["#mark-next", "#clear-response", "#save-next", "#calculator-button", "#question-paper-button",
                    "#instructions-button", "#submit-button", "#nat-answer", "#time-left", "#candidate-name",
                    '#palette [data-goto="1"]', '#palette [data-goto="2"]', '#palette-toggle']
        # Boxes in page coordinates (the phone's page scrolls).
        boxes = page.evaluate("""selectors => selectors.map(s => {
            const r = document.querySelector(s).getBoundingClientRect();
            return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height};
        })""", controls)
        for selector, box in zip(controls, boxes):
            assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
        buttons = [(s, b) for s, b in zip(controls, boxes) if s != "#palette-toggle"]
        for i, (a, box_a) in enumerate(buttons):
            for b, box_b in buttons[i + 1:]:
                assert not _boxes_overlap(box_a, box_b), (a, b)
        keys = page.locator("#response [data-keypad]")
        key_boxes = [keys.nth(i).bounding_box() for i in range(keys.count())]
        assert len(key_boxes) == 16
        for i, a in enumerate(key_boxes):
            for b in key_boxes[i + 1:]:
                assert not _boxes_overlap(a, b)
        page.click('#palette [data-goto="2"]')   # reachable: the click lands
        wait_question(page, 2)


def test_the_readme_screenshot_script_writes_the_exam_screen(tmp_path):
    """`python -m quizforge.web.screenshot`, as the README says (its own Chromium, in its own process)."""
    import struct
    import subprocess
    import sys

    from browser_support import why_no_browser

    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    out = tmp_path / "gate-mock.png"
    run = subprocess.run([sys.executable, "-m", "quizforge.web.screenshot", "--out", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout == f"wrote {out}\n", run.stderr
    header = out.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1366, 768)
    root = Path(__file__).parents[2]
    assert (root / "docs/gate-mock.png").exists() and "](docs/gate-mock.png)" in (root / "README.md").read_text()


MASK_ADDITIVE = "matrices.causal_mask-0002"   # 2×3 of 0 and −∞
MASK_BINARY = "matrices.causal_mask-000a"     # 3×3 of 1 and 0


def cell(page, index: int) -> str:
    return f'#response [data-cell="{index}"]'


def test_a_causal_mask_answered_through_the_cells_and_keypad_is_marked_by_the_engine(browser, tmp_path):
    with LiveServer(tmp_path, paper=[MASK_ADDITIVE, MASK_BINARY]) as live:
        page = browser.new_page()
        page.set_viewport_size({"width": 390, "height": 844})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        assert page.locator("#response [data-cell]").count() == 6
        assert page.evaluate("document.documentElement.scrollWidth") <= 390   # the grid fits a phone
        # The keyboard is blocked in the cells too; the −∞ key is there for an additive mask.
        page.click(cell(page, 0))
        page.keyboard.type("7")
        assert page.input_value(cell(page, 0)) == ""
        for index, key in enumerate(["0", "0", "-inf", "0", "0", "0"]):
            page.click(cell(page, index))
            page.click(f'#response [data-keypad="{key}"]')
        page.click(cell(page, 2))
        page.click('#response [data-keypad="Backspace"]')   # −∞ goes out whole, and back in
        assert page.input_value(cell(page, 2)) == ""
        page.click('#response [data-keypad="-inf"]')
        assert page.input_value(cell(page, 2)) == "−∞"
        page.click("#save-next")
        wait_question(page, 2)
        assert live.sitting.state.answers == {0: "0 0 -inf; 0 0 0"}

        # No −∞ key for a 0/1 mask; a cell left empty is named and the cells stay to be finished.
        assert page.locator('#response [data-keypad="-inf"]').count() == 0
        for index, digit in enumerate("100110110"):   # row 3 wrong in one entry, then corrected
            page.click(cell(page, index))
            page.click(f'#response [data-keypad="{digit}"]')
        page.click(cell(page, 8))
        page.click('#response [data-keypad="Clear All"]')
        page.click("#save-next")
        page.wait_for_function("document.getElementById('response-error').textContent !== ''")
        assert "row 3, column 3 is empty" in page.inner_text("#response-error")
        assert page.input_value(cell(page, 7)) == "1"
        page.click('#response [data-keypad="1"]')   # the focused cell is still the empty one
        page.click("#save-next")
        wait_question(page, 1)
        assert page.input_value(cell(page, 2)) == "−∞"   # the saved matrix, back in its cells
        assert [page.input_value(cell(page, i)) for i in range(6)] == ["0", "0", "−∞", "0", "0", "0"]

        page.click("#submit-button")
        page.click("#summary-submit")
        page.click("#confirm-yes")
        page.wait_for_url("**/report")
        items = live.sitting.result["items"]
        assert [item["correct"] for item in items] == [True, True] and live.sitting.result["score"] == 2
        assert page.locator("table.key-matrix").count() == 2 and page.locator("table.your-matrix").count() == 2
        assert not errors, errors


@pytest.mark.parametrize("width, height", [(1366, 768), (390, 844)])
def test_a_matrix_grid_and_its_keypad_fit_without_overlap(browser, tmp_path, width, height):
    with LiveServer(tmp_path, paper=["matrices.causal_mask-0009", MCQ]) as live:   # 4×4, with −∞
        page = browser.new_page()
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        wait_question(page, 1)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # On a phone the answer buttons stick to the screen's bottom over the question until it is
        # scrolled through: measured where they come to rest, below the keypad.
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        targets = page.locator("#response [data-cell], #response [data-keypad], .actions button")
        boxes = page.evaluate("""() => [...document.querySelectorAll(
            "#response [data-cell], #response [data-keypad], .actions button")].map(e => {
            const r = e.getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height};
        })""")
        assert len(boxes) == targets.count() == 16 + 17 + 3
        for i, a in enumerate(boxes):
            assert a["width"] > 0 and a["x"] >= 0 and a["x"] + a["width"] <= width
            for b in boxes[i + 1:]:
                assert not _boxes_overlap(a, b)
        page.click(cell(page, 15))   # the last cell and the −∞ key are reachable: the clicks land
        page.click('#response [data-keypad="-inf"]')
        assert page.input_value(cell(page, 15)) == "−∞"
