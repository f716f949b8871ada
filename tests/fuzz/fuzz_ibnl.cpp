// libFuzzer target: the .ibnl planned-fabric parser and the plan comparison (the input is read both
// as a plan and as an ibnetdiscover dump and compared with itself).

#include "importers/ibnetdiscover/fabriccomparison.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/ibnlparser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace clusterscope::importers;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto plan = parseIbnl(text, "fuzz.ibnl");
    auto fabric = parseIbnetdiscover(text, "fuzz.topo");
    if (plan && fabric)
        (void)compareWithPlan(*fabric, *plan);
    return 0;
}
