"""Instructor problem sets: a spec in, a fair variant per student out, with answer keys,
LMS exports, and marking of the answers students hand back.

spec.py reads the instructor's TOML; roster.py the class list; variants.py decides every
student's questions (same templates in the same order for all, different numbers);
papers.py writes papers and keys as Markdown; keys.py the answer-key tables; lms.py the
Moodle XML and GIFT exports, qti.py QTI 2.1 and Canvas, lmstext.py what they share (HTML,
variants by slot); make.py puts a set together (typeset.py its PDFs); responses.py marks what comes back
(marking.py one written answer, tables.py reads the spreadsheets),
overrides.py applies the instructor's decisions after the exam, and sheets.py typesets
answer keys on request and each student's return sheet.
"""
