// CollectiveModel: evaluation of one collective, Auto selection the way NCCL's tuner does it
// (every enabled algorithm x protocol costed, the fastest taken: enqueue.cc topoGetAlgoInfo),
// calibration, and the nccl-tests situation.

#include "engine/collectives/collectivemodel.h"
#include "engine/collectives/collectivecost.h"
#include "engine/collectives/nccltuningtables.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace clusterscope::engine {

using namespace collectives;

namespace {

    constexpr double kInf = std::numeric_limits<double>::infinity();

    // The algorithms NCCL's tuner weighs for each collective (AlltoAll and SendRecv are grouped
    // point-to-point operations in NCCL, costed here as Direct).
    constexpr CollectiveAlgorithm kAllReduceAlgos[]
        = { CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree, CollectiveAlgorithm::Nvls,
              CollectiveAlgorithm::NvlsTree, CollectiveAlgorithm::CollNetDirect, CollectiveAlgorithm::CollNetChain };
    constexpr CollectiveAlgorithm kGatherScatterAlgos[]
        = { CollectiveAlgorithm::Ring, CollectiveAlgorithm::Nvls, CollectiveAlgorithm::Pat };
    constexpr CollectiveAlgorithm kRingOnly[] = { CollectiveAlgorithm::Ring };
    constexpr CollectiveAlgorithm kDirectOnly[] = { CollectiveAlgorithm::Direct };

    bool isNcclAlgorithm(CollectiveAlgorithm a)
    {
        return a != CollectiveAlgorithm::HalvingDoubling && a != CollectiveAlgorithm::Direct
            && a != CollectiveAlgorithm::Hierarchical && a != CollectiveAlgorithm::ParameterServer;
    }

    CollectiveTerms costOf(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
        CollectiveAlgorithm a, CollectiveProtocol p, LinkClassBytes* linkBytes, double* hubBytes)
    {
        return isNcclAlgorithm(a) ? ncclCost(hw, ctx, op, bytes, a, p, linkBytes)
                                  : extraCost(hw, ctx, op, bytes, a, p, linkBytes, hubBytes);
    }

    /// The tuner terms plus the achieved ones (per-call overhead and chunk pipeline of NCCL's
    /// algorithms, ncclpipeline.cpp).
    CollectiveTerms achievedTerms(const CollectiveHardware& hw, const GroupContext& ctx, CollectiveOp op, double bytes,
        CollectiveAlgorithm a, CollectiveProtocol p, CollectiveTerms t)
    {
        if (t.supported && isNcclAlgorithm(a))
            applyNcclPipeline(hw, ctx, op, bytes, a, p, t);
        return t;
    }

    struct Timed {
        double seconds = kInf;
        double latency = 0;
    };

    /// collectivecalibration.h: t = latencyScale L + latencyOffset + W / bandwidthScale, with L and W
    /// the tuner's terms (`achieved` false; with the identity calibration, what NCCL chooses on), and
    /// the correction of (algorithm, protocol) where the calibration has one. The time the chosen
    /// algorithm takes (`achieved` true) adds the model's per-call overhead and chunk pipeline
    /// (achieved - tuner terms, ncclpipeline.cpp) as they are.
    Timed calibrated(const CollectiveCalibration& cal, CollectiveAlgorithm a, CollectiveProtocol p,
        const CollectiveTerms& t, bool achieved)
    {
        const CollectiveTermCorrection& c = cal.forProtocol(static_cast<int>(a), static_cast<int>(p), t.tier);
        Timed r;
        // A fitted offset may be negative; it was fitted where it leaves the latency >= 0
        // (collectivecalibrator.cpp), and a protocol that had no size of its own in the fit takes
        // the algorithm's correction, which must not make its latency negative.
        r.latency = std::max(0.0, c.latencyScale * t.latencySeconds + c.latencyOffsetSeconds);
        r.seconds = r.latency + t.bandwidthSeconds / c.bandwidthScale;
        if (achieved) {
            const double overhead = t.achievedLatencySeconds - t.latencySeconds;
            r.latency += overhead;
            r.seconds += overhead + (t.achievedBandwidthSeconds - t.bandwidthSeconds);
        }
        return r;
    }

    const char* unsupportedReason(CollectiveAlgorithm a)
    {
        switch (a) {
        case CollectiveAlgorithm::Ring:
            return "ring runs allreduce, reducescatter, allgather, broadcast and reduce";
        case CollectiveAlgorithm::Tree:
            return "tree runs allreduce only";
        case CollectiveAlgorithm::Nvls:
            return "nvls needs an NVSwitch with in-switch reduction (Hopper or later), at least 2 ranks per node, "
                   "InfiniBand (SHARP) across nodes, and runs allreduce, reducescatter and allgather";
        case CollectiveAlgorithm::NvlsTree:
            return "nvlstree needs NVLS hardware, at least 2 ranks per node and more than one node; allreduce only";
        case CollectiveAlgorithm::CollNetDirect:
        case CollectiveAlgorithm::CollNetChain:
            return "collnet (SHARP in-network reduction) needs InfiniBand and a group spanning nodes (direct: at most "
                   "8 "
                   "ranks per node); allreduce only";
        case CollectiveAlgorithm::Pat:
            return "pat runs allgather and reducescatter with one rank per node across nodes";
        case CollectiveAlgorithm::HalvingDoubling:
            return "halving_doubling runs allreduce, reducescatter and allgather";
        case CollectiveAlgorithm::Hierarchical:
            return "hierarchical runs allreduce, reducescatter and allgather";
        case CollectiveAlgorithm::ParameterServer:
            return "parameter_server runs allreduce (push/pull) only";
        case CollectiveAlgorithm::Direct:
        case CollectiveAlgorithm::Auto:
            return "no algorithm applies";
        }
        return "unsupported";
    }

} // namespace

CollectiveModel::CollectiveModel(const CollectiveHardware& hardware)
    : m_hardware(hardware)
{
}

CollectiveTerms CollectiveModel::terms(
    const CollectiveRequest& request, CollectiveAlgorithm algorithm, CollectiveProtocol protocol) const
{
    if (!isCostModelled(request.op) || !placementIsValid(request.group) || algorithm == CollectiveAlgorithm::Auto
        || !(request.bytes >= 0))
        return {};
    const GroupContext ctx = makeContext(m_hardware, request.group);
    if (ctx.ranks == 1)
        return {};
    return achievedTerms(m_hardware, ctx, request.op, request.bytes, algorithm, protocol,
        costOf(m_hardware, ctx, request.op, request.bytes, algorithm, protocol, nullptr, nullptr));
}

CollectiveEstimate CollectiveModel::estimate(const CollectiveRequest& request) const
{
    CollectiveEstimate e;
    if (!isCostModelled(request.op) || !placementIsValid(request.group) || !(request.bytes >= 0)) {
        e.valid = false;
        e.seconds = kInf;
        return e;
    }
    const GroupContext ctx = makeContext(m_hardware, request.group);
    const double bytes = request.bytes;
    if (ctx.ranks == 1) {
        // One rank: NCCL copies the buffer locally (read + write through HBM); no link carries data.
        e.algorithm = request.algorithm == CollectiveAlgorithm::Auto ? CollectiveAlgorithm::Ring : request.algorithm;
        e.seconds = bytes / m_hardware.copyBytesPerSecond;
        e.algbwBytesPerSecond = e.seconds > 0 ? bytes / e.seconds : 0;
        return e;
    }

    const CollectiveAlgorithm* algos = &request.algorithm;
    int algoCount = 1;
    if (request.algorithm == CollectiveAlgorithm::Auto) {
        switch (request.op) {
        case CollectiveOp::AllReduce:
            algos = kAllReduceAlgos;
            algoCount = std::size(kAllReduceAlgos);
            break;
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllGather:
            algos = kGatherScatterAlgos;
            algoCount = std::size(kGatherScatterAlgos);
            break;
        case CollectiveOp::Broadcast:
        case CollectiveOp::Reduce:
            algos = kRingOnly;
            algoCount = 1;
            break;
        case CollectiveOp::AllToAll:
        case CollectiveOp::SendRecv:
            algos = kDirectOnly;
            algoCount = 1;
            break;
        default: // not priced: refused above (isCostModelled)
            break;
        }
    }
    Timed best;
    CollectiveTerms bestTerms;
    CollectiveAlgorithm bestAlgo = algos[0];
    CollectiveProtocol bestProto = CollectiveProtocol::Simple;
    const bool autoChoice = request.algorithm == CollectiveAlgorithm::Auto;
    for (int i = 0; i < algoCount; ++i) {
        // NCCL_ALGO of the net transport: Auto weighs only the collective algorithms it enables
        // (point-to-point operations, costed as Direct, are not subject to it).
        if (autoChoice && isNcclAlgorithm(algos[i])
            && !(m_hardware.algorithmMask & (1u << static_cast<unsigned>(algos[i]))))
            continue;
        // Only Ring and Tree have LL/LL128 entries in NCCL's tables; the rest run Simple.
        const bool allProtocols = algos[i] == CollectiveAlgorithm::Ring || algos[i] == CollectiveAlgorithm::Tree;
        for (int p = allProtocols ? 0 : int(CollectiveProtocol::Simple); p < kCollectiveProtocolCount; ++p) {
            const auto proto = static_cast<CollectiveProtocol>(p);
            // NCCL_PROTO of the net transport (TCPX/TCPXO run Simple only).
            if (!(m_hardware.protocolMask & (1u << p)))
                continue;
            // No LL128 across nodes when the NIC is reached through the CPU (no GPUDirect RDMA).
            if (proto == CollectiveProtocol::LL128 && ctx.nodes > 1 && (m_hardware.protocolMask & nccl::kNoNetLl128Bit))
                continue;
            // CollNet, and NVLS across nodes (which runs over CollNet), need SHARP enabled
            // (NCCL_COLLNET_ENABLE, default off).
            if (autoChoice && !m_hardware.collNetInAuto
                && (algos[i] == CollectiveAlgorithm::CollNetDirect || algos[i] == CollectiveAlgorithm::CollNetChain
                    || (algos[i] == CollectiveAlgorithm::Nvls && ctx.nodes > 1)))
                break;
            const CollectiveTerms t = costOf(m_hardware, ctx, request.op, bytes, algos[i], proto, nullptr, nullptr);
            if (!t.supported)
                continue;
            // Chosen on NCCL's own tuner time (src/enqueue.cc topoGetAlgoInfo over src/graph/tuning.cc's
            // tables), never the calibrated one: NCCL does not know the calibration, so a calibration
            // changes how long NCCL's choice takes, not what NCCL chooses.
            Timed timed;
            timed.latency = t.latencySeconds;
            timed.seconds = t.latencySeconds + t.bandwidthSeconds;
            if (timed.seconds < best.seconds) {
                best = timed;
                bestTerms = t;
                bestAlgo = algos[i];
                bestProto = proto;
            }
        }
    }
    e.algorithm = bestAlgo;
    e.protocol = bestProto;
    if (best.seconds == kInf) {
        e.valid = false;
        e.seconds = kInf;
        return e;
    }
    costOf(m_hardware, ctx, request.op, bytes, bestAlgo, bestProto, &e.perRankBytes, &e.hubBytes);
    bestTerms = achievedTerms(m_hardware, ctx, request.op, bytes, bestAlgo, bestProto, bestTerms);
    // The time it takes: NCCL's pipeline for this size (ncclpipeline.cpp).
    best = calibrated(m_calibration, bestAlgo, bestProto, bestTerms, true);
    // The calibration's smooth size correction (collectivecalibration.h; 1 when it has none).
    const double sizeFactor = m_calibration.sizeFactor(bestTerms.tier, bytes);
    e.seconds = best.seconds * sizeFactor;
    e.latencySeconds = best.latency * sizeFactor;
    e.algbwBytesPerSecond = e.seconds > 0 ? bytes / e.seconds : 0;
    e.busbwBytesPerSecond = e.algbwBytesPerSecond * busBandwidthFactor(request.op, ctx.ranks);
    e.flows = flowCount(ctx, request.op, bestAlgo);
    return e;
}

Status CollectiveModel::check(const CollectiveRequest& request) const
{
    const GroupPlacement& g = request.group;
    if (!isCostModelled(request.op))
        return Status::error(std::string("the collective model does not price ") + toString(request.op));
    if (g.ranks < 1)
        return Status::error("group: ranks must be at least 1, got " + std::to_string(g.ranks));
    if (g.ranksPerNode < 1)
        return Status::error("group: ranks per node must be at least 1, got " + std::to_string(g.ranksPerNode));
    if (g.nicsPerNode < 1)
        return Status::error("group: NICs per node must be at least 1, got " + std::to_string(g.nicsPerNode));
    if (g.spanTier < 0 || g.spanTier > 3)
        return Status::error("group: span tier must be 0..3, got " + std::to_string(g.spanTier));
    if (g.nodesPerLeaf < 0)
        return Status::error("group: nodes per leaf must be >= 0, got " + std::to_string(g.nodesPerLeaf));
    if (!(request.bytes >= 0) || !std::isfinite(request.bytes))
        return Status::error("bytes must be a finite non-negative size");
    if (estimate(request).valid)
        return Status::success();
    return Status::error(std::string("algorithm '") + toString(request.algorithm) + "' cannot run "
        + toString(request.op) + " on this group (" + std::to_string(g.ranks) + " ranks, "
        + std::to_string(std::min(g.ranksPerNode, g.ranks)) + " per node): " + unsupportedReason(request.algorithm));
}

} // namespace clusterscope::engine
