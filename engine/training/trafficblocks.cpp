#include "engine/training/trafficblocks.h"

#include "engine/training/ncclringsends.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace clusterscope::engine {

namespace {

    std::string range(long long begin, long long end)
    {
        return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
    }

    long long ceilDiv(long long a, long long b) { return (a + b - 1) / b; }

} // namespace

const char* trafficDimensionName(int dimensionIndex)
{
    if (dimensionIndex >= 0 && dimensionIndex < kTrafficDimensions)
        return toString(static_cast<TrafficDimension>(dimensionIndex));
    return dimensionIndex == kTrafficUnknownDimension ? "unknown" : "?";
}

double TrafficBlocks::total() const
{
    double sum = 0;
    for (double b : bytes)
        sum += b;
    return sum;
}

double TrafficBlocks::maxBytes() const
{
    double best = 0;
    for (double b : bytes)
        best = std::max(best, b);
    return best;
}

double TrafficBlocks::minPositiveBytes() const
{
    double best = 0;
    for (double b : bytes)
        if (b > 0 && (best == 0 || b < best))
            best = b;
    return best;
}

Status TrafficSource::checkWindow(const GpuWindow& w) const
{
    if (w.rowBegin < 0 || w.rowEnd > m_gpus || w.rowBegin >= w.rowEnd)
        return Status::error("traffic window: source rows " + range(w.rowBegin, w.rowEnd)
            + " must be a non-empty range inside the " + std::to_string(m_gpus) + " GPUs");
    if (w.colBegin < 0 || w.colEnd > m_gpus || w.colBegin >= w.colEnd)
        return Status::error("traffic window: destination columns " + range(w.colBegin, w.colEnd)
            + " must be a non-empty range inside the " + std::to_string(m_gpus) + " GPUs");
    return Status::success();
}

Result<TrafficBlocks> TrafficSource::blocks(const TrafficBlockQuery& q) const
{
    if (Status s = checkWindow(q.window); !s)
        return s;
    if (q.gpusPerBlock < 1)
        return Status::error("traffic query: gpus_per_block is " + std::to_string(q.gpusPerBlock) + ", must be >= 1");
    const GpuWindow& w = q.window;
    const long long B = q.gpusPerBlock;
    TrafficBlocks out;
    out.gpusPerBlock = B;
    out.firstRowBlock = w.rowBegin / B;
    out.firstColBlock = w.colBegin / B;
    out.rows = ceilDiv(w.rowEnd, B) - out.firstRowBlock;
    out.cols = ceilDiv(w.colEnd, B) - out.firstColBlock;
    // Divide rather than multiply: rows x cols may overflow for absurd windows.
    if (out.rows > kMaxTrafficBlockCells / out.cols)
        return Status::error("traffic query: " + std::to_string(out.rows) + " x " + std::to_string(out.cols)
            + " blocks of " + std::to_string(B) + " GPUs exceed the limit of " + std::to_string(kMaxTrafficBlockCells)
            + " cells; choose larger blocks or a smaller window");
    out.bytes.assign(static_cast<std::size_t>(out.rows * out.cols), 0.0);
    const unsigned classes = q.filter.linkClassMask;
    const bool allClasses = q.filter.allLinkClasses();
    double* cells = out.bytes.data();
    const long long r0 = out.firstRowBlock, c0 = out.firstColBlock, cols = out.cols;
    auto add = [&](long long src, long long dst, int, double bytes) {
        if (!allClasses && !(classes & (1u << linkClass(src, dst))))
            return;
        cells[(src / B - r0) * cols + (dst / B - c0)] += bytes;
    };
    visitSends(w, q.filter.dimensionMask, SendVisitor(add));
    return out;
}

Result<TrafficSplit> TrafficSource::split(const GpuWindow& w) const
{
    if (Status s = checkWindow(w); !s)
        return s;
    TrafficSplit out {};
    auto add = [&](long long src, long long dst, int dim, double bytes) { out[dim][linkClass(src, dst)] += bytes; };
    visitSends(w, kAllTrafficDimensionsMask, SendVisitor(add));
    return out;
}

TrafficSplit TrafficSource::totals() const
{
    if (m_gpus <= 0)
        return {};
    return *split({ 0, m_gpus, 0, m_gpus });
}

// --- the model's patterns ------------------------------------------------------------------------

ModelTrafficSource::ModelTrafficSource(const TrafficMatrix& matrix, const GroupPlacer& placer)
    : TrafficSource(matrix.gpus(), placer)
    , m_patterns(matrix.patterns())
{
}

void ModelTrafficSource::visitSends(const GpuWindow& w, unsigned dimensionMask, const SendVisitor& visit) const
{
    // Same partners as TrafficMatrix::forEachSend (ring: NCCL's channels, ncclringsends.h; chain: both neighbours;
    // bi-ring: both neighbours modulo n; all-to-all: every other member), restricted to the window.
    const auto inCols = [&w](long long dst) { return dst >= w.colBegin && dst < w.colEnd; };
    for (const TrafficPattern& pt : m_patterns) {
        const int d = static_cast<int>(pt.dimension);
        if (!(dimensionMask & (1u << d)) || pt.groupSize <= 1 || pt.bytesPerPair <= 0)
            continue;
        const long long n = pt.groupSize, s = std::max(1LL, pt.strideGpus);
        const double b = pt.bytesPerPair;
        const long long r = ncclring::membersPerDomain(pt, placer());
        for (long long src = w.rowBegin; src < w.rowEnd; ++src) {
            const long long k = (src / s) % n;
            const long long base = src - k * s;
            switch (pt.shape) {
            case TrafficPattern::Shape::Ring:
                ncclring::visitPartners(k, n, r, b, [&](long long j, double bytes) {
                    if (const long long dst = base + j * s; inCols(dst))
                        visit(src, dst, d, bytes);
                });
                break;
            case TrafficPattern::Shape::Chain:
                if (k + 1 < n && inCols(base + (k + 1) * s))
                    visit(src, base + (k + 1) * s, d, b);
                if (k > 0 && inCols(base + (k - 1) * s))
                    visit(src, base + (k - 1) * s, d, b);
                break;
            case TrafficPattern::Shape::BiRing:
                if (const long long dst = base + ((k + 1) % n) * s; inCols(dst))
                    visit(src, dst, d, b);
                if (const long long dst = base + ((k + n - 1) % n) * s; inCols(dst))
                    visit(src, dst, d, b);
                break;
            case TrafficPattern::Shape::AllToAll: {
                // Only the members whose GPU base + j x s falls inside the destination columns.
                const long long jLo = w.colBegin > base ? ceilDiv(w.colBegin - base, s) : 0;
                const long long jHi = w.colEnd - 1 >= base ? std::min(n - 1, (w.colEnd - 1 - base) / s) : -1;
                for (long long j = jLo; j <= jHi; ++j)
                    if (j != k)
                        visit(src, base + j * s, d, b);
                break;
            }
            }
        }
    }
}

// --- measured pairs ------------------------------------------------------------------------------

Result<MeasuredTrafficSource> MeasuredTrafficSource::create(
    long long gpus, std::vector<MeasuredTrafficPair> pairs, const GroupPlacer& placer)
{
    if (gpus < 1)
        return Status::error("measured traffic: gpus is " + std::to_string(gpus) + ", must be >= 1");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const MeasuredTrafficPair& p = pairs[i];
        const std::string where = "measured traffic pair " + std::to_string(i) + ": ";
        if (p.srcGpu < 0 || p.srcGpu >= gpus || p.dstGpu < 0 || p.dstGpu >= gpus)
            return Status::error(where + "GPU " + std::to_string(p.srcGpu < 0 || p.srcGpu >= gpus ? p.srcGpu : p.dstGpu)
                + " is outside the " + std::to_string(gpus) + " GPUs");
        if (p.srcGpu == p.dstGpu)
            return Status::error(where + "source and destination are both GPU " + std::to_string(p.srcGpu));
        if (p.dimension < 0 || p.dimension >= kTrafficSourceDimensions)
            return Status::error(
                where + "dimension " + std::to_string(p.dimension) + " is not one of tp, cp, dp, ep, pp, unknown");
        if (!std::isfinite(p.bytes) || p.bytes < 0)
            return Status::error(where + "bytes " + std::to_string(p.bytes) + " must be finite and >= 0");
    }
    std::sort(pairs.begin(), pairs.end(), [](const MeasuredTrafficPair& a, const MeasuredTrafficPair& b) {
        if (a.srcGpu != b.srcGpu)
            return a.srcGpu < b.srcGpu;
        return a.dstGpu != b.dstGpu ? a.dstGpu < b.dstGpu : a.dimension < b.dimension;
    });
    MeasuredTrafficSource out(gpus, placer);
    out.m_pairs.reserve(pairs.size());
    for (const MeasuredTrafficPair& p : pairs) {
        MeasuredTrafficPair* last = out.m_pairs.empty() ? nullptr : &out.m_pairs.back();
        if (last && last->srcGpu == p.srcGpu && last->dstGpu == p.dstGpu && last->dimension == p.dimension)
            last->bytes += p.bytes;
        else
            out.m_pairs.push_back(p);
    }
    return out;
}

void MeasuredTrafficSource::visitSends(const GpuWindow& w, unsigned dimensionMask, const SendVisitor& visit) const
{
    auto it = std::lower_bound(m_pairs.begin(), m_pairs.end(), w.rowBegin,
        [](const MeasuredTrafficPair& p, long long src) { return p.srcGpu < src; });
    for (; it != m_pairs.end() && it->srcGpu < w.rowEnd; ++it)
        if (it->dstGpu >= w.colBegin && it->dstGpu < w.colEnd && (dimensionMask & (1u << it->dimension)))
            visit(it->srcGpu, it->dstGpu, it->dimension, it->bytes);
}

} // namespace clusterscope::engine
