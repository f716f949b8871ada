// libFuzzer target: the scenario JSON reader and, for what it accepts, the validator against the
// built-in catalog and the JSON writer (a scenario that reads must write and read back).

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace clusterscope::engine;
    static const Catalog catalog = *Catalog::builtin();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto scenario = parseScenarioJson(text, "fuzz.json");
    if (!scenario)
        return 0;
    (void)validateScenario(*scenario, catalog, "fuzz.json");
    if (!parseScenarioJson(scenarioToJson(*scenario), "written.json"))
        std::abort(); // the writer produced something its own reader rejects
    return 0;
}
