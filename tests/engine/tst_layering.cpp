// Layering: engine/ and importers/ stay free of Qt and VTK (house style). Scans the sources.

#include <QtTest>

#include <QDirIterator>
#include <QRegularExpression>

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
        const QString root = QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/") + folder;
        const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s*[<\"](Q[A-Za-z]|qt|vtk)"),
            QRegularExpression::MultilineOption);
        const QRegularExpression linkage(QStringLiteral("Qt6::|\\bVTK::|\\$\\{VTK_LIBRARIES\\}"));
        int files = 0;
        QDirIterator it(root, { QStringLiteral("*.h"), QStringLiteral("*.cpp"), QStringLiteral("CMakeLists.txt") },
            QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            ++files;
            const auto m = include.match(text);
            QVERIFY2(!m.hasMatch(), qPrintable(path + QStringLiteral(": includes ") + m.captured(0).trimmed()));
            if (path.endsWith(QLatin1String("CMakeLists.txt")))
                QVERIFY2(!linkage.match(text).hasMatch(), qPrintable(path + QStringLiteral(": links Qt or VTK")));
        }
        QVERIFY2(files > 0, qPrintable(QStringLiteral("no sources found under ") + root));
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "tst_layering.moc"
