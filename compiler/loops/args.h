// Packed kernel arguments: one 64-bit slot per parameter.
//
// Kernels have C signatures that differ per function (pointers and doubles
// in the order of Function::params). Generic callers — the reference
// interpreter, the REPL, tests — use the packed convention instead: slot i
// holds parameter i, a pointer's bits or a double's bits. The JIT can emit a
// `<name>__packed(const uint64_t* slots)` entry point per kernel taking
// exactly this layout, so one Args drives the interpreter and the JIT.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace plastic::loops {

class Args {
public:
  /// Appends a pointer argument (buffer, opaque, scratch; may be NULL).
  Args& ptr(const void* p) {
    uint64_t bits = 0;
    std::memcpy(&bits, static_cast<const void*>(&p), sizeof p);
    slots_.push_back(bits);
    return *this;
  }
  /// Appends a double argument.
  Args& scalar(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    slots_.push_back(bits);
    return *this;
  }
  const uint64_t* data() const { return slots_.data(); }
  size_t size() const { return slots_.size(); }
  void* pointer_at(size_t i) const {
    void* p = nullptr;
    std::memcpy(static_cast<void*>(&p), &slots_.at(i), sizeof p);
    return p;
  }
  double scalar_at(size_t i) const {
    double v = 0;
    std::memcpy(&v, &slots_.at(i), sizeof v);
    return v;
  }

private:
  std::vector<uint64_t> slots_;
};

/// Signature of a packed entry point.
using PackedKernel = void (*)(const uint64_t* slots);

} // namespace plastic::loops
