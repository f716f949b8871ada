// The Prometheus HTTP API client against a small Boost.Beast server on loopback that plays every
// answer shape: success (vector, matrix, scalar, NaN/+-Inf, warnings), gzip, the API error
// envelopes (400 bad_data, 422 execution, 503 unavailable), HTML 500, malformed JSON, huge and
// decompression-bomb bodies, slow answers (timeout), a dropped connection, retries with backoff,
// cancellation, bearer and basic authentication, and a server that is down.

#include "importers/telemetry/promclient.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <QElapsedTimer>
#include <QtTest>

#include <zlib.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

using namespace clusterscope::importers;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

std::string gzip(const std::string& s)
{
    z_stream zs {};
    deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, s.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
    zs.avail_in = uInt(s.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

const char* kVector = R"({"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"__name__":"up","instance":"127.0.0.1:9100","job":"node"},"value":[1796152490.415,"1"]},
 {"metric":{"kind":"nan"},"value":[1796152490,"NaN"]},
 {"metric":{"kind":"pinf"},"value":[1796152490,"+Inf"]},
 {"metric":{"kind":"ninf"},"value":[1796152490,"-Inf"]}]},
 "warnings":["PromQL info: metric might not be a counter"]})";

const char* kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"device":"mlx5_0","instance":"127.0.0.1:19100","job":"node","port":"1"},
  "values":[[1796152706,"27500000000"],[1796152707,"27534418022.52816"],[1796152708,"NaN"]]}]}})";

class TestServer {
public:
    TestServer()
        : m_acceptor(m_ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0))
    {
        m_port = m_acceptor.local_endpoint().port();
        m_thread = std::thread([this] { run(); });
    }
    ~TestServer()
    {
        m_stop = true;
        beast::error_code ec;
        asio::io_context ioc;
        tcp::socket s(ioc);
        s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), m_port), ec);
        m_thread.join();
        std::lock_guard lock(m_mutex);
        for (auto& t : m_handlers)
            t.join();
    }
    int port() const { return m_port; }
    std::atomic<int> flakyFailures { 0 };
    std::atomic<int> requests { 0 };

private:
    void run()
    {
        while (!m_stop) {
            tcp::socket socket(m_ioc);
            beast::error_code ec;
            m_acceptor.accept(socket, ec);
            if (m_stop || ec)
                break;
            std::lock_guard lock(m_mutex);
            m_handlers.emplace_back([this, s = std::move(socket)]() mutable { handle(std::move(s)); });
        }
    }

    void handle(tcp::socket socket)
    {
        beast::flat_buffer buffer;
        http::request<http::string_body> req;
        beast::error_code ec;
        http::read(socket, buffer, req, ec);
        if (ec)
            return;
        ++requests;
        const std::string target(req.target());
        http::response<http::string_body> res { http::status::ok, req.version() };
        res.set(http::field::content_type, "application/json");
        std::string body;
        auto has = [&](const char* s) { return target.find(s) != std::string::npos; };
        if (has("query=drop")) {
            socket.close(ec);
            return;
        }
        if (has("query=slow")) {
            for (int i = 0; i < 30 && !m_stop; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (has("/api/v1/query_range"))
            body = kMatrix;
        else if (has("/api/v1/status/buildinfo"))
            body
                = R"({"status":"success","data":{"version":"2.42.0","revision":"deb","branch":"debian/sid","goVersion":"go1.19.8"}})";
        else if (has("/api/v1/labels"))
            body = R"({"status":"success","data":["__name__","device","instance"]})";
        else if (has("/api/v1/label/__name__/values"))
            body = R"({"status":"success","data":["PortXmitDataExtended","up"]})";
        else if (has("/api/v1/series"))
            body = R"({"status":"success","data":[{"__name__":"up","job":"node","instance":"a:1"}]})";
        else if (has("/api/v1/metadata"))
            body = R"({"status":"success","data":{"up":[{"type":"gauge","help":"Target up.","unit":""}]}})";
        else if (has("query=bad")) {
            res.result(http::status::bad_request);
            body
                = R"({"status":"error","errorType":"bad_data","error":"1:13: parse error: unclosed left parenthesis"})";
        } else if (has("query=exec")) {
            res.result(http::status::unprocessable_entity);
            body
                = R"({"status":"error","errorType":"execution","error":"found duplicate series for the match group {} on the right hand-side of the operation"})";
        } else if (has("query=unavailable")) {
            res.result(http::status::service_unavailable);
            body = R"({"status":"error","errorType":"unavailable","error":"TSDB not ready"})";
        } else if (has("query=html")) {
            res.result(http::status::internal_server_error);
            res.set(http::field::content_type, "text/html");
            body = "<html><body>Internal Server Error</body></html>";
        } else if (has("query=malformed"))
            body = R"({"status":"success","data":{"resultType":"vector","result":[{"metric":)";
        else if (has("query=wrongtype"))
            body = R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})";
        else if (has("query=huge"))
            body = std::string(4 << 20, ' ');
        else if (has("query=bomb")) {
            res.set(http::field::content_encoding, "gzip");
            body = gzip(std::string(16 << 20, ' '));
        } else if (has("query=gzip")) {
            if (req[http::field::accept_encoding].find("gzip") != std::string::npos) {
                res.set(http::field::content_encoding, "gzip");
                body = gzip(kVector);
            } else
                body = kVector;
        } else if (has("query=flaky")) {
            if (flakyFailures-- > 0) {
                res.result(http::status::service_unavailable);
                body = R"({"status":"error","errorType":"unavailable","error":"try again"})";
            } else
                body = kVector;
        } else if (has("query=bearer") || has("query=basic")) {
            const std::string expected = has("bearer") ? "Bearer s3cret" : "Basic dXNlcjpwYXNz"; // user:pass
            if (std::string(req[http::field::authorization]) != expected) {
                res.result(http::status::unauthorized);
                body = R"({"status":"error","errorType":"unauthorized","error":"no"})";
            } else
                body = kVector;
        } else if (has("query=scalar"))
            body = R"({"status":"success","data":{"resultType":"scalar","result":[1796152490,"+Inf"]}})";
        else
            body = kVector;
        res.body() = std::move(body);
        res.prepare_payload();
        http::write(socket, res, ec);
        socket.shutdown(tcp::socket::shutdown_both, ec);
    }

    asio::io_context m_ioc;
    tcp::acceptor m_acceptor;
    int m_port = 0;
    std::atomic<bool> m_stop { false };
    std::thread m_thread;
    std::mutex m_mutex;
    std::vector<std::thread> m_handlers;
};

PromClient makeClient(int port, int attempts = 1, int timeoutMs = 5000, std::size_t limit = std::size_t(256) << 20)
{
    PromClientOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(port);
    o.maxAttempts = attempts;
    o.timeout = std::chrono::milliseconds(timeoutMs);
    o.backoff = std::chrono::milliseconds(20);
    o.maxResponseBytes = limit;
    return PromClient::create(o).value();
}

} // namespace

class TestPromClient : public QObject {
    Q_OBJECT
    std::unique_ptr<TestServer> m_server;

private slots:
    void initTestCase() { m_server = std::make_unique<TestServer>(); }
    void cleanupTestCase() { m_server.reset(); }

    void instantVector()
    {
        auto r = makeClient(m_server->port()).query("up");
        QVERIFY2(r, r.message().c_str());
        QCOMPARE(QString::fromStdString(r->resultType), QStringLiteral("vector"));
        QCOMPARE(r->series.size(), std::size_t(4));
        QCOMPARE(labelValue(r->series[0].labels, "instance"), std::string("127.0.0.1:9100"));
        QCOMPARE(r->series[0].timesS[0], 1796152490.415);
        QCOMPARE(r->series[0].values[0], 1.0);
        QVERIFY(std::isnan(r->series[1].values[0]));
        QCOMPARE(r->series[2].values[0], qInf());
        QCOMPARE(r->series[3].values[0], -qInf());
        QCOMPARE(r->warnings.size(), std::size_t(1));
    }

    void gzipAnswer()
    {
        auto r = makeClient(m_server->port()).query("gzip");
        QVERIFY2(r, r.message().c_str());
        QCOMPARE(r->series.size(), std::size_t(4));
    }

    void rangeAndMetadata()
    {
        const auto c = makeClient(m_server->port());
        auto m = c.queryRange("rate(x[5s])", 1796152706, 1796152708, 1);
        QVERIFY2(m, m.message().c_str());
        QCOMPARE(QString::fromStdString(m->resultType), QStringLiteral("matrix"));
        QCOMPARE(m->series[0].values.size(), std::size_t(3));
        QCOMPARE(m->series[0].values[1], 27534418022.52816);
        QVERIFY(std::isnan(m->series[0].values[2]));
        auto tooMany = c.queryRange("x", 0, 20000, 1);
        QVERIFY(!tooMany);
        QVERIFY2(tooMany.message().find("11,000") != std::string::npos, tooMany.message().c_str());
        auto b = c.buildInfo();
        QVERIFY2(b, b.message().c_str());
        QCOMPARE(b->major, 2);
        QCOMPARE(b->version, std::string("2.42.0"));
        auto labels = c.labels();
        QVERIFY(labels);
        QCOMPARE(labels->size(), std::size_t(3));
        auto names = c.labelValues("__name__");
        QVERIFY(names);
        QCOMPARE(names->front(), std::string("PortXmitDataExtended"));
        QVERIFY(!c.labelValues("bad/name"));
        auto series = c.series({ "up" });
        QVERIFY(series);
        QCOMPARE(labelValue(series->front(), "job"), std::string("node"));
        auto meta = c.metadata("up");
        QVERIFY(meta);
        QCOMPARE(meta->at("up").type, std::string("gauge"));
        auto scalar = c.query("scalar");
        QVERIFY(scalar);
        QCOMPARE(scalar->series[0].values[0], qInf());
    }

    void errors_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QString>("message");
        QTest::addRow("bad_data 400") << "bad" << 0
                                      << "HTTP 400: bad_data: 1:13: parse error: unclosed left parenthesis";
        QTest::addRow("execution 422") << "exec" << 0 << "HTTP 422: execution: found duplicate series";
        QTest::addRow("unavailable 503") << "unavailable" << 0 << "HTTP 503: unavailable: TSDB not ready";
        QTest::addRow("HTML 500") << "html" << 0 << "HTTP 500: <html><body>Internal Server Error</body></html>";
        QTest::addRow("malformed JSON") << "malformed" << 0 << "malformed JSON answer";
        QTest::addRow("value not a string") << "wrongtype" << 0 << "a sample value is not a Prometheus float string";
        QTest::addRow("huge body") << "huge" << 1 << "the answer is larger than the 1 MiB limit";
        QTest::addRow("gzip bomb") << "bomb" << 1 << "the gzip answer inflates beyond the 1 MiB limit";
        QTest::addRow("dropped connection") << "drop" << 0 << "the answer broke off";
        QTest::addRow("unauthorised") << "bearer" << 0 << "HTTP 401: not authorised";
    }
    void errors()
    {
        QFETCH(QString, query);
        QFETCH(int, limit);
        QFETCH(QString, message);
        auto r = makeClient(m_server->port(), 1, 30000, limit ? std::size_t(limit) << 20 : std::size_t(256) << 20)
                     .query(query.toStdString());
        QVERIFY(!r);
        QVERIFY2(r.message().find(message.toStdString()) != std::string::npos, r.message().c_str());
        QVERIFY2(r.message().find("http://127.0.0.1:") != std::string::npos, "the message names the server");
    }

    void retriesWithBackoff()
    {
        m_server->flakyFailures = 2;
        const int before = m_server->requests;
        auto r = makeClient(m_server->port(), 3).query("flaky");
        QVERIFY2(r, r.message().c_str());
        QCOMPARE(m_server->requests - before, 3);
        m_server->flakyFailures = 5;
        auto failed = makeClient(m_server->port(), 2).query("flaky");
        QVERIFY(!failed);
        QVERIFY2(
            failed.message().find("HTTP 503: unavailable: try again") != std::string::npos, failed.message().c_str());
        m_server->flakyFailures = 0;
    }

    void timeoutIsBounded()
    {
        QElapsedTimer t;
        t.start();
        auto r = makeClient(m_server->port(), 2, 300).query("slow");
        QVERIFY(!r);
        QVERIFY2(r.message().find("no complete answer within 300 ms (timeout) (after 2 attempts)") != std::string::npos,
            r.message().c_str());
        QVERIFY2(t.elapsed() < 20000, "two 300 ms attempts must not hang");
    }

    void cancellation()
    {
        std::atomic<bool> stop { false };
        auto c = makeClient(m_server->port(), 3, 10000);
        c.setStopFlag(&stop);
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            stop = true;
        });
        QElapsedTimer t;
        t.start();
        auto r = c.query("slow");
        canceller.join();
        QVERIFY(!r);
        QVERIFY2(r.message().find("cancelled") != std::string::npos, r.message().c_str());
        QVERIFY2(t.elapsed() < 5000, "a cancelled request returns promptly");
    }

    void authentication()
    {
        PromClientOptions o;
        o.url = "http://127.0.0.1:" + std::to_string(m_server->port()) + "/";
        o.bearerToken = "s3cret";
        QVERIFY(PromClient::create(o)->query("bearer"));
        o.bearerToken.clear();
        o.basicUser = "user";
        o.basicPassword = "pass";
        QVERIFY(PromClient::create(o)->query("basic"));
        o.basicPassword = "wrong";
        QVERIFY(!PromClient::create(o)->query("basic"));
    }

    void serverDown()
    {
        // A port that was free a moment ago: nothing listens there.
        asio::io_context ioc;
        tcp::acceptor a(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        const int port = a.local_endpoint().port();
        a.close();
        auto r = makeClient(port, 2).query("up");
        QVERIFY(!r);
        QVERIFY2(r.message().find("cannot connect") != std::string::npos, r.message().c_str());
        QVERIFY2(r.message().find("after 2 attempts") != std::string::npos, r.message().c_str());
    }

    void badUrls_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("message");
        QTest::addRow("ftp") << "ftp://127.0.0.1:9090"
                             << "must start with http:// or https://";
        QTest::addRow("no scheme") << "127.0.0.1:9090"
                                   << "must start with http://";
        QTest::addRow("bad port") << "http://127.0.0.1:99999"
                                  << "invalid port";
        QTest::addRow("no host") << "http://:9090"
                                 << "names no host";
    }
    void badUrls()
    {
        QFETCH(QString, url);
        QFETCH(QString, message);
        PromClientOptions o;
        o.url = url.toStdString();
        auto c = PromClient::create(o);
        QVERIFY(!c);
        QVERIFY2(c.message().find(message.toStdString()) != std::string::npos, c.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestPromClient)
#include "tst_promclient.moc"
