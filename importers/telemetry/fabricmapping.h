#pragma once

// Attaching telemetry series to a fabric's link ends: host ports by host name and device (the name
// ibnetdiscover shows as a CA's node description, "node017 mlx5_4"), switch ports by node GUID (UFM's
// node_guid) or node description / built label ("leaf-5"), GPUs by host name and index.

#include "engine/fabric/fabricgraph.h"
#include "importers/telemetry/promclient.h"
#include "importers/telemetry/sourceprofile.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace clusterscope::importers {

/// How a built fabric's servers and NICs are named on the telemetry side (an imported fabric uses
/// its node descriptions). Host h (0-based) is prefix + (h + first) zero-padded to `width` digits;
/// NIC rail r is devicePrefix + (r + firstDevice).
struct HostNaming {
    std::string prefix = "node";
    int width = 3;
    int first = 1;
    std::string devicePrefix = "mlx5_";
    int firstDevice = 0;
    /// Parses "PREFIX[:WIDTH[:FIRST]]" ("node:3:1", "gpu-node-:3:1").
    static engine::Result<HostNaming> parse(const std::string& spec);
    std::string hostName(int host) const;
};

struct LinkEnd {
    engine::LinkId link = engine::kNoId;
    int end = 0; ///< 0 = FabricLink::a, 1 = b
};

class FabricMapping {
public:
    /// Indexes `graph`; NICs and GPUs without a label get one ("node001 mlx5_0", "node001 gpu0") so
    /// that reports name them as the telemetry does.
    FabricMapping(engine::FabricGraph& graph, const HostNaming& naming);

    /// The link end a series describes, or nothing with `why` set (one sentence).
    std::optional<LinkEnd> map(const SourceProfile& profile, const PromLabels& labels, std::string& why) const;

private:
    std::optional<LinkEnd> portEnd(engine::NodeId node, int port, std::string& why) const;

    const engine::FabricGraph& m_graph;
    std::map<std::pair<std::string, std::string>, engine::NodeId> m_nics; // (host, device)
    std::map<std::pair<std::string, int>, engine::NodeId> m_gpus; // (host, index)
    std::unordered_map<std::uint64_t, engine::NodeId> m_switchByGuid;
    std::unordered_map<std::string, engine::NodeId> m_switchByName;
    std::unordered_map<std::uint64_t, LinkEnd> m_ports; // node << 16 | port
    std::unordered_map<engine::NodeId, LinkEnd> m_nvlink; // GPU -> its NVLink
};

} // namespace clusterscope::importers
