# Fails when a committed stub (COMMITTED/<module>.pyi) differs from the one the build generated
# (GENERATED/<module>.pyi), naming the stale files and the command that refreshes them.
set(stale "")
foreach(module IN LISTS MODULES)
  if(NOT EXISTS ${COMMITTED}/${module}.pyi)
    list(APPEND stale "${module}.pyi (not committed)")
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GENERATED}/${module}.pyi
                          ${COMMITTED}/${module}.pyi RESULT_VARIABLE differs)
  if(NOT differs EQUAL 0)
    list(APPEND stale "${module}.pyi")
  endif()
endforeach()
if(stale)
  list(JOIN stale ", " stale)
  message(FATAL_ERROR "stale type stubs in ${COMMITTED}: ${stale}; the bindings changed: "
                      "cp ${GENERATED}/*.pyi ${COMMITTED}/")
endif()
message(STATUS "the committed stubs are the generated ones")
