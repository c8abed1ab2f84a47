"""Each mechanism declares one report shape, and the flags readers used to combine agree with it."""

import pytest

import ldp
from ldp import Shape
from ldp.mechanisms.remembered import Composed, Remembered

# What each shape implies: (encoding, one_of_k, estimates_mean, randomized).
IMPLIED = {
    Shape.INDEX: ("index", True, False, True),
    Shape.DIRECT: ("index", True, False, False),
    Shape.BITS: ("bits", True, False, True),
    Shape.TICKS: ("bits", False, False, True),
    Shape.MEAN_BIT: ("index", False, True, True),
    Shape.LAPLACE: ("integer", False, True, True),
    Shape.NUMBER: ("integer", False, True, False),
}


@pytest.mark.parametrize("name", sorted(ldp.MECHANISMS))
def test_a_mechanism_s_shape_agrees_with_how_its_reports_travel(name):
    cls = ldp.MECHANISMS[name]
    assert (cls.encoding, cls.one_of_k, cls.estimates_mean, cls.randomized) == IMPLIED[cls.shape]


def test_every_shape_is_some_mechanism_s():
    assert {cls.shape for cls in ldp.MECHANISMS.values()} == set(Shape)


def test_a_remembered_question_has_its_instantaneous_layer_s_shape():
    composed = Composed(Remembered(permanent=ldp.SymmetricUnary(3.0, 3), instant=ldp.SymmetricUnary(1.0, 3)))
    assert composed.shape is Shape.BITS
