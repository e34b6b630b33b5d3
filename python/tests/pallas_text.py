"""Text forms shared by the Pallas differential tests (no JAX needed)."""


def block_text(dims):
    """The BlockSpec block_shape text axe.pallas reads, from a case's dims: ("blocked", n),
    ("element", n, lo, hi), ("none",), anything else Squeezed()."""
    parts = []
    for dim in dims:
        if dim[0] == "blocked":
            parts.append(str(dim[1]))
        elif dim[0] == "element":
            parts.append(f"Element({dim[1]}, ({dim[2]}, {dim[3]}))")
        elif dim[0] == "none":
            parts.append("None")
        else:
            parts.append("Squeezed()")
    return "(" + ", ".join(parts) + ",)"
