// Interpreter kernel of the general contraction.
//
// Loop space: output labels, then summed labels; every operand (and the
// output) gets a stride per label, zero where it lacks the label. The
// innermost loop runs over the last label with a plain multiply-add, which
// is fast enough for the model sizes the oracle sees (d ≈ 8–160).
#include <algorithm>

#include "compiler/interp/eval_ops.h"
#include "compiler/ir/einsum.h"
#include "compiler/ir/error.h"

namespace plastic::interp::detail {

template <typename T> Tensor<T> eval_contract(const ir::Node* n, Args<T> args) {
  ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().str);
  size_t nl = static_cast<size_t>(spec.label_bound());
  std::vector<int64_t> size(nl, 1);
  for (size_t k = 0; k < args.size(); ++k)
    for (size_t a = 0; a < spec.inputs[k].size(); ++a)
      size[static_cast<size_t>(spec.inputs[k][a])] = args[k]->shape[a];

  std::vector<int> loop = spec.output; // output labels, then the summed ones
  for (size_t l = 0; l < nl; ++l)
    if (std::find(loop.begin(), loop.end(), static_cast<int>(l)) == loop.end())
      loop.push_back(static_cast<int>(l));
  ir::Shape loop_shape;
  for (int l : loop)
    loop_shape.push_back(size[static_cast<size_t>(l)]);

  // strides[0] is the output, strides[1 + k] operand k; indexed by loop position.
  auto strides_for = [&](const std::vector<int>& labels, const ir::Shape& shape) {
    std::vector<int64_t> st = ir::strides_of(shape), per_loop(loop.size(), 0);
    for (size_t a = 0; a < labels.size(); ++a)
      for (size_t p = 0; p < loop.size(); ++p)
        if (loop[p] == labels[a]) per_loop[p] = st[a];
    return per_loop;
  };
  Tensor<T> out(n->shape());
  std::vector<std::vector<int64_t>> strides{strides_for(spec.output, n->shape())};
  for (size_t k = 0; k < args.size(); ++k)
    strides.push_back(strides_for(spec.inputs[k], args[k]->shape));

  if (loop.empty()) { // product of scalars
    T p = T(1);
    for (const Tensor<T>* a : args)
      p *= a->data[0];
    out.data[0] = p;
    return out;
  }
  // Peel the innermost loop off the walk.
  int64_t inner = loop_shape.back();
  std::vector<int64_t> inner_stride;
  for (auto& st : strides) {
    inner_stride.push_back(st.back());
    st.back() = 0;
  }
  loop_shape.back() = 1;
  size_t m = args.size();
  walk(loop_shape, strides, [&](const int64_t* o) {
    if (m == 2) {
      const T *a = args[0]->data.data() + o[1], *b = args[1]->data.data() + o[2];
      int64_t sa = inner_stride[1], sb = inner_stride[2], so = inner_stride[0];
      T* dst = out.data.data() + o[0];
      if (so == 0) {
        T acc = T(0);
        for (int64_t i = 0; i < inner; ++i)
          acc += a[i * sa] * b[i * sb];
        *dst += acc;
      } else {
        for (int64_t i = 0; i < inner; ++i)
          dst[i * so] += a[i * sa] * b[i * sb];
      }
      return;
    }
    for (int64_t i = 0; i < inner; ++i) {
      T p = T(1);
      for (size_t k = 0; k < m; ++k)
        p *= args[k]->data[o[k + 1] + i * inner_stride[k + 1]];
      out.data[o[0] + i * inner_stride[0]] += p;
    }
  });
  return out;
}

template Tensor<double> eval_contract(const ir::Node*, Args<double>);
template Tensor<float> eval_contract(const ir::Node*, Args<float>);

} // namespace plastic::interp::detail
