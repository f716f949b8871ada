#pragma once

#include <optional>
#include <span>
#include <vector>

namespace clusterscope::engine {

/// Solves min_x sum_i w_i (sum_j A_ij x_j - y_i)^2 for up to 8 unknowns through the normal
/// equations (Gaussian elimination with partial pivoting). `rows` holds A row by row
/// (rows.size() == y.size() * columns). Columns are scaled to unit weighted norm before solving so
/// that regressors of very different magnitude (seconds vs 1) do not spoil the pivots. Returns
/// nothing when the system is rank-deficient (a column is zero or a pivot vanishes relative to the
/// largest: the parameters are not identifiable from these points).
std::optional<std::vector<double>> solveWeightedLeastSquares(
    std::span<const double> rows, int columns, std::span<const double> y, std::span<const double> weights);

} // namespace clusterscope::engine
