#include "engine/run/rundump.h"

#include <cstdio>
#include <sstream>

namespace clusterscope::engine {

namespace {
    std::string fmt(const char* format, double v)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, format, v);
        return buf;
    }

    std::string baseName(const std::string& path)
    {
        const auto slash = path.find_last_of('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }

    const char* kindName(GpuActivityKind k)
    {
        switch (k) {
        case GpuActivityKind::Compute:
            return "compute";
        case GpuActivityKind::Communication:
            return "comm";
        case GpuActivityKind::Memcpy:
            return "memcpy";
        case GpuActivityKind::Memset:
            return "memset";
        }
        return "?";
    }
}

std::string dumpRunCanonical(const Run& run, const RunAnalysis& a)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < run.ranks.size(); ++i) {
        const RankTrace& r = run.ranks[i];
        std::size_t counts[4] = {};
        for (const auto& act : r.activities)
            ++counts[int(act.kind)];
        os << "rank " << r.rank << " world " << r.worldSize << " file " << baseName(r.sourceFile) << " gpu \""
           << r.gpuName << "\" steps " << r.steps.size() << " offset_ns " << a.clockOffsetNs[i];
        for (int k = 0; k < 4; ++k)
            os << " " << kindName(GpuActivityKind(k)) << " " << counts[k];
        os << "\n";
        for (const auto& c : r.collectives)
            os << "  call " << toString(c.op) << " start " << c.startNs << " end " << c.endNs << " bytes " << c.bytes
               << " group " << c.groupSize << " pg \"" << c.processGroup << "\" seq " << c.sequence << " algo \""
               << c.algorithm << "\" dtype \"" << c.dtype << "\"\n";
    }
    for (const auto& s : a.steps)
        for (const auto& r : s.ranks)
            os << "step " << s.step << " rank " << r.rank << " duration_us " << fmt("%.3f", r.durationSeconds * 1e6)
               << " compute_us " << fmt("%.3f", r.computeSeconds * 1e6) << " exposed_us "
               << fmt("%.3f", r.commExposedSeconds * 1e6) << " overlapped_us "
               << fmt("%.3f", r.commOverlappedSeconds * 1e6) << " memcpy_us " << fmt("%.3f", r.memcpySeconds * 1e6)
               << " idle_us " << fmt("%.3f", r.idleSeconds * 1e6) << " host_wait_us "
               << fmt("%.3f", r.idleHostWaitSeconds * 1e6) << " kernel_wait_us "
               << fmt("%.3f", r.idleKernelWaitSeconds * 1e6) << "\n";
    for (const auto& c : a.collectives)
        os << "collective " << toString(c.op) << " pg \"" << c.processGroup << "\" seq " << c.sequence << " step "
           << c.step << " bytes " << c.bytes << " ranks " << c.groupSize << " seen " << c.ranksSeen << " duration_us "
           << fmt("%.3f", c.durationUs) << " algbw " << fmt("%.4f", c.algbwGbps) << " busbw "
           << fmt("%.4f", c.busbwGbps) << " last " << c.lastArrivalRank << " wait_us " << fmt("%.3f", c.waitUs)
           << " total_wait_us " << fmt("%.3f", c.totalWaitUs) << "\n";
    for (const auto& s : a.stragglers)
        os << "straggler " << s.rank << " last_arrivals " << s.lastArrivals << " wait_caused_us "
           << fmt("%.3f", s.waitCausedUs) << "\n";
    os << "traffic ranks " << a.traffic.ranks << " total_bytes " << fmt("%.1f", a.traffic.totalBytes()) << "\n";
    for (const auto& d : run.diagnostics.items())
        os << "diagnostic " << d.id << " " << toString(d.severity) << " x" << d.count << "\n";
    for (const auto& d : a.diagnostics.items())
        os << "diagnostic " << d.id << " " << toString(d.severity) << " x" << d.count << "\n";
    return os.str();
}

} // namespace clusterscope::engine
