"""Skip logic: a question's `relevant` condition, XLSForm's expression syntax over `${name}` references, read by a
small parser of its own (never eval) and evaluated as XLSForm (XPath 1.0) compares values.

    expression := disjunct ("or" disjunct)*
    disjunct   := comparison ("and" comparison)*
    comparison := operand (("=" | "!=" | "<" | "<=" | ">" | ">=") operand)?
    operand    := number | 'string' | "string" | ${name} | "(" expression ")"
                | "not(" expression ")" | "selected(" ${name} "," string ")"

A value is a number, a string (a choice's name) or None (a question not asked: XLSForm's empty string). `=` and
`!=` compare as numbers when either side is a number (XPath), else as strings; `<`, `<=`, `>`, `>=` always as
numbers, and an empty or non-numeric side makes them false. `static/js/relevance.js` is the browser's twin;
both are tested on `tests/js/fixtures/relevance.json`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

Value = Decimal | str | None
TOKEN = re.compile(r"""\s*(?:(?P<number>-?\d+(?:\.\d+)?|-?\.\d+)|(?P<string>'[^']*'|"[^"]*")|\$\{(?P<ref>[^}]*)\}
                       |(?P<op>!=|<=|>=|=|<|>|\(|\)|,)|(?P<word>[A-Za-z_][A-Za-z0-9_-]*))""", re.VERBOSE)
COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


class ConditionError(ValueError):
    """A condition that is no expression of this syntax: what is wrong, in words."""


@dataclass(frozen=True)
class Node:
    """One node: op is "num", "str", "ref", "not", "selected", "and", "or" or a comparison; args its parts."""

    op: str
    args: tuple[object, ...]


def parse(text: str) -> Node:
    """The expression `text` as a tree; ConditionError when it is none."""
    tokens = _tokens(text)
    if not tokens:
        raise ConditionError(_("the condition is empty"))
    parser = _Parser(tokens)
    node = parser.disjunction()
    if parser.at < len(tokens):
        raise ConditionError(_("unexpected “%(token)s”") % {"token": tokens[parser.at][1]})
    return node


def references(node: Node) -> list[str]:
    """The names the expression refers to, each once, in order of appearance."""
    found: list[str] = []
    if node.op == "ref":
        found.append(str(node.args[0]))
    for arg in node.args:
        if isinstance(arg, Node):
            found += [name for name in references(arg) if name not in found]
    return list(dict.fromkeys(found))


def holds(node: Node, values: Mapping[str, Value]) -> bool:
    """Whether the condition holds for these answers (a name missing or None: not asked, XLSForm's empty)."""
    return _truth(_evaluate(node, values))


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, at, text = [], 0, text.strip()
    while at < len(text):
        found = TOKEN.match(text, at)
        if found is None or found.end() == at:
            raise ConditionError(_("cannot read “%(rest)s”") % {"rest": text[at:].strip()[:20]})
        kind = found.lastgroup or ""
        tokens.append((kind, found.group(kind)))
        at = found.end()
        while at < len(text) and text[at].isspace():
            at += 1
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens, self.at = tokens, 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self, kind: str, text: str | None = None) -> str:
        found = self.peek()
        if found[0] != kind or (text is not None and found[1] != text):
            expected = text or {"ref": "${name}", "string": _("a quoted string")}.get(kind, kind)
            got = found[1] or _("the end")
            raise ConditionError(_("expected %(expected)s, found “%(found)s”") % {"expected": expected, "found": got})
        self.at += 1
        return found[1]

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self.peek() == ("word", "or"):
            self.at += 1
            node = Node("or", (node, self.conjunction()))
        return node

    def conjunction(self) -> Node:
        node = self.comparison()
        while self.peek() == ("word", "and"):
            self.at += 1
            node = Node("and", (node, self.comparison()))
        return node

    def comparison(self) -> Node:
        node = self.operand()
        kind, text = self.peek()
        if kind == "op" and text in COMPARISONS:
            self.at += 1
            node = Node(text, (node, self.operand()))
            if self.peek()[0] == "op" and self.peek()[1] in COMPARISONS:
                raise ConditionError(_("comparisons cannot be chained: join them with and"))
        return node

    def operand(self) -> Node:
        kind, text = self.peek()
        if kind == "number":
            self.at += 1
            return Node("num", (Decimal(text),))
        if kind == "string":
            self.at += 1
            return Node("str", (text[1:-1],))
        if kind == "ref":
            return self.reference()
        if (kind, text) == ("op", "("):
            self.at += 1
            node = self.disjunction()
            self.take("op", ")")
            return node
        if kind == "word" and text in ("not", "selected"):
            self.at += 1
            self.take("op", "(")
            if text == "not":
                node = Node("not", (self.disjunction(),))
            else:
                ref = self.reference()
                self.take("op", ",")
                node = Node("selected", (ref, self.take("string")[1:-1]))
            self.take("op", ")")
            return node
        if kind == "word":
            raise ConditionError(_("unknown word “%(word)s”: use and, or, not() and selected()") % {"word": text})
        raise ConditionError(_("expected a value, found “%(found)s”") % {"found": text or _("the end")})

    def reference(self) -> Node:
        name = self.take("ref")
        if not NAME.fullmatch(name):
            raise ConditionError(_("“${%(name)s}” is not a question's name") % {"name": name})
        return Node("ref", (name,))


def _evaluate(node: Node, values: Mapping[str, Value]) -> object:
    op, args = node.op, node.args
    if op in ("num", "str"):
        return args[0]
    if op == "ref":
        return values.get(str(args[0]))
    if op == "not":
        return not _truth(_evaluate(_node(args[0]), values))
    if op == "and":
        return all(_truth(_evaluate(_node(arg), values)) for arg in args)
    if op == "or":
        return any(_truth(_evaluate(_node(arg), values)) for arg in args)
    if op == "selected":
        value = _evaluate(_node(args[0]), values)
        return str(args[1]) in _text(value).split()
    left, right = (_evaluate(_node(arg), values) for arg in args)
    return _compare(op, left, right)


def _node(arg: object) -> Node:
    assert isinstance(arg, Node)
    return arg


def _compare(op: str, left: object, right: object) -> bool:
    if op in ("=", "!="):
        if isinstance(left, (Decimal, bool)) or isinstance(right, (Decimal, bool)):
            a, b = _number(left), _number(right)
            equal = a is not None and b is not None and a == b
        else:
            equal = _text(left) == _text(right)
        return equal if op == "=" else not equal
    a, b = _number(left), _number(right)
    if a is None or b is None:  # NaN: every order comparison is false
        return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _number(value: object) -> Decimal | None:
    """XPath's number(): None stands for NaN (an empty or non-numeric string)."""
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, Decimal):
        return value
    text = _text(value).strip()
    if not re.fullmatch(r"-?(\d+(\.\d*)?|\.\d+)", text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        return None


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")  # 18.50 as 18.5, as the browser writes a number
    return str(value)


def _truth(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, Decimal):
        return value != 0 and not math.isnan(value)
    return bool(_text(value))
