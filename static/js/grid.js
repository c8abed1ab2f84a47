// Exact decimals for numeric answers: whether a typed number is on a question's grid
// lo, lo + step, ..., hi, and which grid index it is, decided with integers (BigInt), never
// with floating point (0.1 + 0.2 is not 0.3). Pure module: no DOM.

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal text as {digits: BigInt, scale: n} (value = digits / 10^scale), or null. */
export function parseDecimal(text) {
  const match = DECIMAL.exec(String(text).trim());
  if (!match || (!match[2] && !match[3])) return null;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = BigInt((whole || "0") + fraction);
  let scale = fraction.length - Number(exponent);
  if (Math.abs(scale) > 400) return null; // far beyond any grid: not worth the digits
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: sign === "-" ? -digits : digits, scale };
}

function atScale(number, scale) {
  return number.digits * 10n ** BigInt(scale - number.scale);
}

/** Decimal text of digits / 10^scale, without trailing zeros. */
export function formatDecimal(digits, scale) {
  const negative = digits < 0n;
  const padded = (negative ? -digits : digits).toString().padStart(scale + 1, "0");
  const point = padded.length - scale;
  const fraction = padded.slice(point).replace(/0+$/, "");
  const text = fraction ? `${padded.slice(0, point)}.${fraction}` : padded.slice(0, point);
  return negative && text !== "0" ? `-${text}` : text;
}

function common(scale) {
  const lo = parseDecimal(scale.lo);
  const hi = parseDecimal(scale.hi);
  const step = parseDecimal(scale.step);
  const digits = Math.max(lo.scale, hi.scale, step.scale);
  return { digits, lo: atScale(lo, digits), hi: atScale(hi, digits), step: atScale(step, digits) };
}

/**
 * The grid index of a typed answer: {index}, or {problem} with problem "number" (not a number),
 * "range" (outside lo..hi) or "grid" (between two grid values; then below and above are the
 * grid values around it, as text).
 */
export function gridIndex(text, scale) {
  const value = parseDecimal(text);
  if (value === null) return { problem: "number" };
  const grid = common(scale);
  const digits = Math.max(grid.digits, value.scale);
  const up = 10n ** BigInt(digits - grid.digits);
  const [lo, hi, step] = [grid.lo * up, grid.hi * up, grid.step * up];
  const v = atScale(value, digits);
  if (v < lo || v > hi) return { problem: "range" };
  const offset = v - lo;
  if (offset % step !== 0n) {
    const below = lo + (offset / step) * step;
    return { problem: "grid", below: formatDecimal(below, digits), above: formatDecimal(below + step, digits) };
  }
  return { index: Number(offset / step) };
}

/** The value lo + r * step of a grid index (or of a noisy report r, which may lie outside), as text. */
export function valueAt(scale, r) {
  const grid = common(scale);
  return formatDecimal(grid.lo + BigInt(r) * grid.step, grid.digits);
}

/** The bin of grid index `index`: the last bin whose lower edge (a grid index) is at most it. */
export function binOf(edges, index) {
  let bin = 0;
  edges.forEach((edge, j) => {
    if (edge <= index) bin = j;
  });
  return bin;
}
