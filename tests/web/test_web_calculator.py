"""GATE's virtual scientific calculator (quizforge/web/static/calculator.js) in a real Chromium.

The page under test loads the shipped calculator.css and calculator.js exactly as the exam page
does; the tests click the keys and read the expression line and the display.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import quizforge
from browser_support import chromium_browser

STATIC = Path(quizforge.__file__).parent / "web" / "static"
WIDE = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

# Every key GATE's calculator has: data-key -> the label on it.
GATE_KEYS = {
    "mod": "mod", "deg": "Deg", "rad": "Rad", "MC": "MC", "MR": "MR", "MS": "MS", "M+": "M+", "M-": "M−",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "sin⁻¹", "acos": "cos⁻¹", "atan": "tan⁻¹",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "sinh⁻¹", "acosh": "cosh⁻¹", "atanh": "tanh⁻¹",
    "pi": "π", "e": "e", "fact": "n!", "log2": "log₂x", "ln": "ln", "log10": "log", "logyx": "logᵧx",
    "exp": "eˣ", "10x": "10ˣ", "pow": "xʸ", "cube": "x³", "square": "x²", "yroot": "ʸ√x", "cbrt": "∛",
    "sqrt": "√", "abs": "|x|", "inv": "1/x", "percent": "%", "Exp": "Exp", "(": "(", ")": ")",
    "back": "←", "C": "C", "neg": "+/−", ".": ".", "+": "+", "-": "−", "*": "×", "/": "÷", "=": "=",
    **{str(d): str(d) for d in range(10)},
}


def host_page() -> str:
    """An exam-like page: a form with an answer field, which the calculator must leave alone."""
    css = (STATIC / "calculator.css").read_text(encoding="utf-8")
    js = (STATIC / "calculator.js").read_text(encoding="utf-8")
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<style>{css}</style></head>
<body>
<form id="answer"><input id="nat" name="nat" value="1.5"><button type="submit">Save &amp; Next</button></form>
<script>
  // No 'unsafe-eval' above: were the calculator to reach for eval or Function, the page would throw.
  try {{ window.evalBlocked = eval("false"); }} catch (e) {{ window.evalBlocked = e instanceof EvalError; }}
  window.submits = 0;
  window.pageKeys = [];
  document.getElementById("answer").addEventListener("submit", function (e) {{ e.preventDefault(); window.submits++; }});
  document.addEventListener("keydown", function (e) {{ window.pageKeys.push(e.key); }});
</script>
<script>{js}</script>
</body></html>"""


@pytest.fixture(scope="module")
def browser_page():
    with chromium_browser() as context:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors
        yield page


@pytest.fixture
def page(browser_page):
    """A fresh page at 1366×768 with the calculator open; fails the test on any script error."""
    browser_page.set_viewport_size(WIDE)
    browser_page.set_content(host_page())
    browser_page.evaluate("GateCalculator.open()")
    yield browser_page
    errors, browser_page.errors[:] = list(browser_page.errors), []
    assert not errors, errors


def press(page, *keys: str) -> None:
    for key in keys:
        page.click(f'#gate-calculator button[data-key="{key}"]')


def display(page) -> str:
    return page.inner_text("#gate-calculator .calc-display")


def expression(page) -> str:
    return page.inner_text("#gate-calculator .calc-expression")


def box(page, selector: str = "#gate-calculator") -> dict:
    return page.locator(selector).bounding_box()


# ---------------------------------------------------------------- arithmetic, by clicking


def test_multiplication_binds_tighter_than_addition(page):
    press(page, "2", "+", "3", "*", "4")
    assert expression(page) == "2 + 3 × 4"
    assert display(page) == "4"
    press(page, "=")
    assert display(page) == "14"
    assert expression(page) == "2 + 3 × 4 ="


def test_parentheses_group_first(page):
    press(page, "(", "2", "+", "3", ")", "*", "4", "=")
    assert display(page) == "20"
    assert expression(page) == "(2 + 3) × 4 ="


def test_unclosed_parenthesis_is_closed_at_equals(page):
    press(page, "2", "*", "(", "3", "+", "4", "=")
    assert display(page) == "14"
    assert expression(page) == "2 × (3 + 4) ="


def test_a_function_applies_to_a_closed_group(page):
    press(page, "(", "1", "+", "2", ")", "square")
    assert display(page) == "9"
    assert expression(page) == "sqr(1 + 2)"


def test_sine_in_degrees_then_radians(page):
    deg, rad = (page.locator(f'[data-key="{k}"]') for k in ("deg", "rad"))
    assert deg.get_attribute("aria-pressed") == "true"   # GATE's calculator starts in degrees
    press(page, "3", "0", "sin")
    assert display(page) == "0.5"
    assert expression(page) == "sin(30)"

    press(page, "C", "rad")
    assert (deg.get_attribute("aria-pressed"), rad.get_attribute("aria-pressed")) == ("false", "true")
    press(page, "3", "0", "sin")
    assert display(page) == "-0.988031624092862"   # sin of 30 radians
    press(page, "C", "pi", "/", "2", "=", "sin")
    assert display(page) == "1"

    press(page, "C", "deg", "0", ".", "5", "asin")
    assert display(page) == "30"
    press(page, "C", "9", "0", "tan")
    assert display(page) == "Error"


def test_hyperbolic_functions_and_inverses(page):
    press(page, "0", "cosh")
    assert display(page) == "1"
    press(page, "C", "1", "sinh", "asinh")
    assert display(page) == "1"
    press(page, "C", "1", "tanh")
    assert display(page) == "0.761594155955765"
    press(page, "C", "1", "atanh")
    assert display(page) == "Error"


def test_factorial_of_whole_numbers_only(page):
    press(page, "5", "fact")
    assert display(page) == "120"
    assert expression(page) == "(5)!"
    press(page, "C", "2", ".", "5", "fact")
    assert display(page) == "Error"
    press(page, "C", "3", "neg", "fact")
    assert display(page) == "Error"


def test_logarithms(page):
    press(page, "8", "log2")
    assert display(page) == "3"
    press(page, "C", "1", "0", "0", "0", "log10")
    assert display(page) == "3"
    press(page, "C", "e", "ln")
    assert display(page) == "1"
    press(page, "C", "8", "1", "logyx", "3", "=")   # log of 81 to base 3
    assert display(page) == "4"
    assert expression(page) == "81 log base 3 ="
    press(page, "C", "2", "neg", "ln")
    assert display(page) == "Error"


def test_powers_and_roots(page):
    press(page, "2", "pow", "1", "0", "=")
    assert display(page) == "1024"
    press(page, "2", "7", "cbrt")
    assert display(page) == "3"
    press(page, "C", "8", "1", "yroot", "4", "=")   # the 4th root of 81
    assert display(page) == "3"
    press(page, "C", "3", "cube")
    assert display(page) == "27"
    press(page, "C", "1", "2", "square")
    assert display(page) == "144"
    press(page, "C", "2", "sqrt", "square")
    assert display(page) == "2"
    press(page, "C", "2", "exp", "ln")
    assert display(page) == "2"
    press(page, "C", "3", "10x")
    assert display(page) == "1000"


def test_reciprocal_and_absolute_value(page):
    press(page, "8", "inv")
    assert display(page) == "0.125"
    press(page, "C", "7", "neg", "abs")
    assert display(page) == "7"
    press(page, "C", "0", "inv")
    assert display(page) == "Error"


def test_percent_alone_and_after_plus(page):
    press(page, "2", "5", "percent")
    assert display(page) == "0.25"
    press(page, "C", "2", "0", "0", "+", "1", "0", "percent")
    assert display(page) == "20"   # 10 % of the 200 it is added to
    press(page, "=")
    assert display(page) == "220"
    press(page, "C", "5", "0", "*", "1", "0", "percent", "=")
    assert display(page) == "5"


def test_mod_has_the_precedence_of_times(page):
    press(page, "1", "7", "mod", "5", "=")
    assert display(page) == "2"
    press(page, "C", "1", "0", "+", "1", "7", "mod", "5", "=")
    assert display(page) == "12"   # 10 + (17 mod 5), where left to right would give 2


def test_exp_enters_a_power_of_ten(page):
    press(page, "1", "Exp", "3")
    assert display(page) == "1e3"
    press(page, "=")
    assert display(page) == "1000"
    press(page, "C", "2", ".", "5", "Exp", "2", "neg")   # +/− after Exp flips the exponent
    assert display(page) == "2.5e-2"
    press(page, "+", "1", "=")
    assert display(page) == "1.025"


def test_plus_minus_backspace_and_clear(page):
    press(page, "1", "2", "3", "back")
    assert display(page) == "12"
    press(page, "neg")
    assert display(page) == "-12"
    press(page, "+", "2", "0", "=")
    assert display(page) == "8"
    press(page, "C")
    assert (display(page), expression(page)) == ("0", "")
    press(page, "neg", "4", "*", "3", "=")   # +/− first, then the digits
    assert display(page) == "-12"


def test_new_digits_after_equals_start_afresh_but_an_operator_continues(page):
    press(page, "6", "*", "7", "=")
    press(page, "+", "1", "=")
    assert display(page) == "43"
    press(page, "5")
    assert (display(page), expression(page)) == ("5", "5")


def test_division_by_zero_shows_error_until_c(page):
    press(page, "1", "/", "0", "=")
    assert display(page) == "Error"
    assert expression(page) == "1 ÷ 0 ="
    press(page, "5", "+", "sin")   # nothing but C leaves Error
    assert display(page) == "Error"
    press(page, "C", "2", "+", "2", "=")
    assert display(page) == "4"


def test_memory_keys_and_the_m_indicator(page):
    indicator = page.locator("#gate-calculator .calc-memory")
    assert not indicator.is_visible()
    press(page, "5", "MS")
    assert indicator.is_visible()
    press(page, "C", "3", "M+", "C", "MR")
    assert display(page) == "8"
    press(page, "C", "1", "0", "M-", "C", "MR")
    assert display(page) == "-2"
    press(page, "*", "MR", "=")
    assert display(page) == "4"
    press(page, "MC")
    assert not indicator.is_visible()
    press(page, "MR")
    assert display(page) == "0"


def test_same_calculator_and_memory_after_close_and_reopen(page):
    press(page, "4", "2", "MS")
    page.click("#gate-calculator .calc-close")
    assert page.evaluate("GateCalculator.isOpen()") is False
    assert not page.locator("#gate-calculator").is_visible()
    page.evaluate("GateCalculator.toggle()")
    assert page.evaluate("GateCalculator.isOpen()") is True
    page.evaluate("GateCalculator.open()")   # opening twice builds nothing new
    assert page.locator("#gate-calculator").count() == 1
    assert page.locator("#gate-calculator .calc-memory").is_visible()
    press(page, "C", "MR")
    assert display(page) == "42"
    page.evaluate("GateCalculator.toggle()")
    assert page.evaluate("GateCalculator.isOpen()") is False


# ---------------------------------------------------------------- the pop-up on the page


def test_the_key_set_is_gates(page):
    keys = page.eval_on_selector_all(
        "#gate-calculator button[data-key]", "ks => ks.map(k => [k.dataset.key, k.textContent])")
    assert dict(keys) == GATE_KEYS
    assert len(keys) == len(GATE_KEYS)   # no key twice
    assert page.inner_text("#gate-calculator .calc-titlebar .calc-title") == "Scientific Calculator"


def test_it_leaves_the_page_form_and_keyboard_alone(page):
    press(page, "9", "=")
    assert page.evaluate("window.submits") == 0
    assert page.input_value("#nat") == "1.5"

    page.click("#nat")
    page.keyboard.type("7+")
    assert page.input_value("#nat") == "1.57+"
    assert display(page) == "9"   # typing on the page does not reach the calculator

    page.evaluate("window.pageKeys = []")
    page.evaluate("GateCalculator.close(); GateCalculator.open()")
    page.keyboard.type("6*7")
    page.keyboard.press("Enter")
    assert display(page) == "42"
    page.keyboard.type("^2")
    page.keyboard.press("Backspace")
    page.keyboard.type("3=")
    assert display(page) == "74088"   # typed into the calculator itself, it calculates
    assert page.evaluate("window.pageKeys") == []   # and the page's own key handlers never see it
    assert page.evaluate("window.submits") == 0
    assert page.input_value("#nat") == "1.57+"


def test_it_runs_where_eval_is_forbidden(page):
    assert page.evaluate("window.evalBlocked") is True
    press(page, "(", "1", "+", "2", ")", "pow", "3", "=")
    assert display(page) == "27"


def test_dragging_the_title_bar_moves_it_and_the_viewport_holds_it(page):
    start = box(page)
    title = box(page, "#gate-calculator .calc-titlebar")
    grab_x, grab_y = title["x"] + 60, title["y"] + title["height"] / 2
    page.mouse.move(grab_x, grab_y)
    page.mouse.down()
    page.mouse.move(grab_x - 300, grab_y + 150, steps=4)
    page.mouse.up()
    moved = box(page)
    assert (moved["x"], moved["y"]) == (start["x"] - 300, start["y"] + 150)

    page.mouse.move(grab_x - 300, grab_y + 150)
    page.mouse.down()
    page.mouse.move(-500, -500, steps=3)
    page.mouse.up()
    assert (box(page)["x"], box(page)["y"]) == (0, 0)

    title = box(page, "#gate-calculator .calc-titlebar")
    page.mouse.move(title["x"] + 60, title["y"] + 10)
    page.mouse.down()
    page.mouse.move(5000, 5000, steps=3)
    page.mouse.up()
    end = box(page)
    assert end["x"] + end["width"] == pytest.approx(WIDE["width"], abs=1)
    assert end["y"] + end["height"] == pytest.approx(WIDE["height"], abs=1)

    press(page, "7")   # a drag is not a key press
    assert display(page) == "7"


def test_dragging_by_touch(page):
    """A finger on the title bar drags it too (Chromium's touch events, turned into pointer events)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    try:
        start = box(page)
        title = box(page, "#gate-calculator .calc-titlebar")
        x, y = title["x"] + 60, title["y"] + 10

        def touch(kind: str, points: list[dict]) -> None:
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", [{"x": x, "y": y}])
        for step in range(1, 5):
            touch("touchMove", [{"x": x - 50 * step, "y": y + 25 * step}])
        touch("touchEnd", [])
        moved = box(page)
        assert (moved["x"], moved["y"]) == (start["x"] - 200, start["y"] + 100)
    finally:
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
        cdp.detach()


def test_it_fits_a_390_pixel_phone_with_nothing_overlapping(page):
    page.evaluate("GateCalculator.close()")
    page.set_viewport_size(PHONE)
    page.evaluate("GateCalculator.open()")
    popup = box(page)
    assert popup["x"] >= 0 and popup["x"] + popup["width"] <= PHONE["width"]
    assert popup["y"] >= 0 and popup["y"] + popup["height"] <= PHONE["height"]
    problems = page.evaluate("""() => {
        const popup = document.getElementById("gate-calculator").getBoundingClientRect();
        const keys = [...document.querySelectorAll("#gate-calculator button[data-key]")];
        const rects = keys.map(k => k.getBoundingClientRect());
        const problems = [];
        keys.forEach((k, i) => {
            const r = rects[i];
            if (r.left < popup.left || r.right > popup.right || r.bottom > popup.bottom) problems.push(k.dataset.key + " outside");
            if (k.scrollWidth > k.clientWidth) problems.push(k.dataset.key + " label overflows");
            if (r.width < 24 || r.height < 24) problems.push(k.dataset.key + " too small to tap");
            for (let j = i + 1; j < keys.length; j++) {
                const s = rects[j];
                if (r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom)
                    problems.push(k.dataset.key + " overlaps " + keys[j].dataset.key);
            }
        });
        return problems;
    }""")
    assert problems == []
    press(page, "2", "+", "3", "*", "4", "=")
    assert display(page) == "14"


def test_shrinking_the_window_pulls_it_back_into_view(page):
    before = box(page)
    assert before["x"] + before["width"] > 700   # out of the smaller window unless the resize moves it
    # A listener added after the calculator's runs after it on the same event: once this promise
    # settles on the resize to 700×500, the calculator has handled that resize (no sleeping).
    page.evaluate("""() => { window.resizedTo700x500 = new Promise(done => addEventListener("resize", function seen() {
        if (innerWidth === 700 && innerHeight === 500) { removeEventListener("resize", seen); done(); }
    })); }""")
    page.set_viewport_size({"width": 700, "height": 500})
    page.evaluate("window.resizedTo700x500")
    popup = box(page)
    assert popup["x"] >= 0 and popup["y"] >= 0
    assert popup["x"] + popup["width"] <= 700 and popup["y"] + popup["height"] <= 500


# ---------------------------------------------------------------- the engine alone (no DOM)

ENGINE_CASES = [
    # keys, display, expression line
    (["2", "pow", "3", "pow", "2", "="], "512", "2 ^ 3 ^ 2 ="),   # powers associate to the right
    (["1", "0", "-", "4", "-", "3", "="], "3", "10 − 4 − 3 ="),
    (["1", ".", "1", "+", "2", ".", "2", "="], "3.3", "1.1 + 2.2 ="),
    (["2", "(", "3", "+", "1", ")", "="], "8", "2 × (3 + 1) ="),
    (["5", "+", "*", "3", "="], "15", "5 × 3 ="),   # a second operator replaces the first
    (["5", "+", "="], "5", "5 ="),
    (["(", "(", "1", "+", "2", ")", "*", "3", ")", "="], "9", "((1 + 2) × 3) ="),
    (["2", "7", "neg", "yroot", "3", "="], "-3", "-27 yroot 3 ="),
    (["1", "8", "0", "sin"], "0", "sin(180)"),
    (["1", "8", "0", "neg", "cos"], "-1", "cos(-180)"),
    (["1", "7", "1", "fact"], "Error", "171"),
    (["1", "7", "0", "fact", "log10"], "306.860781994828", "log((170)!)"),
    (["2", "acos"], "Error", "2"),
    (["0", ".", "5", "acosh"], "Error", "0.5"),
    (["1", "logyx", "1", "="], "Error", "1 log base 1 ="),
    (["5", "mod", "0", "="], "Error", "5 mod 0 ="),
    (["1", "Exp", "4", "0", "0", "="], "Error", "1e400"),
    (["9", ".", ".", "5"], "9.5", "9.5"),
    (["0", "0", "7"], "7", "7"),
    (["pi", "neg"], "-3.14159265358979", "−(π)"),
    ([")", "4", ")", "="], "4", "4 ="),   # a ")" with nothing open is ignored
]


@pytest.mark.parametrize(("keys", "shown", "line"), ENGINE_CASES, ids=[" ".join(c[0]) for c in ENGINE_CASES])
def test_engine(browser_page, keys, shown, line):
    if browser_page.evaluate("typeof GateCalculator") == "undefined":
        browser_page.set_content(host_page())
    view = browser_page.evaluate(
        """keys => { const engine = new GateCalculator.Engine();
                     keys.forEach(k => engine.press(k)); return engine.view(); }""", keys)
    assert (view["display"], view["expression"]) == (shown, line)


def test_unknown_keys_are_ignored(browser_page):
    browser_page.set_content(host_page())
    view = browser_page.evaluate("""() => { const engine = new GateCalculator.Engine();
        const taken = ["7", "alert(1)", "constructor", "__proto__", "toString"].map(k => engine.press(k));
        return [taken, engine.view()]; }""")
    assert view == [[True, False, False, False, False], {"expression": "7", "display": "7", "memory": 0, "angle": "deg"}]
