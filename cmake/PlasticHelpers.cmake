# Helpers shared by every CMakeLists of the project.
#
# plastic_component(NAME DIRS... [LIBS ...]) makes an OBJECT library from all
# sources of the given folders (relative to the project root), so a new file
# in a folder joins the build without editing any CMakeLists. Components are
# linked into the per-layer libraries (plastic_dsl, plastic_compiler,
# plastic_runtime) and directly into the tests of that component, so one
# component's tests build without the others.
#
# plastic_test(NAME DIRS... LIBS ...) makes a Catch2 test executable from all
# sources of the given folders, registers each test case with CTest, and
# labels the cases tagged [slow] with the CTest label `slow` (the default
# suite runs `ctest -LE slow`).

function(plastic_component name)
  cmake_parse_arguments(ARG "" "" "DIRS;LIBS" ${ARGN})
  set(sources)
  foreach(dir IN LISTS ARG_DIRS)
    file(GLOB found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  if(NOT sources)
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARG_LIBS})
    return()
  endif()
  add_library(${name} OBJECT ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_LIBS})
endfunction()


function(plastic_test name)
  cmake_parse_arguments(ARG "" "" "DIRS;LIBS" ${ARGN})
  set(sources)
  foreach(dir IN LISTS ARG_DIRS)
    file(GLOB found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp)
    list(APPEND sources ${found})
  endforeach()
  if(NOT sources)
    return()
  endif()
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE plastic_catch_main ${ARG_LIBS})
  target_compile_definitions(${name} PRIVATE
    PLASTIC_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    PLASTIC_BINARY_DIR="${PROJECT_BINARY_DIR}")
  # --warn NoTests: a CTest entry whose name matches no test case fails
  # instead of passing with "No tests ran" (a name with a `;` did, issue 19;
  # tests/structure/check_test_names.py names the cause).
  catch_discover_tests(${name} TEST_SPEC "~[slow]" TEST_PREFIX "${name}:" EXTRA_ARGS --warn NoTests)
  set(has_slow FALSE)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} slow_lines REGEX "\\[slow\\]")
    if(slow_lines)
      set(has_slow TRUE)
    endif()
  endforeach()
  if(has_slow)
    catch_discover_tests(${name} TEST_SPEC "[slow]" TEST_PREFIX "${name}:" EXTRA_ARGS --warn NoTests
      PROPERTIES LABELS slow)
  endif()
endfunction()
