// Nsight Systems SQLite import on fixture databases built here with the documented schema
// (NVIDIA Nsight Systems User Guide, "SQLite Schema Reference"); no real nsys samples are in tests/data.

#include "engine/run/runanalysis.h"
#include "importers/kineto/runloader.h"
#include "importers/nsys/nsysimporter.h"

#include <QtTest>

#include <sqlite3.h>

using namespace clusterscope;
using engine::CollectiveOp;

namespace {
constexpr std::int64_t kSessionStart = 1700000000000000000LL;

bool exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK;
    if (!ok)
        qWarning("%s: %s", sql.c_str(), err);
    sqlite3_free(err);
    return ok;
}

// One rank's export: a GEMM overlapping an AllReduce of 4 MiB (NCCL NVTX range with payload), a
// memcpy and a memset, inside ProfilerStep#1. `ncclStart` is when this rank's NCCL kernel starts.
bool writeFixture(const QString& path, int rank, std::int64_t ncclStart, bool withNvtx = true)
{
    sqlite3* db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK)
        return false;
    const std::string r = std::to_string(rank);
    const std::string tid = std::to_string((100LL + rank) << 24 | 7);
    bool ok = exec(db,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
        "NULL,"
        " contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName "
        "INTEGER NOT NULL,"
        " shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, "
        "blockZ INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
        "NULL,"
        " contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT "
        "NULL,"
        " copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
        "NULL,"
        " contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER, bytes "
        "INTEGER NOT NULL);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, "
        "category INTEGER,"
        " color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, "
        "uint64Value INTEGER,"
        " int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId "
        "INTEGER, jsonText TEXT);"
        "CREATE TABLE TARGET_INFO_GPU(id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory INTEGER, smCount "
        "INTEGER,"
        " memoryBandwidth INTEGER, uuid TEXT);"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION', '3.11.0');"
        "INSERT INTO StringIds VALUES(1, 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n'),"
        " (2, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'), (3, 'cudaLaunchKernel'),"
        " (4, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL');"
        "INSERT INTO TARGET_INFO_GPU VALUES(0, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 85520809984, 132, "
        "3352320000000, 'GPU-x');"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES("
            + std::to_string(kSessionStart)
            + ", '', '');"
              "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000, 1010, 0, "
            + tid + ", 11, 3, 0), (1100, 1110, 0, " + tid + ", 12, 3, 0);"
            + "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(2000, 12000, 0, 1, 7, 11, 0, 1, 1, 132, 1, 1, 384, 1, 1),"
              " ("
            + std::to_string(ncclStart)
            + ", 20000, 0, 1, 13, 12, 0, 2, 4, 8, 1, 1, 544, 1, 1);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(500, 1500, 0, 1, 7, 0, 0, 1048576, 1, 0, 2);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(20000, 21000, 0, 1, 7, 0, 0, 0, 4096);"
              "INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId) VALUES(0, 30000, 59, "
              "'ProfilerStep#1', "
            + tid + ", 0);");
    if (withNvtx)
        ok = ok
            && exec(db,
                "INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId) VALUES(0, NULL, 75, 'NCCL', "
                    + tid
                    + ", 5);"
                      "INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId, jsonText) "
                      "VALUES(1050, 1200, 59, "
                      "'ncclAllReduce', "
                    + tid + ", 5, '{\"Communicator\": \"0x7f3a\", \"Message size [bytes]\": 4194304, \"Rank\": " + r
                    + ", \"No. of ranks\": 2, \"Reduction operation\": \"Sum\"}');");
    sqlite3_close(db);
    return ok;
}
}

class TestNsysImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneRank()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rank1.sqlite"));
        QVERIFY(writeFixture(path, 1, 14000));
        engine::Diagnostics d;
        auto ranks = importers::importNsysDatabase(path.toStdString(), d);
        QVERIFY2(ranks, ranks.message().c_str());
        QCOMPARE(int(ranks->size()), 1);
        const auto& r = ranks->front();
        QCOMPARE(r.rank, 1);
        QCOMPARE(r.worldSize, 2);
        QCOMPARE(QString::fromStdString(r.gpuName), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(int(r.activities.size()), 4);
        QCOMPARE(int(r.collectives.size()), 1);
        const auto& c = r.collectives[0];
        QCOMPARE(int(c.op), int(CollectiveOp::AllReduce));
        QCOMPARE(c.bytes, std::int64_t(4194304));
        QCOMPARE(c.groupSize, 2);
        QCOMPARE(QString::fromStdString(c.processGroup), QStringLiteral("0x7f3a"));
        QCOMPARE(c.startNs, kSessionStart + 14000);
        QCOMPARE(c.launchNs, kSessionStart + 1100);
        QCOMPARE(int(r.steps.size()), 1);
        QCOMPARE(r.steps[0].step, std::int64_t(1));
        QVERIFY(d.empty());
    }

    void twoRanksThroughLoader()
    {
        QTemporaryDir dir;
        QVERIFY(writeFixture(dir.filePath(QStringLiteral("rank0.sqlite")), 0, 13000));
        QVERIFY(writeFixture(dir.filePath(QStringLiteral("rank1.sqlite")), 1, 16000));
        auto run = importers::loadRun({ dir.path().toStdString() });
        QVERIFY2(run, run.message().c_str());
        QCOMPARE(int(run->ranks.size()), 2);
        const auto a = engine::analyseRun(*run);
        QCOMPARE(int(a.collectives.size()), 1);
        const auto& c = a.collectives[0];
        QCOMPARE(c.lastArrivalRank, 1);
        QCOMPARE(c.waitUs, 3.0);
        QCOMPARE(c.durationUs, 4.0); // rank 1: 16000..20000 ns
        QCOMPARE(c.algbwGbps, 4194304.0 / 4e-6 / 1e9);
        QCOMPARE(c.busbwGbps, c.algbwGbps * 1.0); // 2(n-1)/n with n = 2
        // Step 1 on rank 0: window 0..30000 ns; GEMM 2000..12000; NCCL 13000..20000 exposed; memcpy
        // 500..1500 and memset 20000..21000 exposed.
        const auto& b = a.steps[0].ranks[0];
        QCOMPARE(b.durationSeconds, 30e-6);
        QCOMPARE(b.computeSeconds, 10e-6);
        QCOMPARE(b.commExposedSeconds, 7e-6);
        QCOMPARE(b.memcpySeconds, 2e-6);
        QCOMPARE(b.idleSeconds, 11e-6);
    }

    void withoutNcclNvtx()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("r.sqlite"));
        QVERIFY(writeFixture(path, 0, 13000, false));
        engine::Diagnostics d;
        auto ranks = importers::importNsysDatabase(path.toStdString(), d);
        QVERIFY(ranks);
        QCOMPARE(ranks->front().rank, -1);
        QCOMPARE(ranks->front().collectives[0].bytes, std::int64_t(-1));
        QVERIFY(d.find("nsys.nccl_size_unknown"));
    }

    void errors()
    {
        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.sqlite"));
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(empty.toUtf8().constData(), &db), SQLITE_OK);
        exec(db, "CREATE TABLE x(a);");
        sqlite3_close(db);
        engine::Diagnostics d;
        auto r = importers::importNsysDatabase(empty.toStdString(), d);
        QVERIFY(!r);
        QVERIFY2(QString::fromStdString(r.message())
                     .contains(QStringLiteral("empty.sqlite: no CUPTI_ACTIVITY_KIND_KERNEL table")),
            r.message().c_str());
        r = importers::importNsysDatabase(dir.filePath(QStringLiteral("missing.sqlite")).toStdString(), d);
        QVERIFY(!r);
        QVERIFY(QString::fromStdString(r.message()).contains(QStringLiteral("missing.sqlite: cannot open")));
    }
};

QTEST_GUILESS_MAIN(TestNsysImport)
#include "tst_nsysimport.moc"
