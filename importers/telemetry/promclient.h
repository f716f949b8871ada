#pragma once

// A client for the Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/),
// which Thanos Query and Grafana Mimir serve too. HTTP/1.1 over Boost.Beast; every call is synchronous
// on the caller's thread (the GUI runs it on a worker), bounded in time (per-attempt timeout, a fixed
// number of attempts with exponential backoff, a stop flag checked every few milliseconds) and in
// memory (a response larger than `maxResponseBytes`, compressed or inflated, is refused).

#include "engine/core/status.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clusterscope::importers {

struct PromClientOptions {
    std::string url; ///< base URL, "http[s]://host:port[/prefix]"
    /// https: skip the certificate and host-name checks (a self-signed lab server). By default the
    /// server's certificate must chain to the system's CA store (or SSL_CERT_FILE / SSL_CERT_DIR).
    bool insecureTls = false;
    std::string bearerToken; ///< Authorization: Bearer ... when not empty
    std::string basicUser; ///< Authorization: Basic ... when not empty
    std::string basicPassword;
    std::chrono::milliseconds timeout { 10000 }; ///< per attempt: connect + send + receive
    int maxAttempts = 3; ///< attempts on transport errors and HTTP 429/502/503/504
    std::chrono::milliseconds backoff { 200 }; ///< wait before the 2nd attempt; doubles after each
    std::size_t maxResponseBytes = std::size_t(256) << 20; ///< cap on the body, compressed and inflated
    bool gzip = true; ///< send Accept-Encoding: gzip
};

using PromLabels = std::vector<std::pair<std::string, std::string>>; ///< sorted by name

/// Value of one label, or an empty string when the set has none.
const std::string& labelValue(const PromLabels& labels, std::string_view name);

struct PromSeries {
    PromLabels labels; ///< including __name__ when the result keeps it
    std::vector<double> timesS; ///< seconds since the epoch (raw samples keep millisecond fractions)
    std::vector<double> values; ///< decoded from strings; NaN and +-Inf allowed
};

struct PromQueryResult {
    std::string resultType; ///< "matrix", "vector", "scalar" or "string"
    std::vector<PromSeries> series; ///< vector: one point each; scalar: one series without labels
    std::vector<std::string> warnings;
};

struct PromMetadata {
    std::string type;
    std::string help;
    std::string unit;
};

struct PromBuildInfo {
    std::string version; ///< "2.42.0"
    std::string revision;
    std::string goVersion;
    int major = 0; ///< 2 or 3: range selectors are closed [t-r, t] in 2.x, left-open in 3.x
};

/// A raw HTTP exchange, for callers that need the body of an endpoint this client does not decode.
struct HttpResponse {
    int status = 0;
    std::string contentType;
    std::string body; ///< inflated
};

/// One GET of an API path (relative to the base URL) with its query parameters (URL-encoded on sending).
struct PromRequest {
    std::string path;
    std::vector<std::pair<std::string, std::string>> params;
};

class PromClient {
public:
    /// Checks the URL (scheme http, host, optional port and path prefix).
    static engine::Result<PromClient> create(PromClientOptions options);

    /// Set to true from any thread to abandon the call in progress (it returns "cancelled").
    void setStopFlag(const std::atomic<bool>* stop) { m_stop = stop; }
    const PromClientOptions& options() const { return m_options; }

    /// GET `path` (relative to the base URL, e.g. "/metrics") with URL-encoded `params`. Retries
    /// transport errors and 429/502/503/504; any other status is returned as is.
    engine::Result<HttpResponse> get(
        const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const;

    /// GETs every request at once, on one Boost.Asio io_context on the caller's thread (at most
    /// `maxParallel` connections open; each request retried and timed out on its own as get() does).
    /// `done(index, answer)` is called on this thread as each request completes, in completion order,
    /// while the others are still in flight. Returns when every request is done (or cancelled).
    void getMany(const std::vector<PromRequest>& requests,
        const std::function<void(std::size_t, engine::Result<HttpResponse>)>& done, int maxParallel = 4) const;

    /// GET /api/v1/query (instant query at `timeS`, or now when absent).
    engine::Result<PromQueryResult> query(const std::string& expr, std::optional<double> timeS = std::nullopt) const;
    /// Instant queries of every expression at `timeS`, in parallel (getMany); results in input order.
    /// `each(index)` is called as each answer is decoded (progress).
    std::vector<engine::Result<PromQueryResult>> queryMany(const std::vector<std::string>& exprs, double timeS,
        int maxParallel = 4, const std::function<void(std::size_t)>& each = {}) const;
    /// GET /api/v1/query_range; Prometheus refuses more than 11,000 points per series.
    engine::Result<PromQueryResult> queryRange(const std::string& expr, double startS, double endS, double stepS) const;
    /// GET /api/v1/series for the selectors (match[]) within [startS, endS] (0 = server default).
    engine::Result<std::vector<PromLabels>> series(
        const std::vector<std::string>& matchers, double startS = 0, double endS = 0) const;
    /// GET /api/v1/labels.
    engine::Result<std::vector<std::string>> labels() const;
    /// GET /api/v1/label/<name>/values.
    engine::Result<std::vector<std::string>> labelValues(const std::string& name) const;
    /// GET /api/v1/metadata (all metrics, or one when `metric` is not empty).
    engine::Result<std::map<std::string, PromMetadata>> metadata(const std::string& metric = {}) const;
    /// GET /api/v1/status/buildinfo.
    engine::Result<PromBuildInfo> buildInfo() const;

private:
    explicit PromClient(PromClientOptions options);
    /// GETs an API path and checks the envelope: returns the body of a "status":"success" answer,
    /// or an error naming the endpoint, HTTP status, errorType and error.
    engine::Result<std::string> api(
        const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const;
    /// The envelope check of api() on an answer already received.
    engine::Result<std::string> checkApi(const std::string& path, engine::Result<HttpResponse> res) const;
    /// The request target: prefix, path and the URL-encoded parameters.
    std::string target(const PromRequest& request) const;

    PromClientOptions m_options;
    std::string m_host;
    std::string m_port;
    std::string m_prefix;
    bool m_tls = false;
    const std::atomic<bool>* m_stop = nullptr;
};

/// Decodes a query / query_range answer body ({"status":"success","data":{...}}). `what` names the
/// request in error messages. Exposed for tests and for saved API answers.
engine::Result<PromQueryResult> decodeQueryResponse(const std::string& body, const std::string& what);

/// Decodes the Prometheus float spelling ("1.5", "NaN", "+Inf", "-Inf").
bool decodePromFloat(std::string_view s, double& out);

} // namespace clusterscope::importers
