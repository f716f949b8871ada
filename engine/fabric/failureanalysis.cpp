#include "engine/fabric/failureanalysis.h"

#include "engine/fabric/bisection.h"

#include <algorithm>
#include <numeric>

namespace clusterscope::engine {

Result<FabricDesign> applyFailures(const FabricDesign& design, const FailureSpec& f)
{
    FabricDesign out = design;
    FabricGraph& g = out.graph;
    const auto kill = [&g](LinkId l) { g.link(l).flags |= kLinkMissing; };
    for (LinkId l : f.links) {
        if (l >= g.linkCount())
            return Status::error("failure: link " + std::to_string(l) + " does not exist (the fabric has "
                + std::to_string(g.linkCount()) + " links)");
        kill(l);
    }
    for (NodeId s : f.switches) {
        if (s >= g.nodeCount() || g.node(s).kind != NodeKind::Switch)
            return Status::error("failure: node " + std::to_string(s) + " is not a switch");
        for (LinkId l : g.linksOf(s))
            kill(l);
    }
    if (f.plane >= 0) {
        if (f.plane >= g.planeCount())
            return Status::error("failure: plane " + std::to_string(f.plane) + " does not exist (the fabric has "
                + std::to_string(g.planeCount()) + ")");
        for (NodeId id = 0; id < g.nodeCount(); ++id)
            if (g.node(id).kind == NodeKind::Switch && g.node(id).plane == f.plane)
                for (LinkId l : g.linksOf(id))
                    kill(l);
    }
    return out;
}

std::vector<std::uint32_t> disconnectedGpus(const FabricDesign& d)
{
    const FabricGraph& g = d.graph;
    // Union-find over the scale-out network (NICs and switches; NICs join only through their links).
    std::vector<std::uint32_t> parent(g.nodeCount());
    std::iota(parent.begin(), parent.end(), 0u);
    const auto find = [&parent](std::uint32_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    for (const FabricLink& l : g.links()) {
        if (l.flags & kLinkMissing)
            continue;
        const NodeKind a = g.node(l.a).kind, b = g.node(l.b).kind;
        const auto net = [](NodeKind k) { return k == NodeKind::Nic || k == NodeKind::Switch; };
        if (net(a) && net(b))
            parent[find(l.a)] = find(l.b);
    }
    std::vector<std::uint32_t> nicsIn(g.nodeCount(), 0);
    for (NodeId nic : d.nics)
        ++nicsIn[find(nic)];
    const std::uint32_t main
        = static_cast<std::uint32_t>(std::max_element(nicsIn.begin(), nicsIn.end()) - nicsIn.begin());
    std::vector<std::uint32_t> cut;
    for (std::uint32_t r = 0; r < d.gpus.size(); ++r)
        if (find(d.nics[d.nicOfGpu[r]]) != main)
            cut.push_back(r);
    return cut;
}

Result<FailureReport> analyseFailures(const FabricDesign& design, const FailureSpec& failures,
    std::span<const Flow> probe, const FlowOptions& options, std::size_t worst)
{
    auto failed = applyFailures(design, failures);
    if (!failed)
        return failed.status();
    FailureReport r;
    for (std::size_t l = 0; l < design.graph.linkCount(); ++l)
        r.linksRemoved += (failed->graph.link(static_cast<LinkId>(l)).flags & kLinkMissing)
            && !(design.graph.link(static_cast<LinkId>(l)).flags & kLinkMissing);
    r.bisectionBeforeGbps = bisectionGbps(design);
    r.bisectionAfterGbps = bisectionGbps(*failed);
    r.disconnectedGpus = disconnectedGpus(*failed);

    const FlowModel before(design), after(*failed);
    auto pb = before.route(probe, options);
    auto pa = after.route(probe, options);
    if (!pb)
        return pb.status();
    if (!pa)
        return pa.status();
    const auto rb = before.maxMinRatesGbps(*pb), ra = after.maxMinRatesGbps(*pa);
    // A flow's rate is the sum over its sub-flows (queue pairs).
    std::vector<double> flowBefore(probe.size(), 0.0), flowAfter(probe.size(), 0.0);
    for (std::size_t sf = 0; sf < rb.size(); ++sf)
        flowBefore[pb->flowOf[sf]] += rb[sf];
    for (std::size_t sf = 0; sf < ra.size(); ++sf)
        flowAfter[pa->flowOf[sf]] += ra[sf];
    std::vector<std::size_t> order(probe.size());
    std::iota(order.begin(), order.end(), 0);
    const auto ratio = [&](std::size_t f) { return flowBefore[f] > 0 ? flowAfter[f] / flowBefore[f] : 1.0; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return ratio(x) < ratio(y); });
    for (std::size_t i = 0; i < std::min(worst, order.size()); ++i) {
        const std::size_t f = order[i];
        if (ratio(f) >= 1.0 - 1e-9)
            break;
        r.worstPairs.push_back({ probe[f].src, probe[f].dst, flowBefore[f], flowAfter[f] });
    }
    auto tb = before.time(probe, options);
    auto ta = after.time(probe, options);
    if (tb)
        r.before = *tb;
    if (ta)
        r.after = *ta;
    return r;
}

} // namespace clusterscope::engine
