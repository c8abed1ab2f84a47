"""Reading rendered HTML the way a browser would, with the standard library only.

`parse(html)` builds a small element tree to query; `form_data(html, form_id)` collects a
form's successful controls exactly as a browser would submit them, so admin tests post
the real change forms (management forms included) and only override what they test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict
    parent: Element | None = None
    children: list = field(default_factory=list)  # Elements and text strings

    def find_all(self, tag: str, **attrs) -> list[Element]:
        found = []
        for child in self.children:
            if isinstance(child, Element):
                if child.tag == tag and all(child.attrs.get(k) == v for k, v in attrs.items()):
                    found.append(child)
                found.extend(child.find_all(tag, **attrs))
        return found

    def find(self, tag: str, **attrs) -> Element | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None

    def by_id(self, element_id: str) -> Element | None:
        for element in self.iter():
            if element.attrs.get("id") == element_id:
                return element
        return None

    def iter(self):
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.iter()

    @property
    def raw_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.raw_text for c in self.children)

    @property
    def text(self) -> str:
        """Text content with whitespace collapsed, as it reads on screen."""
        return " ".join(self.raw_text.split())


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {name: ("" if value is None else value) for name, value in attrs}, self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.current = self.current.parent

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(html: str | bytes) -> Element:
    builder = _TreeBuilder()
    builder.feed(html.decode() if isinstance(html, bytes) else html)
    builder.close()
    return builder.root


def form_data(html: str | bytes, form_id: str) -> dict[str, list[str]]:
    """The name -> values a browser would submit from the form with this id (no buttons).

    Django's admin also renders an empty template form per inline (prefix `__prefix__`);
    the browser's JavaScript never submits it, so neither do we.
    """
    form = parse(html).by_id(form_id)
    assert form is not None and form.tag == "form", f"no <form id={form_id!r}> on the page"
    data: dict[str, list[str]] = {}

    def add(name, value):
        if name and "__prefix__" not in name:
            data.setdefault(name, []).append(value)

    for element in form.iter():
        name = element.attrs.get("name")
        if element.tag == "input":
            kind = element.attrs.get("type", "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                continue
            if kind in ("checkbox", "radio"):
                if "checked" in element.attrs:
                    add(name, element.attrs.get("value", "on"))
                continue
            add(name, element.attrs.get("value", ""))
        elif element.tag == "select":
            options = element.find_all("option")
            chosen = [o for o in options if "selected" in o.attrs]
            if not chosen and "multiple" not in element.attrs and options:
                chosen = options[:1]
            for option in chosen:
                add(name, option.attrs.get("value", option.text))
        elif element.tag == "textarea":
            text = element.raw_text
            add(name, text[1:] if text.startswith("\n") else text)
    return data
