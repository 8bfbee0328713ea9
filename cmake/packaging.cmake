# Debian packages with CPack (`cpack -G DEB` in the build directory; docs/deployment.md,
# "Debian packages"), one per install component:
#   fedmf-coordinator    the coordinator service
#   fedmf-tools          fedmf-client, fedmf-sim, fedmf-loadgen and the offline tools
#   libfedmf-mobile<ABI> the mobile client library (libfedmf_mobile.so.<FEDMF_ABI_VERSION>)
#   libfedmf-mobile-dev  its header, static archive, pkg-config files and CMake package
# Run-time dependencies come from dpkg-shlibdeps (package dpkg-dev).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fedmf)
set(CPACK_PACKAGE_VENDOR "fedmf")
set(CPACK_PACKAGE_CONTACT "fedmf maintainers <fedmf@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL coordinator tools)

set(CPACK_DEBIAN_COORDINATOR_PACKAGE_NAME fedmf-coordinator)
set(CPACK_COMPONENT_COORDINATOR_DESCRIPTION
    "fedmf coordinator: runs federated training rounds with secure aggregation")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME fedmf-tools)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "fedmf client processes, simulator, load generator and offline tools")

if(TARGET fedmf_mobile)
  list(APPEND CPACK_COMPONENTS_ALL mobile mobile_dev)
  set(CPACK_DEBIAN_MOBILE_PACKAGE_NAME libfedmf-mobile${FEDMF_ABI_VERSION})
  set(CPACK_DEBIAN_MOBILE_PACKAGE_SECTION libs)
  set(CPACK_COMPONENT_MOBILE_DESCRIPTION "fedmf mobile client library (C API), run time")
  set(CPACK_DEBIAN_MOBILE_DEV_PACKAGE_NAME libfedmf-mobile-dev)
  set(CPACK_DEBIAN_MOBILE_DEV_PACKAGE_SECTION libdevel)
  set(CPACK_COMPONENT_MOBILE_DEV_DESCRIPTION
      "fedmf mobile client library (C API): header, static archive, pkg-config, CMake package")
  set(CPACK_DEBIAN_MOBILE_DEV_PACKAGE_DEPENDS
      "libfedmf-mobile${FEDMF_ABI_VERSION} (= ${PROJECT_VERSION}), libprotobuf-dev, libabsl-dev, libssl-dev, libgomp1")
endif()

include(CPack)
