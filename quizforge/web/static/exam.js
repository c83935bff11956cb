// The exam screen: draws the server's view of the sitting and sends the candidate's clicks.
// All rules (saving, marking, the clock) live on the server; this file only shows them.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const base = document.body.dataset.base;
  const keyboardAllowed = document.body.dataset.keyboard === "1";
  const STATE_CLASS = {"answered": "answered", "not answered": "not-answered", "not visited": "not-visited",
                       "marked for review": "marked", "answered and marked": "answered-marked"};
  const STATE_LABEL = {"answered": "Answered", "not answered": "Not Answered", "not visited": "Not Visited",
                       "marked for review": "Marked for Review", "answered and marked": "Answered & Marked"};
  let view = null;
  let deadline = null;             // performance.now() at which the server's clock reaches zero
  let nat = {text: "", caret: 0};  // the NAT field, as the keypad keeps it
  let grid = null;                 // a matrix answer: {cols, cells: [{text, caret}] row by row, focused}
  let busy = false;
  const phone = window.matchMedia("(max-width: 760px)");   // gate.css's phone layout

  // The one-time link has done its work (the cookie is set): keep it out of the address bar.
  if (location.search) history.replaceState(null, "", base + "/");

  let lost = false;
  let leaving = false;   // the page is going (to the report, or closed): its cut requests mean nothing
  async function call(path, data) {
    const init = data === undefined ? {} :
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(data)};
    try {
      const response = await fetch(base + path, init);
      return await response.json().catch(() => ({error: `the server answered ${response.status}`}));
    } catch (err) {
      if (!leaving) serverLost();   // a request cut short by leaving the page says nothing of the server
      return {error: "the exam server cannot be reached: is quiz practice still running?"};
    }
  }

  // The server stopped (Ctrl-C pauses the mock; a closed terminal too): say so at once, and how to go on.
  function serverLost() {
    if (lost) return;
    lost = true;
    deadline = null;
    const number = document.body.dataset.number;
    dialog("The exam server has stopped", "<p>Your answers up to your last click are saved, and the mock is " +
      "paused with the time left. Continue it with:</p>" +
      `<p><code>quiz practice --resume ${number} --browser</code></p>` +
      "<p>(or without <code>--browser</code>, in the terminal). This page no longer works.</p>", [], true);
  }

  // The paper is in: the report once it is marked; until then, how far the marking has got.
  function paperIn(state) {
    if (state.report_ready) return toReport();
    const m = state.marking || {ready: 0, total: 0};
    const heading = state.status === "timed_out" ? "Time is up: marking your paper" : "Marking your paper";
    dialog(heading, `<p>The rest of the paper is being made and marked: <strong id="marking-progress">` +
      `${m.ready} of ${m.total}</strong> questions ready.</p><progress id="marking-bar" max="${m.total}" ` +
      `value="${m.ready}"></progress><p>The report opens by itself.</p>`, [], true);
    deadline = null;
    setTimeout(askClock, 250);
  }

  function typeset(element) {
    if (window.renderMathInElement) {
      window.renderMathInElement(element, {throwOnError: false, delimiters: [
        {left: "\\[", right: "\\]", display: true}, {left: "\\(", right: "\\)", display: false}]});
    }
  }

  // --- the clock: the server's, shown here -----------------------------------------------
  function clockText(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const pad = (n) => String(n).padStart(2, "0");
    return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  }
  function syncClock(secondsLeft) { deadline = performance.now() + secondsLeft * 1000; }
  let asking = false;
  async function askClock() {
    if (asking || lost || leaving) return;
    asking = true;
    try {
      const clock = await call("/api/clock");
      if (clock.status === "submitted" || clock.status === "timed_out") return paperIn(clock);
      if (typeof clock.seconds_left === "number" && clock.status === "running") syncClock(clock.seconds_left);
    } finally { asking = false; }
  }
  // Every second: the countdown redrawn, and the server asked (at zero it hands the paper in; its
  // answer also tells it that the page is still open, and the page learns at once if it has stopped).
  setInterval(() => {
    if (deadline !== null) $("time-left").textContent = clockText((deadline - performance.now()) / 1000);
    askClock();
  }, 1000);

  addEventListener("pagehide", () => { leaving = true; });
  addEventListener("pageshow", (e) => { if (e.persisted) leaving = false; });   // back from the cache
  function toReport() {
    leaving = true;
    location.href = base + "/report";
  }

  // --- drawing the view -------------------------------------------------------------------
  function apply(next) {
    if (next.status === "submitted" || next.status === "timed_out") return paperIn(next);
    if (!next.status) return showError(next.error || "the server sent nothing usable");
    const previous = view;
    view = next;
    syncClock(next.seconds_left);
    $("time-left").textContent = clockText(next.seconds_left);
    if (next.status !== "running") return;
    $("instructions").hidden = true;
    $("exam").hidden = false;
    $("palette-jump").hidden = false;
    // An answer refused as unreadable stays on screen to be corrected.
    if (!(next.error && previous && previous.current === next.current)) drawQuestion();
    // On a phone the page scrolls: a new question opens at its top, under the sticky header.
    if (previous && previous.current !== next.current && phone.matches) window.scrollTo({top: 0});
    drawPalette();
    showError(next.error || "");
  }

  function showError(text) { $("response-error").textContent = text; }

  function drawQuestion() {
    const q = view.question;
    $("question-number").textContent = `Question No. ${view.current}`;
    $("question-meta").textContent = `${q.kind} · ${q.marks_text} · ${q.negative}`;
    $("question-body").innerHTML = q.prompt +
      (q.exhibits ? `<div class="exhibits">${q.exhibits}</div>` : "") + `<p class="instruction">${q.instruction}</p>`;
    typeset($("question-body"));
    const response = $("response");
    grid = null;
    if (q.matrix) {
      drawMatrix(q.matrix, view.answer_cells);
    } else if (q.kind === "NAT") {
      nat = {text: view.answer || "", caret: (view.answer || "").length};
      response.innerHTML = `<label class="nat-label" for="nat-answer">Your answer</label>
        <input id="nat-answer" class="nat-field" autocomplete="off" inputmode="none" spellcheck="false">
        ${keypadHtml(window.GateKeypad.KEYS)}`;
      drawNat(true);
      response.querySelectorAll("[data-keypad]").forEach((b) => b.addEventListener("click", () => {
        const field = $("nat-answer");
        // The caret is where the candidate left it: the keypad's arrows, a click in the box, or ← →.
        nat = {text: keyboardAllowed ? field.value : nat.text, caret: field.selectionStart ?? nat.caret};
        nat = window.GateKeypad.press(nat, b.dataset.keypad);
        drawNat(true);
      }));
      if (!keyboardAllowed) keypadOnly($("nat-answer"));
    } else {
      const chosen = new Set((view.answer || "").split(/[\s,]+/).filter(Boolean).map((s) => s.toLowerCase()));
      const type = q.kind === "MCQ" ? "radio" : "checkbox";
      response.innerHTML = q.options.map((html, i) => {
        const letter = q.letters[i];
        return `<label class="option"><input type="${type}" name="option" value="${letter}"` +
          `${chosen.has(letter) ? " checked" : ""}><span class="letter">(${letter.toUpperCase()})</span>` +
          `<span class="option-text">${html}</span></label>`;
      }).join("");
      typeset(response);
    }
  }

  // A matrix answer: a grid of cells of the question's shape, each filled through the keypad.
  function keypadHtml(keys) {
    return `<div class="keypad">${keys.map((k) =>
      `<button type="button" data-keypad="${k}" class="${keyClass(k)}">${keyLabel(k)}</button>`).join("")}</div>`;
  }
  function cellShown(text) { return text === window.GateKeypad.MINUS_INFINITY ? "−∞" : text; }
  function cellRead(value) { return value.trim() === "−∞" ? window.GateKeypad.MINUS_INFINITY : value; }

  function drawMatrix(shape, saved) {
    const texts = saved ? saved.flat() : Array(shape.rows * shape.cols).fill("");
    grid = {cols: shape.cols, cells: texts.map((text) => ({text, caret: text.length})), focused: 0};
    const keys = window.GateKeypad.KEYS.concat(shape.minus_infinity ? [window.GateKeypad.MINUS_INFINITY] : []);
    let rows = "";
    for (let r = 0; r < shape.rows; r++) {
      rows += "<tr>" + Array.from({length: shape.cols}, (_, c) =>
        `<td><input class="matrix-cell" data-cell="${r * shape.cols + c}" autocomplete="off" inputmode="none" ` +
        `spellcheck="false" aria-label="row ${r + 1}, column ${c + 1}"></td>`).join("") + "</tr>";
    }
    // The keypad beside the grid (below it on a phone), so that both fit a laptop's screen.
    $("response").innerHTML = `<div class="matrix-response"><div><span class="nat-label">Your answer ` +
      `(${shape.rows}×${shape.cols})</span><table class="matrix-entry">${rows}</table></div>${keypadHtml(keys)}</div>`;
    const inputs = [...$("response").querySelectorAll("[data-cell]")];
    inputs.forEach((input, i) => {
      input.value = cellShown(grid.cells[i].text);
      input.addEventListener("focus", () => { grid.focused = i; markFocused(inputs); });
      if (keyboardAllowed) {
        input.addEventListener("input", () => {
          grid.cells[i] = {text: cellRead(input.value), caret: input.selectionStart ?? input.value.length};
        });
      } else {
        keypadOnly(input);
      }
    });
    markFocused(inputs);
    inputs[grid.focused].focus({preventScroll: true});   // the caret shows where the keypad writes
    $("response").querySelectorAll("[data-keypad]").forEach((b) => b.addEventListener("click", () => {
      const input = inputs[grid.focused];
      const cell = grid.cells[grid.focused];
      grid.cells[grid.focused] = {text: keyboardAllowed ? cellRead(input.value) : cell.text,
                                  caret: cell.text === window.GateKeypad.MINUS_INFINITY ? cell.caret
                                    : input.selectionStart ?? cell.caret};
      const next = window.GateKeypad.press(grid.cells[grid.focused], b.dataset.keypad);
      grid.cells[grid.focused] = next;
      input.value = cellShown(next.text);
      input.focus({preventScroll: true});
      if (next.text !== window.GateKeypad.MINUS_INFINITY) input.setSelectionRange(next.caret, next.caret);
    }));
  }
  // GATE blocks the keyboard for NAT answers: only the keypad writes. The box stays editable
  // (a read-only box shows no caret), but nothing typed, pasted or dropped reaches it; the
  // arrow keys, Home and End only move the caret.
  const CARET_KEYS = new Set(["ArrowLeft", "ArrowRight", "Home", "End", "Tab"]);
  function keypadOnly(input) {
    input.addEventListener("keydown", (e) => {
      if (!e.ctrlKey && !e.metaKey && !CARET_KEYS.has(e.key)) e.preventDefault();
    });
    input.addEventListener("beforeinput", (e) => e.preventDefault());
    // An input method's composition cannot be cancelled: whatever it wrote is taken out again.
    input.addEventListener("input", () => {
      if (input.id === "nat-answer") return drawNat(true);
      const cell = grid && grid.cells[Number(input.dataset.cell)];
      if (cell) input.value = cellShown(cell.text);
    });
    input.addEventListener("paste", (e) => e.preventDefault());
    input.addEventListener("drop", (e) => e.preventDefault());
  }

  function markFocused(inputs) { inputs.forEach((input, i) => input.classList.toggle("focused", i === grid.focused)); }

  function keyClass(k) { return k === "Left" || k === "Right" ? "arrow" : k.length > 1 ? "wide" : ""; }

  function keyLabel(k) {
    return {"Backspace": "Backspace", "Left": "←", "Right": "→", "Clear All": "Clear All", "-": "−", "-inf": "−∞"}[k] || k;
  }

  function drawNat(focus) {
    const field = $("nat-answer");
    field.value = nat.text;
    if (focus) {
      field.focus({preventScroll: true});
      field.setSelectionRange(nat.caret, nat.caret);
    }
  }

  function drawPalette() {
    const sectionIndex = view.section;
    const section = view.sections[sectionIndex];
    $("section-tabs").innerHTML = view.sections.map((s, i) => {
      const hover = Object.entries(s.counts).map(([state, n]) => `${STATE_LABEL[state]}: ${n}`).join("\n");
      return `<button type="button" class="tab${i === sectionIndex ? " active" : ""}" data-section="${i}" ` +
        `title="${hover}">${s.name}</button>`;
    }).join("");
    $("palette-section").textContent = section.name;
    const states = Object.fromEntries(view.palette.map((cell) => [cell.number, cell.state]));
    // The shape is drawn on the inner span (it is clipped); the button carries the focus ring.
    $("palette").innerHTML = section.questions.map((n) =>
      `<button type="button" class="cell ${STATE_CLASS[states[n]]}${n === view.current ? " current" : ""}" ` +
      `data-goto="${n}" title="${STATE_LABEL[states[n]]}"><span class="pal ${STATE_CLASS[states[n]]}">${n}</span></button>`
    ).join("");
    for (const [state, cls] of Object.entries(STATE_CLASS)) $(`count-${cls}`).textContent = section.counts[state];
  }

  // --- the candidate's response on screen -----------------------------------------------
  function responseOnScreen() {
    const q = view.question;
    if (grid) {   // the cells row by row; the server names an empty one, or saves them as "a b; c d"
      const texts = grid.cells.map((cell) => cell.text.trim());
      if (texts.every((t) => t === "")) return null;
      return Array.from({length: texts.length / grid.cols}, (_, r) => texts.slice(r * grid.cols, (r + 1) * grid.cols));
    }
    if (q.kind === "NAT") {
      const text = keyboardAllowed ? $("nat-answer").value : nat.text;
      return text.trim() || null;
    }
    const picked = [...$("response").querySelectorAll("input:checked")].map((i) => i.value);
    return picked.length ? picked.join(",") : null;
  }

  async function send(path, data) {
    if (busy) return;
    busy = true;
    try { apply(await call(path, data)); } finally { busy = false; }
  }

  // --- buttons ------------------------------------------------------------------------------
  $("save-next").addEventListener("click", () => send("/api/save-next", {answer: responseOnScreen()}));
  $("mark-next").addEventListener("click", () => send("/api/mark-next", {answer: responseOnScreen()}));
  $("clear-response").addEventListener("click", () => send("/api/clear", {}));
  $("palette").addEventListener("click", (e) => {
    const cell = e.target.closest("[data-goto]");
    if (cell) send("/api/goto", {number: Number(cell.dataset.goto)});
  });
  $("section-tabs").addEventListener("click", (e) => {
    const tab = e.target.closest("[data-section]");
    if (tab) send("/api/goto", {number: view.sections[Number(tab.dataset.section)].questions[0]});
  });
  $("palette-toggle").addEventListener("click", () => {
    const panel = $("palette-panel");
    const open = panel.classList.toggle("collapsed") === false;
    $("palette-toggle").setAttribute("aria-expanded", String(open));
    $("palette-toggle").textContent = open ? "›" : "‹";
  });
  // On a phone the palette sits below the question: the header's button brings it up.
  $("palette-jump").addEventListener("click", () => {
    const panel = $("palette-panel");
    if (panel.classList.contains("collapsed")) $("palette-toggle").click();
    panel.scrollIntoView({block: "start"});
  });
  $("calculator-button").addEventListener("click", () => {
    if (window.GateCalculator) window.GateCalculator.toggle();
  });

  // --- dialogs: question paper, instructions, submit ----------------------------------------
  function dialog(title, bodyHtml, buttons, blocking = false) {
    if (lost && !blocking) return;   // the page has stopped working: nothing opens over that
    $("dialog-close").hidden = blocking;
    $("dialog-title").textContent = title;
    $("dialog-body").innerHTML = bodyHtml;
    $("dialog-buttons").innerHTML = "";
    $("dialog-buttons").hidden = buttons.length === 0;
    for (const [label, id, handler] of buttons) {
      const b = document.createElement("button");
      b.type = "button";
      b.id = id;
      b.textContent = label;
      b.addEventListener("click", handler);
      $("dialog-buttons").appendChild(b);
    }
    $("overlay").hidden = false;
    typeset($("dialog-body"));
  }
  function closeDialog() { $("overlay").hidden = true; }
  $("dialog-close").addEventListener("click", closeDialog);

  $("question-paper-button").addEventListener("click", async () => {
    dialog("Question Paper", "<p>Loading…</p>", [["Close", "paper-close", closeDialog]]);
    const paper = await call("/api/paper");
    if (paper.error) {
      dialog("Question Paper", "<p></p>", [["Close", "paper-close", closeDialog]]);
      $("dialog-body").firstChild.textContent = paper.error;
      return;
    }
    dialog("Question Paper", paper.questions.map((q) =>
      `<article class="paper-question"><h3>Question ${q.number} <small>${q.kind} · ${q.marks_text}</small></h3>` +
      `${q.prompt}${q.exhibits ? `<div class="exhibits">${q.exhibits}</div>` : ""}` +
      (q.answer_table ? `<div class="paper-matrix"><span>Your answer</span>${q.answer_table}</div>` : "") +
      (q.options.length ? `<ol class="paper-options" type="A">${q.options.map((o) => `<li>${o}</li>`).join("")}</ol>` : "") +
      `</article>`).join(""), [["Close", "paper-close", closeDialog]]);
  });
  $("instructions-button").addEventListener("click", () =>
    dialog("Instructions", $("instructions-text").innerHTML, [["Close", "instructions-close", closeDialog]]));

  $("submit-button").addEventListener("click", async () => {
    const summary = await call("/api/summary");
    if (summary.error) return showError(summary.error);
    // Sections as rows (GATE's table); on a phone, sections as columns, so that it fits.
    // The palette's five states, which do not overlap: a row adds up to its section's questions.
    const columns = [["questions", "Questions"], ["answered", "Answered"], ["not answered", "Not Answered"],
                     ["marked for review", "Marked for Review"], ["answered and marked", "Answered & Marked"],
                     ["not visited", "Not Visited"]];
    const bySection = `<table class="summary by-section"><tr><th>Section</th>` +
      columns.map(([, label]) => `<th>${label}</th>`).join("") + "</tr>" +
      summary.sections.map((s) => `<tr><td>${s.section}</td>` +
        columns.map(([key]) => `<td>${s[key]}</td>`).join("") + "</tr>").join("") + "</table>";
    const byState = `<table class="summary by-state"><tr><th></th>` +
      summary.sections.map((s) => `<th>${s.section}</th>`).join("") + "</tr>" +
      columns.map(([key, label]) => `<tr><th>${label}</th>` +
        summary.sections.map((s) => `<td>${s[key]}</td>`).join("") + "</tr>").join("") + "</table>";
    dialog("Exam Summary", bySection + byState,
      [["Back to the paper", "summary-back", closeDialog], ["Submit", "summary-submit", confirmSubmit]]);
  });
  function confirmSubmit() {
    dialog("Submit the paper?", "<p>Are you sure you want to submit? You cannot change any answer afterwards.</p>",
      [["No", "confirm-no", closeDialog], ["Yes", "confirm-yes", submitPaper]]);
  }
  function submitPaper() {
    // At once: the marking may wait for questions still being made; the clock polls show its progress.
    dialog("Submitting your paper", "<p>Handing the paper in…</p>", [], true);
    send("/api/submit", {});
  }

  // --- instructions, declaration, begin ---------------------------------------------------------
  $("instructions-next").addEventListener("click", () => {
    $("instructions-general").hidden = true;
    $("instructions-paper").hidden = false;
  });
  $("instructions-previous").addEventListener("click", () => {
    $("instructions-paper").hidden = true;
    $("instructions-general").hidden = false;
  });
  $("declaration").addEventListener("change", () => { $("begin").disabled = !$("declaration").checked; });
  $("begin").addEventListener("click", () => { if ($("declaration").checked) send("/api/begin", {}); });

  // A reload during the exam goes straight back to the question on screen.
  call("/api/state").then((state) => { if (state.status !== "instructions") apply(state); });
})();
