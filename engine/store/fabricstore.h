#pragma once

// Imported fabrics (ibnetdiscover dumps) kept in a project beside its scenarios (schema 5: table
// `fabrics`). The dump is stored as read, so reopening the project re-runs the current importer.

#include "engine/core/status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::engine {

class ProjectStore;

struct StoredFabric {
    std::int64_t id = 0;
    std::string name; ///< shown in the project (file name without folders by default)
    std::string source; ///< path the dump was read from
    std::string imported; ///< UTC "YYYY-MM-DD HH:MM:SS"
    std::string summaryJson; ///< what the importer said (counts, flags per pattern), JSON text
    std::int64_t dumpBytes = 0;
};

/// Adds a dump; returns its id. Names need not be unique (ids are).
Result<std::int64_t> storeImportedFabric(ProjectStore& store, const std::string& name, const std::string& source,
    std::string_view dump, const std::string& summaryJson);
/// Every stored fabric, oldest first (without the dumps).
Result<std::vector<StoredFabric>> importedFabrics(const ProjectStore& store);
/// The dump text of one stored fabric; an error naming the project when the id is unknown.
Result<std::string> importedFabricDump(const ProjectStore& store, std::int64_t id);
Status removeImportedFabric(ProjectStore& store, std::int64_t id);

} // namespace clusterscope::engine
