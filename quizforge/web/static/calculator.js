/* GATE's virtual scientific calculator for the browser mock.
 *
 * Two parts: CalculatorEngine (key names in, expression line and display out; no DOM) and a
 * thin pop-up that turns clicks and keys inside it into engine key presses.
 * Expressions are evaluated by the small precedence parser below, never by eval or Function.
 */
(function (root) {
  "use strict";

  // ---------------------------------------------------------------- pure part

  var BINARY_PRECEDENCE = { "+": 1, "-": 1, "*": 2, "/": 2, mod: 2, pow: 3, yroot: 3, logyx: 3 };
  var BINARY_LABEL = {
    "+": "+", "-": "\u2212", "*": "\u00d7", "/": "\u00f7", mod: "mod",
    pow: "^", yroot: "yroot", logyx: "log base"
  };
  var MAX_ENTRY_CHARS = 20;
  var LARGEST_FACTORIAL = 170;   // 171! is beyond a double

  function CalcError(reason) { this.reason = reason; }

  function finite(value, reason) {
    if (typeof value !== "number" || !isFinite(value)) throw new CalcError(reason || "out of range");
    return value;
  }

  // Shown to 15 significant digits, one fewer than a double holds: the last bit of rounding error
  // stays out of sight (0.1 + 0.2 shows 0.3, tan 45° shows 1) while the full value is kept.
  function tidy(value) {
    finite(value);
    var rounded = Number(value.toPrecision(15));
    return rounded === 0 ? 0 : rounded;   // no "-0"
  }

  function formatNumber(value) {
    return String(tidy(value));
  }

  function applyBinary(op, left, right) {
    switch (op) {
      case "+": return finite(left + right);
      case "-": return finite(left - right);
      case "*": return finite(left * right);
      case "/":
        if (right === 0) throw new CalcError("division by zero");
        return finite(left / right);
      case "mod":
        if (right === 0) throw new CalcError("mod by zero");
        return finite(left % right);
      case "pow": return finite(Math.pow(left, right));
      case "yroot":   // x yroot y: the y-th root of x
        if (right === 0) throw new CalcError("zeroth root");
        if (left < 0 && Number.isInteger(right) && Math.abs(right) % 2 === 1) {
          return finite(-Math.pow(-left, 1 / right));
        }
        return finite(Math.pow(left, 1 / right));
      case "logyx":   // x logyx y: the logarithm of x to base y
        if (left <= 0 || right <= 0 || right === 1) throw new CalcError("log domain");
        return finite(Math.log(left) / Math.log(right));
    }
    throw new CalcError("unknown operator");
  }

  // Trig in degrees is exact at the multiples of 90° where radians would leave 1e-16 behind.
  function degreeTrig(name, degrees) {
    var turn = degrees % 360;
    if (name !== "cos" && turn % 180 === 0) return 0;
    if (name === "cos" && (turn - 90) % 180 === 0) return 0;
    if (name === "tan" && (turn - 90) % 180 === 0) throw new CalcError("tan of 90\u00b0");
    return Math[name](degrees * Math.PI / 180);
  }

  function factorial(n) {
    n = tidy(n);   // 3 that arrived as 2.9999999999999996 is still 3
    if (!Number.isInteger(n) || n < 0) throw new CalcError("factorial of a non-integer or negative");
    if (n > LARGEST_FACTORIAL) throw new CalcError("factorial too large");
    var product = 1;
    for (var k = 2; k <= n; k++) product *= k;
    return product;
  }

  function positive(x, reason) {
    if (x <= 0) throw new CalcError(reason);
    return x;
  }

  // Each unary key: how it computes, and how it is written on the expression line.
  var UNARY = {
    sin: { label: "sin", trig: true }, cos: { label: "cos", trig: true }, tan: { label: "tan", trig: true },
    asin: { label: "sin\u207b\u00b9", inverseTrig: true },
    acos: { label: "cos\u207b\u00b9", inverseTrig: true },
    atan: { label: "tan\u207b\u00b9", inverseTrig: true },
    sinh: { label: "sinh", apply: Math.sinh }, cosh: { label: "cosh", apply: Math.cosh },
    tanh: { label: "tanh", apply: Math.tanh },
    asinh: { label: "sinh\u207b\u00b9", apply: Math.asinh },
    acosh: { label: "cosh\u207b\u00b9", apply: Math.acosh },
    atanh: { label: "tanh\u207b\u00b9", apply: Math.atanh },
    fact: { label: "fact", apply: factorial },
    log2: { label: "log\u2082", apply: function (x) { return Math.log2(positive(x, "log of zero or a negative")); } },
    ln: { label: "ln", apply: function (x) { return Math.log(positive(x, "log of zero or a negative")); } },
    log10: { label: "log", apply: function (x) { return Math.log10(positive(x, "log of zero or a negative")); } },
    exp: { label: "e^", apply: Math.exp },
    "10x": { label: "10^", apply: function (x) { return Math.pow(10, x); } },
    square: { label: "sqr", apply: function (x) { return x * x; } },
    cube: { label: "cube", apply: function (x) { return x * x * x; } },
    sqrt: {
      label: "\u221a",
      apply: function (x) { if (x < 0) throw new CalcError("root of a negative"); return Math.sqrt(x); }
    },
    cbrt: { label: "\u221b", apply: Math.cbrt },
    abs: { label: "abs", apply: Math.abs },
    inv: { label: "1/", apply: function (x) { if (x === 0) throw new CalcError("division by zero"); return 1 / x; } }
  };

  function applyUnary(name, x, angle) {
    var spec = UNARY[name];
    var result;
    if (spec.trig) {
      result = angle === "deg" ? degreeTrig(name, x) : Math[name](x);
    } else if (spec.inverseTrig) {
      result = Math[name](x);
      if (angle === "deg") result = result * 180 / Math.PI;
    } else {
      result = spec.apply(x);
    }
    return finite(result, spec.label + " out of its domain");
  }

  function wrapLabel(label) {
    return /^\(.*\)$/.test(label) ? label : "(" + label + ")";
  }

  // Tokens: {type:"num", value, label}, {type:"op", op}, {type:"lparen"}, {type:"rparen"}.
  // Precedence climbing; parentheses still open at the end are closed implicitly, as on GATE's.
  function evaluateTokens(tokens) {
    var pos = 0;

    function primary() {
      var token = tokens[pos++];
      if (!token) throw new CalcError("incomplete expression");
      if (token.type === "num") return token.value;
      if (token.type === "lparen") {
        var value = expression(1);
        if (pos < tokens.length) {
          if (tokens[pos].type !== "rparen") throw new CalcError("unbalanced parentheses");
          pos++;
        }
        return value;
      }
      throw new CalcError("unexpected " + token.type);
    }

    function expression(minPrecedence) {
      var left = primary();
      while (pos < tokens.length && tokens[pos].type === "op" && BINARY_PRECEDENCE[tokens[pos].op] >= minPrecedence) {
        var op = tokens[pos++].op;
        var precedence = BINARY_PRECEDENCE[op];
        // + − × ÷ mod associate to the left; the powers and roots to the right.
        var right = expression(precedence === 3 ? precedence : precedence + 1);
        left = applyBinary(op, left, right);
      }
      return left;
    }

    var result = expression(1);
    if (pos !== tokens.length) throw new CalcError("unexpected " + tokens[pos].type);
    return result;
  }

  function labelOf(tokens) {
    return tokens.map(function (token) {
      if (token.type === "num") return token.label;
      if (token.type === "op") return BINARY_LABEL[token.op];
      return token.type === "lparen" ? "(" : ")";
    }).join(" ").replace(/\( /g, "(").replace(/ \)/g, ")");
  }

  /* The key-press state machine.
   *   tokens   what is committed to the expression so far (numbers, operators, open parentheses);
   *   current  the operand being entered: {typing: "12.5e-3"} while digits come in, or
   *            {value, label} once computed (a function's result, π, MR, a closed group, a result);
   *   shown    the number on the display when there is no current operand.
   * A closing parenthesis folds its group into one operand, so that functions apply to it.
   */
  function CalculatorEngine() {
    this.memory = 0;
    this.angle = "deg";
    this.clear();
  }

  CalculatorEngine.prototype.clear = function () {
    this.tokens = [];
    this.current = null;
    this.shown = 0;
    this.error = false;
    this.finished = null;   // the expression line of the last "=" until the next entry
  };

  CalculatorEngine.prototype.press = function (key) {
    if (key === "C") { this.clear(); return true; }
    if (key === "deg" || key === "rad") { this.angle = key; return true; }
    if (key === "MC") { this.memory = 0; return true; }
    if (this.error) return false;   // only C leaves "Error"
    try {
      return this.dispatch(key);
    } catch (err) {
      if (!(err instanceof CalcError)) throw err;
      this.error = true;
      this.errorReason = err.reason;
      return true;
    }
  };

  CalculatorEngine.prototype.dispatch = function (key) {
    if (/^[0-9]$/.test(key) || key === ".") return this.typeDigit(key);
    if (key === "Exp") return this.typeExponent();
    if (key === "neg") return this.negate();
    if (key === "back") return this.backspace();
    if (Object.prototype.hasOwnProperty.call(UNARY, key)) return this.applyFunction(key);
    if (Object.prototype.hasOwnProperty.call(BINARY_PRECEDENCE, key)) return this.binary(key);
    switch (key) {
      case "pi": return this.setOperand(Math.PI, "\u03c0");
      case "e": return this.setOperand(Math.E, "e");
      case "MR": return this.setOperand(this.memory, formatNumber(this.memory));
      case "MS": this.memory = this.currentValue(); return true;
      case "M+": this.memory = finite(this.memory + this.currentValue()); return true;
      case "M-": this.memory = finite(this.memory - this.currentValue()); return true;
      case "percent": return this.percent();
      case "(": return this.openParen();
      case ")": return this.closeParen();
      case "=": return this.equals();
    }
    return false;
  };

  // A new operand after "=" starts a new expression.
  CalculatorEngine.prototype.startOperand = function () {
    if (this.finished !== null) {
      this.tokens = [];
      this.current = null;
      this.finished = null;
    }
  };

  CalculatorEngine.prototype.continueFromResult = function () {
    this.finished = null;
  };

  CalculatorEngine.prototype.typeDigit = function (digit) {
    this.startOperand();
    if (!this.current || this.current.typing === undefined) {
      this.current = { typing: digit === "." ? "0." : digit };
      return true;
    }
    var text = this.current.typing;
    if (text.replace("-", "").length >= MAX_ENTRY_CHARS) return false;
    if (digit === ".") {
      if (/[.e]/.test(text)) return false;
      this.current.typing = text + ".";
    } else if (text === "0" || text === "-0") {
      this.current.typing = text.slice(0, -1) + digit;
    } else {
      this.current.typing = text + digit;
    }
    return true;
  };

  CalculatorEngine.prototype.typeExponent = function () {
    if (!this.current || this.current.typing === undefined || this.current.typing.indexOf("e") >= 0) return false;
    this.current.typing += "e";
    return true;
  };

  CalculatorEngine.prototype.negate = function () {
    this.continueFromResult();
    if (!this.current) {
      this.current = { typing: "-0" };
    } else if (this.current.typing !== undefined) {
      var text = this.current.typing;
      var at = text.indexOf("e") + 1;   // after "Exp", +/− flips the exponent's sign
      this.current.typing = text.charAt(at) === "-" ? text.slice(0, at) + text.slice(at + 1)
        : text.slice(0, at) + "-" + text.slice(at);
    } else {
      var value = -this.current.value;
      var plain = /^-?[0-9.]+(e[+-]?[0-9]+)?$/.test(this.current.label);
      this.current = { value: value, label: plain ? formatNumber(value) : "\u2212" + wrapLabel(this.current.label) };
    }
    return true;
  };

  CalculatorEngine.prototype.backspace = function () {
    if (!this.current || this.current.typing === undefined) return false;
    var text = this.current.typing.slice(0, -1);
    this.current.typing = text === "" || text === "-" ? "0" : text;
    return true;
  };

  CalculatorEngine.prototype.setOperand = function (value, label) {
    this.startOperand();
    this.current = { value: value, label: label };
    return true;
  };

  CalculatorEngine.prototype.operand = function () {
    var current = this.current;
    if (current.typing === undefined) return current;
    var text = current.typing.replace(/e-?$/, "");   // "1 Exp" with no exponent yet is 1
    return { value: finite(Number(text), "number too large"), label: text };
  };

  CalculatorEngine.prototype.currentValue = function () {
    return this.current ? this.operand().value : this.shown;
  };

  CalculatorEngine.prototype.applyFunction = function (name) {
    this.continueFromResult();
    var operand = this.current ? this.operand() : { value: this.shown, label: formatNumber(this.shown) };
    var value = applyUnary(name, operand.value, this.angle);
    var label;
    if (name === "fact") label = wrapLabel(operand.label) + "!";
    else if (name === "abs") label = "|" + operand.label + "|";
    else label = UNARY[name].label + wrapLabel(operand.label);
    this.current = { value: value, label: label };
    return true;
  };

  CalculatorEngine.prototype.lastToken = function () {
    return this.tokens[this.tokens.length - 1];
  };

  CalculatorEngine.prototype.commitOperand = function () {
    var operand = this.operand();
    this.tokens.push({ type: "num", value: operand.value, label: operand.label });
    this.shown = operand.value;
    this.current = null;
  };

  CalculatorEngine.prototype.binary = function (op) {
    this.continueFromResult();
    if (this.current) {
      this.commitOperand();
    } else {
      var last = this.lastToken();
      if (last && last.type === "op") {   // a second operator replaces the first
        last.op = op;
        return true;
      }
      if (last && last.type === "lparen") return false;
      this.tokens.push({ type: "num", value: this.shown, label: formatNumber(this.shown) });
    }
    this.tokens.push({ type: "op", op: op });
    return true;
  };

  // x % is x/100, except after + or −, where it is that percentage of what precedes: 200 + 10 % = 220.
  CalculatorEngine.prototype.percent = function () {
    if (!this.current) return false;
    this.continueFromResult();
    var x = this.operand().value;
    var last = this.lastToken();
    var value = x / 100;
    if (last && last.type === "op" && (last.op === "+" || last.op === "-")) {
      var start = this.tokens.length - 1;
      while (start > 0 && this.tokens[start - 1].type !== "lparen") start--;
      value = evaluateTokens(this.tokens.slice(start, -1)) * x / 100;
    }
    this.current = { value: finite(value), label: formatNumber(value) };
    return true;
  };

  CalculatorEngine.prototype.openParen = function () {
    this.startOperand();
    if (this.current) {   // 2 ( 3 + 1 ) reads as 2 × (3 + 1)
      this.commitOperand();
      this.tokens.push({ type: "op", op: "*" });
    }
    this.tokens.push({ type: "lparen" });
    return true;
  };

  CalculatorEngine.prototype.closeParen = function () {
    var open = -1;
    for (var i = this.tokens.length - 1; i >= 0; i--) {
      if (this.tokens[i].type === "lparen") { open = i; break; }
    }
    if (open < 0 || !this.current) return false;   // no "(" to close, or "( )" and "(2 +" are unfinished
    this.commitOperand();
    var group = this.tokens.slice(open);
    group.push({ type: "rparen" });
    var value = evaluateTokens(group);
    this.tokens = this.tokens.slice(0, open);
    this.current = { value: value, label: labelOf(group) };
    return true;
  };

  CalculatorEngine.prototype.equals = function () {
    if (this.finished !== null) return false;
    if (this.current) {
      this.commitOperand();
    } else {
      while (this.tokens.length && this.lastToken().type !== "num") this.tokens.pop();   // "5 +" is 5
    }
    if (!this.tokens.length) this.tokens.push({ type: "num", value: this.shown, label: formatNumber(this.shown) });
    var unclosed = this.tokens.filter(function (t) { return t.type === "lparen"; }).length;
    this.finished = labelOf(this.tokens) + ")".repeat(unclosed) + " =";
    var value = evaluateTokens(this.tokens);
    this.tokens = [];
    this.shown = value;
    this.current = { value: value, label: formatNumber(value) };
    return true;
  };

  CalculatorEngine.prototype.view = function () {
    var expression = this.finished !== null ? this.finished : labelOf(this.tokens);
    if (this.finished === null && this.current) {
      var label = this.current.typing !== undefined ? this.current.typing : this.current.label;
      expression = expression ? expression + " " + label : label;
      expression = expression.replace(/\( /g, "(");
    }
    var display;
    if (this.error) display = "Error";
    else if (this.current && this.current.typing !== undefined) display = this.current.typing;
    else display = formatNumber(this.current ? this.current.value : this.shown);
    return { expression: expression, display: display, memory: this.memory, angle: this.angle };
  };

  // ---------------------------------------------------------------- DOM part

  // [data-key, label as GATE shows it, style]; "wide" spans two columns, "tall" two rows.
  var KEY_ROWS = [
    [["mod", "mod", "fn"], ["deg", "Deg", "mode"], ["rad", "Rad", "mode"], [null, "", "gap3"],
      ["MC", "MC", "mem"], ["MR", "MR", "mem"], ["MS", "MS", "mem"], ["M+", "M+", "mem"], ["M-", "M\u2212", "mem"]],
    [["sinh", "sinh", "fn"], ["cosh", "cosh", "fn"], ["tanh", "tanh", "fn"], ["Exp", "Exp", "fn"],
      ["(", "(", "fn"], [")", ")", "fn"], ["back", "\u2190", "edit wide"], ["C", "C", "edit clear"],
      ["neg", "+/\u2212", "edit"], ["sqrt", "\u221a", "op"]],
    [["asinh", "sinh\u207b\u00b9", "fn"], ["acosh", "cosh\u207b\u00b9", "fn"], ["atanh", "tanh\u207b\u00b9", "fn"],
      ["log2", "log\u2082x", "fn"], ["ln", "ln", "fn"], ["log10", "log", "fn"],
      ["7", "7", "num"], ["8", "8", "num"], ["9", "9", "num"], ["/", "\u00f7", "op"], ["percent", "%", "op"]],
    [["pi", "\u03c0", "fn"], ["e", "e", "fn"], ["fact", "n!", "fn"], ["logyx", "log\u1d67x", "fn"],
      ["exp", "e\u02e3", "fn"], ["10x", "10\u02e3", "fn"],
      ["4", "4", "num"], ["5", "5", "num"], ["6", "6", "num"], ["*", "\u00d7", "op"], ["inv", "1/x", "op"]],
    [["sin", "sin", "fn"], ["cos", "cos", "fn"], ["tan", "tan", "fn"], ["pow", "x\u02b8", "fn"],
      ["cube", "x\u00b3", "fn"], ["square", "x\u00b2", "fn"],
      ["1", "1", "num"], ["2", "2", "num"], ["3", "3", "num"], ["-", "\u2212", "op"], ["=", "=", "op equals tall"]],
    [["asin", "sin\u207b\u00b9", "fn"], ["acos", "cos\u207b\u00b9", "fn"], ["atan", "tan\u207b\u00b9", "fn"],
      ["yroot", "\u02b8\u221ax", "fn"], ["cbrt", "\u221b", "fn"], ["abs", "|x|", "fn"],
      ["0", "0", "num wide"], [".", ".", "num"], ["+", "+", "op"]]
  ];

  // Keys typed while the calculator has focus; nothing outside it is listened to.
  var KEYBOARD = {
    "+": "+", "-": "-", "*": "*", "/": "/", "^": "pow", "(": "(", ")": ")", "%": "percent", ".": ".",
    "=": "=", Enter: "=", Backspace: "back", Delete: "C"
  };

  var popup = null;
  var engine = null;
  var focusBeforeOpen = null;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function render() {
    var view = engine.view();
    var expression = popup.querySelector(".calc-expression");
    var display = popup.querySelector(".calc-display");
    expression.textContent = view.expression;
    display.textContent = view.display;
    expression.scrollLeft = expression.scrollWidth;   // the end of a long line is what was just typed
    display.scrollLeft = display.scrollWidth;
    popup.querySelector(".calc-memory").hidden = view.memory === 0;
    ["deg", "rad"].forEach(function (mode) {
      var key = popup.querySelector('[data-key="' + mode + '"]');
      key.setAttribute("aria-pressed", String(view.angle === mode));
      key.classList.toggle("calc-active", view.angle === mode);
    });
  }

  function keepInViewport(left, top) {
    var maxLeft = Math.max(0, document.documentElement.clientWidth - popup.offsetWidth);
    var maxTop = Math.max(0, document.documentElement.clientHeight - popup.offsetHeight);
    popup.style.left = Math.min(Math.max(0, left), maxLeft) + "px";
    popup.style.top = Math.min(Math.max(0, top), maxTop) + "px";
  }

  // Pointer events cover mouse, pen and touch. The move and up listeners sit on the window only
  // while a drag lasts, so a fast pointer that leaves the title bar still carries the pop-up.
  function enableDragging(handle) {
    var drag = null;
    function move(event) {
      if (event.pointerId === drag.pointer) keepInViewport(event.clientX - drag.dx, event.clientY - drag.dy);
    }
    function stop(event) {
      if (event.pointerId !== drag.pointer) return;
      drag = null;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", stop);
      window.removeEventListener("pointercancel", stop);
    }
    handle.addEventListener("pointerdown", function (event) {
      if (drag || event.button !== 0 || event.target.closest(".calc-close")) return;
      var box = popup.getBoundingClientRect();
      drag = { pointer: event.pointerId, dx: event.clientX - box.left, dy: event.clientY - box.top };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", stop);
      window.addEventListener("pointercancel", stop);
      event.preventDefault();   // no text selection while dragging
    });
  }

  function build() {
    popup = element("div");
    popup.id = "gate-calculator";
    popup.setAttribute("role", "dialog");
    popup.setAttribute("aria-label", "Scientific Calculator");
    popup.tabIndex = -1;
    popup.hidden = true;

    var title = element("div", "calc-titlebar");
    title.appendChild(element("span", "calc-title", "Scientific Calculator"));
    var closeButton = element("button", "calc-close", "\u00d7");
    closeButton.type = "button";
    closeButton.setAttribute("aria-label", "Close the calculator");
    closeButton.addEventListener("click", close);
    title.appendChild(closeButton);
    popup.appendChild(title);

    var screen = element("div", "calc-screen");
    screen.appendChild(element("div", "calc-expression"));
    var line = element("div", "calc-display-line");
    var memory = element("span", "calc-memory", "M");
    memory.title = "A number is in memory";
    line.appendChild(memory);
    line.appendChild(element("div", "calc-display"));
    screen.appendChild(line);
    popup.appendChild(screen);

    var keys = element("div", "calc-keys");
    KEY_ROWS.forEach(function (row) {
      row.forEach(function (spec) {
        var classes = spec[2].split(" ").map(function (c) { return "calc-" + c; }).join(" ");
        if (spec[0] === null) {
          keys.appendChild(element("span", classes));
          return;
        }
        var key = element("button", "calc-key " + classes, spec[1]);
        key.type = "button";
        key.setAttribute("data-key", spec[0]);
        keys.appendChild(key);
      });
    });
    popup.appendChild(keys);

    keys.addEventListener("click", function (event) {
      var key = event.target.closest("button[data-key]");
      if (!key) return;
      engine.press(key.getAttribute("data-key"));
      render();
    });
    popup.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var key = /^[0-9]$/.test(event.key) ? event.key : KEYBOARD[event.key];
      if (event.key === "Escape") {
        close();
      } else if (key) {
        engine.press(key);
        render();
      } else {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    });
    enableDragging(title);
    window.addEventListener("resize", function () {
      if (isOpen()) keepInViewport(parseFloat(popup.style.left), parseFloat(popup.style.top));
    });

    document.body.appendChild(popup);
    engine = new CalculatorEngine();
    render();
    popup.hidden = false;
    keepInViewport(document.documentElement.clientWidth - popup.offsetWidth - 16, 64);
  }

  function open() {
    if (isOpen()) return;
    focusBeforeOpen = document.activeElement;
    if (!popup) build();
    popup.hidden = false;
    keepInViewport(parseFloat(popup.style.left), parseFloat(popup.style.top));   // the window may have shrunk
    popup.focus({ preventScroll: true });
  }

  function close() {
    if (!isOpen()) return;
    popup.hidden = true;
    if (focusBeforeOpen && focusBeforeOpen.focus && document.contains(focusBeforeOpen)) {
      focusBeforeOpen.focus({ preventScroll: true });
    }
    focusBeforeOpen = null;
  }

  function isOpen() {
    return popup !== null && !popup.hidden;
  }

  function toggle() {
    if (isOpen()) close();
    else open();
  }

  root.GateCalculator = {
    open: open, close: close, toggle: toggle, isOpen: isOpen,
    Engine: CalculatorEngine   // the pure part, for tests and for anyone wanting the arithmetic alone
  };
})(window);
