"""Everything drawn on a terminal, one concern a module:

- `terminal`: the console the commands print to, and the `Progress` spinner;
- `fit`: tables that fall back to wrapped lines, so names to type and numbers are never cut;
- `question`: questions, worked solutions and verdicts;
- `handcalc`: the hand calculations (attention, positional encodings) step by step;
- `matrix`: matrices that never hide an entry at any width;
- `calc`: the calculators' reports (`quiz calc`).

The library modules return plain data; only the command line, the practice screens (quizforge.tui)
and the browser import these.
"""

from quizforge.render.terminal import Progress, console

__all__ = ["Progress", "console"]
