// TileInput: see tile_input.h.
#include "runtime/batch/tile_input.h"

namespace plastic::rt {

template <class T>
TileInput<T>::TileInput(const PreparedData& data, const TileLayout& layout)
    : data_(data), layout_(layout) {
  const size_t L = static_cast<size_t>(layout.lanes);
  lane_.resize(L);
  for (size_t l = 0; l < L; ++l)
    lane_[l] = &data.sample(static_cast<size_t>(layout.samples[l]));
  sources_ = static_cast<int>(data.inputs().paths.size() + data.inputs().logsigs.size());
  hints_.assign(L * static_cast<size_t>(sources_), -1);
}

template <class T> void TileInput<T>::operator()(const InputRequest& r, T* u) {
  const int L = layout_.lanes;
  const int paths = static_cast<int>(data_.inputs().paths.size());
  for (int l = 0; l < L; ++l) {
    const PreparedSample& s = *lane_[static_cast<size_t>(l)];
    const double end = layout_.t_end[static_cast<size_t>(l)];
    const bool held = r.t > end || !has_lane(layout_.real, l);
    const double t = held ? end : r.t;
    const Side side = !held && r.t <= r.lo ? Side::right : Side::left;
    int* hint = hints_.data() + static_cast<size_t>(l) * static_cast<size_t>(sources_);
    for (const SlotPlan& slot : data_.inputs().slots) {
      T* out = u + slot.offset * L + l;
      const int64_t c = slot.channels;
      switch (slot.feed) {
      case SlotFeed::Static:
        for (int64_t i = 0; i < c; ++i)
          out[i * L] = static_cast<T>(s.statics[static_cast<size_t>(slot.static_first + i)]);
        break;
      case SlotFeed::DataPath:
        if (held && slot.derivative) {
          for (int64_t i = 0; i < c; ++i)
            out[i * L] = T{0};
        } else {
          s.paths[static_cast<size_t>(slot.source)].evaluate(
              t, slot.derivative ? Quantity::derivative : Quantity::value, out, L, side,
              hint + slot.source);
        }
        break;
      case SlotFeed::LogSigValue:
        s.logsigs[static_cast<size_t>(slot.source)].evaluate(t, Quantity::value, out, L, side,
                                                             hint + paths + slot.source);
        break;
      case SlotFeed::LogSigDriver:
        if (held) {
          for (int64_t i = 0; i < c; ++i)
            out[i * L] = T{0};
        } else {
          s.logsigs[static_cast<size_t>(slot.source)].evaluate(t, Quantity::derivative, out, L,
                                                               side, hint + paths + slot.source);
        }
        break;
      }
    }
  }
}

template class TileInput<float>;
template class TileInput<double>;

} // namespace plastic::rt
