// The PDF report of the Llama example read back through pdftotext / pdffonts (poppler-utils): the
// numbers it prints are the engine's, every page is numbered, fonts are embedded. With a measured
// run (a generated 1,024-rank run with planted stragglers) the report gains the run section: step
// time and collectives with p50 / p99 / max beside the mean, stragglers by the tail they cause
// (kept as report-with-run.pdf in tests/common/screenshots.h's folder, to look at).

#include "app/report/reportbuilder.h"
#include "app/report/reportformat.h"
#include "app/report/reportwriter.h"
#include "app/report/sensitivity.h"
#include "engine/analysis/fabriccontention.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/run/collectivefold.h"
#include "engine/scenario/scenariojson.h"
#include "tests/common/generatedrun.h"
#include "tests/common/screenshots.h"
#include "views/presentation/breakdownpalette.h"
#include "views/presentation/strategylabel.h"

#include <QGuiApplication>
#include <QRegularExpression>
#include <QtTest>

using namespace clusterscope;
using namespace clusterscope::app;

namespace {

QString tool(const QString& program, const QStringList& args)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("FAILED: ") + program + QLatin1Char(' ') + QString::fromUtf8(p.readAllStandardError());
    return QString::fromUtf8(p.readAllStandardOutput());
}

/// `\s+` between the parts, each part a literal (pdftotext may drop a space inside a part: "4m").
QRegularExpression cells(const QStringList& parts)
{
    QStringList escaped;
    for (const QString& part : parts)
        escaped << QRegularExpression::escape(part).replace(QStringLiteral("\\ "), QStringLiteral("\\s*"));
    return QRegularExpression(escaped.join(QStringLiteral("\\s+")));
}

} // namespace

class TestReportPdf : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        auto catalog = engine::Catalog::builtin();
        QVERIFY2(catalog.isOk(), catalog.message().c_str());
        m_catalog = std::move(*catalog);
        auto prices = engine::PriceBook::builtin();
        QVERIFY(prices.isOk());
        m_prices = std::move(*prices);
        auto scenario
            = engine::loadScenarioFile(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json");
        QVERIFY2(scenario.isOk(), scenario.message().c_str());
        m_scenario = *scenario;

        ReportInput input;
        input.scenarios = { m_scenario };
        input.catalog = &m_catalog;
        input.prices = &m_prices;
        input.sourceName = QStringLiteral("llama3-70b-1024-h100.json");
        auto report = buildReport(input);
        QVERIFY2(report.isOk(), report.message().c_str());
        m_report = *report;
        m_pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        auto pages = writePdf(*report, m_pdf);
        QVERIFY2(pages.isOk(), pages.message().c_str());
        m_pages = *pages;
        QVERIFY(m_pages >= 3);
        m_text = tool(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), m_pdf, QStringLiteral("-") });
        QVERIFY2(!m_text.startsWith(QLatin1String("FAILED")), qPrintable(m_text));

        // The expected numbers come from a separate engine run, not from the report.
        m_analysis = engine::analyseScenario(m_scenario, m_catalog, m_prices);
        QVERIFY(m_analysis.bom && m_analysis.estimate);
    }

    void bomRows_data()
    {
        QTest::addColumn<QStringList>("parts");
        for (const engine::BomLine& line : m_analysis.bom->lines) {
            QStringList parts;
            if (line.lengthMetres > 0)
                parts << QString::number(line.lengthMetres, 'g', 4) + QStringLiteral(" m");
            parts << formatCount(line.quantity) << formatUnitPrice(line.unitPriceUsd) << formatUsd(line.totalUsd())
                  << formatWatts(line.unitPowerWatts) << formatWatts(line.totalWatts());
            QTest::addRow("%s %s %gm", line.category.c_str(), line.item.c_str(), line.lengthMetres) << parts;
        }
    }
    void bomRows()
    {
        QFETCH(QStringList, parts);
        QVERIFY2(m_text.contains(cells(parts)), qPrintable(parts.join(QLatin1Char(' '))));
    }

    void totalsAndPerformance_data()
    {
        QTest::addColumn<QStringList>("parts");
        const engine::FabricBom& bom = *m_analysis.bom;
        const engine::TrainingEstimate& e = *m_analysis.estimate;
        QTest::addRow("network total") << QStringList { formatUsd(bom.networkCostUsd),
            formatWatts(bom.networkPowerWatts) };
        QTest::addRow("gpu total") << QStringList { QStringLiteral("GPUs"), formatUsd(bom.gpuCostUsd) };
        QTest::addRow("cluster total") << QStringList { QStringLiteral("Cluster"), formatUsd(bom.clusterCostUsd) };
        QTest::addRow("cost per gpu") << QStringList { QStringLiteral("Cost per GPU (cluster / network)"),
            formatUsd(bom.clusterCostPerGpuUsd()) + QStringLiteral(" / ") + formatUsd(bom.networkCostPerGpuUsd()) };
        QTest::addRow("network share of cost")
            << QStringList { QStringLiteral("Network share of cluster cost"), formatPercent(bom.networkShare()) };
        QTest::addRow("iteration time") << QStringList { QStringLiteral("Iteration time"),
            formatSeconds(e.iterationSeconds) };
        QTest::addRow("breakdown total") << QStringList { QStringLiteral("Iteration"),
            formatSeconds(e.breakdown.total()), QStringLiteral("100.0%") };
        QTest::addRow("compute") << QStringList { QStringLiteral("Compute"), formatSeconds(e.breakdown.compute) };
        // The component's name as every chart and table says it (views/presentation).
        QTest::addRow("tp exposed") << QStringList {
            views::BreakdownPalette::name(views::BreakdownComponent::TpExposed), formatSeconds(e.breakdown.tpExposed)
        };
        QTest::addRow("mfu") << QStringList { QStringLiteral("MFU"), formatPercent(e.mfu) };
        QTest::addRow("tokens per second") << QStringList { QStringLiteral("Tokens per second"),
            formatCount((long long)std::llround(e.tokensPerSecond)) };
        QTest::addRow("time to train") << QStringList { QStringLiteral("Time to train the budget"),
            formatDuration(e.trainingSeconds) };
        QTest::addRow("cost to train") << QStringList { QStringLiteral("Cost to train the budget"),
            formatUsd(e.trainingCostUsd) };
        QTest::addRow("uncalibrated") << QStringList { QStringLiteral("Calibration"), QStringLiteral("uncalibrated") };
        QTest::addRow("price date") << QStringList { QString::fromStdString(m_analysis.bom->lines.front().priceDate) };
    }
    void totalsAndPerformance()
    {
        QFETCH(QStringList, parts);
        QVERIFY2(m_text.contains(cells(parts)), qPrintable(parts.join(QLatin1Char(' '))));
    }

    /// A sensitivity row matches an independent analysis of the same variant: its iteration time
    /// with the base strategy and with its own, and its own strategy, named.
    void sensitivityRow()
    {
        engine::Scenario variant = m_scenario;
        variant.cluster.fabric.oversubscription = 2.0;
        const engine::ScenarioAnalysis a = engine::analyseScenario(variant, m_catalog, m_prices);
        QVERIFY(a.bom && a.estimate);
        const QString strategy = views::strategyLabel(a.estimate->strategy);
        QCOMPARE(strategy, QStringLiteral("TP8 PP4 DP32 Z1 mb1")); // the scenario's
        // The variant's name may wrap in its cell ("2:1" on the next line); the costs tell 2:1 apart.
        const QStringList parts { formatCount(variant.cluster.gpus), formatSeconds(a.estimate->iterationSeconds),
            formatSeconds(a.estimate->iterationSeconds), strategy, formatUsd(a.bom->networkCostPerGpuUsd()),
            formatUsd(a.bom->clusterCostUsd) };
        const QRegularExpression row(QStringLiteral("Oversubscription(\\s+2:1)?\\s+") + cells(parts).pattern());
        QVERIFY2(m_text.contains(row), qPrintable(row.pattern()));
        QVERIFY(m_text.contains(QStringLiteral("RoCE instead of")));
        QVERIFY(m_text.contains(QStringLiteral("2:1")));
        QVERIFY(m_text.contains(QStringLiteral("Next GPU count up")));
        // The column headers say which iteration time is which (each may wrap within its cell).
        const QRegularExpression header(QStringLiteral("Variant\\s+GPUs\\s+Iteration,\\s+Iteration,\\s+Own strategy\\s+"
                                                       "Network\\s+Cluster cost\\s+Contention"));
        QVERIFY2(m_text.contains(header), qPrintable(header.pattern()));
        QVERIFY(m_text.contains(cells({ QStringLiteral("base"), QStringLiteral("own") })));
    }

    /// The rail-optimised example at 2:1 is faster than as specified with the very same strategy:
    /// its larger scalable units keep the pipeline neighbours under one leaf. The report says so
    /// beside the table instead of leaving a cheaper fabric looking faster for no reason.
    void sensitivitySaysWhy()
    {
        const std::vector<SensitivityRow>& rows = m_report.scenarios.front().sensitivity;
        QVERIFY(rows.size() >= 4);
        const SensitivityRow& base = rows.front();
        QVERIFY(base.base);
        QCOMPARE(base.sameStrategySeconds, base.iterationSeconds);
        for (const SensitivityRow& row : rows) {
            if (row.sameStrategySeconds <= 0)
                continue;
            // Every same-strategy time that differs from the base row's says why.
            const bool differs
                = std::fabs(row.sameStrategySeconds - base.iterationSeconds) > 1e-4 * base.iterationSeconds;
            QVERIFY2(differs != row.sameStrategyWhy.isEmpty(),
                qPrintable(row.variant + QStringLiteral(": ") + row.sameStrategyWhy));
        }
        const auto twoToOne = std::find_if(rows.begin(), rows.end(),
            [](const SensitivityRow& r) { return r.variant == QStringLiteral("Oversubscription 2:1"); });
        QVERIFY(twoToOne != rows.end());
        QVERIFY(twoToOne->sameStrategySeconds < base.iterationSeconds);
        QVERIFY2(twoToOne->sameStrategyWhy.contains(
                     QStringLiteral("pipeline neighbours under one leaf instead of through the spines")),
            qPrintable(twoToOne->sameStrategyWhy));
        QVERIFY(m_text.contains(QStringLiteral("What changes with the base strategy:")));
        QVERIFY(m_text.contains(cells({ QStringLiteral("Oversubscription 2:1 with the base strategy:"),
            QStringLiteral("pipeline neighbours under one leaf") })));
        // The contention is printed to the digit that tells 1.004x from none.
        QVERIFY2(m_text.contains(QString::number(base.contentionSlowdown, 'f', 3) + QStringLiteral("×")),
            qPrintable(QString::number(base.contentionSlowdown, 'f', 3)));
    }

    /// A scenario that states no strategy: each variant's own strategy is its own search's best;
    /// the base-strategy column evaluates the base row's strategy on the variant, as an
    /// independent analysis of that strategy does.
    void sensitivityBaseStrategy()
    {
        engine::Scenario searched = m_scenario;
        searched.parallelism.reset();
        const engine::ScenarioAnalysis base = engine::analyseScenario(searched, m_catalog, m_prices);
        QVERIFY(base.estimate && base.estimateSource == engine::EstimateSource::Search);
        const std::vector<SensitivityRow> rows = computeSensitivity(searched, base, m_catalog, m_prices);
        QVERIFY(rows.size() >= 4);
        QCOMPARE(rows.front().strategy, views::strategyLabel(base.estimate->strategy));
        int differentStrategies = 0;
        for (const SensitivityRow& row : rows) {
            QVERIFY2(row.error.isEmpty(), qPrintable(row.error));
            QVERIFY(!row.strategy.isEmpty());
            if (row.variant.startsWith(QStringLiteral("Next GPU count"))) {
                QCOMPARE(row.sameStrategySeconds, 0.0); // the base strategy covers 1,024 GPUs only
                continue;
            }
            engine::Scenario variant = searched;
            if (row.variant.startsWith(QStringLiteral("Oversubscription ")))
                variant.cluster.fabric.oversubscription = row.variant.mid(17, 1).toDouble();
            else if (row.variant.startsWith(QStringLiteral("RoCE")))
                variant.cluster.transport = engine::Transport::RoCE;
            // Own strategy: the variant's own search.
            const engine::ScenarioAnalysis own = engine::analyseScenario(variant, m_catalog, m_prices);
            QVERIFY(own.estimate);
            QCOMPARE(row.strategy, views::strategyLabel(own.estimate->strategy));
            QVERIFY(std::fabs(row.iterationSeconds - own.estimate->iterationSeconds)
                <= 1e-9 * own.estimate->iterationSeconds);
            // Base strategy: the base row's strategy stated in the variant.
            base.estimate->strategy.applyTo(variant);
            const engine::ScenarioAnalysis same = engine::analyseScenario(variant, m_catalog, m_prices);
            QVERIFY(same.estimate && same.estimateSource == engine::EstimateSource::Scenario);
            QVERIFY2(std::fabs(row.sameStrategySeconds - same.estimate->iterationSeconds)
                    <= 1e-9 * same.estimate->iterationSeconds,
                qPrintable(QStringLiteral("%1: %2 s, independently %3 s")
                               .arg(row.variant)
                               .arg(row.sameStrategySeconds)
                               .arg(same.estimate->iterationSeconds)));
            differentStrategies += row.strategy != rows.front().strategy;
        }
        // The example's search picks another strategy on at least one variant: the two columns differ there.
        QVERIFY(differentStrategies > 0);
    }

    /// The busiest link is inside a server (NVLink): the finding also names the busiest network
    /// link, the maximum of the "Busiest network links" table below it.
    void busiestNetworkLink()
    {
        const engine::FabricGraph& g = m_analysis.fabric->graph;
        const auto busiest = engine::busiestLink(g, m_analysis.load.linkUtilisation);
        const auto network = engine::busiestNetworkLink(g, m_analysis.load.linkUtilisation);
        QVERIFY(busiest && network);
        QCOMPARE(busiest->level, engine::LinkLevel::Internal);
        QVERIFY(network->level != engine::LinkLevel::Internal && network->utilisation < busiest->utilisation);
        const QString finding = QStringLiteral("busiest network link: ")
            + QString::fromStdString(engine::describeUtilisation(network->utilisation));
        QVERIFY2(m_text.contains(cells(finding.split(QLatin1Char(' ')))), qPrintable(finding));
        // The table's first row carries that maximum.
        const QRegularExpressionMatch top
            = QRegularExpression(QStringLiteral("Busiest network links[^%]*?\\s([0-9.]+)%")).match(m_text);
        QVERIFY(top.hasMatch());
        QCOMPARE(top.captured(1) + QLatin1Char('%'), formatPercent(network->utilisation));
    }

    /// The compute model's fractions of peak default to the GPU's catalog figure (0 in
    /// ComputeEfficiencyParams): said so, not printed as a zero efficiency.
    void fractionsOfPeakNotZero()
    {
        const QRegularExpression zero(QStringLiteral("(GEMM|Flash attention) fraction of peak\\s+0\\s"));
        QVERIFY2(!zero.match(m_text).hasMatch(), qPrintable(zero.match(m_text).captured(0)));
        QVERIFY(m_text.contains(QRegularExpression(QStringLiteral("GEMM fraction of peak\\s+per GPU and dtype"))));
    }

    /// Every section and its text is printed (regression: moving a heading to the next page once
    /// left the rest of the document un-laid-out, so only tables were printed after it).
    void everySection_data()
    {
        QTest::addColumn<QString>("text");
        for (const char* heading : { "Summary", "Key figures", "Fabric", "Schematic of the rail-optimized fabric",
                 "Design notes:", "Bill of materials", "Cost per GPU:", "Price sources", "Predicted performance",
                 "Iteration breakdown", "Each GPU sends per iteration", "Link utilisation and oversubscription",
                 "Average utilisation over one iteration", "Busiest network links", "Sensitivity",
                 "Assumptions and calibration", "Calibration status", "Uncalibrated.", "Compute efficiency model",
                 "Other assumptions" })
            QTest::addRow("%s", heading) << QString::fromUtf8(heading);
    }
    void everySection()
    {
        QFETCH(QString, text);
        QVERIFY(m_text.contains(text));
    }

    void everyPageNumbered()
    {
        const QString info = tool(QStringLiteral("pdfinfo"), { m_pdf });
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(info);
        QVERIFY2(m.hasMatch(), qPrintable(info));
        QCOMPARE(m.captured(1).toInt(), m_pages);
        for (int page = 1; page <= m_pages; ++page) {
            const QString text = tool(QStringLiteral("pdftotext"),
                { QStringLiteral("-f"), QString::number(page), QStringLiteral("-l"), QString::number(page), m_pdf,
                    QStringLiteral("-") });
            const QString expected = QStringLiteral("Page %1 of %2").arg(page).arg(m_pages);
            QVERIFY2(text.contains(expected), qPrintable(expected));
        }
    }

    void fontsEmbedded()
    {
        const QString fonts = tool(QStringLiteral("pdffonts"), { m_pdf });
        const QStringList lines = fonts.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 3, qPrintable(fonts)); // header, rule, at least one font
        const qsizetype embColumn = lines[0].indexOf(QStringLiteral("emb"));
        QVERIFY(embColumn > 0);
        for (qsizetype i = 2; i < lines.size(); ++i)
            QVERIFY2(lines[i].mid(embColumn, 3) == QLatin1String("yes"), qPrintable(lines[i]));
    }

    /// A table that breaks across pages repeats its header row on every page: a BOM made long on
    /// purpose (its lines repeated) spans several pages; each page with BOM rows has the header.
    void tableHeadersRepeat()
    {
        ReportDocument longBom = m_report;
        std::vector<engine::BomLine>& lines = longBom.scenarios.front().analysis.bom->lines;
        const std::vector<engine::BomLine> original = lines;
        for (int copy = 0; copy < 12; ++copy)
            lines.insert(lines.end(), original.begin(), original.end());
        const QString pdf = m_dir.filePath(QStringLiteral("long.pdf"));
        auto pages = writePdf(longBom, pdf);
        QVERIFY2(pages.isOk(), pages.message().c_str());
        int pagesWithRows = 0;
        const QRegularExpression qm9700Row
            = cells({ QStringLiteral("72"), QStringLiteral("$42,000"), QStringLiteral("$3,024,000") });
        for (int page = 1; page <= *pages; ++page) {
            const QString text = tool(QStringLiteral("pdftotext"),
                { QStringLiteral("-layout"), QStringLiteral("-f"), QString::number(page), QStringLiteral("-l"),
                    QString::number(page), pdf, QStringLiteral("-") });
            if (!text.contains(qm9700Row))
                continue;
            ++pagesWithRows;
            QVERIFY2(text.contains(
                         cells({ QStringLiteral("Category"), QStringLiteral("Item"), QStringLiteral("Description") })),
                qPrintable(QStringLiteral("page %1 has BOM rows but no header").arg(page)));
        }
        QVERIFY(pagesWithRows >= 2);
    }

    void runSection()
    {
        engine::Run run;
        const engine::RunAnalysis analysis = testsupport::generatedRunAnalysis(1024, run);
        ReportInput input;
        input.scenarios = { m_scenario };
        input.catalog = &m_catalog;
        input.prices = &m_prices;
        input.sensitivity = false;
        input.run = ReportRun { QStringLiteral("generated 1024 ranks"), analysis };
        auto report = buildReport(input);
        QVERIFY2(report.isOk(), report.message().c_str());
        const QString pdf = testsupport::screenshotPath(QStringLiteral("report-with-run.pdf"));
        auto pages = writePdf(*report, pdf);
        QVERIFY2(pages.isOk(), pages.message().c_str());
        const QString text = tool(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), pdf, QStringLiteral("-") });
        QVERIFY(text.contains(QStringLiteral("Measured run: generated 1024 ranks")));
        QVERIFY(text.contains(QStringLiteral("1,024 ranks, 3 profiled steps")));
        // Step time: the engine's mean and tail, in ms.
        const engine::LatencyStats step = engine::stepDurationStats(analysis);
        QVERIFY2(text.contains(cells({ QStringLiteral("3"), QString::number(step.mean * 1e3, 'f', 2),
                     QString::number(step.p50 * 1e3, 'f', 2), QString::number(step.p99 * 1e3, 'f', 2),
                     QString::number(step.max * 1e3, 'f', 2) })),
            qPrintable(text.mid(text.indexOf(QStringLiteral("Step time")), 400)));
        // The world AllReduce (the most time) is the first collective row, with its tail.
        const auto folds = engine::foldCollectives(analysis.collectives);
        const auto world = std::find_if(
            folds.begin(), folds.end(), [](const engine::CollectiveFold& f) { return f.groupSize == 1024; });
        QVERIFY(world != folds.end());
        QVERIFY2(text.contains(cells({ QStringLiteral("allreduce"), QStringLiteral("0"), QStringLiteral("1,024"),
                     QStringLiteral("3"), formatCount(world->bytes), QString::number(world->durationUs.mean, 'f', 1),
                     QString::number(world->durationUs.p50, 'f', 1), QString::number(world->durationUs.p99, 'f', 1),
                     QString::number(world->durationUs.max, 'f', 1) })),
            qPrintable(text.mid(text.indexOf(QStringLiteral("Collectives")), 600)));
        // 128 tensor-parallel groups: the rest of the kinds are counted, not listed.
        QVERIFY(text.contains(QStringLiteral("more kinds")));
        // Stragglers by the tail: the planted 700 us straggler (rank 1024 / 3) is the first row.
        QCOMPARE(analysis.stragglers.front().rank, 341);
        QVERIFY2(text.contains(cells({ QStringLiteral("341"), QStringLiteral("3") })),
            qPrintable(text.mid(text.indexOf(QStringLiteral("Stragglers, by")), 600)));
        const qsizetype first = text.indexOf(QRegularExpression(QStringLiteral("\\n\\s*341\\s+3\\s")));
        const qsizetype table = text.indexOf(QStringLiteral("Stragglers, by"));
        QVERIFY2(first > table
                && !text.mid(table, first - table)
                        .contains(QRegularExpression(QStringLiteral("\\n\\s*\\d+\\s+\\d+\\s+\\d"))),
            qPrintable(text.mid(table, 600)));
        QVERIFY(text.contains(QString::number(analysis.stragglers.front().waitTailUs.p99 / 1e3, 'f', 3)));
    }

private:
    QTemporaryDir m_dir;
    engine::Catalog m_catalog;
    engine::PriceBook m_prices;
    engine::Scenario m_scenario;
    engine::ScenarioAnalysis m_analysis;
    ReportDocument m_report;
    QString m_pdf;
    QString m_text;
    int m_pages = 0;
};

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    TestReportPdf test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_reportpdf.moc"
