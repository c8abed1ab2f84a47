"""q of q-randomized response as an exact fraction: read as written ("0.5", "2/3"), written back the
same way, and whether the browser's integers carry it exactly.

The browser samples P(report = truth) = (1 + q) / 2 as keep / modulus with a modulus of at most 2**32
(`ldp.mechanisms.sampling`). A q whose (1 + q) / 2 has a larger denominator cannot be sampled exactly:
`QRandomizedResponse` then rounds toward more privacy, and whatever a person types (the admin, the
command line) is refused instead (`problem`), so what is shown is what the browser samples.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from .sampling import WORD

QValue = Fraction | Decimal | str | float | int


def read(value: object, name: str = "q") -> Fraction:
    """q exactly as written: "0.5", "2/3", a Decimal, a Fraction or a float's shortest repr.

    >>> read("2/3"), read("0.500000"), read(0.1)
    (Fraction(2, 3), Fraction(1, 2), Fraction(1, 10))
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number")
    if isinstance(value, Fraction):
        return value
    try:
        return Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"{name} must be a finite decimal number or fraction, got {value!r}") from None


def text(q: Fraction) -> str:
    """The shortest exact text: a decimal when one says q exactly ("0.5"), else "numerator/denominator".

    >>> text(Fraction(1, 2)), text(Fraction(2, 3)), text(Fraction(5, 8))
    ('0.5', '2/3', '0.625')
    """
    written = format(Decimal(q.numerator) / Decimal(q.denominator), "f")
    if Fraction(Decimal(written)) != q:
        return f"{q.numerator}/{q.denominator}"
    return written


def shown(q: Fraction, places: int = 6) -> str:
    """q for a reader: the decimal itself, or the fraction and its decimal to `places` places.

    >>> shown(Fraction(1, 2)), shown(Fraction(2, 3))
    ('0.5', '2/3 ≈ 0.666667')
    """
    written = text(q)
    return written if "/" not in written else f"{written} ≈ {float(q):.{places}f}"


def half_plus(q: Fraction) -> Fraction:
    """P(report = truth) = (1 + q) / 2, which the browser's keep / modulus must equal."""
    return (1 + q) / 2


def carried(q: Fraction) -> bool:
    """Whether the sampler's integers carry q exactly: (1 + q) / 2 has a denominator of at most 2**32.

    >>> carried(Fraction(2, 3)), carried(Fraction(1, 2**31)), carried(Fraction(1, 2**32))
    (True, True, False)
    """
    return half_plus(q).denominator <= WORD


def problem(q: Fraction, name: str = "q") -> str | None:
    """Why a typed q cannot be sampled exactly, naming it, or None when it can."""
    if carried(q):
        return None
    return (f"{name} = {text(q)} cannot be sampled exactly: the browser samples (1 + q)/2 = {half_plus(q)} with "
            f"integers of at most 2^32, so its denominator must be at most 2^32 (a fraction with a denominator "
            f"of at most 2^31, or a decimal with at most 9 places)")


def typed(value: object, name: str = "q") -> Fraction:
    """q as a person typed it, read exactly; ValueError naming it when the browser cannot sample it exactly.

    >>> typed("2/3")
    Fraction(2, 3)
    >>> typed("1/5000000001")
    Traceback (most recent call last):
    ...
    ValueError: q = 1/5000000001 cannot be sampled exactly: the browser samples (1 + q)/2 = 2500000001/5000000001 \
with integers of at most 2^32, so its denominator must be at most 2^32 (a fraction with a denominator of at most \
2^31, or a decimal with at most 9 places)
    """
    q = read(value, name)
    found = problem(q, name)
    if found is not None:
        raise ValueError(found)
    return q
