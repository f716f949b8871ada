#pragma once

#include "engine/fabric/fabricgraph.h"
#include "engine/run/diagnostics.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clusterscope::importers {

/// A problem found in a real (or planned vs real) fabric.
struct FabricFlag {
    enum class Kind { Missing, Degraded, SelfLoop, Miswired, Extra, FewUplinks };
    FabricFlag() = default;
    FabricFlag(Kind k, std::vector<std::string> p, std::string m,
        engine::DiagnosticSeverity s = engine::DiagnosticSeverity::Warning, std::string pat = {},
        std::vector<std::string> sw = {})
        : kind(k)
        , ports(std::move(p))
        , message(std::move(m))
        , severity(s)
        , pattern(std::move(pat))
        , switches(std::move(sw))
    {
    }
    Kind kind = Kind::Missing;
    std::vector<std::string> ports; ///< "S-<guid>/P<n>" (ibnetdiscover) or "<name>/P<n>" (plan); P0 = unknown port
    std::string message; ///< one sentence
    engine::DiagnosticSeverity severity = engine::DiagnosticSeverity::Warning;
    /// What the flag is, without its place ("leaf-spine cable missing"): flags sharing kind and
    /// pattern are listed as one line with a count.
    std::string pattern;
    std::vector<std::string> switches; ///< descriptions of the switches involved (first = the one flagged)
};

/// "missing", "degraded", "self_loop", "miswired", "extra", "few_uplinks" (the CLI's JSON spelling).
const char* toString(FabricFlag::Kind kind);

/// A channel adapter that belongs to a switch rather than to a host: the SHARP aggregation node a
/// Quantum switch lists on its extra port ("Mellanox Technologies Aggregation Node"), or a managed
/// switch's own management port. Kept out of the graph (not a host, not a tier hint).
struct EmbeddedCa {
    enum class Kind { SharpAggregationNode, SwitchManagement };
    Kind kind = Kind::SharpAggregationNode;
    std::uint64_t guid = 0;
    std::string description;
    engine::NodeId hostSwitch = engine::kNoId; ///< the switch it sits in
    int switchPort = 0;
};

/// A group of switches of one tier that share their up-neighbourhood (a pod's leaves, a plane of
/// spines), with the switches of the tier above they cable to and the pattern that cabling follows.
struct SwitchGroup {
    int tier = 0; ///< tier of the lower switches
    int index = 0; ///< group number within the tier (0-based)
    std::vector<engine::NodeId> lower; ///< switches of `tier`
    std::vector<engine::NodeId> upper; ///< switches of `tier + 1` whose down-links mostly come from `lower`
    int linksPerPair = 0; ///< cables between each lower and each upper switch; 0 = not a regular mesh
    int uplinksPerSwitch = 0; ///< usual uplink count of a lower switch (mode)
};

/// A director (chassis switch: CS7500, MCS8500, ...) whose leaf and spine blades ibnetdiscover
/// lists as separate switches ("MF0;<name>:<model>/L05/U1", ".../S03/U1"): one logical switch.
struct Chassis {
    std::string name;
    std::string model;
    std::vector<engine::NodeId> leafBlades;
    std::vector<engine::NodeId> spineBlades;
};

/// A connected set of switches (switch-to-switch cables) with its hosts: the compute fabric, and
/// any separate management or storage fabric captured in the same dump.
struct FabricPart {
    enum class Role { Compute, Management, Storage, Other };
    Role role = Role::Compute;
    std::vector<engine::NodeId> switches;
    std::int64_t hostCas
        = 0; ///< cables from host channel adapters to these switches (an HCA with two ports counts twice)
    int tiers = 0; ///< switch tiers found in the part
    std::string why; ///< why the role was chosen (one phrase)
};

const char* toString(FabricPart::Role role);
const char* toString(EmbeddedCa::Kind kind);

/// What the importer inferred about the fabric's structure.
struct FabricStructure {
    std::vector<EmbeddedCa> embedded;
    std::vector<FabricPart> parts; ///< compute fabric first
    std::vector<SwitchGroup> groups; ///< by tier, then index
    std::vector<Chassis> chassis;
    /// Share of switch-to-switch cables that join adjacent tiers (1 = a clean up/down hierarchy);
    /// -1 when there is only one tier.
    double upDownConsistency = -1.0;
    int switchesNamingTier = 0; ///< switches whose description names a tier (leaf, spine, core, ...)
    int namesAgreeing = 0; ///< of those, how many the graph puts in the named tier
    double tierConfidence = 0.0; ///< 0..1: consistency x name agreement (each when known)
};

/// A fabric read from ibnetdiscover: switches (kind Switch, tiers inferred, `group` = pod), channel
/// adapters (kind Nic, one per CA, `host` numbered by the host name in the description), links
/// de-duplicated. Links flagged missing are inferred gaps (no ports known); self-looped cables are
/// reported in `flags` but kept out of the graph (a link from a switch to itself carries no traffic).
/// Switch-embedded CAs are in `structure.embedded`, not in the graph.
struct ImportedFabric {
    engine::FabricGraph graph;
    std::vector<FabricFlag> flags;
    engine::Diagnostics diagnostics;
    FabricStructure structure;
};

} // namespace clusterscope::importers
