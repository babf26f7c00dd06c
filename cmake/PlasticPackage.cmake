# The installed CMake package: `cmake --install build --prefix P` then, in
# another project, `find_package(Plastic CONFIG REQUIRED)` (with P in
# CMAKE_PREFIX_PATH) gives
#   Plastic::runtime   the runtime static library and the embedding API's
#                      headers (<plastic/plastic.h>)
#   Plastic::plastic   the `plastic` command
#   plastic_add_model(TARGET name SOURCE model.ode [SET d=4 ...] [DTYPE f32|f64]
#                     [TARGET_CPU cpu] [LANES n])
#                      a library target `name` holding the model's kernels,
#                      compiled by `plastic build --emit-lib` at build time
# (cmake/PlasticAddModel.cmake), in the manner of Halide's add_halide_library.
#
# The runtime's own targets are object libraries linked into one archive,
# so the package is written by hand rather than exported: one imported
# archive, the {fmt} the model binaries link (cmake/PlasticModelLink.cmake
# chose it) and the threads and dl libraries.
include(CMakePackageConfigHelpers)

# Headers of the API and what they include, under P/include/plastic with
# their source paths, so "runtime/abi.h" means the same inside and outside
# the tree.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/embed/plastic.h DESTINATION include/plastic)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/abi.h ${PROJECT_SOURCE_DIR}/runtime/abi_kernels.def
        DESTINATION include/plastic/runtime)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/support/result.h
              ${PROJECT_SOURCE_DIR}/runtime/support/internal_error.h
        DESTINATION include/plastic/runtime/support)

# {fmt}: a name in P/lib/plastic (installed there) or an absolute path.
if(_plastic_install_fmt MATCHES "^/")
  set(PLASTIC_PACKAGE_FMT "${_plastic_install_fmt}")
else()
  set(PLASTIC_PACKAGE_FMT "\${_plastic_prefix}/lib/plastic/${_plastic_install_fmt}")
endif()
# internal_error.h uses {fmt}'s headers; the system's are found anyway.
get_target_property(_plastic_fmt_includes fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
if(NOT _plastic_fmt_includes)
  set(_plastic_fmt_includes "")
endif()
list(REMOVE_ITEM _plastic_fmt_includes /usr/include /usr/local/include)
set(PLASTIC_PACKAGE_INCLUDES "\${_plastic_prefix}/include" "\${_plastic_prefix}/include/plastic"
    ${_plastic_fmt_includes})
set(PLASTIC_PACKAGE_DL_LIBS "${CMAKE_DL_LIBS}")
if(PLASTIC_MPI) # the runtime calls MPI (runtime/distributed/mpi)
  list(APPEND PLASTIC_PACKAGE_DL_LIBS ${MPI_C_LIBRARIES})
endif()

configure_file(${PROJECT_SOURCE_DIR}/cmake/PlasticConfig.cmake.in
               ${PROJECT_BINARY_DIR}/package/PlasticConfig.cmake.gen @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/package/PlasticConfig.cmake
     INPUT ${PROJECT_BINARY_DIR}/package/PlasticConfig.cmake.gen)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/PlasticConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/PlasticConfig.cmake
              ${PROJECT_BINARY_DIR}/package/PlasticConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/PlasticAddModel.cmake
        DESTINATION lib/cmake/Plastic)
