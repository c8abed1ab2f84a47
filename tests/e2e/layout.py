"""What a page's layout does to people who zoom, enlarge text or use a narrow screen, measured in
the browser: horizontal scrolling (WCAG 1.4.10), controls off screen or below the 24 by 24 CSS px
minimum target (2.5.8), text clipped or overlapping (1.4.4), a visible focus indicator (2.4.7).
Each returns a list of problems in words, empty when there are none, so a test compares it to []."""

from typing import Any

# The skip link sits off screen until it has focus (base.html): that is intended, not a problem.
_SHARED = """
  const shown = (el) => !el.closest(".skip") || el.closest(".skip") === document.activeElement;
  const name = (el) => {
    const text = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} "${text}"`;
  };
  const key = (el) => {  // an option by its question and index, anything else by id or name
    const question = el.closest("fieldset[data-question]");
    if (question && el.dataset.option !== undefined) return `${question.dataset.question}/${el.dataset.option}`;
    return el.id || name(el);
  };
"""

HORIZONTAL_OVERFLOW = "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"

# Every visible control's target (a control inside its label is targeted through the label, which
# passes the click on), in the viewport horizontally and at least 24x24; or, smaller, with a
# 24 px circle around its centre clear of every other target (the spacing exception of 2.5.8).
# Links inside a sentence are exempt (the inline exception).
TARGET_PROBLEMS = """() => {""" + _SHARED + """
  const width = document.documentElement.clientWidth;
  const inSentence = (el) => el.tagName === "A" && getComputedStyle(el).display === "inline"
    && [...el.parentElement.childNodes].some((node) => node !== el && node.nodeType === 3 && node.textContent.trim());
  const controls = [...document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1'])")]
    .filter((el) => el.checkVisibility({ visibilityProperty: true }) && shown(el));
  const targets = controls.map((el) => ({ el, box: (el.closest("label") || el).getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && box.height > 0);
  const problems = [];
  const distance = (x, y, box) => Math.hypot(Math.max(box.left - x, 0, x - box.right),
                                             Math.max(box.top - y, 0, y - box.bottom));
  for (const { el, box } of targets) {
    if (box.left < -1 || box.right > width + 1) {
      problems.push(`${name(el)} is outside the viewport: ${box.left}..${box.right} of ${width}`);
    }
    if ((box.width >= 24 && box.height >= 24) || inSentence(el)) continue;
    const x = (box.left + box.right) / 2, y = (box.top + box.bottom) / 2;
    const label = el.closest("label");
    const crowded = targets.some((other) => other.box !== box && !(label && other.el.closest("label") === label)
      && distance(x, y, other.box) < 12);
    if (crowded) {
      problems.push(`${name(el)} is ${box.width}x${box.height}, under 24x24, with another target within 12 px`);
    }
  }
  return problems;
}"""

# Every visible piece of text: within the viewport horizontally, not cut off (either way) by a box
# that clips or scrolls, in a block no wider than its box, and overlapping no other piece of text.
TEXT_PROBLEMS = """(scrolls) => {""" + _SHARED + """
  const width = document.documentElement.clientWidth;
  const problems = [];
  const pieces = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !shown(el) || el.closest("script, style, noscript")) continue;
    if (scrolls && el.closest(scrolls)) continue;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    let hidden = false;  // the visually-hidden pattern clips on purpose: words for screen readers only
    for (let up = el; up; up = up.parentElement) if (getComputedStyle(up).clip !== "auto") hidden = true;
    if (hidden) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) continue;
    const words = `"${node.textContent.trim().slice(0, 40)}"`;
    for (const r of rects) {
      if (r.left < -1 || r.right > width + 1) {
        problems.push(`${words} is outside the viewport: ${r.left}..${r.right} of ${width}`);
      }
      for (let up = el; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up), box = up.getBoundingClientRect();
        const across = style.overflowX !== "visible" && (r.left < box.left - 1 || r.right > box.right + 1);
        const down = style.overflowY !== "visible" && (r.top < box.top - 1 || r.bottom > box.bottom + 1);
        if (across || down) problems.push(`${words} is cut off by ${name(up)}`);
      }
    }
    // An SVG's text scales with its chart: it has no box of its own to fit.
    const block = getComputedStyle(el).display === "inline" || el instanceof SVGElement ? null : el;
    if (block && block.clientWidth > 0 && block.scrollWidth > block.clientWidth + 1) {
      problems.push(`${name(block)} is wider than its box: ${block.scrollWidth} > ${block.clientWidth}`);
    }
    pieces.push({ words, rects });
  }
  for (let i = 0; i < pieces.length; i += 1) {
    for (let j = i + 1; j < pieces.length; j += 1) {
      for (const a of pieces[i].rects) for (const b of pieces[j].rects) {
        const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (across > 2 && down > 2) problems.push(`${pieces[i].words} overlaps ${pieces[j].words}`);
      }
    }
  }
  return [...new Set(problems)];
}"""

# The focused element's focus indicator: an outline or a box shadow on it, or on the label it sits
# in (label.option:focus-within), or on its box (the options' own outline).
FOCUS = """() => {""" + _SHARED + """
  const el = document.activeElement;
  const drawn = (node) => {
    const style = getComputedStyle(node);
    return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
  };
  const box = el.getBoundingClientRect();
  return {
    key: key(el), name: name(el), id: el.id, tag: el.tagName.toLowerCase(), kind: el.type || null,
    question: el.closest("fieldset")?.dataset.question || null, option: el.dataset.option ?? null,
    indicator: drawn(el) || Boolean(el.closest("label") && drawn(el.closest("label"))),
    box: { left: box.left + scrollX, top: box.top + scrollY, right: box.right + scrollX, bottom: box.bottom + scrollY },
  };
}"""


# Every control a Tab forward can reach, in document order (no positive tabindex reorders this page).
# A named group of radios is one stop: its checked radio, or its first when none is.
TABBABLE = """() => {""" + _SHARED + """
  const stop = (el) => {
    if (el.type !== "radio" || !el.name) return true;
    const group = [...document.querySelectorAll(`input[type=radio][name="${el.name}"]`)]
      .filter((radio) => radio.form === el.form);
    return el === (group.find((radio) => radio.checked) || group[0]);
  };
  return [...document.querySelectorAll(
    "a[href], button:not(:disabled), input:not(:disabled):not([type=hidden]), select, textarea, summary")]
    .filter((el) => el.checkVisibility({ visibilityProperty: true }) && el.tabIndex >= 0 && stop(el)).map(key);
}"""

# Each label[for] inside `scope` and its field: the label starts on the field's first line (beside it, its
# tops within 16 px) or sits just above it (no more than 40 px between, overlapping it sideways), and no
# other label is nearer the field than its own.
LABEL_PROBLEMS = """(scope) => {""" + _SHARED + """
  const problems = [];
  const labels = [...document.querySelectorAll(`${scope} label[for]`)]
    .filter((label) => label.checkVisibility({ visibilityProperty: true }));
  const gap = (a, b) => Math.hypot(Math.max(a.left - b.right, 0, b.left - a.right),
                                   Math.max(a.top - b.bottom, 0, b.top - a.bottom));
  const boxes = labels.map((label) => label.getBoundingClientRect());
  labels.forEach((label, i) => {
    const field = document.getElementById(label.htmlFor);
    const words = `label "${label.innerText.trim().slice(0, 40)}"`;
    if (!field) { problems.push(`${words} names no field`); return; }
    const a = boxes[i], b = field.getBoundingClientRect();
    const beside = Math.abs(a.top - b.top) <= 16;
    const above = a.bottom <= b.top + 1 && b.top - a.bottom <= 40 && a.left < b.right && b.left < a.right;
    if (!beside && !above) {
      problems.push(`${words} is not beside or just above ${name(field)}: label at ${Math.round(a.left)},`
        + `${Math.round(a.top)}..${Math.round(a.bottom)}, field at ${Math.round(b.left)},${Math.round(b.top)}`);
    }
    const nearest = boxes.reduce((best, box, j) => (gap(box, b) < gap(boxes[best], b) ? j : best), i);
    if (nearest !== i) {
      problems.push(`${name(field)} is nearer label "${labels[nearest].innerText.trim()}" than its own`);
    }
  });
  return problems;
}"""


def horizontal_overflow(page) -> int:
    return page.evaluate(HORIZONTAL_OVERFLOW)


def target_problems(page) -> list[str]:
    return page.evaluate(TARGET_PROBLEMS)


def text_problems(page, scrolls: str | None = None) -> list[str]:
    """`scrolls`: a selector of boxes that may scroll sideways, their text left out (data tables:
    the two-dimensional exception of 1.4.10)."""
    return page.evaluate(TEXT_PROBLEMS, scrolls)


def focused(page) -> dict[str, Any]:
    """The focused element: its key ("question id/option index" for an option, else its id or name),
    name, id, tag, input type, question and option, whether a focus indicator is drawn, and its box
    in page coordinates."""
    return page.evaluate(FOCUS)


def tabbable(page) -> list[str]:
    """The keys (see `focused`) of every control that Tab reaches, in document order (a radio group
    once)."""
    return page.evaluate(TABBABLE)


def label_problems(page, scope: str = "form") -> list[str]:
    """Each label inside `scope` that does not sit with its field (see LABEL_PROBLEMS)."""
    return page.evaluate(LABEL_PROBLEMS, scope)


def layout_problems(page, scrolls: str | None = None) -> list[str]:
    """Everything above at once: horizontal scrolling, targets, text (but that of `scrolls`)."""
    overflow = horizontal_overflow(page)
    return ([f"the page scrolls sideways by {overflow} px"] if overflow > 1 else []) + target_problems(page) + \
        text_problems(page, scrolls)
