# plastic_add_model(TARGET name SOURCE model.ode
#                   [SET name=value ...] [DTYPE f32|f64] [TARGET_CPU cpu] [LANES n])
#
# Compiles a Plastic model at build time with `plastic build --emit-lib`
# and makes a library target `name` of its kernels and model table, linking
# Plastic::runtime; its header `name.h` (the kernels' C prototypes and the
# entry point) is on the target's include path. Link it and call
# plastic::embed::Model::linked() (<plastic/plastic.h>).
#
# The build reruns when the model file or the `plastic` command changes,
# and what links `name` relinks, as protobuf_generate and Halide's
# add_halide_library do for their generators. SET, DTYPE (default f32, as
# `plastic train`), TARGET_CPU (default: this machine; e.g. x86-64-v3 for
# any AVX2 machine) and LANES choose the specialisation, as the flags of
# `plastic build` do. One model per program: every model exports the same
# entry symbol; load further ones with Model::load_shared.
function(plastic_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;SOURCE;DTYPE;TARGET_CPU;LANES" "SET")
  if(NOT ARG_TARGET OR NOT ARG_SOURCE)
    message(FATAL_ERROR "plastic_add_model: TARGET and SOURCE are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "plastic_add_model: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET Plastic::plastic)
    message(FATAL_ERROR "plastic_add_model: Plastic::plastic is not defined; find_package(Plastic) first")
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/plastic_models/${ARG_TARGET}")
  set(library "${dir}/lib${ARG_TARGET}.a")
  set(header "${dir}/${ARG_TARGET}.h")
  set(flags)
  foreach(value IN LISTS ARG_SET)
    list(APPEND flags --set "${value}")
  endforeach()
  if(ARG_DTYPE)
    list(APPEND flags --dtype "${ARG_DTYPE}")
  endif()
  if(ARG_TARGET_CPU)
    list(APPEND flags --target "${ARG_TARGET_CPU}")
  endif()
  if(ARG_LANES)
    list(APPEND flags --lanes "${ARG_LANES}")
  endif()
  # An imported target's include folder must exist when CMake generates.
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${library}" "${header}"
    COMMAND Plastic::plastic build "${source}" ${flags} --emit-lib -o "${dir}/${ARG_TARGET}"
    DEPENDS "${source}" "$<TARGET_FILE:Plastic::plastic>"
    COMMENT "Compiling the Plastic model ${ARG_SOURCE} into ${ARG_TARGET}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_plastic_build DEPENDS "${library}" "${header}")
  add_library(${ARG_TARGET} STATIC IMPORTED GLOBAL)
  set_target_properties(${ARG_TARGET} PROPERTIES
    IMPORTED_LOCATION "${library}"
    IMPORTED_LINK_INTERFACE_LANGUAGES CXX
    INTERFACE_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_LINK_LIBRARIES Plastic::runtime)
  # Followed in the imported target's place by everything linking it.
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_plastic_build)
endfunction()
