// Source profiles (the built-in JSON and their errors), attaching series to link ends of a built
// fabric (host naming) and of an imported ibnetdiscover fabric (CA descriptions, "HCA-N", switch
// GUIDs and descriptions), unmatched-series reasons, a saved snapshot, and the rules file.

#include "engine/fabric/fabricbuilder.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/telemetry/promrules.h"
#include "importers/telemetry/telemetryfetcher.h"

#include <QtTest>

using namespace clusterscope;
using namespace clusterscope::engine;
using namespace clusterscope::importers;

namespace {
std::string dataPath(const std::string& rel) { return std::string(CLUSTERSCOPE_TEST_DATA_DIR "/") + rel; }

const SourceProfile& profile(const std::vector<SourceProfile>& all, const std::string& name)
{
    for (const auto& p : all)
        if (p.name == name)
            return p;
    return all.front();
}
} // namespace

class TestTelemetryMapping : public QObject {
    Q_OBJECT
private slots:
    void builtinProfiles()
    {
        auto all = builtinSourceProfiles();
        QVERIFY2(all, all.message().c_str());
        QCOMPARE(all->size(), std::size_t(5));
        const auto& dcgm = profile(*all, "dcgm_exporter");
        QCOMPARE(int(dcgm.end), int(ProfileEnd::Gpu));
        QVERIFY(dcgm.series[0].gauge); // NVLink bytes are B/s gauges, not counters
        const auto& snmp = profile(*all, "snmp_exporter_if_mib");
        QCOMPARE(snmp.capacityScale, 125000.0); // ifHighSpeed Mb/s -> B/s
        QVERIFY(snmp.portTrailingNumber);
    }

    void profileErrors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        const QString head = QStringLiteral(R"({"format":"clusterscope-telemetry-profile","version":1,"name":"x",)");
        QTest::addRow("not json") << "{"
                                  << "p.json: not a JSON object";
        QTest::addRow("wrong format") << R"({"format":"other"})"
                                      << "p.json: /format: expected \"clusterscope-telemetry-profile\"";
        QTest::addRow("bad end") << head + R"("end":"rack","labels":{},"series":[]})"
                                 << "p.json: /end: \"rack\" is not nic, switch or gpu";
        QTest::addRow("nic without device") << head + R"("end":"nic","labels":{"host":"host"},"series":[]})"
                                            << "p.json: /labels: a nic profile needs \"host\" and \"device\"";
        QTest::addRow("unknown quantity") << head
                + R"("end":"switch","labels":{"name":"n"},"series":[{"metric":"m","measures":"watts","type":"counter"}]})"
                                          << "p.json: /series/0/measures: unknown quantity \"watts\"";
        QTest::addRow("bad type") << head
                + R"("end":"switch","labels":{"name":"n"},"series":[{"metric":"m","measures":"tx_bytes","type":"histogram"}]})"
                                  << "p.json: /series/0/type: \"histogram\" is not counter or gauge";
        QTest::addRow("zero scale") << head
                + R"("end":"switch","labels":{"name":"n"},"series":[{"metric":"m","measures":"tx_bytes","type":"counter","scale":0}]})"
                                    << "p.json: /series/0/scale: must be positive";
    }
    void profileErrors()
    {
        QFETCH(QString, json);
        QFETCH(QString, message);
        auto p = parseSourceProfile(json.toStdString(), "p.json");
        QVERIFY(!p);
        QCOMPARE(QString::fromStdString(p.message()), message);
    }

    void builtFabricNaming()
    {
        HostOptions h;
        h.hosts = 4;
        ClosOptions c;
        c.radix = 8;
        c.tiers = 2;
        c.railOptimized = true;
        auto d = buildClos(h, c);
        QVERIFY(d);
        FabricGraph g = d->graph;
        FabricMapping m(g, HostNaming::parse("gpu-node-:2:0").value());
        auto all = builtinSourceProfiles();
        std::string why;
        auto end = m.map(profile(*all, "node_exporter_infiniband"),
            { { "device", "mlx5_3" }, { "instance", "gpu-node-02:9100" }, { "port", "1" } }, why);
        QVERIFY2(end, why.c_str());
        const FabricLink& l = g.link(end->link);
        const NodeId nic = end->end == 0 ? l.a : l.b;
        QCOMPARE(g.node(nic).host, 2);
        QCOMPARE(int(g.node(nic).rail), 3);
        QCOMPARE(g.label(nic), std::string("gpu-node-02 mlx5_3"));
        // Switch port by the built label.
        auto sw = m.map(profile(*all, "ufm_telemetry"),
            { { "node_name", g.label(g.otherEnd(end->link, nic)) },
                { "port_num", std::to_string(end->end == 0 ? l.portB : l.portA) } },
            why);
        QVERIFY2(sw, why.c_str());
        QCOMPARE(sw->link, end->link);
        QCOMPARE(sw->end, 1 - end->end);
        // Unmatched, with the reason.
        QVERIFY(!m.map(profile(*all, "node_exporter_infiniband"),
            { { "device", "mlx5_3" }, { "instance", "gpu-node-09:9100" } }, why));
        QCOMPARE(why, std::string("no NIC \"gpu-node-09 mlx5_3\" in the fabric"));
        QVERIFY(!m.map(profile(*all, "ufm_telemetry"), { { "node_name", "leaf-0" }, { "port_num", "x" } }, why));
        QCOMPARE(why, std::string("label port_num=\"x\" is not a port number"));
        // GPUs map to their NVLink link.
        auto gpu = m.map(profile(*all, "dcgm_exporter"), { { "Hostname", "gpu-node-01" }, { "gpu", "5" } }, why);
        QVERIFY2(gpu, why.c_str());
        QCOMPARE(int(g.link(gpu->link).medium), int(LinkMedium::NvLink));
        QVERIFY(!HostNaming::parse("node:x"));
    }

    void importedFabricSnapshot()
    {
        auto fabric = importIbnetdiscoverFile(dataPath("ibnetdiscover/jabl_ibtopotool_tests_3.topo"));
        QVERIFY2(fabric, fabric.message().c_str());
        FabricGraph g = fabric->graph;
        FabricMapping m(g, HostNaming {});
        auto all = builtinSourceProfiles();
        auto snap = attachSnapshot(dataPath("telemetry/fabric3_snapshot.prom"), m, *all);
        QVERIFY2(snap, snap.message().c_str());
        QCOMPARE(snap->seriesMapped, std::size_t(5));
        QCOMPARE(snap->seriesUnmatched, std::size_t(2));
        QStringList unmatched;
        for (const auto& u : snap->unmatchedExamples)
            unmatched << QString::fromStdString(u);
        QVERIFY2(unmatched.join(QLatin1Char('\n')).contains(QStringLiteral("no NIC \"ghost mlx5_0\" in the fabric")),
            qPrintable(unmatched.join(QLatin1Char('\n'))));
        QVERIFY2(unmatched.join(QLatin1Char('\n'))
                     .contains(QStringLiteral("port 60 of SwitchIB Mellanox Technologies has no link")),
            qPrintable(unmatched.join(QLatin1Char('\n'))));
        // r-ufm111's HCA-1 (mlx5_0) port 2 and switch e41d2d030003e470 port 35 are the two ends of one link.
        LinkId link = kNoId;
        int nicErrors = 0, switchErrors = 0;
        snap->data.forEach([&](LinkId l, int end, TelemetryMetric metric, const RawSeries& s) {
            if (metric != TelemetryMetric::SymbolErrors)
                return;
            QVERIFY(link == kNoId || link == l);
            link = l;
            const NodeId n = end == 0 ? g.link(l).a : g.link(l).b;
            (g.node(n).kind == NodeKind::Nic ? nicErrors : switchErrors) = int(s.values.back());
        });
        QCOMPARE(nicErrors, 7);
        QCOMPARE(switchErrors, 9);
    }

    void rulesText()
    {
        HostOptions h;
        h.hosts = 8;
        ClosOptions c;
        c.radix = 8;
        c.tiers = 2;
        c.railOptimized = true;
        c.nodesPerSu = 4;
        auto d = buildClos(h, c);
        QVERIFY(d);
        FabricGraph g = d->graph;
        FabricMapping m(g, HostNaming {});
        auto all = builtinSourceProfiles();
        const std::string y = generatePrometheusRules(g, *all, AlertRules::defaults());
        QVERIFY(y.find("name: clusterscope_pod0") != std::string::npos);
        QVERIFY(y.find("name: clusterscope_pod1") != std::string::npos);
        QVERIFY2(y.find("irate(node_infiniband_port_data_transmitted_bytes_total{instance=~\"(node001|node002|node003|"
                        "node004)(:[0-9]+)?\"}[1m]) * 2e-11")
                != std::string::npos,
            y.c_str());
        QVERIFY(
            y.find("alert: ClusterScopeLinkDown\n        expr: 'increase(node_infiniband_link_downed_total[5m]) > 0'")
            != std::string::npos);
        QVERIFY(y.find("for: 2s") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTelemetryMapping)
#include "tst_telemetrymapping.moc"
