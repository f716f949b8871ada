// Physical layout, media, price book and bill of materials: cable media follow reach, the price book
// covers the catalog and refuses bad entries, and the SuperPOD 1-SU BOM matches its golden CSV.

#include "engine/catalog/catalog.h"
#include "engine/fabric/fabricbom.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace clusterscope::engine;

namespace {
std::string dataFile(const char* name) { return std::string(CLUSTERSCOPE_TEST_DATA_DIR "/fabric/") + name; }
std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
} // namespace

class TestFabricBom : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mediumByReach_data()
    {
        QTest::addColumn<double>("metres");
        QTest::addColumn<double>("gbps");
        QTest::addColumn<QString>("cable");
        // Reaches of resources/catalog/cables.json (sources there): DAC 3 m, ACC 5 m, MMF 50 m, DR 500 m, FR4 2 km.
        QTest::addRow("same rack 2 m") << 2.0 << 400.0 << "DAC";
        QTest::addRow("3 m") << 3.0 << 400.0 << "DAC";
        QTest::addRow("4 m") << 4.0 << 400.0 << "ACC";
        QTest::addRow("20 m") << 20.0 << 400.0 << "MMF";
        QTest::addRow("200 m") << 200.0 << 400.0 << "SMF";
        QTest::addRow("1 km") << 1000.0 << 400.0 << "SMF-FR";
    }
    void mediumByReach()
    {
        QFETCH(double, metres);
        QFETCH(double, gbps);
        QFETCH(QString, cable);
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        // Two single-NIC servers on one leaf, the rack pitch stretched so the run has `metres`.
        HostOptions ho;
        ho.hosts = 1;
        ho.gpusPerNode = 1;
        ho.nicsPerNode = 1;
        ho.nvlinkDomainGpus = 1;
        ho.nicGbps = gbps;
        ClosOptions co;
        co.tiers = 1;
        auto d = buildClos(ho, co);
        QVERIFY(d.isOk());
        LayoutSpec l;
        l.racksPerRow = 1;
        l.slackMetres = 0;
        l.rackPitchMetres = metres; // the leaf sits one rack past the end of the row
        QVERIFY(layOutFabric(*d, l, *catalog).isOk());
        const FabricLink& link = d->graph.link(d->graph.linkCount() - 1);
        QCOMPARE(double(link.lengthMetres), metres);
        const CableModel* c = cableFor(link, *catalog);
        QVERIFY(c);
        QCOMPARE(QString::fromStdString(c->id), cable);
    }

    void tooFarIsAnError()
    {
        auto catalog = Catalog::builtin();
        QVERIFY(catalog.isOk());
        HostOptions ho;
        ho.hosts = 1;
        ClosOptions co;
        co.tiers = 1;
        auto d = buildClos(ho, co);
        LayoutSpec l;
        l.racksPerRow = 1;
        l.rackPitchMetres = 5000;
        const Status s = layOutFabric(*d, l, *catalog);
        QVERIFY(!s.isOk());
        QVERIFY2(
            s.message().rfind("/layout: no catalog cable carries 400 Gb/s over 5002", 0) == 0, s.message().c_str());
    }

    void lengthBins_data()
    {
        QTest::addColumn<double>("metres");
        QTest::addColumn<double>("bin");
        QTest::addRow("0.3") << 0.3 << 0.5;
        QTest::addRow("2.0") << 2.0 << 2.0;
        QTest::addRow("2.1") << 2.1 << 2.5;
        QTest::addRow("11.6") << 11.6 << 15.0;
        QTest::addRow("2500") << 2500.0 << 2500.0;
    }
    void lengthBins()
    {
        QFETCH(double, metres);
        QFETCH(double, bin);
        QCOMPARE(cableLengthBin(metres), bin);
    }

    void priceBookCoversCatalog()
    {
        auto catalog = Catalog::builtin();
        auto book = PriceBook::builtin();
        QVERIFY2(book.isOk(), book.message().c_str());
        for (const auto& e : catalog->gpus()) {
            QVERIFY2(book->find("gpu", e.id), e.id.c_str());
            QVERIFY2(book->find("host", e.id), e.id.c_str());
        }
        for (const auto& e : catalog->nics())
            QVERIFY2(book->find("nic", e.id), e.id.c_str());
        for (const auto& e : catalog->switches())
            QVERIFY2(book->find("switch", e.id), e.id.c_str());
        for (const auto& e : catalog->cables())
            QVERIFY2(book->find("cable", e.id), e.id.c_str());
        for (const auto& e : catalog->transceivers())
            QVERIFY2(book->find("transceiver", e.id), e.id.c_str());
        for (const auto& e : book->entries())
            QVERIFY(!e.source.empty() && e.date.size() == 10);
    }

    void priceBookErrors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        const QString head = QStringLiteral(R"({"format": "clusterscope-pricebook", "version": 1, "items": [)");
        QTest::addRow("no source") << head
                + R"({"kind": "nic", "id": "X", "price_usd": 1, "source": "", "date": "2025-01-01"}]})"
                                   << "p.json: /items/0/source: every price must name its source";
        QTest::addRow("bad date") << head
                + R"({"kind": "nic", "id": "X", "price_usd": 1, "source": "s", "date": "May 2025"}]})"
                                  << "p.json: /items/0/date: expected an ISO date YYYY-MM-DD, got \"May 2025\"";
        QTest::addRow("unknown kind") << head
                + R"({"kind": "rack", "id": "X", "price_usd": 1, "source": "s", "date": "2025-01-01"}]})"
                                      << "p.json: /items/0/kind";
        QTest::addRow("typo key") << head
                + R"({"kind": "nic", "id": "X", "price": 1, "source": "s", "date": "2025-01-01"}]})"
                                  << "p.json: /items/0/price_usd";
        QTest::addRow("duplicate") << head
                + R"({"kind": "nic", "id": "X", "price_usd": 1, "source": "s", "date": "2025-01-01"},
                                               {"kind": "nic", "id": "X", "price_usd": 2, "source": "s", "date": "2025-01-01"}]})"
                                   << "p.json: /items/1/id: duplicate price for nic \"X\"";
        QTest::addRow("not json") << QStringLiteral("{") << "p.json: byte 2: not valid JSON";
    }
    void priceBookErrors()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        auto book = PriceBook::parse(json.toStdString(), "p.json");
        QVERIFY(!book.isOk());
        QVERIFY2(QString::fromStdString(book.message()).startsWith(message), book.message().c_str());
    }

    void missingPriceIsAnError()
    {
        auto catalog = Catalog::builtin();
        auto s = loadScenarioFile(dataFile("superpod-1su.json"));
        QVERIFY(s.isOk());
        auto d = buildFabric(*s, *catalog);
        QVERIFY(layOutFabric(*d, defaultLayout(*d), *catalog).isOk());
        std::string text = std::string(R"({"format": "clusterscope-pricebook", "version": 1, "items": [)")
            + R"({"kind": "gpu", "id": "H100-SXM-80GB", "price_usd": 1, "source": "s", "date": "2025-01-01"},)"
            + R"({"kind": "host", "id": "H100-SXM-80GB", "price_usd": 1, "source": "s", "date": "2025-01-01"}]})";
        auto book = PriceBook::parse(text, "p.json");
        QVERIFY(book.isOk());
        auto bom = computeBom(*d, *catalog, *book);
        QVERIFY(!bom.isOk());
        QCOMPARE(QString::fromStdString(bom.message()), QStringLiteral("the price book has no switch \"QM9700\""));
    }

    void superPodGoldenCsv()
    {
        auto catalog = Catalog::builtin();
        auto book = PriceBook::builtin();
        auto s = loadScenarioFile(dataFile("superpod-1su.json"));
        QVERIFY2(s.isOk(), s.message().c_str());
        auto d = buildFabric(*s, *catalog);
        QVERIFY(d.isOk());
        QVERIFY(layOutFabric(*d, defaultLayout(*d), *catalog).isOk());
        auto bom = computeBom(*d, *catalog, *book);
        QVERIFY2(bom.isOk(), bom.message().c_str());
        QCOMPARE(
            QString::fromStdString(bomCsv(*bom)), QString::fromStdString(readText(dataFile("superpod-1su.bom.csv"))));
        // 12 switches, 248 NICs + the UFM's 4 ports cabled, optics at both ends of every fibre.
        long long fibres = 0, modules = 0;
        for (const auto& l : bom->lines) {
            if (l.item == "MMF")
                fibres += l.quantity;
            if (l.category == "transceiver")
                modules += l.quantity;
        }
        QCOMPARE(modules, 2 * fibres);
        QVERIFY(bom->networkShare() > 0.03 && bom->networkShare() < 0.25); // network share of cluster cost, a wide band
        QCOMPARE(bom->networkCostPerGpuUsd() * 248, bom->networkCostUsd);
    }
};

QTEST_GUILESS_MAIN(TestFabricBom)
#include "tst_fabricbom.moc"
