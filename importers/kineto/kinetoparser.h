#pragma once

#include "engine/core/status.h"
#include "engine/run/runmodel.h"

#include <memory>
#include <string>

namespace clusterscope::importers {

/// Parses one rank's PyTorch profiler (Kineto) Chrome-trace JSON into a RankTrace.
///
/// Keeps GPU activities (kernels, memcpy, memset), NCCL calls with their sizes and groups (from the
/// kernel's collective args, or for older traces from the enclosing record_param_comms /
/// nccl:* host ranges found through the launch's correlation id), ProfilerStep ranges and the
/// distributedInfo / deviceProperties metadata. Timestamps are read exactly from their decimal text
/// into int64 ns; relative traces get baseTimeNanoseconds added. Uses simdjson's On-Demand API; one
/// parser per thread (not thread-safe), reusable across files.
class KinetoParser {
public:
    KinetoParser();
    ~KinetoParser();
    KinetoParser(const KinetoParser&) = delete;
    KinetoParser& operator=(const KinetoParser&) = delete;

    /// `text` must have at least kPadding bytes of capacity past its size (see readPaddedTrace).
    /// `name` names the input in messages. Errors carry the byte offset; per-record problems go to
    /// the diagnostics.
    engine::Result<engine::RankTrace> parse(const std::string& text, const std::string& name,
        engine::Diagnostics& diagnostics);

    /// Bytes of readable slack simdjson needs after the text.
    static constexpr std::size_t kPadding = 64;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// Reads a trace file (gzip detected by magic bytes) into a string with kPadding spare capacity.
engine::Result<std::string> readPaddedTrace(const std::string& path);

} // namespace clusterscope::importers
