#include "importers/kineto/tracejsonsplitter.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace clusterscope::importers {

using engine::Status;

namespace {
    bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

    // First index >= i in [i, n) holding a quote or a backslash (n if none).
    std::size_t findStringSpecial(const char* p, std::size_t i, std::size_t n)
    {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
        while (i + 16 <= n) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            const int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
            if (m)
                return i + std::size_t(__builtin_ctz(unsigned(m)));
            i += 16;
        }
#endif
        while (i < n && p[i] != '"' && p[i] != '\\')
            ++i;
        return i;
    }

    // First index >= i in [i, n) holding a quote or a bracket (n if none).
    std::size_t findStructural(const char* p, std::size_t i, std::size_t n)
    {
#if defined(__SSE2__)
        const __m128i q = _mm_set1_epi8('"'), a = _mm_set1_epi8('{'), b = _mm_set1_epi8('}'), c = _mm_set1_epi8('['),
                      d = _mm_set1_epi8(']');
        while (i + 16 <= n) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            const __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, a)),
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, b), _mm_cmpeq_epi8(v, c)), _mm_cmpeq_epi8(v, d)));
            const int bits = _mm_movemask_epi8(m);
            if (bits)
                return i + std::size_t(__builtin_ctz(unsigned(bits)));
            i += 16;
        }
#endif
        while (i < n && p[i] != '"' && p[i] != '{' && p[i] != '}' && p[i] != '[' && p[i] != ']')
            ++i;
        return i;
    }
}

TraceJsonSplitter::TraceJsonSplitter(
    ByteSource& source, std::string name, std::size_t batchBytes, std::size_t blockBytes)
    : m_source(source)
    , m_name(std::move(name))
    , m_batchBytes(batchBytes)
    , m_blockBytes(std::max<std::size_t>(blockBytes, 1))
{
}

Status TraceJsonSplitter::error(std::size_t at, const std::string& what) const
{
    return Status::error(m_name + ": byte " + std::to_string(m_base + std::int64_t(at)) + ": " + what);
}

bool TraceJsonSplitter::more()
{
    if (m_eof)
        return false;
    // Drop what is no longer needed, then append a block.
    // Never drop the byte at m_pos or anything after the keep mark.
    const std::int64_t keep = std::min(m_keep, m_base + std::int64_t(m_pos));
    if (keep > m_base) {
        const auto drop = std::size_t(keep - m_base);
        m_buf.erase(0, drop);
        m_base = keep;
        m_pos -= drop;
    }
    const std::size_t old = m_buf.size();
    m_buf.resize(old + m_blockBytes);
    auto n = m_source.read(m_buf.data() + old, m_blockBytes);
    if (!n) {
        m_readError = n.status();
        m_buf.resize(old);
        m_eof = true;
        return false;
    }
    m_buf.resize(old + *n);
    if (*n == 0)
        m_eof = true;
    return *n > 0;
}

bool TraceJsonSplitter::ensure() { return m_pos < m_buf.size() || (more() && m_pos < m_buf.size()); }

void TraceJsonSplitter::skipSpace()
{
    while (ensure() && isSpace(m_buf[m_pos]))
        ++m_pos;
}

bool TraceJsonSplitter::scanValue(std::size_t& end)
{
    // The buffer may be refilled (and shifted) while scanning: work with indices only.
    if (!ensure())
        return false;
    const char first = m_buf[m_pos];
    std::size_t i = m_pos;
    if (first != '{' && first != '[' && first != '"') {
        // Number, true, false, null: up to the next separator.
        while (true) {
            while (i < m_buf.size() && m_buf[i] != ',' && m_buf[i] != '}' && m_buf[i] != ']' && !isSpace(m_buf[i]))
                ++i;
            if (i < m_buf.size())
                break;
            const std::int64_t base = m_base;
            if (!more())
                break; // a bare value may end the input (the caller then finds the object unclosed)
            i -= std::size_t(m_base - base);
        }
        end = i;
        return true;
    }
    int depth = 0;
    bool inString = false;
    while (true) {
        const std::size_t n = m_buf.size();
        const char* p = m_buf.data();
        while (i < n) {
            if (inString) {
                i = findStringSpecial(p, i, n);
                if (i >= n)
                    break;
                if (p[i] == '\\') {
                    if (i + 1 >= n)
                        break; // the escaped byte is in the next block
                    i += 2;
                    continue;
                }
                inString = false;
                ++i;
                if (depth == 0) {
                    end = i;
                    return true;
                }
                continue;
            }
            i = findStructural(p, i, n);
            if (i >= n)
                break;
            const char c = p[i++];
            if (c == '"')
                inString = true;
            else if (c == '{' || c == '[')
                ++depth;
            else if (--depth == 0) {
                end = i;
                return true;
            } else if (depth < 0) {
                return false;
            }
        }
        const std::int64_t base = m_base;
        if (!more())
            return false;
        i -= std::size_t(m_base - base);
    }
}

Status TraceJsonSplitter::flushBatch(std::size_t begin, std::size_t end, const BatchHandler& onEventBatch)
{
    m_piece.clear();
    m_piece.reserve(end - begin + 2 + kPadding);
    m_piece.push_back('[');
    m_piece.append(m_buf, begin, end - begin);
    m_piece.push_back(']');
    return onEventBatch(m_piece, m_base + std::int64_t(begin) - 1);
}

Status TraceJsonSplitter::run(const MemberHandler& onMember, const BatchHandler& onEventBatch)
{
    auto truncated = [&]() {
        return m_readError.isOk() ? error(m_buf.size(), "unexpected end of the file (truncated?)") : m_readError;
    };
    skipSpace();
    if (!ensure())
        return m_readError.isOk() ? error(0, "empty input: expected a JSON object") : m_readError;
    if (m_buf[m_pos] != '{')
        return error(m_pos, "expected a JSON object at the top level");
    ++m_pos;
    skipSpace();
    if (ensure() && m_buf[m_pos] == '}') {
        ++m_pos;
    } else {
        while (true) {
            skipSpace();
            if (!ensure())
                return truncated();
            if (m_buf[m_pos] != '"')
                return error(m_pos, "expected a member name");
            std::size_t keyEnd = 0;
            m_keep = m_base + std::int64_t(m_pos);
            if (!scanValue(keyEnd))
                return truncated();
            const std::string key = m_buf.substr(m_pos + 1, keyEnd - m_pos - 2);
            m_pos = keyEnd;
            skipSpace();
            if (!ensure())
                return truncated();
            if (m_buf[m_pos] != ':')
                return error(m_pos, "expected ':' after \"" + key + "\"");
            ++m_pos;
            skipSpace();
            if (!ensure())
                return truncated();
            if (key == "traceEvents" && m_buf[m_pos] == '[') {
                ++m_pos;
                m_sawEvents = true;
                // The pending batch as input offsets [batchBegin, batchEnd); refills keep it.
                std::int64_t batchBegin = -1, batchEnd = -1;
                auto flush = [&]() {
                    const auto b = std::size_t(batchBegin - m_base), e = std::size_t(batchEnd - m_base);
                    batchBegin = -1;
                    return flushBatch(b, e, onEventBatch);
                };
                while (true) {
                    m_keep = batchBegin >= 0 ? batchBegin : m_base + std::int64_t(m_pos);
                    skipSpace();
                    if (!ensure())
                        return truncated();
                    if (m_buf[m_pos] == ']') {
                        if (batchBegin >= 0)
                            if (auto st = flush(); !st)
                                return st;
                        ++m_pos;
                        break;
                    }
                    if (batchBegin < 0) {
                        batchBegin = m_base + std::int64_t(m_pos);
                        m_keep = batchBegin;
                    }
                    std::size_t end = 0;
                    if (!scanValue(end))
                        return truncated();
                    m_pos = end;
                    batchEnd = m_base + std::int64_t(end);
                    skipSpace();
                    if (!ensure())
                        return truncated();
                    if (m_buf[m_pos] == ',')
                        ++m_pos;
                    else if (m_buf[m_pos] != ']')
                        return error(m_pos, "expected ',' or ']' between trace events");
                    if (batchEnd - batchBegin >= std::int64_t(m_batchBytes))
                        if (auto st = flush(); !st)
                            return st;
                }
            } else {
                m_keep = m_base + std::int64_t(m_pos);
                std::size_t end = 0;
                if (!scanValue(end))
                    return truncated();
                m_piece.assign(m_buf, m_pos, end - m_pos);
                m_piece.reserve(m_piece.size() + kPadding);
                if (auto st = onMember(key, m_piece, m_base + std::int64_t(m_pos)); !st)
                    return st;
                m_pos = end;
            }
            m_keep = m_base + std::int64_t(m_pos);
            skipSpace();
            if (!ensure())
                return truncated();
            if (m_buf[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_buf[m_pos] == '}') {
                ++m_pos;
                break;
            }
            return error(m_pos, "expected ',' or '}' after the value of \"" + key + "\"");
        }
    }
    m_keep = m_base + std::int64_t(m_pos);
    skipSpace();
    if (ensure())
        return error(m_pos, "unexpected text after the trace object");
    return m_readError;
}

} // namespace clusterscope::importers
