#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::importers {

/// One meaningful line of an ibnetdiscover dump (comments, blank and key=value lines are dropped).
struct IbLine {
    /// PortsReport: one line of `ibnetdiscover --ports` (infiniband-diags ibnetdiscover.c
    /// dump_ports_report): `SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde
    /// ( 'ib-i1l1s01' - 'o0001 HCA-1' )`, or an unconnected port: `SW 2052 37 0x... 4x ???  'name'`.
    /// It fills nodeType, guid (the port GUID: a switch's ports share one), description, localPort,
    /// lanes, speed and, when connected, peerType, peerGuid, peerPort and peerDescription.
    enum class Kind { NodeHeader, Port, PortsReport, Unrecognised };
    Kind kind = Kind::Unrecognised;
    int lineNumber = 0; ///< 1-based
    // NodeHeader: `Switch 36 "S-<guid>" # "<description>" enhanced port 0 lid 128 lmc 0`
    char nodeType = 0; ///< 'S' switch, 'H' channel adapter (Ca), 'R' router
    int ports = 0;
    std::uint64_t guid = 0;
    std::string description;
    std::uint64_t systemGuid = 0; ///< from the block's `sysimgguid=` line (0 when absent): one per host
    // Port: `[p](portGuid) "S-<peerGuid>"[q](peerPortGuid) # "<peer description>" lid N 4xQDR`
    int localPort = 0;
    char peerType = 0;
    std::uint64_t peerGuid = 0;
    int peerPort = 0;
    std::string peerDescription;
    int lanes = 0; ///< link width, 0 when absent
    std::string speed; ///< SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR ("" when absent)
    std::string text; ///< Unrecognised: the line itself
};

/// Splits an ibnetdiscover dump into lines and reads each one; never fails (unreadable lines come
/// back as Unrecognised with their line number). Handles CRLF, tabs and whitespace-only lines.
std::vector<IbLine> tokenizeIbnetdiscover(std::string_view text);

/// The same lines, handed to `visit` one at a time and not kept (the parser's path: a 50,000-CA dump
/// has half a million lines).
void visitIbnetdiscoverLines(std::string_view text, const std::function<void(const IbLine&)>& visit);

/// Whether `text` is `iblinkinfo` output (infiniband-diags iblinkinfo.c) rather than an ibnetdiscover
/// dump: its first meaningful line is a "CA: <description>:" or "Switch: 0x<guid> <description>:"
/// header, or a `--line` record ("0x<guid> \"<description>\" <lid> <port>[  ] ==( ... )==> ...").
bool looksLikeIblinkinfo(std::string_view text);

/// Whether `text` lists a fabric port by port the way `ibnetdiscover --ports` (its first meaningful
/// line a PortsReport) or `iblinkinfo` (looksLikeIblinkinfo) print it.
bool looksLikePortListing(std::string_view text);

/// `iblinkinfo` output (the per-node default or `--line`) as PortsReport lines: one per port, the
/// node by GUID (a switch's from its header, a CA's port GUID), width, speed (named from the lane rate
/// iblinkinfo prints: 2.5 SDR ... 106.25 NDR, 212.5 XDR, "(FDR10)") and, for a port that is LinkUp,
/// the peer: by GUID in `--line` records, else by the LID and port the default format prints, resolved
/// against the LIDs the output lists (a switch's on each of its port lines, a CA port's on its line).
/// A peer whose LID no listed node holds (an excerpt) is kept under a GUID made from its LID, a switch
/// when its port number is above 2. In `--line` records a node is a switch when its GUID comes with two
/// ports or a port above 2 (a switch's ports share its GUID; iblinkinfo lists every port of a switch).
void visitIblinkinfoLines(std::string_view text, const std::function<void(const IbLine&)>& visit);

} // namespace clusterscope::importers
