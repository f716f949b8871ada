#include "importers/common/fileformat.h"

#include "importers/common/inputfile.h"
#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"

#include <filesystem>
#include <fstream>

namespace clusterscope::importers {

namespace {

    bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

    std::string_view skipSpace(std::string_view s)
    {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
            s.remove_prefix(1);
        if (s.substr(0, 3) == "\xEF\xBB\xBF") // UTF-8 byte order mark
            s.remove_prefix(3);
        return s;
    }

} // namespace

FileFormat detectFileFormat(std::string_view head)
{
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16))
        return FileFormat::SqliteDatabase;
    const std::string_view text = skipSpace(head);
    if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
        if (contains(text, "\"clusterscope-scenario\""))
            return FileFormat::ScenarioJson;
        // Kineto writes "schemaVersion", "deviceProperties", "distributedInfo" before "traceEvents";
        // a bare Chrome trace starts with "traceEvents" or is an array of events with "ph".
        if (contains(text, "\"traceEvents\"") || contains(text, "\"schemaVersion\"")
            || contains(text, "\"deviceProperties\"") || contains(text, "\"distributedInfo\"")
            || (text.front() == '[' && contains(text, "\"ph\"")))
            return FileFormat::KinetoTrace;
        return FileFormat::OtherJson;
    }
    // ibnetdiscover (infiniband-diags): "vendid=0x..", "switchguid=", then "Switch\t36 ..." and
    // "Ca\t1 ..." records (man ibnetdiscover).
    if (contains(text, "vendid=") || contains(text, "switchguid=") || contains(text, "\nSwitch\t")
        || text.rfind("Switch\t", 0) == 0 || contains(text, "\nCa\t") || contains(text, "# Topology file"))
        return FileFormat::IbnetdiscoverDump;
    // The same fabric as `ibnetdiscover --ports` ("SW  1719 10 0x... 4x EDR - CA ...") or `iblinkinfo`
    // ("CA: name:", "Switch: 0x... name:", "--line" records) print it: the importer reads those too.
    if (looksLikePortListing(text))
        return FileFormat::IbnetdiscoverDump;
    // nccl-tests (NVIDIA/nccl-tests src/common.cu): "# nThread 1 nGpus 1 ..." and the table header.
    if (contains(text, "# nThread") || contains(text, "#  Rank") || contains(text, "out-of-place")
        || contains(text, "# Avg bus bandwidth"))
        return FileFormat::NcclTestsLog;
    return FileFormat::Unknown;
}

FileFormat detectFileFormatOf(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return FileFormat::Directory;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return FileFormat::Unknown;
    std::string head(4096, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(in.gcount()));
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f
        && static_cast<unsigned char>(head[1]) == 0x8b) {
        // Gzipped: inflate the whole file (traces are read whole anyway) and look at its start.
        auto whole = readInputFile(path);
        if (!whole)
            return FileFormat::Unknown;
        return detectFileFormat(std::string_view(*whole).substr(0, 4096));
    }
    return detectFileFormat(head);
}

const char* describe(FileFormat format)
{
    switch (format) {
    case FileFormat::Unknown:
        return "a file of unknown kind";
    case FileFormat::Directory:
        return "a folder";
    case FileFormat::KinetoTrace:
        return "a PyTorch profiler (Kineto) trace";
    case FileFormat::ScenarioJson:
        return "a ClusterScope scenario";
    case FileFormat::OtherJson:
        return "a JSON file that is neither a trace nor a scenario";
    case FileFormat::SqliteDatabase:
        return "an SQLite database (a ClusterScope project or an Nsight Systems export)";
    case FileFormat::NcclTestsLog:
        return "an nccl-tests log";
    case FileFormat::IbnetdiscoverDump:
        return "an ibnetdiscover fabric dump";
    }
    return "?";
}

} // namespace clusterscope::importers
