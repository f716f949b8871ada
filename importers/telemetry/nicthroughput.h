#pragma once

// Host NIC throughput over an imported run's window, for the run's timeline: the run's absolute time
// span (Kineto traces carry wall-clock times: absolute `ts` or relative ones plus
// baseTimeNanoseconds, which the importer adds) and, from a Prometheus-compatible server, the bytes
// each host's NICs sent per second over that span. The rate and the per-host sum are computed by the
// server (irate over a range of a few steps, summed by host), so one small query_range answer per
// NIC profile comes back whatever the cluster size. Points the server has no samples for are NaN:
// gaps are gaps, never zeros.

#include "engine/core/status.h"
#include "engine/run/runmodel.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/sourceprofile.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// [startS, endS] of a run in seconds since the epoch (all ranks' GPU activities and steps). An
/// error when the run has no events or its times are relative (before 2001 or after 2100: a trace
/// without wall-clock time cannot be laid beside telemetry).
engine::Result<std::pair<double, double>> runWallClockWindowS(const engine::Run& run);

/// The host that wrote a PyTorch profiler trace, from its file name: torch.profiler's
/// tensorboard_trace_handler (torch/profiler/profiler.py) names the files
/// "{worker_name}.{time_ms}.pt.trace.json[.gz]" with worker_name "{socket.gethostname()}_{os.getpid()}".
/// Empty when the name does not follow that pattern (a renamed file: the host is unknown).
std::string traceFileHost(const std::string& path);

/// Whether a trace's host and a telemetry host name the same machine: equal, or equal up to the
/// first dot (a short name against a fully qualified one). Case-insensitive (DNS names, RFC 4343).
bool sameHost(const std::string& a, const std::string& b);

struct HostThroughput {
    std::string host; ///< as the telemetry names it (the profile's host label; "instance" without :port)
    std::vector<double> txBytesPerS; ///< per step, NaN where the server has no samples
};

struct NicThroughput {
    double startS = 0.0; ///< time of point 0 (seconds since the epoch)
    double stepS = 1.0;
    std::string metric; ///< the byte counter(s) read
    std::vector<HostThroughput> hosts; ///< sorted by host name
};

/// Per-host NIC transmit throughput (B/s) over [startS, endS] at `stepS`, from every NIC profile's
/// tx byte counter the server has. An error names the server and the query; a server with none of
/// the NIC counters is an error saying so.
engine::Result<NicThroughput> fetchNicThroughput(
    const PromClient& client, const std::vector<SourceProfile>& profiles, double startS, double endS, double stepS);

} // namespace clusterscope::importers
