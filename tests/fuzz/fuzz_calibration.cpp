// libFuzzer target: the calibration JSON reader (--calibration files and the project's calibration
// document) and, for what it accepts, the writer (a calibration that reads must write and read back).

#include "engine/calibration/calibrationjson.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace clusterscope::engine;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto set = calibrationFromJson(text, "fuzz.json");
    if (!set)
        return 0;
    if (!calibrationFromJson(calibrationToJson(*set), "written.json"))
        std::abort(); // the writer produced something its own reader rejects
    return 0;
}
