// Random kernel arguments for the kernel benchmarks (see random_args.h).
#include "compiler/abi/random_args.h"

#include <algorithm>

namespace plastic::abi {

AlignedBlock aligned_block(size_t bytes) {
  return AlignedBlock(std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64)));
}

KernelArgs random_kernel_args(const loops::Function& f, double step, std::mt19937_64& rng,
                              const KernelArgs* share) {
  KernelArgs k;
  std::uniform_real_distribution<double> U(-0.5, 0.5);
  const size_t esize = f.type == loops::ElemType::F32 ? 4 : 8;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const loops::Param& p = f.params[i];
    switch (p.kind) {
    case loops::ParamKind::Scalar:
      k.args.scalar(p.name == "h" ? step : 0.3);
      break;
    case loops::ParamKind::Opaque:
      k.args.ptr(nullptr);
      break;
    case loops::ParamKind::Scratch:
      if (share) {
        k.args.ptr(share->args.pointer_at(i));
        break;
      }
      k.blocks.push_back(aligned_block(static_cast<size_t>(f.scratch_bytes)));
      k.args.ptr(k.blocks.back().get());
      break;
    case loops::ParamKind::Buffer: {
      const loops::BufferDecl& b = f.buffers.at(p.buffer);
      if (share && b.lanes == loops::Lanes::Uniform) {
        k.args.ptr(share->args.pointer_at(i));
        break;
      }
      const size_t n = static_cast<size_t>(f.elements(b));
      k.blocks.push_back(aligned_block(n * esize));
      void* data = k.blocks.back().get();
      // Shared weights small, per-sample data O(1): activations stay in range.
      const double scale = b.lanes == loops::Lanes::Uniform ? 0.2 : 1.0;
      for (size_t j = 0; j < n; ++j) {
        double v = scale * U(rng);
        if (esize == 4)
          static_cast<float*>(data)[j] = static_cast<float>(v);
        else
          static_cast<double*>(data)[j] = v;
      }
      k.args.ptr(data);
      break;
    }
    }
  }
  return k;
}

} // namespace plastic::abi
