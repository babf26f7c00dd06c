# What `plastic build model.ode -o NAME` links a model's object with: the
# model binary's main, the runtime, {fmt}, and flags. Written as a link
# manifest next to the `plastic` executable (plastic-model-link.txt: one
# library path or flag per line, relative paths relative to the file), so
# the driver finds it from its own location and the system C++ compiler
# does the link (compiler/driver/link_binary.cpp).
#
# {fmt} is linked statically when possible, so that a model binary needs
# nothing installed but the C library: the system's static archive if it
# has one, else fmt 9's compiled part built here (runtime/binary/fmt_static.cpp).

get_target_property(_plastic_fmt_location fmt::fmt LOCATION)
get_filename_component(_plastic_fmt_dir "${_plastic_fmt_location}" DIRECTORY)
if(EXISTS "${_plastic_fmt_dir}/libfmt.a")
  set(PLASTIC_MODEL_FMT "${_plastic_fmt_dir}/libfmt.a")
elseif(fmt_VERSION VERSION_GREATER_EQUAL 9 AND fmt_VERSION VERSION_LESS 10)
  add_library(plastic_fmt_static STATIC ${PROJECT_SOURCE_DIR}/runtime/binary/fmt_static.cpp)
  target_include_directories(plastic_fmt_static PRIVATE $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
  add_dependencies(plastic_model_main plastic_fmt_static)
  set(PLASTIC_MODEL_FMT "$<TARGET_FILE:plastic_fmt_static>")
else()
  set(PLASTIC_MODEL_FMT "${_plastic_fmt_location}")
endif()

set(_plastic_link_flags -pthread)
if(PLASTIC_SANITIZE OR PLASTIC_FUZZ)
  # The runtime's objects are instrumented: the link needs the sanitizers'
  # runtimes, which want the shared C++ library.
  list(APPEND _plastic_link_flags -fsanitize=address,undefined)
elseif(PLASTIC_TSAN)
  list(APPEND _plastic_link_flags -fsanitize=thread)
else()
  # The C++ runtime inside the binary: it then runs on systems whose
  # libstdc++ is older than the build machine's.
  list(APPEND _plastic_link_flags -static-libstdc++ -static-libgcc)
endif()
# With PLASTIC_MPI the runtime calls MPI (runtime/distributed/mpi): its
# libraries come after the runtime, as absolute paths.
if(PLASTIC_MPI)
  list(APPEND _plastic_link_flags ${MPI_C_LIBRARIES})
endif()
list(JOIN _plastic_link_flags "\n" _plastic_link_flags_text)

file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/plastic-model-link.txt CONTENT
"# Link line of a model binary after its object (cmake/PlasticModelLink.cmake)
$<TARGET_FILE:plastic_model_main>
$<TARGET_FILE:plastic_runtime>
${PLASTIC_MODEL_FMT}
${_plastic_link_flags_text}
")

# The installed tree: `cmake --install build --prefix P` puts `plastic` in
# P/bin and the libraries with a manifest of relative names in P/lib/plastic,
# where the driver looks when it runs from P/bin.
if(TARGET plastic_fmt_static)
  set(_plastic_install_fmt "$<TARGET_FILE_NAME:plastic_fmt_static>")
  install(FILES $<TARGET_FILE:plastic_fmt_static> DESTINATION lib/plastic)
else()
  set(_plastic_install_fmt "${PLASTIC_MODEL_FMT}")
endif()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/install/plastic-model-link.txt CONTENT
"# Link line of a model binary after its object (cmake/PlasticModelLink.cmake)
$<TARGET_FILE_NAME:plastic_model_main>
$<TARGET_FILE_NAME:plastic_runtime>
${_plastic_install_fmt}
${_plastic_link_flags_text}
")
install(FILES $<TARGET_FILE:plastic_model_main> $<TARGET_FILE:plastic_runtime>
              ${PROJECT_BINARY_DIR}/install/plastic-model-link.txt
        DESTINATION lib/plastic)
