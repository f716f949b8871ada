#include "importers/nccltests/nccltestsiterations.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace clusterscope::importers {

namespace {

    double mean(const std::vector<double>& v)
    {
        return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    }

} // namespace

bool ncclTestsNoisy(const NcclTestsMeasurement& m, double* meanUs, double* spike)
{
    if (!m.iterations)
        return false;
    const double mean = m.iterations->avgUs.value_or(m.timeUs.value_or(0.0));
    const double ratio = mean > 0 ? m.iterations->maxUs / mean : 0.0;
    if (meanUs)
        *meanUs = mean;
    if (spike)
        *spike = ratio;
    return m.iterations->cvPercent > kNoisyCvPercent || ratio > kSpikeRatio;
}

NcclTestsIterationReport ncclTestsIterationReport(const NcclTestsRun& run)
{
    NcclTestsIterationReport report;
    std::map<int, std::pair<int, double>> slowestCount; // process -> (sizes, summed excess)
    for (const auto& row : run.rows) {
        const bool outOfPlace = row.outOfPlace.has_value();
        const NcclTestsMeasurement& m = outOfPlace ? *row.outOfPlace : row.inPlace;
        if (!m.iterations || row.bytes == 0)
            continue;
        NcclTestsIterationSize s;
        s.bytes = row.bytes;
        s.outOfPlace = outOfPlace;
        s.stats = *m.iterations;
        s.noisy = ncclTestsNoisy(m, &s.meanUs, &s.spike);
        report.noisySizes += s.noisy ? 1 : 0;
        const auto& processes = s.stats.perProcessUs;
        if (processes.size() > 1) {
            report.processes = std::max(report.processes, static_cast<int>(processes.size()));
            std::vector<double> means;
            for (const auto& times : processes)
                means.push_back(mean(times));
            const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
            s.fastestProcess = static_cast<int>(lo - means.begin());
            s.slowestProcess = static_cast<int>(hi - means.begin());
            s.fastestMeanUs = *lo;
            s.slowestMeanUs = *hi;
            if (*lo > 0) {
                auto& [count, excess] = slowestCount[s.slowestProcess];
                ++count;
                excess += *hi / *lo - 1.0;
                ++report.sizesWithProcesses;
            }
        }
        report.sizes.push_back(std::move(s));
    }
    std::sort(report.sizes.begin(), report.sizes.end(),
        [](const NcclTestsIterationSize& a, const NcclTestsIterationSize& b) { return a.bytes < b.bytes; });
    for (const auto& [process, entry] : slowestCount) {
        if (entry.first > report.stragglerSizes) {
            report.straggler = process;
            report.stragglerSizes = entry.first;
            report.stragglerExcess = entry.second / entry.first;
        }
    }
    if (report.straggler >= 0) {
        const int perProcess = std::max(1, run.threads.value_or(1)) * std::max(1, run.gpusPerThread.value_or(1));
        const int firstRank = report.straggler * perProcess;
        for (const auto& d : run.devices) {
            if (d.rank == firstRank) {
                report.stragglerHost = d.host;
                report.stragglerFirstRank = firstRank;
            }
        }
    }
    return report;
}

} // namespace clusterscope::importers
