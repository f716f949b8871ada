#include "engine/calibration/weightedleastsquares.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::engine {

namespace {
    constexpr int kMaxColumns = 8; ///< the size correction's knots (collectivecalibration.h) are the most
}

std::optional<std::vector<double>> solveWeightedLeastSquares(
    std::span<const double> rows, int columns, std::span<const double> y, std::span<const double> weights)
{
    const std::size_t n = y.size();
    const auto m = static_cast<std::size_t>(columns);
    if (columns < 1 || columns > kMaxColumns || rows.size() != n * m || weights.size() != n || n < m)
        return std::nullopt;
    // Column scales: the weighted norm of each regressor.
    double scale[kMaxColumns] = {};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
            scale[j] += weights[i] * rows[i * m + j] * rows[i * m + j];
    for (std::size_t j = 0; j < m; ++j) {
        if (!(scale[j] > 0))
            return std::nullopt;
        scale[j] = std::sqrt(scale[j]);
    }
    // Normal equations (A'WA) x = A'Wy on the scaled columns, augmented matrix m x (m+1).
    double a[kMaxColumns][kMaxColumns + 1] = {};
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            const double aij = rows[i * m + j] / scale[j];
            for (std::size_t k = 0; k < m; ++k)
                a[j][k] += weights[i] * aij * rows[i * m + k] / scale[k];
            a[j][m] += weights[i] * aij * y[i];
        }
    }
    for (std::size_t col = 0; col < m; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < m; ++r)
            if (std::abs(a[r][col]) > std::abs(a[pivot][col]))
                pivot = r;
        // Scaled columns have unit diagonal: a pivot this small means near-collinear regressors.
        if (std::abs(a[pivot][col]) < 1e-10)
            return std::nullopt;
        std::swap(a[pivot], a[col]);
        for (std::size_t r = 0; r < m; ++r) {
            if (r == col)
                continue;
            const double f = a[r][col] / a[col][col];
            for (std::size_t k = col; k <= m; ++k)
                a[r][k] -= f * a[col][k];
        }
    }
    std::vector<double> x(m);
    for (std::size_t j = 0; j < m; ++j)
        x[j] = a[j][m] / a[j][j] / scale[j];
    return x;
}

} // namespace clusterscope::engine
