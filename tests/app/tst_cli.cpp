// clusterscope-cli as a user runs it: exit codes and messages.

#include "clirunner.h"

#include <QtTest>

namespace {
using clitest::Run;
using clitest::runCli;

QString example(const char* name)
{
    return QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/resources/examples/") + QLatin1String(name);
}
}

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpAndVersion()
    {
        Run r = runCli({ QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("validate")));
        QVERIFY(r.out.contains(QStringLiteral("catalog")));
        const Run help = r;
        r = runCli({ QStringLiteral("--version") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("clusterscope-cli 0.")));
        r = runCli({ QStringLiteral("validate"), QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("Usage: clusterscope-cli validate FILE")));
        r = runCli({});
        QCOMPARE(r.exitCode, 1);
        // Every command is listed once (merges of the command table must not duplicate rows).
        QStringList names;
        bool inCommands = false;
        for (const QString& line : help.out.split(QLatin1Char('\n'))) {
            if (line == QLatin1String("Commands:")) {
                inCommands = true;
                continue;
            }
            if (inCommands && line.isEmpty())
                break;
            if (inCommands)
                names << line.trimmed().section(QLatin1Char(' '), 0, 0);
        }
        QVERIFY(names.size() >= 2);
        QCOMPARE(QSet<QString>(names.begin(), names.end()).size(), names.size());
        r = runCli({ QStringLiteral("frobnicate") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("unknown command \"frobnicate\"")));
    }

    void validateExamples()
    {
        for (const char* name :
            { "llama3-70b-1024-h100.json", "gpt3-175b-1024-a100.json", "mixtral-8x7b-256-h200-roce.json" }) {
            const Run r = runCli({ QStringLiteral("validate"), example(name) });
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY(r.out.contains(QStringLiteral(": valid")));
        }
    }

    void validateBrokenFile_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("expected");
        QTest::addRow("type error") << QByteArray("\"hidden\": 8192") << QByteArray("\"hidden\": \"8k\"")
                                    << "/model/hidden: expected a positive integer, got \"8k\"";
        QTest::addRow("unknown key") << QByteArray("\"layers\": 80") << QByteArray("\"layerz\": 80")
                                     << "/model/layerz: unknown key";
        QTest::addRow("cross-field") << QByteArray("\"dp\": 32") << QByteArray("\"dp\": 16")
                                     << "/parallelism: tp x pp x dp x cp = 512 does not equal cluster.gpus = 1024";
        QTest::addRow("syntax") << QByteArray("\"moe\": null") << QByteArray("\"moe\": nul") << ": byte ";
    }
    void validateBrokenFile()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, expected);
        QFile in(example("llama3-70b-1024-h100.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        QVERIFY(text.contains(from));
        text.replace(from, to);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const Run r = runCli({ QStringLiteral("validate"), path });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(path + QStringLiteral(": ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    }

    void validateUsageErrors()
    {
        Run r = runCli({ QStringLiteral("validate") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("expected exactly one scenario FILE")));
        r = runCli({ QStringLiteral("validate"), example("gpt3-175b-1024-a100.json"), QStringLiteral("--frob") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains(QStringLiteral("unknown option --frob")));
        r = runCli({ QStringLiteral("validate"), QStringLiteral("/nonexistent.json") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.startsWith(QStringLiteral("/nonexistent.json: cannot open")));
    }

    void validateJson()
    {
        const Run r = runCli(
            { QStringLiteral("validate"), example("mixtral-8x7b-256-h200-roce.json"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("valid")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("issues")).toArray().size(), 0);
    }

    void catalog()
    {
        Run r = runCli({ QStringLiteral("catalog") });
        QCOMPARE(r.exitCode, 0);
        for (const char* id : { "A100-SXM-80GB", "H100-SXM-80GB", "H200-SXM-141GB", "B200", "GB200", "B300", "GB300",
                 "MI300X", "QM9700" })
            QVERIFY2(r.out.contains(QLatin1String(id)), id);
        r = runCli({ QStringLiteral("catalog"), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY(o.value(QStringLiteral("gpus")).toArray().size() >= 6);
        QVERIFY(!o.value(QStringLiteral("switches")).toArray().isEmpty());
        r = runCli({ QStringLiteral("catalog"), QStringLiteral("--catalog"), QStringLiteral("/nonexistent") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.startsWith(QStringLiteral("/nonexistent/gpus.json: cannot open")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
