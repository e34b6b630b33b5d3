# In-process reshards against memcpy of the same bytes on the same device threads.
axe_add_benchmark(reshard_bench reshard_bench.cc)
# The reshard benchmark harness is an internal header (src/runtime/reshard_benchmark.h).
target_include_directories(reshard_bench PRIVATE ${PROJECT_SOURCE_DIR}/src)
# MPI's own floor for the exchange of a rows -> columns reshard on two ranks (contiguous vs
# MPI_Type_vector sends, with and without the local copy): a plain MPI program.
if(AXE_MPI)
  add_executable(mpi_exchange_floor mpi_exchange_floor.cc)
  target_link_libraries(mpi_exchange_floor PRIVATE MPI::MPI_CXX axe_build_flags)
endif()
