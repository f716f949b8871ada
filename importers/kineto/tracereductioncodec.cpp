// Byte encoding of TraceFileReduction lists for the distributed import's gathers (tracereduction.h).

#include "importers/kineto/tracereduction.h"

#include <cstring>
#include <type_traits>

namespace clusterscope::importers {

namespace {

    class Writer {
    public:
        template <typename T> void pod(T v)
        {
            static_assert(std::is_trivially_copyable_v<T>);
            m_out.append(reinterpret_cast<const char*>(&v), sizeof v);
        }
        void str(const std::string& s)
        {
            pod(std::uint32_t(s.size()));
            m_out += s;
        }
        void diagnostics(const engine::Diagnostics& d)
        {
            pod(std::uint32_t(d.items().size()));
            for (const auto& x : d.items()) {
                str(x.id);
                pod(std::uint8_t(x.severity));
                str(x.message);
                pod(x.count);
            }
        }
        void pairs(const std::vector<engine::RankTrafficPair>& v)
        {
            pod(std::uint32_t(v.size()));
            for (const auto& p : v) {
                pod(p.src);
                pod(p.dst);
                pod(p.bytes);
            }
        }
        void summary(const engine::RankSummary& s)
        {
            pod(s.info.rank);
            pod(s.info.worldSize);
            str(s.info.sourceFile);
            str(s.info.gpuName);
            pod(s.info.gpuMemoryBytes);
            str(s.info.ncclVersion);
            pod(s.info.baseTimeNs);
            pod(std::uint32_t(s.steps.size()));
            for (const auto& st : s.steps) {
                pod(st.step);
                const auto& b = st.breakdown;
                pod(b.rank);
                for (double v : { b.durationSeconds, b.computeSeconds, b.commExposedSeconds, b.commOverlappedSeconds,
                         b.memcpySeconds, b.idleSeconds, b.idleHostWaitSeconds, b.idleKernelWaitSeconds })
                    pod(v);
            }
            pod(std::uint32_t(s.collectives.size()));
            for (const auto& c : s.collectives) {
                pod(std::uint8_t(c.op));
                str(c.processGroup);
                pod(c.sequence);
                pod(c.startNs);
                pod(c.endNs);
                pod(c.bytes);
                pod(c.groupSize);
                pod(c.step);
            }
            pairs(s.sends);
            pairs(s.receives);
            pod(s.trafficRanks);
            pod(s.trafficUnknownBytes);
            pod(s.trafficUnknownPeers);
            diagnostics(s.diagnostics);
        }
        std::string take() { return std::move(m_out); }

    private:
        std::string m_out;
    };

    class Reader {
    public:
        explicit Reader(std::string_view in)
            : m_in(in)
        {
        }
        bool ok() const { return m_ok; }
        bool atEnd() const { return m_pos == m_in.size(); }
        std::size_t offset() const { return m_pos; }

        template <typename T> T pod()
        {
            T v {};
            if (!m_ok || m_in.size() - m_pos < sizeof v) {
                m_ok = false;
                return v;
            }
            std::memcpy(&v, m_in.data() + m_pos, sizeof v);
            m_pos += sizeof v;
            return v;
        }
        std::string str()
        {
            const auto n = pod<std::uint32_t>();
            if (!m_ok || m_in.size() - m_pos < n) {
                m_ok = false;
                return {};
            }
            std::string s(m_in.substr(m_pos, n));
            m_pos += n;
            return s;
        }
        // A count of elements of at least `minBytes` each: never more than the bytes left allow.
        std::size_t count(std::size_t minBytes)
        {
            const auto n = pod<std::uint32_t>();
            if (!m_ok || std::size_t(n) > (m_in.size() - m_pos) / minBytes) {
                m_ok = false;
                return 0;
            }
            return n;
        }
        void diagnostics(engine::Diagnostics& d)
        {
            const std::size_t n = count(17);
            for (std::size_t i = 0; i < n && m_ok; ++i) {
                engine::Diagnostic x;
                x.id = str();
                const auto severity = pod<std::uint8_t>();
                m_ok = m_ok && severity <= std::uint8_t(engine::DiagnosticSeverity::Error);
                x.severity = engine::DiagnosticSeverity(severity);
                x.message = str();
                x.count = pod<std::int64_t>();
                d.append(x);
            }
        }
        void pairs(std::vector<engine::RankTrafficPair>& v)
        {
            const std::size_t n = count(16);
            v.resize(n);
            for (auto& p : v) {
                p.src = pod<std::int32_t>();
                p.dst = pod<std::int32_t>();
                p.bytes = pod<double>();
            }
        }
        void summary(engine::RankSummary& s)
        {
            s.info.rank = pod<std::int32_t>();
            s.info.worldSize = pod<std::int32_t>();
            s.info.sourceFile = str();
            s.info.gpuName = str();
            s.info.gpuMemoryBytes = pod<std::int64_t>();
            s.info.ncclVersion = str();
            s.info.baseTimeNs = pod<std::int64_t>();
            s.steps.resize(count(12 + 8 * 8));
            for (auto& st : s.steps) {
                st.step = pod<std::int64_t>();
                auto& b = st.breakdown;
                b.rank = pod<std::int32_t>();
                for (double* v :
                    { &b.durationSeconds, &b.computeSeconds, &b.commExposedSeconds, &b.commOverlappedSeconds,
                        &b.memcpySeconds, &b.idleSeconds, &b.idleHostWaitSeconds, &b.idleKernelWaitSeconds })
                    *v = pod<double>();
            }
            s.collectives.resize(count(1 + 4 + 8 * 5 + 4));
            for (auto& c : s.collectives) {
                const auto op = pod<std::uint8_t>();
                m_ok = m_ok && op <= std::uint8_t(engine::CollectiveOp::Barrier);
                c.op = engine::CollectiveOp(op);
                c.processGroup = str();
                c.sequence = pod<std::int64_t>();
                c.startNs = pod<std::int64_t>();
                c.endNs = pod<std::int64_t>();
                c.bytes = pod<std::int64_t>();
                c.groupSize = pod<std::int32_t>();
                c.step = pod<std::int64_t>();
            }
            pairs(s.sends);
            pairs(s.receives);
            s.trafficRanks = pod<std::int32_t>();
            s.trafficUnknownBytes = pod<std::int64_t>();
            s.trafficUnknownPeers = pod<std::int64_t>();
            diagnostics(s.diagnostics);
        }

    private:
        std::string_view m_in;
        std::size_t m_pos = 0;
        bool m_ok = true;
    };

    constexpr std::uint32_t kMagic = 0x43535231; // "CSR1"

} // namespace

std::string encodeReductions(const std::vector<std::pair<std::int64_t, const TraceFileReduction*>>& reductions)
{
    Writer w;
    for (const auto& [index, r] : reductions) {
        w.pod(kMagic);
        w.pod(index);
        w.str(r->error);
        w.diagnostics(r->diagnostics);
        w.pod(std::uint32_t(r->ranks.size()));
        for (const auto& s : r->ranks)
            w.summary(s);
    }
    return w.take();
}

engine::Status decodeReductions(std::string_view bytes, std::vector<std::pair<std::int64_t, TraceFileReduction>>& out)
{
    Reader r(bytes);
    while (!r.atEnd()) {
        const std::size_t at = r.offset();
        if (r.pod<std::uint32_t>() != kMagic || !r.ok())
            return engine::Status::error("rank summaries: no record at byte offset " + std::to_string(at));
        std::pair<std::int64_t, TraceFileReduction> item;
        item.first = r.pod<std::int64_t>();
        item.second.error = r.str();
        r.diagnostics(item.second.diagnostics);
        item.second.ranks.resize(r.count(64));
        for (auto& s : item.second.ranks)
            r.summary(s);
        if (!r.ok())
            return engine::Status::error(
                "rank summaries: the record at byte offset " + std::to_string(at) + " is damaged");
        out.push_back(std::move(item));
    }
    return engine::Status::success();
}

} // namespace clusterscope::importers
