#include "importers/telemetry/expositionparser.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

namespace clusterscope::importers {

using engine::Result;
using engine::Status;

const char* toString(MetricType type)
{
    switch (type) {
    case MetricType::Counter:
        return "counter";
    case MetricType::Gauge:
        return "gauge";
    case MetricType::Histogram:
        return "histogram";
    case MetricType::GaugeHistogram:
        return "gaugehistogram";
    case MetricType::Summary:
        return "summary";
    case MetricType::Info:
        return "info";
    case MetricType::StateSet:
        return "stateset";
    case MetricType::Unknown:
        break;
    }
    return "unknown";
}

namespace {

    // Metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (exposition_formats.md).
    constexpr std::array<std::uint8_t, 256> makeCharTable()
    {
        std::array<std::uint8_t, 256> t {};
        for (int c = 'a'; c <= 'z'; ++c)
            t[c] = 3;
        for (int c = 'A'; c <= 'Z'; ++c)
            t[c] = 3;
        t['_'] = 3;
        t[':'] = 1; // metric names only
        for (int c = '0'; c <= '9'; ++c)
            t[c] = 4;
        return t;
    }
    constexpr auto kChar = makeCharTable();
    inline bool isNameStart(char c) { return kChar[static_cast<unsigned char>(c)] & 1; }
    inline bool isNameChar(char c) { return kChar[static_cast<unsigned char>(c)] != 0; }
    inline bool isLabelStart(char c) { return kChar[static_cast<unsigned char>(c)] & 2; }
    inline bool isLabelChar(char c) { return (kChar[static_cast<unsigned char>(c)] & 6) != 0; }

    bool parseMetricType(std::string_view s, MetricType& out)
    {
        static constexpr std::pair<std::string_view, MetricType> kTypes[] = { { "counter", MetricType::Counter },
            { "gauge", MetricType::Gauge }, { "histogram", MetricType::Histogram },
            { "gaugehistogram", MetricType::GaugeHistogram }, { "summary", MetricType::Summary },
            { "info", MetricType::Info }, { "stateset", MetricType::StateSet }, { "untyped", MetricType::Unknown },
            { "unknown", MetricType::Unknown } };
        for (const auto& [name, type] : kTypes)
            if (s == name) {
                out = type;
                return true;
            }
        return false;
    }

    // Go's strconv.ParseFloat spellings that std::from_chars does not take: a leading '+', "Inf"/"NaN"
    // in any case (Prometheus writes "+Inf", "-Inf", "NaN").
    bool parseValue(std::string_view s, double& out)
    {
        if (s.empty())
            return false;
        std::string_view body = s;
        bool negative = false;
        if (body.front() == '+' || body.front() == '-') {
            negative = body.front() == '-';
            body.remove_prefix(1);
        }
        if (body.size() >= 3 && !(body[0] >= '0' && body[0] <= '9') && body[0] != '.') {
            auto lower = [](std::string_view v, std::string_view word) {
                if (v.size() != word.size())
                    return false;
                for (std::size_t i = 0; i < v.size(); ++i)
                    if ((v[i] | 0x20) != word[i])
                        return false;
                return true;
            };
            if (lower(body, "inf") || lower(body, "infinity")) {
                out = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
                return true;
            }
            if (lower(body, "nan")) {
                out = std::numeric_limits<double>::quiet_NaN();
                return true;
            }
            return false;
        }
        const char* first = body.data();
        const char* last = body.data() + body.size();
        double v = 0.0;
        auto [ptr, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || ptr != last)
            return false;
        out = negative ? -v : v;
        return true;
    }

    class Parser {
    public:
        Parser(std::string_view text, ExpositionFormat format, const std::string& source)
            : m_text(text)
            , m_format(format)
            , m_source(source)
        {
        }

        Result<std::size_t> run(
            const std::function<void(const SampleView&)>& onSample, std::vector<FamilyInfo>* families)
        {
            const char* p = m_text.data();
            const char* end = p + m_text.size();
            std::size_t samples = 0;
            bool sawEof = false;
            while (p < end) {
                const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
                const char* lineEnd = nl ? nl : end;
                std::string_view line(p, static_cast<std::size_t>(lineEnd - p));
                if (!line.empty() && line.back() == '\r')
                    line.remove_suffix(1);
                if (sawEof && !line.empty())
                    return error(p, "content after \"# EOF\"");
                if (line.empty()) {
                    // Empty lines are ignored in 0.0.4; OpenMetrics forbids them but Prometheus' own
                    // parser only fails on them, so accept and move on.
                } else if (line.front() == '#') {
                    Status s = comment(line, p, families, sawEof);
                    if (!s)
                        return s;
                } else {
                    Status s = sample(line, p, onSample);
                    if (!s)
                        return s;
                    ++samples;
                }
                p = nl ? nl + 1 : end;
            }
            if (m_format == ExpositionFormat::OpenMetrics && !sawEof)
                return Status::error(m_source + ": OpenMetrics data does not end with \"# EOF\"");
            return samples;
        }

    private:
        Status error(const char* at, const std::string& message) const
        {
            std::size_t line = 1;
            const char* lineStart = m_text.data();
            for (const char* q = m_text.data(); q < at; ++q)
                if (*q == '\n') {
                    ++line;
                    lineStart = q + 1;
                }
            return Status::error(
                m_source + ":" + std::to_string(line) + ":" + std::to_string(at - lineStart + 1) + ": " + message);
        }

        static std::string unescapeHelp(std::string_view s)
        {
            std::string out;
            out.reserve(s.size());
            for (std::size_t i = 0; i < s.size(); ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) {
                    const char n = s[++i];
                    out += n == 'n' ? '\n' : n;
                } else
                    out += s[i];
            }
            return out;
        }

        Status comment(std::string_view line, const char* at, std::vector<FamilyInfo>* families, bool& sawEof)
        {
            if (line == "# EOF") {
                sawEof = true;
                return Status::success();
            }
            std::string_view rest = line.substr(1);
            while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
                rest.remove_prefix(1);
            std::string_view keyword = rest.substr(0, rest.find_first_of(" \t"));
            if (keyword != "TYPE" && keyword != "HELP" && keyword != "UNIT")
                return Status::success(); // an ordinary comment
            rest.remove_prefix(keyword.size());
            while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
                rest.remove_prefix(1);
            std::size_t n = 0;
            while (n < rest.size() && isNameChar(rest[n]))
                ++n;
            if (n == 0 || !isNameStart(rest[0]))
                return error(rest.data(), "# " + std::string(keyword) + " without a valid metric name");
            const std::string_view name = rest.substr(0, n);
            std::string_view arg = rest.substr(n);
            if (!arg.empty() && arg.front() != ' ' && arg.front() != '\t')
                return error(arg.data(), "invalid character in metric name");
            while (!arg.empty() && (arg.front() == ' ' || arg.front() == '\t'))
                arg.remove_prefix(1);
            if (keyword == "TYPE") {
                MetricType type;
                std::string_view t = arg;
                while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
                    t.remove_suffix(1);
                if (!parseMetricType(t, type))
                    return error(arg.data(), "unknown metric type \"" + std::string(t) + "\"");
                m_family.assign(name);
                m_type = type;
            } else if (m_family != name && keyword == "HELP" && m_format == ExpositionFormat::Text004) {
                // 0.0.4 allows HELP before TYPE; the family starts at whichever comes first.
                m_family.assign(name);
                m_type = MetricType::Unknown;
            }
            if (families) {
                if (families->empty() || families->back().name != name)
                    families->push_back(FamilyInfo { std::string(name), MetricType::Unknown, {}, {} });
                FamilyInfo& f = families->back();
                if (keyword == "TYPE")
                    f.type = m_type;
                else if (keyword == "HELP")
                    f.help = unescapeHelp(arg);
                else
                    f.unit.assign(arg);
            }
            (void)at;
            return Status::success();
        }

        Status sample(std::string_view line, const char* at, const std::function<void(const SampleView&)>& onSample)
        {
            const char* p = line.data();
            const char* end = p + line.size();
            if (*p == '{')
                return error(p, "quoted metric names (Prometheus 3 UTF-8 names) are not supported");
            if (!isNameStart(*p))
                return error(p, "a sample must start with a metric name");
            const char* nameStart = p;
            while (p < end && isNameChar(*p))
                ++p;
            SampleView s;
            s.name = std::string_view(nameStart, static_cast<std::size_t>(p - nameStart));
            m_labels.clear();
            m_decoded.clear();
            m_decodedAt.clear();
            if (p < end && *p == '{') {
                Status ls = labels(p, end);
                if (!ls)
                    return ls;
            }
            if (p >= end || (*p != ' ' && *p != '\t'))
                return error(p, p >= end ? "sample has no value" : "expected a space before the value");
            while (p < end && (*p == ' ' || *p == '\t'))
                ++p;
            const char* valueStart = p;
            while (p < end && *p != ' ' && *p != '\t')
                ++p;
            if (!parseValue(std::string_view(valueStart, static_cast<std::size_t>(p - valueStart)), s.value))
                return error(valueStart,
                    "invalid sample value \"" + std::string(valueStart, static_cast<std::size_t>(p - valueStart))
                        + "\"");
            while (p < end && (*p == ' ' || *p == '\t'))
                ++p;
            if (p < end && *p != '#') {
                const char* tsStart = p;
                while (p < end && *p != ' ' && *p != '\t')
                    ++p;
                const std::string_view ts(tsStart, static_cast<std::size_t>(p - tsStart));
                if (m_format == ExpositionFormat::Text004) {
                    auto [ptr, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), s.timestampMs);
                    if (ec != std::errc() || ptr != ts.data() + ts.size())
                        return error(tsStart,
                            "invalid timestamp \"" + std::string(ts) + "\" (text 0.0.4 wants integer milliseconds)");
                } else {
                    double seconds = 0.0;
                    if (!parseValue(ts, seconds) || !std::isfinite(seconds))
                        return error(
                            tsStart, "invalid timestamp \"" + std::string(ts) + "\" (OpenMetrics wants seconds)");
                    s.timestampMs = std::llround(seconds * 1000.0);
                }
                s.hasTimestamp = true;
                while (p < end && (*p == ' ' || *p == '\t'))
                    ++p;
            }
            if (p < end) {
                // OpenMetrics exemplar: " # {labels} value [timestamp]"; not stored (Prometheus' TSDB
                // blocks do not keep them either).
                if (*p != '#' || m_format != ExpositionFormat::OpenMetrics)
                    return error(p, "unexpected text after the sample");
            }
            // Family membership: the sample name is the family name or the family name plus a suffix.
            if (!m_family.empty() && s.name.size() >= m_family.size()
                && s.name.compare(0, m_family.size(), m_family) == 0) {
                s.family = m_family;
                s.type = m_type;
            }
            // Decoded label values live in m_decoded; point the views at it now that it stops growing.
            for (std::size_t i = 0; i < m_decodedAt.size(); ++i) {
                auto [index, offset, length] = m_decodedAt[i];
                m_labels[index].value = std::string_view(m_decoded).substr(offset, length);
            }
            s.labels = m_labels;
            onSample(s);
            (void)at;
            return Status::success();
        }

        Status labels(const char*& p, const char* end)
        {
            ++p; // '{'
            while (true) {
                while (p < end && (*p == ' ' || *p == '\t'))
                    ++p;
                if (p >= end)
                    return error(p, "unterminated label set");
                if (*p == '}') {
                    ++p;
                    return Status::success();
                }
                if (*p == '"')
                    return error(p, "quoted label names (Prometheus 3 UTF-8 names) are not supported");
                if (!isLabelStart(*p))
                    return error(p, "invalid label name");
                const char* ns = p;
                while (p < end && isLabelChar(*p))
                    ++p;
                LabelView label;
                label.name = std::string_view(ns, static_cast<std::size_t>(p - ns));
                while (p < end && (*p == ' ' || *p == '\t'))
                    ++p;
                if (p >= end || *p != '=')
                    return error(p, "expected '=' after label name \"" + std::string(label.name) + "\"");
                ++p;
                while (p < end && (*p == ' ' || *p == '\t'))
                    ++p;
                if (p >= end || *p != '"')
                    return error(p, "expected '\"' to open the value of label \"" + std::string(label.name) + "\"");
                ++p;
                const char* vs = p;
                while (p < end && *p != '"' && *p != '\\')
                    ++p;
                if (p < end && *p == '\\') {
                    const std::size_t offset = m_decoded.size();
                    m_decoded.append(vs, static_cast<std::size_t>(p - vs));
                    while (p < end && *p != '"') {
                        if (*p == '\\') {
                            if (p + 1 >= end)
                                break;
                            const char n = p[1];
                            if (n == 'n')
                                m_decoded += '\n';
                            else if (n == '\\' || n == '"')
                                m_decoded += n;
                            else {
                                m_decoded += '\\';
                                m_decoded += n;
                            }
                            p += 2;
                        } else
                            m_decoded += *p++;
                    }
                    m_decodedAt.push_back({ m_labels.size(), offset, m_decoded.size() - offset });
                } else
                    label.value = std::string_view(vs, static_cast<std::size_t>(p - vs));
                if (p >= end)
                    return error(vs, "unterminated value of label \"" + std::string(label.name) + "\"");
                ++p; // closing quote
                m_labels.push_back(label);
                while (p < end && (*p == ' ' || *p == '\t'))
                    ++p;
                if (p < end && *p == ',') {
                    ++p;
                    continue;
                }
                if (p < end && *p == '}') {
                    ++p;
                    return Status::success();
                }
                return error(p, "expected ',' or '}' after a label value");
            }
        }

        std::string_view m_text;
        ExpositionFormat m_format;
        const std::string& m_source;
        std::string m_family;
        MetricType m_type = MetricType::Unknown;
        std::vector<LabelView> m_labels;
        std::string m_decoded;
        std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> m_decodedAt;
    };

} // namespace

Result<std::size_t> parseExposition(std::string_view text, ExpositionFormat format, const std::string& sourceName,
    const std::function<void(const SampleView&)>& onSample, std::vector<FamilyInfo>* families)
{
    Parser parser(text, format, sourceName);
    return parser.run(onSample, families);
}

ExpositionFormat detectExpositionFormat(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.remove_suffix(1);
    const auto nl = text.rfind('\n');
    const std::string_view last = nl == std::string_view::npos ? text : text.substr(nl + 1);
    return last == "# EOF" ? ExpositionFormat::OpenMetrics : ExpositionFormat::Text004;
}

ExpositionFormat expositionFormatFromContentType(std::string_view contentType)
{
    return contentType.find("application/openmetrics-text") != std::string_view::npos ? ExpositionFormat::OpenMetrics
                                                                                      : ExpositionFormat::Text004;
}

} // namespace clusterscope::importers
