// plastic.Error: the exception every user mistake becomes in Python — a
// model that does not check (its located diagnostic: file:line:col, the
// source line, a caret and a hint), bad data, a wrong option. Bugs in
// Plastic (plastic::InternalError) stay RuntimeErrors saying so.
#include "python/src/py_model.h"

namespace plastic::python {

void raise(const embed::Error& e) {
  throw Error(e.message);
}

void register_errors(py::module_& m) {
  py::register_exception<Error>(m, "Error", PyExc_ValueError);
}

} // namespace plastic::python
