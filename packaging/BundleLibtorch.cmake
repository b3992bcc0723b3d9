# Install step (install(SCRIPT) from packaging/CMakeLists.txt): copies libtorch_cpu, libc10 and each
# library they need that comes from the Python environment (libgomp, the CUDA runtime and CUPTI the
# profiler links) into TORCHIR_LIBDIR; libraries of the system stay out (the package depends on
# them instead). Each copy is stripped and its RUNPATH set to $ORIGIN, so the bundle finds only
# itself. The licenses of the wheels the libraries come from go to TORCHIR_DOCDIR/licenses.
foreach(var TORCHIR_TORCH_LIB TORCHIR_SITE_PACKAGES TORCHIR_LIBDIR TORCHIR_DOCDIR TORCHIR_STRIP TORCHIR_PATCHELF)
  if(NOT ${var})
    message(FATAL_ERROR "BundleLibtorch: ${var} is not set (patchelf missing? apt-get install patchelf)")
  endif()
endforeach()

file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES "${TORCHIR_TORCH_LIB}/libtorch_cpu.so"
  RESOLVED_DEPENDENCIES_VAR resolved
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  POST_INCLUDE_REGEXES "^${TORCHIR_SITE_PACKAGES}/"
  POST_EXCLUDE_REGEXES ".*")
if(unresolved)
  message(FATAL_ERROR "BundleLibtorch: libtorch_cpu.so needs libraries not found: ${unresolved}")
endif()

set(dest "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${TORCHIR_LIBDIR}")
set(docs "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${TORCHIR_DOCDIR}/licenses")
file(MAKE_DIRECTORY "${dest}" "${docs}")
file(GLOB records "${TORCHIR_SITE_PACKAGES}/*.dist-info/RECORD")
foreach(library "${TORCHIR_TORCH_LIB}/libtorch_cpu.so" ${resolved})
  cmake_path(GET library FILENAME name)  # the name it is NEEDED by, even where it is a symbolic link
  file(REAL_PATH "${library}" real)
  message(STATUS "Bundling: ${dest}/${name} (from ${real})")
  file(COPY_FILE "${real}" "${dest}/${name}")
  execute_process(COMMAND "${TORCHIR_STRIP}" --strip-unneeded "${dest}/${name}" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${TORCHIR_PATCHELF}" --set-rpath "$ORIGIN" "${dest}/${name}" COMMAND_ERROR_IS_FATAL ANY)
  file(CHMOD "${dest}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

  # The wheel that installed the library: its RECORD lists it by its path under site-packages.
  file(RELATIVE_PATH relative "${TORCHIR_SITE_PACKAGES}" "${library}")
  foreach(record ${records})
    file(STRINGS "${record}" listed REGEX "^${relative},")
    if(listed)
      cmake_path(GET record PARENT_PATH info)
      cmake_path(GET info FILENAME wheel)
      string(REGEX REPLACE "-[^-]*\\.dist-info$" "" wheel "${wheel}")
      if(EXISTS "${info}/licenses" AND NOT EXISTS "${docs}/${wheel}")
        file(COPY "${info}/licenses/" DESTINATION "${docs}/${wheel}")
      endif()
    endif()
  endforeach()
endforeach()
