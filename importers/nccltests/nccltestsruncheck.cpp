#include "importers/nccltests/nccltestsruncheck.h"

#include "importers/nccltests/nccltestsrunsplit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace clusterscope::importers {

namespace {

    constexpr engine::CollectiveOp kAll[] = {
        engine::CollectiveOp::AllReduce,
        engine::CollectiveOp::AllGather,
        engine::CollectiveOp::ReduceScatter,
        engine::CollectiveOp::Broadcast,
        engine::CollectiveOp::Reduce,
        engine::CollectiveOp::AllToAll,
        engine::CollectiveOp::SendRecv,
        engine::CollectiveOp::Scatter,
        engine::CollectiveOp::Gather,
        engine::CollectiveOp::HyperCube,
    };

    bool isReductionName(const std::string& redop)
    {
        // src/common.cu test_opnames
        return redop == "sum" || redop == "prod" || redop == "max" || redop == "min" || redop == "avg"
            || redop == "mulsum";
    }

    /// The row whose bandwidths carry the most significant digits: the largest with out-of-place figures.
    const NcclTestsMeasurement* largestMeasurement(const NcclTestsRun& run, const NcclTestsRow** rowOut = nullptr)
    {
        const NcclTestsMeasurement* best = nullptr;
        std::uint64_t bestBytes = 0;
        for (const auto& row : run.rows) {
            const NcclTestsMeasurement& m = row.outOfPlace ? *row.outOfPlace : row.inPlace;
            if (m.algbwGBps && m.busbwGBps && *m.algbwGBps > 0 && row.bytes >= bestBytes) {
                best = &m;
                bestBytes = row.bytes;
                if (rowOut)
                    *rowOut = &row;
            }
        }
        return best;
    }

    /// Whether printed busbw matches algbw x factor, allowing for %.2f rounding of both (and 1.5% for
    /// the three-significant-digit %.0f/%e forms).
    bool factorMatches(double algbw, double busbw, double factor)
    {
        return std::abs(busbw - algbw * factor) <= 0.011 * (1.0 + factor) + 0.015 * busbw;
    }

} // namespace

int ranksFromBandwidthFactor(const NcclTestsRun& run, engine::CollectiveOp collective)
{
    const NcclTestsMeasurement* m = largestMeasurement(run);
    if (!m || busBandwidthFactor(collective, 4) == 1.0)
        return 0;
    const double f = *m->busbwGBps / *m->algbwGBps;
    // AllReduce: f = 2(n-1)/n -> n = 2/(2-f); (n-1)/n family: n = 1/(1-f).
    const double raw
        = collective == engine::CollectiveOp::AllReduce ? 2.0 / std::max(2.0 - f, 1e-9) : 1.0 / std::max(1.0 - f, 1e-9);
    if (!std::isfinite(raw) || raw < 2.0 || raw > 1e6)
        return 0;
    const int n = static_cast<int>(std::lround(raw));
    if (n < 2 || n > 1'000'000 || !factorMatches(*m->algbwGBps, *m->busbwGBps, busBandwidthFactor(collective, n)))
        return 0;
    return n;
}

namespace {

    /// Whether NCCL operation `op` (as named in "NCCL INFO <op>: opCount" lines) can be part of the
    /// nccl-tests benchmark `c`: alltoall, scatter, gather, sendrecv and hypercube are grouped
    /// ncclSend/ncclRecv calls; the others call the NCCL collective of the same name.
    bool ncclOpFits(const std::string& op, engine::CollectiveOp c)
    {
        switch (c) {
        case engine::CollectiveOp::AllReduce:
            return op == "AllReduce";
        case engine::CollectiveOp::AllGather:
            return op == "AllGather";
        case engine::CollectiveOp::ReduceScatter:
            return op == "ReduceScatter";
        case engine::CollectiveOp::Broadcast:
            return op == "Broadcast";
        case engine::CollectiveOp::Reduce:
            return op == "Reduce";
        default:
            return op == "Send" || op == "Recv";
        }
    }

} // namespace

std::vector<engine::CollectiveOp> ncclTestsCandidates(const NcclTestsRun& run, int ranks)
{
    bool anyReductionOp = false, anyNoOp = false, anyRootNonNegative = false, anyRootMinusOne = false;
    const NcclTestsRow* ratioRow = nullptr;
    for (const auto& row : run.rows) {
        (isReductionName(row.redop) ? anyReductionOp : anyNoOp) = true;
        if (row.root)
            (*row.root >= 0 ? anyRootNonNegative : anyRootMinusOne) = true;
        if (row.count > 0 && ncclTestsTypeSize(row.type) && (!ratioRow || row.bytes > ratioRow->bytes))
            ratioRow = &row;
    }
    const bool titled = !run.columns.empty();
    const auto titledAs = [&](const char* name) {
        return std::find(run.columns.begin(), run.columns.end(), name) != run.columns.end();
    };
    const bool redopTitle = titled && titledAs("redop");
    const bool rootTitle = titled && titledAs("root");
    std::vector<engine::CollectiveOp> out;
    for (engine::CollectiveOp c : kAll) {
        bool fitsInfo = true;
        for (const auto& op : run.ncclInfoOps)
            fitsInfo = fitsInfo && ncclOpFits(op, c);
        if (!fitsInfo)
            continue;
        // sendrecv_perf runs once per reduction like the reductions and prints its name ("sum"), though it
        // reduces nothing (src/sendrecv.cu: TimeTest(..., run_opnames[j], -1)); the others print "none".
        const bool printsReductionName = isReduction(c) || c == engine::CollectiveOp::SendRecv;
        if (anyReductionOp && !printsReductionName)
            continue;
        if (anyNoOp && printsReductionName)
            continue;
        if ((anyRootNonNegative && !hasRoot(c)) || (anyRootMinusOne && hasRoot(c)))
            continue;
        // The column titles as every nccl-tests version prints them (src/*.cu before 2.13, src/common.cu
        // since): broadcast, reduce, scatter and gather always have a root column, alltoall always a redop
        // column; before 2.13 alltoall alone left it empty (NcclTestsRun::emptyRedopColumn) where
        // all_gather had none.
        if (titled && !rootTitle && hasRoot(c))
            continue;
        if (titled && !redopTitle && c == engine::CollectiveOp::AllToAll)
            continue;
        if (run.emptyRedopColumn && !rootTitle && c != engine::CollectiveOp::AllToAll)
            continue;
        int n = ranks;
        if (n == 0)
            n = ranksFromBandwidthFactor(run, c);
        if (ratioRow) {
            const double ratio = static_cast<double>(ratioRow->bytes)
                / (static_cast<double>(ratioRow->count) * *ncclTestsTypeSize(ratioRow->type));
            const bool perRankFamily = sizeToCountRatio(c, 2) > 1;
            if (n > 0) {
                if (std::abs(ratio - sizeToCountRatio(c, n)) > 1e-9)
                    continue;
            } else if (!perRankFamily && std::abs(ratio - 1.0) > 1e-9) {
                continue;
            } else if (perRankFamily
                && (!(ratio >= 1.0 && ratio <= 1e6) || std::abs(ratio - std::round(ratio)) > 1e-9)) {
                continue;
            } else if (perRankFamily) {
                n = static_cast<int>(std::lround(ratio));
            }
        }
        if (n > 0) {
            if (const NcclTestsMeasurement* m = largestMeasurement(run);
                m && !factorMatches(*m->algbwGBps, *m->busbwGBps, busBandwidthFactor(c, n)))
                continue;
        } else if (c == engine::CollectiveOp::SendRecv) {
            // busbw = algbw at any rank count (src/sendrecv.cu: factor 1).
            if (const NcclTestsMeasurement* m = largestMeasurement(run);
                m && !factorMatches(*m->algbwGBps, *m->busbwGBps, 1.0))
                continue;
        }
        out.push_back(c);
    }
    return out;
}

namespace {

    std::string listNames(const std::vector<engine::CollectiveOp>& cs)
    {
        std::string s;
        for (std::size_t i = 0; i < cs.size(); ++i)
            s += (i == 0 ? "" : i + 1 == cs.size() ? " or " : ", ") + std::string(toString(cs[i]));
        return s;
    }

    /// What the columns of `run` show, for a message: "root 0, no reduction, busbw = algbw x 15/16".
    std::string columnEvidence(const NcclTestsRun& run, engine::CollectiveOp c)
    {
        std::string out;
        const NcclTestsRow& row = run.rows.back();
        if (row.root)
            out += "root " + std::to_string(*row.root) + ", ";
        out += row.redop.empty() || row.redop == "none" ? "no reduction" : "reduction " + row.redop;
        // The (n-1)/n family (scatter, gather, allgather, ...): the ranks show in the fraction.
        if (const int n = ranksFromBandwidthFactor(run, c);
            n > 0 && std::abs(busBandwidthFactor(c, n) - (n - 1.0) / n) < 1e-12)
            out += ", busbw = algbw x " + std::to_string(n - 1) + "/" + std::to_string(n);
        return out;
    }

    class RunChecker {
    public:
        RunChecker(NcclTestsLog& log)
            : m_log(log)
        {
        }
        void diag(const char* id, const NcclTestsRow& row, const std::string& message)
        {
            if (row.pointer.empty())
                return diag(id, row.line, message);
            if (++m_counts[id] <= 8)
                m_log.diagnostics.push_back(
                    { id, NcclTestsSeverity::Warning, 0, m_log.file + ": " + row.pointer + ": " + message });
        }
        void diag(const char* id, int line, const std::string& message)
        {
            // Cap repeats of one kind per run so a systematic problem does not bury the others.
            if (++m_counts[id] > 8) {
                if (m_counts[id] == 9)
                    m_log.diagnostics.push_back({ id, NcclTestsSeverity::Warning, line,
                        m_log.file + ":" + std::to_string(line) + ": further \"" + id
                            + "\" diagnostics of this run omitted" });
                return;
            }
            m_log.diagnostics.push_back(
                { id, NcclTestsSeverity::Warning, line, m_log.file + ":" + std::to_string(line) + ": " + message });
        }

        /// alltoallv_perf (nccl-tests 2.19 on, src/alltoallv.cu) sends each peer its own byte count: by default
        /// more to peers farther away in rank order (NCCL_TESTS_ALLTOALLV_SPREAD=1), or what a traffic matrix
        /// file says, and prints the busiest rank's bandwidth with the size as the bytes each rank sends in
        /// all. Only its uniform pattern (SPREAD=0, no matrix file) is the all-to-all the model knows.
        engine::Status resolveAlltoallv(NcclTestsRun& run, const NcclTestsParseOptions& options,
            const std::string& place, NcclTestsCollectiveSource named)
        {
            const bool knownUniform = run.alltoallvSpread && *run.alltoallvSpread == 0.0 && !run.alltoallvMatrixFile;
            const bool knownIrregular = run.alltoallvMatrixFile || (run.alltoallvSpread && *run.alltoallvSpread > 0.0);
            if (knownUniform) {
                run.collective = engine::CollectiveOp::AllToAll;
                run.collectiveSource = named;
                diag("alltoallv-uniform", run.firstLine,
                    "alltoallv_perf with NCCL_TESTS_ALLTOALLV_SPREAD=0 in the log's environment: every rank sends "
                    "each peer the same bytes, read as an all-to-all");
                return {};
            }
            const std::string pattern = run.alltoallvMatrixFile
                ? "a traffic matrix file, NCCL_TESTS_ALLTOALLV_MATRIX_FILE in the log's environment"
                : run.alltoallvSpread ? "NCCL_TESTS_ALLTOALLV_SPREAD=" + formatSpread(*run.alltoallvSpread)
                    + " in the log's environment: more bytes to peers farther away in rank order"
                                      : "by default more bytes to peers farther away in rank order, "
                                        "NCCL_TESTS_ALLTOALLV_SPREAD=1, or as a traffic matrix file says";
            if (options.collective == engine::CollectiveOp::AllToAll && !knownIrregular) {
                run.collective = engine::CollectiveOp::AllToAll;
                run.collectiveSource = NcclTestsCollectiveSource::Option;
                diag("alltoallv-as-alltoall", run.firstLine,
                    "alltoallv_perf read as a uniform all-to-all as --op alltoall says: right for a run with "
                    "NCCL_TESTS_ALLTOALLV_SPREAD=0; its irregular patterns ("
                        + pattern + ") load some peers more than others, which a uniform all-to-all does not model");
                return {};
            }
            return engine::Status::error(place + ": alltoallv_perf times an irregular all-to-all (" + pattern
                + ") on its busiest rank, and the model's all-to-all is uniform: "
                + (knownIrregular
                        ? std::string("this run cannot be compared")
                        : std::string("a run with NCCL_TESTS_ALLTOALLV_SPREAD=0 is one, read it with --op alltoall")));
        }

        static std::string formatSpread(double spread)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%g", spread);
            return text;
        }

        engine::Status resolve(NcclTestsRun& run, const NcclTestsParseOptions& options)
        {
            m_counts.clear();
            const NcclTestsRow& first = run.rows.front();
            const int line = first.line;
            const std::string place
                = first.pointer.empty() ? m_log.file + ":" + std::to_string(line) : m_log.file + ": " + first.pointer;
            // The binary the output names, else the one the quoted command runs.
            const std::string& name = run.binary.empty() ? run.commandBinary : run.binary;
            const NcclTestsCollectiveSource named
                = run.binary.empty() ? NcclTestsCollectiveSource::CommandLine : NcclTestsCollectiveSource::BinaryName;
            if (!name.empty() && ncclTestsIsAlltoallv(name)) {
                if (auto status = resolveAlltoallv(run, options, place, named); !status.isOk())
                    return status;
            } else if (!name.empty()) {
                run.collective = ncclTestsCollectiveFromName(name);
                run.collectiveSource = named;
                if (!run.collective)
                    diag("unknown-binary", run.firstLine,
                        "\"" + name
                            + "\" is not a benchmark this importer knows; reading the collective from the columns");
            }
            if (!run.collective) {
                const auto candidates
                    = ncclTestsCandidates(run, run.devices.empty() || run.devicesPartial() ? 0 : run.ranks());
                const bool allReduceOrSendRecv = candidates.size() == 2
                    && candidates[0] == engine::CollectiveOp::AllReduce
                    && candidates[1] == engine::CollectiveOp::SendRecv;
                if (candidates.size() == 1) {
                    run.collective = candidates.front();
                    run.collectiveSource = NcclTestsCollectiveSource::ColumnLayout;
                } else if (allReduceOrSendRecv && !options.collective) {
                    // A 2-rank table of a reduction with busbw = algbw (or one whose ranks nothing tells): an
                    // all_reduce_perf's or a sendrecv_perf's. Read as the far more common all_reduce, and said.
                    run.collective = engine::CollectiveOp::AllReduce;
                    run.collectiveSource = NcclTestsCollectiveSource::ColumnLayout;
                    diag("op-ambiguous", first,
                        "the columns fit allreduce (2 ranks) or sendrecv (busbw = algbw at any rank count); read as "
                        "allreduce: if the log is sendrecv_perf's, pass --op sendrecv");
                } else if (options.collective) {
                    run.collective = options.collective;
                    run.collectiveSource = NcclTestsCollectiveSource::Option;
                    if (!candidates.empty()
                        && std::find(candidates.begin(), candidates.end(), *options.collective) == candidates.end())
                        diag("op-conflict", first,
                            std::string("the columns look like ") + listNames(candidates) + ", not "
                                + toString(*options.collective) + " as --op says; using --op");
                } else if (candidates.empty()) {
                    return engine::Status::error(place
                        + ": cannot tell which collective this log measures (its size, count, redop, root and "
                          "busbw/algbw columns fit no nccl-tests benchmark); name it with --op");
                } else if (std::none_of(candidates.begin(), candidates.end(), engine::isCostModelled)) {
                    // --op could only name one the model cannot price either: say so at once.
                    return engine::Status::error(place + ": a " + listNames(candidates) + " table ("
                        + columnEvidence(run, candidates.front()) + "): the collective model has no counterpart for "
                        + (candidates.size() == 2 ? "either" : "any of them")
                        + " (it models allreduce, reducescatter, allgather, broadcast, reduce, alltoall and "
                          "sendrecv), so this log cannot be compared with it");
                } else {
                    return engine::Status::error(place
                        + ": cannot tell which collective this log measures (the log does not name its binary and the "
                          "columns fit "
                        + listNames(candidates) + "); name it with --op");
                }
            }
            if (options.collective && *options.collective != *run.collective)
                diag("op-conflict", first,
                    std::string("the log measures ") + toString(*run.collective) + " but --op says "
                        + toString(*options.collective) + "; using the log's");
            return {};
        }

        void checkRows(NcclTestsRun& run)
        {
            m_counts.clear(); // the parts of a split run are capped one by one
            const engine::CollectiveOp c = *run.collective;
            const int fromBandwidth = ranksFromBandwidthFactor(run, c);
            if (run.devices.empty() && fromBandwidth > 0) {
                run.bandwidthRanks = fromBandwidth;
            } else if (run.devicesPartial()) {
                // An excerpt of the device list: its highest rank number + 1 is a floor. Pages quote the
                // last device lines, so the floor is taken when the printed busbw/algbw agrees with it (at
                // %.2f the ratio cannot tell 1440 from 1450 ranks), busbw/algbw's count when it says more.
                const int listed = run.ranks();
                const NcclTestsMeasurement* m = largestMeasurement(run);
                const bool floorFits = m && factorMatches(*m->algbwGBps, *m->busbwGBps, busBandwidthFactor(c, listed));
                if (!floorFits && fromBandwidth > listed)
                    run.bandwidthRanks = fromBandwidth;
                const std::string basis = run.bandwidthRanks > 0 ? " (busbw/algbw)"
                    : floorFits                                  ? " (the highest rank listed, as busbw/algbw agrees)"
                                                                 : " (the highest rank listed)";
                diag("partial-devices", run.devices.front().line,
                    "the device lines list " + std::to_string(run.listedRanks()) + " rank(s) up to Rank "
                        + std::to_string(listed - 1) + ": an excerpt; taken as " + std::to_string(run.ranks())
                        + " ranks" + basis
                        + (run.excerptRanksPerHost() > 0
                                ? ", on the " + std::to_string(run.nodes()) + " hosts listed, "
                                    + std::to_string(run.excerptRanksPerHost())
                                    + " each (every host lists the first and last rank of its block)"
                                : std::string(", their nodes and GPU from the cluster (--nodes, --gpus-per-node, "
                                              "--gpu or --scenario)")));
                if (!floorFits && fromBandwidth > 0 && fromBandwidth < listed)
                    diag("ranks-mismatch", run.rows.front(),
                        "busbw/algbw implies " + std::to_string(fromBandwidth)
                            + " ranks but the device lines name Rank " + std::to_string(listed - 1));
            } else if (!run.devices.empty() && fromBandwidth > 0 && fromBandwidth != run.ranks())
                diag("ranks-mismatch", run.rows.front(),
                    "busbw/algbw implies " + std::to_string(fromBandwidth) + " ranks but the device lines list "
                        + std::to_string(run.ranks()));
            checkSharedDevices(run);
            const int n = run.ranks();
            if (n <= 0)
                return;
            const double factor = busBandwidthFactor(c, n);
            const double share = algorithmBandwidthShare(c, n);
            for (const auto& row : run.rows) {
                if (const auto ts = ncclTestsTypeSize(row.type); ts && row.count > 0) {
                    const double expected = static_cast<double>(row.count) * *ts * sizeToCountRatio(c, n);
                    if (std::abs(expected - static_cast<double>(row.bytes)) > 0.5)
                        diag("row-size", row,
                            "size " + std::to_string(row.bytes) + " is not count x type size"
                                + (sizeToCountRatio(c, n) > 1 ? " x ranks" : "") + " for " + toString(c));
                }
                for (const NcclTestsMeasurement* m : { row.outOfPlace ? &*row.outOfPlace : nullptr, &row.inPlace }) {
                    if (!m)
                        continue;
                    if (m->timeUs && m->algbwGBps && *m->timeUs > 0) {
                        // algbw = S / t (GB/s = bytes / us / 1e3); %.2f/%.0f/%.1e printing limits precision.
                        const double expected = share * static_cast<double>(row.bytes) / (*m->timeUs * 1e3);
                        if (std::abs(*m->algbwGBps - expected) > 0.011 + 0.06 * expected)
                            diag("algbw-mismatch", row,
                                "algbw " + std::to_string(*m->algbwGBps)
                                    + " GB/s is not size/time = " + std::to_string(expected) + " GB/s");
                    }
                    if (m->algbwGBps && m->busbwGBps && !factorMatches(*m->algbwGBps, *m->busbwGBps, factor))
                        diag("busbw-mismatch", row,
                            "busbw " + std::to_string(*m->busbwGBps) + " GB/s is not algbw x " + std::to_string(factor)
                                + " (the " + toString(c) + " factor for " + std::to_string(n) + " ranks)");
                    if (run.errorColumnIsCount && m->wrong && *m->wrong > 0)
                        // The count is printed as a float by some builds and can be absurd in a damaged log:
                        // format it as a number rather than converting it to an integer type.
                        diag("wrong-elements", row,
                            (*m->wrong < 9e15 ? std::to_string(static_cast<long long>(*m->wrong))
                                              : std::to_string(*m->wrong))
                                + " elements came back wrong (data validation failed); the timing is kept");
                }
            }
        }

        /// Two ranks of one host on the same device (index, and bus id when printed): one GPU timed as two,
        /// e.g. MPI ranks started with faked NCCL_HOSTIDs; the run is no measurement of two GPUs.
        void checkSharedDevices(const NcclTestsRun& run)
        {
            // Keyed by the device index: old builds print the same "[0x00]" for every GPU, so a bus id alone
            // does not tell; where both lines print one, it must agree too.
            std::map<std::pair<std::string, int>, const NcclTestsDevice*> seen;
            for (const auto& d : run.devices) {
                const auto [it, added] = seen.try_emplace({ d.host, d.device }, &d);
                const NcclTestsDevice& other = *it->second;
                if (added || other.rank == d.rank
                    || (!d.busId.empty() && !other.busId.empty() && d.busId != other.busId))
                    continue;
                diag("shared-device", d.line,
                    "Rank " + std::to_string(d.rank) + " and Rank " + std::to_string(other.rank) + " (line "
                        + std::to_string(other.line) + ") both run on " + d.host + " device " + std::to_string(d.device)
                        + (d.busId.empty() ? "" : " [" + d.busId + "]")
                        + ": one GPU timed as two ranks, not a measurement of two GPUs");
                return;
            }
        }

    private:
        NcclTestsLog& m_log;
        std::map<std::string, int> m_counts;
    };

} // namespace

namespace {

    /// `mpirun -np N` of a benchmark built without MPI support starts N independent one-rank jobs:
    /// N headers whose device lists each name only "Rank 0" (nccl-tests src/common.cu prints the ranks
    /// of its own communicator), and busbw 0 (the nccl-tests factor of one rank). Read as one run this
    /// would be an N-rank measurement; it is none.
    engine::Status checkSingletonLaunches(const NcclTestsLog& log)
    {
        int headers = 0, rankZeroLines = 0;
        bool otherRank = false, nonZeroBusbw = false;
        std::set<std::pair<std::string, long long>> processes;
        int firstLine = 0;
        for (const auto& run : log.runs) {
            if (run.threads)
                ++headers;
            for (const auto& d : run.devices) {
                if (d.rank != 0) {
                    otherRank = true;
                    continue;
                }
                ++rankZeroLines;
                processes.insert({ d.host, d.pid });
                if (firstLine == 0)
                    firstLine = d.line;
            }
            if (run.avgBusBwGBps && *run.avgBusBwGBps > 0)
                nonZeroBusbw = true;
            for (const auto& row : run.rows) {
                const NcclTestsMeasurement& m = row.outOfPlace ? *row.outOfPlace : row.inPlace;
                if (m.busbwGBps && *m.busbwGBps > 0)
                    nonZeroBusbw = true;
            }
        }
        if (otherRank || rankZeroLines < 2 || processes.size() < 2 || nonZeroBusbw)
            return {};
        return engine::Status::error(log.file + ":" + std::to_string(firstLine) + ": "
            + std::to_string(processes.size()) + " independent one-rank jobs, not one "
            + std::to_string(processes.size()) + "-rank run: " + std::to_string(std::max(headers, rankZeroLines))
            + " headers each list only Rank 0 (different processes) "
            + "and busbw is 0. mpirun started copies of an nccl-tests binary built without MPI support; rebuild "
              "nccl-tests with MPI=1, or run one process with -g GPUS");
    }

    std::string headerOnlyMessage(const std::string& file, const NcclTestsRun& run)
    {
        std::string what = run.binary.empty() ? std::string("nccl-tests") : run.binary;
        if (const int ranks = run.ranks(); ranks > 0) {
            what += ", " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
            if (const int nodes = run.nodes(); nodes > 0)
                what += " on " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
        }
        return file + ":" + std::to_string(run.firstLine) + ": the benchmark starting here (" + what
            + ") printed its header but no result row: the log ends before its first size (the job hung or "
              "was stopped, or the output was cut)";
    }

    /// nccl-tests -d all / -o all (src/common.cu runTest: every size of the sweep for each data type and
    /// reduction in turn) prints one table of several sweeps: one run per (type, redop), in the order they
    /// appear, so each is fitted and reported on its own (their sizes repeat).
    std::vector<NcclTestsRun> splitByTypeAndReduction(std::vector<NcclTestsRun> runs, NcclTestsLog& log)
    {
        std::vector<NcclTestsRun> out;
        out.reserve(runs.size());
        for (auto& run : runs) {
            std::vector<std::pair<std::string, std::string>> keys;
            for (const auto& row : run.rows)
                if (std::find(keys.begin(), keys.end(), std::pair { row.type, row.redop }) == keys.end())
                    keys.emplace_back(row.type, row.redop);
            if (keys.size() <= 1) {
                out.push_back(std::move(run));
                continue;
            }
            log.diagnostics.push_back({ "run-split", NcclTestsSeverity::Warning, run.firstLine,
                log.file + ":" + std::to_string(run.firstLine) + ": the table holds " + std::to_string(keys.size())
                    + " sweeps (data types or reductions in turn, nccl-tests -d all / -o all): each is read as a run "
                      "of its own" });
            for (const auto& [type, redop] : keys) {
                NcclTestsRun part = run;
                part.rows.clear();
                for (const auto& row : run.rows)
                    if (row.type == type && row.redop == redop)
                        part.rows.push_back(row);
                part.variant = redop.empty() ? type : type + " " + redop;
                out.push_back(std::move(part));
            }
        }
        return out;
    }

} // namespace

engine::Result<NcclTestsLog> finishNcclTestsLog(NcclTestsLog log, const NcclTestsParseOptions& options,
    const std::string& firstBadRow, const std::string& firstFailure)
{
    // Before empty runs are dropped: the jobs' headers may come first and their tables after.
    if (auto status = checkSingletonLaunches(log); !status.isOk())
        return status;
    // The first run that printed a header but no result row (a job that hung or was stopped):
    // described if nothing else in the file explains an empty table.
    std::optional<NcclTestsRun> headerOnly;
    std::vector<NcclTestsRun> kept;
    for (auto& run : log.runs) {
        if (!run.rows.empty()) {
            kept.push_back(std::move(run));
        } else if (!run.binary.empty() || run.threads || !run.columns.empty()) {
            log.diagnostics.push_back({ "run-empty", NcclTestsSeverity::Warning, run.firstLine,
                log.file + ":" + std::to_string(run.firstLine)
                    + ": the benchmark starting here printed no result rows" });
            if (!headerOnly)
                headerOnly = std::move(run);
        }
    }
    log.runs = splitByTypeAndReduction(std::move(kept), log);
    if (log.runs.empty()) {
        if (!firstBadRow.empty())
            return engine::Status::error(firstBadRow);
        if (!firstFailure.empty())
            return engine::Status::error(firstFailure + " (no result rows before the failure)");
        if (headerOnly)
            return engine::Status::error(headerOnlyMessage(log.file, *headerOnly));
        return engine::Status::error(log.file
            + ": no nccl-tests result rows found (expected lines such as "
              "\"  8589934592  2147483648  float  sum  -1  31356  273.95  479.41  0 ...\")");
    }
    RunChecker checker(log);
    // A run whose collective cannot be told fails a file that holds only it; in a file of several
    // runs it is left out with an error diagnostic and the others are kept.
    std::vector<NcclTestsRun> resolved;
    engine::Status firstFailureToResolve;
    for (auto& run : log.runs) {
        if (auto status = checker.resolve(run, options); !status.isOk()) {
            if (firstFailureToResolve.isOk())
                firstFailureToResolve = status;
            log.diagnostics.push_back({ "run-unresolved", NcclTestsSeverity::Error, run.firstLine,
                status.message() + " (this run is left out; the other runs of the file are kept)" });
            ++log.unresolvedRuns;
            continue;
        }
        // Several runs pasted as one table: one run each (or the file is refused where they cannot be told).
        const int firstLine = run.firstLine;
        auto parts = splitHeaderlessRuns(std::move(run), log);
        if (!parts) {
            if (firstFailureToResolve.isOk())
                firstFailureToResolve = engine::Status::error(parts.message());
            log.diagnostics.push_back({ "run-unresolved", NcclTestsSeverity::Error, firstLine,
                parts.message() + " (these rows are left out; the other runs of the file are kept)" });
            ++log.unresolvedRuns;
            continue;
        }
        for (auto& part : *parts) {
            checker.checkRows(part);
            if (part.ranks() == 0 && options.ranks > 0) {
                part.assumedRanks = options.ranks;
                log.diagnostics.push_back({ "ranks-assumed", NcclTestsSeverity::Warning, part.firstLine,
                    log.file + ":" + std::to_string(part.firstLine)
                        + ": the run does not say how many ranks took part (no device lines, header or command, "
                          "and its busbw/algbw holds for any count); taken as "
                        + std::to_string(options.ranks) + " from --nodes x --gpus-per-node" });
            }
            resolved.push_back(std::move(part));
        }
    }
    if (resolved.empty())
        return firstFailureToResolve;
    log.runs = std::move(resolved);
    return log;
}

} // namespace clusterscope::importers
