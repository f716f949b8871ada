// libFuzzer target: a project file opened as a store. The bytes are opened in memory
// (ProjectStore::openImage: SQLite's memdb, the same checks and migration as a file on disk, without
// the file system calls that made writing each input to a file cost half the time) and read the way
// the GUI, the CLI and the report read a project: schema check and migration, the scenarios (each
// one scenario JSON), the documents (the calibration JSON) and the stored runs (summary JSON and
// rows). SQLite itself is not instrumented; the guidance comes from our readers.
//
// With CLUSTERSCOPE_FUZZ_WRITE_SEED=<path> set, the target writes a small valid project there (an
// example scenario, a calibration document, a stored run) and exits: run_fuzzers.sh seeds the corpus
// with it so that mutations start from a real database.

#include "engine/calibration/calibrationjson.h"
#include "engine/catalog/catalog.h"
#include "engine/run/runanalysis.h"
#include "engine/scenario/scenariojson.h"
#include "engine/store/projectdocuments.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace clusterscope::engine;

void check(bool ok, const std::string& what)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_project: cannot write the seed: %s\n", what.c_str());
        std::exit(1);
    }
}

void writeSeed(const std::string& path)
{
    auto store = ProjectStore::create(path);
    check(store.isOk(), store.message());
    auto scenario = loadScenarioFile(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json");
    check(scenario.isOk(), scenario.message());
    auto ids = store->saveScenarios({ { 0, *scenario } });
    check(ids.isOk(), ids.message());
    CalibrationSet calibration;
    check(store->putDocument(kCalibrationDocumentKind, kCalibrationDocumentName, calibrationToJson(calibration)).isOk(),
        "calibration document");
    Run run;
    RankTrace rank;
    rank.rank = 0;
    rank.worldSize = 1;
    run.ranks.push_back(rank);
    auto added = RunStore(*store).add("seed run", { "seed" }, run, analyseRun(run));
    check(added.isOk(), added.message());
    // Small pages keep the seed (and every mutation of it) a few kilobytes.
    check(sqlite3_exec(store->handle(), "PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM", nullptr,
              nullptr, nullptr)
            == SQLITE_OK,
        sqlite3_errmsg(store->handle()));
}

void removeProject(const std::string& path)
{
    for (const char* suffix : { "", "-wal", "-shm", "-journal" })
        std::remove((path + suffix).c_str());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    if (const char* seed = std::getenv("CLUSTERSCOPE_FUZZ_WRITE_SEED")) {
        removeProject(seed);
        writeSeed(seed);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string name = "fuzz.csproj";
    auto store = ProjectStore::openImage(std::string_view(reinterpret_cast<const char*>(data), size), name);
    if (!store)
        return 0;
    (void)store->scenarios();
    if (auto names = store->documentNames(kCalibrationDocumentKind))
        for (const auto& document : *names)
            if (auto text = store->document(kCalibrationDocumentKind, document))
                (void)calibrationFromJson(*text, name + " (calibration)");
    RunStore runs(*store);
    if (auto list = runs.list())
        for (const auto& summary : *list)
            (void)runs.load(summary.id);
    return 0;
}
