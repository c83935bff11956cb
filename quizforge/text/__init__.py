"""The bank's text, Markdown with TeX math, for every medium a person reads it in:

- `markdown`: the text parsed once (markdown-it, dollar math) into the token tree every medium
  walks, so all find the same math (`$…$`, `$$…$$`) and blocks;
- `tex`: the one TeX reader and command table, each command's terminal and typst spelling;
- `terminal`: Unicode for terminals ($\\sqrt{d_k}$ → √dₖ);
- `typst`: typst markup and math for papers and keys;
- `html`: HTML with the math kept as TeX for MathJax and KaTeX (LMS exports, the browser mock);
- `matrix`: what a matrix's entries are worth, and which matrices are drawn as heatmaps;
- `backslash`: escaping by backslash (typst markup, GIFT).

It imports nothing else of quizforge, so every layer above may use it.
"""
