# Fails when a public header under include/axe/<module>/ is missing from the umbrella header
# include/axe/axe.h (the MPI backend's headers, which need mpi.h, and the testing/ headers,
# which are for tests, are exempt).
#   cmake -DINCLUDE_DIR=<repo>/include -P umbrella_test.cmake
file(READ ${INCLUDE_DIR}/axe/axe.h umbrella)
file(GLOB_RECURSE headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/axe/*/*.h)
set(missing "")
foreach(header IN LISTS headers)
  get_filename_component(name ${header} NAME)
  if(name MATCHES "^mpi_" OR header MATCHES "/testing/")
    continue()
  endif()
  string(FIND "${umbrella}" "#include \"${header}\"" at)
  if(at EQUAL -1)
    list(APPEND missing ${header})
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " shown)
  message(FATAL_ERROR "include/axe/axe.h does not include:\n  ${shown}")
endif()
