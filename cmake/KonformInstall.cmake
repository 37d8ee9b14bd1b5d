# `cmake --install`: the konform command, the kernel libraries, the C headers,
# the report schemas, a CMake package (find_package(konform) gives the
# imported targets konform::konform, konform::tl_kernels, konform::tl_scalar
# and konform::tl_cuda where built) and a pkg-config file (konform.pc:
# libtl_kernels). An installed konform finds its built-in backends in
# ${CMAKE_INSTALL_LIBDIR} beside its own bin directory (harness/backend.cpp).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KONFORM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/konform)
set(_konform_libraries tl_kernels tl_scalar_backend)
if(KONFORM_HAVE_CUDA)
  list(APPEND _konform_libraries tl_cuda)
endif()
install(TARGETS konform ${_konform_libraries} EXPORT konformTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tinyllm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/reports/report.schema.json ${PROJECT_SOURCE_DIR}/reports/repro.schema.json
              ${PROJECT_SOURCE_DIR}/reports/fuzz-campaign.schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/konform/schemas)
install(EXPORT konformTargets NAMESPACE konform:: DESTINATION ${KONFORM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/konformConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/konformConfig.cmake INSTALL_DESTINATION ${KONFORM_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/konformConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/konformConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/konformConfigVersion.cmake
        DESTINATION ${KONFORM_CMAKE_DIR})
# konform.pc names its prefix relative to itself, so the install can be moved.
file(RELATIVE_PATH KONFORM_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" KONFORM_PC_TO_PREFIX "${KONFORM_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/konform.pc.in ${CMAKE_CURRENT_BINARY_DIR}/konform.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/konform.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
