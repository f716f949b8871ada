// ibnetdiscover import (real dumps and their quirks), tier inference, missing/degraded/self-looped
// links, .ibnl plans and the plan comparison, malformed input with line numbers, golden file.

#include "importers/ibnetdiscover/fabriccomparison.h"
#include "importers/ibnetdiscover/ibnetdiscoverlexer.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/ibnlparser.h"
#include "importers/ibnetdiscover/tierinference.h"

#include <QtTest>

#include <cstdio>
#include <set>
#include <sstream>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {
std::string dataPath(const char* rel) { return std::string(CLUSTERSCOPE_TEST_DATA_DIR "/ibnetdiscover/") + rel; }

int countFlags(const std::vector<FabricFlag>& flags, FabricFlag::Kind kind)
{
    return int(std::count_if(flags.begin(), flags.end(), [&](const FabricFlag& f) { return f.kind == kind; }));
}

std::vector<std::size_t> tiers(const ImportedFabric& f) { return f.graph.switchesPerTier(); }

// Canonical text of an imported fabric for golden files.
std::string dump(const ImportedFabric& f)
{
    std::ostringstream os;
    const auto& g = f.graph;
    for (engine::NodeId n = 0; n < g.nodeCount(); ++n) {
        char guid[32];
        std::snprintf(guid, sizeof guid, "%016llx", static_cast<unsigned long long>(g.node(n).guid));
        os << "node " << n << " " << engine::toString(g.node(n).kind) << " " << guid << " ports " << g.node(n).ports
           << " tier " << int(g.node(n).tier) << " host " << g.node(n).host << " \"" << g.label(n) << "\"\n";
    }
    for (const auto& l : g.links())
        os << "link " << l.a << ":" << l.portA << " - " << l.b << ":" << l.portB << " " << int(l.lanes) << "x "
           << l.gbps << " Gb/s flags " << int(l.flags) << "\n";
    for (const auto& fl : f.flags) {
        os << "flag " << toString(fl.kind);
        for (const auto& p : fl.ports)
            os << " " << p;
        os << "\n";
    }
    for (const auto& d : f.diagnostics.items())
        os << "diagnostic " << d.id << " x" << d.count << "\n";
    return os.str();
}
}

class TestIbnetdiscover : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lexer_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("port");
        QTest::addColumn<int>("peerPort");
        QTest::addColumn<int>("lanes");
        QTest::addColumn<QString>("speed");
        QTest::addRow("switch header")
            << "Switch\t36 \"S-f4521403001165a0\"\t\t# \"MF0;ib5:SX6036/U1\" enhanced port 0 lid 128 lmc 0"
            << int(IbLine::Kind::NodeHeader) << 0 << 0 << 0 << "";
        QTest::addRow("ca header") << "Ca      2 \"H-0003ba000100e388\" # \"nsn33-43 HCA-1\""
                                   << int(IbLine::Kind::NodeHeader) << 0 << 0 << 0 << "";
        QTest::addRow("switch port to ca")
            << "[1]\t\"H-24be05ffff980030\"[1](24be05ffff980031) \t\t# \"stage114 mlx4_0\" lid 105 4xQDR"
            << int(IbLine::Kind::Port) << 1 << 1 << 4 << "QDR";
        QTest::addRow("switch port to switch")
            << "[21]\t\"S-f4521403007ea570\"[26]\t\t# \"MF0;ib8:SX6036/U1\" lid 1 4xFDR10" << int(IbLine::Kind::Port)
            << 21 << 26 << 4 << "FDR10";
        QTest::addRow("ca port") << "[2](2c903003421b2) \"S-e41d2d030003e470\"[35] # lid 3 lmc 0 \"SwitchIB Mellanox "
                                    "Technologies\" lid 268 4xFDR"
                                 << int(IbLine::Kind::Port) << 2 << 35 << 4 << "FDR";
        QTest::addRow("1x link")
            << "[1]     \"S-005442ba00003080\"[10]                # \"ISR9024 Voltaire\" lid 6 1xSDR"
            << int(IbLine::Kind::Port) << 1 << 10 << 1 << "SDR";
        // ibnetdiscover --ports (infiniband-diags ibnetdiscover.c dump_ports_report).
        QTest::addRow("ports report, switch to ca")
            << "SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde ( 'ib-i1l1s01' - 'o0001 HCA-1' )"
            << int(IbLine::Kind::PortsReport) << 10 << 1 << 4 << "EDR";
        QTest::addRow("ports report, unconnected")
            << "SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'"
            << int(IbLine::Kind::PortsReport) << 37 << 0 << 4 << "";
        QTest::addRow("ports report, truncated") << "CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719"
                                                 << int(IbLine::Kind::Unrecognised) << 0 << 0 << 0 << "";
        QTest::addRow("error text")
            << "src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110"
            << int(IbLine::Kind::Unrecognised) << 0 << 0 << 0 << "";
        QTest::addRow("truncated port") << "[3]\t\"S-f45214" << int(IbLine::Kind::Unrecognised) << 0 << 0 << 0 << "";
        QTest::addRow("truncated header")
            << "Switch 36 \"S-f452" << int(IbLine::Kind::Unrecognised) << 0 << 0 << 0 << "";
    }
    void lexer()
    {
        QFETCH(QString, line);
        QFETCH(int, kind);
        QFETCH(int, port);
        QFETCH(int, peerPort);
        QFETCH(int, lanes);
        QFETCH(QString, speed);
        const auto lines = tokenizeIbnetdiscover(line.toStdString());
        QCOMPARE(int(lines.size()), 1);
        QCOMPARE(int(lines[0].kind), kind);
        QCOMPARE(lines[0].localPort, port);
        QCOMPARE(lines[0].peerPort, peerPort);
        QCOMPARE(lines[0].lanes, lanes);
        QCOMPARE(QString::fromStdString(lines[0].speed), speed);
    }

    void skippedLines()
    {
        // Comments, key=value, blank and whitespace-only lines (with CRLF) produce nothing.
        const auto lines = tokenizeIbnetdiscover("# c\r\nvendid=0x2c9\r\n \t \r\n\r\nswitchguid=0x1(1)\n");
        QCOMPARE(int(lines.size()), 0);
    }

    void loginoff()
    {
        auto f = importIbnetdiscoverFile(dataPath("loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz"));
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Switch), std::size_t(8));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Nic), std::size_t(144));
        QCOMPARE(tiers(*f), (std::vector<std::size_t> { 6, 2 }));
        // 145 CA links + 47 of the 48 leaf-spine uplinks, each once though listed from both ends.
        std::size_t present = 0, missing = 0;
        for (const auto& l : f->graph.links())
            (l.flags & engine::kLinkMissing ? missing : present) += 1;
        QCOMPARE(present, std::size_t(192));
        QCOMPARE(missing, std::size_t(1));
        QCOMPARE(f->graph.countLinks(engine::LinkLevel::LeafSpine), std::size_t(47));
        QCOMPARE(countFlags(f->flags, FabricFlag::Kind::Missing), 1);
        const auto& flag = *std::find_if(
            f->flags.begin(), f->flags.end(), [](const auto& x) { return x.kind == FabricFlag::Kind::Missing; });
        QCOMPARE(flag.ports, (std::vector<std::string> { "S-f452140300115da0/P0", "S-f4521403007ea570/P0" }));
        QVERIFY(QString::fromStdString(flag.message).contains(QStringLiteral("has 3 link(s)")));
        QCOMPARE(countFlags(f->flags, FabricFlag::Kind::Degraded), 0);
        QCOMPARE(countFlags(f->flags, FabricFlag::Kind::SelfLoop), 0);
        // FDR10 4x = 40 Gb/s nominal; QDR 4x = 40.
        for (const auto& l : f->graph.links())
            if (!(l.flags & engine::kLinkMissing))
                QCOMPARE(l.gbps, 40.0f);
    }

    // `ibnetdiscover --ports` (one line per port, port GUIDs; what monitoring such as the Prometheus
    // infiniband_exporter runs) of the same real fabric imports to the same fabric as its topology dump:
    // the same switches, CAs (a dual-port HCA stays one CA), links, tiers and missing uplink.
    // loginoff_infiniband_topology_ports.txt.gz is written from the topology dump by
    // generate_ports_report.py.
    // The same for `iblinkinfo` (peers by LID, every switch port listed, "Down/ Polling" ones too) and
    // `iblinkinfo --line` (peers by GUID), written by the same script.
    void portsReportMatchesTopology_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("ibnetdiscover --ports") << "loginoff_infiniband_topology_ports.txt.gz";
        QTest::addRow("iblinkinfo") << "loginoff_infiniband_topology_iblinkinfo.txt.gz";
        QTest::addRow("iblinkinfo --line") << "loginoff_infiniband_topology_iblinkinfo_line.txt.gz";
    }
    void portsReportMatchesTopology()
    {
        QFETCH(QString, file);
        auto topology = importIbnetdiscoverFile(dataPath("loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz"));
        auto ports = importIbnetdiscoverFile(dataPath(file.toUtf8().constData()));
        QVERIFY2(topology, topology.message().c_str());
        QVERIFY2(ports, ports.message().c_str());
        QCOMPARE(ports->graph.countNodes(engine::NodeKind::Switch), std::size_t(8));
        QCOMPARE(ports->graph.countNodes(engine::NodeKind::Nic), std::size_t(144));
        QCOMPARE(tiers(*ports), (std::vector<std::size_t> { 6, 2 }));
        QCOMPARE(countFlags(ports->flags, FabricFlag::Kind::Missing), 1);
        // Node for node, link for link, flag for flag (the canonical dump of both), but for the port
        // count a ports report does not print (it gives the highest port seen).
        const auto withoutPortCounts = [](std::string text) {
            for (std::size_t at = text.find(" ports "); at != std::string::npos; at = text.find(" ports ", at + 1)) {
                const std::size_t end = text.find(' ', at + 7);
                text.erase(at + 7, end - (at + 7));
            }
            return text;
        };
        const std::string a = withoutPortCounts(dump(*topology)), b = withoutPortCounts(dump(*ports));
        if (a != b) {
            std::size_t at = 0;
            while (at < a.size() && at < b.size() && a[at] == b[at])
                ++at;
            const std::size_t from = a.rfind('\n', at) == std::string::npos ? 0 : a.rfind('\n', at) + 1;
            QFAIL(("first difference: topology \"" + a.substr(from, 160) + "\" ports \"" + b.substr(from, 160) + "\"")
                      .c_str());
        }
    }

    // The ports report quoted in the tests of treydock/infiniband_exporter (collectors/
    // ibnetdiscover_test.go, Apache-2.0): an excerpt with one unconnected port and a spine seen only as
    // a peer.
    void portsReportExcerpt()
    {
        const std::string text
            = "CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719 10 0x7cfe9003009ce5b0 ( 'o0001 HCA-1' - 'ib-i1l1s01' "
              ")\n"
              "CA   133  1 0x7cfe9003003b4b96 4x EDR - SW  1719 11 0x7cfe9003009ce5b0 ( 'o0002 HCA-1' - 'ib-i1l1s01' "
              ")\n"
              "CA  1432  1 0x506b4b0300cc02a6 4x EDR - SW  2052 35 0x506b4b03005c2740 ( 'p0001 HCA-1' - 'ib-i4l1s01' "
              ")\n"
              "SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde ( 'ib-i1l1s01' - 'o0001 HCA-1' "
              ")\n"
              "SW  1719 11 0x7cfe9003009ce5b0 4x EDR - CA   133  1 0x7cfe9003003b4b96 ( 'ib-i1l1s01' - 'o0002 HCA-1' "
              ")\n"
              "SW  1719  1 0x7cfe9003009ce5b0 4x EDR - SW  1516  1 0x7cfe900300b07320 ( 'ib-i1l1s01' - 'ib-i1l2s01' )\n"
              "SW  2052 35 0x506b4b03005c2740 4x EDR - CA  1432  1 0x506b4b0300cc02a6 ( 'ib-i4l1s01' - 'p0001 HCA-1' "
              ")\n"
              "SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'\n";
        auto f = parseIbnetdiscover(text, "ports.txt");
        QVERIFY2(f, f.message().c_str());
        // A line that is no port in the middle is counted as such (not as text before a first node).
        std::string damaged = text;
        damaged.insert(damaged.find("\nSW  1719 10") + 1, "ibwarn: [1234] mad_rpc: _do_madrpc failed\n");
        auto d = parseIbnetdiscover(damaged, "ports.txt");
        QVERIFY2(d, d.message().c_str());
        bool counted = false;
        for (const auto& item : d->diagnostics.items()) {
            QVERIFY(item.id != engine::diagnostic::kIbLeadingText.id);
            counted = counted || (item.id == engine::diagnostic::kIbUnrecognisedLine.id && item.count == 1);
        }
        QVERIFY(counted);
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Switch), std::size_t(3));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Nic), std::size_t(3));
        QCOMPARE(f->graph.links().size(), std::size_t(4));
        for (const auto& l : f->graph.links()) {
            QCOMPARE(int(l.lanes), 4);
            QCOMPARE(l.gbps, 100.0f); // 4x EDR: 4 x 25 Gb/s
        }
        std::set<std::string> labels;
        for (engine::NodeId n = 0; n < f->graph.nodeCount(); ++n)
            labels.insert(f->graph.label(n));
        QVERIFY(labels.count("o0001 HCA-1") && labels.count("ib-i4l1s01") && labels.count("ib-i1l2s01"));
    }

    // iblinkinfo output as quoted on public pages: the default per-node form with a switch's "Down/
    // Polling" ports (a 36-port QDR switch and its hosts), and two --line records of a switch whose
    // peers are only named (an ibsim capture; its SDR lane rate changed here to EDR's 25.78125).
    void iblinkinfoExcerpts()
    {
        const std::string perNode
            = "CA: centos-data-200 HCA-1:\n"
              "    0x0002c903000d81f9      4    1[  ] ==( 4X          10.0 Gbps Active/ LinkUp)==>       2    3[  ] "
              "\"Infiniscale-IV Mellanox Technologies\" ( )\n"
              "CA: centos-data-201 HCA-1:\n"
              "    0x0002c903004d14a5      1    1[  ] ==( 4X          10.0 Gbps Active/ LinkUp)==>       2    2[  ] "
              "\"Infiniscale-IV Mellanox Technologies\" ( )\n"
              "Switch: 0x0002c9020046c588 Infiniscale-IV Mellanox Technologies:\n"
              "           2    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       3    1[  ] \"centos-data-202 "
              "HCA-1\" ( )\n"
              "           2    2[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       1    1[  ] \"centos-data-201 "
              "HCA-1\" ( )\n"
              "           2    3[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       4    1[  ] \"centos-data-200 "
              "HCA-1\" ( )\n"
              "           2    5[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
              "           2   36[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n";
        QVERIFY(looksLikeIblinkinfo(perNode));
        auto f = parseIbnetdiscover(perNode, "iblinkinfo.txt");
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Switch), std::size_t(1));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Nic), std::size_t(3)); // 200, 201 and 202 (a peer only)
        QCOMPARE(f->graph.links().size(), std::size_t(3));
        for (const auto& l : f->graph.links())
            QCOMPARE(l.gbps, 40.0f); // 4x QDR
        const std::string lines
            = "0x0000000000200002 \"               hxa-su1-leaf-r1\"      4    1[  ] ==( 4X      25.78125 Gbps Active/ "
              " "
              "LinkUp)==>  0x0000000000100002      5    1[  ] \"hxa-gpu01 mlx5_0\" (Could be 12X Could be 10.0 Gbps)\n"
              "0x0000000000200002 \"               hxa-su1-leaf-r1\"      4    2[  ] ==( 4X      25.78125 Gbps Active/ "
              " "
              "LinkUp)==>  0x0000000000100006     10    1[  ] \"hxa-gpu02 mlx5_0\" (Could be 12X Could be 10.0 Gbps)\n";
        QVERIFY(looksLikeIblinkinfo(lines));
        auto g = parseIbnetdiscover(lines, "iblinkinfo-l.txt");
        QVERIFY2(g, g.message().c_str());
        QCOMPARE(g->graph.countNodes(engine::NodeKind::Switch), std::size_t(1)); // one GUID, two ports
        QCOMPARE(g->graph.countNodes(engine::NodeKind::Nic), std::size_t(2));
        for (const auto& l : g->graph.links())
            QCOMPARE(l.gbps, 100.0f); // 4x EDR
        // A topology dump and a ports report are not iblinkinfo.
        QVERIFY(!looksLikeIblinkinfo("Switch\t36 \"S-f4521403001165a0\"\t\t# \"MF0;ib5:SX6036/U1\" enhanced port 0\n"));
        QVERIFY(!looksLikeIblinkinfo(
            "SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde ( 'a' - 'b' )"));
    }

    void asymmetricWidths()
    {
        auto f = importIbnetdiscoverFile(dataPath("jabl_ibtopotool_tests_1.topo"));
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(countFlags(f->flags, FabricFlag::Kind::Degraded), 2);
        for (const auto& l : f->graph.links())
            if (l.flags & engine::kLinkDegraded) {
                QCOMPARE(int(l.lanes), 1);
                QCOMPARE(l.gbps, 2.5f);
            }
        QVERIFY(f->diagnostics.find("ibnetdiscover.leading_text")); // "Non-Chassis Nodes"
        QCOMPARE(f->graph.linkCount(), std::size_t(7));
        // Four CAs share the default description "MT23108 InfiniHost ...": four hosts, not one.
        std::set<std::int32_t> hosts;
        for (engine::NodeId n : f->graph.nodesOfKind(engine::NodeKind::Nic))
            hosts.insert(f->graph.node(n).host);
        QCOMPARE(int(hosts.size()), 4);
    }

    void selfLoopsAndLeadingError()
    {
        auto f = importIbnetdiscoverFile(dataPath("jabl_ibtopotool_tests_3.topo"));
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(countFlags(f->flags, FabricFlag::Kind::SelfLoop), 3); // ports 1-2, 19-21, 29-30, each seen twice
        const auto* lead = f->diagnostics.find("ibnetdiscover.leading_text");
        QVERIFY(lead);
        QVERIFY(QString::fromStdString(lead->message).contains(QStringLiteral("line 1:")));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Switch), std::size_t(2));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Nic), std::size_t(6));
        QCOMPARE(f->graph.linkCount(), std::size_t(7)); // self-loops are not graph links
        // "r-ufm101 HCA-1" and "r-ufm101 HCA-2": two HCAs of one server.
        const auto nics = f->graph.nodesOfKind(engine::NodeKind::Nic);
        QCOMPARE(f->graph.node(nics[0]).host, f->graph.node(nics[1]).host);
        QVERIFY(f->graph.node(nics[1]).host != f->graph.node(nics[2]).host);
        for (const auto& l : f->graph.links())
            QVERIFY(l.a != l.b);
    }

    void whitespaceLineAndTrunk()
    {
        auto f = importIbnetdiscoverFile(dataPath("jabl_ibtopotool_tests_4.topo"));
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(f->graph.linkCount(), std::size_t(1));
        QVERIFY(f->diagnostics.empty());
        auto t = importIbnetdiscoverFile(dataPath("junousi_ibtopotool_tests_test2.topo"));
        QVERIFY2(t, t.message().c_str());
        QCOMPARE(t->graph.countNodes(engine::NodeKind::Nic), std::size_t(20));
        int trunk = 0; // the 5-link trunk between the two blade switches, each cable once
        for (const auto& l : t->graph.links())
            trunk += t->graph.node(l.a).kind == engine::NodeKind::Switch
                && t->graph.node(l.b).kind == engine::NodeKind::Switch;
        QCOMPARE(trunk, 5);
        QCOMPARE(tiers(*t), (std::vector<std::size_t> { 2 }));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("expected");
        QTest::addRow("empty") << QByteArray("") << false << "x.topo: line 1: no Switch or Ca node header";
        QTest::addRow("junk") << QByteArray("\n\nhello world\n") << false
                              << "x.topo: line 3: no Switch or Ca node header";
        QTest::addRow("bad port line") << QByteArray(
            "Switch 4 \"S-01\" # \"a\"\n[1] \"H-02\"[1](03) # \"h\" lid 1 4xQDR\n[2] garbage\n")
                                       << true << "line 3: lines that are neither";
        QTest::addRow("truncated last line")
            << QByteArray("Switch 4 \"S-01\" # \"a\"\n[1] \"H-02\"[1](03) # \"h\" lid 1 4xQDR\n[2] \"H-0") << true
            << "line 3: lines that are neither";
        QTest::addRow("unknown speed") << QByteArray(
            "Switch 4 \"S-01\" # \"a\"\n[1] \"H-02\"[1](03) # \"h\" lid 1 4xWARP\n")
                                       << true << "line 2: link speed \"WARP\" is unknown";
        QTest::addRow("port conflict") << QByteArray(
            "Switch 4 \"S-01\" # \"a\"\n[1] \"H-02\"[1] # \"h\" lid 1 4xQDR\n[1] \"H-03\"[1] # \"h\" lid 1 4xQDR\n")
                                       << true << "line 3: a port is reported connected to two different peers";
    }
    void malformed()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, ok);
        QFETCH(QString, expected);
        auto f = parseIbnetdiscover(text.toStdString(), "x.topo");
        QCOMPARE(bool(f), ok);
        if (!ok) {
            QVERIFY2(QString::fromStdString(f.message()).contains(expected), f.message().c_str());
            return;
        }
        QString all;
        for (const auto& d : f->diagnostics.items())
            all += QString::fromStdString(d.message) + QLatin1Char('\n');
        QVERIFY2(all.contains(expected), qPrintable(all));
    }

    void ibnl()
    {
        auto plan = importIbnlFile(dataPath("kalcher_infiniband_topology_test.ibnl"));
        QVERIFY2(plan, plan.message().c_str());
        QCOMPARE(int(plan->systems.size()), 8); // 4 switches declared + 4 HCAs named as peers
        QCOMPARE(int(plan->cables.size()), 8); // 4 switch-switch cables listed from both ends + 4 HCA cables
        QCOMPARE(QString::fromStdString(plan->systems[0].type), QStringLiteral("SX6036"));
    }

    void ibnlErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("bad port line") << QByteArray("SX6036 sw1\n\tP1 - SX6036 sw2 P1\n")
                                       << "p.ibnl: line 2: expected \"P<n> -> TYPE NAME P<m>\"";
        QTest::addRow("port before system")
            << QByteArray("\n\tP1 -> SX6036 sw2 P1\n") << "p.ibnl: line 2: a port line before the first system line";
        QTest::addRow("lonely word") << QByteArray("SX6036\n") << "p.ibnl: line 1: expected a system line";
        QTest::addRow("empty") << QByteArray("# nothing\n") << "p.ibnl: line 1: no system line";
    }
    void ibnlErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        auto plan = parseIbnl(text.toStdString(), "p.ibnl");
        QVERIFY(!plan);
        QVERIFY2(QString::fromStdString(plan.message()).contains(expected), plan.message().c_str());
    }

    void compareWithPlanFlags()
    {
        auto f = importIbnetdiscoverFile(dataPath("plan_match.ibnetdiscover"));
        QVERIFY2(f, f.message().c_str());
        auto plan = importIbnlFile(dataPath("kalcher_infiniband_topology_test.ibnl"));
        QVERIFY2(plan, plan.message().c_str());
        const auto flags = compareWithPlan(*f, *plan);
        QCOMPARE(int(flags.size()), 3);
        QCOMPARE(int(flags[0].kind), int(FabricFlag::Kind::Missing));
        QCOMPARE(flags[0].ports, (std::vector<std::string> { "switch2/P2", "switch4/P2" }));
        QCOMPARE(int(flags[1].kind), int(FabricFlag::Kind::Miswired));
        QCOMPARE(flags[1].ports, (std::vector<std::string> { "switch3/P2", "switch4/P1", "switch4/P3" }));
        QCOMPARE(int(flags[2].kind), int(FabricFlag::Kind::Extra));
        QCOMPARE(flags[2].ports, (std::vector<std::string> { "switch1/P5", "switch4/P5" }));
        // The real dump against the same plan: none of its systems exist.
        auto other = importIbnetdiscoverFile(dataPath("jabl_ibtopotool_tests_2.topo"));
        QVERIFY(other);
        QCOMPARE(countFlags(compareWithPlan(*other, *plan), FabricFlag::Kind::Missing), 8);
    }

    void directorChassisTerminalCapture()
    {
        // A director (leaf and spine blades listed as switches), captured through a terminal: CRLF,
        // tabs lost, a shell prompt on the last line; plus a SHARP aggregation node on each blade.
        std::string text = "ibnetdiscover output\r\n";
        auto guid = [](int kind, int i) {
            char buf[32];
            std::snprintf(
                buf, sizeof buf, "%016llx", 0x0002c90300000000ull + (unsigned long long)(kind * 0x10000 + i * 16));
            return std::string(buf);
        };
        auto leafDesc = [](int b) { return "MF0;ib-dir01:MCS8500/L0" + std::to_string(b + 1) + "/U1"; };
        auto spineDesc = [](int s) { return "MF0;ib-dir01:MCS8500/S0" + std::to_string(s + 1) + "/U1"; };
        const int leaves = 4, spines = 2, hostsPerLeaf = 6;
        for (int b = 0; b < leaves; ++b) {
            text += "Switch 41 \"S-" + guid(1, b) + "\" # \"" + leafDesc(b) + "\" enhanced port 0 lid 1 lmc 0\r\n";
            for (int h = 0; h < hostsPerLeaf; ++h)
                text += "[" + std::to_string(h + 1) + "] \"H-" + guid(3, b * hostsPerLeaf + h) + "\"[1](0) # \"gpu"
                    + std::to_string(b * hostsPerLeaf + h) + " mlx5_0\" lid 5 4xHDR\r\n";
            for (int s = 0; s < spines; ++s)
                for (int m = 0; m < 2; ++m)
                    text += "[" + std::to_string(21 + 2 * s + m) + "] \"S-" + guid(2, s) + "\"["
                        + std::to_string(1 + 2 * b + m) + "] # \"" + spineDesc(s) + "\" lid 2 4xHDR\r\n";
            text += "[41] \"H-" + guid(4, b)
                + "\"[1](0) # \"Mellanox Technologies Aggregation Node\" lid 9 4xHDR\r\n\r\n";
        }
        for (int s = 0; s < spines; ++s) {
            text += "Switch 41 \"S-" + guid(2, s) + "\" # \"" + spineDesc(s) + "\" enhanced port 0 lid 1 lmc 0\r\n";
            for (int b = 0; b < leaves; ++b)
                for (int m = 0; m < 2; ++m)
                    text += "[" + std::to_string(1 + 2 * b + m) + "] \"S-" + guid(1, b) + "\"["
                        + std::to_string(21 + 2 * s + m) + "] # \"" + leafDesc(b) + "\" lid 2 4xHDR\r\n";
            text += "\r\n";
        }
        text += "[admin@ufm01 ~]$ ";
        auto f = parseIbnetdiscover(text, "director.txt");
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(int(f->flags.size()), 0);
        QCOMPARE(tiers(*f), (std::vector<std::size_t> { 4, 2 }));
        QCOMPARE(f->graph.countNodes(engine::NodeKind::Nic), std::size_t(leaves * hostsPerLeaf));
        QCOMPARE(int(f->structure.embedded.size()), leaves);
        QCOMPARE(int(f->structure.chassis.size()), 1);
        QCOMPARE(QString::fromStdString(f->structure.chassis[0].model), QStringLiteral("MCS8500"));
        QCOMPARE(int(f->structure.chassis[0].leafBlades.size()), leaves);
        QCOMPARE(int(f->structure.chassis[0].spineBlades.size()), spines);
        QVERIFY(f->diagnostics.find("ibnetdiscover.trailing_prompt"));
        QVERIFY(!f->diagnostics.find("ibnetdiscover.unrecognised_line"));
        QCOMPARE(int(f->structure.groups.size()), 1);
        QCOMPARE(f->structure.groups[0].linksPerPair, 2);
        // One blade loses a cable to a spine: exactly one missing flag, on that pair.
        const std::string cut = "[22] \"S-" + guid(2, 0) + "\"[2] # \"" + spineDesc(0) + "\" lid 2 4xHDR\r\n";
        std::string damaged = text;
        damaged.erase(damaged.find(cut), cut.size());
        const std::string back = "[2] \"S-" + guid(1, 0) + "\"[22] # \"" + leafDesc(0) + "\" lid 2 4xHDR\r\n";
        damaged.erase(damaged.find(back), back.size());
        auto d = parseIbnetdiscover(damaged, "director.txt");
        QVERIFY(d);
        QCOMPARE(int(d->flags.size()), 1);
        QCOMPARE(int(d->flags[0].kind), int(FabricFlag::Kind::Missing));
        QCOMPARE(
            d->flags[0].ports, (std::vector<std::string> { "S-" + guid(1, 0) + "/P0", "S-" + guid(2, 0) + "/P0" }));
    }

    void tierNames_data()
    {
        QTest::addColumn<QString>("description");
        QTest::addColumn<int>("tier");
        QTest::addRow("leaf") << "MF0;ib-leaf-07:MQM8700/U1" << 0;
        QTest::addRow("spine") << "MF0;spine12:MQM8700/U1" << 1;
        QTest::addRow("super-spine") << "MF0;super-spine-3:MQM8790/U1" << 2;
        QTest::addRow("core") << "core-01" << 2;
        QTest::addRow("none") << "Quantum Mellanox Technologies" << -1;
        QTest::addRow("director blade") << "MF0;ib-dir01:MCS8500/L05/U1" << -1;
    }
    void tierNames()
    {
        QFETCH(QString, description);
        QFETCH(int, tier);
        QCOMPARE(tierNamedBy(description.toStdString()), tier);
    }

    void golden_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addRow("loginoff") << "loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz";
        QTest::addRow("jabl3") << "jabl_ibtopotool_tests_3.topo";
    }
    void golden()
    {
        QFETCH(QString, input);
        auto f = importIbnetdiscoverFile(dataPath(input.toUtf8().constData()));
        QVERIFY2(f, f.message().c_str());
        const std::string text = dump(*f);
        QString path = QString::fromStdString(dataPath(input.toUtf8().constData()));
        path.replace(QStringLiteral(".gz"), QString());
        path += QStringLiteral(".golden.txt");
        if (qEnvironmentVariableIsSet("CLUSTERSCOPE_UPDATE_GOLDEN")) {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(text));
        }
        QFile in(path);
        QVERIFY2(in.open(QIODevice::ReadOnly), "golden file missing: run with CLUSTERSCOPE_UPDATE_GOLDEN=1");
        QCOMPARE(QString::fromStdString(text), QString::fromUtf8(in.readAll()));
    }
};

QTEST_GUILESS_MAIN(TestIbnetdiscover)
#include "tst_ibnetdiscover.moc"
