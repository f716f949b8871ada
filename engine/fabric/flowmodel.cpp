// Routing of a traffic matrix on the fabric: shortest paths found by BFS from the destination's
// attachment switches, next hop chosen by ECMP hash, least load, or spraying.

#include "engine/fabric/flowmodel.h"

#include "engine/fabric/lossmodel.h"
#include "engine/scenario/scenario.h"

#include <algorithm>
#include <deque>
#include <map>

namespace clusterscope::engine {

namespace {

    constexpr std::uint16_t kFar = 0xFFFF;

    // SplitMix64 (Steele, Lea, Flood 2014): a cheap well-mixed hash standing in for a switch's ECMP hash.
    std::uint64_t mix(std::uint64_t x)
    {
        x += 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        return x ^ (x >> 31);
    }

    bool usable(const FabricLink& l) { return !(l.flags & kLinkMissing); }

} // namespace

FlowOptions flowOptionsFor(const Scenario& s, double rttSeconds, double mtuBytes, double ccEfficiency)
{
    FlowOptions o;
    switch (s.communication.routing) {
    case Routing::Ecmp:
        o.routing = RoutingMode::Ecmp;
        break;
    case Routing::Adaptive:
        o.routing = RoutingMode::Adaptive;
        break;
    case Routing::Spray:
        o.routing = RoutingMode::Spray;
        break;
    }
    o.linkEfficiency = effectiveRateFraction(
        ccEfficiency, s.communication.lossRate, windowPackets(s.cluster.nic.gbps, rttSeconds, mtuBytes));
    return o;
}

FlowModel::FlowModel(const FabricDesign& design)
    : m_design(design)
{
    const FabricGraph& g = design.graph;
    const std::size_t n = g.nodeCount();
    m_transit.assign(n, -1);
    m_nicIndex.assign(n, kNoId);
    for (std::uint32_t i = 0; i < design.nics.size(); ++i)
        m_nicIndex[design.nics[i]] = i;
    for (NodeId id = 0; id < n; ++id) {
        const NodeKind k = g.node(id).kind;
        if (k == NodeKind::Switch || (design.nicsForward && k == NodeKind::Nic)) {
            m_transit[id] = static_cast<std::int32_t>(m_transitNode.size());
            m_transitNode.push_back(id);
        }
    }
    m_adjStart.assign(m_transitNode.size() + 1, 0);
    for (std::uint32_t t = 0; t < m_transitNode.size(); ++t) {
        const NodeId u = m_transitNode[t];
        for (LinkId l : g.linksOf(u)) {
            const NodeId v = g.otherEnd(l, u);
            if (usable(g.link(l)) && v != u && m_transit[v] >= 0) {
                m_adjNbr.push_back(static_cast<std::uint32_t>(m_transit[v]));
                m_adjLink.push_back(l);
            }
        }
        m_adjStart[t + 1] = static_cast<std::uint32_t>(m_adjNbr.size());
    }
    m_portStart.assign(design.nics.size() + 1, 0);
    for (std::uint32_t i = 0; i < design.nics.size(); ++i) {
        const NodeId nic = design.nics[i];
        if (!design.nicsForward)
            for (LinkId l : g.linksOf(nic))
                if (usable(g.link(l)) && m_transit[g.otherEnd(l, nic)] >= 0)
                    m_portLink.push_back(l);
        m_portStart[i + 1] = static_cast<std::uint32_t>(m_portLink.size());
    }
    m_pcie.assign(design.gpus.size(), kNoId);
    m_scaleUp.assign(design.gpus.size(), kNoId);
    for (std::uint32_t r = 0; r < design.gpus.size(); ++r) {
        const NodeId gpu = design.gpus[r];
        const NodeId nic = design.nics.empty() ? kNoId : design.nics[design.nicOfGpu[r]];
        for (LinkId l : g.linksOf(gpu)) {
            const FabricLink& link = g.link(l);
            if (!usable(link))
                continue;
            const NodeId peer = g.otherEnd(l, gpu);
            if (peer == nic)
                m_pcie[r] = l;
            else if (g.node(peer).kind == NodeKind::NvSwitch)
                m_scaleUp[r] = l;
        }
    }
}

void FlowModel::bfsFrom(const std::vector<std::uint32_t>& anchors, std::vector<std::uint16_t>& dist) const
{
    std::fill(dist.begin(), dist.end(), kFar);
    std::vector<std::uint32_t> queue;
    queue.reserve(m_transitNode.size());
    for (std::uint32_t a : anchors)
        if (dist[a] == kFar) {
            dist[a] = 0;
            queue.push_back(a);
        }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t u = queue[head];
        const std::uint16_t next = static_cast<std::uint16_t>(dist[u] + 1);
        for (std::uint32_t e = m_adjStart[u]; e < m_adjStart[u + 1]; ++e) {
            const std::uint32_t v = m_adjNbr[e];
            if (dist[v] == kFar) {
                dist[v] = next;
                queue.push_back(v);
            }
        }
    }
}

Result<FlowPlacement> FlowModel::route(std::span<const Flow> flows, const FlowOptions& o) const
{
    const FabricGraph& g = m_design.graph;
    const std::uint32_t ranks = static_cast<std::uint32_t>(m_design.gpus.size());
    const int q = o.routing == RoutingMode::Ecmp ? std::max(1, o.queuePairs) : 1;
    if (!(o.linkEfficiency > 0 && o.linkEfficiency <= 1))
        return Status::error("link efficiency must be in (0, 1], got " + std::to_string(o.linkEfficiency));
    FlowPlacement p;
    p.linkEfficiency = o.linkEfficiency;
    const std::size_t subs = flows.size() * q;
    p.flowOf.resize(subs);
    p.bytes.resize(subs);
    p.start.assign(subs, 0);
    p.length.assign(subs, 0);
    p.dlinks.reserve(subs * 8);
    p.weights.reserve(subs * 8);
    for (std::size_t f = 0; f < flows.size(); ++f) {
        if (flows[f].src >= ranks || flows[f].dst >= ranks)
            return Status::error("flow " + std::to_string(f) + ": rank "
                + std::to_string(std::max(flows[f].src, flows[f].dst)) + " is out of range (the fabric has "
                + std::to_string(ranks) + " GPUs)");
        for (int s = 0; s < q; ++s) {
            p.flowOf[f * q + s] = static_cast<std::uint32_t>(f);
            p.bytes[f * q + s] = flows[f].bytes / q;
        }
    }
    const auto dir = [&g](LinkId l, NodeId from) { return l * 2 + (g.link(l).a == from ? 0u : 1u); };
    std::vector<double> load(o.routing == RoutingMode::Adaptive ? g.linkCount() * 2 : 0, 0.0);
    const auto push = [&](std::uint32_t dlink, float w, double bytes) {
        p.dlinks.push_back(dlink);
        p.weights.push_back(w);
        if (!load.empty())
            load[dlink] += w * bytes;
    };

    // Anchor of a destination NIC: itself when NICs forward, else the set of switches it is cabled
    // to. Flows are grouped by anchor so that one BFS serves all flows to it.
    std::map<std::vector<std::uint32_t>, std::uint32_t> anchorIds;
    std::vector<std::vector<std::uint32_t>> anchorSets;
    std::vector<std::uint32_t> anchorOfNic(m_design.nics.size(), kNoId);
    const auto anchorOf = [&](std::uint32_t nicIdx) {
        if (anchorOfNic[nicIdx] != kNoId)
            return anchorOfNic[nicIdx];
        std::vector<std::uint32_t> set;
        if (m_design.nicsForward)
            set.push_back(static_cast<std::uint32_t>(m_transit[m_design.nics[nicIdx]]));
        else
            for (std::uint32_t e = m_portStart[nicIdx]; e < m_portStart[nicIdx + 1]; ++e)
                set.push_back(static_cast<std::uint32_t>(m_transit[g.otherEnd(m_portLink[e], m_design.nics[nicIdx])]));
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        auto [it, inserted] = anchorIds.emplace(set, static_cast<std::uint32_t>(anchorSets.size()));
        if (inserted)
            anchorSets.push_back(set);
        return anchorOfNic[nicIdx] = it->second;
    };

    // PXN (NCCL 2.12 and later, on by default: NCCL_PXN_DISABLE=0, NCCL_P2P_PXN_LEVEL=2, NCCL
    // environment variables documentation; src/graph/paths.cc ncclTopoGetIntermediateRank): a GPU
    // sending to a GPU of another server whose NIC is on another rail first moves the data over
    // NVLink to the GPU of its own server that sits by the NIC of the destination's rail, and that
    // GPU's NIC sends it, so the traffic stays on the rail ("Doubling all2all Performance with NVIDIA
    // Collective Communication Library 2.12", NVIDIA technical blog, 2022). rankOfNic: the first
    // rank each NIC serves.
    const int gpusPerHost = m_design.gpusPerNode, nicsPerHost = m_design.nicsPerNode;
    const bool pxn = o.useScaleUp && !m_design.nicsForward && gpusPerHost > 0 && nicsPerHost > 0;
    std::vector<std::uint32_t> rankOfNic(pxn ? m_design.nics.size() : 0, kNoId);
    for (std::uint32_t r = 0; pxn && r < ranks; ++r) {
        const auto nic = static_cast<std::size_t>(m_design.nicOfGpu[r]);
        if (nic < rankOfNic.size() && rankOfNic[nic] == kNoId)
            rankOfNic[nic] = r;
    }
    const auto sendingRank = [&](std::uint32_t src, std::uint32_t dst) {
        if (!pxn || src / gpusPerHost == dst / gpusPerHost || m_scaleUp[src] == kNoId)
            return src;
        const auto railOf = [&](std::uint32_t rank) { return m_design.nicOfGpu[rank] % nicsPerHost; };
        if (railOf(src) == railOf(dst))
            return src;
        const std::size_t nic = static_cast<std::size_t>(src / gpusPerHost) * nicsPerHost + railOf(dst);
        const std::uint32_t proxy = nic < rankOfNic.size() ? rankOfNic[nic] : kNoId;
        if (proxy == kNoId || m_scaleUp[proxy] == kNoId || m_pcie[proxy] == kNoId
            || g.node(m_design.gpus[proxy]).group != g.node(m_design.gpus[src]).group)
            return src;
        return proxy;
    };
    std::vector<std::uint32_t> sender(subs, kNoId); // network sub-flow -> rank whose NIC sends it

    // Scale-up and same-NIC flows need no network path; the rest are grouped by anchor.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> networkSubs; // (anchor, sub-flow)
    for (std::size_t sf = 0; sf < subs; ++sf) {
        const Flow& f = flows[p.flowOf[sf]];
        p.start[sf] = static_cast<std::uint32_t>(p.dlinks.size());
        if (f.src == f.dst)
            continue;
        const NodeId gs = m_design.gpus[f.src], gd = m_design.gpus[f.dst];
        const FabricNode& ns = g.node(gs);
        const FabricNode& nd = g.node(gd);
        if (o.useScaleUp && ns.group >= 0 && ns.group == nd.group) {
            if (m_scaleUp[f.src] != kNoId && m_scaleUp[f.dst] != kNoId) {
                const NodeId nvs = g.otherEnd(m_scaleUp[f.src], gs);
                push(dir(m_scaleUp[f.src], gs), 1.0f, p.bytes[sf]);
                push(dir(m_scaleUp[f.dst], nvs), 1.0f, p.bytes[sf]);
                p.length[sf] = 2;
                continue;
            }
            for (LinkId l : g.linksOf(gs)) // point-to-point mesh
                if (g.otherEnd(l, gs) == gd && usable(g.link(l))) {
                    push(dir(l, gs), 1.0f, p.bytes[sf]);
                    p.length[sf] = 1;
                    break;
                }
            if (p.length[sf])
                continue;
        }
        if (m_pcie[f.src] == kNoId || m_pcie[f.dst] == kNoId)
            continue; // unroutable
        const std::uint32_t nicS = static_cast<std::uint32_t>(m_design.nicOfGpu[f.src]);
        const std::uint32_t nicD = static_cast<std::uint32_t>(m_design.nicOfGpu[f.dst]);
        if (nicS == nicD) {
            push(dir(m_pcie[f.src], gs), 1.0f, p.bytes[sf]);
            push(dir(m_pcie[f.dst], m_design.nics[nicD]), 1.0f, p.bytes[sf]);
            p.length[sf] = 2;
            continue;
        }
        sender[sf] = sendingRank(f.src, f.dst);
        networkSubs.push_back({ anchorOf(nicD), static_cast<std::uint32_t>(sf) });
    }
    std::stable_sort(
        networkSubs.begin(), networkSubs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });

    std::vector<std::uint16_t> dist(m_transitNode.size(), kFar);
    std::uint32_t current = kNoId;
    struct Choice {
        LinkId link;
        NodeId next;
    };
    std::vector<Choice> cand;
    std::vector<NodeId> level, nextLevel;
    std::vector<float> weightAt(o.routing == RoutingMode::Spray ? g.nodeCount() : 0, 0.0f);
    std::vector<float> nextWeight(weightAt.size(), 0.0f);
    for (const auto& [anchor, sf] : networkSubs) {
        if (anchor != current) {
            bfsFrom(anchorSets[anchor], dist);
            current = anchor;
        }
        const Flow& f = flows[p.flowOf[sf]];
        const std::uint32_t from = sender[sf];
        const NodeId gs = m_design.gpus[from];
        const NodeId nicS = m_design.nics[m_design.nicOfGpu[from]];
        const NodeId nicD = m_design.nics[m_design.nicOfGpu[f.dst]];
        const std::uint64_t key = mix(o.hashSeed ^ mix(p.flowOf[sf] * 0x100000001B3ull + (sf % q)));
        const double bytes = p.bytes[sf];
        const std::size_t mark = p.dlinks.size();
        if (from != f.src) { // PXN: over NVLink to the GPU by the destination rail's NIC
            const NodeId src = m_design.gpus[f.src];
            push(dir(m_scaleUp[f.src], src), 1.0f, bytes);
            push(dir(m_scaleUp[from], g.otherEnd(m_scaleUp[from], gs)), 1.0f, bytes);
        }
        push(dir(m_pcie[from], gs), 1.0f, bytes);

        // Equal-cost next hops from `u` towards the anchor (dist decreasing), or into the NIC at the end.
        const auto candidates = [&](NodeId u) {
            cand.clear();
            const std::int32_t tu = m_transit[u];
            if (tu >= 0 && dist[tu] == 0) {
                if (u == nicD)
                    return;
                for (LinkId l : g.linksOf(u))
                    if (usable(g.link(l)) && g.otherEnd(l, u) == nicD)
                        cand.push_back({ l, nicD });
                return;
            }
            if (tu < 0) { // a non-forwarding source NIC: its ports with the shortest remaining distance
                const std::uint32_t ni = m_nicIndex[u];
                std::uint16_t best = kFar;
                for (std::uint32_t e = m_portStart[ni]; e < m_portStart[ni + 1]; ++e)
                    best = std::min(best, dist[m_transit[g.otherEnd(m_portLink[e], u)]]);
                if (best == kFar)
                    return;
                for (std::uint32_t e = m_portStart[ni]; e < m_portStart[ni + 1]; ++e) {
                    const NodeId v = g.otherEnd(m_portLink[e], u);
                    if (dist[m_transit[v]] == best)
                        cand.push_back({ m_portLink[e], v });
                }
                return;
            }
            const std::uint16_t want = static_cast<std::uint16_t>(dist[tu] - 1);
            for (std::uint32_t e = m_adjStart[tu]; e < m_adjStart[tu + 1]; ++e)
                if (dist[m_adjNbr[e]] == want)
                    cand.push_back({ m_adjLink[e], m_transitNode[m_adjNbr[e]] });
        };

        bool ok = true;
        if (o.routing != RoutingMode::Spray) {
            NodeId u = nicS;
            for (int hops = 0; u != nicD; ++hops) {
                candidates(u);
                if (cand.empty() || hops > 4096) {
                    ok = false;
                    break;
                }
                std::size_t pick = 0;
                if (o.routing == RoutingMode::Ecmp) {
                    pick = mix(key ^ (static_cast<std::uint64_t>(u) << 20)) % cand.size();
                } else {
                    double best = 0;
                    const std::size_t offset = mix(key ^ u) % cand.size(); // rotate ties
                    for (std::size_t i = 0; i < cand.size(); ++i) {
                        const std::size_t c = (i + offset) % cand.size();
                        const double l = load[dir(cand[c].link, u)] / g.link(cand[c].link).gbps;
                        if (i == 0 || l < best)
                            best = l, pick = c;
                    }
                }
                push(dir(cand[pick].link, u), 1.0f, bytes);
                u = cand[pick].next;
            }
        } else {
            // Spraying: propagate the flow's weight level by level (all equal-cost paths have the
            // same length); `weightAt` is a dense scratch array indexed by node, reset via `level`.
            level.assign(1, nicS);
            weightAt[nicS] = 1.0f;
            for (int hops = 0; ok && !(level.size() == 1 && level.front() == nicD); ++hops) {
                nextLevel.clear();
                for (NodeId u : level) {
                    const float w = weightAt[u];
                    weightAt[u] = 0.0f;
                    if (u == nicD) {
                        if (nextWeight[u] == 0.0f)
                            nextLevel.push_back(u);
                        nextWeight[u] += w;
                        continue;
                    }
                    candidates(u);
                    if (cand.empty() || hops > 4096) {
                        ok = false;
                        break;
                    }
                    const float share = w / static_cast<float>(cand.size());
                    for (const Choice& c : cand) {
                        push(dir(c.link, u), share, bytes);
                        if (nextWeight[c.next] == 0.0f)
                            nextLevel.push_back(c.next);
                        nextWeight[c.next] += share;
                    }
                }
                for (NodeId v : level)
                    weightAt[v] = 0.0f;
                level.swap(nextLevel);
                for (NodeId v : level) {
                    weightAt[v] = nextWeight[v];
                    nextWeight[v] = 0.0f;
                }
            }
            for (NodeId v : level)
                weightAt[v] = 0.0f;
        }
        if (!ok) {
            if (!load.empty())
                for (std::size_t e = mark; e < p.dlinks.size(); ++e)
                    load[p.dlinks[e]] -= p.weights[e] * bytes;
            p.dlinks.resize(mark);
            p.weights.resize(mark);
            continue;
        }
        push(dir(m_pcie[f.dst], nicD), 1.0f, bytes);
        p.start[sf] = static_cast<std::uint32_t>(mark);
        p.length[sf] = static_cast<std::uint32_t>(p.dlinks.size() - mark);
    }
    for (std::size_t sf = 0; sf < subs; ++sf)
        if (p.length[sf] == 0 && flows[p.flowOf[sf]].src != flows[p.flowOf[sf]].dst
            && (p.unroutable.empty() || p.unroutable.back() != p.flowOf[sf]))
            p.unroutable.push_back(p.flowOf[sf]);
    return p;
}

} // namespace clusterscope::engine
