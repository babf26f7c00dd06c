// The texts of embedded_files.h, from the file CMake writes at configure time.
#include "compiler/backend/cpp/embedded_files.h"

namespace plastic::backend::cpp::detail {

#include "plastic_cpp_backend_files.inc"

} // namespace plastic::backend::cpp::detail
