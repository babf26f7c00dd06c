// Reading a run folder's files back in the driver's tests: bytes to compare
// two runs bit for bit, and the rows of train.jsonl.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plastic::test {

/// The file's bytes ("" when it cannot be read).
inline std::string file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// One JSON object per epoch of `run`/train.jsonl.
inline std::vector<nlohmann::json> epoch_rows(const std::filesystem::path& run) {
  std::vector<nlohmann::json> out;
  std::ifstream in(run / "train.jsonl");
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::json::parse(line));
  return out;
}

/// The training loss of each epoch of `run`.
inline std::vector<double> train_losses(const std::filesystem::path& run) {
  std::vector<double> out;
  for (const nlohmann::json& row : epoch_rows(run))
    out.push_back(row.at("train_loss").get<double>());
  return out;
}

} // namespace plastic::test
