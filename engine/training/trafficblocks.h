#pragma once

// Block aggregates of GPU-pair traffic for heatmaps: windows of source x destination GPUs summed
// over blocks of consecutive GPUs (1 GPU, a node, a rack, a pod), filtered by parallelism dimension
// and link class. Two sources implement one interface: the model's group patterns (TrafficMatrix)
// and a measured sparse list of pairs (from trace importers). Neither ever builds the dense
// GPU x GPU matrix: a query costs O(sends of the window's source GPUs) time and O(cells) memory,
// and grids above kMaxTrafficBlockCells are refused (16,384 GPUs at GPU level would be 268 M cells).

#include "engine/core/status.h"
#include "engine/training/groupplacer.h"
#include "engine/training/trafficmatrix.h"

#include <array>
#include <type_traits>
#include <vector>

namespace clusterscope::engine {

/// Dimension indices of traffic sources: the TrafficDimension values (tp 0, cp 1, dp 2, ep 3, pp 4)
/// plus one for measured traffic whose process group could not be attributed to a dimension.
inline constexpr int kTrafficUnknownDimension = kTrafficDimensions;
inline constexpr int kTrafficSourceDimensions = kTrafficDimensions + 1;
inline constexpr unsigned kAllTrafficDimensionsMask = (1u << kTrafficSourceDimensions) - 1;
inline constexpr unsigned kAllLinkClassesMask = (1u << kLinkClasses) - 1;
/// Largest block grid a query may allocate: 2048 x 2048 cells of 8 bytes (32 MiB).
inline constexpr long long kMaxTrafficBlockCells = 2048LL * 2048LL;

const char* trafficDimensionName(int dimensionIndex); ///< "tp", "cp", "dp", "ep", "pp", "unknown"

/// Which sends a query counts: bit d of dimensionMask for dimension index d, bit c of linkClassMask
/// for link class c (GroupPlacer::pairTier: 0 scale-up, 1 leaf, 2 spine, 3 core).
struct TrafficFilter {
    unsigned dimensionMask = kAllTrafficDimensionsMask;
    unsigned linkClassMask = kAllLinkClassesMask;
    bool allLinkClasses() const { return (linkClassMask & kAllLinkClassesMask) == kAllLinkClassesMask; }
};

/// Source GPUs [rowBegin, rowEnd) x destination GPUs [colBegin, colEnd).
struct GpuWindow {
    long long rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0;
};

/// A request: sends from the window's source GPUs to its destination GPUs, summed over blocks of
/// `gpusPerBlock` consecutive GPUs aligned at GPU 0 (block b holds GPUs [b x B, (b + 1) x B)).
/// A window that cuts a block counts only the GPUs inside the window.
struct TrafficBlockQuery {
    GpuWindow window;
    long long gpusPerBlock = 1;
    TrafficFilter filter;
};

/// Bytes per iteration of rows x cols blocks; row r is block firstRowBlock + r (source side),
/// column c is block firstColBlock + c (destination side); bytes[r x cols + c].
struct TrafficBlocks {
    long long gpusPerBlock = 1;
    long long firstRowBlock = 0, firstColBlock = 0;
    long long rows = 0, cols = 0;
    std::vector<double> bytes;
    double at(long long row, long long col) const { return bytes[static_cast<std::size_t>(row * cols + col)]; }
    double total() const;
    double maxBytes() const;
    double minPositiveBytes() const; ///< 0 when every cell is zero
};

/// Bytes per iteration between two GPU ranges by dimension index and link class (unfiltered).
using TrafficSplit = std::array<std::array<double, kLinkClasses>, kTrafficSourceDimensions>;

/// Read-only GPU-pair traffic of one iteration. Thread-safe for concurrent const queries.
class TrafficSource {
public:
    virtual ~TrafficSource() = default;
    long long gpus() const { return m_gpus; }
    const GroupPlacer& placer() const { return m_placer; }
    /// Link class of a GPU pair (GroupPlacer::pairTier).
    int linkClass(long long srcGpu, long long dstGpu) const { return m_placer.pairTier(srcGpu, dstGpu); }

    /// Block sums of `query`. Fails naming the offending field when the window is empty or leaves
    /// [0, gpus), gpusPerBlock < 1, or the grid exceeds kMaxTrafficBlockCells.
    Result<TrafficBlocks> blocks(const TrafficBlockQuery& query) const;
    /// Bytes from GPUs [rowBegin, rowEnd) to [colBegin, colEnd) by dimension and link class.
    Result<TrafficSplit> split(const GpuWindow& window) const;
    /// Bytes per iteration of the whole cluster by dimension and link class.
    TrafficSplit totals() const;

    /// A cheap function reference for the per-send visitor (no allocation, one indirect call).
    class SendVisitor {
    public:
        template <typename F, typename = std::enable_if_t<!std::is_same_v<std::remove_cv_t<F>, SendVisitor>>>
        SendVisitor(F& f)
            : m_object(&f)
            , m_call([](void* o, long long s, long long d, int dim, double b) { (*static_cast<F*>(o))(s, d, dim, b); })
        {
        }
        void operator()(long long src, long long dst, int dim, double bytes) const
        {
            m_call(m_object, src, dst, dim, bytes);
        }

    private:
        void* m_object;
        void (*m_call)(void*, long long, long long, int, double);
    };
    /// Calls visit(src, dst, dimensionIndex, bytes) once per send with src in [rowBegin, rowEnd) and
    /// dst in [colBegin, colEnd), dimensions restricted to `dimensionMask`. The window is valid.
    virtual void visitSends(const GpuWindow& window, unsigned dimensionMask, const SendVisitor& visit) const = 0;

protected:
    TrafficSource(long long gpus, const GroupPlacer& placer)
        : m_gpus(gpus)
        , m_placer(placer)
    {
    }
    Status checkWindow(const GpuWindow& window) const;

private:
    long long m_gpus = 0;
    GroupPlacer m_placer;
};

/// The model's traffic: a TrafficMatrix's group patterns, expanded only for the queried window.
class ModelTrafficSource final : public TrafficSource {
public:
    /// `placer` must be the one the matrix was built with (TrainingEvaluator::placer()).
    ModelTrafficSource(const TrafficMatrix& matrix, const GroupPlacer& placer);
    void visitSends(const GpuWindow& window, unsigned dimensionMask, const SendVisitor& visit) const override;

private:
    std::vector<TrafficPattern> m_patterns;
};

/// One measured GPU pair: bytes per iteration `srcGpu` sent to `dstGpu` in one dimension
/// (kTrafficUnknownDimension when the trace's process group is not attributed).
struct MeasuredTrafficPair {
    long long srcGpu = 0;
    long long dstGpu = 0;
    double bytes = 0;
    int dimension = kTrafficUnknownDimension;
};

/// Measured traffic from traces: a sparse list of pairs, sorted by source for window queries.
class MeasuredTrafficSource final : public TrafficSource {
public:
    /// Fails naming the pair index when a GPU is outside [0, gpus), src == dst, the dimension is
    /// not a dimension index, or bytes are negative or not finite. Duplicate pairs add up.
    static Result<MeasuredTrafficSource> create(
        long long gpus, std::vector<MeasuredTrafficPair> pairs, const GroupPlacer& placer);
    const std::vector<MeasuredTrafficPair>& pairs() const { return m_pairs; }
    void visitSends(const GpuWindow& window, unsigned dimensionMask, const SendVisitor& visit) const override;

private:
    MeasuredTrafficSource(long long gpus, const GroupPlacer& placer)
        : TrafficSource(gpus, placer)
    {
    }
    std::vector<MeasuredTrafficPair> m_pairs;
};

} // namespace clusterscope::engine
