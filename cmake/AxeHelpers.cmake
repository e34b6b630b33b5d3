# Shared build settings and helpers for axe targets.

add_library(axe_build_flags INTERFACE)
target_compile_options(axe_build_flags INTERFACE -Wall -Wextra -Wpedantic)
if(AXE_WERROR)
  target_compile_options(axe_build_flags INTERFACE -Werror)
endif()
if(AXE_SANITIZE)
  target_compile_options(axe_build_flags INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(axe_build_flags INTERFACE -fsanitize=address,undefined)
endif()

# Test code (test executables, their support library, the fuzz replay drivers) and the CLI
# (flag parsing and printing only: every loop that matters is in the libraries) are
# compiled with less optimization than the libraries: the libraries keep the preset's level
# (release -O3, asan-ubsan -O1), while this code, whose own speed matters little, builds at
# -O1 in release and -O0 under the sanitizers. This halves the time `make test` spends
# compiling it on a 2-core machine. (A later -O wins, so these follow the preset's flags.)
# g++ 12 at -O1 reports libstdc++'s own memcpy in std::string's operator+ (a path joined
# from a macro and a literal) as out of bounds: false positives of that compiler's
# -Warray-bounds and -Wstringop-overflow, which -Werror would turn into a failed build.
# Test code is checked at run time by the ASan build instead.
set(_axe_gcc12_fp -Wno-array-bounds -Wno-stringop-overflow)
add_library(axe_test_code_flags INTERFACE)
target_compile_options(axe_test_code_flags INTERFACE
  $<$<CONFIG:Release>:-O1> $<$<CONFIG:RelWithDebInfo>:-O0>
  "$<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:${_axe_gcc12_fp}>")

# Unity builds (AXE_UNITY_BUILD, on by default): the sources of each library, test program
# and the CLI are compiled in batches of AXE_UNITY_BATCH_SIZE files, each batch one
# translation unit, so the headers every file includes (abseil, gtest, the standard library,
# axe's own) are parsed and their templates instantiated once per batch instead of once per
# file: a third of the compile time of the per-file build, which is most of `make test` on a
# 2-core machine. The price is that file-local names must not collide within a target:
# - tests and CLI command files keep their anonymous namespace inside a namespace named after
#   the file (`namespace shard_map_test { namespace { ... } }`);
# - library files give their file-local helpers distinct names or share one in an internal
#   header.
# A build with -DAXE_UNITY_BATCH_SIZE=0 (a whole target per translation unit) finds every
# latent collision; -DAXE_UNITY_BUILD=OFF builds one file at a time.
function(axe_unity_build target)
  if(AXE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${AXE_UNITY_BATCH_SIZE})
  endif()
endfunction()

# axe_add_module(<name> SOURCES ... DEPS ... [EXPORT <set>])
# Defines the library axe_<name>, its alias axe::<name> and its installed export (in the
# export set axeTargets, or <set>: axeMpiTargets holds the mpi component's targets).
function(axe_add_module name)
  cmake_parse_arguments(ARG "" "EXPORT" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_EXPORT)
    set(ARG_EXPORT axeTargets)
  endif()
  set(target axe_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(axe::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME axe_${name})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE $<BUILD_INTERFACE:axe_build_flags>)
  axe_unity_build(${target})
  install(TARGETS ${target} EXPORT ${ARG_EXPORT}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# axe_add_test(<name> SOURCES ... DEPS ...)
# One GoogleTest executable; every TEST becomes a ctest entry.
function(axe_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} axe_build_flags axe_test_code_flags
                        axe_test_support GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  axe_reuse_test_pch(${name})
  axe_unity_build(${name})
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60)
endfunction()

# Precompiled headers (AXE_PCH): GoogleTest, gmock and abseil are parsed once for all test
# code instead of once per test file. axe_test_support compiles them (see
# tests/support/CMakeLists.txt); every test executable built with the same flags reuses it.
# A header precompiled for a library is refused by an executable when one was compiled with
# -fPIC and the other with -fPIE (the Python build turns position-independent code on), so
# test code is compiled with the compiler's default (PIE on Debian) on both sides.
function(axe_reuse_test_pch target)
  if(AXE_PCH)
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    target_precompile_headers(${target} REUSE_FROM axe_test_support)
  endif()
endfunction()
