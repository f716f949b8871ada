#pragma once

#include "engine/core/status.h"
#include "engine/run/runmodel.h"

#include <memory>
#include <string>
#include <string_view>

namespace clusterscope::importers {

class ByteSource;

/// Parses one rank's PyTorch profiler (Kineto) Chrome-trace JSON into a RankTrace.
///
/// Keeps GPU activities (kernels, memcpy, memset), NCCL calls with their sizes and groups (from the
/// kernel's collective args, or for older traces from the enclosing record_param_comms /
/// nccl:* host ranges found through the launch's correlation id), ProfilerStep ranges and the
/// distributedInfo / deviceProperties metadata. Timestamps are read exactly from their decimal text
/// into int64 ns; relative traces get baseTimeNanoseconds added. The input is streamed: a splitter
/// (tracejsonsplitter.h) cuts traceEvents into batches of a few MB that simdjson's On-Demand API
/// parses one at a time. One parser per thread (not thread-safe), reusable across files.
class KinetoParser {
public:
    KinetoParser();
    ~KinetoParser();
    KinetoParser(const KinetoParser&) = delete;
    KinetoParser& operator=(const KinetoParser&) = delete;

    /// Parses a trace held in memory. `name` names the input in messages. Errors carry the byte
    /// offset; per-record problems go to the diagnostics.
    engine::Result<engine::RankTrace> parse(
        std::string_view text, const std::string& name, engine::Diagnostics& diagnostics);
    /// Streams a trace file (gzip inflated on the fly): memory stays bounded by a few MB of text
    /// whatever the file size, plus the records kept.
    engine::Result<engine::RankTrace> parseFile(const std::string& path, engine::Diagnostics& diagnostics);
    /// `blockBytes`: how much is read at a time (4 MB; less for small inputs in memory).
    engine::Result<engine::RankTrace> parse(ByteSource& source, const std::string& name,
        engine::Diagnostics& diagnostics, std::size_t blockBytes = std::size_t(4) << 20);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace clusterscope::importers
