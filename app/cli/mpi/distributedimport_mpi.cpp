// import-trace across the processes of an MPI job (Open MPI; the MPI-3.1 standard's collectives).
//
// 1. Process 0 lists the rank files with their sizes and broadcasts the list (MPI_Bcast).
// 2. Every process computes the same size-balanced partition (partitionFilesBySize) and reduces its
//    files to rank summaries: steps, collectives with arrival/exit times, sparse traffic pairs,
//    diagnostics. Raw events never leave the process that parsed them.
// 3. The encoded summaries are gathered on process 0 (MPI_Gather of the sizes, MPI_Gatherv of the
//    bytes in 4 KiB blocks so that a job can gather more than 2 GiB); bytes parsed and parse time
//    are combined with MPI_Reduce for the report.
// 4. Process 0 assembles them exactly as the single-process import does and runs the cross-rank
//    analyses (importers/kineto/tracereduction.h).

#include "app/cli/distributedimport.h"

#include "importers/kineto/kinetoparser.h"
#include "importers/kineto/runloader.h"

// The C API only: the deprecated C++ bindings (removed in MPI-3) do not compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

namespace clusterscope::app {

namespace {

    constexpr int kRoot = 0;
    constexpr std::size_t kBlockBytes = 4096;

    // The file list as bytes: [u8 ok][u64 count]{[u64 size][u32 length][path]}... or [u8 0][message].
    std::string encodeListing(const engine::Result<std::vector<std::string>>& files, std::vector<std::uint64_t>& sizes)
    {
        std::string out;
        if (!files) {
            out.push_back('\0');
            out += files.message();
            return out;
        }
        out.push_back('\1');
        auto pod = [&](auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
        pod(std::uint64_t(files->size()));
        for (const auto& f : *files) {
            std::error_code ec;
            const auto bytes = std::filesystem::file_size(f, ec);
            sizes.push_back(ec ? 0 : std::uint64_t(bytes)); // unreadable: the reader reports it
            pod(sizes.back());
            pod(std::uint32_t(f.size()));
            out += f;
        }
        return out;
    }

    engine::Status decodeListing(
        const std::string& in, std::vector<std::string>& files, std::vector<std::uint64_t>& sizes)
    {
        if (in.empty())
            return engine::Status::error("import-trace: process 0 sent no file list");
        if (in[0] == '\0')
            return engine::Status::error(in.substr(1));
        std::size_t pos = 1;
        auto pod = [&](auto& v) {
            if (in.size() - pos < sizeof v)
                return false;
            std::memcpy(&v, in.data() + pos, sizeof v);
            pos += sizeof v;
            return true;
        };
        std::uint64_t count = 0;
        if (!pod(count))
            return engine::Status::error("import-trace: damaged file list");
        for (std::uint64_t i = 0; i < count; ++i) {
            std::uint64_t size = 0;
            std::uint32_t length = 0;
            if (!pod(size) || !pod(length) || in.size() - pos < length)
                return engine::Status::error("import-trace: damaged file list");
            files.push_back(in.substr(pos, length));
            sizes.push_back(size);
            pos += length;
        }
        return engine::Status::success();
    }

    void broadcast(std::string& bytes, int rank)
    {
        unsigned long long n = bytes.size();
        MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, kRoot, MPI_COMM_WORLD);
        if (rank != kRoot)
            bytes.resize(std::size_t(n));
        // In blocks of at most 1 GiB: MPI counts are int.
        for (std::size_t at = 0; at < bytes.size(); at += std::size_t(1) << 30) {
            const int chunk = int(std::min<std::size_t>(bytes.size() - at, std::size_t(1) << 30));
            MPI_Bcast(bytes.data() + at, chunk, MPI_BYTE, kRoot, MPI_COMM_WORLD);
        }
    }

    double since(std::chrono::steady_clock::time_point t0)
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

} // namespace

bool launchedUnderMpi()
{
    for (const char* name : { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" })
        if (std::getenv(name))
            return true;
    return false;
}

DistributedImport importTracesDistributed(const std::vector<std::string>& paths, CliIo io)
{
    DistributedImport out;
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised)
        MPI_Init(nullptr, nullptr);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    out.root = rank == kRoot;
    out.processes = size;
    const auto t0 = std::chrono::steady_clock::now();

    std::vector<std::string> files;
    std::vector<std::uint64_t> sizes;
    std::string listing;
    if (out.root)
        listing = encodeListing(importers::expandTracePaths(paths), sizes);
    broadcast(listing, rank);
    sizes.clear();
    if (auto status = decodeListing(listing, files, sizes); !status) {
        out.run = status;
        return out;
    }
    if (files.empty()) {
        out.run = engine::Status::error("no trace files given");
        return out;
    }

    const std::vector<int> owner = importers::partitionFilesBySize(sizes, size);
    std::vector<std::size_t> mine;
    std::uint64_t myBytes = 0;
    for (std::size_t i = 0; i < files.size(); ++i)
        if (owner[i] == rank) {
            mine.push_back(i);
            myBytes += sizes[i];
        }
    if (out.root)
        io.err << "import-trace: " << files.size() << " rank files on " << size << " process" << (size == 1 ? "" : "es")
               << "; process 0 reads " << mine.size() << " (" << double(myBytes) / 1e6 << " MB)\n"
               << std::flush;

    importers::KinetoParser parser;
    std::vector<importers::TraceFileReduction> reductions(mine.size());
    auto lastReport = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < mine.size(); ++k) {
        reductions[k] = importers::reduceTraceFile(files[mine[k]], parser);
        // Progress of process 0's share (the shares are balanced by size, so it stands for the job).
        if (out.root && (since(lastReport) >= 2.0 || k + 1 == mine.size())) {
            lastReport = std::chrono::steady_clock::now();
            io.err << "import-trace: process 0 reduced " << k + 1 << " of " << mine.size() << " files ("
                   << int(since(t0)) << " s)\n"
                   << std::flush;
        }
    }
    // Fault injection for the tests: the named process dies before the gather, like a crash would.
    if (const char* abortRank = std::getenv("CLUSTERSCOPE_TEST_ABORT_PROCESS");
        abortRank && std::atoi(abortRank) == rank)
        std::abort();
    const double parseSeconds = since(t0);

    std::vector<std::pair<std::int64_t, const importers::TraceFileReduction*>> items;
    for (std::size_t k = 0; k < mine.size(); ++k)
        items.push_back({ std::int64_t(mine[k]), &reductions[k] });
    std::string encoded = importers::encodeReductions(items);
    reductions.clear();
    const unsigned long long encodedBytes = encoded.size();
    encoded.resize((encoded.size() + kBlockBytes - 1) / kBlockBytes * kBlockBytes, '\0');

    // Job totals for the report: bytes parsed, summary bytes (sums) and the slowest process.
    unsigned long long local[2] = { myBytes, encodedBytes }, total[2] = { 0, 0 };
    MPI_Reduce(local, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, kRoot, MPI_COMM_WORLD);
    double slowest = 0;
    MPI_Reduce(&parseSeconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, kRoot, MPI_COMM_WORLD);

    // Exact lengths first (the blocks are padded), then the blocks.
    std::vector<unsigned long long> lengths(out.root ? std::size_t(size) : 0);
    MPI_Gather(
        &encodedBytes, 1, MPI_UNSIGNED_LONG_LONG, lengths.data(), 1, MPI_UNSIGNED_LONG_LONG, kRoot, MPI_COMM_WORLD);
    MPI_Datatype block;
    MPI_Type_contiguous(int(kBlockBytes), MPI_BYTE, &block);
    MPI_Type_commit(&block);
    const int myBlocks = int(encoded.size() / kBlockBytes);
    std::vector<int> blocks, displacements;
    std::string gathered;
    if (out.root) {
        long long sum = 0;
        for (unsigned long long length : lengths) {
            blocks.push_back(int((length + kBlockBytes - 1) / kBlockBytes));
            displacements.push_back(int(sum));
            sum += blocks.back();
        }
        gathered.resize(std::size_t(sum) * kBlockBytes);
    }
    MPI_Gatherv(encoded.data(), myBlocks, block, gathered.data(), blocks.data(), displacements.data(), block, kRoot,
        MPI_COMM_WORLD);
    MPI_Type_free(&block);
    encoded = {};
    if (!out.root)
        return out;

    io.err << "import-trace: parsed " << double(total[0]) / 1e6 << " MB in " << slowest
           << " s (slowest process); gathered " << double(total[1]) / 1e6 << " MB of rank summaries\n"
           << std::flush;
    std::vector<importers::TraceFileReduction> byFile(files.size());
    std::vector<bool> seen(files.size(), false);
    for (int p = 0; p < size; ++p) {
        const std::string_view part(gathered.data() + std::size_t(displacements[std::size_t(p)]) * kBlockBytes,
            std::size_t(lengths[std::size_t(p)]));
        std::vector<std::pair<std::int64_t, importers::TraceFileReduction>> decoded;
        const engine::Status status = importers::decodeReductions(part, decoded);
        if (!status) {
            out.run = engine::Status::error(
                "import-trace: the summaries of process " + std::to_string(p) + ": " + status.message());
            return out;
        }
        for (auto& [index, reduction] : decoded) {
            if (index < 0 || std::size_t(index) >= files.size() || seen[std::size_t(index)]) {
                out.run = engine::Status::error("import-trace: process " + std::to_string(p) + " sent file index "
                    + std::to_string(index) + " that is not its own");
                return out;
            }
            seen[std::size_t(index)] = true;
            byFile[std::size_t(index)] = std::move(reduction);
        }
    }
    for (std::size_t i = 0; i < files.size(); ++i)
        if (!seen[i]) {
            out.run = engine::Status::error("import-trace: no process reported " + files[i]);
            return out;
        }
    out.run = importers::assembleReducedRun(files, std::move(byFile));
    return out;
}

void endDistributedImport(CliIo io)
{
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised)
        return;
    // Peak resident memory of every process (getrusage: kilobytes on Linux), reported by process 0.
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const long long peakKb = usage.ru_maxrss;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long long> peaks(rank == kRoot ? std::size_t(size) : 0);
    MPI_Gather(&peakKb, 1, MPI_LONG_LONG, peaks.data(), 1, MPI_LONG_LONG, kRoot, MPI_COMM_WORLD);
    if (rank == kRoot) {
        io.err << "import-trace: peak memory per process (MB):";
        for (long long kb : peaks)
            io.err << " " << (kb + 512) / 1024;
        io.err << "\n" << std::flush;
    }
    MPI_Finalize();
}

} // namespace clusterscope::app
