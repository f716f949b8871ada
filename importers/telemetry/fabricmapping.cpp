#include "importers/telemetry/fabricmapping.h"

#include <charconv>
#include <cstdio>

namespace clusterscope::importers {

using engine::FabricGraph;
using engine::FabricNode;
using engine::LinkId;
using engine::NodeId;
using engine::NodeKind;
using engine::Result;
using engine::Status;

Result<HostNaming> HostNaming::parse(const std::string& spec)
{
    HostNaming n;
    const auto c1 = spec.find(':');
    n.prefix = spec.substr(0, c1);
    if (c1 != std::string::npos) {
        const auto c2 = spec.find(':', c1 + 1);
        const std::string w = spec.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
        auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), n.width);
        if (ec != std::errc() || p != w.data() + w.size() || n.width < 0 || n.width > 12)
            return Status::error("host naming \"" + spec + "\": WIDTH must be 0 to 12");
        if (c2 != std::string::npos) {
            const std::string f = spec.substr(c2 + 1);
            auto [q, ec2] = std::from_chars(f.data(), f.data() + f.size(), n.first);
            if (ec2 != std::errc() || q != f.data() + f.size())
                return Status::error("host naming \"" + spec + "\": FIRST must be an integer");
        }
    }
    if (n.prefix.empty())
        return Status::error("host naming \"" + spec + "\": the PREFIX is empty");
    return n;
}

std::string HostNaming::hostName(int host) const
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*d", width, host + first);
    return prefix + buf;
}

namespace {

    std::pair<std::string, std::string> splitDescription(const std::string& label)
    {
        const auto sp = label.find(' ');
        if (sp == std::string::npos)
            return { label, {} };
        std::string second = label.substr(sp + 1);
        second = second.substr(0, second.find(' '));
        return { label.substr(0, sp), second };
    }

    bool parseInt(std::string_view s, int& out)
    {
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return ec == std::errc() && p == s.data() + s.size() && !s.empty();
    }

} // namespace

FabricMapping::FabricMapping(FabricGraph& g, const HostNaming& naming)
    : m_graph(g)
{
    std::map<int, std::string> hostNames;
    for (NodeId id = 0; id < g.nodeCount(); ++id) {
        const FabricNode& n = g.node(id);
        if (n.kind == NodeKind::Nic) {
            std::string host;
            std::string device;
            if (!g.label(id).empty()) {
                std::tie(host, device) = splitDescription(g.label(id));
                // The kernel's default CA description is "<host> HCA-<n>" (1-based).
                int index = 0;
                if (device.rfind("HCA-", 0) == 0 && parseInt(std::string_view(device).substr(4), index))
                    m_nics.emplace(
                        std::make_pair(host, naming.devicePrefix + std::to_string(index - 1 + naming.firstDevice)), id);
            } else {
                host = naming.hostName(n.host);
                device = naming.devicePrefix + std::to_string(n.rail + naming.firstDevice);
                g.setLabel(id, host + " " + device);
            }
            m_nics.emplace(std::make_pair(host, device), id);
            if (n.host >= 0)
                hostNames.emplace(n.host, host);
        } else if (n.kind == NodeKind::Switch) {
            if (n.guid)
                m_switchByGuid.emplace(n.guid, id);
            if (!g.label(id).empty())
                m_switchByName.emplace(g.label(id), id);
        }
    }
    for (NodeId id = 0; id < g.nodeCount(); ++id) {
        const FabricNode& n = g.node(id);
        if (n.kind != NodeKind::Gpu || n.host < 0)
            continue;
        auto it = hostNames.find(n.host);
        const std::string host = it != hostNames.end() ? it->second : naming.hostName(n.host);
        m_gpus.emplace(std::make_pair(host, int(n.rail)), id);
        if (g.label(id).empty())
            g.setLabel(id, host + " gpu" + std::to_string(n.rail));
    }
    for (LinkId l = 0; l < g.linkCount(); ++l) {
        const auto& link = g.link(l);
        if (link.flags & engine::kLinkMissing)
            continue;
        if (link.medium == engine::LinkMedium::NvLink) {
            if (g.node(link.a).kind == NodeKind::Gpu)
                m_nvlink.emplace(link.a, LinkEnd { l, 0 });
            if (g.node(link.b).kind == NodeKind::Gpu)
                m_nvlink.emplace(link.b, LinkEnd { l, 1 });
            continue;
        }
        if (link.medium == engine::LinkMedium::Pcie)
            continue;
        if (link.portA > 0)
            m_ports.emplace((std::uint64_t(link.a) << 16) | link.portA, LinkEnd { l, 0 });
        if (link.portB > 0)
            m_ports.emplace((std::uint64_t(link.b) << 16) | link.portB, LinkEnd { l, 1 });
    }
}

std::optional<LinkEnd> FabricMapping::portEnd(NodeId node, int port, std::string& why) const
{
    if (port < 1 || port > 65535) {
        why = "invalid port " + std::to_string(port);
        return std::nullopt;
    }
    auto it = m_ports.find((std::uint64_t(node) << 16) | std::uint64_t(port));
    if (it == m_ports.end()) {
        why = "port " + std::to_string(port) + " of " + m_graph.label(node) + " has no link in the fabric";
        return std::nullopt;
    }
    return it->second;
}

std::optional<LinkEnd> FabricMapping::map(const SourceProfile& p, const PromLabels& labels, std::string& why) const
{
    auto hostOf = [&]() -> std::string {
        for (const auto& name : p.hostLabels) {
            std::string v = labelValue(labels, name);
            if (v.empty())
                continue;
            // "instance" is host:port; keep the host.
            const auto colon = v.rfind(':');
            if (colon != std::string::npos && v.find(']') == std::string::npos
                && v.find_first_not_of("0123456789", colon + 1) == std::string::npos)
                v.resize(colon);
            return v;
        }
        return {};
    };
    auto portOf = [&](int& port) -> bool {
        port = 1;
        if (p.portLabel.empty())
            return true;
        std::string v = labelValue(labels, p.portLabel);
        if (p.portTrailingNumber) {
            const auto d = v.find_last_not_of("0123456789");
            v = d == std::string::npos ? v : v.substr(d + 1);
        }
        if (!parseInt(v, port)) {
            why = "label " + p.portLabel + "=\"" + labelValue(labels, p.portLabel) + "\" is not a port number";
            return false;
        }
        return true;
    };
    switch (p.end) {
    case ProfileEnd::Nic: {
        const std::string host = hostOf();
        const std::string& device = labelValue(labels, p.deviceLabel);
        if (host.empty() || device.empty()) {
            why = "no host or device label";
            return std::nullopt;
        }
        auto it = m_nics.find({ host, device });
        if (it == m_nics.end()) {
            // Fully qualified names: try the short host name.
            const auto dot = host.find('.');
            if (dot != std::string::npos)
                it = m_nics.find({ host.substr(0, dot), device });
        }
        if (it == m_nics.end()) {
            why = "no NIC \"" + host + " " + device + "\" in the fabric";
            return std::nullopt;
        }
        int port = 1;
        if (!portOf(port))
            return std::nullopt;
        return portEnd(it->second, port, why);
    }
    case ProfileEnd::Switch: {
        NodeId node = engine::kNoId;
        if (!p.guidLabel.empty()) {
            const std::string& g = labelValue(labels, p.guidLabel);
            std::uint64_t guid = 0;
            std::string_view digits = g;
            if (digits.rfind("0x", 0) == 0)
                digits.remove_prefix(2);
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), guid, 16);
            if (!g.empty() && ec == std::errc() && ptr == digits.data() + digits.size()) {
                auto it = m_switchByGuid.find(guid);
                if (it != m_switchByGuid.end())
                    node = it->second;
            }
        }
        std::string name;
        for (const auto& l : p.nameLabels)
            if (node == engine::kNoId && !(name = labelValue(labels, l)).empty()) {
                auto it = m_switchByName.find(name);
                if (it != m_switchByName.end())
                    node = it->second;
                break;
            }
        if (node == engine::kNoId) {
            why = "no switch " + (name.empty() ? labelValue(labels, p.guidLabel) : name) + " in the fabric";
            return std::nullopt;
        }
        int port = 1;
        if (!portOf(port))
            return std::nullopt;
        return portEnd(node, port, why);
    }
    case ProfileEnd::Gpu: {
        const std::string host = hostOf();
        int index = 0;
        if (!parseInt(labelValue(labels, p.gpuLabel), index)) {
            why = "label " + p.gpuLabel + " is not a GPU index";
            return std::nullopt;
        }
        auto it = m_gpus.find({ host, index });
        if (it == m_gpus.end()) {
            why = "no GPU " + std::to_string(index) + " on host \"" + host + "\" in the fabric";
            return std::nullopt;
        }
        auto nv = m_nvlink.find(it->second);
        if (nv == m_nvlink.end()) {
            why = "GPU " + std::to_string(index) + " of " + host + " has no NVLink link";
            return std::nullopt;
        }
        return nv->second;
    }
    }
    return std::nullopt;
}

} // namespace clusterscope::importers
