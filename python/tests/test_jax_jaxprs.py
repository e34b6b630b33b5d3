"""axe.ir against the real JAX, live: a fresh seeded batch of random programs from
generate_jaxpr_vectors.py (AXE_TEST_SEED overrides the seed), checked for what
tests/ir/jax_vectors_test.cc checks on the committed golden file:

  * every text JAX printed parses and re-prints character for character (str(ir.parse(t)));
  * ir.check accepts what JAX printed, and on mutated shard_map programs agrees with
    jax.core.check_jaxpr (verdict, exception class, the key part of JAX's message);
  * ir.transpose of each linear shard_map program has the collectives of jax.linear_transpose's
    (pvary aside, see docs/ir.md "Differential tests against JAX").

Skipped when jax is not importable or has fewer than 8 host devices (make test-jax sets
XLA_FLAGS=--xla_force_host_platform_device_count=8)."""

import re

import pytest

from conftest import test_seed

jax = pytest.importorskip("jax")
ir = pytest.importorskip("axe.ir")

import generate_jaxpr_vectors as gen  # noqa: E402  (imports jax)

COUNT = 40  # per kind: jaxpr and shard_map; half as many typing cases, a quarter transposes


@pytest.fixture(scope="module")
def cases():
    if len(jax.devices()) < 8:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=8")
    data = gen.generate(test_seed(14), COUNT)
    kinds = {}
    for c in data["cases"]:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    print(f"cases per kind: {kinds}; redrawn: {data['skipped']}")
    return data["cases"]


def _texts(cases):
    for c in cases:
        yield c["text"]
        if "transposed" in c:
            yield c["transposed"]


def _has_consts(text):
    """`{ lambda a:f32[2]; ...`: constants whose values the text does not hold."""
    return not text.startswith("{ lambda ; ")


def _sort_frozensets(message):
    """Python prints a frozenset in hash order (it differs between runs): sort its names."""
    return re.sub(r"frozenset\(\{([^}]*)\}\)",
                  lambda m: "frozenset({" + ", ".join(sorted(m.group(1).split(", "))) + "})",
                  message)


def _key_part(message):
    """JAX's message up to its second "in equation:" or its "while checking jaxpr:"."""
    marker = "\n\nin equation:\n\n"
    first = message.find(marker)
    if first < 0:
        return message
    ends = [i for i in (message.find(marker, first + len(marker)),
                        message.find("\n\nwhile checking jaxpr:")) if i >= 0]
    return message[:min(ends)] if ends else message


def test_every_text_reprints_identically(cases):
    failures = [t for t in _texts(cases) if str(ir.parse(t)) != t]
    assert not failures, f"{len(failures)} texts re-print differently, first:\n{failures[0]}"


def test_what_jax_printed_type_checks(cases):
    checked = 0
    for c in cases:
        if c["kind"] == "typing":
            continue
        for t in [c["text"]] + ([c["transposed"]] if "transposed" in c else []):
            if _has_consts(t):  # ir.check wants the constants' values; the C++ test checks these
                continue
            ir.check(ir.parse(t))
            checked += 1
    assert checked > 0


def test_check_agrees_with_jax_on_mutated_shard_maps(cases):
    typing = [c for c in cases if c["kind"] == "typing"]
    assert typing
    for c in typing:
        j = ir.parse(c["text"])
        if c["accepted"]:
            ir.check(j)
            continue
        with pytest.raises((TypeError, ValueError)) as e:
            ir.check(j)
        assert type(e.value).__name__ == c["exception_base"], (c["text"], c["message"])
        assert _sort_frozensets(str(e.value)).startswith(
            _sort_frozensets(_key_part(c["message"]))), (str(e.value), c["message"])


def test_transposes_have_jaxs_collectives(cases):
    transposes = [c for c in cases if c["kind"] == "transpose"]
    assert transposes
    for c in transposes:
        t = ir.transpose(ir.parse(c["text"]))
        ours = {}
        for row in ir.comm(t)["collectives"]:
            if row["primitive"] != "pvary":
                ours[row["primitive"]] = ours.get(row["primitive"], 0) + 1
        theirs = {p: n for p, n in c["collectives"].items() if p != "pvary"}
        assert ours == theirs, (str(t), c["transposed"])
