#pragma once

#include "engine/core/status.h"
#include "importers/ibnetdiscover/importedfabric.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace clusterscope::importers {

/// Builds a fabric from an ibnetdiscover dump: links seen from both ends are merged on (GUID,
/// port); ends reporting different widths keep the narrower one and are flagged degraded;
/// self-loops are flagged; switch-embedded CAs (SHARP aggregation nodes, switch management ports)
/// are set apart from the hosts; then the structure is inferred (fabricstructure.h: parts, tiers,
/// pods, chassis) and the defects flagged against it. Text before the first node header, CRLF,
/// whitespace-only lines and a trailing terminal prompt are tolerated. `name` names the input in
/// messages. Fails (with a line number) only when no node header can be read at all.
engine::Result<ImportedFabric> parseIbnetdiscover(std::string_view text, const std::string& name);

/// "S-<16 hex digits>" / "H-..." as ibnetdiscover names a node.
std::string ibGuidName(char type, std::uint64_t guid);

/// Reads and parses a dump file (gzip allowed).
engine::Result<ImportedFabric> importIbnetdiscoverFile(const std::string& path);

/// Nominal data rate of one lane in Gb/s by InfiniBand speed name (IBTA: SDR 2.5, DDR 5, QDR 10,
/// FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200); 0 when unknown.
double infinibandLaneGbps(std::string_view speed);

} // namespace clusterscope::importers
