// The extension module plastic._plastic: the pieces registered in order
// (the Model class before the methods training.cpp adds to it). The Python
// package python/plastic/ wraps it (plastic.compile, plastic.load, ...).
//
// Importing it tunes glibc's malloc as the `plastic` command does
// (runtime/app/allocator.h): without it a direct-gradient step of the speech
// Delta CDE spent three fifths of its time zeroing freshly mapped pages for
// its tape, and was 5-7 times slower from Python than `plastic bench-train`.
#include "python/src/py_model.h"
#include "runtime/app/allocator.h"

PYBIND11_MODULE(_plastic, m) {
  m.doc() = "Plastic's compiler and runtime (use the `plastic` package)";
  m.attr("__version__") = PLASTIC_VERSION; // the `plastic --version` of the same build
  plastic::rt::keep_freed_memory();
  plastic::python::register_errors(m);
  plastic::python::ModelClass model = plastic::python::register_model(m);
  plastic::python::register_training(model);
  plastic::python::register_batches(m, model);
}
