# `cmake --install`: the programs, libtessel (shared and static), the public headers, the models
# as data, an exported CMake package (find_package(Tessel): Tessel::tessel, Tessel::tessel_static)
# and tessel.pc for pkg-config. Included last by the top CMakeLists.txt, when every target exists.
#
#   bin/tessel, bin/tessel-run          the command line and the MPI runtime (when built)
#   lib/libtessel.so                    the flat JSON interface of include/tessel/ts_pyapi.h (what
#                                       the Python package loads; Z3 and Jansson linked inside)
#   lib/libtessel.a                     the same plus the native API (core, solver, results, ops):
#                                       include/tessel/ts_*.h; link it with jansson, z3, m and dl
#   include/tessel/                     the headers (one flat folder: they include each other by name)
#   share/tessel/models/                the model and hardware descriptions (found relative to the
#                                       binary or library: src/core/base/paths.c)
#   share/man/man1/                     tessel.1, tessel-run.1 (docs/man)
#   lib/cmake/Tessel/, lib/pkgconfig/   the CMake package and tessel.pc
#
# The explorer's page assets and the models it serves are compiled into `tessel`: no files.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessel)
set(TS_INSTALL_HEADERDIR ${CMAKE_INSTALL_INCLUDEDIR}/tessel)
set(TS_INSTALL_MODELSDIR ${CMAKE_INSTALL_DATADIR}/tessel/models)

install(TARGETS tessel RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tessel-run)
  install(TARGETS tessel-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${TS_INSTALL_MODELSDIR}
        FILES_MATCHING PATTERN "*.json" PATTERN "*.md")
# The manual pages, generated from the programs' --help (docs/man/generate.sh) and committed.
file(GLOB TS_MAN_PAGES ${PROJECT_SOURCE_DIR}/docs/man/*.1)
install(FILES ${TS_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The libraries need the solver (so does libtessel itself, see src/app/pyapi).
if(NOT TARGET tessel_py)
  message(STATUS "install: no solver, so no libtessel, headers or packages: only the programs")
  return()
endif()

# Public headers: the core's, the solver's Z3-free one, the results', the operations' and
# ts_pyapi.h. The solver's other headers are its insides (some include z3.h).
set(TS_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/solver/ts_solver.h
    ${PROJECT_SOURCE_DIR}/src/app/pyapi/ts_pyapi.h)
file(GLOB headers ${PROJECT_SOURCE_DIR}/src/core/*/ts_*.h ${PROJECT_SOURCE_DIR}/src/app/results/ts_*.h
     ${PROJECT_SOURCE_DIR}/src/app/ops/ts_*.h)
list(APPEND TS_PUBLIC_HEADERS ${headers})
install(FILES ${TS_PUBLIC_HEADERS} DESTINATION ${TS_INSTALL_HEADERDIR})

# libtessel.so: a versioned shared library whose only symbols are ts_pyapi.h's.
set_target_properties(tessel_py PROPERTIES VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR} EXPORT_NAME tessel)
target_include_directories(tessel_py INTERFACE $<INSTALL_INTERFACE:${TS_INSTALL_HEADERDIR}>)

# libtessel.a: every object of the libraries behind libtessel.so, in one archive, so that a C
# program links one library for the native API too.
add_library(tessel_static STATIC
            $<TARGET_OBJECTS:tessel_core> $<TARGET_OBJECTS:tessel_solver>
            $<TARGET_OBJECTS:tessel_results> $<TARGET_OBJECTS:tessel_ops>
            $<TARGET_OBJECTS:tessel_py>)
set_target_properties(tessel_static PROPERTIES OUTPUT_NAME tessel EXPORT_NAME tessel_static
                      ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# What the archive's objects need, by name: the installed package does not know this build's
# pkg-config targets.
target_link_libraries(tessel_static INTERFACE
                      $<INSTALL_INTERFACE:jansson> $<INSTALL_INTERFACE:z3>
                      $<INSTALL_INTERFACE:m> $<INSTALL_INTERFACE:${CMAKE_DL_LIBS}>)
target_include_directories(tessel_static INTERFACE $<INSTALL_INTERFACE:${TS_INSTALL_HEADERDIR}>)

install(TARGETS tessel_py tessel_static EXPORT TesselTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${TS_INSTALL_HEADERDIR})
install(EXPORT TesselTargets NAMESPACE Tessel:: DESTINATION ${TS_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TesselConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/TesselConfig.cmake
                              INSTALL_DESTINATION ${TS_INSTALL_CMAKEDIR}
                              PATH_VARS TS_INSTALL_MODELSDIR)
# 0.x: a minor release may change the interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TesselConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TesselConfig.cmake ${CMAKE_BINARY_DIR}/TesselConfigVersion.cmake
        DESTINATION ${TS_INSTALL_CMAKEDIR})

# tessel.pc, relocatable: its prefix is found from the folder it lies in (${pcfiledir}).
set(TS_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${TS_PC_DIR}")
  set(TS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH TS_PC_UP /${TS_PC_DIR} /)
  string(REGEX REPLACE "/$" "" TS_PC_UP "${TS_PC_UP}")
  set(TS_PC_PREFIX "\${pcfiledir}/${TS_PC_UP}")
endif()
foreach(var LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${var}}")
    set(TS_PC_${var} "${CMAKE_INSTALL_${var}}")
  else()
    set(TS_PC_${var} "\${prefix}/${CMAKE_INSTALL_${var}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/tessel.pc.in ${CMAKE_BINARY_DIR}/tessel.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/tessel.pc DESTINATION ${TS_PC_DIR})
