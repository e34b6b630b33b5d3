"""A second corpus of everyday JAX programs (python/tests/data/everyday2, printed by JAX 0.10.2
with generate_everyday2_corpus.py: transformer blocks, conv nets with batchnorm, LSTM/GRU scans,
a VAE loss, optimizer steps, mixed precision, einsum, linear algebra, PRNG, jacobians,
checkpoint policies, shard_map losses) through axe, stage by stage as test_jax_everyday.py
does. Needs no JAX: the values are stored.

Run as a script for the per-stage table (docs/ir.md):

    PYTHONPATH=build/release/python build/venv/bin/python python/tests/test_jax_everyday2.py
"""

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_jax_everyday import first_failure, needs_ml_dtypes, run_stages, table  # noqa: E402

DATA = pathlib.Path(__file__).parent / "data" / "everyday2"

# Programs axe does not run as JAX does yet: name -> (the first stage that fails, why).
_LINALG = ("custom_linear_solve (jnp.linalg.solve, inv): axe does not read its "
           "jaxprs=_LinearSolveTuple(...) param, whose sub-jaxprs carry their own `let` preludes")
KNOWN_FAILURES = {
    "linalg_solve_inv_det": ("parse", _LINALG),
    "fft_power_spectrum": ("parse", "fft works on complex numbers, which axe's values do not hold"),
    "random_gamma_beta_dirichlet": ("parse", "random_gamma (JAX's rejection sampler behind "
                                    "gamma, beta, dirichlet, poisson, t) is not in axe"),
    "random_poisson_t_laplace": ("parse", "random_gamma, as above"),
}


def _records():
    return [json.loads(p.read_text()) for p in sorted(DATA.glob("*.json"))]


def test_corpus_is_broad():
    assert len(_records()) >= 100


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


if __name__ == "__main__":
    rows, failed = table(_records())
    print(rows)
    print("\n".join(failed), file=sys.stderr)
