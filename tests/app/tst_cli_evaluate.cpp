// clusterscope-cli evaluate and search as a user runs them: the JSON keys of the scenario contract,
// strategy search when parallelism is absent, out-of-memory verdict and error messages; evaluate
// gives the numbers of the analysis the GUI runs (one orchestration: engine::analyseScenario).

#include "clirunner.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;

QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}

QJsonObject parse(const QString& text)
{
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
    return doc.object();
}

// A copy of an example with one edit, written to a temporary directory.
QString edited(QTemporaryDir& dir, const char* name, const std::function<void(QJsonObject&)>& edit)
{
    QFile in(example(name));
    in.open(QIODevice::ReadOnly);
    QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
    edit(root);
    const QString path = dir.filePath(QLatin1String(name));
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    out.write(QJsonDocument(root).toJson());
    return path;
}
} // namespace

class TestCliEvaluate : public QObject {
    Q_OBJECT

    static void checkEstimateKeys(const QJsonObject& o)
    {
        for (const char* key : { "iteration_seconds", "tflops_per_gpu", "mfu", "tokens_per_second", "network_share",
                 "memory_bytes_per_gpu", "breakdown", "parallelism" })
            QVERIFY2(o.contains(QLatin1String(key)), key);
        const QJsonObject b = o.value(QStringLiteral("breakdown")).toObject();
        double sum = 0;
        for (const char* key : { "compute", "recompute", "tp_exposed", "pp_exposed", "dp_exposed", "cp_exposed",
                 "ep_exposed", "bubble", "optimizer", "other" }) {
            QVERIFY2(b.contains(QLatin1String(key)), key);
            sum += b.value(QLatin1String(key)).toDouble();
        }
        QVERIFY(qAbs(sum - o.value(QStringLiteral("iteration_seconds")).toDouble()) < 1e-9 * sum);
        const QJsonObject p = o.value(QStringLiteral("parallelism")).toObject();
        for (const char* key : { "tp", "pp", "dp", "cp", "ep", "vpp", "zero", "sequence_parallel" })
            QVERIFY2(p.contains(QLatin1String(key)), key);
        QVERIFY(o.value(QStringLiteral("mfu")).toDouble() > 0 && o.value(QStringLiteral("mfu")).toDouble() < 1);
    }

private Q_SLOTS:
    void evaluateExamples_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("llama") << QStringLiteral("llama3-70b-1024-h100.json");
        QTest::addRow("gpt3") << QStringLiteral("gpt3-175b-1024-a100.json");
        QTest::addRow("mixtral") << QStringLiteral("mixtral-8x7b-256-h200-roce.json");
    }
    void evaluateExamples()
    {
        QFETCH(QString, name);
        const QString path = example(name.toLatin1().constData());
        Run r = runCli({ QStringLiteral("evaluate"), path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = parse(r.out);
        checkEstimateKeys(o);
        QCOMPARE(o.value(QStringLiteral("strategy_source")).toString(), QStringLiteral("scenario"));
        QVERIFY(o.value(QStringLiteral("memory")).toObject().contains(QStringLiteral("out_of_memory")));
        QVERIFY(o.value(QStringLiteral("training")).toObject().value(QStringLiteral("cost_usd")).toDouble() > 0);
        QVERIFY(o.value(QStringLiteral("traffic")).toObject().contains(QStringLiteral("bytes_by_link_class")));
        r = runCli({ QStringLiteral("evaluate"), path });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("network share")));
        QVERIFY(r.out.contains(QStringLiteral("memory/GPU")));
    }

    void evaluateAgreesWithTheGuiAnalysis_data() { evaluateExamples_data(); }
    void evaluateAgreesWithTheGuiAnalysis()
    {
        QFETCH(QString, name);
        const QString path = example(name.toLatin1().constData());
        const Run r = runCli({ QStringLiteral("evaluate"), path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = parse(r.out);
        // The GUI's analysis (app/gui/analysisrunner.cpp): search on, routing without max-min timing.
        auto scenario = clusterscope::engine::loadScenarioFile(path.toStdString());
        QVERIFY2(scenario, scenario.message().c_str());
        const auto catalog = clusterscope::engine::Catalog::builtin().value();
        const auto prices = clusterscope::engine::PriceBook::builtin().value();
        clusterscope::engine::AnalysisOptions options;
        options.timeContention = false;
        const auto a = clusterscope::engine::analyseScenario(*scenario, catalog, prices, options);
        QVERIFY2(a.estimate, a.trainingError.c_str());
        QCOMPARE(o.value(QStringLiteral("iteration_seconds")).toDouble(), a.estimate->iterationSeconds);
        QCOMPARE(o.value(QStringLiteral("mfu")).toDouble(), a.estimate->mfu);
        const QJsonObject c = o.value(QStringLiteral("fabric_contention")).toObject();
        QCOMPARE(c.value(QStringLiteral("spine_slowdown")).toDouble(), a.load.spineSlowdown);
        QCOMPARE(c.value(QStringLiteral("core_slowdown")).toDouble(), a.load.coreSlowdown);
        QCOMPARE(
            c.value(QStringLiteral("uncontended_iteration_seconds")).toDouble(), a.load.uncontendedIterationSeconds);
    }

    void evaluateTrafficMatrix()
    {
        const Run r = runCli({ QStringLiteral("evaluate"), example("mixtral-8x7b-256-h200-roce.json"),
            QStringLiteral("--json"), QStringLiteral("--traffic"), QStringLiteral("nodes") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject nodes
            = parse(r.out).value(QStringLiteral("traffic")).toObject().value(QStringLiteral("nodes")).toObject();
        QCOMPARE(nodes.value(QStringLiteral("blocks")).toInt(), 32);
        QVERIFY(!nodes.value(QStringLiteral("cells")).toArray().isEmpty());
    }

    void evaluateSearchesWhenParallelismIsAbsent()
    {
        QTemporaryDir dir;
        const QString path
            = edited(dir, "llama3-70b-1024-h100.json", [](QJsonObject& o) { o.remove(QStringLiteral("parallelism")); });
        const Run r = runCli({ QStringLiteral("evaluate"), path, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = parse(r.out);
        checkEstimateKeys(o);
        QCOMPARE(o.value(QStringLiteral("strategy_source")).toString(), QStringLiteral("search"));
        QVERIFY(!o.value(QStringLiteral("memory")).toObject().value(QStringLiteral("out_of_memory")).toBool());
    }

    void outOfMemoryVerdict()
    {
        QTemporaryDir dir;
        const QString path = edited(dir, "llama3-70b-1024-h100.json", [](QJsonObject& o) {
            o[QStringLiteral("parallelism")] = QJsonObject { { QStringLiteral("tp"), 1 }, { QStringLiteral("pp"), 1 },
                { QStringLiteral("dp"), 1024 }, { QStringLiteral("zero"), 0 } };
        });
        Run r = runCli({ QStringLiteral("evaluate"), path, QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(
            parse(r.out).value(QStringLiteral("memory")).toObject().value(QStringLiteral("out_of_memory")).toBool());
        r = runCli({ QStringLiteral("evaluate"), path });
        QVERIFY(r.out.contains(QStringLiteral("OUT OF MEMORY")));
    }

    void search()
    {
        const Run r = runCli({ QStringLiteral("search"), example("llama3-70b-1024-h100.json"), QStringLiteral("--top"),
            QStringLiteral("5"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = parse(r.out);
        const QJsonArray ranked = o.value(QStringLiteral("ranked")).toArray();
        QCOMPARE(ranked.size(), 5);
        double last = 0;
        for (const QJsonValue& v : ranked) {
            checkEstimateKeys(v.toObject());
            const double t = v.toObject().value(QStringLiteral("iteration_seconds")).toDouble();
            QVERIFY(t >= last);
            last = t;
        }
        QVERIFY(!o.value(QStringLiteral("pareto")).toArray().isEmpty());
        QVERIFY(o.value(QStringLiteral("candidates")).toDouble() >= o.value(QStringLiteral("valid")).toDouble());
        // The first five also with the contention of their traffic routed on the fabric (never faster).
        const QJsonObject fabric = o.value(QStringLiteral("fabric_contention")).toObject();
        QCOMPARE(fabric.value(QStringLiteral("ranked_with_contention")).toInt(), 5);
        QVERIFY(!fabric.contains(QStringLiteral("error")));
        for (const QJsonValue& v : ranked) {
            const QJsonObject e = v.toObject();
            QVERIFY(e.contains(QStringLiteral("iteration_seconds_with_contention")));
            QVERIFY(e.value(QStringLiteral("iteration_seconds_with_contention")).toDouble()
                >= e.value(QStringLiteral("iteration_seconds")).toDouble());
        }
        // The Llama example's fabric is a non-blocking rail-optimized one, and its #1 (ZeRO-3 over
        // data x context parallel groups of eight GPUs per server) runs its rings on NCCL's
        // rail-aligned channels: nothing crosses rails, so contention costs it under 1% (the plain
        // ring that left each server through one GPU's NIC onto another rail made it 3x slower).
        const QJsonObject first = ranked.first().toObject();
        QVERIFY(first.value(QStringLiteral("iteration_seconds_with_contention")).toDouble()
            < 1.01 * first.value(QStringLiteral("iteration_seconds")).toDouble());
    }

    // On the Mixtral example's 3:1 oversubscribed RoCE leaf-spine, contention slows the #1.
    void searchContendedOnOversubscribedFabric()
    {
        const Run r = runCli({ QStringLiteral("search"), example("mixtral-8x7b-256-h200-roce.json"),
            QStringLiteral("--top"), QStringLiteral("1"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject first = parse(r.out).value(QStringLiteral("ranked")).toArray().first().toObject();
        QVERIFY(first.value(QStringLiteral("iteration_seconds_with_contention")).toDouble()
            > 1.2 * first.value(QStringLiteral("iteration_seconds")).toDouble());
    }

    // Without the fabric there is no contended time, and the JSON says why.
    void searchNoFabric()
    {
        const Run r = runCli({ QStringLiteral("search"), example("llama3-70b-1024-h100.json"), QStringLiteral("--top"),
            QStringLiteral("7"), QStringLiteral("--json"), QStringLiteral("--no-fabric") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = parse(r.out);
        const QJsonObject fabric = o.value(QStringLiteral("fabric_contention")).toObject();
        QCOMPARE(fabric.value(QStringLiteral("ranked_with_contention")).toInt(), 0);
        QVERIFY(fabric.value(QStringLiteral("error")).toString().contains(QStringLiteral("--no-fabric")));
        for (const QJsonValue& v : o.value(QStringLiteral("ranked")).toArray())
            QVERIFY(!v.toObject().contains(QStringLiteral("iteration_seconds_with_contention")));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString llama = example("llama3-70b-1024-h100.json");
        QTest::addRow("evaluate no file")
            << QStringList { QStringLiteral("evaluate") } << "expected exactly one scenario FILE";
        QTest::addRow("evaluate missing file")
            << QStringList { QStringLiteral("evaluate"), QStringLiteral("/nonexistent.json") } << "/nonexistent.json";
        QTest::addRow("evaluate bad traffic")
            << QStringList { QStringLiteral("evaluate"), llama, QStringLiteral("--traffic"), QStringLiteral("gpus") }
            << "--traffic expects";
        QTest::addRow("search bad top") << QStringList { QStringLiteral("search"), llama, QStringLiteral("--top"),
            QStringLiteral("x") } << "--top expects a positive integer";
        QTest::addRow("search zero top") << QStringList { QStringLiteral("search"), llama, QStringLiteral("--top"),
            QStringLiteral("0") } << "--top expects a positive integer";
        QTest::addRow("unknown option") << QStringList { QStringLiteral("search"), llama, QStringLiteral("--fast") }
                                        << "fast";
    }
    // The text ranking says it is before fabric contention and gives the GUI's two columns: the
    // time without contention (the rank) and with it for the first rows (--top 7: five of them).
    void searchTextSaysNoContention()
    {
        const Run r = runCli({ QStringLiteral("search"), example("llama3-70b-1024-h100.json"), QStringLiteral("--top"),
            QStringLiteral("7") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("Ranked without fabric contention")), qPrintable(r.out.left(400)));
        QVERIFY2(r.out.contains(QStringLiteral("Iteration, no contention (s)  With contention (s)")),
            qPrintable(r.out.left(800)));
        QCOMPARE(r.out.count(QStringLiteral("  with contention ")), 5);
        // Rows 6 and 7 of the table have no contended time.
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        int dashes = 0;
        for (const QString& line : lines)
            if (line.startsWith(QStringLiteral("   6  ")) || line.startsWith(QStringLiteral("   7  ")))
                dashes += line.contains(QStringLiteral("  -  ")) ? 1 : 0;
        QCOMPARE(dashes, 2);
    }

    // Text names link levels in words (the report's and Fabric 3D's), never the JSON keys.
    void evaluateTextNamesLevelsInWords()
    {
        const Run r = runCli({ QStringLiteral("evaluate"), example("llama3-70b-1024-h100.json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString busiest = r.out.section(QStringLiteral("busiest link"), 1).section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(!busiest.isEmpty(), qPrintable(r.out));
        QVERIFY2(busiest.contains(QStringLiteral("(inside a server)"))
                || busiest.contains(QStringLiteral("(server to leaf)"))
                || busiest.contains(QStringLiteral("(leaf to spine)"))
                || busiest.contains(QStringLiteral("(spine to core)")),
            qPrintable(busiest));
        for (const char* key : { "(internal)", "(node_leaf)", "(leaf_spine)", "(spine_core)" })
            QVERIFY2(!r.out.contains(QLatin1String(key)), key);
        const Run fabric = runCli({ QStringLiteral("fabric"), example("llama3-70b-1024-h100.json") });
        QVERIFY2(fabric.exitCode == 0, qPrintable(fabric.err));
        QVERIFY2(fabric.out.contains(QStringLiteral(" server to leaf, ")), qPrintable(fabric.out));
        QVERIFY(!fabric.out.contains(QStringLiteral("node-leaf")));
        QVERIFY2(!fabric.out.contains(QStringLiteral("core")), qPrintable(fabric.out)); // two tiers: no core named
    }

    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    void strategyRuleNamesFileAndPlace()
    {
        QTemporaryDir dir;
        const QString path = edited(dir, "llama3-70b-1024-h100.json", [](QJsonObject& o) {
            QJsonObject p = o.value(QStringLiteral("parallelism")).toObject();
            p[QStringLiteral("zero")] = 2; // with pp = 4
            o[QStringLiteral("parallelism")] = p;
        });
        const Run r = runCli({ QStringLiteral("evaluate"), path });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(path + QStringLiteral(": /parallelism/zero:")), qPrintable(r.err));
    }

    // A search where no strategy fits exits 1 and says why on stderr, in text and under --json (where the
    // document still follows on stdout).
    void searchNothingFitsSaysWhy()
    {
        QTemporaryDir dir;
        const QString path = edited(dir, "llama3-70b-1024-h100.json", [](QJsonObject& o) {
            o.remove(QStringLiteral("parallelism"));
            QJsonObject c = o.value(QStringLiteral("cluster")).toObject();
            c[QStringLiteral("gpus")] = 8; // 70B with Adam on one 8-GPU node: nothing fits
            o[QStringLiteral("cluster")] = c;
        });
        for (const bool json : { false, true }) {
            QStringList args { QStringLiteral("search"), path, QStringLiteral("--top"), QStringLiteral("3"),
                QStringLiteral("--no-fabric") };
            if (json)
                args << QStringLiteral("--json");
            const Run r = runCli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(path + QStringLiteral(": none of the ")), qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("fits in GPU memory")), qPrintable(r.err));
            if (json)
                QCOMPARE(parse(r.out).value(QStringLiteral("fitting")).toInt(), 0);
        }
    }

    // Micro-batches that are not a multiple of pp interleave with a stated micro-batch group, as Megatron-Core
    // runs them (--microbatch-group-size-per-virtual-pipeline-stage); without one the file and place are named.
    void interleavingGroup()
    {
        QTemporaryDir dir;
        const auto withGroup = [&dir](int group) {
            return edited(dir, "llama3-70b-1024-h100.json", [group](QJsonObject& o) {
                QJsonObject p = o.value(QStringLiteral("parallelism")).toObject();
                p[QStringLiteral("vpp")] = 2;
                if (group > 0)
                    p[QStringLiteral("vpp_microbatch_group")] = group;
                o[QStringLiteral("parallelism")] = p;
                QJsonObject t = o.value(QStringLiteral("training")).toObject();
                t[QStringLiteral("global_batch")] = 192; // 6 micro-batches per pipeline on pp 4
                o[QStringLiteral("training")] = t;
            });
        };
        const QString refused = withGroup(0);
        Run r = runCli({ QStringLiteral("evaluate"), refused, QStringLiteral("--no-fabric") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(refused
                     + QStringLiteral(": /parallelism/vpp: the interleaved schedule needs "
                                      "micro-batches divisible by pp, or a vpp_microbatch_group")),
            qPrintable(r.err));
        r = runCli({ QStringLiteral("validate"), refused });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(refused + QStringLiteral(": /parallelism/vpp:")), qPrintable(r.err));
        const QString grouped = withGroup(6);
        r = runCli({ QStringLiteral("evaluate"), grouped, QStringLiteral("--no-fabric"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject p = parse(r.out).value(QStringLiteral("parallelism")).toObject();
        QCOMPARE(p.value(QStringLiteral("vpp_microbatch_group")).toInt(), 6);
        QCOMPARE(parse(r.out).value(QStringLiteral("strategy_source")).toString(), QStringLiteral("scenario"));
        r = runCli({ QStringLiteral("evaluate"), grouped, QStringLiteral("--no-fabric") });
        QVERIFY2(r.out.contains(QStringLiteral("vpp 2 (group 6)")), qPrintable(r.out));
    }

    void help()
    {
        for (const char* command : { "evaluate", "search" }) {
            const Run r = runCli({ QLatin1String(command), QStringLiteral("--help") });
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.out.startsWith(QStringLiteral("Usage: clusterscope-cli ") + QLatin1String(command)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliEvaluate)
#include "tst_cli_evaluate.moc"
