# Writes the ~20k-node test program (bench/make_transformer_like.py, about 3 minutes) into DIR
# unless it is there. Run as: cmake -DPYTHON=... -DDIR=... -P ensure_bench_program.cmake
# by scripts/configure.sh, and by ctest as the fixture of the tests that open it.
if(EXISTS "${DIR}/transformer_770.pt2")
  return()
endif()
message(STATUS "writing the 20k-node test program to ${DIR}")
file(MAKE_DIRECTORY "${DIR}")
string(RANDOM LENGTH 8 _tag)
set(_tmp "${DIR}/.tmp.${_tag}")
execute_process(COMMAND "${PYTHON}" "${CMAKE_CURRENT_LIST_DIR}/make_transformer_like.py" "${_tmp}" 770
                RESULT_VARIABLE _rc OUTPUT_QUIET)
if(NOT _rc EQUAL 0)
  file(REMOVE_RECURSE "${_tmp}")
  message(FATAL_ERROR "make_transformer_like.py failed (${_rc})")
endif()
file(RENAME "${_tmp}/transformer_770.pt2" "${DIR}/transformer_770.pt2")
file(REMOVE_RECURSE "${_tmp}")
