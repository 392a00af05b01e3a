# Precompiled headers: every translation unit of ours parses about 140,000 lines of the standard
# library, Boost.JSON and (in the tests) GoogleTest before its first own line, 2.5-3 s of a 4-13 s
# compile on the 2-core machines CI runs on. Each target with several sources precompiles them
# once. -DNVCRE_PCH=OFF builds without (to check that every file still includes what it uses).
option(NVCRE_PCH "Precompile the standard library, Boost.JSON and GoogleTest headers per target" ON)

set(NVCRE_PCH_HEADERS
    <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional> <set> <string>
    <string_view> <unordered_map> <utility> <variant> <vector> <boost/json.hpp>)
set(NVCRE_PCH_TEST_HEADERS <gtest/gtest.h>)

set(NVCRE_PCH_GCC_QUIET -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread
    -Wno-restrict)

# Targets below this many sources compile their few files faster than a header precompile.
set(NVCRE_PCH_MIN_SOURCES 4)

function(nvcre_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    nvcre_targets_below("${sub}" sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Called once, after every target exists.
function(nvcre_precompile_headers)
  if(NOT NVCRE_PCH)
    return()
  endif()
  nvcre_targets_below("${CMAKE_SOURCE_DIR}" targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    list(LENGTH sources count)
    if(count LESS NVCRE_PCH_MIN_SOURCES)
      continue()
    endif()
    set(headers ${NVCRE_PCH_HEADERS})
    get_target_property(links ${target} LINK_LIBRARIES)
    if(links MATCHES "GTest::|nvcre_test_support")
      list(APPEND headers ${NVCRE_PCH_TEST_HEADERS})
    endif()
    target_precompile_headers(${target} PRIVATE ${headers})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # GCC 12 loses the system-header mark of standard-library code it inlines from a precompiled
      # header and then reports its known false positives on std::string there as ours.
      target_compile_options(${target} PRIVATE ${NVCRE_PCH_GCC_QUIET})
    endif()
  endforeach()
endfunction()
