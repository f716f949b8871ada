// The registry of diagnostic ids (engine/core/diagnostickinds.h): ids well formed and unique, each
// with a sentence; engine and importers raise diagnostics only through registered kinds.

#include "engine/core/diagnostickinds.h"
#include "engine/run/diagnostics.h"

#include <QtTest>

#include <QDirIterator>
#include <QRegularExpression>

#include <set>
#include <string>

using namespace clusterscope::engine;

class TestDiagnosticKinds : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void registryIsWellFormed()
    {
        const QRegularExpression idPattern(QStringLiteral("^[a-z]+\\.[a-z_]+$"));
        std::set<std::string_view> ids;
        QVERIFY(diagnosticKinds().size() >= 20);
        for (const DiagnosticKind& kind : diagnosticKinds()) {
            const QString id = QString::fromUtf8(kind.id.data(), qsizetype(kind.id.size()));
            QVERIFY2(idPattern.match(id).hasMatch(), qPrintable(id));
            QVERIFY2(ids.insert(kind.id).second, qPrintable(QStringLiteral("duplicate id ") + id));
            QVERIFY2(kind.explanation.size() > 20 && kind.explanation.back() == '.', qPrintable(id));
            QCOMPARE(findDiagnosticKind(kind.id), &kind);
        }
        QCOMPARE(findDiagnosticKind("no.such_id"), nullptr);
    }

    void addUsesTheKindsSeverity()
    {
        Diagnostics d;
        d.add(diagnostic::kImportFileFailed, "a.json: cannot open", 2);
        d.add(diagnostic::kRunNoProfilerSteps, "b.json: no steps");
        QCOMPARE(d.items().size(), std::size_t(2));
        QCOMPARE(d.items()[0].id, std::string("import.file_failed"));
        QCOMPARE(d.items()[0].severity, DiagnosticSeverity::Error);
        QCOMPARE(d.items()[0].count, std::int64_t(2));
        QCOMPARE(d.items()[1].severity, DiagnosticSeverity::Info);
        QCOMPARE(QString::fromUtf8(toString(DiagnosticSeverity::Warning)), QStringLiteral("warning"));
    }

    // A diagnostic raised with a literal id and severity would bypass the registry.
    void sourcesRaiseOnlyRegisteredKinds_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addRow("engine") << "engine";
        QTest::addRow("importers") << "importers";
    }
    void sourcesRaiseOnlyRegisteredKinds()
    {
        QFETCH(QString, folder);
        const QRegularExpression literal(
            QStringLiteral("\\b(add|addSeparate)\\(\\s*\"[a-z]+\\.[a-z_]+\"\\s*,\\s*(engine::)?DiagnosticSeverity"));
        int files = 0;
        QDirIterator it(QStringLiteral(CLUSTERSCOPE_SOURCE_DIR "/") + folder,
            { QStringLiteral("*.cpp"), QStringLiteral("*.h") }, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto m = literal.match(QString::fromUtf8(f.readAll()));
            QVERIFY2(!m.hasMatch(),
                qPrintable(path + QStringLiteral(": raises an unregistered diagnostic: ") + m.captured(0)
                    + QStringLiteral(" (add a kind to engine/core/diagnostickinds.h)")));
            ++files;
        }
        QVERIFY(files > 0);
    }
};

QTEST_GUILESS_MAIN(TestDiagnosticKinds)
#include "tst_diagnostickinds.moc"
