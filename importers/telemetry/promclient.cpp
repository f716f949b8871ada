#include "importers/telemetry/promclient.h"

#include "importers/telemetry/boundedinflate.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <thread>
#include <type_traits>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

const std::string& labelValue(const PromLabels& labels, std::string_view name)
{
    static const std::string kEmpty;
    for (const auto& [n, v] : labels)
        if (n == name)
            return v;
    return kEmpty;
}

namespace {

    std::string percentEncode(std::string_view s)
    {
        static const char* kHex = "0123456789ABCDEF";
        std::string out;
        out.reserve(s.size() * 3);
        for (unsigned char c : s) {
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                || c == '.' || c == '~')
                out += static_cast<char>(c);
            else {
                out += '%';
                out += kHex[c >> 4];
                out += kHex[c & 15];
            }
        }
        return out;
    }

    std::string base64(const std::string& s)
    {
        std::string out(beast::detail::base64::encoded_size(s.size()), '\0');
        out.resize(beast::detail::base64::encode(out.data(), s.data(), s.size()));
        return out;
    }

    std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

    // One HTTP GET attempt: a transport failure (retryable), or a response.
    struct AttemptResult {
        bool ok = false;
        bool cancelled = false;
        bool retryable = false;
        std::string error;
        HttpResponse response;
    };

} // namespace

PromClient::PromClient(PromClientOptions options)
    : m_options(std::move(options))
{
}

Result<PromClient> PromClient::create(PromClientOptions options)
{
    std::string url = options.url;
    const bool tls = url.rfind("https://", 0) == 0;
    const std::string scheme = tls ? "https://" : "http://";
    if (url.rfind(scheme, 0) != 0)
        return Status::error(
            url + ": the Prometheus URL must start with http:// or https:// (e.g. http://127.0.0.1:9090)");
    std::string rest = url.substr(scheme.size());
    const auto slash = rest.find('/');
    std::string hostPort = rest.substr(0, slash);
    std::string prefix = slash == std::string::npos ? std::string() : rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/')
        prefix.pop_back();
    std::string host;
    std::string port = tls ? "443" : "80";
    if (!hostPort.empty() && hostPort.front() == '[') {
        const auto close = hostPort.find(']');
        if (close == std::string::npos)
            return Status::error(url + ": unterminated IPv6 address");
        host = hostPort.substr(1, close - 1);
        if (close + 1 < hostPort.size() && hostPort[close + 1] == ':')
            port = hostPort.substr(close + 2);
    } else {
        const auto colon = hostPort.rfind(':');
        host = hostPort.substr(0, colon);
        if (colon != std::string::npos)
            port = hostPort.substr(colon + 1);
    }
    if (host.empty())
        return Status::error(url + ": the URL names no host");
    if (port.empty() || port.size() > 5
        || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) || std::stoi(port) < 1
        || std::stoi(port) > 65535)
        return Status::error(url + ": invalid port \"" + port + "\"");
    if (options.maxAttempts < 1 || options.maxAttempts > 20)
        return Status::error(url + ": attempts must be 1 to 20, got " + std::to_string(options.maxAttempts));
    if (options.timeout.count() <= 0)
        return Status::error(url + ": the timeout must be positive");
    PromClient c(std::move(options));
    c.m_host = host;
    c.m_port = port;
    c.m_prefix = prefix;
    c.m_tls = tls;
    return c;
}

namespace {

    // One HTTP GET attempt on a shared io_context, over plain TCP or TLS (Boost.Asio SSL on OpenSSL:
    // the system's CA store, the server's name or IP address checked against its certificate
    // (RFC 6125), SNI sent; `insecureTls` skips the checks for a self-signed lab server). Every
    // completion handler ends in `finished` (an answer or a failure), so many exchanges can share one
    // io_context and the caller polls them.
    class Exchange {
    public:
        virtual ~Exchange() = default;
        virtual void start() = 0;
        /// Cancels the exchange (timeout or stop flag); its handlers still run and set `finished`.
        virtual void abort(bool cancelled) = 0;
        virtual AttemptResult result() = 0;
        bool finished = false;
        std::chrono::steady_clock::time_point deadline;
    };

    template <bool Tls> class ExchangeT final : public Exchange {
    public:
        using Stream = std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;

        ExchangeT(asio::io_context& ioc, const PromClientOptions& o, const std::string& host, const std::string& port,
            const std::string& target)
            : m_o(o)
            , m_host(host)
            , m_port(port)
            , m_resolver(ioc)
            , m_ctx(asio::ssl::context::tls_client)
            , m_req { http::verb::get, target, 11 }
        {
            if constexpr (Tls) {
                beast::error_code ignored; // without a readable CA store every server fails verification, named below
                if (o.insecureTls)
                    m_ctx.set_verify_mode(asio::ssl::verify_none);
                else {
                    m_ctx.set_default_verify_paths(ignored);
                    m_ctx.set_verify_mode(asio::ssl::verify_peer);
                }
                m_stream.emplace(ioc, m_ctx);
                if (!o.insecureTls)
                    m_stream->set_verify_callback(asio::ssl::host_name_verification(host));
                if (!SSL_set_tlsext_host_name(m_stream->native_handle(), host.c_str()))
                    m_setupError = "cannot set the TLS server name (SNI) " + host;
            } else
                m_stream.emplace(ioc);
            m_req.set(http::field::host, host + ":" + port);
            m_req.set(http::field::user_agent, "clusterscope");
            m_req.set(http::field::accept, "application/json, application/openmetrics-text;q=0.9, text/plain;q=0.5");
            if (o.gzip)
                m_req.set(http::field::accept_encoding, "gzip");
            if (!o.bearerToken.empty())
                m_req.set(http::field::authorization, "Bearer " + o.bearerToken);
            else if (!o.basicUser.empty())
                m_req.set(http::field::authorization, "Basic " + base64(o.basicUser + ":" + o.basicPassword));
            m_parser.body_limit(o.maxResponseBytes);
            m_parser.header_limit(64 * 1024);
        }

        void start() override
        {
            deadline = std::chrono::steady_clock::now() + m_o.timeout;
            if (!m_setupError.empty()) {
                finished = true;
                return;
            }
            m_resolver.async_resolve(
                m_host, m_port, [this](beast::error_code ec, const tcp::resolver::results_type& results) {
                    if (ec)
                        return fail(ec, "cannot resolve " + m_host);
                    lowest().async_connect(results, [this](beast::error_code ec2, const tcp::endpoint&) {
                        if (ec2)
                            return fail(ec2, "cannot connect");
                        if constexpr (Tls)
                            m_stream->async_handshake(asio::ssl::stream_base::client, [this](beast::error_code ec6) {
                                if (ec6)
                                    return fail(ec6, "TLS handshake failed");
                                exchange();
                            });
                        else
                            exchange();
                    });
                });
        }

        void abort(bool cancelled) override
        {
            (cancelled ? m_cancelled : m_timedOut) = true;
            m_resolver.cancel();
            beast::error_code ignored;
            lowest().socket().cancel(ignored);
            lowest().socket().close(ignored);
        }

        AttemptResult result() override
        {
            AttemptResult r;
            if (!m_setupError.empty()) {
                r.error = m_setupError;
                return r;
            }
            if (m_cancelled) {
                r.cancelled = true;
                r.error = "cancelled";
                return r;
            }
            if (m_timedOut) {
                r.retryable = true;
                r.error = "no complete answer within " + std::to_string(m_o.timeout.count()) + " ms (timeout)";
                return r;
            }
            if (!m_done) {
                if (m_failure == http::error::body_limit) {
                    r.error = "the answer is larger than the " + mib(m_o.maxResponseBytes)
                        + " limit; narrow the query (fewer series, a larger step or a shorter window)";
                    return r;
                }
                if (m_failure == http::error::header_limit) {
                    r.error = "the answer's HTTP header exceeds 64 KiB";
                    return r;
                }
                r.retryable = m_stage != "TLS handshake failed";
                r.error = m_stage + " (" + m_failure.message() + ")";
                if (Tls && m_stage == "TLS handshake failed" && !m_o.insecureTls)
                    r.error += "; a self-signed or private-CA server needs its CA in the system store (or "
                               "SSL_CERT_FILE), or --insecure to skip verification";
                return r;
            }
            beast::error_code ignored;
            lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
            auto& res = m_parser.get();
            r.response.status = static_cast<int>(res.result_int());
            r.response.contentType = std::string(res[http::field::content_type]);
            const auto encoding = res[http::field::content_encoding];
            if (beast::iequals(encoding, "gzip")) {
                auto inflated = inflateBounded(res.body(), m_o.maxResponseBytes);
                if (!inflated) {
                    r.error = inflated.message();
                    return r;
                }
                r.response.body = std::move(inflated.value());
            } else if (!encoding.empty() && !beast::iequals(encoding, "identity")) {
                r.error = "unsupported Content-Encoding \"" + std::string(encoding) + "\"";
                return r;
            } else
                r.response.body = std::move(res.body());
            r.ok = true;
            const int s = r.response.status;
            r.retryable = s == 429 || s == 502 || s == 503 || s == 504;
            return r;
        }

    private:
        beast::tcp_stream& lowest() { return beast::get_lowest_layer(*m_stream); }

        void fail(beast::error_code ec, std::string stage)
        {
            m_failure = ec;
            m_stage = std::move(stage);
            finished = true;
        }

        // Request and answer once the connection (and the TLS session) is up.
        void exchange()
        {
            http::async_write(*m_stream, m_req, [this](beast::error_code ec3, std::size_t) {
                if (ec3)
                    return fail(ec3, "cannot send the request");
                // Header first: a declared length above the cap is refused before any body is read.
                http::async_read_header(*m_stream, m_buffer, m_parser, [this](beast::error_code ec4, std::size_t) {
                    if (ec4)
                        return fail(ec4, "the answer broke off");
                    if (m_parser.content_length() && *m_parser.content_length() > m_o.maxResponseBytes)
                        return fail(http::error::body_limit, {});
                    http::async_read(*m_stream, m_buffer, m_parser, [this](beast::error_code ec5, std::size_t) {
                        if (ec5)
                            return fail(ec5, "the answer broke off");
                        m_done = true;
                        finished = true;
                    });
                });
            });
        }

        const PromClientOptions& m_o;
        std::string m_host;
        std::string m_port;
        tcp::resolver m_resolver;
        asio::ssl::context m_ctx;
        std::optional<Stream> m_stream;
        http::request<http::empty_body> m_req;
        beast::flat_buffer m_buffer;
        http::response_parser<http::string_body> m_parser;
        beast::error_code m_failure;
        std::string m_stage;
        std::string m_setupError;
        bool m_done = false;
        bool m_timedOut = false;
        bool m_cancelled = false;
    };

} // namespace

std::string PromClient::target(const PromRequest& request) const
{
    std::string t = m_prefix + request.path;
    for (std::size_t i = 0; i < request.params.size(); ++i)
        t += (i == 0 ? '?' : '&') + percentEncode(request.params[i].first) + "="
            + percentEncode(request.params[i].second);
    return t;
}

void PromClient::getMany(const std::vector<PromRequest>& requests,
    const std::function<void(std::size_t, Result<HttpResponse>)>& done, int maxParallel) const
{
    // Every request has its own connection; all of them share one io_context on this thread, so
    // Prometheus evaluates and encodes several answers at once while this thread reads the others.
    // Retries (transport errors, 429/502/503/504) wait with exponential backoff without holding up
    // the other requests; the stop flag and each attempt's timeout are checked every few ms.
    struct Slot {
        std::unique_ptr<Exchange> exchange;
        int attempt = 0;
        std::chrono::milliseconds backoff { 0 };
        std::chrono::steady_clock::time_point notBefore;
        bool completed = false;
        AttemptResult last;
    };
    asio::io_context ioc;
    auto guard = asio::make_work_guard(ioc);
    std::vector<Slot> slots(requests.size());
    for (auto& s : slots)
        s.backoff = m_options.backoff;
    const int parallel = std::max(1, maxParallel);
    std::size_t remaining = requests.size();
    bool cancelled = false;
    auto finish = [&](std::size_t i) {
        Slot& s = slots[i];
        s.completed = true;
        --remaining;
        const std::string where = m_options.url + " " + m_prefix + requests[i].path;
        if (s.last.cancelled || cancelled)
            return done(i, Status::error(where + ": cancelled"));
        const std::string attempts = m_options.maxAttempts > 1 && s.last.retryable
            ? " (after " + std::to_string(m_options.maxAttempts) + " attempts)"
            : std::string();
        if (!s.last.ok)
            return done(i, Status::error(where + ": " + s.last.error + attempts));
        // Any HTTP status is an answer: the API layer decodes Prometheus' error envelope.
        done(i, std::move(s.last.response));
    };
    while (remaining > 0) {
        const auto now = std::chrono::steady_clock::now();
        if (!cancelled && m_stop && m_stop->load(std::memory_order_relaxed))
            cancelled = true;
        int active = 0;
        for (const auto& s : slots)
            active += s.exchange ? 1 : 0;
        for (std::size_t i = 0; i < slots.size(); ++i) {
            Slot& s = slots[i];
            if (s.completed)
                continue;
            if (s.exchange) {
                if (s.exchange->finished) {
                    s.last = s.exchange->result();
                    s.exchange.reset();
                    --active;
                    if (!cancelled && !s.last.cancelled && s.last.retryable && s.attempt < m_options.maxAttempts) {
                        s.notBefore = now + s.backoff;
                        s.backoff *= 2;
                        continue;
                    }
                    finish(i);
                } else if (cancelled || now > s.exchange->deadline)
                    s.exchange->abort(cancelled);
                continue;
            }
            if (cancelled) {
                s.last.cancelled = true;
                finish(i);
                continue;
            }
            if (active < parallel && now >= s.notBefore) {
                if (m_tls)
                    s.exchange = std::make_unique<ExchangeT<true>>(ioc, m_options, m_host, m_port, target(requests[i]));
                else
                    s.exchange
                        = std::make_unique<ExchangeT<false>>(ioc, m_options, m_host, m_port, target(requests[i]));
                ++s.attempt;
                ++active;
                s.exchange->start();
            }
        }
        if (remaining > 0)
            ioc.run_one_for(std::chrono::milliseconds(5));
    }
}

Result<HttpResponse> PromClient::get(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const
{
    Result<HttpResponse> out = Status::error("no answer");
    getMany({ PromRequest { path, params } }, [&](std::size_t, Result<HttpResponse> r) { out = std::move(r); });
    return out;
}

} // namespace clusterscope::importers
