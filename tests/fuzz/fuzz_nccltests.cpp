// libFuzzer target: the nccl-tests log parser (text and -J JSON), and turning each parsed run into
// the measured sweep the calibration fits.

#include "importers/nccltests/nccltestsimporter.h"
#include "importers/nccltests/nccltestssweep.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace clusterscope::importers;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto log = parseNcclTestsText(text, "fuzz.log");
    if (log)
        for (const auto& run : log->runs)
            (void)measuredSweepFromRun(*log, run);
    return 0;
}
