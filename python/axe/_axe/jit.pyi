from collections.abc import Sequence

import axe._axe.ir
from axe.jit import _call as __call__, _execute as execute


class Compiled:
    """JAX's Compiled: a jaxpr with its formats chosen."""

    @property
    def input_formats(self) -> list: ...

    @property
    def output_formats(self) -> list: ...

    @property
    def jaxpr(self) -> axe._axe.ir.Jaxpr: ...

    def as_text(self) -> str: ...

    @property
    def donations(self) -> list[tuple[int, int]]:
        """(donated input, output it aliases) pairs."""

    @property
    def relayouts(self) -> list[str]:
        """The relayouts the chosen layouts make the program do."""

    def explain(self) -> str:
        """
        Per AUTO value: the candidate layouts, their estimated bytes, the chosen one.
        """

    def __repr__(self) -> str: ...

def compile(jaxpr: axe._axe.ir.Jaxpr, in_formats: object | None = None, out_formats: object | None = None, donate_argnums: Sequence[int] = []) -> Compiled: ...
