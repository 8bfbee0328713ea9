# Project-wide build helpers: warnings-as-errors on our own code, optional sanitizers.

if(FEDMF_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

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

# Applies the warning policy of CONVENTIONS.md to a target built from our sources.
function(fedmf_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()

# fedmf_library(<name> SOURCES ... [DEPS ...]): a static library of one top-level module.
function(fedmf_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  fedmf_warnings(${name})
endfunction()

# fedmf_binary(<name> SOURCES ... [DEPS ...]): an installed executable.
function(fedmf_binary name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  fedmf_warnings(${name})
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# fedmf_test(<name> SOURCES ... [DEPS ...] [LABELS ...]): a GoogleTest binary registered with CTest.
function(fedmf_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  fedmf_warnings(${name})
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}"
                       DISCOVERY_TIMEOUT 60)
endfunction()

# fedmf_benchmark(<name> SOURCES ... [DEPS ...]): a Google Benchmark binary (not run by CTest).
function(fedmf_benchmark name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark benchmark::benchmark_main)
  fedmf_warnings(${name})
endfunction()

include(GoogleTest)
