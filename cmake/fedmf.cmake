# Project-wide build helpers: the warning policy on our own code, optional sanitizers, source
# paths relative to the repository, and the build-info header.

# __FILE__ (e.g. the file names --help groups flags under) relative to the repository, not the
# path of the machine it was built on.
add_compile_options(-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=)

if(FEDMF_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
# GoogleTest cases not run under the sanitizers (a --gtest_filter pattern list, ':'-separated):
# scale tests that take minutes there and exercise no code the smaller ones do not.
set(FEDMF_SANITIZE_SKIPPED_TESTS "SimulationTest.TwentyThousandUsersEveryRound*")

# libFuzzer needs clang; every target gets coverage instrumentation and ASan, the fuzzers
# themselves link the libFuzzer driver (tests/fuzz).
if(FEDMF_BUILD_FUZZERS)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address)
  else()
    message(WARNING "FEDMF_BUILD_FUZZERS needs clang (compiler is ${CMAKE_CXX_COMPILER_ID}); "
                    "the fuzzers are not built")
  endif()
endif()

# Applies the warning policy of CONVENTIONS.md to a target built from our sources: -Wall -Wextra,
# errors with FEDMF_WERROR (the presets and CI; not imposed on other toolchains).
set(FEDMF_WERROR_FLAGS "")
if(FEDMF_WERROR)
  set(FEDMF_WERROR_FLAGS -Werror)
endif()
# GCC 12 reports a false -Wrestrict inside std::string's assignment once inlining crosses source
# files (GCC bug 105651, fixed in GCC 13), which the presets' unity builds make likely.
set(FEDMF_WARNING_FLAGS -Wall -Wextra)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND FEDMF_WARNING_FLAGS -Wno-restrict)
endif()
function(fedmf_warnings target)
  target_compile_options(${target} PRIVATE ${FEDMF_WARNING_FLAGS} ${FEDMF_WERROR_FLAGS})
endfunction()
# The same policy for our Java (client/java, tests/unit/java): javac's lint, errors with
# FEDMF_WERROR; UseJava's add_jar reads it from CMAKE_JAVA_COMPILE_FLAGS.
set(FEDMF_JAVAC_FLAGS --release 17 -Xlint:all)
if(FEDMF_WERROR)
  list(APPEND FEDMF_JAVAC_FLAGS -Werror)
endif()

# fedmf_skipped_test(<name> <label> <reason>): a CTest case with label <label> that only says it
# is skipped and why (exit 77, reported as skipped), for a test this build cannot run (e.g. no JDK
# for the Java tests).
function(fedmf_skipped_test name label reason)
  add_test(NAME ${name} COMMAND sh -c "echo 'SKIP ${name}: ${reason}'; exit 77")
  set_tests_properties(${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77)
endfunction()

# fedmf_build_info: include it for fedmf/build_info.h (FEDMF_VERSION, FEDMF_COMMIT), regenerated
# on every build by cmake/build_info.cmake.
set(FEDMF_BUILD_INFO_H ${PROJECT_BINARY_DIR}/generated/fedmf/build_info.h)
add_custom_target(fedmf_build_info_header
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${FEDMF_BUILD_INFO_H}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/build_info.cmake
  BYPRODUCTS ${FEDMF_BUILD_INFO_H}
  COMMENT "Build info (version, commit)")
add_library(fedmf_build_info INTERFACE)
target_include_directories(fedmf_build_info INTERFACE ${PROJECT_BINARY_DIR}/generated)
add_dependencies(fedmf_build_info fedmf_build_info_header)

# fedmf_library(<name> SOURCES ... [DEPS ...]): a static library of one top-level module.
function(fedmf_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  fedmf_warnings(${name})
endfunction()

# fedmf_binary(<name> SOURCES ... [DEPS ...] [COMPONENT c]): an installed executable, in install
# component `c` (default tools; cmake/packaging.cmake makes a Debian package per component).
function(fedmf_binary name)
  cmake_parse_arguments(ARG "" "COMPONENT" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_COMPONENT)
    set(ARG_COMPONENT tools)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  fedmf_warnings(${name})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${ARG_COMPONENT})
endfunction()

# fedmf_test(<name> SOURCES ... [DEPS ...] [LABELS ...] [COST c]): a GoogleTest binary registered
# with CTest, each TEST its own CTest case (so grouping test files into one binary changes neither
# what runs nor its isolation: each case is its own process); under the sanitizers (FEDMF_SANITIZE)
# the binary is one case. COST (e.g. the seconds a test takes)
# makes `ctest -j` start it early: without a cost history (a fresh clone) CTest runs tests in order,
# and a long test started last leaves the other cores idle at the end.
# Like the libraries, its files compile in unity batches (CMAKE_UNITY_BUILD): a helper in one test
# file's namespace must not repeat a name of another file of the binary; helpers two files share
# live in a header next to them (e.g. tests/unit/common/rdp_curve_util.h).
# A binary with label unit is part of the target unit_tests (fedmf_unit_tests_target), others not.
function(fedmf_test name)
  cmake_parse_arguments(ARG "" "COST" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_COST)
    set(ARG_COST 0)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  if("unit" IN_LIST ARG_LABELS)
    set_property(GLOBAL APPEND PROPERTY FEDMF_UNIT_TEST_TARGETS ${name})
  else()
    set_property(GLOBAL APPEND PROPERTY FEDMF_OTHER_TEST_TARGETS ${name})
  endif()
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  fedmf_warnings(${name})
  if(FEDMF_SANITIZE)
    # One CTest case a binary, its TESTs in one process (but FEDMF_SANITIZE_SKIPPED_TESTS): an
    # instrumented binary takes about 0.3 s to start, which over some 1,500 cases was half the
    # sanitizer step's test time. --gtest_brief prints only the failures.
    add_test(NAME ${name}
             COMMAND ${name} --gtest_brief=1 "--gtest_filter=-${FEDMF_SANITIZE_SKIPPED_TESTS}")
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" COST ${ARG_COST})
  else()
    gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" COST ${ARG_COST}
                         DISCOVERY_TIMEOUT 60)
  endif()
endfunction()

# fedmf_unit_test_uses(<target>...): targets a unit test runs (e.g. a tool whose output it checks)
# that are defined outside tests/unit: part of unit_tests too.
function(fedmf_unit_test_uses)
  set_property(GLOBAL APPEND PROPERTY FEDMF_UNIT_TEST_TARGETS ${ARGN})
endfunction()

# fedmf_unit_tests_target(<dir>): the target unit_tests, which builds what the CTest cases of
# label unit run and nothing else (the asan build preset builds only it, as its test preset runs
# only label unit): every target defined in <dir> and its subdirectories (test binaries, C tests,
# their support libraries) but the fedmf_test binaries of other labels, every fedmf_test binary of
# label unit wherever it is defined, and what fedmf_unit_test_uses named. Call it after <dir>'s
# add_subdirectory() calls; a unit test added under <dir> is included without being listed.
function(fedmf_unit_tests_target dir)
  set(targets "")
  set(dirs ${dir})
  while(dirs)
    list(POP_FRONT dirs d)
    get_property(here DIRECTORY ${d} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS here)
      get_target_property(type ${t} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        list(APPEND targets ${t})
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${d} PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
  endwhile()
  get_property(other GLOBAL PROPERTY FEDMF_OTHER_TEST_TARGETS)
  get_property(unit GLOBAL PROPERTY FEDMF_UNIT_TEST_TARGETS)
  if(other)
    list(REMOVE_ITEM targets ${other})
  endif()
  list(APPEND targets ${unit})
  list(REMOVE_DUPLICATES targets)
  add_custom_target(unit_tests)
  add_dependencies(unit_tests ${targets})
endfunction()

# fedmf_benchmark(<name> SOURCES ... [DEPS ...] SMOKE_FILTER regex): a Google Benchmark binary,
# and its CTest smoke test `bench_smoke.<name>` (label bench_smoke): the benchmarks matching the
# regex (each benchmark's smallest size) once, with a minimal --benchmark_min_time. The test fails
# when the binary fails, when a benchmark reports an error (Google Benchmark 1.7 still exits 0
# then) or when the regex matches nothing, so a benchmark cannot silently stop running.
function(fedmf_benchmark name)
  cmake_parse_arguments(ARG "" "SMOKE_FILTER" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_SMOKE_FILTER)
    message(FATAL_ERROR "fedmf_benchmark(${name}): SMOKE_FILTER is required")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark benchmark::benchmark_main)
  fedmf_warnings(${name})
  add_test(NAME bench_smoke.${name}
           COMMAND ${name} --benchmark_filter=${ARG_SMOKE_FILTER} --benchmark_min_time=1e-6)
  set_tests_properties(bench_smoke.${name} PROPERTIES
    LABELS bench_smoke TIMEOUT 120
    FAIL_REGULAR_EXPRESSION "ERROR OCCURRED;Failed to match any benchmarks")
endfunction()

include(GoogleTest)

# fedmf_link_closure(<target> <out_var>): every library <target> links, directly or through the
# link interfaces of its dependencies (imported targets included), as target or file names.
function(fedmf_link_closure target out_var)
  set(seen "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue item)
    # A static library's private dependencies appear as $<LINK_ONLY:dep>, libraries linked with
    # a feature (e.g. whole) as $<LINK_LIBRARY:FEATURE,dep,...>.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item MATCHES "^\\$<LINK_LIBRARY:[^,]*,(.*)>$")
      string(REPLACE "," ";" featured "${CMAKE_MATCH_1}")
      list(APPEND queue ${featured})
      continue()
    endif()
    if(item STREQUAL "" OR item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${item})
    if(NOT TARGET ${item})
      continue()
    endif()
    get_target_property(imported ${item} IMPORTED)
    set(deps "")
    if(NOT imported)
      get_target_property(direct ${item} LINK_LIBRARIES)
      if(direct)
        list(APPEND deps ${direct})
      endif()
    endif()
    get_target_property(interface ${item} INTERFACE_LINK_LIBRARIES)
    if(interface)
      list(APPEND deps ${interface})
    endif()
    list(APPEND queue ${deps})
  endwhile()
  list(REMOVE_ITEM seen ${target})
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()
