"""XLA shapes with layouts: ``Shape('f32[8,128]{0,1:T(8,128)}')``, sizes, index math and the
Axe form of the memory layout (``Shape.to_axe()``)."""

from axe._axe.xla import AxeForm, Shape

__all__ = ["AxeForm", "Shape"]
