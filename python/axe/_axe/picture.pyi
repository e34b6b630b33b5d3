from collections.abc import Sequence

import axe._axe
import axe._axe.sharding
import axe._axe.xla


def layout_svg(layout: axe._axe.Layout, shape: Sequence[int] | None = None, color_by: str | None = None, zoom: Sequence[int] | None = None, max_rows: int = 32, max_cols: int = 32, physical_zoom: Sequence[int] | None = None) -> str:
    """
    The picture of `axe layout show --svg`; zoom: (row0, row1, col0, col1), half-open; physical_zoom: the same over the physical view's row and column axis values.
    """

def xla_svg(shape: axe._axe.xla.Shape) -> str:
    """The picture of `axe xla explain --svg`."""

def sharding_svg(explanation: axe._axe.sharding.Explanation, mesh: axe._axe.sharding.Mesh | None = None, notes: Sequence[str] = []) -> str:
    """The picture of `axe shard explain --svg`."""

def to_latex(svg: str) -> str:
    """A picture's SVG as a standalone LaTeX (TikZ) document."""
