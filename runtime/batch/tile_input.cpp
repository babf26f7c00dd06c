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
  const std::vector<SlotPlan>& slots = data.inputs().slots;
  std::vector<char> paired(slots.size(), 0);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (paired[i]) continue;
    Feed feed{&slots[i], nullptr};
    if (slots[i].feed == SlotFeed::DataPath && !slots[i].derivative) {
      for (size_t j = i + 1; j < slots.size(); ++j) {
        if (!paired[j] && slots[j].feed == SlotFeed::DataPath && slots[j].derivative &&
            slots[j].source == slots[i].source && slots[j].channels == slots[i].channels) {
          feed.pair = &slots[j];
          paired[j] = 1;
          break;
        }
      }
    }
    feeds_.push_back(feed);
  }
}

template <class T> void TileInput<T>::write_held_zeros(const SlotPlan& slot, T* u, int lane) const {
  const int L = layout_.lanes;
  T* out = u + slot.offset * L + lane;
  for (int64_t i = 0; i < slot.channels; ++i)
    out[i * L] = T{0};
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
    for (const Feed& feed : feeds_) {
      const SlotPlan& slot = *feed.slot;
      T* out = u + slot.offset * L + l;
      const int64_t c = slot.channels;
      if (feed.pair) { // x(t) and x'(t) of one path
        const CubicPath& path = s.paths[static_cast<size_t>(slot.source)];
        if (held) {
          path.evaluate(t, Quantity::value, out, L, side, hint + slot.source);
          write_held_zeros(*feed.pair, u, l);
        } else {
          path.evaluate_both(t, out, u + feed.pair->offset * L + l, L, side, hint + slot.source);
        }
        continue;
      }
      switch (slot.feed) {
      case SlotFeed::Static:
        for (int64_t i = 0; i < c; ++i)
          out[i * L] = static_cast<T>(s.statics[static_cast<size_t>(slot.static_first + i)]);
        break;
      case SlotFeed::DataPath:
        if (held && slot.derivative) {
          write_held_zeros(slot, u, l);
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
          write_held_zeros(slot, u, l);
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
