// Names of collective algorithms and protocols (operations: collectiveop.cpp).

#include "engine/collectives/collectivemodel.h"

#include <cctype>
#include <string>

namespace clusterscope::engine {

namespace {

    std::string lower(std::string_view text)
    {
        std::string s(text);
        for (char& ch : s)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    }

} // namespace

const char* toString(CollectiveAlgorithm a)
{
    switch (a) {
    case CollectiveAlgorithm::Auto:
        return "auto";
    case CollectiveAlgorithm::Ring:
        return "ring";
    case CollectiveAlgorithm::Tree:
        return "tree";
    case CollectiveAlgorithm::Nvls:
        return "nvls";
    case CollectiveAlgorithm::NvlsTree:
        return "nvlstree";
    case CollectiveAlgorithm::CollNetDirect:
        return "collnet_direct";
    case CollectiveAlgorithm::CollNetChain:
        return "collnet_chain";
    case CollectiveAlgorithm::Pat:
        return "pat";
    case CollectiveAlgorithm::HalvingDoubling:
        return "halving_doubling";
    case CollectiveAlgorithm::Direct:
        return "direct";
    case CollectiveAlgorithm::Hierarchical:
        return "hierarchical";
    case CollectiveAlgorithm::ParameterServer:
        return "parameter_server";
    }
    return "?";
}

const char* toString(CollectiveProtocol p)
{
    switch (p) {
    case CollectiveProtocol::LL:
        return "LL";
    case CollectiveProtocol::LL128:
        return "LL128";
    case CollectiveProtocol::Simple:
        return "Simple";
    }
    return "?";
}

std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(std::string_view text)
{
    const std::string s = lower(text);
    for (int i = 0; i < CollectiveCalibration::kAlgorithms; ++i) {
        const auto a = static_cast<CollectiveAlgorithm>(i);
        if (s == toString(a))
            return a;
    }
    if (s == "collnet")
        return CollectiveAlgorithm::CollNetDirect;
    if (s == "halving-doubling" || s == "halvingdoubling")
        return CollectiveAlgorithm::HalvingDoubling;
    if (s == "parameter-server" || s == "ps")
        return CollectiveAlgorithm::ParameterServer;
    if (s == "nvls_tree" || s == "nvls-tree")
        return CollectiveAlgorithm::NvlsTree;
    return std::nullopt;
}

} // namespace clusterscope::engine
