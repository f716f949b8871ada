// Damaged input files given to the real CLI: every JSON read path (scenario, calibration,
// nccl-tests -J, catalog override, Kineto trace, project) ends with exit code 1 and one message
// naming the file and the place, never with an abort (exit 134) from an escaped exception.

#include "clirunner.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace clitest;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The flagship example with `key: <old number>` replaced by `key: value` (text surgery, so that the
// damaged literal reaches the parser as written).
QByteArray exampleWith(const QByteArray& key, const QByteArray& value)
{
    QByteArray text = readAll(example("llama3-70b-1024-h100.json"));
    const QByteArray quoted = '"' + key + "\": ";
    const qsizetype at = text.indexOf(quoted);
    if (at < 0)
        return {};
    const qsizetype start = at + quoted.size();
    qsizetype end = start;
    while (end < text.size() && (QChar::fromLatin1(text[end]).isDigit() || text[end] == '.' || text[end] == 'e'))
        ++end;
    return text.left(start) + value + text.mid(end);
}

} // namespace

class TestCliDamagedInputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void damagedFiles_data()
    {
        // `args` use {file} for the damaged file and {dir} for its folder; `name` is the file's name
        // in the temporary folder; `expected` must appear in stderr.
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray overflow = R"({"version":1,"results":[{"size":1e99999}]})";
        QTest::addRow("nccl-tests -J number overflow (44 bytes)")
            << QStringList { QStringLiteral("import-nccl-tests"), QStringLiteral("{file}") } << QStringLiteral("r.json")
            << overflow
            << QStringLiteral("r.json: byte 39: not valid JSON (line 1, column 39: number overflow parsing '1e99999')");
        QTest::addRow("nccl-tests -J wrong type")
            << QStringList { QStringLiteral("import-nccl-tests"), QStringLiteral("{file}") } << QStringLiteral("r.json")
            << QByteArray(R"({"config": {"devices": [{"rank": 0, "hostname": []}]}, "results": []})")
            << QStringLiteral("r.json: /config/devices/0/hostname: expected a string, got []");
        const QByteArray batch = exampleWith("global_batch", "1e99999");
        QTest::addRow("validate: global_batch overflow")
            << QStringList { QStringLiteral("validate"), QStringLiteral("{file}") } << QStringLiteral("s.json") << batch
            << QStringLiteral("number overflow parsing '1e99999'");
        QTest::addRow("evaluate: global_batch overflow")
            << QStringList { QStringLiteral("evaluate"), QStringLiteral("{file}") } << QStringLiteral("s.json") << batch
            << QStringLiteral("s.json: byte ");
        QTest::addRow("evaluate: micro_batch 1e300 (a number, not an int)")
            << QStringList { QStringLiteral("evaluate"), QStringLiteral("{file}") } << QStringLiteral("s.json")
            << exampleWith("micro_batch", "1e300")
            << QStringLiteral("s.json: /training/micro_batch: expected a positive integer");
        QTest::addRow("evaluate --calibration overflow")
            << QStringList { QStringLiteral("evaluate"), example("llama3-70b-1024-h100.json"),
                   QStringLiteral("--calibration"), QStringLiteral("{file}") }
            << QStringLiteral("c.json")
            << QByteArray(
                   R"({"format": "clusterscope-calibration", "version": 1, "calibration": [{"latency_scale": 1e99999}]})")
            << QStringLiteral("c.json: byte 94: not valid JSON (line 1, column 94: number overflow parsing '1e99999')");
        QTest::addRow("evaluate --calibration wrong type")
            << QStringList { QStringLiteral("evaluate"), example("llama3-70b-1024-h100.json"),
                   QStringLiteral("--calibration"), QStringLiteral("{file}") }
            << QStringLiteral("c.json")
            << QByteArray(R"({"format": "clusterscope-calibration", "version": 1, "calibration": 7, "sweeps": []})")
            << QStringLiteral("c.json: /calibration: expected an array");
        QTest::addRow("validate --catalog overflow")
            << QStringList { QStringLiteral("validate"), example("llama3-70b-1024-h100.json"),
                   QStringLiteral("--catalog"), QStringLiteral("{dir}") }
            << QStringLiteral("gpus.json")
            << QByteArray(R"({"format": "clusterscope-catalog-gpus", "version": 1e99999})")
            << QStringLiteral(
                   "gpus.json: byte 58: not valid JSON (line 1, column 58: number overflow parsing '1e99999')");
        QTest::addRow("import-trace: not JSON")
            << QStringList { QStringLiteral("import-trace"), QStringLiteral("{file}") } << QStringLiteral("t.json")
            << QByteArray(R"({"traceEvents": [{"ph": "X", "ts": 1e99999,)") << QStringLiteral("t.json: byte ");
        QTest::addRow("project that is not a database")
            << QStringList { QStringLiteral("evaluate"), example("llama3-70b-1024-h100.json"),
                   QStringLiteral("--project"), QStringLiteral("{file}") }
            << QStringLiteral("p.csproj") << QByteArray("SQLite format 3\0 this is not a database", 40)
            << QStringLiteral("p.csproj");
    }
    void damagedFiles()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QVERIFY(!bytes.isEmpty());
        QTemporaryDir dir;
        const QString file = dir.filePath(name);
        QVERIFY(writeFile(file, bytes));
        if (name == QLatin1String("gpus.json")) // a catalog override is a folder of four documents
            for (const char* other : { "nics.json", "switches.json", "cables.json" })
                QVERIFY(
                    QFile::copy(QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/catalog/") + QLatin1String(other),
                        dir.filePath(QLatin1String(other))));
        for (QString& a : args)
            a.replace(QStringLiteral("{file}"), file).replace(QStringLiteral("{dir}"), dir.path());
        const Run r = runCli(args);
        QVERIFY2(r.exitCode == 1, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QLatin1String("terminate called")), qPrintable(r.err));
    }

    // A Kineto event whose ts overflows a double is one skipped record (simdjson reports a number
    // error), counted in a diagnostic; the rest of the trace is imported.
    void kinetoNumberOverflowIsADiagnostic()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("t.json"));
        QVERIFY(writeFile(file,
            R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1e99999, "dur": 2}]})"));
        const Run r = runCli({ QStringLiteral("import-trace"), file });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("kineto.bad_timestamp (x1): ") + file), qPrintable(r.out));
    }
};

QTEST_GUILESS_MAIN(TestCliDamagedInputs)
#include "tst_cli_damagedinputs.moc"
