"""Stata .dta and SPSS .sav files of any length, with bounded memory: pyreadstat writes the file's
dictionary (names, labels, value labels, formats, encoding) for a two-row prototype, and the rows
are written here, one at a time, in the same binary layout, between that dictionary and what
follows the data; then the row count (and Stata's section offsets) are patched.

Layouts (both little-endian, as ReadStat writes them):

- Stata 118 (Stata 14 and later): the header holds N as 8 bytes after "<N>"; a <map> of 14 8-byte
  offsets locates the sections; the data is fixed-width rows between "<data>" and "</data>";
  value labels come after it, so the offsets of the sections after the data (map entries 10-13:
  strls, value labels, </stata_dta>, end of file) move by the length of the extra rows.
  Strings: strN, padded with NUL. Integers as pyreadstat writes them (long, missing = 2147483621);
  dates as double days since 1960-01-01, missing = 2^1023; a weight as a double, missing the same.
- SPSS (uncompressed): the case count is a 4-byte integer at offset 80, and again an 8-byte one in
  the extended number of cases record (type 7, subtype 16); the rows follow the
  dictionary's end (record type 999) to the end of the file. Strings padded with spaces to a
  multiple of 8 bytes; numbers (a weight too) as doubles, missing = -DBL_MAX (SYSMIS); dates in seconds since
  1582-10-14.

`Layout.check` compares the prototype rows as pyreadstat wrote them with this module's encoding
of the same values, byte for byte, so a pyreadstat that wrote differently is refused at once
rather than producing a file that reads wrong.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, BinaryIO

STATA_EPOCH = date(1960, 1, 1)
SPSS_EPOCH = date(1582, 10, 14)
STATA_LONG_MISSING = 2147483621
STATA_DOUBLE_MISSING = struct.unpack("<d", struct.pack("<Q", 0x7FE0000000000000))[0]
SPSS_SYSMIS = -sys.float_info.max
MAP_ENTRIES = 14
MOVED_BY_DATA = range(10, 14)  # strls, value_labels, </stata_dta>, end of file
LONG_CASES = struct.pack("<iiii", 7, 16, 8, 2)


class LayoutChanged(RuntimeError):
    """pyreadstat wrote a file this module does not know how to extend."""


@dataclass(frozen=True)
class Field:
    kind: str  # "text", "day", "integer" or "double"
    width: int = 0  # texts: the declared width in bytes


class Layout:
    """One file format's row encoding and how to grow a prototype file to n rows."""

    def __init__(self, fields: list[Field]):
        self.fields = fields
        self.row = struct.Struct("<" + "".join(self._code(field) for field in fields))
        self.packers = [self.packer(field) for field in fields]

    def encode(self, values: list[Any]) -> bytes:
        """One row; None is a missing value. The same bytes as its cells' `packer`s give one after the other
        (no padding between fields: "<" packs them as they come)."""
        return b"".join(pack(value) for pack, value in zip(self.packers, values, strict=True))

    def packer(self, field: Field) -> Callable[[Any], bytes]:
        """How one cell of `field` is encoded; None is a missing value."""
        cell = struct.Struct("<" + self._code(field))
        return lambda value: cell.pack(self._value(field, value))

    def split(self, prototype: bytes, rows: int) -> tuple[bytes, bytes, bytes]:
        """(what precedes the data, the prototype's rows, what follows them)."""
        raise NotImplementedError

    def check(self, data: bytes, values: list[list[Any]]) -> None:
        expected = b"".join(self.encode(row) for row in values)
        if data != expected:
            raise LayoutChanged(f"{type(self).__name__}: pyreadstat's rows differ from this module's encoding")

    def finish(self, out: BinaryIO, head: bytes, rows: int, moved: int) -> None:
        """Patch a file written as `head`, `rows` rows, tail for its number of rows; `moved` is by how
        many bytes the tail lies further than in the prototype."""
        raise NotImplementedError

    def _code(self, field: Field) -> str:
        raise NotImplementedError

    def _value(self, field: Field, value: Any) -> Any:
        raise NotImplementedError


class StataLayout(Layout):
    def split(self, prototype: bytes, rows: int) -> tuple[bytes, bytes, bytes]:
        offsets = self._map(prototype)
        start, end = offsets[9] + len(b"<data>"), offsets[10] - len(b"</data>")
        if prototype[offsets[9]:start] != b"<data>" or prototype[end:offsets[10]] != b"</data>":
            raise LayoutChanged("Stata: the map does not point at the data")
        if end - start != rows * self.row.size:
            raise LayoutChanged(f"Stata: {end - start} bytes of data, expected {rows} rows of {self.row.size}")
        return prototype[:start], prototype[start:end], prototype[end:]

    def with_notes(self, head: bytes, notes: dict[str, list[str]]) -> bytes:
        """The head with Stata notes (`notes varname`): characteristics note1..noteN and note0 = N
        per variable ("_dta" for the dataset), each a <ch> record of a 4-byte length, the variable's
        and the characteristic's names (129 bytes each) and the NUL-terminated text. Inserted in
        the empty <characteristics> section ReadStat writes; the offsets after it move."""
        records = b"".join(self._characteristic(name, f"note{i}", text) for name, texts in notes.items()
                           for i, text in enumerate([str(len(texts)), *texts]))
        empty = b"<characteristics></characteristics>"
        at = head.index(empty) + len(b"<characteristics>")
        offsets = self._map(head)
        for i in range(9, MAP_ENTRIES):  # data and everything after it
            offsets[i] += len(records)
        grown = head[:at] + records + head[at:]
        start = grown.index(b"<map>") + 5
        return grown[:start] + struct.pack(f"<{MAP_ENTRIES}Q", *offsets) + grown[start + 8 * MAP_ENTRIES:]

    @staticmethod
    def _characteristic(variable: str, name: str, text: str) -> bytes:
        body = variable.encode().ljust(129, b"\0") + name.encode().ljust(129, b"\0") + text.encode("utf-8") + b"\0"
        return b"<ch>" + struct.pack("<I", len(body)) + body + b"</ch>"

    def finish(self, out: BinaryIO, head: bytes, rows: int, moved: int) -> None:
        out.seek(head.index(b"<N>") + 3)
        out.write(struct.pack("<Q", rows))
        at = head.index(b"<map>") + 5
        offsets = list(struct.unpack(f"<{MAP_ENTRIES}Q", head[at:at + 8 * MAP_ENTRIES]))
        for i in MOVED_BY_DATA:
            offsets[i] += moved
        out.seek(at)
        out.write(struct.pack(f"<{MAP_ENTRIES}Q", *offsets))
        out.seek(0)

    def _map(self, prototype: bytes) -> list[int]:
        if not prototype.startswith(b"<stata_dta><header><release>118</release><byteorder>LSF</byteorder>"):
            raise LayoutChanged("Stata: not a little-endian format 118 file")
        at = prototype.index(b"<map>") + 5
        return list(struct.unpack(f"<{MAP_ENTRIES}Q", prototype[at:at + 8 * MAP_ENTRIES]))

    def _code(self, field: Field) -> str:
        return {"text": f"{field.width}s", "day": "d", "integer": "i", "double": "d"}[field.kind]

    def _value(self, field: Field, value: Any) -> Any:
        if field.kind == "text":
            return value.encode("utf-8")  # struct pads with NUL
        if field.kind == "day":
            return STATA_DOUBLE_MISSING if value is None else float((value - STATA_EPOCH).days)
        if field.kind == "double":
            return STATA_DOUBLE_MISSING if value is None else float(value)
        return STATA_LONG_MISSING if value is None else value


class SpssLayout(Layout):
    def split(self, prototype: bytes, rows: int) -> tuple[bytes, bytes, bytes]:
        if prototype[:4] != b"$FL2" or struct.unpack("<i", prototype[72:76])[0] != 0:
            raise LayoutChanged("SPSS: not an uncompressed little-endian system file")
        start = len(prototype) - rows * self.row.size
        if prototype[start - 8:start] != struct.pack("<ii", 999, 0):
            raise LayoutChanged("SPSS: the rows do not follow the end of the dictionary")
        return prototype[:start], prototype[start:], b""

    def finish(self, out: BinaryIO, head: bytes, rows: int, moved: int) -> None:
        if rows > 2**31 - 1:
            raise ValueError("an SPSS file holds at most 2^31 - 1 cases")
        out.seek(80)
        out.write(struct.pack("<i", rows))
        # The extended number of cases (record 7, subtype 16: two 8-byte integers, 1 and the count).
        at = head.find(LONG_CASES)
        if at < 0:
            raise LayoutChanged("SPSS: no extended number of cases record")
        out.seek(at + len(LONG_CASES) + 8)
        out.write(struct.pack("<q", rows))
        out.seek(0)

    def _code(self, field: Field) -> str:
        return f"{-(-field.width // 8) * 8}s" if field.kind == "text" else "d"

    def _value(self, field: Field, value: Any) -> Any:
        if field.kind == "text":
            return value.encode("utf-8").ljust(-(-field.width // 8) * 8, b" ")
        if value is None:
            return SPSS_SYSMIS
        if field.kind == "day":
            return float((value - SPSS_EPOCH).days * 86400)
        return float(value)
