#pragma once

#include "engine/core/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::importers {

/// A planned fabric: systems by name and the cables between their ports.
struct PlannedFabric {
    struct System {
        std::string type; ///< e.g. SX6036, MT25408
        std::string name; ///< e.g. switch1, H-1
        int line = 0;
    };
    struct Cable {
        std::string nameA;
        int portA = 0;
        std::string nameB;
        int portB = 0;
        int line = 0;
    };
    std::vector<System> systems; ///< declared ones first, then those only named as peers
    std::vector<Cable> cables; ///< each cable once (listed from both ends in the file)
};

/// Reads an ibdiagnet topology netlist (.ibnl / .topo): a system line `<TYPE> <name>` at column 0,
/// then one indented line per cabled port, `P<n> -> <TYPE> <peer> P<m>` (an arrow with width and
/// speed, `-4x-QDR->`, is accepted). Blank lines and `#` comments are skipped. Strict: any other
/// line is an error naming the file and line.
engine::Result<PlannedFabric> parseIbnl(std::string_view text, const std::string& name);
engine::Result<PlannedFabric> importIbnlFile(const std::string& path);

} // namespace clusterscope::importers
