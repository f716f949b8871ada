#pragma once

#include "engine/core/status.h"
#include "engine/fabric/fabricgraph.h"

#include <string>
#include <vector>

namespace clusterscope::importers {

/// What to add around a built fabric when writing it as an ibnetdiscover dump.
struct IbnetdiscoverWriteOptions {
    /// Every switch lists its SHARP aggregation node as a CA on port radix + 1 (as NVIDIA Quantum
    /// switches do: "Switch 41", port 41 -> "Mellanox Technologies Aggregation Node").
    bool sharpAggregationNodes = false;
    int managementSwitches = 0; ///< a separate management fabric: this many switches in a chain (2 cables each)
    int managementHosts = 0; ///< CAs on the management switches ("mgmt01 mlx5_0", ...)
    std::string switchModel = "MQM8700"; ///< in switch descriptions "MF0;<label>:<model>/U1"
    bool crlf = false; ///< CRLF line ends (a dump captured through a terminal)
    std::string trailingPrompt; ///< a last line without a newline, e.g. "[root@ufm ~]# "
};

/// Writes the switched network of `graph` (switches, NICs and Host nodes as CAs; GPUs, NVSwitches,
/// PCIe and NVLink are not part of an InfiniBand subnet) in ibnetdiscover's format: per node the
/// vendid/devid/sysimgguid lines, a `Switch N "S-<guid>" # "<description>" enhanced port 0 lid L lmc 0`
/// or `Ca N "H-<guid>" # "<description>"` header and one line per cabled port, every cable listed
/// from both ends. Links flagged missing are left out. Width and speed come from each link's lanes
/// and per-lane rate (IBTA names: 2.5 SDR ... 200 XDR Gb/s per lane). GUIDs are derived from node
/// ids (switch: 0xb8599f0300000000 + 16 id, its aggregation node + 8; CA: 0x0c42a10300000000 + 32 id,
/// port p's GUID + p - 1).
/// Switch descriptions are "MF0;<label>:<model>/U1"; a NIC's is "<host> mlx5_<rail>" with host
/// "node<NNNNN>" (1-based); a Host node's is "<label> mlx5_0".
std::string writeIbnetdiscover(const engine::FabricGraph& graph, const IbnetdiscoverWriteOptions& options);

/// The node description writeIbnetdiscover gives a switch, NIC or Host node.
std::string writtenDescription(const engine::FabricGraph& graph, engine::NodeId node, const std::string& switchModel);

/// The GUID writeIbnetdiscover gives a node (switch or CA).
std::uint64_t writtenGuid(const engine::FabricGraph& graph, engine::NodeId node);

/// A defect planted in a built fabric before writing it (round-trip tests, demonstrations).
struct PlantedDefect {
    enum class Kind {
        Remove, ///< the cable is gone (link flagged missing: not written)
        DegradeWidth, ///< the link trained to 1x
        DegradeSpeed, ///< the link runs one IB generation slower (HDR -> EDR)
        Swap, ///< the far ends (b side) of `link` and `other` are exchanged: two miswired cables
    };
    Kind kind = Kind::Remove;
    engine::LinkId link = engine::kNoId;
    engine::LinkId other = engine::kNoId; ///< Swap only
};

/// Applies the defects to `graph`; fails naming the defect when a link id is out of range or a swap
/// joins a link with itself.
engine::Status plantDefects(engine::FabricGraph& graph, const std::vector<PlantedDefect>& defects);

} // namespace clusterscope::importers
