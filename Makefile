# axe: the two set-up commands.
#   make run    install what is missing, build release, run the tour
#   make test   install, build and run the whole test suite in release and under ASan+UBSan
SHELL := /bin/bash
JOBS ?= $(shell nproc)

.PHONY: all deps run test test-release test-asan bench clean

all: run

deps:
	@scripts/install-deps

run: deps
	cmake --preset release
	cmake --build --preset release --target axe_cli -j $(JOBS)
	build/release/tools/axe/axe tour

test: test-release test-asan

test-release: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

test-asan: deps
	cmake --preset asan-ubsan
	cmake --build --preset asan-ubsan -j $(JOBS)
	ctest --preset asan-ubsan -j $(JOBS)

bench: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)
	for b in build/release/bench/*_bench; do $$b; done

clean:
	rm -rf build
