// The HTML report: well-formed markup, images inlined as data: URIs that decode to real pictures
// (checked by their pixels), the text preview document, and the BOM CSV against its golden file.

#include "app/report/breakdownchart.h"
#include "app/report/reportbuilder.h"
#include "app/report/reportformat.h"
#include "app/report/reporthtml.h"
#include "app/report/reportwriter.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"

#include <QGuiApplication>
#include <QTextDocument>
#include <QXmlStreamReader>
#include <QtTest>

using namespace clusterscope;
using namespace clusterscope::app;

class TestReportHtml : public QObject {
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
        for (const char* name : { "llama3-70b-1024-h100.json", "mixtral-8x7b-256-h200-roce.json" }) {
            auto scenario
                = engine::loadScenarioFile(std::string(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + name);
            QVERIFY2(scenario.isOk(), scenario.message().c_str());
            m_scenarios.push_back(*scenario);
        }
        ReportInput input;
        input.scenarios = { m_scenarios[0] };
        input.catalog = &m_catalog;
        input.prices = &m_prices;
        auto report = buildReport(input);
        QVERIFY2(report.isOk(), report.message().c_str());
        m_report = *report;
    }

    /// The HTML file parses as XML from start to end, with one html root, a title and a body.
    void wellFormed_data()
    {
        QTest::addColumn<bool>("comparison");
        QTest::addRow("one scenario") << false;
        QTest::addRow("comparison") << true;
    }
    void wellFormed()
    {
        QFETCH(bool, comparison);
        ReportDocument doc = m_report;
        if (comparison) {
            ReportInput input;
            input.scenarios = m_scenarios;
            input.catalog = &m_catalog;
            input.prices = &m_prices;
            input.sensitivity = false;
            auto report = buildReport(input);
            QVERIFY2(report.isOk(), report.message().c_str());
            doc = *report;
        }
        const QString path = m_dir.filePath(QStringLiteral("report.html"));
        const auto status = writeHtml(doc, path);
        QVERIFY2(status.isOk(), status.message().c_str());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        int images = 0, tables = 0;
        QString title;
        QStringList roots;
        int depth = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                if (depth++ == 0)
                    roots << xml.name().toString();
                if (xml.name() == QLatin1String("img")) {
                    ++images;
                    const QString src = xml.attributes().value(QLatin1String("src")).toString();
                    QVERIFY2(src.startsWith(QLatin1String("data:image/png;base64,")), qPrintable(src.left(40)));
                    const QImage image = QImage::fromData(QByteArray::fromBase64(src.mid(22).toLatin1()), "PNG");
                    QVERIFY(!image.isNull());
                    QVERIFY(image.width() >= 600 && image.height() >= 100);
                }
                if (xml.name() == QLatin1String("table"))
                    ++tables;
                if (xml.name() == QLatin1String("title"))
                    title = xml.readElementText(), --depth;
            } else if (xml.isEndElement()) {
                --depth;
            }
        }
        QVERIFY2(!xml.hasError(),
            qPrintable(xml.errorString() + QStringLiteral(" at line ") + QString::number(xml.lineNumber())));
        QCOMPARE(roots, QStringList { QStringLiteral("html") });
        QCOMPARE(title, doc.title);
        QCOMPARE(images, int(1 + doc.scenarios.size())); // breakdown chart + one fabric picture per scenario
        QVERIFY(tables >= 6);
        const QString html = QString::fromUtf8((file.seek(0), file.readAll()));
        QVERIFY(html.contains(QStringLiteral("@media print")));
        for (const ReportScenario& rs : doc.scenarios) {
            QVERIFY(html.contains(formatUsd(rs.analysis.bom->clusterCostUsd)));
            QVERIFY(html.contains(formatSeconds(rs.analysis.estimate->iterationSeconds)));
        }
    }

    /// The fabric schematic draws the switch blocks (pixels of the switch icon colour) and the
    /// breakdown chart's bar splits compute and TP in the estimate's proportion.
    void picturesShowTheData()
    {
        const QImage fabric = m_report.scenarios.front().fabricPicture;
        int switchPixels = 0, serverPixels = 0;
        for (int y = 0; y < fabric.height(); ++y)
            for (int x = 0; x < fabric.width(); ++x) {
                const QRgb c = fabric.pixel(x, y) & 0xFFFFFF;
                switchPixels += c == 0x5B84B1;
                serverPixels += c == 0xF2C14E;
            }
        QVERIFY2(switchPixels > 1000, qPrintable(QString::number(switchPixels)));
        QVERIFY2(serverPixels > 1000, qPrintable(QString::number(serverPixels)));

        const engine::IterationBreakdown& b = m_report.scenarios.front().analysis.estimate->breakdown;
        const QImage chart = drawBreakdownChart({ { QStringLiteral("x"), b } }, 1800);
        const auto components = views::BreakdownPalette::slices(b);
        const QRgb compute = components[0].color.rgb() & 0xFFFFFF, tp = components[2].color.rgb() & 0xFFFFFF;
        const int y = int((14 + 15) * 1800 / 900.0); // middle of the first bar
        int computePixels = 0, tpPixels = 0;
        for (int x = 0; x < chart.width(); ++x) {
            const QRgb c = chart.pixel(x, y) & 0xFFFFFF;
            computePixels += c == compute;
            tpPixels += c == tp;
        }
        QVERIFY(computePixels > 0 && tpPixels > 0);
        QVERIFY2(std::abs(double(computePixels) / tpPixels - b.compute / b.tpExposed) < 0.05 * b.compute / b.tpExposed,
            qPrintable(QStringLiteral("%1 / %2").arg(computePixels).arg(tpPixels)));
    }

    /// The preview document the GUI shows holds the images as resources and the report's numbers.
    // A stated interleaving group (parallelism.vpp_microbatch_group) is in the report's strategy, as
    // evaluate prints it ("vpp 2 (group 6)").
    void interleavingGroupInStrategy()
    {
        engine::Scenario s = m_scenarios[0]; // tp 8, pp 4, dp 32
        s.training.globalBatch = 192; // 6 micro-batches per pipeline
        s.parallelism->vpp = 2;
        s.parallelism->schedule = engine::PipelineSchedule::Interleaved;
        s.parallelism->vppMicrobatchGroup = 6;
        const QString html = htmlOf(s, QStringLiteral("group.html"));
        QVERIFY2(html.contains(QStringLiteral("interleaved schedule, micro-batch group 6")), "group not in the report");
    }

    // A quantized recipe's other precisions and its MTP layers are in the report's training and model
    // lines (training.module_dtypes, bf16_layers_at_end, bf16_mtp; model.mtp_layers).
    void precisionsInTraining()
    {
        engine::Scenario s = m_scenarios[0];
        s.training.dtype = engine::DType::FP8;
        s.training.moduleDtypes.attentionLinears = engine::DType::BF16;
        s.training.bf16LayersAtEnd = 2;
        s.training.bf16Mtp = true;
        s.model.mtpLayers = 1;
        const QString html = htmlOf(s, QStringLiteral("precisions.html"));
        QVERIFY2(
            html.contains(QStringLiteral("fp8 (attention linears bf16; the last 2 layers and the MTP layers bf16)")),
            "precisions not in the report");
        QVERIFY2(html.contains(QStringLiteral("80 layers + 1 MTP layer,")), "MTP layer not in the report");
    }

    void previewDocument()
    {
        QTextDocument text;
        fillTextDocument(m_report, text);
        for (const auto& [name, image] : reportImages(m_report)) {
            const QVariant resource = text.resource(QTextDocument::ImageResource, QUrl(name));
            QVERIFY2(resource.canConvert<QImage>() && !resource.value<QImage>().isNull(), qPrintable(name));
        }
        const QString plain = text.toPlainText();
        QVERIFY(plain.contains(formatSeconds(m_report.scenarios.front().analysis.estimate->iterationSeconds)));
        QVERIFY(plain.contains(QStringLiteral("Bill of materials")));
    }

    void bomCsvGolden()
    {
        const QString path = m_dir.filePath(QStringLiteral("bom.csv"));
        const auto status = writeBomCsv(m_report, path);
        QVERIFY2(status.isOk(), status.message().c_str());
        QFile written(path), golden(QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/report/llama3-70b-1024-h100-bom.csv"));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(golden.open(QIODevice::ReadOnly));
        const QList<QByteArray> got = written.readAll().split('\n'), want = golden.readAll().split('\n');
        for (qsizetype i = 0; i < std::min(got.size(), want.size()); ++i)
            QCOMPARE(got[i], want[i]);
        QCOMPARE(got.size(), want.size());
    }

    void unwritablePaths()
    {
        const auto status = writeHtml(m_report, QStringLiteral("/nonexistent-folder/report.html"));
        QVERIFY(!status.isOk());
        QVERIFY2(QString::fromStdString(status.message())
                     .startsWith(QStringLiteral("cannot write /nonexistent-folder/report.html")),
            status.message().c_str());
        const auto pdf = writePdf(m_report, QStringLiteral("/nonexistent-folder/report.pdf"));
        QVERIFY(!pdf.isOk());
        QVERIFY(QFile::exists(QStringLiteral("/nonexistent-folder")) == false);
    }

private:
    /// The HTML report of `s` alone (no sensitivity table), written to `name` in the test folder; empty
    /// when it cannot be built or written (the caller's checks then fail).
    QString htmlOf(const engine::Scenario& s, const QString& name)
    {
        ReportInput input;
        input.scenarios = { s };
        input.catalog = &m_catalog;
        input.prices = &m_prices;
        input.sensitivity = false;
        auto report = buildReport(input);
        if (!report.isOk()) {
            qWarning("%s", report.message().c_str());
            return {};
        }
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!writeHtml(*report, path).isOk() || !file.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(file.readAll());
    }

    QTemporaryDir m_dir;
    engine::Catalog m_catalog;
    engine::PriceBook m_prices;
    std::vector<engine::Scenario> m_scenarios;
    ReportDocument m_report;
};

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    TestReportHtml test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_reporthtml.moc"
