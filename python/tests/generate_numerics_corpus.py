#!/usr/bin/env python3
"""A primitive-by-dtype sweep of `jax.lax`, printed by the real JAX with its values, for axe's
numerics corpus (python/tests/test_jax_numerics.py).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 build/venv/bin/python \\
        python/tests/generate_numerics_corpus.py

Each case is one `jax.lax` call (an elementwise op, a comparison, a shift, a conversion, a
reduction, a cumulative op, a sort, a dot, a convolution, an indexing op ...) on one dtype, fed
the values where implementations disagree: +-0, +-inf, NaN, denormals, the largest and
smallest value of the type, halves (rounding), shift amounts past the bit width, division by
zero, INT_MIN / -1. Cases whose name ends in `_x64` are traced with jax.enable_x64 (64-bit
integers and f64). Writes python/tests/data/numerics/<name>.json in the everyday corpus's
format (generate_everyday_corpus.py: text, args, outs), plus

  accumulates  (sums, products, dots, convolutions) the float tolerance's absolute term scales
               with the output's largest magnitude, as in the everyday corpus
  ulps         (transcendental and special functions) the float tolerance is that of JAX's lax
               tests for the function, not the dtype's default

A case JAX refuses (an op a dtype does not have) is skipped and counted. Inputs are fixed:
regenerating gives the same files.
"""
import json
import os
import pathlib
import zlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import jax  # noqa: E402
from jax import lax  # noqa: E402

from generate_everyday_corpus import encode, leaves  # noqa: E402

OUT = pathlib.Path(__file__).parent / "data" / "numerics"

CASES = []  # (name, f, args, extra record fields)


def case(name, f, args, **extra):
    CASES.append((name, f, [np.asarray(a) for a in args], extra))


bf16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype(np.float16), bf16, np.dtype(np.float32)]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32)]
INTS = SIGNED + UNSIGNED
BOOL = np.dtype(np.bool_)
ALL = [BOOL] + INTS + FLOATS
X64_INTS = [np.dtype(np.int64), np.dtype(np.uint64)]
F64 = np.dtype(np.float64)

SHORT = {"bool": "bool", "bfloat16": "bf16", "float16": "f16", "float32": "f32",
         "float64": "f64", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64"}


def is_float(dtype):
    return np.dtype(dtype) in FLOATS + [F64]


def short(dtype):
    return SHORT[np.dtype(dtype).name]


def is_x64(dtype):
    return np.dtype(dtype).itemsize == 8


def suffix(*dtypes):
    return "_x64" if any(is_x64(d) for d in dtypes) else ""


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def float_specials(dtype):
    """Values where float implementations disagree, in `dtype`."""
    fi = ml_dtypes.finfo(dtype) if dtype == bf16 else np.finfo(dtype)
    tiny, big = float(fi.smallest_subnormal), float(fi.max)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, -0.25, 3.7, -3.7, 0.1, 10.0, -100.0,
            float("inf"), float("-inf"), float("nan"), tiny, -tiny, 3 * tiny,
            float(fi.tiny), -float(fi.tiny), big, -big, 1e-3, 7.0, -7.5]
    return np.array(vals, np.float64).astype(dtype)


def int_specials(dtype):
    info = np.iinfo(dtype)
    vals = {0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.max // 2 + 1, 127, 128, 255}
    if info.min < 0:
        vals |= {-1, -2, -3, -7, -100, info.min, info.min + 1, -128}
    if info.bits == 64:  # past 2^53, where a double rounds
        vals |= {2**53 + 1, 2**62 + 3, info.max - 2}
        if info.min < 0:
            vals |= {-(2**53 + 1)}
    vals = sorted(v for v in vals if info.min <= v <= info.max)
    return np.array(vals, dtype)


def specials(dtype):
    if dtype == BOOL:
        return np.array([False, True, True, False])
    if np.issubdtype(dtype, np.integer):
        return int_specials(dtype)
    return float_specials(dtype)


def pairs(dtype, limit=10):
    """Two operands whose elements cover every pair of (the first `limit` of) a few values:
    zeros of both signs, infinities, NaN, a denormal, the largest finite value; for integers
    the extremes, -1 and 0 (INT_MIN / -1, division by zero)."""
    if dtype == BOOL:
        s = np.array([False, True])
    elif is_float(dtype):
        fs = specials(dtype)
        s = np.array([0.0, -0.0, 1.0, -2.5, 0.5, np.inf, -np.inf, np.nan, float(fs[18]),
                      float(fs[23])], np.float64)
    elif np.issubdtype(dtype, np.signedinteger):
        info = np.iinfo(dtype)
        s = np.array([info.min, -7, -1, 0, 1, 2, 7, 100, info.max], np.int64)
    else:
        info = np.iinfo(dtype)
        s = np.array([0, 1, 2, 7, 100, 128, info.max // 2 + 1, info.max], np.uint64)
    s = s[:limit].astype(dtype)
    x, y = np.meshgrid(s, s, indexing="ij")
    return x.reshape(-1), y.reshape(-1)


# ---------------------------------------------------------------- elementwise unary
UNARY_FLOAT_EXACT = ["neg", "abs", "sign", "floor", "ceil", "is_finite", "sqrt", "rsqrt",
                     "square"]
UNARY_FLOAT_ULPS = ["exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos",
                    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                    "cbrt"]
UNARY_SPECIAL = ["erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i0e", "bessel_i1e"]
UNARY_INT = ["neg", "abs", "sign", "square", "bitwise_not", "population_count", "clz"]


def unary_cases():
    for dtype in FLOATS + [F64]:
        x = specials(dtype)
        for op in UNARY_FLOAT_EXACT + UNARY_FLOAT_ULPS + UNARY_SPECIAL:
            ulps = ("transcendental" if op in UNARY_FLOAT_ULPS else
                    "special" if op in UNARY_SPECIAL else None)
            extra = {"ulps": ulps} if ulps else {}
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [x], **extra)
        for method in (lax.RoundingMethod.AWAY_FROM_ZERO, lax.RoundingMethod.TO_NEAREST_EVEN):
            case(f"round_{int(method)}_{short(dtype)}{suffix(dtype)}",
                 lambda a, m=method: lax.round(a, m), [x])
        for n in (0, 1, 2, 3, -1, -2, 5):
            case(f"integer_pow_{n if n >= 0 else 'm' + str(-n)}_{short(dtype)}{suffix(dtype)}",
                 lambda a, n=n: lax.integer_pow(a, n), [x])
    for dtype in INTS + X64_INTS:
        x = specials(dtype)
        for op in UNARY_INT:
            if op in ("neg", "abs", "sign") and not np.issubdtype(dtype, np.signedinteger):
                continue
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [x])
        for n in (0, 2, 3, 7):
            case(f"integer_pow_{n}_{short(dtype)}{suffix(dtype)}",
                 lambda a, n=n: lax.integer_pow(a, n), [x])
    case("bitwise_not_bool", lax.bitwise_not, [specials(BOOL)])


# ---------------------------------------------------------------- elementwise binary
BINARY_ARITH = ["add", "sub", "mul", "div", "rem", "max", "min"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFTS = ["shift_left", "shift_right_logical", "shift_right_arithmetic"]


def shift_amounts(dtype):
    bits = 8 * np.dtype(dtype).itemsize
    amounts = [0, 1, 3, bits - 1, bits, bits + 1, 2 * bits, 100]
    if np.issubdtype(dtype, np.signedinteger):
        amounts += [-1, -bits, np.iinfo(dtype).min]
    else:
        amounts += [np.iinfo(dtype).max]
    values = pairs(dtype)[1][:7]
    x, y = np.meshgrid(values, np.array(amounts, dtype), indexing="ij")
    return x.reshape(-1), y.reshape(-1)


def binary_cases():
    for dtype in FLOATS + [F64]:
        x, y = pairs(dtype)
        for op in BINARY_ARITH + COMPARE + ["pow", "atan2", "nextafter"]:
            extra = {"ulps": "transcendental"} if op in ("pow", "atan2") else {}
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [x, y], **extra)
        p, q = np.abs(pairs(dtype, 8)[0]), np.abs(pairs(dtype, 8)[1])
        for op in ("igamma", "igammac") if dtype != F64 else ():
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [p, q], ulps="special")
    for dtype in INTS + X64_INTS:
        x, y = pairs(dtype)
        for op in BINARY_ARITH + COMPARE + BITWISE:
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [x, y])
        sx, sy = shift_amounts(dtype)
        for op in SHIFTS:
            case(f"{op}_{short(dtype)}{suffix(dtype)}", getattr(lax, op), [sx, sy])
    bx, by = pairs(BOOL)
    for op in ["max", "min"] + COMPARE + BITWISE:
        case(f"{op}_bool", getattr(lax, op), [bx, by])
    # A float base to an int exponent.
    fx, _ = pairs(np.dtype(np.float32))
    ie = np.resize(np.array([0, 1, 2, 3, -1, -2, 7, -3], np.int32), fx.shape)
    case("pow_f32_i32", lax.pow, [fx, ie], ulps="transcendental")


def clamp_cases():
    for dtype in FLOATS + INTS:
        x = specials(dtype)
        if is_float(dtype):
            lo, hi = np.array(-2.5, dtype), np.array(3.0, dtype)
        else:
            lo, hi = np.array(np.iinfo(dtype).min // 2 + 1, dtype), np.array(100, dtype)
        case(f"clamp_{short(dtype)}", lax.clamp, [lo, x, hi])
    x = specials(np.dtype(np.float32))
    lo = np.resize(np.array([0.0, -1.0, np.nan, -np.inf], np.float32), x.shape)
    hi = np.resize(np.array([1.0, np.nan, 2.0, np.inf], np.float32), x.shape)
    case("clamp_f32_arrays", lax.clamp, [lo, x, hi])


# ---------------------------------------------------------------- conversions
def conversion_cases():
    for src in ALL:
        x = specials(src)
        if is_float(src):
            extra = np.array([1e5, -1e5, 3e9, -3e9, 255.5, 256.0, -129.0, 65535.9, 2.0**31,
                              -2.0**31, 4.5e9, 0.9999, -0.9999], np.float64)
            x = np.concatenate([x, extra.astype(src)])
        for dst in ALL:
            if dst == src:
                continue
            case(f"convert_{short(src)}_to_{short(dst)}",
                 lambda a, d=dst: lax.convert_element_type(a, d), [x])
    wide = X64_INTS + [F64]
    for src, dst in [(s_, d_) for s_ in ALL + wide for d_ in ALL + wide
                     if s_ != d_ and (s_ in wide or d_ in wide)]:
        x = specials(src)
        if is_float(src):
            x = np.concatenate([x, np.array([1e19, -1e19, 2.0**63, 2.0**64, 1e300, 1e-300,
                                             0.1 + 2**-40], np.float64).astype(src)])
        case(f"convert_{short(src)}_to_{short(dst)}_x64",
             lambda a, d=dst: lax.convert_element_type(a, d), [x])


def bitcast_cases():
    groups = [[np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.uint32)],
              [np.dtype(np.float16), bf16, np.dtype(np.int16), np.dtype(np.uint16)],
              [np.dtype(np.int8), np.dtype(np.uint8)]]
    for group in groups:
        for src in group:
            for dst in group:
                if src != dst:
                    case(f"bitcast_{short(src)}_to_{short(dst)}",
                         lambda a, d=dst: lax.bitcast_convert_type(a, d), [specials(src)])
    f = specials(np.dtype(np.float32))[:16]
    case("bitcast_f32_to_u8", lambda a: lax.bitcast_convert_type(a, np.uint8), [f])
    case("bitcast_u8_to_f32", lambda a: lax.bitcast_convert_type(a, np.float32),
         [np.arange(24, dtype=np.uint8).reshape(6, 4) * 37])
    case("bitcast_f32_to_i16", lambda a: lax.bitcast_convert_type(a, np.int16), [f])
    case("bitcast_bf16_to_u8", lambda a: lax.bitcast_convert_type(a, np.uint8),
         [specials(bf16)])
    case("bitcast_f64_to_u32_x64", lambda a: lax.bitcast_convert_type(a, np.uint32),
         [specials(F64)])
    case("bitcast_i64_to_f64_x64", lambda a: lax.bitcast_convert_type(a, np.float64),
         [specials(np.dtype(np.int64))])


def reduce_precision_cases():
    for dtype in (np.dtype(np.float32), F64, bf16, np.dtype(np.float16)):
        x = np.concatenate([specials(dtype), np.array([65504.0, 65520.0, 1e5, 3.14159, 1 / 3,
                                                       6e-5, 6e-8, 1e-40], np.float64
                                                      ).astype(dtype)])
        for e, m in ((5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (11, 52)):
            if m > ml_dtypes.finfo(dtype).nmant and (e, m) != (5, 10):
                continue
            case(f"reduce_precision_e{e}m{m}_{short(dtype)}{suffix(dtype)}",
                 lambda a, e=e, m=m: lax.reduce_precision(a, e, m), [x])


# ---------------------------------------------------------------- reductions and scans
def matrix(dtype, name, shape=(3, 5)):
    r = rng(name)
    if dtype == BOOL:
        return r.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -50), min(info.max, 50)
        m = r.integers(lo, hi, size=shape).astype(dtype)
        m.flat[0], m.flat[-1] = info.max, info.max if info.min == 0 else info.min
        return m
    m = r.standard_normal(shape).astype(dtype)
    return m


def with_nan(m):
    m = m.copy()
    m.flat[3] = np.nan
    m.flat[7] = -0.0
    return m


def reduction_cases():
    monoids = [("sum", lax.add, 0), ("prod", lax.mul, 1), ("max", lax.max, None),
               ("min", lax.min, None)]
    for dtype in FLOATS + INTS + [F64] + X64_INTS:
        m = matrix(dtype, f"reduce_{short(dtype)}")
        inputs = [("", m)]
        if is_float(dtype):
            inputs.append(("_nan", with_nan(m)))
        for name, op, unit in monoids:
            if unit is None:
                if is_float(dtype):
                    unit = -np.inf if name == "max" else np.inf
                else:
                    unit = np.iinfo(dtype).min if name == "max" else np.iinfo(dtype).max
            init = np.array(unit, dtype)
            for tag, x in inputs:
                for axes in ((0,), (1,), (0, 1)):
                    ax = "".join(map(str, axes))
                    case(f"reduce_{name}{tag}_axes{ax}_{short(dtype)}{suffix(dtype)}",
                         lambda a, op=op, init=init, axes=axes: lax.reduce(a, init, op, axes),
                         [x], accumulates=True)
        for tag, x in inputs:
            for axis in (0, 1):
                for fn in ("argmax", "argmin"):
                    case(f"{fn}{tag}_axis{axis}_{short(dtype)}{suffix(dtype)}",
                         lambda a, fn=fn, axis=axis: getattr(lax, fn)(a, axis, np.int32), [x])
    for dtype in INTS + [BOOL]:
        m = matrix(dtype, f"reduce_bits_{short(dtype)}")
        for name, op, unit in (("and", lax.bitwise_and, -1 if dtype != BOOL else True),
                               ("or", lax.bitwise_or, 0), ("xor", lax.bitwise_xor, 0)):
            init = np.array(unit).astype(dtype) if dtype == BOOL else np.array(
                unit, np.int64).astype(dtype)
            for axes in ((0,), (1,)):
                case(f"reduce_{name}_axes{axes[0]}_{short(dtype)}",
                     lambda a, op=op, init=init, axes=axes: lax.reduce(a, init, op, axes), [m])
    big = np.full((4096,), 0.1, np.float32)
    case("reduce_sum_4096_tenths_f32", lambda a: lax.reduce(a, np.float32(0), lax.add, (0,)),
         [big], accumulates=True)


def cumulative_cases():
    for dtype in FLOATS + INTS + [F64, np.dtype(np.int64)]:
        m = matrix(dtype, f"cum_{short(dtype)}", (4, 5))
        if is_float(dtype):
            m = with_nan(m)
        for fn in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
            if fn == "cumlogsumexp" and not is_float(dtype):
                continue
            for axis in (0, 1):
                for reverse in (False, True):
                    extra = {"ulps": "transcendental"} if fn == "cumlogsumexp" else {}
                    case(f"{fn}_axis{axis}{'_rev' if reverse else ''}_{short(dtype)}"
                         f"{suffix(dtype)}",
                         lambda a, fn=fn, axis=axis, r=reverse: getattr(lax, fn)(a, axis, r),
                         [m], accumulates=True, **extra)
    case("cumsum_bool", lambda a: lax.cumsum(a.astype(np.int32), 0), [specials(BOOL)])


# ---------------------------------------------------------------- sort, top_k
def sort_cases():
    for dtype in FLOATS + INTS + [BOOL, F64] + X64_INTS:
        x = specials(dtype)
        if is_float(dtype):
            x = np.concatenate([x, x[:6]])  # duplicates, -0.0 next to 0.0
        idx = np.arange(x.size, dtype=np.int32)
        sfx = suffix(dtype)
        case(f"sort_{short(dtype)}{sfx}", lambda a: lax.sort(a), [x])
        case(f"sort_stable_pair_{short(dtype)}{sfx}",
             lambda a, i: lax.sort((a, i), num_keys=1, is_stable=True), [x, idx])
        if dtype != BOOL:
            k = min(5, x.size)
            case(f"top_k_{short(dtype)}{sfx}", lambda a, k=k: lax.top_k(a, k), [x])
    m = matrix(np.dtype(np.float32), "sort2d", (4, 6))
    m[1, 2], m[2, 3] = np.nan, -0.0
    for dim in (0, 1):
        case(f"sort_2d_dim{dim}_f32", lambda a, d=dim: lax.sort(a, dimension=d), [m])
    keys = np.array([3, 1, 2, 1, 3, 2, 1, 1], np.int32)
    keys2 = np.array([0.5, np.nan, -0.0, 0.0, -1.0, 2.0, np.nan, -np.inf], np.float32)
    vals = np.arange(8, dtype=np.int32)
    case("sort_two_keys", lambda a, b, c: lax.sort((a, b, c), num_keys=2, is_stable=True),
         [keys, keys2, vals])
    case("sort_unstable_unique_f32", lambda a: lax.sort(a, is_stable=False),
         [np.array([3.5, -1.0, 2.0, 8.0, -9.5], np.float32)])
    case("top_k_2d_i32", lambda a: lax.top_k(a, 3), [matrix(np.dtype(np.int32), "topk2d", (3, 7))])


# ---------------------------------------------------------------- dots and convolutions
def dot_cases():
    dn = (((1,), (0,)), ((), ()))
    for dtype in (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.int32),
                  np.dtype(np.uint32), np.dtype(np.float16), bf16, np.dtype(np.float32), BOOL):
        a = matrix(dtype, f"dot_a_{short(dtype)}", (3, 4))
        b = matrix(dtype, f"dot_b_{short(dtype)}", (4, 2))
        case(f"dot_{short(dtype)}", lambda x, y: lax.dot_general(x, y, dn), [a, b],
             accumulates=True)
        for pref in (np.int32, np.float32) if dtype != BOOL else ():
            if is_float(dtype) and pref == np.int32:
                continue
            case(f"dot_{short(dtype)}_pref_{short(pref)}",
                 lambda x, y, p=pref: lax.dot_general(x, y, dn, preferred_element_type=p),
                 [a, b], accumulates=True)
    a = matrix(np.dtype(np.int8), "dot_batch_a", (2, 3, 4))
    b = matrix(np.dtype(np.int8), "dot_batch_b", (2, 4, 5))
    case("dot_batch_i8_pref_i32", lambda x, y: lax.dot_general(
        x, y, (((2,), (1,)), ((0,), (0,))), preferred_element_type=np.int32), [a, b])
    a = matrix(np.dtype(np.float32), "dot_contract0", (4, 3))
    case("dot_contract_dim0_f32", lambda x: lax.dot_general(x, x, (((0,), (0,)), ((), ()))),
         [a], accumulates=True)
    a = matrix(np.dtype(np.int64), "dot_i64", (3, 4))
    case("dot_i64_x64", lambda x, y: lax.dot_general(x, y, dn), [a, a.T.copy()])
    u = np.full((2, 3), 60000, np.uint16)
    case("dot_u16_wraps", lambda x, y: lax.dot_general(x, y, dn), [u, u.T.copy()])
    case("dot_u16_pref_u32", lambda x, y: lax.dot_general(x, y, dn,
                                                          preferred_element_type=np.uint32),
         [u, u.T.copy()])


def conv_cases():
    dn = ("NCH", "OIH", "NCH")
    x = matrix(np.dtype(np.float32), "conv_x", (2, 4, 7))
    w_group = matrix(np.dtype(np.float32), "conv_wg", (4, 2, 3))
    case("conv_feature_group_2_f32", lambda a, b: lax.conv_general_dilated(
        a, b, (1,), "VALID", dimension_numbers=dn, feature_group_count=2), [x, w_group],
        accumulates=True)
    w_bg = matrix(np.dtype(np.float32), "conv_wb", (4, 4, 3))
    case("conv_batch_group_2_f32", lambda a, b: lax.conv_general_dilated(
        a, b, (1,), "VALID", dimension_numbers=dn, batch_group_count=2), [x, w_bg],
        accumulates=True)
    case("conv_dilated_padded_strided_f32", lambda a, b: lax.conv_general_dilated(
        a, b, (2,), ((2, 1),), lhs_dilation=(2,), rhs_dilation=(2,), dimension_numbers=dn,
        feature_group_count=2), [x, w_group], accumulates=True)
    for dtype in (np.dtype(np.int8), np.dtype(np.int32), bf16, np.dtype(np.float16)):
        xi = matrix(dtype, f"conv_x_{short(dtype)}", (1, 2, 6))
        wi = matrix(dtype, f"conv_w_{short(dtype)}", (3, 2, 2))
        case(f"conv_{short(dtype)}", lambda a, b: lax.conv_general_dilated(
            a, b, (1,), "SAME", dimension_numbers=dn), [xi, wi], accumulates=True)
        if np.issubdtype(dtype, np.integer):
            case(f"conv_{short(dtype)}_pref_i32", lambda a, b: lax.conv_general_dilated(
                a, b, (1,), "SAME", dimension_numbers=dn, preferred_element_type=np.int32),
                [xi, wi], accumulates=True)
    x2 = matrix(np.dtype(np.float32), "conv2d_x", (1, 5, 5, 2))
    w2 = matrix(np.dtype(np.float32), "conv2d_w", (2, 2, 2, 4))
    case("conv2d_nhwc_negative_padding_f32", lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), ((-1, 1), (1, 0)), dimension_numbers=("NHWC", "HWIO", "NHWC")),
        [x2, w2], accumulates=True)


# ---------------------------------------------------------------- indexing and shapes
def indexing_cases():
    x = matrix(np.dtype(np.float32), "gather_x", (5, 3))
    xi = matrix(np.dtype(np.int32), "gather_xi", (5, 3))
    idx = np.array([0, 4, -1, 5, 7, -6, 2], np.int32)
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    for mode in (lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP):
        for name, arr in (("f32", x), ("i32", xi)):
            case(f"gather_{mode.name.lower()}_{name}", lambda a, i, m=mode: lax.gather(
                a, i[:, None], dn, (1, 3), mode=m, fill_value=None), [arr, idx])
        sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                          scatter_dims_to_operand_dims=(0,))
        upd = matrix(np.dtype(np.float32), "scatter_upd", (7, 3))
        for op in ("scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
            case(f"{op}_{mode.name.lower()}_f32", lambda a, i, u, op=op, m=mode: getattr(
                lax, op)(a, i[:, None], u, sdn, mode=m), [x, idx, upd], accumulates=True)
        updi = matrix(np.dtype(np.int32), "scatter_updi", (7, 3))
        case(f"scatter_add_{mode.name.lower()}_i32", lambda a, i, u, m=mode: lax.scatter_add(
            a, i[:, None], u, sdn, mode=m), [xi, idx, updi])
    case("gather_fill_value_i32", lambda a, i: lax.gather(
        a, i[:, None], dn, (1, 3), mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=-9),
        [xi, idx])
    m = matrix(np.dtype(np.int32), "dyn", (4, 5))
    for starts in ((0, 0), (3, 4), (-1, -7), (100, 2), (-2147483648, 2147483647)):
        tag = "_".join(str(s).replace("-", "m") for s in starts)
        case(f"dynamic_slice_{tag}", lambda a, i, j: lax.dynamic_slice(a, (i, j), (2, 3)),
             [m, np.int32(starts[0]), np.int32(starts[1])])
        case(f"dynamic_update_slice_{tag}", lambda a, u, i, j: lax.dynamic_update_slice(
            a, u, (i, j)), [m, np.full((2, 3), -1, np.int32), np.int32(starts[0]),
                            np.int32(starts[1])])
    case("dynamic_slice_u8_index", lambda a, i: lax.dynamic_slice(a, (i, np.uint8(0)), (2, 2)),
         [m, np.uint8(250)])
    for cfg in (((1, 2, 0), (-1, 0, 1)), ((-2, -1, 0), (2, -2, 2)), ((0, 0, 2), (-1, -1, 0))):
        tag = "_".join(f"{lo}_{hi}_{it}" for lo, hi, it in cfg).replace("-", "m")
        case(f"pad_{tag}", lambda a, c=cfg: lax.pad(a, np.int32(7), c), [m])
    case("pad_f32_nan_value", lambda a: lax.pad(a, np.float32(np.nan), ((1, -1, 1), (0, 0, 0))),
         [x])
    for dims in ((0,), (1,), (0, 1)):
        case(f"rev_{''.join(map(str, dims))}", lambda a, d=dims: lax.rev(a, d), [m])
    c = specials(np.dtype(np.float32))[:8]
    case("select_n_bool", lambda p, a, b: lax.select_n(p, a, b),
         [np.array([True, False] * 4), c, c[::-1].copy()])
    case("select_n_i32_three", lambda p, a, b, d: lax.select_n(p, a, b, d),
         [np.array([0, 1, 2, 2, 1, 0, 1, 2], np.int32), c, -c, c * 2])
    case("select_n_scalar_pred", lambda p, a, b: lax.select_n(p, a, b), [np.bool_(True), c, -c])


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for make in (unary_cases, binary_cases, clamp_cases, conversion_cases, bitcast_cases,
                 reduce_precision_cases, reduction_cases, cumulative_cases, sort_cases,
                 dot_cases, conv_cases, indexing_cases):
        make()
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    refused = []
    for name, f, args, extra in CASES:
        try:
            write(name, f, args, extra)
        except Exception as e:  # noqa: BLE001 (JAX refuses the op for this dtype: skipped)
            refused.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:100]}")
    print(f"{len(CASES) - len(refused)} cases in {OUT}; JAX refused {len(refused)}")
    for line in refused:
        print("  " + line)


def write(name, f, args, extra):
    with jax.enable_x64(name.endswith("_x64")):
        closed = jax.make_jaxpr(f)(*args)
        text = str(closed)
        outs = leaves(jax.jit(f)(*args))
    assert not closed.consts, name
    record = {"name": name, "text": text, "args": [encode(a) for a in args],
              "outs": [encode(o) for o in outs]}
    record.update(extra)
    (OUT / f"{name}.json").write_text(json.dumps(record, indent=None) + "\n")


if __name__ == "__main__":
    main()
