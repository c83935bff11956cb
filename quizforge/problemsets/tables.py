"""Spreadsheet files as instructors save them: CSV, TSV or semicolon-separated, in UTF-8,
UTF-16 or cp1252; read for the responses file and the roster alike."""

from __future__ import annotations

import codecs
import csv
import io
from dataclasses import dataclass
from pathlib import Path

from quizforge.errors import InputError

DELIMITERS = (",", ";", "\t")


def decode_spreadsheet_text(data: bytes, name: str) -> tuple[str, str]:
    """The text of a file a spreadsheet saved, and its encoding: UTF-8 (BOM or not), UTF-16
    with a BOM, or cp1252."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError:
            raise InputError(f"{name}: starts like UTF-16 but is not valid UTF-16") from None
    try:
        return data.decode("utf-8-sig"), "UTF-8"
    except UnicodeDecodeError:
        pass
    if data.count(b"\x00") > len(data) // 4:
        raise InputError(f"{name}: looks like UTF-16 without a byte-order mark; save it as UTF-8 CSV")
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: neither UTF-8, UTF-16 nor cp1252 (byte {exc.start + 1})") from None


@dataclass(frozen=True)
class Table:
    """A spreadsheet's rows, and how the file was read (said back to the instructor)."""
    header: list[str]
    rows: list[tuple[int, list[str]]]      # (line number, cells)
    delimiter: str
    encoding: str

    @property
    def decimal_comma(self) -> bool:
        """A ';'-separated file is what a spreadsheet writes where the comma is the decimal separator."""
        return self.delimiter == ";"

    def described(self, name: str, numbers: bool = True) -> str:
        """How the file was read; with `numbers`, whether its decimal separator is the comma."""
        shown = {",": "comma", ";": "semicolon", "\t": "tab"}[self.delimiter]
        commas = numbers and self.decimal_comma
        return f"{name}: {shown}-separated, {self.encoding}" + (", decimal commas" if commas else "")


def read_table(path: Path, columns: str = "student, question and answer") -> Table:
    """The rows of a CSV, TSV or semicolon file as a spreadsheet saved it; COLUMNS names the
    columns the first row must hold, for the message when it holds nothing."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    text, encoding = decode_spreadsheet_text(data, path.name)
    first, _, rest = text.partition("\n")
    skip = 0
    if first.strip().lower().startswith("sep=") and len(first.strip()) == 5:
        delimiter, text, skip = first.strip()[4], rest, 1          # Excel's "sep=;" hint line
    else:
        header = next((line for line in text.split("\n") if line.strip()), "")
        delimiter = max(DELIMITERS, key=lambda d: (header.count(d), d == ","))
    if delimiter not in DELIMITERS:
        raise InputError(f"{path.name}: line 1 names the separator {delimiter!r}; use ',', ';' or a tab")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [(reader.line_num + skip, cells) for cells in reader if any(c.strip() for c in cells)]
    except csv.Error as exc:
        raise InputError(f"{path.name}: line {reader.line_num + skip}: not CSV ({exc})") from None
    if not rows:
        raise InputError(f"{path.name}: is empty; the first row must name the columns {columns}")
    return Table([c.strip() for c in rows[0][1]], rows[1:], delimiter, encoding)
