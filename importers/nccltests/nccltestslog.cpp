#include "importers/nccltests/nccltestslog.h"

#include <algorithm>
#include <map>
#include <set>

namespace clusterscope::importers {

void readNcclTestsEnvironment(std::string_view assignment, NcclTestsRun& run)
{
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos)
        return;
    const std::string_view name = assignment.substr(0, eq);
    std::string_view value = assignment.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
        value = value.substr(1, value.size() - 2);
    if (name == "NCCL_ALGO")
        run.ncclAlgo = std::string(value);
    else if (name == "NCCL_TESTS_ALLTOALLV_MATRIX_FILE")
        run.alltoallvMatrixFile = true;
    else if (name == "NCCL_TESTS_ALLTOALLV_SPREAD")
        run.alltoallvSpread = ncclTestsAlltoallvSpread(value);
}

const char* toString(NcclTestsCollectiveSource source)
{
    switch (source) {
    case NcclTestsCollectiveSource::BinaryName:
        return "binary_name";
    case NcclTestsCollectiveSource::CommandLine:
        return "command_line";
    case NcclTestsCollectiveSource::ColumnLayout:
        return "column_layout";
    case NcclTestsCollectiveSource::Option:
        return "option";
    }
    return "?";
}

int NcclTestsRun::ranks() const
{
    if (const int listed = listedRanks(); listed > 0) {
        int highest = 0;
        for (const auto& d : devices)
            highest = std::max(highest, d.rank);
        return highest + 1 > listed ? std::max(highest + 1, bandwidthRanks) : listed;
    }
    if (bandwidthRanks > 0)
        return bandwidthRanks;
    if (commandRanks > 0)
        return commandRanks;
    if (assumedRanks > 0)
        return assumedRanks;
    // nThread x nGpus of the header: 0 when either is not positive or the product passes 2^24 ranks (no
    // such job; a damaged header must not overflow an int).
    if (threads && gpusPerThread && *threads > 0 && *gpusPerThread > 0) {
        const long long product = 1LL * *threads * *gpusPerThread;
        return product <= (1LL << 24) ? static_cast<int>(product) : 0;
    }
    return 0;
}

int NcclTestsRun::listedRanks() const
{
    std::set<int> ranks;
    for (const auto& d : devices)
        ranks.insert(d.rank);
    return static_cast<int>(ranks.size());
}

bool NcclTestsRun::devicesPartial() const
{
    const int listed = listedRanks();
    return listed > 0 && ranks() > listed;
}

int NcclTestsRun::excerptRanksPerHost() const
{
    if (!devicesPartial())
        return 0;
    std::map<std::string, std::pair<int, int>> span; // host -> lowest, highest rank listed
    for (const auto& d : devices) {
        auto [it, added] = span.try_emplace(d.host, d.rank, d.rank);
        it->second = { std::min(it->second.first, d.rank), std::max(it->second.second, d.rank) };
    }
    const int total = ranks();
    const int hosts = static_cast<int>(span.size());
    if (hosts < 1 || total % hosts != 0)
        return 0;
    const int block = total / hosts;
    std::set<int> firsts;
    for (const auto& [host, s] : span) {
        // Each host lists the first and the last rank of its own block.
        if (s.first % block != 0 || s.second != s.first + block - 1)
            return 0;
        firsts.insert(s.first);
    }
    return static_cast<int>(firsts.size()) == hosts ? block : 0;
}

int NcclTestsRun::nodes() const
{
    if (devicesPartial() && excerptRanksPerHost() == 0)
        return 0;
    std::set<std::string> hosts;
    for (const auto& d : devices)
        hosts.insert(d.host);
    return static_cast<int>(hosts.size());
}

int NcclTestsRun::ranksPerNode() const
{
    if (devicesPartial())
        return excerptRanksPerHost();
    std::map<std::string, std::set<int>> perHost;
    for (const auto& d : devices)
        perHost[d.host].insert(d.rank);
    int most = 0;
    for (const auto& [host, ranks] : perHost)
        most = std::max(most, static_cast<int>(ranks.size()));
    return most;
}

std::string NcclTestsRun::gpuName() const
{
    std::map<std::string, int> votes;
    for (const auto& d : devices)
        ++votes[d.name];
    std::string best;
    int bestVotes = 0;
    for (const auto& [name, n] : votes) {
        if (n > bestVotes) {
            best = name;
            bestVotes = n;
        }
    }
    return best;
}

} // namespace clusterscope::importers
