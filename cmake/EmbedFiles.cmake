# nvcre_embed_files(<output.cpp> <c++ namespace> <function name> <files...>)
# Generates a translation unit that returns the files' contents, so data such as CRDs and catalog
# entries is compiled into the binaries and never looked up on disk at run time. The file is
# regenerated whenever one of the inputs changes.
function(nvcre_embed_files output namespace function)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} "-DOUTPUT=${output}" "-DNAMESPACE=${namespace}"
            "-DFUNCTION=${function}" "-DFILES=${files}" "-DBASE=${CMAKE_SOURCE_DIR}"
            -P "${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake"
    DEPENDS ${files} "${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake"
    COMMENT "Embedding ${function} data"
    VERBATIM)
endfunction()
