"""Shared fixtures: the seed of the randomized tests (AXE_TEST_SEED overrides, as in the C++
suites) and whether a JAX with 8 host devices is importable."""

import os
import random

import pytest


def test_seed(default):
    """The seed of a randomized test: $AXE_TEST_SEED when set, else `default`; printed so
    that a failure can be replayed."""
    seed = int(os.environ.get("AXE_TEST_SEED", default))
    print(f"seed {seed} (AXE_TEST_SEED overrides)")
    return seed


test_seed.__test__ = False


@pytest.fixture
def rng(request):
    """A random.Random seeded per test (stable across runs, overridable)."""
    return random.Random(test_seed(sum(map(ord, request.node.name))))
