#pragma once

#include "engine/core/status.h"
#include "importers/ibnetdiscover/importedfabric.h"

#include <string>
#include <string_view>

namespace clusterscope::importers {

/// Builds a fabric from an ibnetdiscover dump (notes/fabrics.md "ibnetdiscover"): links seen from
/// both ends are merged on (GUID, port); ends reporting different widths keep the narrower one and
/// are flagged degraded, as are links narrower than the fabric's usual width; self-loops are
/// flagged; text before the first node header and whitespace-only lines are tolerated; switch tiers
/// come from the hop distance to the channel adapters (leaf = adjacent to a CA); a leaf with fewer
/// links to an upper-tier switch than its peers have gets missing links. `name` names the input in
/// messages. Fails (with a line number) only when no node header can be read at all.
engine::Result<ImportedFabric> parseIbnetdiscover(std::string_view text, const std::string& name);

/// Reads and parses a dump file (gzip allowed).
engine::Result<ImportedFabric> importIbnetdiscoverFile(const std::string& path);

/// Nominal data rate of one lane in Gb/s by InfiniBand speed name (IBTA: SDR 2.5, DDR 5, QDR 10,
/// FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200); 0 when unknown.
double infinibandLaneGbps(std::string_view speed);

} // namespace clusterscope::importers
