"""Everyday JAX programs (python/tests/data/everyday, printed by JAX 0.10.2 with
generate_everyday_corpus.py) through axe, stage by stage: parse, re-print byte for byte,
type-check, run on the executor, JAX's values (integers and bools exactly, floats within JAX's
test tolerance for their dtype), and where the program has them axe's own grad and vmap of it
against jax.grad's and jax.vmap's values. Needs no JAX: the values are stored.

Run as a script for the per-stage table (docs/ir.md):

    PYTHONPATH=build/release/python build/venv/bin/python python/tests/test_jax_everyday.py
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import axe.ir

DATA = pathlib.Path(__file__).parent / "data" / "everyday"
STAGES = ("parse", "reprint", "check", "run", "values", "grad", "vmap")

# JAX's default test tolerances (jax._src.public_test_util.default_tolerance), relative; the
# absolute term is the same scaled to the output's largest magnitude (sums, products). A
# program that computes in a 16-bit float gets that type's tolerance for all its float outputs:
# XLA keeps excess precision (an f32 `convert` of a bf16 dot sees the unrounded f32 sum), axe
# rounds to the printed type.
TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15}
_SHORT_FLOATS = (("bf16[", "bfloat16"), ("f16[", "float16"))


def _tolerance(dtype, text):
    tol = TOLERANCE[dtype]
    for token, name in _SHORT_FLOATS:
        if token in text:
            tol = max(tol, TOLERANCE[name])
    return tol

# Programs axe does not run as JAX does yet: name -> (the first stage that fails, why).
KNOWN_FAILURES = {
    "custom_jvp_softclip": ("grad", "a user's custom_jvp rule is not in the text: axe refuses "
                            "(NotImplementedError) rather than differentiate the body"),
    "custom_vjp_clip_grad": ("grad", "a custom_vjp's bwd is not in the text: axe refuses "
                             "(NotImplementedError) rather than ignore it"),
}


def _dtype(name):
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 lives here (JAX installs it)
        return np.dtype(getattr(ml_dtypes, name))


def decode(a):
    dtype = _dtype(a["dtype"])
    data = a["data"]
    if dtype.kind in "iub":
        return np.array(data, dtype).reshape(a["shape"])
    return np.array(data, np.float64).astype(dtype).reshape(a["shape"])


def compare(got, want, what, text=""):
    """None when the outputs match, else the first difference in words."""
    if len(got) != len(want):
        return f"{what}: {len(got)} outputs, JAX {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        w = decode(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"{what} {k}: {g.dtype}{list(g.shape)}, JAX {w.dtype}{list(w.shape)}"
        if w.dtype.kind in "iub":
            bad = np.flatnonzero(g.reshape(-1) != w.reshape(-1))
        else:
            g64, w64 = g.astype(np.float64).reshape(-1), w.astype(np.float64).reshape(-1)
            finite = np.isfinite(w64)
            scale = max(1.0, float(np.max(np.abs(w64[finite])))) if finite.any() else 1.0
            tol = _tolerance(w.dtype.name, text)
            with np.errstate(invalid="ignore"):  # inf - inf: compared by `same`
                close = np.abs(g64 - w64) <= tol * np.abs(w64) + 4 * tol * scale
            same = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
            bad = np.flatnonzero(~(close | same))
        if bad.size:
            i = int(bad[0])
            return (f"{what} {k} element {i}: {g.reshape(-1)[i]}, JAX {w.reshape(-1)[i]} "
                    f"({bad.size} of {w.size} differ)")
    return None


def _in_axes(v):
    return tuple(v) if isinstance(v, list) else v


def _axis_size(in_axes, args):
    """The mapped size, from the first batched argument."""
    axes = in_axes if isinstance(in_axes, list) else [in_axes] * len(args)
    return next(a["shape"][ax] for ax, a in zip(axes, args) if ax is not None)


def run_stages(record):
    """{stage: None (passed) or the error in words}, up to the first failure; grad and vmap
    only where the program has them."""
    result = {}

    def attempt(stage, fn):
        try:
            result[stage] = fn()
        except Exception as e:  # noqa: BLE001 (every failure is a stage's result)
            result[stage] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return result[stage] is None

    text = record["text"]
    holder = {}

    consts = [decode(c) for c in record.get("consts", [])]

    def parse():
        holder["j"] = axe.ir.parse(text)

    def reprint():
        printed = str(holder["j"])
        if printed == text:
            return None
        at = next((i for i, (a, b) in enumerate(zip(printed, text)) if a != b),
                  min(len(printed), len(text)))
        return f"differs at character {at}: {printed[at:at + 40]!r} vs JAX {text[at:at + 40]!r}"

    def run():
        args = [decode(a) for a in record["args"]]
        holder["outs"] = axe.ir.compile(holder["j"])(*args)

    if not attempt("parse", parse):
        return result
    attempt("reprint", reprint)
    if consts:  # a closure over arrays: its values are part of the program
        holder["j"] = axe.ir._bind_consts(holder["j"], consts)
    if not attempt("check", lambda: axe.ir.check(holder["j"])):
        return result
    if not attempt("run", run):
        return result
    attempt("values", lambda: compare(holder["outs"], record["outs"], "output", text))
    if "grad" in record:
        def grad():
            g = axe.ir.grad(holder["j"], argnums=tuple(record["grad"]["argnums"]))
            outs = axe.ir.compile(g)(*[decode(a) for a in record["args"]])
            return compare(outs, record["grad"]["outs"], "gradient", text)
        attempt("grad", grad)
    if "vmap" in record:
        def vmap():
            in_axes = record["vmap"]["in_axes"]
            v = axe.ir.vmap(holder["j"], in_axes=_in_axes(in_axes),
                            out_axes=_in_axes(record["vmap"].get("out_axes", 0)),
                            axis_size=_axis_size(in_axes, record["vmap"]["args"]))
            outs = axe.ir.compile(v)(*[decode(a) for a in record["vmap"]["args"]])
            return compare(outs, record["vmap"]["outs"], "vmapped output", text)
        attempt("vmap", vmap)
    return result


def needs_ml_dtypes(record):
    """Whether the program passes or returns arrays of a type NumPy lacks (bfloat16)."""
    text = json.dumps(record)
    return "bfloat16" in text or "bf16[" in text


def _records():
    return [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]


def first_failure(result):
    return next(((s, result[s]) for s in STAGES if s in result and result[s] is not None),
                None)


def test_corpus_is_broad():
    assert len(_records()) >= 120


@pytest.mark.parametrize("record", _records(), ids=lambda r: r["name"])
def test_everyday_program_runs_as_jax_does(record):
    if needs_ml_dtypes(record):
        pytest.importorskip("ml_dtypes", reason="bfloat16 arrays in NumPy need ml_dtypes")
    failure = first_failure(run_stages(record))
    known = KNOWN_FAILURES.get(record["name"])
    if known is None:
        assert failure is None, f"{record['name']}: {failure}"
    else:
        assert failure is not None, f"{record['name']} passes now: drop it from KNOWN_FAILURES"
        assert failure[0] == known[0], f"{record['name']}: {failure} ({known[1]})"


def test_a_users_custom_jvp_rule_is_refused_not_ignored():
    # JAX's gradient uses the rule (0.5 * t), not the body's derivative (1 - tanh^2).
    record = json.loads((DATA / "custom_jvp_softclip.json").read_text())
    with pytest.raises(NotImplementedError, match=r"cannot differentiate custom_jvp_call "
                       r"\(name=softclip\): its custom rule \(jvp=<lambda>\)"):
        axe.ir.grad(axe.ir.parse(record["text"]), argnums=(0,))


def table(records):
    """The per-stage pass counts as a Markdown table, and the failures."""
    counts = {s: [0, 0] for s in STAGES}
    failures = []
    for r in records:
        result = run_stages(r)
        for s in STAGES:
            applicable = s in ("grad", "vmap") and s in r or s not in ("grad", "vmap")
            if not applicable:
                continue
            counts[s][1] += 1
            counts[s][0] += s in result and result[s] is None
        f = first_failure(result)
        if f is not None:
            failures.append(f"{r['name']}: {f[0]}: {f[1]}")
    lines = ["| stage | programs passing |", "| --- | --- |"]
    lines += [f"| {s} | {c[0]} / {c[1]} |" for s, c in counts.items()]
    everything = len(records) - len(failures)
    lines.append(f"| all stages | {everything} / {len(records)} |")
    return "\n".join(lines), failures


if __name__ == "__main__":
    rows, failed = table(_records())
    print(rows)
    print("\n".join(failed), file=sys.stderr)
