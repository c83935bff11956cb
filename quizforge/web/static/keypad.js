// GATE's numeric keypad for NAT answers, as a pure function: (text, caret) and a key in,
// the new (text, caret) out. exam.js draws it; the browser tests call press() directly.
// A matrix cell uses the same keys, and "-inf" (the −∞ key) where the question allows −∞:
// it fills the cell with -inf, which only Backspace or Clear All take out again.
"use strict";
window.GateKeypad = (() => {
  const MAX_LENGTH = 20;   // long enough for any answer the bank asks for
  const KEYS = ["Backspace", "7", "8", "9", "4", "5", "6", "1", "2", "3", "0", ".", "-", "Left", "Right", "Clear All"];

  const MINUS_INFINITY = "-inf";

  function press(state, key) {
    const text = state.text;
    const caret = Math.max(0, Math.min(state.caret, text.length));
    if (key === MINUS_INFINITY) return {text: MINUS_INFINITY, caret: MINUS_INFINITY.length};
    if (text === MINUS_INFINITY) {   // one symbol: nothing goes inside it
      return key === "Backspace" || key === "Clear All" ? {text: "", caret: 0} : {text, caret};
    }
    const insert = (ch) => ({text: text.slice(0, caret) + ch + text.slice(caret), caret: caret + 1});
    if (/^[0-9]$/.test(key)) {
      // Nothing may go in front of a minus sign.
      return text.length >= MAX_LENGTH || (caret === 0 && text.startsWith("-")) ? {text, caret} : insert(key);
    }
    switch (key) {
      case ".":   // one decimal point
        return text.includes(".") || text.length >= MAX_LENGTH || (caret === 0 && text.startsWith("-"))
          ? {text, caret} : insert(".");
      case "-":   // a minus sign only in front
        return caret === 0 && !text.startsWith("-") && text.length < MAX_LENGTH ? insert("-") : {text, caret};
      case "Backspace":
        return caret === 0 ? {text, caret} : {text: text.slice(0, caret - 1) + text.slice(caret), caret: caret - 1};
      case "Left":
        return {text, caret: Math.max(0, caret - 1)};
      case "Right":
        return {text, caret: Math.min(text.length, caret + 1)};
      case "Clear All":
        return {text: "", caret: 0};
      default:
        return {text, caret};
    }
  }

  return {press, KEYS, MAX_LENGTH, MINUS_INFINITY};
})();
