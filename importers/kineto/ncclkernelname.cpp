#include "importers/kineto/ncclkernelname.h"

#include <cctype>
#include <vector>

namespace clusterscope::importers {

namespace {
    std::vector<std::string_view> splitUnderscore(std::string_view s)
    {
        std::vector<std::string_view> parts;
        std::size_t start = 0;
        while (start <= s.size()) {
            const std::size_t u = s.find('_', start);
            if (u == std::string_view::npos) {
                parts.push_back(s.substr(start));
                break;
            }
            parts.push_back(s.substr(start, u - start));
            start = u + 1;
        }
        return parts;
    }

    bool isAlgorithm(std::string_view t)
    {
        return t == "RING" || t == "TREE" || t == "COLLNET" || t == "COLLNETDIRECT" || t == "COLLNETCHAIN"
            || t == "NVLS" || t == "NVLSTREE" || t == "PAT";
    }
}

std::optional<NcclKernelName> parseNcclKernelName(std::string_view name)
{
    // Drop the parameter list of demangled names.
    if (const auto paren = name.find('('); paren != std::string_view::npos)
        name = name.substr(0, paren);
    NcclKernelName k;
    constexpr std::string_view kOld = "ncclKernel_";
    constexpr std::string_view kNew = "ncclDevKernel_";
    if (name.rfind(kNew, 0) == 0) {
        // ncclDevKernel_<Op>[_<RedOp>_<type>_<ALGO>_<PROTO>]: the suffix names the kernel variant NCCL
        // compiled, not the algorithm that ran (one kernel serves several algorithms).
        k.newScheme = true;
        const auto parts = splitUnderscore(name.substr(kNew.size()));
        if (parts.empty() || parts[0].empty())
            return std::nullopt;
        k.op = engine::parseRunCollectiveOp(parts[0]);
        // Reductions carry <RedOp>_<type>; AllGather/Broadcast/SendRecv go straight to the variant.
        const bool redop = parts.size() >= 3
            && (parts[1] == "Sum" || parts[1] == "Prod" || parts[1] == "Min" || parts[1] == "Max"
                || parts[1] == "PreMulSum" || parts[1] == "SumPostDiv");
        if (redop)
            k.dtype = std::string(parts[2]);
        return k;
    }
    if (name.rfind(kOld, 0) == 0) {
        // ncclKernel_<Op>_<ALGO>_<PROTO>_<RedOp>_<type>: the algorithm is the one that ran.
        const auto parts = splitUnderscore(name.substr(kOld.size()));
        if (parts.empty() || parts[0].empty())
            return std::nullopt;
        k.op = engine::parseRunCollectiveOp(parts[0]);
        if (parts.size() >= 3 && isAlgorithm(parts[1])) {
            k.algorithm = std::string(parts[1]);
            k.protocol = std::string(parts[2]);
        }
        if (parts.size() >= 5) {
            // The type may itself hold underscores (int8_t, __nv_bfloat16): everything after RedOp.
            std::string type;
            for (std::size_t i = 4; i < parts.size(); ++i)
                type += (i > 4 ? "_" : "") + std::string(parts[i]);
            k.dtype = type;
        }
        return k;
    }
    // NCCL < 2.8: nccl<Op><Algo><Proto>Kernel_<redop>_<type>
    if (name.rfind("nccl", 0) == 0 && name.find("Kernel") != std::string_view::npos) {
        k.op = engine::parseRunCollectiveOp(name);
        if (k.op == engine::CollectiveOp::Unknown)
            return std::nullopt;
        for (std::string_view algo : { "Ring", "Tree", "CollNet" })
            if (name.find(algo) != std::string_view::npos) {
                std::string a(algo);
                for (auto& c : a)
                    c = char(std::toupper(static_cast<unsigned char>(c)));
                k.algorithm = a;
                break;
            }
        const auto u = name.rfind('_');
        if (u != std::string_view::npos)
            k.dtype = std::string(name.substr(u + 1));
        return k;
    }
    return std::nullopt;
}

} // namespace clusterscope::importers
