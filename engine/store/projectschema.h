#pragma once

#include "engine/core/status.h"

#include <span>
#include <string>

struct sqlite3;

namespace clusterscope::engine {

/// The project schema as an ordered list of migrations: migration i (0-based) takes a project
/// from schema version i to i + 1. Never edit a released migration; append a new one.
std::span<const char* const> projectMigrations();

/// Applies the migrations from `fromVersion` to the current one, each in its own transaction
/// together with the new PRAGMA user_version. `path` names the file in errors.
Status migrateProject(sqlite3* db, const std::string& path, int fromVersion);

} // namespace clusterscope::engine
