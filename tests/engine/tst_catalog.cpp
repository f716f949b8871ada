// Hardware catalog: the built-in catalog loads, holds the ids the scenario contract promises, every
// entry names a source, and broken catalog files are refused with file and pointer.

#include "engine/catalog/catalog.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <cmath>

using namespace clusterscope::engine;

class TestCatalog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void requiredGpus_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("bf16Tflops");
        QTest::addColumn<int>("domain");
        // Peak dense BF16 from the vendors' datasheets (NVIDIA A100, H100, H200, B200, B300, GB200 / GB300 NVL72).
        QTest::addRow("A100") << "A100-SXM-80GB" << 312.0 << 8;
        QTest::addRow("H100") << "H100-SXM-80GB" << 989.4 << 8;
        QTest::addRow("H200") << "H200-SXM-141GB" << 989.4 << 8;
        QTest::addRow("B200") << "B200" << 2250.0 << 8;
        QTest::addRow("GB200") << "GB200" << 2500.0 << 72;
        QTest::addRow("B300") << "B300" << 2250.0 << 8;
        QTest::addRow("GB300") << "GB300" << 2500.0 << 72;
        QTest::addRow("MI300X") << "MI300X" << 1307.4 << 8;
        // The China-market parts: A100 / H100 compute with 8 NVLinks (A800, H800); H20's throttled peak.
        QTest::addRow("A800") << "A800-SXM-80GB" << 312.0 << 8;
        QTest::addRow("H800") << "H800-SXM-80GB" << 989.4 << 8;
        QTest::addRow("H20") << "H20" << 148.0 << 8;
        // AMD Instinct MI325X (MI300X compute) and MI355X (CDNA 4).
        QTest::addRow("MI325X") << "MI325X" << 1307.4 << 8;
        QTest::addRow("MI355X") << "MI355X" << 2516.6 << 8;
    }
    void requiredGpus()
    {
        QFETCH(QString, id);
        QFETCH(double, bf16Tflops);
        QFETCH(int, domain);
        auto catalog = Catalog::builtin();
        QVERIFY2(catalog.isOk(), catalog.message().c_str());
        const GpuModel* g = catalog->findGpu(id.toStdString());
        QVERIFY(g);
        QCOMPARE(g->bf16FlopsPerSecond / 1e12, bf16Tflops);
        QCOMPARE(g->nvlinkDomainGpus, domain);
        QVERIFY(g->hbmBytes > 0 && g->hbmBytesPerSecond > 0 && g->scaleUpBytesPerSecond > 0);
    }

    // Device memory is what the device reports (nvidia-smi memory.total in MiB), not the marketing
    // figure: 80 GB on an H100 is 81,559 MiB, 288 GB on a B300 275,040 MiB, on a GB300 tray 284,208 MiB.
    void deviceReportedMemory_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("mebibytes");
        QTest::addRow("A100") << "A100-SXM-80GB" << 81920.0;
        QTest::addRow("H100") << "H100-SXM-80GB" << 81559.0;
        QTest::addRow("GB200") << "GB200" << 189471.0;
        QTest::addRow("B300") << "B300" << 275040.0;
        QTest::addRow("GB300") << "GB300" << 284208.0;
        QTest::addRow("A800") << "A800-SXM-80GB" << 81920.0;
        QTest::addRow("H800") << "H800-SXM-80GB" << 81559.0;
        QTest::addRow("H20") << "H20" << 97871.0;
    }
    void deviceReportedMemory()
    {
        QFETCH(QString, id);
        QFETCH(double, mebibytes);
        auto catalog = Catalog::builtin();
        QVERIFY2(catalog.isOk(), catalog.message().c_str());
        const GpuModel* g = catalog->findGpu(id.toStdString());
        QVERIFY(g);
        const double reportedBytes = mebibytes * 1024.0 * 1024.0;
        QVERIFY2(std::abs(g->hbmBytes / reportedBytes - 1.0) < 1e-3,
            qPrintable(QStringLiteral("%1 B against %2 B reported").arg(g->hbmBytes).arg(reportedBytes)));
    }

    void referenceServers_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("nics");
        QTest::addColumn<double>("nicGbps");
        QTest::addRow("DGX-1 V100") << "V100-SXM2-32GB" << 8 << 4 << 100.0;
        QTest::addRow("DGX A100") << "A100-SXM-80GB" << 8 << 8 << 200.0;
        QTest::addRow("DGX H100") << "H100-SXM-80GB" << 8 << 8 << 400.0;
        QTest::addRow("GB200 tray") << "GB200" << 4 << 4 << 400.0;
        QTest::addRow("DGX B300") << "B300" << 8 << 8 << 800.0;
        QTest::addRow("GB300 tray") << "GB300" << 4 << 4 << 800.0;
    }
    void referenceServers()
    {
        QFETCH(QString, id);
        static const Catalog catalog = Catalog::builtin().value();
        const GpuModel* g = catalog.findGpu(id.toStdString());
        QVERIFY(g);
        QTEST(g->serverGpus, "gpus");
        QTEST(g->serverNics, "nics");
        QTEST(g->serverNicGbps, "nicGbps");
        QVERIFY(!g->serverSource.empty());
    }

    void serverFallsBackToGeneration()
    {
        // A catalog written before "server" (a user's copy): each generation's reference NICs.
        std::string texts[4];
        const char* names[4] = { "gpus.json", "nics.json", "switches.json", "cables.json" };
        for (int i = 0; i < 4; ++i)
            texts[i] = std::string(clusterscope::resources::embeddedFile(std::string("catalog/") + names[i]));
        for (std::size_t at; (at = texts[0].find("\"server\": {")) != std::string::npos;)
            texts[0].erase(at, texts[0].find("},", at) + 2 - at);
        auto catalog = Catalog::parse(texts[0], texts[1], texts[2], texts[3], "cat");
        QVERIFY2(catalog.isOk(), catalog.message().c_str());
        const GpuModel* v100 = catalog->findGpu("V100-SXM2-32GB");
        const GpuModel* a100 = catalog->findGpu("A100-SXM-80GB");
        const GpuModel* gb300 = catalog->findGpu("GB300");
        QVERIFY(v100 && a100 && gb300);
        QCOMPARE(v100->serverNics, 4);
        QCOMPARE(v100->serverNicGbps, 100.0);
        QCOMPARE(a100->serverNics, 8);
        QCOMPARE(a100->serverNicGbps, 200.0);
        QCOMPARE(gb300->serverNicGbps, 400.0);
        QVERIFY(gb300->serverSource.empty());
    }

    void everyEntryHasSourceAndDate()
    {
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        auto check = [](const SourceInfo& s) { return !s.source.empty() && s.date.size() == 10; };
        for (const auto& e : catalog->gpus())
            QVERIFY2(check(e) && !e.serverSource.empty(), e.id.c_str()); // the reference server too
        for (const auto& e : catalog->nics())
            QVERIFY2(check(e), e.id.c_str());
        for (const auto& e : catalog->switches())
            QVERIFY2(check(e), e.id.c_str());
        for (const auto& e : catalog->cables())
            QVERIFY2(check(e), e.id.c_str());
        for (const auto& e : catalog->transceivers())
            QVERIFY2(check(e), e.id.c_str());
        QVERIFY(catalog->nicFor("infiniband", 400));
        QVERIFY(catalog->nicFor("infiniband", 200));
        QVERIFY(catalog->nicFor("infiniband", 800));
        QVERIFY(catalog->nicFor("roce", 400));
        QVERIFY(!catalog->nicFor("roce", 123));
        for (const auto& e : catalog->netTransports())
            QVERIFY2(check(e), e.id.c_str());
    }

    // Net transports: found by id and by the name NCCL prints in "Using network X" (any case).
    void netTransports()
    {
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        for (const char* id : { "ib", "roce", "gib", "tcpxo", "tcpx", "socket" })
            QVERIFY2(catalog->findNetTransport(id), id);
        const NetTransportModel* tcpxo = catalog->netTransportForNcclNet("fastrak");
        QVERIFY(tcpxo);
        QCOMPARE(tcpxo->id, std::string("tcpxo"));
        QCOMPARE(tcpxo->protocols, std::vector<std::string> { "Simple" });
        QVERIFY(!tcpxo->nvls);
        QCOMPARE(tcpxo->bufferBytes, 8388608.0);
        QCOMPARE(catalog->netTransportForNcclNet("GPUDirectTCPX_v7")->id, std::string("tcpx"));
        QCOMPARE(catalog->netTransportForNcclNet("IB")->id, std::string("ib"));
        QVERIFY(!catalog->netTransportForNcclNet("NoSuchPlugin"));
        QVERIFY(!catalog->findNetTransport("nope"));
    }

    void brokenCatalogNamesFileAndPointer_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::addRow("gpu without source")
            << "gpus.json"
            << "\"source\": \"NVIDIA H100"
            << "\"sourc\": \"NVIDIA H100"
            << "cat/gpus.json: /gpus/3/sourc: unknown key \"sourc\" (did you mean \"source\"?)";
        QTest::addRow("reference server without source")
            << "gpus.json"
            << "\"server\": {\"gpus\": 4, \"nics\": 4, \"nic_gbps\": 800, \"source\": \"NVIDIA GB300"
            << "\"server\": {\"gpus\": 4, \"nics\": 4, \"nic_gbps\": 800, \"sourc\": \"NVIDIA GB300"
            << "cat/gpus.json: /gpus/10/server/sourc: unknown key \"sourc\" (did you mean \"source\"?)";
        QTest::addRow("switch radix text") << "switches.json"
                                           << "\"radix\": 64"
                                           << "\"radix\": \"64\""
                                           << "cat/switches.json: /switches/1/radix: expected a positive integer";
        QTest::addRow("unknown transceiver")
            << "cables.json"
            << "\"transceiver\": \"SR4\""
            << "\"transceiver\": \"SR9\""
            << "cat/cables.json: /cables/2/transceiver: no transceiver with id \"SR9\"";
        QTest::addRow("net transport protocol")
            << "nics.json"
            << "\"protocols\": [\"Simple\"], \"nvls\": false, \"buffer_bytes\": 8388608"
            << "\"protocols\": [\"Simpel\"], \"nvls\": false, \"buffer_bytes\": 8388608"
            << "cat/nics.json: /net_transports/3/protocols/0: expected one of LL, LL128, "
               "Simple, got \"Simpel\"";
        QTest::addRow("net transport fabric") << "nics.json"
                                              << "\"fabric\": \"any\""
                                              << "\"fabric\": \"ethernet\""
                                              << "cat/nics.json: /net_transports/5/fabric";
        QTest::addRow("bad json") << "nics.json"
                                  << "\"nics\": ["
                                  << "\"nics\": [[,"
                                  << "cat/nics.json: byte";
    }
    void brokenCatalogNamesFileAndPointer()
    {
        QFETCH(QString, file);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        std::string texts[4];
        const char* names[4] = { "gpus.json", "nics.json", "switches.json", "cables.json" };
        for (int i = 0; i < 4; ++i) {
            texts[i] = std::string(clusterscope::resources::embeddedFile(std::string("catalog/") + names[i]));
            if (file == QLatin1String(names[i])) {
                const auto at = texts[i].find(from.toStdString());
                QVERIFY(at != std::string::npos);
                texts[i].replace(at, from.size(), to.toStdString());
            }
        }
        auto catalog = Catalog::parse(texts[0], texts[1], texts[2], texts[3], "cat");
        QVERIFY(!catalog.isOk());
        QVERIFY2(QString::fromStdString(catalog.message()).startsWith(expected), catalog.message().c_str());
    }

    void loadFromDirectory()
    {
        QTemporaryDir dir;
        for (const char* name : { "gpus.json", "nics.json", "switches.json", "cables.json" }) {
            QFile f(dir.filePath(QLatin1String(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            const auto text = clusterscope::resources::embeddedFile(std::string("catalog/") + name);
            f.write(text.data(), qint64(text.size()));
        }
        auto catalog = Catalog::loadFromDirectory(dir.path().toStdString());
        QVERIFY2(catalog.isOk(), catalog.message().c_str());
        QCOMPARE(catalog->gpus().size(), Catalog::builtin()->gpus().size());
        QFile::remove(dir.filePath(QStringLiteral("nics.json")));
        auto missing = Catalog::loadFromDirectory(dir.path().toStdString());
        QVERIFY(!missing.isOk());
        QVERIFY(QString::fromStdString(missing.message()).contains(QStringLiteral("nics.json")));
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
