#include "engine/scenario/scenario.h"

#include <algorithm>

namespace clusterscope::engine {

const char* toString(Transport v) { return v == Transport::InfiniBand ? "infiniband" : "roce"; }

const char* toString(FabricType v)
{
    switch (v) {
    case FabricType::FatTree:
        return "fat-tree";
    case FabricType::LeafSpine:
        return "leaf-spine";
    case FabricType::RailOptimized:
        return "rail-optimized";
    case FabricType::Dragonfly:
        return "dragonfly";
    case FabricType::Torus:
        return "torus";
    }
    return "?";
}

const char* toString(DType v)
{
    switch (v) {
    case DType::BF16:
        return "bf16";
    case DType::FP16:
        return "fp16";
    case DType::FP8:
        return "fp8";
    case DType::MXFP8:
        return "mxfp8";
    case DType::NVFP4:
        return "nvfp4";
    }
    return "?";
}

const char* toString(Recompute v)
{
    switch (v) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    }
    return "?";
}

const char* toString(RecomputeMethod v) { return v == RecomputeMethod::Block ? "block" : "uniform"; }

const char* toString(PipelineSchedule v)
{
    switch (v) {
    case PipelineSchedule::OneFOneB:
        return "1f1b";
    case PipelineSchedule::GPipe:
        return "gpipe";
    case PipelineSchedule::Interleaved:
        return "interleaved";
    }
    return "?";
}

const char* toString(ContextParallelKind v) { return v == ContextParallelKind::Ring ? "ring" : "ulysses"; }

const char* toString(CompressionMethod v)
{
    switch (v) {
    case CompressionMethod::None:
        return "none";
    case CompressionMethod::TopK:
        return "topk";
    case CompressionMethod::Int8:
        return "int8";
    case CompressionMethod::Fp8:
        return "fp8";
    case CompressionMethod::OneBit:
        return "onebit";
    }
    return "?";
}

const char* toString(Routing v)
{
    switch (v) {
    case Routing::Ecmp:
        return "ecmp";
    case Routing::Adaptive:
        return "adaptive";
    case Routing::Spray:
        return "spray";
    }
    return "?";
}

std::optional<DType> dtypeFromString(std::string_view name)
{
    for (const DType v : { DType::BF16, DType::FP16, DType::FP8, DType::MXFP8, DType::NVFP4 })
        if (name == toString(v))
            return v;
    return std::nullopt;
}

double bytesPerElement(DType v) { return v == DType::NVFP4 ? 0.5 + 1.0 / 16.0 : isFp8(v) ? 1.0 : 2.0; }

const char* mambaContextParallelProblem(const MambaSpec& mamba, int tp, int cp)
{
    if (cp <= 1 || tp < 1 || mamba.heads % tp != 0 || mamba.groups % tp != 0)
        return nullptr; // nothing to split, or tp's own rule refuses first
    if ((mamba.heads / tp) % cp != 0)
        return "/parallelism/cp: the Mamba heads must be divisible by tp x cp";
    const int groupsTp = mamba.groups / tp;
    if (groupsTp < cp ? cp % groupsTp != 0 : groupsTp % cp != 0)
        return "/parallelism/cp: cp and the Mamba groups per tp rank must divide one another";
    return nullptr;
}

const char* ulyssesProblem(const ModelSpec& m, const ParallelismSpec& p)
{
    if (p.cp <= 1 || p.cpKind != ContextParallelKind::Ulysses || p.tp < 1)
        return nullptr;
    if (m.heads % (p.tp * p.cp) != 0)
        return "/parallelism/cp: Ulysses needs heads divisible by tp x cp";
    const int kvHeadsLocal = m.kvLoraRank > 0 ? m.heads / p.tp : std::max(1, m.kvHeads / p.tp);
    if (kvHeadsLocal % p.cp != 0)
        return "/parallelism/cp: Ulysses needs the kv heads of each tp rank divisible by cp";
    return nullptr;
}

std::vector<std::string> hybridSegments(const std::string& pattern)
{
    std::vector<std::string> out;
    for (std::size_t from = 0;;) {
        const std::size_t bar = pattern.find('|', from);
        out.push_back(pattern.substr(from, bar == std::string::npos ? std::string::npos : bar - from));
        if (bar == std::string::npos)
            return out;
        from = bar + 1;
    }
}

std::string hybridBlocks(const std::string& pattern)
{
    std::string blocks = pattern;
    blocks.erase(std::remove(blocks.begin(), blocks.end(), '|'), blocks.end());
    return blocks;
}

} // namespace clusterscope::engine
