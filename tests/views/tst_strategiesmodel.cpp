// StrategyTableModel over the ranked strategies of real searches on the example scenarios: the
// model contract (QAbstractItemModelTester), the value of every column, and numeric sorting through
// a QSortFilterProxyModel.

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariojson.h"
#include "engine/training/strategysearch.h"
#include "engine/training/trainingevaluator.h"
#include "views/models/strategytablemodel.h"
#include "views/presentation/strategylabel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <functional>
#include <map>

using namespace clusterscope::views;
using namespace clusterscope::engine;

namespace {

SearchResult searchExample(const char* file, int topK)
{
    const std::string path = std::string(CLUSTERSCOPE_SOURCE_DIR) + "/resources/examples/" + file;
    auto scenario = loadScenarioFile(path);
    if (!scenario)
        qFatal("%s", scenario.message().c_str());
    static const Catalog catalog = Catalog::builtin().value();
    auto evaluator = TrainingEvaluator::create(*scenario, catalog);
    if (!evaluator)
        qFatal("%s", evaluator.message().c_str());
    SearchOptions options;
    options.topK = topK;
    return StrategySearch::run(*evaluator, options);
}

using Getter = std::function<double(const TrainingEstimate&)>;

} // namespace

Q_DECLARE_METATYPE(Getter)

class TestStrategiesModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void modelTester();
    void sortValueOfEveryNumericColumn_data();
    void sortValueOfEveryNumericColumn();
    void displayText();
    void sortByIterationTime();
    void sortIsNumeric_data();
    void sortIsNumeric();
    void summary_data();
    void summary();
    void resetEmpties();

private:
    SearchResult m_llama;
    SearchResult m_mixtral;
};

void TestStrategiesModel::initTestCase()
{
    m_llama = searchExample("llama3-70b-1024-h100.json", 40);
    m_mixtral = searchExample("mixtral-8x7b-256-h200-roce.json", 40);
    QCOMPARE(int(m_llama.ranked.size()), 40);
    QVERIFY(m_mixtral.ranked.size() >= 10);
}

void TestStrategiesModel::modelTester()
{
    StrategyTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setEstimates(m_llama.ranked);
    QCOMPARE(model.rowCount(), 40);
    QCOMPARE(model.columnCount(), int(StrategyTableModel::ColumnCount));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(StrategyTableModel::kSortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.sort(StrategyTableModel::MemoryPerGpu, Qt::DescendingOrder);
    model.setEstimates(m_mixtral.ranked);
    model.setEstimates({});
    QCOMPARE(proxy.rowCount(), 0);
    model.setEstimates(m_llama.ranked);
    for (int c = 0; c < model.columnCount(); ++c)
        QVERIFY(!model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
    // The ranked times are the model's without fabric contention (the search ranks on them; the
    // applied strategy is then routed): the header says so, the tooltip says where the other is.
    const int it = StrategyTableModel::IterationSeconds;
    QVERIFY(model.headerData(it, Qt::Horizontal, Qt::DisplayRole).toString().contains(QStringLiteral("no contention")));
    QVERIFY(model.headerData(it, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("with the contention")));
    // The fastest rows' times with contention, the others none (sorted after them); a new search clears them.
    const int with = StrategyTableModel::IterationWithContention;
    QVERIFY(model.rowCount() >= 3);
    model.setContendedSeconds({ 24.25, 9.5 });
    QCOMPARE(model.index(0, with).data(StrategyTableModel::kSortRole).toDouble(), 24.25);
    QCOMPARE(model.index(1, with).data().toString(), QLocale().toString(9.5, 'f', 3));
    QCOMPARE(model.index(2, with).data().toString(), QStringLiteral("–"));
    QVERIFY(std::isinf(model.index(2, with).data(StrategyTableModel::kSortRole).toDouble()));
    proxy.sort(with, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, with).data(StrategyTableModel::kRankRole).toInt(), 1);
    QCOMPARE(proxy.index(1, with).data(StrategyTableModel::kRankRole).toInt(), 0);
    model.setEstimates(m_llama.ranked);
    QVERIFY(model.contendedSeconds().empty());
}

void TestStrategiesModel::sortValueOfEveryNumericColumn_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<Getter>("getter");
    QTest::addRow("TP") << int(StrategyTableModel::Tp)
                        << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.tp); });
    QTest::addRow("PP") << int(StrategyTableModel::Pp)
                        << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.pp); });
    QTest::addRow("VPP") << int(StrategyTableModel::Vpp)
                         << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.vpp); });
    QTest::addRow("DP") << int(StrategyTableModel::Dp)
                        << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.dp); });
    QTest::addRow("EP") << int(StrategyTableModel::Ep)
                        << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.ep); });
    QTest::addRow("micro-batch") << int(StrategyTableModel::MicroBatch)
                                 << Getter([](const TrainingEstimate& e) { return double(e.strategy.microBatch); });
    QTest::addRow("ZeRO") << int(StrategyTableModel::Zero)
                          << Getter([](const TrainingEstimate& e) { return double(e.strategy.parallelism.zero); });
    QTest::addRow("iteration s") << int(StrategyTableModel::IterationSeconds)
                                 << Getter([](const TrainingEstimate& e) { return e.iterationSeconds; });
    QTest::addRow("TFLOP/s") << int(StrategyTableModel::TflopsPerGpu)
                             << Getter([](const TrainingEstimate& e) { return e.tflopsPerGpu; });
    QTest::addRow("MFU") << int(StrategyTableModel::Mfu) << Getter([](const TrainingEstimate& e) { return e.mfu; });
    QTest::addRow("tokens/s") << int(StrategyTableModel::TokensPerSecond)
                              << Getter([](const TrainingEstimate& e) { return e.tokensPerSecond; });
    QTest::addRow("memory bytes") << int(StrategyTableModel::MemoryPerGpu)
                                  << Getter([](const TrainingEstimate& e) { return e.memory.totalBytes(); });
    QTest::addRow("network share") << int(StrategyTableModel::NetworkShare)
                                   << Getter([](const TrainingEstimate& e) { return e.networkShare; });
    QTest::addRow("cost per iteration") << int(StrategyTableModel::CostPerIteration)
                                        << Getter([](const TrainingEstimate& e) { return e.costPerIterationUsd; });
    QTest::addRow("cost to train") << int(StrategyTableModel::CostToTrain)
                                   << Getter([](const TrainingEstimate& e) { return e.trainingCostUsd; });
}

void TestStrategiesModel::sortValueOfEveryNumericColumn()
{
    QFETCH(int, column);
    QFETCH(Getter, getter);
    StrategyTableModel model;
    model.setEstimates(m_mixtral.ranked);
    for (int row = 0; row < model.rowCount(); ++row) {
        const QVariant v = model.index(row, column).data(StrategyTableModel::kSortRole);
        bool ok = false;
        QCOMPARE(v.toDouble(&ok), getter(m_mixtral.ranked[std::size_t(row)]));
        QVERIFY(ok);
        QCOMPARE(model.index(row, column).data(StrategyTableModel::kRankRole).toInt(), row);
    }
}

void TestStrategiesModel::displayText()
{
    StrategyTableModel model;
    model.setEstimates(m_llama.ranked);
    const TrainingEstimate& e = m_llama.ranked.front();
    const QLocale l;
    QCOMPARE(model.index(0, StrategyTableModel::Rank).data().toInt(), 1);
    QCOMPARE(
        model.index(0, StrategyTableModel::IterationSeconds).data().toString(), l.toString(e.iterationSeconds, 'f', 3));
    QCOMPARE(
        model.index(0, StrategyTableModel::Mfu).data().toString(), l.toString(e.mfu * 100, 'f', 1) + QLatin1Char('%'));
    QVERIFY(model.index(0, StrategyTableModel::MemoryPerGpu).data().toString().endsWith(QLatin1String(" GB fits")));
    QVERIFY(model.index(0, StrategyTableModel::MemoryPerGpu)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("activations")));
    // The search's fastest Llama strategy uses ring context parallelism (CP 4).
    QCOMPARE(model.index(0, StrategyTableModel::Cp).data().toString(),
        e.strategy.parallelism.cp > 1 ? QStringLiteral("%1 (ring)").arg(e.strategy.parallelism.cp)
                                      : QStringLiteral("1"));
    QVERIFY(model.index(0, StrategyTableModel::CostToTrain).data().toString().startsWith(QLatin1Char('$')));
    QCOMPARE(model.index(0, StrategyTableModel::Recompute).data().toString(),
        QString::fromLatin1(toString(e.strategy.recompute)));
    // A folded MoE strategy (expert tensor parallelism 1 under TP 2) says so in the EP column; its sort
    // value stays the number.
    std::vector<TrainingEstimate> folded { e };
    folded.front().strategy.parallelism.tp = 2;
    folded.front().strategy.parallelism.ep = 32;
    folded.front().strategy.parallelism.etp = 1;
    model.setEstimates(folded);
    QCOMPARE(model.index(0, StrategyTableModel::Ep).data().toString(), QStringLiteral("32 (ETP 1)"));
    QCOMPARE(model.index(0, StrategyTableModel::Ep).data(StrategyTableModel::kSortRole).toDouble(), 32.0);
    folded.front().strategy.parallelism.etp = 2; // stated equal to tp: the plain number
    model.setEstimates(folded);
    QCOMPARE(model.index(0, StrategyTableModel::Ep).data().toString(), QStringLiteral("32"));
}

void TestStrategiesModel::sortByIterationTime()
{
    StrategyTableModel model;
    model.setEstimates(m_llama.ranked);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(StrategyTableModel::kSortRole);
    proxy.sort(StrategyTableModel::IterationSeconds, Qt::DescendingOrder);
    double slowest = 0;
    for (const TrainingEstimate& e : m_llama.ranked)
        slowest = std::max(slowest, e.iterationSeconds);
    const int firstSource = proxy.mapToSource(proxy.index(0, 0)).row();
    QCOMPARE(m_llama.ranked[std::size_t(firstSource)].iterationSeconds, slowest);
    QVERIFY(m_llama.ranked.front().iterationSeconds < slowest); // the order really changed
    for (int r = 1; r < proxy.rowCount(); ++r)
        QVERIFY(proxy.index(r - 1, StrategyTableModel::IterationSeconds).data(StrategyTableModel::kSortRole).toDouble()
            >= proxy.index(r, StrategyTableModel::IterationSeconds).data(StrategyTableModel::kSortRole).toDouble());
    // Ascending gives the search's own order (fastest first).
    proxy.sort(StrategyTableModel::IterationSeconds, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, StrategyTableModel::IterationSeconds).data(StrategyTableModel::kSortRole).toDouble(),
        m_llama.ranked.front().iterationSeconds);
}

void TestStrategiesModel::sortIsNumeric_data()
{
    QTest::addColumn<int>("column");
    QTest::addRow("tokens/s") << int(StrategyTableModel::TokensPerSecond);
    QTest::addRow("memory") << int(StrategyTableModel::MemoryPerGpu);
    QTest::addRow("DP") << int(StrategyTableModel::Dp);
    QTest::addRow("CP") << int(StrategyTableModel::Cp);
    QTest::addRow("cost to train") << int(StrategyTableModel::CostToTrain);
    QTest::addRow("rank") << int(StrategyTableModel::Rank);
}

void TestStrategiesModel::sortIsNumeric()
{
    // Display text such as "1,297,692" or "55.3 GB fits" would sort as strings; the sort role must
    // give a number so that the proxy's order is the numeric order.
    QFETCH(int, column);
    StrategyTableModel model;
    model.setEstimates(m_llama.ranked);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(StrategyTableModel::kSortRole);
    proxy.sort(column, Qt::AscendingOrder);
    for (int r = 0; r < proxy.rowCount(); ++r) {
        const QVariant v = proxy.index(r, column).data(StrategyTableModel::kSortRole);
        QVERIFY2(v.typeId() == QMetaType::Double || v.typeId() == QMetaType::Int, v.typeName());
        if (r > 0)
            QVERIFY(proxy.index(r - 1, column).data(StrategyTableModel::kSortRole).toDouble() <= v.toDouble());
    }
}

void TestStrategiesModel::summary_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("vpp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<int>("zero");
    QTest::addColumn<int>("microBatch");
    QTest::addColumn<int>("etp");
    QTest::addColumn<QString>("expected");
    QTest::addRow("dense 3D") << 8 << 4 << 1 << 32 << 1 << 1 << 1 << 1 << 0 << QStringLiteral("TP8 PP4 DP32 Z1 mb1");
    QTest::addRow("interleaved") << 8 << 4 << 2 << 32 << 1 << 1 << 0 << 2 << 0 << QStringLiteral("TP8 PP4x2 DP32 mb2");
    QTest::addRow("CP and EP") << 2 << 1 << 1 << 128 << 2 << 8 << 3 << 4 << 0
                               << QStringLiteral("TP2 DP128 CP2 EP8 Z3 mb4");
    QTest::addRow("etp = tp stated") << 2 << 1 << 1 << 128 << 1 << 8 << 1 << 1 << 2
                                     << QStringLiteral("TP2 DP128 EP8 Z1 mb1");
    QTest::addRow("folded MoE") << 2 << 8 << 4 << 16 << 1 << 32 << 1 << 1 << 1
                                << QStringLiteral("TP2 PP8x4 DP16 EP32 ETP1 Z1 mb1");
}

void TestStrategiesModel::summary()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, vpp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(int, ep);
    QFETCH(int, zero);
    QFETCH(int, microBatch);
    QFETCH(int, etp);
    QFETCH(QString, expected);
    TrainingStrategy s;
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.parallelism.vpp = vpp;
    s.parallelism.dp = dp;
    s.parallelism.cp = cp;
    s.parallelism.ep = ep;
    s.parallelism.zero = zero;
    s.parallelism.etp = etp;
    s.microBatch = microBatch;
    QCOMPARE(strategyLabel(s), expected);
}

void TestStrategiesModel::resetEmpties()
{
    StrategyTableModel model;
    model.setEstimates(m_llama.ranked);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setEstimates({});
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.index(0, 0).isValid());
}

QTEST_MAIN(TestStrategiesModel)
#include "tst_strategiesmodel.moc"
