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

    // One attempt over plain TCP or TLS (Boost.Asio SSL on OpenSSL: the system's CA store, the
    // server's name or IP address checked against its certificate (RFC 6125), SNI sent; `insecureTls`
    // skips the checks for a self-signed lab server).
    template <bool Tls>
    AttemptResult runAttempt(const PromClientOptions& o, const std::string& host, const std::string& port,
        const std::string& target, const std::atomic<bool>* stop)
    {
        AttemptResult r;
        asio::io_context ioc;
        tcp::resolver resolver(ioc);
        namespace ssl = boost::asio::ssl;
        ssl::context ctx(ssl::context::tls_client);
        using Stream = std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;
        std::optional<Stream> holder;
        if constexpr (Tls) {
            beast::error_code ignored; // without a readable CA store every server fails verification, named below
            if (o.insecureTls)
                ctx.set_verify_mode(ssl::verify_none);
            else {
                ctx.set_default_verify_paths(ignored);
                ctx.set_verify_mode(ssl::verify_peer);
            }
            holder.emplace(ioc, ctx);
            if (!o.insecureTls)
                holder->set_verify_callback(ssl::host_name_verification(host));
            if (!SSL_set_tlsext_host_name(holder->native_handle(), host.c_str())) {
                r.error = "cannot set the TLS server name (SNI) " + host;
                return r;
            }
        } else
            holder.emplace(ioc);
        Stream& stream = *holder;
        auto& lowest = beast::get_lowest_layer(stream);
        http::request<http::empty_body> req { http::verb::get, target, 11 };
        req.set(http::field::host, host + ":" + port);
        req.set(http::field::user_agent, "clusterscope");
        req.set(http::field::accept, "application/json, application/openmetrics-text;q=0.9, text/plain;q=0.5");
        if (o.gzip)
            req.set(http::field::accept_encoding, "gzip");
        if (!o.bearerToken.empty())
            req.set(http::field::authorization, "Bearer " + o.bearerToken);
        else if (!o.basicUser.empty())
            req.set(http::field::authorization, "Basic " + base64(o.basicUser + ":" + o.basicPassword));
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(o.maxResponseBytes);
        parser.header_limit(64 * 1024);
        beast::error_code failure;
        std::string stage;
        bool done = false;

        std::function<void()> exchange;
        auto resolve = [&] {
            resolver.async_resolve(host, port, [&](beast::error_code ec, const tcp::resolver::results_type& results) {
                if (ec) {
                    failure = ec;
                    stage = "cannot resolve " + host;
                    return;
                }
                lowest.async_connect(results, [&](beast::error_code ec2, const tcp::endpoint&) {
                    if (ec2) {
                        failure = ec2;
                        stage = "cannot connect";
                        return;
                    }
                    if constexpr (Tls)
                        stream.async_handshake(ssl::stream_base::client, [&](beast::error_code ec6) {
                            if (ec6) {
                                failure = ec6;
                                stage = "TLS handshake failed";
                                return;
                            }
                            exchange();
                        });
                    else
                        exchange();
                });
            });
        };
        // Request and answer once the connection (and the TLS session) is up.
        auto exchangeImpl = [&] {
            http::async_write(stream, req, [&](beast::error_code ec3, std::size_t) {
                if (ec3) {
                    failure = ec3;
                    stage = "cannot send the request";
                    return;
                }
                // Header first: a declared length above the cap is refused before any body is read.
                http::async_read_header(stream, buffer, parser, [&](beast::error_code ec4, std::size_t) {
                    if (ec4) {
                        failure = ec4;
                        stage = "the answer broke off";
                        return;
                    }
                    if (parser.content_length() && *parser.content_length() > o.maxResponseBytes) {
                        failure = http::error::body_limit;
                        return;
                    }
                    http::async_read(stream, buffer, parser, [&](beast::error_code ec5, std::size_t) {
                        if (ec5) {
                            failure = ec5;
                            stage = "the answer broke off";
                            return;
                        }
                        done = true;
                    });
                });
            });
        };
        exchange = exchangeImpl;
        resolve();

        const auto deadline = std::chrono::steady_clock::now() + o.timeout;
        bool timedOut = false;
        bool cancelled = false;
        while (!ioc.stopped()) {
            ioc.run_for(std::chrono::milliseconds(10));
            if (ioc.stopped())
                break;
            const bool stopNow = stop && stop->load(std::memory_order_relaxed);
            if ((stopNow && !cancelled) || (!timedOut && !cancelled && std::chrono::steady_clock::now() > deadline)) {
                (stopNow ? cancelled : timedOut) = true;
                resolver.cancel();
                beast::error_code ignored;
                lowest.socket().cancel(ignored);
                lowest.socket().close(ignored);
            }
        }
        if (cancelled) {
            r.cancelled = true;
            r.error = "cancelled";
            return r;
        }
        if (timedOut) {
            r.retryable = true;
            r.error = "no complete answer within " + std::to_string(o.timeout.count()) + " ms (timeout)";
            return r;
        }
        if (!done) {
            if (failure == http::error::body_limit) {
                r.error = "the answer is larger than the " + mib(o.maxResponseBytes)
                    + " limit; narrow the query (fewer series, a larger step or a shorter window)";
                return r;
            }
            if (failure == http::error::header_limit) {
                r.error = "the answer's HTTP header exceeds 64 KiB";
                return r;
            }
            r.retryable = stage != "TLS handshake failed";
            r.error = stage + " (" + failure.message() + ")";
            if (Tls && stage == "TLS handshake failed" && !o.insecureTls)
                r.error += "; a self-signed or private-CA server needs its CA in the system store (or SSL_CERT_FILE), "
                           "or --insecure to skip verification";
            return r;
        }
        beast::error_code ignored;
        lowest.socket().shutdown(tcp::socket::shutdown_both, ignored);
        auto& res = parser.get();
        r.response.status = static_cast<int>(res.result_int());
        r.response.contentType = std::string(res[http::field::content_type]);
        const auto encoding = res[http::field::content_encoding];
        if (beast::iequals(encoding, "gzip")) {
            auto inflated = inflateBounded(res.body(), o.maxResponseBytes);
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

} // namespace

Result<HttpResponse> PromClient::get(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const
{
    std::string target = m_prefix + path;
    for (std::size_t i = 0; i < params.size(); ++i)
        target += (i == 0 ? '?' : '&') + percentEncode(params[i].first) + "=" + percentEncode(params[i].second);
    const std::string where = m_options.url + " " + m_prefix + path;
    auto backoff = m_options.backoff;
    AttemptResult last;
    for (int attempt = 1; attempt <= m_options.maxAttempts; ++attempt) {
        last = m_tls ? runAttempt<true>(m_options, m_host, m_port, target, m_stop)
                     : runAttempt<false>(m_options, m_host, m_port, target, m_stop);
        if (last.cancelled)
            return Status::error(where + ": cancelled");
        if (!last.retryable || attempt == m_options.maxAttempts)
            break;
        // Exponential backoff, interruptible by the stop flag.
        const auto until = std::chrono::steady_clock::now() + backoff;
        while (std::chrono::steady_clock::now() < until) {
            if (m_stop && m_stop->load())
                return Status::error(where + ": cancelled");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        backoff *= 2;
    }
    const std::string attempts = m_options.maxAttempts > 1 && last.retryable
        ? " (after " + std::to_string(m_options.maxAttempts) + " attempts)"
        : std::string();
    if (!last.ok)
        return Status::error(where + ": " + last.error + attempts);
    // Any HTTP status is an answer: the API layer decodes Prometheus' error envelope.
    return std::move(last.response);
}

} // namespace clusterscope::importers
