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
