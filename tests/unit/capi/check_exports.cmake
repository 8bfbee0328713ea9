# cmake -DLIBRARY=libfedmf_mobile.so -P check_exports.cmake: fails unless `nm -D --defined-only`
# lists fedmf_* symbols only, and at least the ones every binding needs.
execute_process(COMMAND nm -D --defined-only ${LIBRARY} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(count 0)
foreach(line ${lines})
  # "<address> <type> <name>[@@version]"
  if(NOT line MATCHES "^[0-9a-fA-F]+ [A-Za-z] ([^ @]+)")
    message(FATAL_ERROR "unexpected nm line: ${line}")
  endif()
  set(name ${CMAKE_MATCH_1})
  if(NOT name MATCHES "^fedmf_")
    message(FATAL_ERROR "${LIBRARY} exports ${name}, which is not part of the C API")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
foreach(required fedmf_participant_create fedmf_participant_handle fedmf_participant_save
                 fedmf_participant_save_model fedmf_participant_model_id fedmf_state_model_id
                 fedmf_participant_restore fedmf_participant_restore_with_model fedmf_version)
  if(NOT out MATCHES "${required}")
    message(FATAL_ERROR "${LIBRARY} does not export ${required}")
  endif()
endforeach()
message(STATUS "${count} exported symbols, all fedmf_*")
