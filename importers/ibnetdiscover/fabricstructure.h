#pragma once

#include "importers/ibnetdiscover/importedfabric.h"

#include <string>

namespace clusterscope::importers {

/// Infers the structure of an imported fabric (graph with CAs and switches, embedded CAs already
/// set apart) and flags what departs from it:
/// - parts: switches joined by switch-to-switch cables; the part with the most host CAs is the
///   compute fabric, others are management or storage fabrics when their node descriptions say so
///   ("mgmt", "ufm", "stor", "lustre", ...), else "other";
/// - tiers (tierinference.h); a switch whose description names another tier takes it when every
///   one of its switch cables still joins adjacent tiers (a leaf with no hosts yet); links oriented
///   lower tier first; the tier confidence from up/down
///   consistency and the agreement with tiers named in switch descriptions;
/// - director chassis from blade descriptions ("MF0;<name>:<model>/L05/U1", "/S03/");
/// - pods and cabling defects (podinference.h);
/// - degraded links: narrower or slower than the usual link of the same level (host-leaf,
///   leaf-spine, ...), when at most a tenth of that level's links differ (more is a mixed fabric:
///   one Info diagnostic instead of a flood).
void analyseFabricStructure(ImportedFabric& fabric, const std::string& name);

} // namespace clusterscope::importers
