// The streaming splitter behind the Kineto parser: the same pieces whatever the block and batch
// sizes (values cut anywhere between reads), strings with brackets and escapes, and an error with
// a byte offset (never a crash) for every truncated prefix.

#include "importers/kineto/tracejsonsplitter.h"

#include <QtTest>

using namespace clusterscope;
using namespace clusterscope::importers;

namespace {
// Escaped (not a raw string literal: moc mis-tokenises raw strings holding \" sequences).
const std::string kTrace
    = " {\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU \\\"0\\\" [x]\"}],\n"
      " \"traceEvents\": [ {\"ph\": \"X\", \"name\": \"a}],[{\\\\\", \"args\": {\"k\": [1, [2, {\"z\": \"]\"}]]}},\n"
      "  {\"ph\": \"i\", \"name\": \"\\u00e9\\\"{\"} ,{\"ph\":\"X\",\"ts\":1.5e3}\n"
      " ,{} ],\n"
      " \"baseTimeNanoseconds\": 1711964646000000000, \"traceName\": \"t\\\\\"} ";

struct Pieces {
    std::vector<std::string> members; // "key=value"
    std::string events; // batches' contents concatenated without the brackets
    int batches = 0;
};

engine::Status split(const std::string& text, std::size_t batchBytes, std::size_t blockBytes, Pieces& out)
{
    MemoryByteSource source(text);
    TraceJsonSplitter splitter(source, "t.json", batchBytes, blockBytes);
    return splitter.run(
        [&](std::string_view key, const std::string& value, std::int64_t origin) {
            if (text.compare(std::size_t(origin), value.size(), value) != 0)
                return engine::Status::error("member origin does not point at its text");
            out.members.push_back(std::string(key) + "=" + value);
            return engine::Status::success();
        },
        [&](const std::string& batch, std::int64_t origin) {
            if (batch.front() != '[' || batch.back() != ']'
                || batch.capacity() < batch.size() + TraceJsonSplitter::kPadding)
                return engine::Status::error("batch is not a padded array");
            if (text.compare(std::size_t(origin + 1), batch.size() - 2, batch, 1, batch.size() - 2) != 0)
                return engine::Status::error("batch origin does not point at its text");
            out.events += (out.events.empty() ? "" : "|") + batch.substr(1, batch.size() - 2);
            ++out.batches;
            return engine::Status::success();
        });
}
}

class TestTraceJsonSplitter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameResultForEveryBlockAndBatchSize()
    {
        Pieces reference;
        QVERIFY(split(kTrace, 1 << 20, 1 << 20, reference));
        QCOMPARE(reference.batches, 1);
        QCOMPARE(int(reference.members.size()), 4);
        QCOMPARE(QString::fromStdString(reference.members[1]),
            QStringLiteral("deviceProperties=[{\"id\": 0, \"name\": \"GPU \\\"0\\\" [x]\"}]"));
        QCOMPARE(
            QString::fromStdString(reference.members[2]), QStringLiteral("baseTimeNanoseconds=1711964646000000000"));
        for (std::size_t block : { 1, 2, 3, 5, 7, 16, 17, 64 }) {
            for (std::size_t batch : { 1, 40, 1000 }) {
                Pieces p;
                const auto st = split(kTrace, batch, block, p);
                QVERIFY2(st, st.message().c_str());
                QCOMPARE(p.members, reference.members);
                // Batches hold whole events: re-joined they give the same text.
                std::string joined = p.events;
                if (batch == 1)
                    QCOMPARE(p.batches, 4);
                QVERIFY(!joined.empty());
                std::string ref = reference.events;
                auto strip = [](std::string s) {
                    s.erase(std::remove_if(s.begin(), s.end(),
                                [](char c) { return c == '|' || c == ' ' || c == '\n' || c == ','; }),
                        s.end());
                    return s;
                };
                QCOMPARE(strip(joined), strip(ref));
            }
        }
    }

    void truncatedPrefixes()
    {
        for (std::size_t n = 0; n + 1 < kTrace.size(); ++n) {
            const std::string prefix = kTrace.substr(0, n);
            Pieces p;
            const auto st = split(prefix, 30, 7, p);
            if (st)
                continue; // a prefix can be complete only if it ends after the closing brace
            const QString m = QString::fromStdString(st.message());
            QVERIFY2(m.startsWith(QStringLiteral("t.json: byte ")), qPrintable(m));
            const qint64 offset = m.mid(13).section(QLatin1Char(':'), 0, 0).toLongLong();
            QVERIFY2(offset >= 0 && offset <= qint64(n), qPrintable(m));
        }
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("empty") << QByteArray("  ") << "t.json: byte 0: empty input";
        QTest::addRow("array") << QByteArray("[1]") << "t.json: byte 0: expected a JSON object";
        QTest::addRow("bad key") << QByteArray("{1: 2}") << "t.json: byte 1: expected a member name";
        QTest::addRow("no colon") << QByteArray("{\"a\" 2}") << "t.json: byte 5: expected ':' after \"a\"";
        QTest::addRow("bad separator") << QByteArray("{\"traceEvents\": [{} {}]}")
                                       << "t.json: byte 20: expected ',' or ']'";
        QTest::addRow("trailing text") << QByteArray("{\"a\": 1} x") << "t.json: byte 9: unexpected text after";
        QTest::addRow("unclosed string") << QByteArray("{\"traceEvents\": [{\"ph") << "t.json: byte 21: unexpected end";
    }
    void errors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        Pieces p;
        const auto st = split(text.toStdString(), 100, 3, p);
        QVERIFY(!st);
        QVERIFY2(QString::fromStdString(st.message()).startsWith(expected), st.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTraceJsonSplitter)
#include "tst_tracejsonsplitter.moc"
