// The extension module plastic._plastic: the pieces registered in order
// (the Model class before the methods training.cpp adds to it). The Python
// package python/plastic/ wraps it (plastic.compile, plastic.load, ...).
#include "python/src/py_model.h"

PYBIND11_MODULE(_plastic, m) {
  m.doc() = "Plastic's compiler and runtime (use the `plastic` package)";
  plastic::python::register_errors(m);
  plastic::python::ModelClass model = plastic::python::register_model(m);
  plastic::python::register_training(model);
}
