"""The app asks a mechanism what it is (its shape, its methods, the registry's names) and never names its class,
except where mechanisms are declared for the app: the question kinds and the serializers that describe them."""

import ast
from pathlib import Path

import ldp
from ldp.mechanisms.remembered import Composed

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = ("surveys/collection/kinds/", "surveys/collection/serializers.py", "surveys/collection/grid_serializers.py",
           "/migrations/")  # a migration is history: it builds the mechanisms of its day
CLASSES = frozenset({cls.__name__ for cls in ldp.MECHANISMS.values()} | {Composed.__name__})


def named_classes(source: str) -> set[str]:
    """The mechanism classes a module's code names: as a name, an attribute (`ldp.KaryRR`) or an import
    (its docstrings and comments may speak of them)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            found |= {alias.name for alias in node.names}
    return found & CLASSES


def test_no_module_of_the_app_names_a_mechanism_class():
    naming = {}
    for path in sorted((ROOT / "surveys").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if any(part in "/" + relative for part in ALLOWED):
            continue
        if found := named_classes(path.read_text()):
            naming[relative] = sorted(found)
    assert not naming, naming


def test_the_probe_sees_names_attributes_and_imports_but_not_words():
    source = ('"""KaryRR in a docstring."""\nimport ldp\nfrom ldp import BitFlip\nx = ldp.OneBitMean\n'
              'y = DiscreteLaplace\nz = "Direct number"  # Composed\n')
    assert named_classes(source) == {"BitFlip", "OneBitMean", "DiscreteLaplace"}


def test_the_probe_knows_every_registered_mechanism():
    assert {"QRandomizedResponse", "BitFlip", "KaryRR", "SymmetricUnary", "OptimizedUnary", "Direct", "MultiSelect",
            "OneBitMean", "DiscreteLaplace", "DirectNumber", "Composed"} <= CLASSES


def test_every_mechanism_has_its_translated_names_in_the_one_table():
    from surveys.collection.kinds.mechanism_names import NAMES

    assert set(NAMES) == set(ldp.MECHANISMS)


def test_the_advice_can_name_every_mechanism_it_compares():
    from ldp.means.numeric import COMPARED
    from surveys.collection import figures
    from surveys.collection.kinds import mechanism_names

    compared = [name for name, cls in ldp.MECHANISMS.items() if figures._compared(cls)] + list(COMPARED)
    assert all(mechanism_names.prose(name) for name in compared)


def test_the_advice_names_the_mechanism_it_recommends_in_a_sentence():
    from django.utils import translation

    from surveys.collection import figures

    with translation.override("en"):
        for name, words in (("sue", "the symmetric unary encoding"), ("oue", "the optimized unary encoding"),
                            ("krr", "k-ary randomized response")):
            advice = figures.advice({"lowest_variance_mechanism": name, "variance_ratio": 2.0})
            assert f": {words}, 2.00 times less" in advice, advice
