// The CSV `predict` writes: one row per readout of each sample, with what a
// user needs to read the prediction without the model at hand. Columns:
//
//   split      the split the sample belongs to (train | validation | test)
//   sample     the sample's id as its reader names it: the file stem (.npy,
//              .psv), the --id column's value (.csv), "<stem>:<line>" for a
//              .ts file (the line the series is on), "trial<n>" (synthetic),
//              "<id>@<first row>" for a --window
//   index      the sample's 0-based position in its split
//   time       the data's time of the readout
// then, for a classifier (one output per class):
//   label      the true class's name (empty when the data has no label)
//   predicted  the name of the class with the largest output
//   p_<class>  the probability of each class (softmax of the outputs)
// for a binary classifier (one output, a logit):
//   label, predicted, and p_<positive class> (the logit's sigmoid)
// for regression:
//   target_<name>  the true value where the data has one for this row
// and always the raw outputs y0, y1, ... last.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "runtime/abi.h"
#include "runtime/batch/predict.h"
#include "runtime/data/dataset.h"

namespace plastic::rt {

/// Writes the header line for `model`'s outputs on data like `data`.
void write_prediction_header(std::ostream& out, const plastic_model& model, const Dataset& data);

/// Writes the rows of `p` (predictions on samples of `data`, the split `split`).
template <class T>
void write_prediction_rows(std::ostream& out, const plastic_model& model, const Dataset& data,
                           const std::string& split, const Predictions<T>& p);

} // namespace plastic::rt
