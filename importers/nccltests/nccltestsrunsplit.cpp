#include "importers/nccltests/nccltestsrunsplit.h"

#include "importers/nccltests/nccltestsruncheck.h"

#include <string>
#include <utility>

namespace clusterscope::importers {

namespace {

    /// Rows [first, end) of a run, and what they imply.
    struct Part {
        std::size_t first = 0;
        std::size_t end = 0;
        bool restart = false; ///< starts at a size below the previous row's (else after a banner, a repeated
                              ///< size, or first)
        int bannerLine = 0; ///< the banner line before it (0: none)
        int ranks = 0; ///< from its busbw/algbw (0: cannot tell)
    };

    NcclTestsRun withRows(const NcclTestsRun& run, const Part& part)
    {
        NcclTestsRun out = run;
        out.rows.assign(
            run.rows.begin() + static_cast<long>(part.first), run.rows.begin() + static_cast<long>(part.end));
        out.separatorLines.clear();
        out.bandwidthRanks = 0;
        return out;
    }

    /// "a", "a and b", "a, b and c".
    std::string listed(const std::vector<std::string>& items)
    {
        std::string s;
        for (std::size_t i = 0; i < items.size(); ++i)
            s += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
        return s;
    }

} // namespace

engine::Result<std::vector<NcclTestsRun>> splitHeaderlessRuns(NcclTestsRun run, NcclTestsLog& log)
{
    std::vector<NcclTestsRun> out;
    // -J JSON output holds one run per file, with its own header; only text tables are pasted together.
    if (run.rows.size() < 2 || !run.collective || !run.rows.front().pointer.empty()) {
        out.push_back(std::move(run));
        return out;
    }
    const engine::CollectiveOp c = *run.collective;
    std::vector<Part> parts(1);
    for (std::size_t i = 1; i < run.rows.size(); ++i) {
        const NcclTestsRow& prev = run.rows[i - 1];
        const NcclTestsRow& row = run.rows[i];
        // nccl-tests sweeps sizes upwards. A size printed twice is a weak sign, as a banner is: a line
        // pasted twice, a repeated one-size run; it only cuts where the rank counts differ.
        const bool restart = row.bytes < prev.bytes;
        const bool repeated = row.bytes == prev.bytes && row.bytes > 0;
        int banner = 0;
        for (const int l : run.separatorLines) {
            if (l > prev.line && l < row.line) {
                banner = l;
                break;
            }
        }
        if (!restart && !repeated && banner == 0)
            continue;
        parts.back().end = i;
        parts.push_back({ i, 0, restart, banner, 0 });
    }
    parts.back().end = run.rows.size();
    if (parts.size() == 1) {
        out.push_back(std::move(run));
        return out;
    }
    for (auto& p : parts)
        p.ranks = ranksFromBandwidthFactor(withRows(run, p), c);
    // A banner inside one sweep (an Open MPI warning frame between rows) or a size printed twice: the parts
    // it alone separates are one run when their rank counts agree or cannot be told.
    std::vector<Part> joined { parts.front() };
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const Part& p = parts[k];
        Part& last = joined.back();
        if (!p.restart && (p.ranks == last.ranks || p.ranks == 0 || last.ranks == 0)) {
            last.end = p.end;
            last.ranks = ranksFromBandwidthFactor(withRows(run, last), c);
        } else {
            joined.push_back(p);
        }
    }
    if (joined.size() == 1) {
        out.push_back(std::move(run));
        return out;
    }

    std::vector<std::string> ranges, counts;
    bool differ = false, banners = false;
    for (const auto& p : joined) {
        const int a = run.rows[p.first].line;
        const int b = run.rows[p.end - 1].line;
        ranges.push_back(a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b));
        counts.push_back(p.ranks > 0 ? std::to_string(p.ranks) : std::string("?"));
        differ = differ || (p.ranks > 0 && joined.front().ranks > 0 && p.ranks != joined.front().ranks);
        banners = banners || p.bannerLine > 0;
    }
    const int firstRowLine = run.rows.front().line;
    const std::string where = log.file + ":" + std::to_string(firstRowLine) + ": ";
    const std::string what = "lines " + listed(ranges) + " are " + std::to_string(joined.size())
        + " runs without headers of their own (the sizes start again"
        + (banners ? std::string(", or a banner line stands between them") : std::string()) + ")";
    const std::string ranks = " with " + listed(counts) + " ranks by busbw/algbw";
    if (differ && !run.devices.empty())
        return engine::Status::error(where + what + ranks + ", but the device lines (line "
            + std::to_string(run.devices.front().line) + " on) list " + std::to_string(run.ranks())
            + " ranks for all of them: which run they describe cannot be told; split the file into one log per run");
    log.diagnostics.push_back({ "run-split", NcclTestsSeverity::Warning, firstRowLine,
        where + what + (differ ? ranks : std::string()) + ": each is read as a run of its own" });
    for (std::size_t k = 0; k < joined.size(); ++k) {
        const Part& p = joined[k];
        NcclTestsRun part = withRows(run, p);
        if (k > 0)
            part.firstLine = p.bannerLine > 0 ? p.bannerLine : run.rows[p.first].line;
        // The summary lines follow the last table.
        if (k + 1 < joined.size()) {
            part.avgBusBwGBps.reset();
            part.outOfBounds.reset();
        }
        out.push_back(std::move(part));
    }
    return out;
}

} // namespace clusterscope::importers
