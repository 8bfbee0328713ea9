# Installing the mobile library for app developers (docs/mobile.md, "Building against an installed
# fedmf"): libfedmf_mobile.so (SONAME libfedmf_mobile.so.<FEDMF_ABI_VERSION>), libfedmf_mobile.a
# holding the C API and the whole client core in one archive, the C header, pkg-config files and
# a CMake package (find_package(fedmf) -> fedmf::mobile, fedmf::mobile_static). Components:
# mobile (the shared library, run time) and mobile_dev (the rest), one Debian package each.
include(CMakePackageConfigHelpers)

# The header's ABI version (FEDMF_ABI_VERSION, top-level CMakeLists.txt) is the SONAME version.
set_target_properties(fedmf_mobile PROPERTIES
  SOVERSION ${FEDMF_ABI_VERSION}
  VERSION ${FEDMF_ABI_VERSION}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH})

# The installed static archive: fedmf_mobile_static's objects and those of every fedmf archive it
# links, merged with an ar script, so an app links one archive (plus the system libraries below).
fedmf_link_closure(fedmf_mobile_static closure)
set(merged_inputs "")
set(system_targets "")
foreach(item IN LISTS closure)
  if(NOT TARGET ${item})
    continue()
  endif()
  get_target_property(type ${item} TYPE)
  get_target_property(imported ${item} IMPORTED)
  if(type STREQUAL "STATIC_LIBRARY" AND NOT imported)
    list(APPEND merged_inputs "addlib $<TARGET_FILE:${item}>")
  elseif(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
    list(APPEND system_targets ${item})
  endif()
endforeach()
set(merged ${CMAKE_CURRENT_BINARY_DIR}/package/libfedmf_mobile.a)
list(JOIN merged_inputs "\n" merged_addlibs)
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/package/merge.ar
     CONTENT "create ${merged}\naddlib $<TARGET_FILE:fedmf_mobile_static>\n${merged_addlibs}\nsave\nend\n")
add_custom_command(OUTPUT ${merged}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${merged}
  COMMAND ${CMAKE_AR} -M < ${CMAKE_CURRENT_BINARY_DIR}/package/merge.ar
  DEPENDS fedmf_mobile_static ${CMAKE_CURRENT_BINARY_DIR}/package/merge.ar
  COMMENT "Merging the client core into libfedmf_mobile.a")
add_custom_target(fedmf_mobile_merged ALL DEPENDS ${merged})

# The -l flags of the system libraries the static archive needs (protobuf, Abseil, libcrypto,
# OpenMP), for the pkg-config file: each imported target's library file.
set(static_libs "")
foreach(item IN LISTS system_targets)
  set(location "")
  foreach(property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NONE IMPORTED_LOCATION
                   IMPORTED_LOCATION_RELWITHDEBINFO)
    get_target_property(candidate ${item} ${property})
    if(candidate AND NOT location)
      set(location ${candidate})
    endif()
  endforeach()
  if(location MATCHES "/lib([^/]+)\\.(so|a)[.0-9]*$")
    list(APPEND static_libs "-l${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES static_libs)
list(JOIN static_libs " " FEDMF_STATIC_LIBS)
# OpenMP and Threads are interface targets (flags, no library file): named here.
list(JOIN system_targets " " FEDMF_STATIC_TARGETS)
string(APPEND FEDMF_STATIC_TARGETS " OpenMP::OpenMP_CXX Threads::Threads")

# The .pc files locate the prefix from their own directory, so the tree works wherever it is
# installed (cmake --install --prefix, a package, a copied tree).
file(RELATIVE_PATH FEDMF_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/fedmf-mobile.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/package/fedmf-mobile.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/fedmf-mobile-static.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/package/fedmf-mobile-static.pc @ONLY)

set_target_properties(fedmf_mobile PROPERTIES EXPORT_NAME mobile)
install(TARGETS fedmf_mobile EXPORT fedmfTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mobile NAMELINK_COMPONENT mobile_dev)
install(FILES ${merged} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mobile_dev)
install(FILES ${PROJECT_SOURCE_DIR}/client/include/fedmf/fedmf_client.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fedmf COMPONENT mobile_dev)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/fedmf-mobile.pc
              ${CMAKE_CURRENT_BINARY_DIR}/package/fedmf-mobile-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT mobile_dev)
install(EXPORT fedmfTargets NAMESPACE fedmf:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedmf
        COMPONENT mobile_dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/fedmfConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/package/fedmfConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedmf)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/package/fedmfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/fedmfConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/package/fedmfConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fedmf COMPONENT mobile_dev)
