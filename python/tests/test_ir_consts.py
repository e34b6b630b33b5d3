"""ir.eval and ir.compile with a closed jaxpr's constvar values given as NumPy arrays
(consts=, in the constvars' order), on examples/npy (a jaxpr JAX printed for tanh(x @ w) with w
closed over, and its .npy files); and a `while` loop JAX printed."""
import pathlib

import numpy as np
import pytest

import axe
from axe import ir

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "npy"


def dense():
    return ir.parse((EXAMPLES / "dense.txt").read_text())


def test_eval_and_compile_take_consts():
    j = dense()
    assert j.const_avals == ["f32[2,3]"]
    w, x = np.load(EXAMPLES / "w.npy"), np.load(EXAMPLES / "x.npy")
    want = np.load(EXAMPLES / "expected.npy")
    (got,) = ir.eval(j, x, consts=[w])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    (again,) = ir.compile(j, consts=[w])(x)
    np.testing.assert_allclose(again, want, rtol=1e-6)


def test_consts_are_checked():
    j = dense()
    x = np.load(EXAMPLES / "x.npy")
    with pytest.raises(TypeError, match="the jaxpr has 1 constvars but 0 consts were given"):
        ir.eval(j, x, consts=[])
    with pytest.raises(TypeError, match=r"consts\[0\] is f32\[2\] but constvar 0 is f32\[2,3\]"):
        ir.eval(j, x, consts=[x])
    with pytest.raises(TypeError, match=r"consts\[0\] is f64\[2,3\]"):
        ir.compile(j, consts=[np.zeros((2, 3))])


def test_while_loop_runs():
    text = (ROOT / "tests" / "ir" / "testdata" / "jax_while" / "collatz.txt").read_text()
    m, steps = ir.eval(ir.parse(text), np.int32(27))
    assert (int(m), int(steps)) == (1, 111)


def test_sixty_four_bit_integers_are_exact_or_refused():
    j = ir.parse("{ lambda ; a:i64[2]. let b:i64[2] = add a a in (b,) }")
    big = np.array([2**53 + 1, 2**62 + 1], dtype=np.int64)
    (got,) = ir.compile(j)(big)  # the executor: every bit, wrapping as JAX's i64 does
    np.testing.assert_array_equal(got, big * 2)
    # A closed jaxpr holds its constants as the interpreter's doubles: refused, never rounded.
    c = ir.parse("{ lambda a:i64[2]; . let  in (a,) }")
    with pytest.raises(ValueError, match=r"element 0 of i64\[2\] is 9007199254740993, past 2\^53"):
        ir.compile(c, consts=[big])
