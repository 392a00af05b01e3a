# jemalloc in place of glibc malloc for the long-running, allocation-heavy binaries: nvcre-manager
# (see malloc_conf in manager/bin/nvcre_manager.cpp) and kube-sim with the bench that embeds it
# (glibc's malloc and free were over a third of kube-sim's CPU serving 1,000 Certifications).
# -DNVCRE_JEMALLOC=OFF keeps glibc's allocator for tools that need it, such as valgrind's memcheck;
# the sanitizer builds turn it off (cmake/Sanitize.cmake).
option(NVCRE_JEMALLOC "link nvcre-manager, kube-sim and the manager bench with jemalloc" ON)

function(nvcre_link_jemalloc target)
  if(NOT NVCRE_JEMALLOC)
    return()
  endif()
  find_library(JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT JEMALLOC_LIBRARY)
    message(FATAL_ERROR "${target} links jemalloc, and libjemalloc was not found: run "
                        "scripts/install-deps.sh (Debian package libjemalloc-dev), or configure with "
                        "-DNVCRE_JEMALLOC=OFF to build on glibc malloc")
  endif()
  target_link_libraries(${target} PRIVATE ${JEMALLOC_LIBRARY})
endfunction()
