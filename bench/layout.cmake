axe_add_benchmark(layout_bench layout_bench.cc)
