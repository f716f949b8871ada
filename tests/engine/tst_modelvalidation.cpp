// The built-in validation report (resources/validation/): every public table runs through the
// training model uncalibrated, no row is refused, and each table's MAPE and bias stay within the
// limits its manifest states. A change that worsens fidelity on any table fails here.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/modelvalidation.h"
#include "engine/training/trainingevaluator.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace clusterscope::engine;

class TestModelValidation : public QObject {
    Q_OBJECT

    Catalog m_catalog;
    std::vector<ValidationTable> m_tables;

private Q_SLOTS:
    void initTestCase()
    {
        m_catalog = *Catalog::builtin();
        auto tables = runBuiltinModelValidation(m_catalog);
        QVERIFY2(tables.isOk(), tables.message().c_str());
        m_tables = *tables;
        QVERIFY(m_tables.size() >= 4);
    }

    void tableWithinLimits_data()
    {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < m_tables.size(); ++i)
            QTest::addRow("%s", m_tables[i].id.c_str()) << int(i);
    }
    void tableWithinLimits()
    {
        QFETCH(int, index);
        const ValidationTable& t = m_tables[std::size_t(index)];
        for (const ValidationRow& r : t.rows)
            qInfo("%-26s measured %10.4g predicted %10.4g error %+6.1f%%  %s", r.label.c_str(), r.measured, r.predicted,
                100 * r.error, r.detail.c_str());
        qInfo("%s: %zu rows, MAPE %.1f%% (limit %g%%), bias %+.1f%% (limit %g%%), max %.1f%%", t.id.c_str(),
            t.rows.size(), 100 * t.mape, 100 * t.mapeLimit, 100 * t.bias, 100 * t.biasLimit, 100 * t.maxError);
        QVERIFY(!t.rows.empty());
        QCOMPARE(t.refused, 0);
        QVERIFY2(t.mape <= t.mapeLimit, qPrintable(QStringLiteral("MAPE %1%").arg(100 * t.mape, 0, 'f', 1)));
        QVERIFY2(std::abs(t.bias) <= t.biasLimit, qPrintable(QStringLiteral("bias %1%").arg(100 * t.bias, 0, 'f', 1)));
    }

    // The held-out tables (a later Megatron-Bridge release the model was never fitted to) stay in the
    // report with every row they were transcribed with: dropping a badly predicted row would hide it.
    // resources/validation/README.md states each table's rows, MAPE, bias and largest |error| (one
    // decimal): the figures a reader quotes must be the ones validate-model prints for the same model.
    void readmeFidelityTableMatches()
    {
        QFile file(QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/validation/README.md"));
        QVERIFY2(file.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(file.fileName()));
        const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
        const qsizetype start
            = lines.indexOf(QStringLiteral("## Fidelity (uncalibrated, `clusterscope-cli validate-model`)"));
        QVERIFY2(start >= 0, "README.md has no fidelity section");
        // | <id> (...) | rows | MAPE% | bias% | max% (...) | limits |
        static const QRegularExpression row(
            QStringLiteral(R"(^\| (\S+) [^|]*\| (\d+) \| ([\d.]+)% \| ([-+][\d.]+)% \| ([\d.]+)%)"));
        int checked = 0;
        for (qsizetype i = start + 1; i < lines.size() && !lines[i].startsWith(QStringLiteral("## ")); ++i) {
            const QRegularExpressionMatch m = row.match(lines[i]);
            if (!m.hasMatch())
                continue;
            const std::string id = m.captured(1).toStdString();
            const auto t
                = std::find_if(m_tables.begin(), m_tables.end(), [&](const ValidationTable& v) { return v.id == id; });
            QVERIFY2(
                t != m_tables.end(), qPrintable(QStringLiteral("README names an unknown table: %1").arg(id.c_str())));
            double maxAbs = 0;
            for (const ValidationRow& r : t->rows)
                maxAbs = std::max(maxAbs, std::abs(r.error));
            const auto percent
                = [](double fraction, bool sign) { return QString::asprintf(sign ? "%+.1f" : "%.1f", 100 * fraction); };
            const QString where = QStringLiteral("README.md line %1 (%2)").arg(i + 1).arg(id.c_str());
            QVERIFY2(m.captured(2).toInt() == int(t->rows.size()), qPrintable(where + QStringLiteral(": rows")));
            QVERIFY2(m.captured(3) == percent(t->mape, false),
                qPrintable(where
                    + QStringLiteral(": MAPE %1%, validate-model %2%").arg(m.captured(3), percent(t->mape, false))));
            QVERIFY2(m.captured(4) == percent(t->bias, true),
                qPrintable(where
                    + QStringLiteral(": bias %1%, validate-model %2%").arg(m.captured(4), percent(t->bias, true))));
            QVERIFY2(m.captured(5) == percent(maxAbs, false),
                qPrintable(where
                    + QStringLiteral(": max %1%, validate-model %2%").arg(m.captured(5), percent(maxAbs, false))));
            ++checked;
        }
        QCOMPARE(checked, int(m_tables.size()));
    }

    void heldOutTablesKeepTheirRows_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("rows");
        QTest::newRow("dense") << QStringLiteral("megatron-bridge-2604-dense") << 4;
        QTest::newRow("moe") << QStringLiteral("megatron-bridge-2604-moe") << 5;
        QTest::newRow("gb300 dense") << QStringLiteral("megatron-bridge-2604-gb300-dense") << 2;
        QTest::newRow("b300 gb300 moe") << QStringLiteral("megatron-bridge-2604-b300-gb300-moe") << 2;
        QTest::newRow("mxfp8") << QStringLiteral("megatron-bridge-2604-mxfp8") << 8;
        QTest::newRow("b300 gb300 mxfp8") << QStringLiteral("megatron-bridge-2604-b300-gb300-mxfp8") << 8;
        QTest::newRow("nvfp4") << QStringLiteral("megatron-bridge-2604-nvfp4") << 2;
        QTest::newRow("gb300 nvfp4") << QStringLiteral("megatron-bridge-2604-gb300-nvfp4") << 2;
        QTest::newRow("nemotron 3 nano") << QStringLiteral("megatron-bridge-2604-nemotron3") << 5;
        QTest::newRow("nemotron 3 super") << QStringLiteral("megatron-bridge-2604-nemotron3-super") << 4;
        QTest::newRow("nemotron 3 super nvfp4") << QStringLiteral("megatron-bridge-2604-nemotron3-super-nvfp4") << 4;
        QTest::newRow("kimi k2") << QStringLiteral("megatron-bridge-2604-kimi-k2") << 1;
        QTest::newRow("nemo 25.02-25.07") << QStringLiteral("nemo-2502-2507") << 21;
        QTest::newRow("vtrain multi-node") << QStringLiteral("vtrain-multi-node-a100") << 109;
        QTest::newRow("vtrain single-node") << QStringLiteral("vtrain-single-node-a100") << 1440;
    }

    void heldOutTablesKeepTheirRows()
    {
        QFETCH(QString, id);
        QFETCH(int, rows);
        const auto it = std::find_if(
            m_tables.begin(), m_tables.end(), [&](const ValidationTable& t) { return t.id == id.toStdString(); });
        QVERIFY2(it != m_tables.end(), qPrintable(id));
        QCOMPARE(int(it->rows.size()), rows);
        QCOMPARE(it->refused, 0);
    }

    // Architecture columns reach the row's scenario: the Qwen3 and DeepSeek-V3 rows normalise queries
    // and keys (qk_layernorm, as their Megatron-Bridge providers set it), GPT-OSS's do not; GPT-OSS's
    // YaRN rotary embedding runs unfused (rope_fusion 0), every other row's fused.
    void qkLayerNormFromTheTables()
    {
        int normed = 0, plain = 0;
        for (const ValidationTable& t : m_tables) {
            for (const ValidationRow& r : t.rows) {
                const bool qwenOrDeepSeek = r.label.rfind("QWEN3", 0) == 0 || r.label.rfind("DEEPSEEK", 0) == 0;
                const bool gptOss = r.label.rfind("GPT-OSS", 0) == 0;
                if (!qwenOrDeepSeek && !gptOss)
                    continue;
                auto scenario = parseScenarioJson(r.scenarioJson, r.label);
                QVERIFY2(scenario.isOk(), scenario.message().c_str());
                QCOMPARE(scenario->model.qkLayerNorm, qwenOrDeepSeek);
                QCOMPARE(scenario->model.ropeFusion, !gptOss);
                ++(qwenOrDeepSeek ? normed : plain);
            }
        }
        QCOMPARE(normed, 31); // 9 + 8 + 2 rows of the 25.11, 25.09 and 26.04.01 MoE tables, 6 + 6 MXFP8
        QCOMPARE(plain, 8); // GPT-OSS: 3 + 3 rows of the 25.11 and 26.04.01 MoE tables, 2 on GB300 / B300
    }

    // Column recompute_num_layers reaches the row's scenario as block recomputation of that many layers
    // (Megatron-Bridge's Llama 3 8B DGX-H100 recipe: 5), and only that row's.
    void blockRecomputationFromTheTables()
    {
        int block = 0;
        for (const ValidationTable& t : m_tables)
            for (const ValidationRow& r : t.rows) {
                if (r.scenarioJson.empty()) // GEMM rows
                    continue;
                auto scenario = parseScenarioJson(r.scenarioJson, r.label);
                QVERIFY2(scenario.isOk(), scenario.message().c_str());
                if (scenario->training.recompute != Recompute::Full
                    || scenario->training.recomputeMethod != RecomputeMethod::Block)
                    continue;
                ++block;
                QCOMPARE(t.id, std::string("megatron-bridge-2511-dense"));
                QCOMPARE(scenario->cluster.gpu, std::string("H100-SXM-80GB"));
                QCOMPARE(scenario->training.recomputeNumLayers, 5);
                QVERIFY2(r.detail.find("recompute full (block 5)") != std::string::npos, r.detail.c_str());
            }
        QCOMPARE(block, 1);
    }

    // The summary by model kind and GPU architecture counts every evaluated training row once, as a
    // throughput error (a step-time row's inverted: vTrain's A100 tables), and its statistics are the
    // groups' means.
    void groupsByKindAndArchitecture()
    {
        struct Sums {
            int rows = 0;
            double abs = 0, sum = 0;
        };
        std::map<std::pair<std::string, std::string>, Sums> expected;
        int stepTimeRows = 0;
        for (const ValidationTable& t : m_tables)
            for (const ValidationRow& r : t.rows) {
                if (t.kind != "training" || !r.evaluated)
                    continue;
                auto scenario = parseScenarioJson(r.scenarioJson, r.label);
                QVERIFY2(scenario.isOk(), scenario.message().c_str());
                const bool stepTime = r.metric == "measured_iteration_seconds";
                stepTimeRows += stepTime ? 1 : 0;
                const double e = stepTime ? 1.0 / (1.0 + r.error) - 1.0 : r.error;
                Sums& x = expected[{
                    scenario->model.moe ? "MoE" : "dense", toString(m_catalog.findGpu(scenario->cluster.gpu)->arch) }];
                ++x.rows;
                x.abs += std::abs(e);
                x.sum += e;
            }
        QVERIFY(stepTimeRows > 1000);
        const std::vector<ValidationGroup> groups = groupByKindAndArchitecture(m_tables, m_catalog);
        QCOMPARE(groups.size(), expected.size());
        for (const ValidationGroup& g : groups) {
            const Sums& x = expected[{ g.kind, g.architecture }];
            QCOMPARE(g.rows, x.rows);
            QVERIFY(std::abs(g.mape - x.abs / x.rows) < 1e-12 && std::abs(g.bias - x.sum / x.rows) < 1e-12);
            QVERIFY(g.maxError >= g.mape);
        }
        QVERIFY(expected.count({ "MoE", "blackwell" }) && expected.count({ "dense", "ampere" }));
    }

    // The MXFP8 rows run as dtype mxfp8 (the 26.04.01 MXFP8 tables and the 25.11 FP8-MX rows), and a
    // table's MoE defaults reach only its MoE rows: its dense Llama rows evaluate as dense models.
    void mxfp8Rows()
    {
        int mxfp8 = 0, denseInMoeTable = 0;
        for (const ValidationTable& t : m_tables) {
            for (const ValidationRow& r : t.rows) {
                if (r.scenarioJson.empty()) // GEMM sweeps
                    continue;
                auto scenario = parseScenarioJson(r.scenarioJson, r.label);
                QVERIFY2(scenario.isOk(), scenario.message().c_str());
                if (scenario->training.dtype != DType::MXFP8)
                    continue;
                ++mxfp8;
                QVERIFY2(scenario->cluster.gpu.find("B200") != std::string::npos
                        || scenario->cluster.gpu.find("B300") != std::string::npos,
                    r.label.c_str());
                if (!scenario->model.moe)
                    ++denseInMoeTable;
            }
        }
        // 8 + 8 rows of the 26.04.01 MXFP8 tables, 5 FP8-MX rows of 25.11, 4 Nemotron 3 Nano, 4 Nemotron 3
        // Super rows and the Kimi K2 row of 26.04.01
        QCOMPARE(mxfp8, 16 + 5 + 4 + 4 + 1);
        QCOMPARE(denseInMoeTable, 4); // Llama 3 70B and 3.1 405B on GB200 and GB300
    }

    // A step-time table compares the evaluator's iteration time: a row run through the validator
    // predicts what the same scenario evaluated directly predicts.
    void stepTimeMetricIsTheIterationTime()
    {
        const QString csv = QStringLiteral(
            "model,gpus,gpu,dtype,layers,hidden,heads,vocab,seq,global_batch,micro_batch,tp,pp,vpp,recompute,"
            "measured_iteration_seconds\nm,16,A100-SXM-80GB,fp16,24,2048,16,50304,2048,64,2,8,2,1,full,1.5\n");
        const std::string manifest
            = R"({"format": "clusterscope-validation", "version": 1, "tables": [{"id": "t", "title": "t", "file": "t.csv", "kind": "training", "metric": "measured_iteration_seconds", "mape_limit": 1, "bias_limit": 1, "defaults": {"cluster": {"gpus_per_node": 8, "nic": {"gbps": 200, "per_node": 4}, "transport": "infiniband", "fabric": {"type": "fat-tree", "switch_radix": 40, "tiers": 3, "oversubscription": 1.0}}}}]})";
        const std::string text = csv.toStdString();
        auto result = runModelValidation(
            manifest, [&text](const std::string&) -> Result<std::string> { return text; }, m_catalog);
        QVERIFY2(result.isOk(), result.message().c_str());
        const ValidationRow& r = result->front().rows.front();
        QVERIFY2(r.evaluated, r.detail.c_str());
        QCOMPARE(r.metric, std::string("measured_iteration_seconds"));
        QCOMPARE(r.measured, 1.5);
        // The same figure as the scenario written for the row.
        auto scenario = parseScenarioJson(r.scenarioJson, "row");
        QVERIFY2(scenario.isOk(), scenario.message().c_str());
        auto evaluator = TrainingEvaluator::create(*scenario, m_catalog, ComputeEfficiencyParams {});
        QVERIFY2(evaluator.isOk(), evaluator.message().c_str());
        const double seconds = evaluator->evaluate(TrainingStrategy::fromScenario(*scenario)).iterationSeconds;
        QVERIFY(seconds > 0);
        QCOMPARE(r.predicted, seconds);
    }

    // The statistics are what they claim: MAPE is the mean |error|, bias the mean error.
    void statisticsAreMeans()
    {
        for (const ValidationTable& t : m_tables) {
            double sumAbs = 0, sum = 0;
            for (const ValidationRow& r : t.rows) {
                QVERIFY(r.evaluated);
                QVERIFY(std::abs(r.error - (r.predicted / r.measured - 1.0)) < 1e-12);
                sumAbs += std::abs(r.error);
                sum += r.error;
            }
            QVERIFY(std::abs(t.mape - sumAbs / t.rows.size()) < 1e-12);
            QVERIFY(std::abs(t.bias - sum / t.rows.size()) < 1e-12);
        }
    }

    // Errors in a user's table name the file and the place.
    void badTablesNameThePlace_data()
    {
        QTest::addColumn<QString>("manifest");
        QTest::addColumn<QString>("csv");
        QTest::addColumn<QString>("expected");
        const QString head = QStringLiteral(
            R"({"format": "clusterscope-validation", "version": 1, "tables": [{"id": "t", "title": "t", "file": "t.csv", "kind": "training", "metric": "measured_tokens_per_s_per_gpu", "mape_limit": 0.1, "bias_limit": 0.05}]})");
        QTest::addRow("not a number") << head
                                      << QStringLiteral(
                                             "model,gpus,gpu,layers,hidden,heads,vocab,seq,global_batch,measured_"
                                             "tokens_per_s_per_gpu\nm,8,H100,32,4096,32,32000,4096,128,abc\n")
                                      << QStringLiteral(
                                             "t.csv: line 2, column measured_tokens_per_s_per_gpu: expected a number");
        QTest::addRow("short row") << head << QStringLiteral("a,b\n1\n")
                                   << QStringLiteral("tables.json: /tables/0/file: t.csv: line 2: expected 2 fields");
        QTest::addRow("unknown key") << QString(head).replace(
            QStringLiteral("\"kind\""), QStringLiteral("\"kindd\": 1, \"kind\""))
                                     << QString() << QStringLiteral("tables.json: /tables/0/kindd");
        QTest::addRow("unknown metric")
            << QString(head).replace(
                   QStringLiteral("\"measured_tokens_per_s_per_gpu\""), QStringLiteral("\"measured_step_seconds\""))
            << QString() << QStringLiteral("tables.json: /tables/0/metric: unknown metric \"measured_step_seconds\"");
        QTest::addRow("missing layers") << head
                                        << QStringLiteral("model,gpus,gpu,hidden,heads,vocab,seq,global_batch,measured_"
                                                          "tokens_per_s_per_gpu\nm,8,H100,4096,32,32000,4096,128,100\n")
                                        << QStringLiteral("t.csv: line 2, column layers: a value is required");
        QTest::addRow("recomputed layers without full recomputation")
            << head
            << QStringLiteral(
                   "model,gpus,gpu,layers,hidden,heads,vocab,seq,global_batch,recompute,recompute_num_"
                   "layers,measured_tokens_per_s_per_gpu\nm,8,H100,32,4096,32,32000,4096,128,selective,5,100\n")
            << QStringLiteral(
                   "t.csv: line 2, column recompute_num_layers: recompute_num_layers needs full recomputation");
    }
    void badTablesNameThePlace()
    {
        QFETCH(QString, manifest);
        QFETCH(QString, csv);
        QFETCH(QString, expected);
        const std::string text = csv.toStdString();
        auto result = runModelValidation(
            manifest.toStdString(), [&text](const std::string&) -> Result<std::string> { return text; }, m_catalog);
        QVERIFY(!result.isOk());
        QVERIFY2(QString::fromStdString(result.message()).startsWith(expected), result.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestModelValidation)
#include "tst_modelvalidation.moc"
