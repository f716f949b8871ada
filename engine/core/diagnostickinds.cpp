#include "engine/core/diagnostickinds.h"

#include <array>

namespace clusterscope::engine {

const char* toString(DiagnosticSeverity severity)
{
    switch (severity) {
    case DiagnosticSeverity::Info:
        return "info";
    case DiagnosticSeverity::Warning:
        return "warning";
    case DiagnosticSeverity::Error:
        return "error";
    }
    return "warning";
}

namespace {
    using namespace diagnostic;
    constexpr std::array kKinds { kImportFileFailed, kImportRanksWithoutTrace, kImportRankAssigned,
        kKinetoNcclOpUnknown, kKinetoNcclSizeUnknown, kKinetoMultipleDevices, kKinetoBadTimestamp, kNsysNcclSizeUnknown,
        kIbLeadingText, kIbUnrecognisedLine, kIbPortConflict, kIbNodeWithoutHeader, kIbUnknownSpeed, kIbTierUnknown,
        kIbMissingLinks, kIbTrailingPrompt, kIbTierFromName, kIbMixedLinkRates, kIbEmbeddedCaUnplaced,
        kRunNoProfilerSteps, kRunActivityOutsideSteps, kRunCollectiveMismatch, kRunTrafficTooLarge,
        kRunTrafficUnknownBytes, kRunTrafficUnknownPeers };
} // namespace

std::span<const DiagnosticKind> diagnosticKinds() { return kKinds; }

const DiagnosticKind* findDiagnosticKind(std::string_view id)
{
    for (const DiagnosticKind& kind : kKinds)
        if (kind.id == id)
            return &kind;
    return nullptr;
}

} // namespace clusterscope::engine
