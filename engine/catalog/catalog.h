#pragma once

// The hardware catalog: GPUs, NICs, switches, cables and transceivers with the figures the models
// need. Every entry names its source and date; prices are editable defaults.

#include "engine/core/status.h"

#include <optional>
#include <string>
#include <vector>

namespace clusterscope::engine {

enum class GpuArch { Volta, Ampere, Hopper, Blackwell, Cdna3, Cdna4 };
const char* toString(GpuArch arch);

struct SourceInfo {
    std::string source; ///< where the figures come from
    std::string date; ///< ISO date the figures were taken
};

struct GpuModel : SourceInfo {
    std::string id, name, vendor;
    GpuArch arch = GpuArch::Hopper;
    double bf16FlopsPerSecond = 0; ///< peak dense BF16 (FLOP/s)
    std::optional<double> fp8FlopsPerSecond; ///< peak dense FP8 (FLOP/s); none when unsupported
    /// peak dense FP4 ("fp4_flops", FLOP/s, without 2:4 sparsity); none without NVFP4 tensor cores
    std::optional<double> fp4FlopsPerSecond;
    double hbmBytes = 0; ///< HBM capacity as the device reports it (bytes; 80 GiB = 85.9e9)
    double hbmBytesPerSecond = 0; ///< HBM bandwidth (B/s)
    std::string scaleUpLink; ///< "nvlink4", "infinity-fabric", ...
    double scaleUpBytesPerSecond = 0; ///< scale-up bandwidth per GPU per direction (B/s)
    int scaleUpLinks = 0; ///< scale-up links per GPU
    int nvlinkDomainGpus = 8; ///< GPUs in one scale-up domain
    bool scaleUpSwitched = true; ///< NVSwitch (true) or point-to-point mesh (false)
    bool scaleUpSpansNodes = false; ///< the domain spans several servers through NVLink switch
                                    ///< trays (GB200 NVL72); else it is at most one server
    /// The GPU's reference server ("server"): GPUs per server (a GB200 / GB300 compute tray: 4), its
    /// scale-out NICs and their rate (Gb/s). Used where a cluster's NICs are not stated (nccl-tests
    /// import), always said to be an assumption. Without "server": 8 GPUs with 4 x 100 Gb/s (Volta),
    /// 8 x 200 (Ampere) or 8 x 400 (later), and no source.
    int serverGpus = 8;
    int serverNics = 8;
    double serverNicGbps = 400;
    std::string serverSource;
    double pcieBytesPerSecond = 0; ///< host PCIe bandwidth per direction (B/s)
    /// GPU <-> host (CPU) memory bandwidth per GPU and direction (B/s): PCIe unless the catalog
    /// names a faster link (Grace-Blackwell's NVLink-C2C); activation offloading moves over it.
    double hostLinkBytesPerSecond = 0;
    double tdpWatts = 0; ///< board power (W)
    double priceUsd = 0; ///< editable default price (USD)
    int sms = 132; ///< streaming multiprocessors (AMD: compute units); GEMM waves
    /// Sustained fraction of the dense peak that large GEMMs reach in a training step, per dtype
    /// ("achievable": "gemm_bf16" / "gemm_fp8"), and that fused (flash) attention reaches forward at
    /// head_dim 128 on long sequences ("attention_bf16"). fp8 is not 2x bf16 in practice.
    double gemmBf16Fraction = 0.75;
    double gemmFp8Fraction = 0.60;
    /// The same for MXFP8 GEMMs ("gemm_mxfp8"; absent = gemm_fp8) on GPUs with block-scaled tensor cores.
    std::optional<double> gemmMxfp8Fraction;
    /// The same for NVFP4 GEMMs against the FP4 peak ("gemm_nvfp4"; absent = gemm_fp8).
    std::optional<double> gemmNvfp4Fraction;
    double attentionFraction = 0.55;
    /// Tensor-core clock held through a training step relative to the clock the peak is quoted at
    /// ("achievable": "sustained_clock"): a step keeps the board at its power limit, so the SM clock
    /// sits below the boost clock that short benchmarks (and the GEMM fractions above) see.
    double sustainedClockFraction = 1.0;
};

/// GPUs of one scale-up domain in a cluster of `gpusPerNode`-GPU servers and `gpus` GPUs in all:
/// the server's GPUs, capped by the catalog domain (an HGX H100 board joins at most 8 GPUs, so a
/// server with 1, 2 or 4 of them has a domain of 1, 2 or 4), except on multi-node NVLink systems
/// (GB200 NVL72: 18 compute trays of 4 GPUs on one NVLink switch fabric, NVIDIA GB200 NVL72
/// specifications) whose domain is the catalog's, capped by the cluster size.
int scaleUpDomainGpus(const GpuModel& gpu, int gpusPerNode, int gpus);

/// True when the GPU's tensor cores take MXFP8 (block-scaled fp8) GEMMs: NVIDIA Blackwell
/// (compute capability 10.x; Transformer Engine transformer_engine/pytorch/quantization.py
/// _compute_mxfp8_support requires 10.0 or higher). Hopper runs fp8 only with per-tensor scales.
bool hasBlockScaledFp8(const GpuModel& gpu);
/// "GPU <id> (<arch>) has no block-scaled MXFP8 tensor cores: ..." for an error message.
std::string mxfp8Unsupported(const GpuModel& gpu);
/// True when the GPU takes NVFP4 GEMMs: block-scaled tensor cores with an FP4 rate in the catalog
/// (Transformer Engine quantization.py _compute_nvfp4_support: compute capability 10.0 or higher).
inline bool hasNvfp4(const GpuModel& gpu) { return hasBlockScaledFp8(gpu) && gpu.fp4FlopsPerSecond.has_value(); }
/// "GPU <id> (<arch>) has no NVFP4 tensor cores ..." for an error message.
std::string nvfp4Unsupported(const GpuModel& gpu);

struct NicModel : SourceInfo {
    std::string id, name, transport; ///< transport: "infiniband" | "roce"
    double gbps = 0; ///< port rate (Gb/s)
    double powerWatts = 0; ///< W
    double priceUsd = 0; ///< USD
};

/// How NCCL moves bytes between nodes: its net transport (the built-in IB verbs or socket transport,
/// or a net plugin: GPUDirect-TCPX/TCPXO, gIB, aws-ofi-nccl) with the NCCL settings it runs under
/// and what it costs beyond NCCL's own model (catalog nics.json "net_transports").
struct NetTransportModel : SourceInfo {
    std::string id, name;
    std::string fabric; ///< switches it runs on: "infiniband" | "roce" (Ethernet) | "any"
    std::vector<std::string> ncclNetNames; ///< X of NCCL's "NCCL INFO Using network X" (src/init.cc)
    /// NCCL_ALGO it runs with ("ring", "tree", "nvls", "nvlstree", "collnet_direct", "collnet_chain",
    /// "pat"); empty: NCCL's default, every algorithm.
    std::vector<std::string> algorithms;
    std::vector<std::string> protocols; ///< NCCL_PROTO ("LL", "LL128", "Simple"); empty: all three
    bool nvls = true; ///< NCCL_NVLS_ENABLE
    double bufferBytes = 4.0 * 1024 * 1024; ///< NCCL_BUFFSIZE (NCCL's default 4 MiB, src/init.cc)
    double nicEfficiency = 12.0 / 12.5; ///< share of the line rate NCCL's net bandwidth is (topo.h NET_BW)
    double callOverheadUs = 0; ///< per call across nodes, beyond NCCL's own (us)
};

struct SwitchModel : SourceInfo {
    std::string id, name, transport;
    int radix = 0; ///< logical ports at portGbps
    double portGbps = 0; ///< Gb/s per port
    int rackUnits = 1;
    double powerWatts = 0; ///< W without optics
    double priceUsd = 0; ///< USD
};

struct CableModel : SourceInfo {
    std::string id, name, medium; ///< medium: passive-copper | active-copper | multimode | single-mode
    double maxReachMetres = 0;
    double maxGbps = 0;
    double powerPerEndWatts = 0;
    double priceUsd = 0; ///< fixed part of the price (USD)
    double pricePerMetreUsd = 0; ///< length-dependent part (USD/m)
    bool needsTransceivers = false;
    std::string transceiver; ///< transceiver id used at each end when needsTransceivers
};

struct TransceiverModel : SourceInfo {
    std::string id, name, medium;
    double maxReachMetres = 0;
    double gbps = 0;
    double powerWatts = 0; ///< per module
    double priceUsd = 0; ///< per module
};

class Catalog {
public:
    /// The catalog compiled into the program (resources/catalog/*.json).
    static Result<Catalog> builtin();
    /// Loads gpus.json, nics.json, switches.json and cables.json from `directory`.
    static Result<Catalog> loadFromDirectory(const std::string& directory);
    /// Parses the four catalog documents; `origin` prefixes error messages (a folder name).
    static Result<Catalog> parse(const std::string& gpusJson, const std::string& nicsJson,
        const std::string& switchesJson, const std::string& cablesJson, const std::string& origin);

    const std::vector<GpuModel>& gpus() const { return m_gpus; }
    const std::vector<NicModel>& nics() const { return m_nics; }
    const std::vector<SwitchModel>& switches() const { return m_switches; }
    const std::vector<CableModel>& cables() const { return m_cables; }
    const std::vector<TransceiverModel>& transceivers() const { return m_transceivers; }
    const std::vector<NetTransportModel>& netTransports() const { return m_netTransports; }

    const GpuModel* findGpu(const std::string& id) const;
    const NicModel* findNic(const std::string& id) const;
    const SwitchModel* findSwitch(const std::string& id) const;
    const CableModel* findCable(const std::string& id) const;
    const TransceiverModel* findTransceiver(const std::string& id) const;
    const NetTransportModel* findNetTransport(const std::string& id) const;
    /// The net transport NCCL names `ncclNet` in "NCCL INFO Using network X" (case-insensitive), if any.
    const NetTransportModel* netTransportForNcclNet(const std::string& ncclNet) const;
    /// The NIC of `transport` ("infiniband" | "roce") whose rate is exactly `gbps`, if any.
    const NicModel* nicFor(const std::string& transport, double gbps) const;

private:
    std::vector<GpuModel> m_gpus;
    std::vector<NicModel> m_nics;
    std::vector<SwitchModel> m_switches;
    std::vector<CableModel> m_cables;
    std::vector<TransceiverModel> m_transceivers;
    std::vector<NetTransportModel> m_netTransports;
};

} // namespace clusterscope::engine
