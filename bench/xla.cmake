axe_add_benchmark(xla_bench xla_bench.cc)
