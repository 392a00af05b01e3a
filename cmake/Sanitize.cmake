# -DNVCRE_SANITIZE=<list> (e.g. address,undefined; empty = off) builds every target, tests and
# tools included, with those GCC/Clang sanitizers. Undefined behaviour stays recoverable in the
# code: a -fno-sanitize-recover handler dies even on a finding scripts/sanitize/ubsan.supp lists;
# the scripts' UBSAN_OPTIONS=halt_on_error=1 makes every other finding fail the test that hit it.
# scripts/test-sanitized.sh is the usual way in: it also picks the optimisation level and the
# ASAN_OPTIONS / UBSAN_OPTIONS.
set(NVCRE_SANITIZE "" CACHE STRING
    "comma-separated sanitizers for every target (e.g. address,undefined); empty = none")

if(NVCRE_SANITIZE)
  if(NOT NVCRE_SANITIZE MATCHES "^[a-z-]+(,[a-z-]+)*$")
    message(FATAL_ERROR "NVCRE_SANITIZE='${NVCRE_SANITIZE}' is not a comma-separated list of "
                        "sanitizer names: use e.g. -DNVCRE_SANITIZE=address,undefined")
  endif()
  set(nvcre_sanitize_flags -fsanitize=${NVCRE_SANITIZE} -fno-omit-frame-pointer)
  # GCC 12's -Wmaybe-uninitialized misfires on ASan-instrumented libstdc++ code (std::regex's
  # std::function members); the normal build keeps the warning as an error on our code.
  add_compile_options(${nvcre_sanitize_flags})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  add_link_options(${nvcre_sanitize_flags})
  # The sanitizer runtimes bring their own malloc: jemalloc in front of it would hide every heap
  # error from ASan and fight it over the allocator symbols.
  set(NVCRE_JEMALLOC OFF CACHE BOOL "link nvcre-manager, kube-sim and the manager bench with jemalloc" FORCE)
  message(STATUS "sanitizers: ${nvcre_sanitize_flags} (jemalloc off)")
endif()
