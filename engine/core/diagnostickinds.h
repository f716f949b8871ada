#pragma once

// The one registry of per-record diagnostic ids that engine and importers report (house style:
// "per-record problems in an import are counted in diagnostics: id, severity, one-sentence
// explanation"). Every Diagnostics::add names one of these kinds, so an id has one severity and
// one explanation wherever it is raised, and the CLI, GUI and report can explain an id they show.
// Ids are stable (stored in projects, matched by scripts): add new kinds, never rename.

#include <cstdint>
#include <span>
#include <string_view>

namespace clusterscope::engine {

enum class DiagnosticSeverity : std::uint8_t { Info, Warning, Error };

const char* toString(DiagnosticSeverity severity);

/// One kind of diagnostic: its stable id ("<source>.<what>"), its severity and one sentence that
/// explains what it means for the results (the message of each occurrence says where).
struct DiagnosticKind {
    std::string_view id;
    DiagnosticSeverity severity;
    std::string_view explanation;
};

namespace diagnostic {

    // Importing many trace files (importers/kineto/runloader, nsys).
    inline constexpr DiagnosticKind kImportFileFailed { "import.file_failed", DiagnosticSeverity::Error,
        "A trace file could not be read; the run is analysed without that rank." };
    inline constexpr DiagnosticKind kImportRanksWithoutTrace { "import.ranks_without_trace",
        DiagnosticSeverity::Warning,
        "Ranks within the traces' world size have no readable trace: their collectives are seen from the other ranks "
        "only." };
    inline constexpr DiagnosticKind kImportRankAssigned { "import.rank_assigned", DiagnosticSeverity::Warning,
        "Traces that state no rank, or a rank another trace already has, were numbered in file order." };

    // PyTorch Kineto traces.
    inline constexpr DiagnosticKind kKinetoNcclOpUnknown { "kineto.nccl_op_unknown", DiagnosticSeverity::Warning,
        "NCCL kernels whose operation neither the kernel name nor the collective args tell count as communication of "
        "unknown kind." };
    inline constexpr DiagnosticKind kKinetoNcclSizeUnknown { "kineto.nccl_size_unknown", DiagnosticSeverity::Warning,
        "NCCL kernels without a message size have no bandwidth and are left out of the traffic matrix." };
    inline constexpr DiagnosticKind kKinetoMultipleDevices { "kineto.multiple_devices", DiagnosticSeverity::Warning,
        "GPU work on more than one device in one rank file is all attributed to that rank." };
    inline constexpr DiagnosticKind kKinetoBadTimestamp { "kineto.bad_timestamp", DiagnosticSeverity::Warning,
        "Events with a missing, malformed or negative ts/dur were skipped." };

    // Nsight Systems SQLite exports.
    inline constexpr DiagnosticKind kNsysNcclSizeUnknown { "nsys.nccl_size_unknown", DiagnosticSeverity::Warning,
        "NCCL kernels without an enclosing NCCL NVTX range that states a message size have no bandwidth." };

    // ibnetdiscover fabric dumps.
    inline constexpr DiagnosticKind kIbLeadingText { "ibnetdiscover.leading_text", DiagnosticSeverity::Info,
        "Text before the first node header was skipped." };
    inline constexpr DiagnosticKind kIbUnrecognisedLine { "ibnetdiscover.unrecognised_line",
        DiagnosticSeverity::Warning, "Lines that are neither a node header nor a port were skipped." };
    inline constexpr DiagnosticKind kIbPortConflict { "ibnetdiscover.port_conflict", DiagnosticSeverity::Warning,
        "A port is reported connected to two different peers; the first report is kept." };
    inline constexpr DiagnosticKind kIbNodeWithoutHeader { "ibnetdiscover.node_without_header",
        DiagnosticSeverity::Info,
        "Nodes seen only as a peer (no block of their own) were added from the peer's description." };
    inline constexpr DiagnosticKind kIbUnknownSpeed { "ibnetdiscover.unknown_speed", DiagnosticSeverity::Warning,
        "A link speed is unknown; the link's rate is 0 and it carries no bandwidth in the model." };
    inline constexpr DiagnosticKind kIbTierUnknown { "ibnetdiscover.tier_unknown", DiagnosticSeverity::Warning,
        "Switches with no path to a channel adapter have no inferable tier." };
    inline constexpr DiagnosticKind kIbMissingLinks { "ibnetdiscover.missing_links", DiagnosticSeverity::Warning,
        "Inter-switch links are missing compared with the fabric's regular pattern." };
    inline constexpr DiagnosticKind kIbTrailingPrompt { "ibnetdiscover.trailing_prompt", DiagnosticSeverity::Info,
        "A shell prompt after the last node (a terminal capture) was ignored." };
    inline constexpr DiagnosticKind kIbTierFromName { "ibnetdiscover.tier_from_name", DiagnosticSeverity::Info,
        "Switches the wiring alone cannot place (no hosts below them) take the tier their names state." };
    inline constexpr DiagnosticKind kIbMixedLinkRates { "ibnetdiscover.mixed_link_rates", DiagnosticSeverity::Info,
        "Links of one level run at several widths or speeds by design; they are not flagged one by one." };
    inline constexpr DiagnosticKind kIbEmbeddedCaUnplaced { "ibnetdiscover.embedded_ca_unplaced",
        DiagnosticSeverity::Info,
        "Switch-embedded adapters (SHARP aggregation nodes, management ports) whose switch is not in the dump." };

    // Run analysis (engine/run).
    inline constexpr DiagnosticKind kRunNoProfilerSteps { "run.no_profiler_steps", DiagnosticSeverity::Info,
        "A trace without ProfilerStep annotations is reported as one step 0." };
    inline constexpr DiagnosticKind kRunActivityOutsideSteps { "run.activity_outside_steps", DiagnosticSeverity::Info,
        "GPU activities launched outside every ProfilerStep are left out of the step breakdown." };
    inline constexpr DiagnosticKind kRunCollectiveMismatch { "run.collective_mismatch", DiagnosticSeverity::Warning,
        "Ranks disagree on the operation of a process group's n-th collective; those calls are left out of the "
        "cross-rank statistics." };
    inline constexpr DiagnosticKind kRunTrafficTooLarge { "run.traffic_too_large", DiagnosticSeverity::Warning,
        "The measured traffic matrix is not computed above its rank limit." };
    inline constexpr DiagnosticKind kRunTrafficUnknownBytes { "run.traffic_unknown_bytes", DiagnosticSeverity::Info,
        "Collectives without a message size are left out of the traffic matrix." };
    inline constexpr DiagnosticKind kRunTrafficUnknownPeers { "run.traffic_unknown_peers", DiagnosticSeverity::Info,
        "Collectives whose group members or peer are unknown are left out of the traffic matrix." };

} // namespace diagnostic

/// Every registered kind, in the order above.
std::span<const DiagnosticKind> diagnosticKinds();

/// The registered kind with this id, or nullptr (e.g. an id stored by a newer version).
const DiagnosticKind* findDiagnosticKind(std::string_view id);

} // namespace clusterscope::engine
