// libFuzzer target: the ibnetdiscover tokenizer, parser, tier inference and missing-link inference.

#include "importers/ibnetdiscover/ibnetdiscoverparser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    (void)clusterscope::importers::parseIbnetdiscover(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.topo");
    return 0;
}
