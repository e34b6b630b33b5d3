# The relayout engine against memcpy, a naive loop and Eigen's tensor shuffle (Eigen is
# used by this benchmark only).
find_package(Eigen3 CONFIG REQUIRED)
find_package(hwy CONFIG REQUIRED)
axe_add_benchmark(relayout_bench relayout_bench.cc)
target_link_libraries(relayout_bench PRIVATE Eigen3::Eigen hwy::hwy)
