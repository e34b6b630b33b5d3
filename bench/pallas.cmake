axe_add_benchmark(pallas_bench pallas_bench.cc)
