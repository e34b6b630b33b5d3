# Installs the axe build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it. Variables: AXE_BUILD_DIR, CONSUMER_SOURCE, WORK_DIR,
# GENERATOR, CXX, FLAGS (extra compile/link flags, e.g. sanitizers), MPI (ON: the tree has the
# MPI backend, so the mpi component is tried too).
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGV}\n${out}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${AXE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# Without the mpi component, with MPI made unfindable: find_package(axe) must not look for it.
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
    -DCMAKE_DISABLE_FIND_PACKAGE_MPI=TRUE
    "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
message(STATUS "consumer built against the installed axe (no MPI asked for) and ran")
# With it, when the tree has the MPI backend: the component's targets link.
if(MPI)
  run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build-mpi -G ${GENERATOR}
      -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DAXE_CONSUMER_MPI=ON
      "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}")
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/build-mpi)
  run(${WORK_DIR}/build-mpi/consumer)
  message(STATUS "consumer built with find_package(axe COMPONENTS mpi) and ran")
endif()
