// Input files: plain and gzip (by magic bytes), truncated gzip reported with its offset.

#include "importers/common/inputfile.h"

#include <QtTest>

#include <zlib.h>

using namespace clusterscope::importers;

namespace {
std::string gzipOf(const std::string& text)
{
    z_stream zs {};
    deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, text.size()) + 32, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    zs.avail_in = uInt(text.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}
}

class TestInputFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plainAndGzip()
    {
        QTemporaryDir dir;
        std::string text;
        for (int i = 0; i < 20000; ++i)
            text += "{\"ph\": \"X\", \"ts\": " + std::to_string(i) + "}\n";
        const QString plain = dir.filePath(QStringLiteral("a.json"));
        const QString gz = dir.filePath(QStringLiteral("b.json")); // gzip without .gz: found by magic
        QFile f1(plain), f2(gz);
        QVERIFY(f1.open(QIODevice::WriteOnly) && f2.open(QIODevice::WriteOnly));
        f1.write(text.data(), qint64(text.size()));
        const std::string packed = gzipOf(text);
        f2.write(packed.data(), qint64(packed.size()));
        f1.close();
        f2.close();
        auto a = readInputFile(plain.toStdString());
        auto b = readInputFile(gz.toStdString());
        QVERIFY2(a.isOk(), a.message().c_str());
        QVERIFY2(b.isOk(), b.message().c_str());
        QCOMPARE(*a, text);
        QCOMPARE(*b, text);
        QVERIFY(packed.size() < text.size() / 3);
    }
    void truncatedGzip()
    {
        std::string text(100000, 'x');
        for (std::size_t i = 0; i < text.size(); i += 7)
            text[i] = char('a' + i % 26);
        std::string packed = gzipOf(text);
        packed.resize(packed.size() / 2);
        auto r = gunzip(packed, "rank3.json.gz");
        QVERIFY(!r.isOk());
        QVERIFY2(QString::fromStdString(r.message()).startsWith(QStringLiteral("rank3.json.gz: compressed byte ")),
            r.message().c_str());
        QVERIFY(QString::fromStdString(r.message()).contains(QStringLiteral("truncated")));
    }
    void missingFile()
    {
        auto r = readInputFile("/nonexistent/trace.json");
        QVERIFY(!r.isOk());
        QVERIFY(QString::fromStdString(r.message()).startsWith(QStringLiteral("/nonexistent/trace.json: cannot open")));
    }
};

QTEST_GUILESS_MAIN(TestInputFile)
#include "tst_inputfile.moc"
