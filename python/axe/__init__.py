"""axe: tensor layouts for JAX users.

Axe layouts (arXiv 2601.19092), XLA shapes, JAX shardings and formats, Pallas grids,
jaxprs (``axe.ir``) and the relayout engine, with JAX's names and reprs, plus bridges from a
live JAX session (``from_jax``, ``explain``) that never import JAX themselves. See docs/python.md.
"""

from axe._axe import Layout, RelayoutPlan, memory_budget, plan_relayout, tile, tile_to
from axe import ir, jit, pallas, picture, sharding, xla
from axe._jax import ArrayInfo, explain, from_jax
from axe._relayout import relayout

__all__ = [
    "ArrayInfo",
    "Layout",
    "RelayoutPlan",
    "explain",
    "from_jax",
    "ir",
    "jit",
    "memory_budget",
    "pallas",
    "picture",
    "plan_relayout",
    "relayout",
    "sharding",
    "tile",
    "tile_to",
    "xla",
]
