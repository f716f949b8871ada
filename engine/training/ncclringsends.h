#pragma once

// Who a member of a ring collective sends its bytes to, the way NCCL lays its rings over servers.
// Private to engine/training (trafficmatrix.cpp and trafficblocks.cpp enumerate the same pairs).
//
// NCCL splits a ring collective over several channels, each its own ring. Inside a scale-up domain
// a channel passes the data from GPU to GPU over NVLink; between domains each channel leaves through
// one NIC and enters the next domain through the NIC of the same index: NCCL_CROSS_NIC's default
// keeps a ring on one rail unless crossing rails is faster (NCCL environment variables documentation,
// NCCL_CROSS_NIC; src/graph/search.cc, where the ring's entry and exit NIC of a channel are chosen).
// With r members of the group in each domain, the channels leave through the r members' NICs in
// turn, so each member sends 1/r of its ring bytes to the member in its own slot of the next domain
// (same local GPU, same rail) and the other (r - 1)/r to its neighbour inside the domain. The totals
// per domain are those of the plain ring (r - 1 NVLink hops and one network hop of the full bytes),
// and the network part is spread over r NICs, which is what the collective time assumes
// (GroupPlacement::nicsPerNode).

#include "engine/training/trafficmatrix.h"

namespace clusterscope::engine::ncclring {

/// Members of a ring of n members `strideGpus` apart that share one scale-up domain, when the group
/// spans several domains evenly; 1 otherwise (then the plain ring: member k sends to k + 1).
inline long long membersPerDomain(long long n, long long strideGpus, long long domainGpus)
{
    if (n <= 1 || strideGpus <= 0 || domainGpus <= strideGpus || domainGpus % strideGpus != 0)
        return 1;
    const long long r = domainGpus / strideGpus;
    return r < n && n % r == 0 ? r : 1;
}

/// The same for one pattern of the traffic matrix: ring collectives (TP, DP) run on NCCL's channels;
/// ring attention's point-to-point sends (CP) go from each member to the next.
inline long long membersPerDomain(const TrafficPattern& pattern, const GroupPlacer& placer)
{
    if (pattern.shape != TrafficPattern::Shape::Ring || pattern.dimension == TrafficDimension::CP)
        return 1;
    return membersPerDomain(pattern.groupSize, pattern.strideGpus, placer.geometry().scaleUpDomainGpus);
}

/// Calls send(memberIndex, bytes) for the partners of member k (0 <= k < n) sending `bytes` in the
/// ring, with r = membersPerDomain(...).
template <typename Send> void visitPartners(long long k, long long n, long long r, double bytes, Send&& send)
{
    if (r <= 1) {
        send((k + 1) % n, bytes);
        return;
    }
    const long long slot = k % r, run = k / r, runs = n / r;
    send(run * r + (slot + 1) % r, bytes * double(r - 1) / double(r)); // NVLink, inside the domain
    send(((run + 1) % runs) * r + slot, bytes / double(r)); // network, same rail in the next domain
}

/// Bytes member k sends to member j (the inverse of visitPartners).
inline double bytesTo(long long k, long long j, long long n, long long r, double bytes)
{
    double out = 0;
    visitPartners(k, n, r, bytes, [&](long long partner, double b) {
        if (partner == j)
            out += b;
    });
    return out;
}

} // namespace clusterscope::engine::ncclring
