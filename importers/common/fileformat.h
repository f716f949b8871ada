#pragma once

// What kind of input a file is, from its content rather than its name: the GUI and the CLI route
// a file to the right importer (or say where it goes) instead of failing in the wrong parser with
// "byte 0: expected a JSON object".

#include <string>
#include <string_view>

namespace clusterscope::importers {

enum class FileFormat {
    Unknown,
    Directory, ///< a folder (of rank traces)
    KinetoTrace, ///< PyTorch profiler / Kineto Chrome trace JSON ("traceEvents")
    ScenarioJson, ///< "format": "clusterscope-scenario"
    OtherJson, ///< JSON of another kind
    SqliteDatabase, ///< SQLite 3 file: a ClusterScope project or an Nsight Systems export
    NcclTestsLog, ///< nccl-tests output ("# nThread", "#  Rank", "out-of-place")
    IbnetdiscoverDump, ///< ibnetdiscover topology ("vendid=", "Switch\t", "Ca\t"), --ports report or iblinkinfo
};

/// Identifies `head`, the first bytes of a file (4 KiB are plenty), already inflated if gzipped.
FileFormat detectFileFormat(std::string_view head);
/// Reads the start of `path` (inflating gzip) and identifies it; Unknown when it cannot be read.
FileFormat detectFileFormatOf(const std::string& path);
/// "an ibnetdiscover fabric dump", ... for messages.
const char* describe(FileFormat format);

} // namespace clusterscope::importers
