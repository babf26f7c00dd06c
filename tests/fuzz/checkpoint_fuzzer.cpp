// libFuzzer target: any bytes as a checkpoint's JSON commit record
// (checkpoint.h), loaded beside real tensor files. Loading must validate
// every field, the named tensor files' sizes and hashes, or return a
// TrainError — never crash or throw (nlohmann's exceptions included).
//
// Start-up writes one small checkpoint into a private temporary folder; each
// input replaces its JSON. PLASTIC_FUZZ_SEED_OUT=FILE copies the genuine
// JSON there (how tests/fuzz/corpus/checkpoint/ was seeded), so the
// corpus reaches past the metadata into the tensor files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "runtime/io/checkpoint.h"

using namespace plastic::rt;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  fs::path dir;
  std::optional<CheckpointDir> checkpoints;
  CheckpointEntry entry;
};

std::optional<Fixture> fixture;

void remove_fixture() {
  std::error_code ec;
  if (fixture) fs::remove_all(fixture->dir, ec);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Fixture f;
  f.dir = fs::temp_directory_path() / ("plastic-fuzz-ckpt-" + std::to_string(::getpid()));
  auto dir = CheckpointDir::open(f.dir, 0);
  if (!dir) std::abort();
  Checkpoint c;
  c.meta.epoch = 3;
  c.meta.step = 42;
  c.meta.model_hash = "0123456789abcdef";
  c.meta.dims = {{"N", 8}};
  c.meta.rng_state = "1 2 3 4";
  c.meta.best_metric = 0.25;
  c.meta.config = {{"lr", 1e-3}};
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};
  c.params.tensors.push_back(NamedTensor::of<float>("W", {2, 3}, w));
  c.optimizer.tensors.push_back(NamedTensor::of<float>("m/W", {2, 3}, w));
  auto saved = dir.value().save(c);
  if (!saved) std::abort();
  f.entry = saved.value();
  if (const char* out = std::getenv("PLASTIC_FUZZ_SEED_OUT")) fs::copy_file(f.entry.json, out);
  f.checkpoints = std::move(dir).value();
  fixture = std::move(f);
  std::atexit(remove_fixture);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream out(fixture->entry.json, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto loaded = fixture->checkpoints->load(fixture->entry);
  if (!loaded) (void)loaded.error().describe();
  return 0;
}
