// clusterscope-cli export-fabric and import-fabric --plan-scenario as a user runs them: the fabric a
// scenario builds is written as an ibnetdiscover dump (with SHARP aggregation nodes and a
// management network), imported clean, then with one cable pulled and two swapped.

#include "clirunner.h"
#include "engine/store/fabricstore.h"
#include "engine/store/projectstore.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;

const QString kScenario = QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json");

QStringList readLines(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
}

bool writeLines(const QString& path, const QStringList& lines)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(lines.join(QLatin1Char('\n')).toUtf8()) > 0;
}

// Index of the port line `[port]` in the block of the node whose header names `guid`.
int portLine(const QStringList& lines, const QString& guid, int port)
{
    int i = 0;
    while (i < lines.size() && !(lines[i].startsWith(QLatin1String("Switch")) && lines[i].contains(guid)))
        ++i;
    for (++i; i < lines.size() && !lines[i].isEmpty(); ++i)
        if (lines[i].startsWith(QLatin1Char('[') + QString::number(port) + QLatin1Char(']')))
            return i;
    return -1;
}

struct Cable {
    QString guidA, guidB;
    int portA = 0, portB = 0;
};

// The n-th leaf-to-spine cable listed in the block of switch `leafName`.
Cable leafUplink(const QStringList& lines, const QString& leafName, int n)
{
    static const QRegularExpression header(QStringLiteral("^Switch\\s+\\d+\\s+\"S-([0-9a-f]+)\""));
    static const QRegularExpression port(QStringLiteral("^\\[(\\d+)\\]\\s*\"S-([0-9a-f]+)\"\\[(\\d+)\\]"));
    int i = 0;
    while (i < lines.size() && !lines[i].contains(QLatin1String("\"MF0;") + leafName + QLatin1Char(':')))
        ++i;
    if (i == lines.size())
        return {};
    Cable c;
    c.guidA = header.match(lines[i]).captured(1);
    for (++i; i < lines.size() && !lines[i].isEmpty(); ++i) {
        const auto m = port.match(lines[i]);
        if (m.hasMatch() && lines[i].contains(QLatin1String("MF0;spine")) && n-- == 0) {
            c.portA = m.captured(1).toInt();
            c.guidB = m.captured(2);
            c.portB = m.captured(3).toInt();
            return c;
        }
    }
    return {};
}

QJsonObject importJson(const QStringList& args)
{
    const Run r
        = runCli(QStringList { QStringLiteral("import-fabric") } + args + QStringList { QStringLiteral("--json") });
    if (r.exitCode != 0)
        qWarning("%s", qPrintable(r.err));
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

QStringList kinds(const QJsonObject& o)
{
    QStringList out;
    for (const auto& v : o.value(QStringLiteral("flags")).toArray())
        out << v.toObject().value(QStringLiteral("kind")).toString();
    out.sort();
    return out;
}
} // namespace

class TestCliFabricPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exportImportPlanScenario()
    {
        QTemporaryDir dir;
        const QString dump = dir.filePath(QStringLiteral("llama.topo"));
        Run r = runCli({ QStringLiteral("export-fabric"), kScenario, QStringLiteral("--ibnetdiscover"), dump,
            QStringLiteral("--sharp"), QStringLiteral("--management-switches"), QStringLiteral("2"),
            QStringLiteral("--management-hosts"), QStringLiteral("4") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("72 switches, 1025 CAs")),
            qPrintable(r.out)); // 5 SUs of 8 rail leaves, 32 spines; UFM

        // Clean: no flags, SHARP nodes apart from the hosts, the management fabric found.
        QJsonObject o = importJson({ dump });
        QCOMPARE(o.value(QStringLiteral("hcas")).toInt(), 1025 + 4);
        QCOMPARE(o.value(QStringLiteral("tiers")).toObject().value(QStringLiteral("leaf")).toInt(), 40 + 2);
        QCOMPARE(o.value(QStringLiteral("tiers")).toObject().value(QStringLiteral("spine")).toInt(), 32);
        QCOMPARE(o.value(QStringLiteral("flags")).toArray().size(), 0);
        const QJsonObject st = o.value(QStringLiteral("structure")).toObject();
        QCOMPARE(st.value(QStringLiteral("embedded_cas"))
                     .toObject()
                     .value(QStringLiteral("sharp_aggregation_nodes"))
                     .toInt(),
            74);
        QCOMPARE(st.value(QStringLiteral("tier_confidence")).toDouble(),
            1.0); // host-less leaves of the last SU: tier from their names
        const QJsonArray parts = st.value(QStringLiteral("parts")).toArray();
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts[1].toObject().value(QStringLiteral("role")).toString(), QStringLiteral("management"));
        o = importJson({ dump, QStringLiteral("--plan-scenario"), kScenario });
        QCOMPARE(o.value(QStringLiteral("flags")).toArray().size(), 0);
        QVERIFY(o.value(QStringLiteral("plan")).toString().contains(QStringLiteral("hosts compared by name")));

        // One leaf-spine cable pulled (both ends' lines), two cables of other leaves swapped.
        QStringList lines = readLines(dump);
        const Cable pulled = leafUplink(lines, QStringLiteral("leaf-3"), 0);
        const Cable x = leafUplink(lines, QStringLiteral("leaf-5"), 0),
                    y = leafUplink(lines, QStringLiteral("leaf-9"), 5);
        QVERIFY(!pulled.guidA.isEmpty() && !x.guidA.isEmpty() && !y.guidA.isEmpty());
        QVERIFY(x.guidB != y.guidB);
        const int a = portLine(lines, pulled.guidA, pulled.portA), b = portLine(lines, pulled.guidB, pulled.portB);
        QVERIFY(a >= 0 && b >= 0);
        // Swap the spine ends of x and y: rewrite the four port lines.
        auto rewrite = [&](const QString& guid, int port, const QString& from, const QString& to, int toPort) {
            const int i = portLine(lines, guid, port);
            QVERIFY(i >= 0);
            QString& l = lines[i];
            l.replace(QRegularExpression(QStringLiteral("\"S-") + from + QStringLiteral("\"\\[\\d+\\]")),
                QStringLiteral("\"S-") + to + QStringLiteral("\"[") + QString::number(toPort) + QLatin1Char(']'));
        };
        rewrite(x.guidA, x.portA, x.guidB, y.guidB, y.portB);
        rewrite(y.guidA, y.portA, y.guidB, x.guidB, x.portB);
        rewrite(x.guidB, x.portB, x.guidA, y.guidA, y.portA);
        rewrite(y.guidB, y.portB, y.guidA, x.guidA, x.portA);
        lines.removeAt(std::max(a, b));
        lines.removeAt(std::min(a, b));
        const QString damaged = dir.filePath(QStringLiteral("damaged.topo"));
        QVERIFY(writeLines(damaged, lines));

        // Against the pods' own pattern: one missing, one swap.
        o = importJson({ damaged });
        QCOMPARE(kinds(o), (QStringList { QStringLiteral("missing"), QStringLiteral("miswired") }));
        // Against the scenario's design: the pulled cable missing, the two swapped cables miswired.
        o = importJson({ damaged, QStringLiteral("--plan-scenario"), kScenario });
        QCOMPARE(kinds(o),
            (QStringList { QStringLiteral("missing"), QStringLiteral("miswired"), QStringLiteral("miswired") }));
        const QJsonObject missing = o.value(QStringLiteral("flags")).toArray()[0].toObject();
        QVERIFY2(missing.value(QStringLiteral("message")).toString().contains(QStringLiteral("leaf-3/P")),
            qPrintable(missing.value(QStringLiteral("message")).toString()));

        // Text output: one line per pattern.
        r = runCli({ QStringLiteral("import-fabric"), damaged });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("2 flag(s) in 2 pattern(s)")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("leaf-spine cables swapped")));
        QVERIFY(r.out.contains(QStringLiteral("74 SHARP aggregation nodes")));

        // Stored in a project beside its scenarios, as read.
        const QString project = dir.filePath(QStringLiteral("p.csproj"));
        r = runCli({ QStringLiteral("import-fabric"), damaged, QStringLiteral("--project"), project });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("as imported fabric 1 (\"damaged.topo\")")), qPrintable(r.out));
        auto store = clusterscope::engine::ProjectStore::open(project.toStdString());
        QVERIFY(store);
        const auto stored = clusterscope::engine::importedFabrics(*store);
        QVERIFY(stored && stored->size() == 1);
        QCOMPARE(QString::fromStdString(*clusterscope::engine::importedFabricDump(*store, (*stored)[0].id)),
            lines.join(QLatin1Char('\n')));

        // Bad input names the file.
        r = runCli({ QStringLiteral("import-fabric"), damaged, QStringLiteral("--plan-scenario"), dump });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(dump), qPrintable(r.err));
        r = runCli({ QStringLiteral("export-fabric"), kScenario });
        QCOMPARE(r.exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(TestCliFabricPlan)
#include "tst_cli_fabricplan.moc"
