# The Debian package: `cpack -G DEB` in the build folder gives
# plastic_<version>_amd64.deb, installing under /usr
#   bin/plastic                          the driver (and `plastic lsp`)
#   lib/plastic/                         the runtime libraries model binaries link
#   include/plastic/, lib/cmake/Plastic/ the embedding API and the CMake package
#   lib/python3/dist-packages/plastic/   the Python module (Debian's layout)
#   share/man/man1/plastic*.1            man pages generated from --help
#   share/bash-completion/completions/   bash completion, from the same tables
#   share/doc/plastic/                   README, the user guide, the licence
#   share/plastic/editors/               the TextMate grammar and Vim files
# Its dependencies are Debian's package names: the shared libraries the
# binary links are found by dpkg-shlibdeps; what Plastic runs or reads at
# run time (a C++ driver to link model binaries, Clang's resource headers
# for the C++ backend, Python's NumPy for the module) is named here.

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/plastic)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/plastic RENAME copyright)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/plastic/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/editors/ DESTINATION share/plastic/editors)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/doc/plastic/examples
        FILES_MATCHING PATTERN "*.ode" PATTERN "experiments" EXCLUDE)

if(PLASTIC_PYTHON)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/python/plastic/ DESTINATION lib/python3/dist-packages/plastic
          USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
endif()

# Man pages and completion are written by the installed driver's own
# tables at install time, so they describe exactly the binary shipped.
install(CODE [[
  set(_root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  file(MAKE_DIRECTORY "${_root}/share/man/man1" "${_root}/share/bash-completion/completions")
  execute_process(COMMAND "$<TARGET_FILE:plastic>" man --out "${_root}/share/man/man1"
                  RESULT_VARIABLE _rc OUTPUT_QUIET)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "plastic man failed (${_rc})")
  endif()
  execute_process(COMMAND "$<TARGET_FILE:plastic>" completion bash
                  OUTPUT_FILE "${_root}/share/bash-completion/completions/plastic"
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "plastic completion failed (${_rc})")
  endif()
]])

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plastic)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The Plastic authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "compiler for neural differential equations whose vector fields are learning rules")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "Plastic compiles models written in a small language - continuous-time fast weight "
       "programmers (Hebb, Oja and Delta rules), neural CDEs and RDEs, gated neural ODEs - "
       "with their solver and gradient method into fused forward and adjoint kernels through "
       "LLVM, and trains them. It runs from the command line, a REPL and Python, and builds "
       "model binaries that need no LLVM at run time.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # plastic_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "The Plastic authors <plastic@invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libllvm19 is named too: the Python module keeps LLVM's RUNPATH
# (/usr/lib/llvm-19/lib), where libLLVM.so.19.1 is llvm-19-dev's symlink,
# which dpkg-shlibdeps cannot map to a package ("no dependency information
# found"); the Depends it computed lacked libllvm19 in 2 of 5 runs of the
# package's test on 2026-11-29 (the driver itself resolves to libllvm19).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "g++ | clang-19, libclang-common-19-dev, libllvm19")
if(PLASTIC_PYTHON) # the module is built for this Python's ABI only
  math(EXPR _next_minor "${Python3_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
         ", python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR})"
         ", python3 (<< ${Python3_VERSION_MAJOR}.${_next_minor})")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy, gnuplot-nox | gnuplot, bash-completion")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, openmpi-bin")
# The package is rebuilt in tests: gzip is several times faster than xz.
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
