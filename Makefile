# axe: the two set-up commands.
#   make run    install what is missing, build release, run the tour
#   make test   install, check the house style, build and run the whole test suite in release
#               and under ASan+UBSan
SHELL := /bin/bash
JOBS ?= $(shell nproc)

.PHONY: all deps run test check-format format test-release test-asan test-jax test-pip bench fuzz \
        clean

all: run

deps:
	@scripts/install-deps
	@scripts/install-python-deps

run: deps
	cmake --preset release
	cmake --build --preset release --target axe_cli -j $(JOBS)
	build/release/tools/axe/axe tour

test: check-format test-release test-asan

check-format: deps
	scripts/check-format

format: deps
	scripts/check-format --fix

test-release: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS) -LE slow

# The Python package's differential tests against the real JAX: installs jax/jaxlib (CPU)
# into build/venv, then runs the pytest suite with 8 host devices.
test-jax: deps
	scripts/install-python-deps --jax
	cmake --preset release
	cmake --build --preset release --target axe_python -j $(JOBS)
	XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=build/release/python \
	  PYTHONDONTWRITEBYTECODE=1 \
	  build/venv/bin/python -m pytest -q -p no:cacheprovider python/tests

# `pip install .` into a scratch environment (builds the core again: slow, not in make test).
test-pip: deps
	python/tests/pip_install_check.sh /usr/bin/python3 $(CURDIR) build/pip-check

test-asan: deps
	cmake --preset asan-ubsan
	cmake --build --preset asan-ubsan -j $(JOBS)
	ctest --preset asan-ubsan -j $(JOBS)

# libFuzzer (clang): every target for FUZZ_SECONDS (default 180) each, or until FUZZ_RUNS
# executions when set; new inputs kept in build/fuzz/corpus/<target> next to the committed
# seeds in fuzz/corpus/<target>. One target: make fuzz FUZZ_TARGETS=layout. FUZZ_TIMEOUT:
# seconds one input may take (raise it where builds share the cores with the fuzzer).
FUZZ_SECONDS ?= 180
FUZZ_RUNS ?=
FUZZ_TIMEOUT ?= 30
FUZZ_TARGETS ?= layout swizzle phys_coord buffer_layout xla_shape hlo_text index_map int_list \
                mesh partition_spec hlo_sharding format shard_notation jaxpr explorer_request \
                shaped_array eval_value shardy call_argument program_shape sharded_instruction \
                tensor_buffer region element_value pallas_spec jaxpr_eval
fuzz: deps
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t && \
	  build/fuzz/fuzz/axe_fuzz_$$t build/fuzz/corpus/$$t fuzz/corpus/$$t \
	    -dict=fuzz/dict/$$t.dict -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) -timeout=$(FUZZ_TIMEOUT) -artifact_prefix=build/fuzz/ || exit 1; \
	done

bench: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)
	for b in build/release/bench/*_bench; do $$b; done

clean:
	rm -rf build
