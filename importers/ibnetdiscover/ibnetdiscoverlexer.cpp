#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace clusterscope::importers {

namespace {
    struct Cursor {
        std::string_view s;
        std::size_t i = 0;

        bool atEnd() const { return i >= s.size(); }
        char peek() const { return atEnd() ? '\0' : s[i]; }
        void skipSpace()
        {
            while (!atEnd() && (s[i] == ' ' || s[i] == '\t'))
                ++i;
        }
        bool accept(char c)
        {
            if (peek() != c)
                return false;
            ++i;
            return true;
        }
        bool acceptWord(std::string_view w)
        {
            if (s.substr(i, w.size()) != w)
                return false;
            i += w.size();
            return true;
        }
        bool readInt(int& out)
        {
            const std::size_t start = i;
            long v = 0;
            while (!atEnd() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 9)
                v = v * 10 + (s[i++] - '0');
            out = int(v);
            return i > start;
        }
        bool readHex(std::uint64_t& out)
        {
            const std::size_t start = i;
            out = 0;
            while (!atEnd() && std::isxdigit(static_cast<unsigned char>(s[i])) && i - start < 16) {
                const char c = char(std::tolower(static_cast<unsigned char>(s[i++])));
                out = out * 16 + std::uint64_t(c <= '9' ? c - '0' : c - 'a' + 10);
            }
            return i > start;
        }
        bool readQuoted(std::string& out)
        {
            if (!accept('"'))
                return false;
            const std::size_t end = s.find('"', i);
            if (end == std::string_view::npos)
                return false;
            out.assign(s.substr(i, end - i));
            i = end + 1;
            return true;
        }
        // "S-0002c9020040c7a8" -> type and GUID.
        bool readNodeName(char& type, std::uint64_t& guid)
        {
            if (!accept('"'))
                return false;
            type = peek();
            if (type != 'S' && type != 'H' && type != 'R')
                return false;
            ++i;
            if (!accept('-') || !readHex(guid))
                return false;
            return accept('"');
        }
    };

    // The comment of a port line: `# "peer description" lid 9 4xQDR` (switch ports) or
    // `# lid 27 lmc 0 "peer description" lid 174 4xQDR` (CA ports). Width x speed is the last token.
    void readPortComment(std::string_view comment, IbLine& line)
    {
        const std::size_t q1 = comment.find('"');
        if (q1 != std::string_view::npos) {
            const std::size_t q2 = comment.find('"', q1 + 1);
            if (q2 != std::string_view::npos) {
                line.peerDescription.assign(comment.substr(q1 + 1, q2 - q1 - 1));
                comment = comment.substr(q2 + 1);
            }
        }
        std::size_t end = comment.size();
        while (end > 0 && std::isspace(static_cast<unsigned char>(comment[end - 1])))
            --end;
        std::size_t start = end;
        while (start > 0 && !std::isspace(static_cast<unsigned char>(comment[start - 1])))
            --start;
        const std::string_view token = comment.substr(start, end - start);
        const std::size_t x = token.find_first_of("xX");
        if (x == std::string_view::npos || x == 0 || x > 2) // 1x, 2x, 4x, 8x, 12x
            return;
        int lanes = 0;
        for (std::size_t k = 0; k < x; ++k) {
            if (!std::isdigit(static_cast<unsigned char>(token[k])))
                return;
            lanes = lanes * 10 + (token[k] - '0');
        }
        line.lanes = lanes;
        line.speed.assign(token.substr(x + 1));
    }

    IbLine readLine(std::string_view raw, int number);

    /// "CA" / "SW" / "RT" of a ports report as the node type the topology format uses ('H', 'S', 'R').
    char portsReportType(Cursor& c)
    {
        if (c.acceptWord("CA"))
            return 'H';
        if (c.acceptWord("SW"))
            return 'S';
        if (c.acceptWord("RT"))
            return 'R';
        return 0;
    }

    /// `<type> <lid> <port> 0x<guid>` of a ports report line.
    bool readPortsReportEnd(Cursor& c, char& type, int& port, std::uint64_t& guid)
    {
        type = portsReportType(c);
        int lid = 0;
        if (type == 0 || (c.peek() != ' ' && c.peek() != '\t'))
            return false;
        c.skipSpace();
        if (!c.readInt(lid))
            return false;
        c.skipSpace();
        if (!c.readInt(port))
            return false;
        c.skipSpace();
        return c.acceptWord("0x") && c.readHex(guid);
    }

    /// `'text'` of a ports report (the node descriptions).
    bool readSingleQuoted(Cursor& c, std::string& out)
    {
        if (!c.accept('\''))
            return false;
        const std::size_t end = c.s.find('\'', c.i);
        if (end == std::string_view::npos)
            return false;
        out.assign(c.s.substr(c.i, end - c.i));
        c.i = end + 1;
        return true;
    }

    /// One line of `ibnetdiscover --ports`; Unrecognised when it is not one.
    IbLine readPortsReportLine(std::string_view raw, int number)
    {
        IbLine line;
        line.lineNumber = number;
        Cursor c { raw };
        c.skipSpace();
        if (!readPortsReportEnd(c, line.nodeType, line.localPort, line.guid))
            return line;
        c.skipSpace();
        // Width ("4x", "12x", "??") and speed ("EDR", "FDR10", "???").
        const std::size_t widthStart = c.i;
        while (!c.atEnd() && c.peek() != ' ' && c.peek() != '\t')
            ++c.i;
        const std::string_view width = raw.substr(widthStart, c.i - widthStart);
        c.skipSpace();
        const std::size_t speedStart = c.i;
        while (!c.atEnd() && c.peek() != ' ' && c.peek() != '\t')
            ++c.i;
        const std::string_view speed = raw.substr(speedStart, c.i - speedStart);
        if (width.empty() || speed.empty())
            return line;
        if (width.size() >= 2 && (width.back() == 'x' || width.back() == 'X')) {
            int lanes = 0;
            for (std::size_t k = 0; k + 1 < width.size(); ++k) {
                if (!std::isdigit(static_cast<unsigned char>(width[k]))) {
                    lanes = 0;
                    break;
                }
                lanes = lanes * 10 + (width[k] - '0');
            }
            line.lanes = lanes;
        }
        if (speed.find('?') == std::string_view::npos)
            line.speed.assign(speed);
        c.skipSpace();
        if (c.peek() == '\'') { // an unconnected port: its node's description only
            if (!readSingleQuoted(c, line.description))
                return line;
            line.kind = IbLine::Kind::PortsReport;
            return line;
        }
        if (!c.accept('-'))
            return line;
        c.skipSpace();
        if (!readPortsReportEnd(c, line.peerType, line.peerPort, line.peerGuid))
            return line;
        c.skipSpace();
        if (c.accept('(')) {
            c.skipSpace();
            if (!readSingleQuoted(c, line.description))
                return line;
            c.skipSpace();
            if (!c.accept('-'))
                return line;
            c.skipSpace();
            if (!readSingleQuoted(c, line.peerDescription))
                return line;
        }
        line.kind = IbLine::Kind::PortsReport;
        return line;
    }

    IbLine readLineOrUnrecognised(std::string_view raw, int number)
    {
        IbLine line = readLine(raw, number);
        if (line.kind != IbLine::Kind::Unrecognised)
            return line;
        IbLine u; // no half-read fields
        u.lineNumber = number;
        u.text.assign(raw);
        return u;
    }

    IbLine readLine(std::string_view raw, int number)
    {
        IbLine line; // `text` is only kept for unrecognised lines (readLineOrUnrecognised)
        line.lineNumber = number;
        Cursor c { raw };
        c.skipSpace();
        if (c.peek() == '[') {
            // Port line.
            c.accept('[');
            std::uint64_t ignored = 0;
            if (!c.readInt(line.localPort) || !c.accept(']'))
                return line;
            if (c.accept('(') && (!c.readHex(ignored) || !c.accept(')')))
                return line;
            c.skipSpace();
            if (!c.readNodeName(line.peerType, line.peerGuid) || !c.accept('[') || !c.readInt(line.peerPort)
                || !c.accept(']'))
                return line;
            if (c.accept('(') && (!c.readHex(ignored) || !c.accept(')')))
                return line;
            c.skipSpace();
            if (!c.atEnd() && c.peek() != '#')
                return line;
            if (c.accept('#'))
                readPortComment(raw.substr(c.i), line);
            line.kind = IbLine::Kind::Port;
            return line;
        }
        if (c.peek() == 'C' || c.peek() == 'S' || c.peek() == 'R') {
            if (IbLine report = readPortsReportLine(raw, number); report.kind == IbLine::Kind::PortsReport)
                return report;
        }
        char type = 0;
        if (c.acceptWord("Switch"))
            type = 'S';
        else if (c.acceptWord("Ca"))
            type = 'H';
        else if (c.acceptWord("Rt"))
            type = 'R';
        if (type == 0)
            return line;
        c.skipSpace();
        char nameType = 0;
        if (!c.readInt(line.ports))
            return line;
        c.skipSpace();
        if (!c.readNodeName(nameType, line.guid))
            return line;
        c.skipSpace();
        if (c.accept('#')) {
            c.skipSpace();
            c.readQuoted(line.description);
        }
        line.nodeType = type;
        line.kind = IbLine::Kind::NodeHeader;
        return line;
    }
}

namespace {
    /// Lines of `text` without their line ends; blank lines are skipped. `visit(line, number)`.
    template <typename F> void forEachLine(std::string_view text, F&& visit)
    {
        int number = 0;
        std::size_t pos = 0;
        while (pos < text.size()) {
            std::size_t end = text.find('\n', pos);
            if (end == std::string_view::npos)
                end = text.size();
            std::string_view raw = text.substr(pos, end - pos);
            pos = end + 1;
            ++number;
            if (!raw.empty() && raw.back() == '\r')
                raw.remove_suffix(1);
            std::size_t first = 0;
            while (first < raw.size() && std::isspace(static_cast<unsigned char>(raw[first])))
                ++first;
            if (first < raw.size() && !visit(raw, number))
                return;
        }
    }
} // namespace

void visitIbnetdiscoverLines(std::string_view text, const std::function<void(const IbLine&)>& visit)
{
    std::uint64_t pendingSystemGuid = 0;
    forEachLine(text, [&](std::string_view raw, int number) {
        std::size_t first = 0;
        while (std::isspace(static_cast<unsigned char>(raw[first])))
            ++first; // forEachLine hands on lines with a non-blank character only
        if (raw[first] == '#')
            return true; // comment
        // key=value metadata: vendid=, devid=, sysimgguid=, switchguid=, caguid=, routerguid=
        const std::size_t eq = raw.find('=');
        if (eq != std::string_view::npos && raw.find_first_of(" \t\"[") > eq) {
            if (raw.substr(first, eq - first) == "sysimgguid") {
                Cursor c { raw, eq + 1 };
                c.acceptWord("0x");
                if (!c.readHex(pendingSystemGuid))
                    pendingSystemGuid = 0;
            }
            return true;
        }
        IbLine line = readLineOrUnrecognised(raw, number);
        if (line.kind == IbLine::Kind::NodeHeader) {
            line.systemGuid = pendingSystemGuid;
            pendingSystemGuid = 0;
        }
        visit(line);
        return true;
    });
}

namespace {

    /// One iblinkinfo port record, before its peer is resolved.
    struct LinkInfoPort {
        int lineNumber = 0;
        char type = 0; ///< 'S' or 'H'; 0 = not known yet (--line)
        std::uint64_t guid = 0; ///< switch GUID or CA port GUID
        std::string description;
        int lid = 0;
        int port = 0;
        bool up = false;
        int lanes = 0;
        std::string speed;
        std::uint64_t peerGuid = 0; ///< --line only
        int peerLid = 0;
        int peerPort = 0;
        std::string peerDescription;
    };

    /// The IB speed name of a lane rate as iblinkinfo prints it ("14.0625" -> FDR); "" when unknown.
    std::string speedOfLaneGbps(double gbps, bool fdr10)
    {
        if (fdr10)
            return "FDR10";
        static const struct {
            double gbps;
            const char* name;
        } kRates[] = { { 2.5, "SDR" }, { 5.0, "DDR" }, { 10.0, "QDR" }, { 14.0625, "FDR" }, { 25.78125, "EDR" },
            { 53.125, "HDR" }, { 106.25, "NDR" }, { 212.5, "XDR" } };
        for (const auto& r : kRates)
            if (std::abs(gbps - r.gbps) <= 0.02 * r.gbps)
                return r.name;
        return {};
    }

    /// `<lid> <port>[..]` (the port's own or the peer's), then the `==( ... )==>` link state or the
    /// peer's description. Returns false when the text is not such a record.
    bool readLidPort(Cursor& c, int& lid, int& port)
    {
        c.skipSpace();
        if (!c.readInt(lid))
            return false;
        c.skipSpace();
        if (!c.readInt(port) || !c.accept('['))
            return false;
        const std::size_t close = c.s.find(']', c.i);
        if (close == std::string_view::npos)
            return false;
        c.i = close + 1;
        return true;
    }

    /// The part of a port record from its own LID on: `<lid> <port>[  ] ==( 4X 25.78125 Gbps Active/
    /// LinkUp)==> [0x<peer guid>] <peer lid> <peer port>[  ] "<peer description>" ( )`.
    bool readLinkInfoRecord(Cursor& c, bool peerGuid, LinkInfoPort& r)
    {
        if (!readLidPort(c, r.lid, r.port))
            return false;
        c.skipSpace();
        if (!c.acceptWord("==("))
            return false;
        const std::size_t close = c.s.find(")==>", c.i);
        if (close == std::string_view::npos)
            return false;
        const std::string_view state = c.s.substr(c.i, close - c.i);
        c.i = close + 4;
        r.up = state.find("LinkUp") != std::string_view::npos;
        if (!r.up)
            return true; // "Down/ Polling": no peer
        Cursor st { state };
        st.skipSpace();
        int lanes = 0;
        if (st.readInt(lanes) && (st.accept('X') || st.accept('x'))) {
            r.lanes = lanes;
            st.skipSpace();
            const std::size_t start = st.i;
            while (!st.atEnd() && (std::isdigit(static_cast<unsigned char>(st.peek())) || st.peek() == '.'))
                ++st.i;
            const std::string number(state.substr(start, st.i - start));
            char* end = nullptr;
            const double gbps = number.empty() ? 0.0 : std::strtod(number.c_str(), &end);
            r.speed = speedOfLaneGbps(gbps, state.find("FDR10") != std::string_view::npos);
        }
        c.skipSpace();
        if (peerGuid) {
            if (!c.acceptWord("0x") || !c.readHex(r.peerGuid))
                return false;
        }
        if (!readLidPort(c, r.peerLid, r.peerPort))
            return false;
        c.skipSpace();
        return c.readQuoted(r.peerDescription);
    }
}

bool looksLikeIblinkinfo(std::string_view text)
{
    bool result = false;
    forEachLine(text, [&result](std::string_view raw, int) {
        Cursor c { raw };
        c.skipSpace();
        if (c.acceptWord("CA: ") || c.acceptWord("Switch: 0x")) {
            result = raw.back() == ':';
        } else if (c.acceptWord("0x")) {
            std::uint64_t guid = 0;
            result = c.readHex(guid) && raw.find("==(") != std::string_view::npos
                && raw.find(")==>") != std::string_view::npos;
        }
        return false; // the first meaningful line decides
    });
    return result;
}

bool looksLikePortListing(std::string_view text)
{
    if (looksLikeIblinkinfo(text))
        return true;
    bool report = false;
    forEachLine(text, [&report](std::string_view raw, int number) {
        report = readPortsReportLine(raw, number).kind == IbLine::Kind::PortsReport;
        return false; // the first meaningful line decides
    });
    return report;
}

void visitIblinkinfoLines(std::string_view text, const std::function<void(const IbLine&)>& visit)
{
    std::vector<LinkInfoPort> ports;
    std::vector<IbLine> unrecognised; // handed on after the ports, as the parser counts them
    const auto notRead = [&unrecognised](std::string_view raw, int number) {
        IbLine u;
        u.lineNumber = number;
        u.text.assign(raw);
        unrecognised.push_back(std::move(u));
    };
    char type = 0;
    std::uint64_t guid = 0;
    std::string description;
    forEachLine(text, [&](std::string_view raw, int number) {
        Cursor c { raw };
        c.skipSpace();
        LinkInfoPort r;
        r.lineNumber = number;
        const bool ca = c.acceptWord("CA: ");
        if (ca || c.acceptWord("Switch: ")) {
            // "CA: <description>:" / "Switch: 0x<guid> <description>:"
            type = ca ? 'H' : 'S';
            guid = 0;
            if (type == 'S' && (!c.acceptWord("0x") || !c.readHex(guid)))
                type = 0;
            c.skipSpace();
            description.assign(raw.substr(c.i));
            if (!description.empty() && description.back() == ':')
                description.pop_back();
            return true;
        }
        if (c.peek() == '0' && c.s.substr(c.i, 2) == "0x") {
            // A CA port ("0x<port guid> <lid> <port>[..] ...") or a --line record
            // ("0x<guid> \"<description>\" <lid> <port>[..] ... 0x<peer guid> ...").
            c.acceptWord("0x");
            if (!c.readHex(r.guid)) {
                notRead(raw, number);
                return true;
            }
            c.skipSpace();
            if (c.peek() == '"') {
                c.readQuoted(r.description);
                r.description.erase(0, r.description.find_first_not_of(' ')); // --line pads names to the left
                if (readLinkInfoRecord(c, true, r))
                    ports.push_back(std::move(r));
                else
                    notRead(raw, number);
                return true;
            }
            r.type = type == 'H' ? 'H' : 0;
            r.description = description;
            if (type == 'H' && readLinkInfoRecord(c, false, r))
                ports.push_back(std::move(r));
            else
                notRead(raw, number);
            return true;
        }
        r.type = 'S';
        r.guid = guid;
        r.description = description;
        if (type == 'S' && readLinkInfoRecord(c, false, r))
            ports.push_back(std::move(r));
        else
            notRead(raw, number);
        return true;
    });

    // Types of --line nodes and the LID each listed port answers on. A switch's ports share its GUID, a CA
    // port has its own: a GUID listed with two ports or a port above 2 is a switch.
    std::unordered_map<std::uint64_t, int> firstPortOf;
    std::unordered_map<std::uint64_t, char> typeOf;
    for (const LinkInfoPort& p : ports) {
        if (p.type != 0)
            continue;
        const auto [it, inserted] = firstPortOf.emplace(p.guid, p.port);
        if (p.port > 2 || (!inserted && it->second != p.port))
            typeOf[p.guid] = 'S';
    }
    struct Holder {
        std::uint64_t guid;
        char type;
        std::string description;
    };
    std::unordered_map<int, Holder> byLid;
    for (LinkInfoPort& p : ports) {
        if (p.type == 0)
            p.type = typeOf.count(p.guid) ? 'S' : 'H';
        if (p.lid > 0)
            byLid.emplace(p.lid, Holder { p.guid, p.type, p.description });
    }
    for (const LinkInfoPort& p : ports) {
        IbLine line;
        line.kind = IbLine::Kind::PortsReport;
        line.lineNumber = p.lineNumber;
        line.nodeType = p.type;
        line.guid = p.guid;
        line.description = p.description;
        line.localPort = p.port;
        if (p.up) {
            line.lanes = p.lanes;
            line.speed = p.speed;
            line.peerPort = p.peerPort;
            line.peerDescription = p.peerDescription;
            const auto held = byLid.find(p.peerLid);
            if (p.peerGuid != 0) {
                line.peerGuid = p.peerGuid;
                line.peerType = typeOf.count(p.peerGuid) || p.peerPort > 2 ? 'S' : 'H';
            } else if (held != byLid.end()) {
                line.peerGuid = held->second.guid;
                line.peerType = held->second.type;
            } else {
                // Not listed (an excerpt): a GUID of its own from the LID, outside the IEEE OUI range.
                line.peerGuid = 0xFFFF000000000000ull | std::uint64_t(p.peerLid);
                line.peerType = p.peerPort > 2 ? 'S' : 'H';
            }
        }
        visit(line);
    }
    for (const IbLine& u : unrecognised)
        visit(u);
}

std::vector<IbLine> tokenizeIbnetdiscover(std::string_view text)
{
    std::vector<IbLine> lines;
    visitIbnetdiscoverLines(text, [&](const IbLine& l) { lines.push_back(l); });
    return lines;
}

} // namespace clusterscope::importers
