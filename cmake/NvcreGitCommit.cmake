# nvcre_git_commit(<source dir> <out var> [<log var>]): `git rev-parse --short=12 HEAD` of the tree,
# with "-dirty" when tracked files differ from it, or "unknown" when the tree is not a git checkout
# (a release tarball) or git is missing. <log var> receives the git dir's logs/HEAD (rewritten by
# every commit and checkout, so a build can re-run its configure step on it), "" without one.
#
# Also a script: `cmake -DNVCRE_GIT_COMMIT_OF=<dir> -P NvcreGitCommit.cmake` prints the answer
# (the tests use it on a directory without .git).
function(nvcre_git_commit source_dir out_var)
  set(commit "unknown")
  set(log "")
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel
                    WORKING_DIRECTORY "${source_dir}" OUTPUT_VARIABLE top
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE top_status)
    # Only the tree's own repository counts, not one it happens to be unpacked inside.
    file(REAL_PATH "${source_dir}" real_source)
    if(top_status EQUAL 0 AND EXISTS "${top}")
      file(REAL_PATH "${top}" real_top)
    else()
      set(real_top "")
    endif()
    if(real_top STREQUAL real_source)
      execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                      WORKING_DIRECTORY "${source_dir}" OUTPUT_VARIABLE head
                      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE head_status)
      if(head_status EQUAL 0 AND NOT head STREQUAL "")
        set(commit "${head}")
        execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                        WORKING_DIRECTORY "${source_dir}" OUTPUT_VARIABLE changes
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        if(NOT changes STREQUAL "")
          string(APPEND commit "-dirty")
        endif()
        execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --path-format=absolute
                                --git-path logs/HEAD
                        WORKING_DIRECTORY "${source_dir}" OUTPUT_VARIABLE log
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      endif()
    endif()
  endif()
  set(${out_var} "${commit}" PARENT_SCOPE)
  if(ARGC GREATER 2)
    set(${ARGV2} "${log}" PARENT_SCOPE)
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED NVCRE_GIT_COMMIT_OF)
  nvcre_git_commit("${NVCRE_GIT_COMMIT_OF}" answer)
  message(STATUS "${answer}")
endif()
