// ValidationResult metrics for reporting: accuracy, exact AUROC, MSE, and
// numerically stable cross-entropy and BCE-with-logits.
//
// The compiled model computes its own training loss; these recompute losses
// and scores from its outputs for logs, early stopping and the final report.
// Reductions are means accumulated in double. Malformed inputs (sizes, label
// ranges, non-finite scores for AUROC) and undefined metrics (AUROC with a
// single class) are error values, never NaN in disguise.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/support/train_error.h"

namespace plastic::rt {

/// Fraction of equal entries.
Result<double, TrainError> accuracy(std::span<const int64_t> predicted,
                                    std::span<const int64_t> labels);

/// Accuracy of argmax over each row of `logits` ([n, classes], row-major);
/// ties go to the lowest class index (as torch.argmax).
template <class T>
Result<double, TrainError> accuracy_from_logits(std::span<const T> logits, int64_t classes,
                                                std::span<const int64_t> labels);

/// Binary accuracy: score > threshold predicts 1 (logits: threshold 0).
template <class T>
Result<double, TrainError> binary_accuracy(std::span<const T> scores,
                                           std::span<const int64_t> labels, double threshold = 0.0);

/// Area under the ROC curve for labels in {0, 1}, exactly: the Mann–Whitney
/// statistic P(score of a positive > score of a negative) with ties counted
/// as 1/2 — the value sklearn.metrics.roc_auc_score gives. O(n log n).
/// Error (Undefined) when only one class is present; error on NaN scores.
template <class T>
Result<double, TrainError> auroc(std::span<const T> scores, std::span<const int64_t> labels);

/// Mean of (a - b)^2 over all elements.
template <class T>
Result<double, TrainError> mse(std::span<const T> predicted, std::span<const T> target);

/// Mean over rows of -log softmax(logits)[label]: logsumexp(row) - row[label],
/// with the maximum subtracted first (torch.nn.functional.cross_entropy, mean reduction).
template <class T>
Result<double, TrainError> cross_entropy(std::span<const T> logits, int64_t classes,
                                         std::span<const int64_t> labels);

/// Mean of max(x, 0) - x*y + log1p(exp(-|x|)) (torch's binary_cross_entropy_with_logits);
/// targets y in [0, 1].
template <class T>
Result<double, TrainError> bce_with_logits(std::span<const T> logits, std::span<const T> targets);

} // namespace plastic::rt
