// Typesets the report's math with the KaTeX shipped in the package (no network needed).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  window.renderMathInElement(document.body, {throwOnError: false, delimiters: [
    {left: "\\[", right: "\\]", display: true}, {left: "\\(", right: "\\)", display: false}]});
  document.body.dataset.typeset = "1";
});
