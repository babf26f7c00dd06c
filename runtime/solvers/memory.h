// Metered buffers: every array the solvers and gradient methods hold comes
// from here, so a gradient method can report honestly how many bytes it
// held at its peak (the "memory independent of the number of steps" claim of
// the adjoint method is a test, not a comment).
//
// A MemoryMeter counts the bytes currently allocated through it and their
// peak. Buffers are fixed-size std::vectors with a metering allocator; they
// are sized once per solve, never inside the stepping loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace plastic::rt {

/// Bytes currently held and the peak, for one solve or gradient computation.
class MemoryMeter {
public:
  void allocated(size_t bytes) {
    current_ += bytes;
    if (current_ > peak_) peak_ = current_;
  }
  void released(size_t bytes) { current_ -= bytes; }
  size_t current() const { return current_; }
  size_t peak() const { return peak_; }

private:
  size_t current_ = 0;
  size_t peak_ = 0;
};

/// std::allocator that reports to a MemoryMeter (or to nobody when null).
template <class T> class MeteredAllocator {
public:
  using value_type = T;
  // A buffer assigned or swapped takes its meter along. Without these a
  // member buffer sized in a constructor (`k_ = make_buffer<T>(n, meter)`)
  // kept the default, null meter — its bytes went uncounted — and swapping
  // two buffers of different meters was undefined.
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  MeteredAllocator() = default;
  explicit MeteredAllocator(MemoryMeter* meter) : meter_(meter) {}
  template <class U>
  MeteredAllocator(const MeteredAllocator<U>& other) : meter_(other.meter()) {} // NOLINT

  T* allocate(size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    if (meter_) meter_->allocated(n * sizeof(T));
    return p;
  }
  void deallocate(T* p, size_t n) {
    std::allocator<T>{}.deallocate(p, n);
    if (meter_) meter_->released(n * sizeof(T));
  }
  MemoryMeter* meter() const { return meter_; }
  template <class U> bool operator==(const MeteredAllocator<U>& o) const {
    return meter_ == o.meter();
  }

private:
  MemoryMeter* meter_ = nullptr;
};

/// A metered array.
template <class T> using Buffer = std::vector<T, MeteredAllocator<T>>;

/// A zero-filled metered array of n elements.
template <class T> Buffer<T> make_buffer(size_t n, MemoryMeter* meter) {
  return Buffer<T>(n, T{}, MeteredAllocator<T>(meter));
}

/// Kernel scratch: `bytes` usable bytes, 64-byte aligned as abi.h promises.
class Scratch {
public:
  Scratch() = default;
  Scratch(size_t bytes, MemoryMeter* meter)
      : raw_(bytes ? bytes + 64 : 0, std::byte{0}, MeteredAllocator<std::byte>(meter)) {}
  void* data() {
    if (raw_.empty()) return nullptr;
    auto address = reinterpret_cast<std::uintptr_t>(raw_.data());
    return raw_.data() + ((64 - address % 64) % 64);
  }

private:
  Buffer<std::byte> raw_;
};

/// Stores fixed-size records (a state of n*L elements, say) in chunks, so a
/// growing tape never copies itself and its bytes grow linearly. A record
/// is written after push(): chunks are not zero-filled (the direct method's
/// tape is one state per step, and zero-filling it cost 6 % of a training
/// step of the speech Delta CDE).
template <class T> class ChunkedTape {
public:
  ChunkedTape(size_t record_size, size_t records_per_chunk, MemoryMeter* meter)
      : record_(record_size), per_chunk_(records_per_chunk), meter_(meter),
        chunks_(MeteredAllocator<std::unique_ptr<T[]>>(meter)) {}
  ChunkedTape(const ChunkedTape&) = delete;
  ChunkedTape& operator=(const ChunkedTape&) = delete;
  ~ChunkedTape() { clear(); }

  /// Appends a record and returns where to write it.
  T* push() {
    T* slot = next_slot();
    ++size_;
    return slot;
  }
  /// Where the next push() will return, so that a producer may write a
  /// record in place before deciding to keep it.
  T* next_slot() {
    if (size_ == chunks_.size() * per_chunk_) {
      // Default-initialised: no zero fill for arithmetic types.
      chunks_.push_back(std::unique_ptr<T[]>(new T[chunk_elements()]));
      if (meter_) meter_->allocated(chunk_bytes());
    }
    return chunks_.back().get() + (size_ % per_chunk_) * record_;
  }
  T* operator[](size_t i) { return chunks_[i / per_chunk_].get() + (i % per_chunk_) * record_; }
  const T* operator[](size_t i) const {
    return chunks_[i / per_chunk_].get() + (i % per_chunk_) * record_;
  }
  size_t size() const { return size_; }
  void clear() {
    if (meter_) meter_->released(chunks_.size() * chunk_bytes());
    chunks_.clear();
    size_ = 0;
  }

private:
  size_t chunk_elements() const { return record_ * per_chunk_; }
  size_t chunk_bytes() const { return chunk_elements() * sizeof(T); }

  size_t record_;
  size_t per_chunk_;
  MemoryMeter* meter_;
  std::vector<std::unique_ptr<T[]>, MeteredAllocator<std::unique_ptr<T[]>>> chunks_;
  size_t size_ = 0;
};

} // namespace plastic::rt
