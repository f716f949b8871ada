#pragma once

// Prometheus text exposition format 0.0.4 and OpenMetrics 1.0 text, as served on /metrics.
// Formats: https://prometheus.io/docs/instrumenting/exposition_formats/ (text 0.0.4) and
// https://github.com/OpenObservability/OpenMetrics/blob/main/specification/OpenMetrics.md (1.0).
// The parser is a single pass over the bytes with no allocation per sample (views into the input;
// only label values with escapes are decoded into a scratch buffer), so that a saved snapshot of a
// few hundred MB parses at memory-scan speed.

#include "engine/core/status.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace clusterscope::importers {

enum class ExpositionFormat : std::uint8_t {
    Text004, ///< text/plain; version=0.0.4 (timestamps in integer milliseconds)
    OpenMetrics, ///< application/openmetrics-text; version=1.0.0 (timestamps in float seconds, "# EOF")
};

enum class MetricType : std::uint8_t { Unknown, Counter, Gauge, Histogram, GaugeHistogram, Summary, Info, StateSet };

const char* toString(MetricType type);

struct LabelView {
    std::string_view name;
    std::string_view value; ///< unescaped (\\, \", \n decoded)
};

/// One sample; the views are valid only during the callback.
struct SampleView {
    std::string_view name; ///< the sample's metric name (with _total, _bucket, ...)
    std::string_view family; ///< family of the last # TYPE line the sample belongs to, or empty
    MetricType type = MetricType::Unknown; ///< the family's declared type (Unknown when undeclared)
    std::span<const LabelView> labels;
    double value = 0.0; ///< NaN and +-Inf allowed
    bool hasTimestamp = false;
    std::int64_t timestampMs = 0; ///< milliseconds since the epoch (OpenMetrics seconds are converted)
};

/// Family metadata in declaration order.
struct FamilyInfo {
    std::string name;
    MetricType type = MetricType::Unknown;
    std::string help;
    std::string unit;
};

/// Parses `text` and calls `onSample` for every sample. Errors name `sourceName`, the line and the
/// column ("metrics.txt:12:7: ..."). `families`, when given, receives the # TYPE / # HELP / # UNIT
/// metadata. Returns the number of samples.
engine::Result<std::size_t> parseExposition(std::string_view text, ExpositionFormat format,
    const std::string& sourceName, const std::function<void(const SampleView&)>& onSample,
    std::vector<FamilyInfo>* families = nullptr);

/// Guesses the format of a saved snapshot: OpenMetrics when the last non-empty line is "# EOF",
/// text 0.0.4 otherwise.
ExpositionFormat detectExpositionFormat(std::string_view text);

/// Format from an HTTP Content-Type header value (application/openmetrics-text -> OpenMetrics).
ExpositionFormat expositionFormatFromContentType(std::string_view contentType);

} // namespace clusterscope::importers
