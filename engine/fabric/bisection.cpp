#include "engine/fabric/bisection.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace clusterscope::engine {

namespace {

    // Dinic's max-flow (Dinic 1970; the standard BFS level graph + blocking flow). Undirected links are
    // one arc pair with capacity c in both directions.
    class Dinic {
    public:
        explicit Dinic(std::size_t n)
            : m_head(n, -1)
            , m_level(n)
            , m_iter(n)
        {
        }
        void addEdge(int u, int v, double cu, double cv)
        {
            m_to.push_back(v), m_cap.push_back(cu), m_next.push_back(m_head[u]),
                m_head[u] = static_cast<int>(m_to.size() - 1);
            m_to.push_back(u), m_cap.push_back(cv), m_next.push_back(m_head[v]),
                m_head[v] = static_cast<int>(m_to.size() - 1);
        }
        double run(int s, int t)
        {
            double flow = 0;
            while (bfs(s, t)) {
                m_iter = m_head;
                while (double f = dfs(s, t, std::numeric_limits<double>::infinity()))
                    flow += f;
            }
            return flow;
        }

    private:
        bool bfs(int s, int t)
        {
            std::fill(m_level.begin(), m_level.end(), -1);
            std::queue<int> q;
            m_level[s] = 0;
            q.push(s);
            while (!q.empty()) {
                const int u = q.front();
                q.pop();
                for (int e = m_head[u]; e >= 0; e = m_next[e])
                    if (m_cap[e] > 1e-9 && m_level[m_to[e]] < 0) {
                        m_level[m_to[e]] = m_level[u] + 1;
                        q.push(m_to[e]);
                    }
            }
            return m_level[t] >= 0;
        }
        double dfs(int u, int t, double pushed)
        {
            if (u == t)
                return pushed;
            for (int& e = m_iter[u]; e >= 0; e = m_next[e]) {
                const int v = m_to[e];
                if (m_cap[e] <= 1e-9 || m_level[v] != m_level[u] + 1)
                    continue;
                if (double f = dfs(v, t, std::min(pushed, m_cap[e])); f > 0) {
                    m_cap[e] -= f;
                    m_cap[e ^ 1] += f;
                    return f;
                }
            }
            return 0;
        }
        std::vector<int> m_head, m_to, m_next, m_level, m_iter;
        std::vector<double> m_cap;
    };

} // namespace

double maxFlowGbps(const FabricDesign& d, const std::vector<int>& sourceHosts, const std::vector<int>& sinkHosts)
{
    const FabricGraph& g = d.graph;
    const int n = static_cast<int>(g.nodeCount());
    const int s = n, t = n + 1;
    Dinic dinic(n + 2);
    for (const FabricLink& l : g.links()) {
        if (l.flags & kLinkMissing)
            continue;
        const NodeKind ka = g.node(l.a).kind, kb = g.node(l.b).kind;
        if (ka == NodeKind::Host || kb == NodeKind::Host || ka == NodeKind::Gpu || kb == NodeKind::Gpu
            || ka == NodeKind::NvSwitch || kb == NodeKind::NvSwitch)
            continue;
        dinic.addEdge(static_cast<int>(l.a), static_cast<int>(l.b), l.gbps, l.gbps);
    }
    const double inf = 1e18;
    std::vector<char> role(d.hosts, 0);
    for (int h : sourceHosts)
        role[h] = 1;
    for (int h : sinkHosts)
        role[h] = 2;
    for (NodeId nic : d.nics) {
        const int h = g.node(nic).host;
        if (role[h] == 1)
            dinic.addEdge(s, static_cast<int>(nic), inf, 0);
        else if (role[h] == 2)
            dinic.addEdge(static_cast<int>(nic), t, inf, 0);
    }
    return dinic.run(s, t);
}

double bisectionGbps(const FabricDesign& d)
{
    std::vector<int> a, b;
    for (int h = 0; h < d.hosts; ++h)
        (h < d.hosts / 2 ? a : b).push_back(h);
    if (a.empty() || b.empty())
        return 0;
    return maxFlowGbps(d, a, b);
}

double injectionHalfGbps(const FabricDesign& d)
{
    const int smallerHalfHosts = d.hosts / 2; // the split above: hosts [0, hosts / 2) on one side
    return double(smallerHalfHosts) * d.nicsPerNode * d.nicGbps;
}

} // namespace clusterscope::engine
