// Inputs recognised by their content, whatever their names: traces, scenarios, projects,
// nccl-tests logs and ibnetdiscover dumps (plain and gzipped), and text of no known kind.

#include "importers/common/fileformat.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace clusterscope::importers;

Q_DECLARE_METATYPE(clusterscope::importers::FileFormat)

namespace {
QString data(const char* path) { return QStringLiteral(CLUSTERSCOPE_TEST_DATA_DIR "/") + QLatin1String(path); }
}

class TestFileFormat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void text_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<FileFormat>("expected");
        QTest::addRow("kineto object") << QByteArray("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [")
                                       << FileFormat::KinetoTrace;
        QTest::addRow("chrome trace") << QByteArray(" {\"traceEvents\": [{\"ph\": \"X\"}]}") << FileFormat::KinetoTrace;
        QTest::addRow("event array") << QByteArray("[{\"ph\": \"X\", \"name\": \"k\"}]") << FileFormat::KinetoTrace;
        QTest::addRow("scenario") << QByteArray("\xEF\xBB\xBF{\"format\": \"clusterscope-scenario\", \"version\": 1}")
                                  << FileFormat::ScenarioJson;
        QTest::addRow("other json") << QByteArray("{\"a\": 1}") << FileFormat::OtherJson;
        QTest::addRow("sqlite") << QByteArray("SQLite format 3\0\x10\0", 19) << FileFormat::SqliteDatabase;
        QTest::addRow("ibnetdiscover") << QByteArray("#\n# Topology file: generated\n\nvendid=0x2c9\ndevid=0xc738\n")
                                       << FileFormat::IbnetdiscoverDump;
        QTest::addRow("ibnetdiscover records only")
            << QByteArray("Switch\t36 \"S-0002c9\"\t# \"leaf\"\n[1]\t\"H-1\"[1]\n") << FileFormat::IbnetdiscoverDump;
        QTest::addRow("nccl-tests") << QByteArray("# nThread 1 nGpus 8 minBytes 8\n#  Rank  0 Group  0\n")
                                    << FileFormat::NcclTestsLog;
        QTest::addRow("ibnetdiscover --ports") << QByteArray(
            "CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719 10 0x7cfe9003009ce5b0 ( 'o1 HCA-1' - 'l1' )\n")
                                               << FileFormat::IbnetdiscoverDump;
        QTest::addRow("iblinkinfo") << QByteArray(
            "CA: centos-data-200 HCA-1:\n    0x0002c903000d81f9      4    1[  ] ==( 4X "
            "10.0 Gbps Active/ LinkUp)==>       2    3[  ] \"sw\" ( )\n")
                                    << FileFormat::IbnetdiscoverDump;
        QTest::addRow("plain text") << QByteArray("hello\nworld\n") << FileFormat::Unknown;
        QTest::addRow("empty") << QByteArray() << FileFormat::Unknown;
    }
    void text()
    {
        QFETCH(QByteArray, head);
        QFETCH(FileFormat, expected);
        QCOMPARE(detectFileFormat(std::string_view(head.constData(), std::size_t(head.size()))), expected);
    }

    void files_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<FileFormat>("expected");
        QTest::addRow("ibnetdiscover .topo")
            << data("ibnetdiscover/jabl_ibtopotool_tests_1.topo") << FileFormat::IbnetdiscoverDump;
        QTest::addRow("ibnetdiscover gzipped")
            << data("ibnetdiscover/loginoff_infiniband_topology_topo.ibnetdiscover.txt.gz")
            << FileFormat::IbnetdiscoverDump;
        QTest::addRow("kineto gzipped") << data(
            "kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz")
                                        << FileFormat::KinetoTrace;
        QTest::addRow("nccl-tests log") << data("nccltests/allreduce_h100_8gpu.log") << FileFormat::NcclTestsLog;
        QTest::addRow("scenario") << QStringLiteral(
            CLUSTERSCOPE_SOURCE_DIR "/resources/examples/llama3-70b-1024-h100.json")
                                  << FileFormat::ScenarioJson;
        QTest::addRow("folder") << data("kineto/param_dlrm_8rank") << FileFormat::Directory;
        QTest::addRow("missing") << data("no/such/file") << FileFormat::Unknown;
    }
    void files()
    {
        QFETCH(QString, path);
        QFETCH(FileFormat, expected);
        QCOMPARE(detectFileFormatOf(path.toStdString()), expected);
    }

    // The name does not matter: an ibnetdiscover dump called trace.json is still a fabric dump.
    void nameIsIgnored()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY(QFile::copy(data("ibnetdiscover/jabl_ibtopotool_tests_1.topo"), copy));
        QCOMPARE(detectFileFormatOf(copy.toStdString()), FileFormat::IbnetdiscoverDump);
        QVERIFY(QString::fromLatin1(describe(FileFormat::IbnetdiscoverDump)).contains(QStringLiteral("ibnetdiscover")));
    }
};

QTEST_GUILESS_MAIN(TestFileFormat)
#include "tst_fileformat.moc"
