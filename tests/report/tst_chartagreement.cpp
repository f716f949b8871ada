// The GUI's Iteration breakdown chart and the report's breakdown chart drawn for one scenario must
// agree: the same legend entries, in the same order, with the same names and colours (both come
// from views/presentation/breakdownpalette.h); the report's picture shows each legend colour.

#include "app/report/breakdownchart.h"
#include "engine/analysis/scenarioanalysis.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "views/charts/breakdownchart.h"
#include "views/presentation/breakdownpalette.h"

#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QStackedBarSeries>
#include <QtTest>

using namespace clusterscope;

class TestChartAgreement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void legendsAgree_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addRow("llama dense") << QStringLiteral("llama3-70b-1024-h100.json");
        QTest::addRow("mixtral MoE") << QStringLiteral("mixtral-8x7b-256-h200-roce.json");
    }
    void legendsAgree()
    {
        QFETCH(QString, file);
        auto scenario = engine::loadScenarioFile(
            std::string(CLUSTERSCOPE_SOURCE_DIR) + "/resources/examples/" + file.toStdString());
        QVERIFY2(scenario, scenario.message().c_str());
        const engine::Catalog catalog = engine::Catalog::builtin().value();
        const engine::PriceBook prices = engine::PriceBook::builtin().value();
        engine::AnalysisOptions options;
        options.searchTopK = 4;
        options.buildFabric = false;
        const engine::ScenarioAnalysis a = engine::analyseScenario(*scenario, catalog, prices, options);
        QVERIFY2(a.estimate, a.trainingError.c_str());

        // The GUI chart, as the Iteration breakdown tab fills it.
        views::BreakdownChart gui;
        gui.setBreakdowns(views::BreakdownChart::fromEstimates(*a.estimate, a.search ? &*a.search : nullptr));
        gui.resize(1200, 700);
        gui.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gui)); // legend markers report visibility once shown
        QStackedBarSeries* bars = nullptr;
        for (QAbstractSeries* s : gui.chart()->series())
            if (auto* b = qobject_cast<QStackedBarSeries*>(s))
                bars = b;
        QVERIFY(bars);
        QStringList guiNames;
        QList<QColor> guiColours;
        for (QLegendMarker* m : gui.chart()->legend()->markers(bars)) {
            if (!m->isVisible())
                continue;
            guiNames << m->label();
            guiColours << m->brush().color();
        }

        // The report chart of the same bars.
        std::vector<app::BreakdownBar> reportBars;
        for (const views::LabelledBreakdown& b : gui.breakdowns())
            reportBars.push_back({ b.label, b.breakdown });
        const std::vector<views::BreakdownSlice> legend = app::breakdownLegend(reportBars);
        QStringList reportNames;
        QList<QColor> reportColours;
        for (const views::BreakdownSlice& s : legend) {
            reportNames << s.name;
            reportColours << s.color;
        }
        QVERIFY(guiNames.size() >= 3); // compute, some exposed communication, optimizer at least
        QCOMPARE(reportNames, guiNames);
        QCOMPARE(reportColours, guiColours);

        // Every legend colour is painted in the report's picture (its swatch at least).
        const QImage picture = app::drawBreakdownChart(reportBars, 900);
        for (const QColor& colour : reportColours) {
            bool found = false;
            for (int y = 0; y < picture.height() && !found; ++y)
                for (int x = 0; x < picture.width() && !found; ++x)
                    found = (picture.pixel(x, y) & 0xFFFFFF) == (colour.rgb() & 0xFFFFFF);
            QVERIFY2(found, qPrintable(colour.name()));
        }
    }
};

QTEST_MAIN(TestChartAgreement)
#include "tst_chartagreement.moc"
