// Text exposition 0.0.4 and OpenMetrics 1.0: golden files for the edge cases real Prometheus accepts
// (escapes, NaN/+-Inf, trailing comma, timestamps, histogram, summary, untyped, UTF-8, exemplars,
// _created, seconds timestamps) and every error shape with its line and column.

#include "importers/common/inputfile.h"
#include "importers/telemetry/expositionparser.h"

#include <QtTest>

#include <cmath>
#include <sstream>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {
std::string dataPath(const std::string& rel) { return std::string(CLUSTERSCOPE_TEST_DATA_DIR "/telemetry/") + rel; }

std::string escape(std::string_view s)
{
    std::string out;
    for (char c : s) {
        if (c == '\n')
            out += "\\n";
        else if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else
            out += c;
    }
    return out;
}

std::string dump(std::string_view text, ExpositionFormat format, std::string* error = nullptr)
{
    std::ostringstream o;
    std::vector<FamilyInfo> families;
    auto n = parseExposition(
        text, format, "input",
        [&](const SampleView& s) {
            o << s.name << "{";
            for (std::size_t i = 0; i < s.labels.size(); ++i)
                o << (i ? "," : "") << s.labels[i].name << "=\"" << escape(s.labels[i].value) << "\"";
            char value[64];
            std::snprintf(value, sizeof value, "%.17g", s.value);
            o << "} " << value;
            if (s.hasTimestamp)
                o << " @" << s.timestampMs << "ms";
            o << " family=" << (s.family.empty() ? "-" : std::string(s.family)) << " type=" << toString(s.type) << "\n";
        },
        &families);
    if (!n) {
        if (error)
            *error = n.message();
        return {};
    }
    for (const auto& f : families)
        o << "# family " << f.name << " type=" << toString(f.type) << " unit=" << f.unit << " help=" << escape(f.help)
          << "\n";
    return o.str();
}
} // namespace

class TestExposition : public QObject {
    Q_OBJECT
private slots:
    void golden_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addRow("text 0.0.4 edge cases") << "text004_edge.prom";
        QTest::addRow("OpenMetrics edge cases") << "openmetrics_edge.om";
    }
    void golden()
    {
        QFETCH(QString, input);
        auto text = readInputFile(dataPath(input.toStdString()));
        QVERIFY2(text, text.message().c_str());
        std::string error;
        const std::string out = dump(*text, detectExpositionFormat(*text), &error);
        QVERIFY2(error.empty(), error.c_str());
        const QString path = QString::fromStdString(dataPath(input.toStdString() + ".golden.txt"));
        if (qEnvironmentVariableIsSet("CLUSTERSCOPE_UPDATE_GOLDEN")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(out));
        }
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), "golden file missing: run with CLUSTERSCOPE_UPDATE_GOLDEN=1");
        QCOMPARE(QString::fromStdString(out), QString::fromUtf8(f.readAll()));
    }

    void values_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<double>("expected");
        QTest::addRow("integer") << "m 42" << 42.0;
        QTest::addRow("exponent") << "m 1e3" << 1000.0;
        QTest::addRow("negative exponent") << "m -0.25e-3" << -0.00025;
        QTest::addRow("plus sign") << "m +7.5" << 7.5;
        QTest::addRow("+Inf") << "m +Inf" << qInf();
        QTest::addRow("-Inf") << "m -Inf" << -qInf();
        QTest::addRow("inf lower case") << "m inf" << qInf();
        QTest::addRow("NaN") << "m NaN" << double(NAN);
        QTest::addRow("big counter") << "m 18446744073709551615" << 18446744073709551615.0;
    }
    void values()
    {
        QFETCH(QString, line);
        QFETCH(double, expected);
        double got = 0;
        const std::string text = line.toStdString() + "\n";
        auto n = parseExposition(text, ExpositionFormat::Text004, "v", [&](const SampleView& s) { got = s.value; });
        QVERIFY2(n, n.message().c_str());
        if (std::isnan(expected))
            QVERIFY(std::isnan(got));
        else
            QCOMPARE(got, expected);
    }

    void timestamps()
    {
        std::int64_t ms = 0;
        auto a = parseExposition(
            "m 1 1628683905941\n", ExpositionFormat::Text004, "a", [&](const SampleView& s) { ms = s.timestampMs; });
        QVERIFY(a);
        QCOMPARE(ms, std::int64_t(1628683905941));
        auto b = parseExposition("m 1 1628683905.941\n# EOF\n", ExpositionFormat::OpenMetrics, "b",
            [&](const SampleView& s) { ms = s.timestampMs; });
        QVERIFY(b);
        QCOMPARE(ms, std::int64_t(1628683905941));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("openMetrics");
        QTest::addColumn<QString>("message");
        QTest::addRow("missing value") << "m{a=\"1\"}\n" << false << "input:1:9: sample has no value";
        QTest::addRow("bad value") << "ok 1\nm 12abc\n" << false << "input:2:3: invalid sample value \"12abc\"";
        QTest::addRow("unterminated label value") << "m{a=\"x} 1\n"
                                                  << false << "input:1:6: unterminated value of label \"a\"";
        QTest::addRow("label without quotes") << "m{a=1} 1\n"
                                              << false << "input:1:5: expected '\"' to open the value of label \"a\"";
        QTest::addRow("missing =") << "m{a \"1\"} 1\n" << false << "input:1:5: expected '=' after label name \"a\"";
        QTest::addRow("bad label name") << "m{1a=\"x\"} 1\n" << false << "input:1:3: invalid label name";
        QTest::addRow("missing comma") << "m{a=\"1\" b=\"2\"} 1\n"
                                       << false << "input:1:9: expected ',' or '}' after a label value";
        QTest::addRow("unterminated label set") << "m{a=\"1\"," << false << "input:1:9: unterminated label set";
        QTest::addRow("bad metric name") << "1m 1\n" << false << "input:1:1: a sample must start with a metric name";
        QTest::addRow("quoted UTF-8 name")
            << "{\"my.metric\"} 1\n"
            << false << "input:1:1: quoted metric names (Prometheus 3 UTF-8 names) are not supported";
        QTest::addRow("float timestamp in 0.0.4")
            << "m 1 1.5\n"
            << false << "input:1:5: invalid timestamp \"1.5\" (text 0.0.4 wants integer milliseconds)";
        QTest::addRow("trailing garbage") << "m 1 2 3\n" << false << "input:1:7: unexpected text after the sample";
        QTest::addRow("unknown type") << "# TYPE m countr\nm 1\n"
                                      << false << "input:1:10: unknown metric type \"countr\"";
        QTest::addRow("no # EOF") << "m 1 1\n" << true << "input: OpenMetrics data does not end with \"# EOF\"";
        QTest::addRow("content after # EOF") << "m 1 1\n# EOF\nm 2 2\n" << true << "input:3:1: content after \"# EOF\"";
        QTest::addRow("exemplar in 0.0.4") << "m 1 # {a=\"b\"} 1\n"
                                           << false << "input:1:5: unexpected text after the sample";
    }
    void errors()
    {
        QFETCH(QString, text);
        QFETCH(bool, openMetrics);
        QFETCH(QString, message);
        const std::string t = text.toStdString();
        auto n = parseExposition(t, openMetrics ? ExpositionFormat::OpenMetrics : ExpositionFormat::Text004, "input",
            [](const SampleView&) {});
        QVERIFY(!n);
        QCOMPARE(QString::fromStdString(n.message()), message);
    }

    void formatDetection()
    {
        QCOMPARE(int(detectExpositionFormat("m 1\n# EOF\n")), int(ExpositionFormat::OpenMetrics));
        QCOMPARE(int(detectExpositionFormat("m 1\n")), int(ExpositionFormat::Text004));
        QCOMPARE(int(expositionFormatFromContentType("application/openmetrics-text; version=1.0.0; charset=utf-8")),
            int(ExpositionFormat::OpenMetrics));
        QCOMPARE(int(expositionFormatFromContentType("text/plain; version=0.0.4; charset=utf-8")),
            int(ExpositionFormat::Text004));
    }
};

QTEST_GUILESS_MAIN(TestExposition)
#include "tst_exposition.moc"
