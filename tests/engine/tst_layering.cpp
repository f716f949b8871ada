// Layering (house style): dependencies point one way, app -> views -> engine and
// app -> importers -> engine. Scans the sources' #include lines and CMakeLists.txt:
//  - engine/ and importers/ stay free of Qt and VTK;
//  - engine/ includes neither importers/, views/ nor app/; importers/ neither views/ nor app/;
//  - views/ does not include app/ (app/gui and app/report sit above the views);
//  - inside engine/, each feature folder includes only the folders below it in kEngineFolders.

#include <QtTest>

#include <QDirIterator>
#include <QRegularExpression>

#include <map>
#include <set>

namespace {

// The engine's folder DAG: each folder with the folders it may include directly; what those may
// include is allowed too (transitively). A new engine folder must be added here, at its place.
const std::map<QString, QStringList> kEngineFolders = {
    { QStringLiteral("core"), {} },
    { QStringLiteral("catalog"), { QStringLiteral("core") } },
    { QStringLiteral("scenario"), { QStringLiteral("catalog") } },
    { QStringLiteral("collectives"), { QStringLiteral("scenario") } },
    { QStringLiteral("fabric"), { QStringLiteral("scenario") } },
    { QStringLiteral("calibration"), { QStringLiteral("collectives") } },
    { QStringLiteral("run"), { QStringLiteral("collectives") } },
    { QStringLiteral("training"),
        { QStringLiteral("collectives"), QStringLiteral("fabric"), QStringLiteral("calibration") } },
    { QStringLiteral("store"), { QStringLiteral("run"), QStringLiteral("calibration") } },
    { QStringLiteral("analysis"), { QStringLiteral("training"), QStringLiteral("run"), QStringLiteral("store") } },
    { QStringLiteral("telemetry"), { QStringLiteral("fabric") } },
};

std::set<QString> allowedBelow(const QString& folder)
{
    std::set<QString> allowed { folder };
    QStringList pending { folder };
    while (!pending.isEmpty()) {
        const auto it = kEngineFolders.find(pending.takeLast());
        if (it == kEngineFolders.end())
            continue;
        for (const QString& below : it->second)
            if (allowed.insert(below).second)
                pending << below;
    }
    return allowed;
}

struct Source {
    QString path;
    QString text;
};

std::vector<Source> sources(const QString& folder, const QStringList& patterns)
{
    std::vector<Source> out;
    QDirIterator it(
        QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/") + folder, patterns, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            out.push_back({ path, QString::fromUtf8(f.readAll()) });
    }
    return out;
}

const QStringList kCode { QStringLiteral("*.h"), QStringLiteral("*.cpp") };

} // namespace

class TestLayering : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noQtOrVtkInCore_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addRow("engine") << "engine";
        QTest::addRow("importers") << "importers";
    }
    void noQtOrVtkInCore()
    {
        QFETCH(QString, folder);
        const QRegularExpression include(
            QStringLiteral("^\\s*#\\s*include\\s*[<\"](Q[A-Za-z]|qt|vtk)"), QRegularExpression::MultilineOption);
        const QRegularExpression linkage(QStringLiteral("Qt6::|\\bVTK::|\\$\\{VTK_LIBRARIES\\}"));
        const auto files = sources(folder, kCode + QStringList { QStringLiteral("CMakeLists.txt") });
        QVERIFY2(!files.empty(), qPrintable(QStringLiteral("no sources found under ") + folder));
        for (const Source& s : files) {
            const auto m = include.match(s.text);
            QVERIFY2(!m.hasMatch(), qPrintable(s.path + QStringLiteral(": includes ") + m.captured(0).trimmed()));
            if (s.path.endsWith(QLatin1String("CMakeLists.txt")))
                QVERIFY2(!linkage.match(s.text).hasMatch(), qPrintable(s.path + QStringLiteral(": links Qt or VTK")));
        }
    }

    // Whole layers: a lower layer never includes a higher one.
    void layerDirections_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("forbidden"); // regular expression for the included path
        QTest::addRow("engine includes no importers, views or app") << "engine"
                                                                    << "^(importers|views|app)/";
        QTest::addRow("importers include no views or app") << "importers"
                                                           << "^(views|app)/";
        QTest::addRow("views include no app (gui, report, cli)") << "views"
                                                                 << "^app/";
        QTest::addRow("the CLI includes no views or GUI") << "app/cli"
                                                          << "^(views|app/gui)/";
        QTest::addRow("the report includes no GUI") << "app/report"
                                                    << "^app/gui/";
    }
    void layerDirections()
    {
        QFETCH(QString, folder);
        QFETCH(QString, forbidden);
        const QRegularExpression include(
            QStringLiteral("^\\s*#\\s*include\\s*\"([^\"]+)\""), QRegularExpression::MultilineOption);
        const QRegularExpression bad(forbidden);
        const auto files = sources(folder, kCode);
        QVERIFY2(!files.empty(), qPrintable(QStringLiteral("no sources found under ") + folder));
        for (const Source& s : files)
            for (auto it = include.globalMatch(s.text); it.hasNext();) {
                const QString included = it.next().captured(1);
                QVERIFY2(
                    !bad.match(included).hasMatch(), qPrintable(s.path + QStringLiteral(": includes ") + included));
            }
    }

    // Inside the engine: every folder is placed in kEngineFolders and includes only folders below it.
    void engineFolderDag()
    {
        const QString root = QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/engine/");
        const QRegularExpression include(
            QStringLiteral("^\\s*#\\s*include\\s*\"engine/([a-z_]+)/"), QRegularExpression::MultilineOption);
        int edges = 0;
        const auto folders = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(!folders.isEmpty());
        for (const QString& folder : folders) {
            QVERIFY2(kEngineFolders.count(folder),
                qPrintable(QStringLiteral("engine/") + folder
                    + QStringLiteral(" is not placed in the engine's folder DAG: add it to kEngineFolders in ")
                    + QStringLiteral(__FILE__)));
            const auto allowed = allowedBelow(folder);
            for (const Source& s : sources(QStringLiteral("engine/") + folder, kCode))
                for (auto it = include.globalMatch(s.text); it.hasNext();) {
                    const QString target = it.next().captured(1);
                    ++edges;
                    QVERIFY2(allowed.count(target),
                        qPrintable(s.path + QStringLiteral(": engine/") + folder
                            + QStringLiteral(" may not include engine/") + target
                            + QStringLiteral(" (it is not below it in kEngineFolders)")));
                }
        }
        QVERIFY(edges > 0);
    }

    // The DAG itself has no cycle (a folder is never below itself through others).
    void engineFolderDagIsAcyclic()
    {
        for (const auto& [folder, direct] : kEngineFolders)
            for (const QString& below : direct) {
                QVERIFY2(
                    kEngineFolders.count(below), qPrintable(folder + QStringLiteral(" lists unknown folder ") + below));
                QVERIFY2(!allowedBelow(below).count(folder),
                    qPrintable(folder + QStringLiteral(" and ") + below + QStringLiteral(" form a cycle")));
            }
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "tst_layering.moc"
