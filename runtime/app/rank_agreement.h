// Under mpirun, every rank of a job binds the same model to the same data
// with the same options, or the job does not start.
//
// Each rank runs the whole command on its own copy of the command line and
// the data. Ranks that differ in --batch would corrupt the gradient sums
// (each sums a different number of tiles), ranks that differ in --epochs
// would wait for ever in the last epoch's collectives, and a rank reading
// another copy of the data with changed labels would train on mixed data
// without a word. So before the first step each rank describes its binding
// — the model's identity, a digest of its data as read and split, and every
// option that changes what is computed — and compares it with rank 0's. A
// difference is refused on every rank, with one message (printed by rank
// 0) naming the first option that differs and both values.
#pragma once

#include <cstddef>
#include <span>

#include <nlohmann/json.hpp>

#include "runtime/app/app_error.h"
#include "runtime/app/requests.h"
#include "runtime/data/open_data.h"
#include "runtime/distributed/communicator.h"

namespace plastic::rt {

/// A digest of every sample of `splits` as read and split: times, values,
/// static features, labels and targets, in order (paths are not in it:
/// ranks on different machines read the data from different places).
std::string data_digest(const DataSplits& splits);

/// What a rank of `train` must share with rank 0: the model's identity,
/// the data's digest, and every recorded option and --epochs (not
/// --threads or --out, which may differ per machine).
nlohmann::ordered_json train_binding(const std::string& model_identity, const std::string& data,
                                     const TrainRequest& request);

/// A digest of a parameter vector's bytes (f32 or f64 as stored).
std::string parameters_digest(std::span<const std::byte> bytes);

/// What a rank of `eval` or `predict` (`command`) must share with rank 0:
/// the model's identity, the data's digest as prepared (new series carry
/// the run's statistics in it), the parameters' digest, --split and
/// --series-alone; every rank then evaluates a share of the same tiles.
nlohmann::ordered_json eval_binding(const std::string& command, const std::string& model_identity,
                                    const std::string& data, const std::string& parameters,
                                    const EvalRequest& request);

/// Compares `mine` with rank 0's on every rank (a no-op for one process).
/// On a difference every rank returns the same usage error (for rank 0 to
/// print: the job then ends with its exit code).
Status<AppError> check_ranks_agree(Communicator& comm, const nlohmann::ordered_json& mine);

/// Ends a command whose ranks disagree: rank 0 says why, once for the job,
/// and every rank returns the error's exit code.
int refuse_disagreement(const Communicator& comm, const AppError& disagreement);

} // namespace plastic::rt
