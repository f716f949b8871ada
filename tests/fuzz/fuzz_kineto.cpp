// libFuzzer target: the Kineto JSON parser, its assembler and the run analyses on whatever it accepts.

#include "engine/run/runanalysis.h"
#include "importers/kineto/decimaltime.h"
#include "importers/kineto/kinetoparser.h"
#include "importers/kineto/ncclkernelname.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace clusterscope;
    static importers::KinetoParser parser;
    const std::string text(reinterpret_cast<const char*>(data), size);
    engine::Diagnostics diagnostics;
    auto rank = parser.parse(text, "fuzz.json", diagnostics);
    if (rank) {
        engine::Run run;
        run.ranks.push_back(std::move(*rank));
        run.ranks.push_back(run.ranks.front()); // a second rank exercises matching and alignment
        run.ranks.back().rank = run.ranks.front().rank + 1;
        (void)engine::analyseRun(run);
    }
    const std::string_view view(text);
    (void)importers::parseMicrosecondsAsNs(view.substr(0, 64));
    (void)importers::parseNcclKernelName(view.substr(0, 256));
    return 0;
}
