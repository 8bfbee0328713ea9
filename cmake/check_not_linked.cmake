# cmake -DTARGET=t -DLIBRARY=lib -DCLOSURE=a,b,... -DCONTROL=c,d,... -P check_not_linked.cmake:
# fails when LIBRARY is in the link closure of TARGET (CLOSURE), or missing from CONTROL, the
# closure of a target that links it, which would mean the closure walk misses it.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" closure "${CLOSURE}")
string(REPLACE "," ";" control "${CONTROL}")
if("${LIBRARY}" IN_LIST closure)
  message(FATAL_ERROR "${TARGET} links ${LIBRARY}: ${closure}")
endif()
if(NOT "${LIBRARY}" IN_LIST control)
  message(FATAL_ERROR "the walk does not see ${LIBRARY} where it is linked: ${control}")
endif()
list(LENGTH closure n)
message(STATUS "${TARGET} links ${n} libraries, not ${LIBRARY}")
