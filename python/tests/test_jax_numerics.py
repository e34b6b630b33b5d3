"""A primitive-by-dtype sweep of `jax.lax` (python/tests/data/numerics, printed by JAX 0.10.2
with generate_numerics_corpus.py) through axe: parse, re-print byte for byte, type-check, run on
the executor, JAX's values. Needs no JAX: the values are stored.

Values are compared as JAX's own tests compare them (jax._src.public_test_util): integers and
bools bit-exact; floats within |axe - jax| <= tol * (1 + |jax|) with JAX's default tolerance for
the dtype, or the looser one JAX's lax tests give transcendental and special functions; the
absolute term scales with the output's largest magnitude where the case accumulates (sums,
dots). NaN where JAX has NaN (and only there), infinities exactly, and a zero's sign where
JAX's result is an exact +-0.

Run as a script for the counts and the failures:

    PYTHONPATH=build/release/python build/venv/bin/python python/tests/test_jax_numerics.py
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import axe.ir
from test_jax_everyday import decode, needs_ml_dtypes

DATA = pathlib.Path(__file__).parent / "data" / "numerics"

# jax._src.public_test_util.default_tolerance, and the tolerances of jax's lax tests for
# transcendental functions (tan, lgamma: 1e-5 for f32, 1e-14 for f64) and special functions
# (erf_inv, igamma, bessel: evaluated by series whose last digits differ between
# implementations).
TOLERANCE = {
    None: {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15},
    "transcendental": {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-14},
    "special": {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-4, "float64": 1e-12},
}

# Cases axe does not run as JAX does yet: name -> (the first stage that fails, why).
KNOWN_FAILURES = {
    "atan2_f32": ("values", "XLA's atan2 reads a denormal y as nonzero beside a flushed x "
                  "(atan2(1e-45, 0) = pi/2, atan2(1e-45, 1e-45) = NaN); axe flushes both"),
    "atan2_bf16": ("values", "as atan2_f32"),
}

STAGES = ("parse", "reprint", "check", "run", "values")


def compare(got, want, record):
    """None when the outputs match, else the first difference in words."""
    if len(got) != len(want):
        return f"{len(got)} outputs, JAX {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        w = decode(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"output {k}: {g.dtype}{list(g.shape)}, JAX {w.dtype}{list(w.shape)}"
        g_flat, w_flat = g.reshape(-1), w.reshape(-1)
        if w.dtype.kind in "iub":
            bad = np.flatnonzero(g_flat != w_flat)
        else:
            with np.errstate(invalid="ignore"):  # NaN payloads of 16-bit floats
                g64, w64 = g_flat.astype(np.float64), w_flat.astype(np.float64)
            bad = np.flatnonzero(~_floats_agree(g64, w64, w.dtype.name, record))
        if bad.size:
            i = int(bad[0])
            return (f"output {k} element {i}: {g_flat[i]!r}, JAX {w_flat[i]!r} "
                    f"({bad.size} of {w.size} differ)")
    return None


def _floats_agree(g, w, dtype, record):
    tol = TOLERANCE[record.get("ulps")][dtype]
    finite = np.isfinite(w)
    atol = tol
    if record.get("accumulates") and finite.any():
        atol = tol * max(1.0, float(np.max(np.abs(w[finite])))) * 4
    with np.errstate(invalid="ignore", over="ignore"):
        close = finite & np.isfinite(g) & (np.abs(g - w) <= atol + tol * np.abs(w))
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    zero_sign = (w != 0) | (np.signbit(g) == np.signbit(w))
    return (close | same) & zero_sign


def run_stages(record):
    """{stage: None (passed) or the error in words}, up to the first failure."""
    result, holder, text = {}, {}, record["text"]

    def attempt(stage, fn):
        try:
            result[stage] = fn()
        except Exception as e:  # noqa: BLE001 (every failure is a stage's result)
            result[stage] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return result[stage] is None

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
        holder["outs"] = axe.ir.compile(holder["j"])(*[decode(a) for a in record["args"]])

    if not attempt("parse", parse):
        return result
    attempt("reprint", reprint)
    if not attempt("check", lambda: axe.ir.check(holder["j"])):
        return result
    if not attempt("run", run):
        return result
    attempt("values", lambda: compare(holder["outs"], record["outs"], record))
    return result


def first_failure(result):
    return next(((s, result[s]) for s in STAGES if s in result and result[s] is not None),
                None)


def _records():
    return [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]


RECORDS = _records()


def test_corpus_is_broad():
    assert len(RECORDS) >= 500
    assert len(KNOWN_FAILURES) <= len(RECORDS) // 20


def test_known_failures_are_cases():
    assert set(KNOWN_FAILURES) <= {r["name"] for r in RECORDS}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["name"])
def test_primitive_runs_as_jax_does(record):
    if needs_ml_dtypes(record):
        pytest.importorskip("ml_dtypes", reason="bfloat16 arrays in NumPy need ml_dtypes")
    failure = first_failure(run_stages(record))
    known = KNOWN_FAILURES.get(record["name"])
    if known is None:
        assert failure is None, f"{record['name']}: {failure}"
    else:
        assert failure is not None, f"{record['name']} passes now: drop it from KNOWN_FAILURES"
        assert failure[0] == known[0], f"{record['name']}: {failure} ({known[1]})"


if __name__ == "__main__":
    failures = []
    for r in RECORDS:
        f = first_failure(run_stages(r))
        if f is not None:
            failures.append(f"{r['name']}: {f[0]}: {f[1]}")
    print(f"{len(RECORDS) - len(failures)} of {len(RECORDS)} cases run as JAX does")
    print("\n".join(failures), file=sys.stderr)
