#pragma once

#include "engine/core/status.h"
#include "importers/kineto/bytesource.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace clusterscope::importers {

/// Splits a Chrome-trace JSON object read from a ByteSource into pieces small enough to parse one
/// at a time, so that memory stays bounded by the batch size instead of the file size:
/// - each top-level member other than "traceEvents" is handed over whole (`onMember`);
/// - the "traceEvents" array is handed over in batches of whole events, as the text of a JSON
///   array "[e1, e2, ...]" (`onEventBatch`).
/// The handed-over text has kPadding spare bytes of capacity (simdjson reads past the end).
/// `origin` maps a byte i of the handed-over text to the input's byte origin + i, so that errors
/// can name the byte offset in the file. Only the tokens between events and members are checked
/// here (strings, brackets, separators); the pieces are validated by their parser.
class TraceJsonSplitter {
public:
    static constexpr std::size_t kPadding = 64;

    using MemberHandler
        = std::function<engine::Status(std::string_view key, const std::string& value, std::int64_t origin)>;
    using BatchHandler = std::function<engine::Status(const std::string& batch, std::int64_t origin)>;

    /// `batchBytes`: events per batch (by text size); `blockBytes`: bytes read at a time.
    TraceJsonSplitter(ByteSource& source, std::string name, std::size_t batchBytes = std::size_t(4) << 20,
        std::size_t blockBytes = std::size_t(4) << 20);

    /// Runs to the end of the input. Errors: "<name>: byte N: <what>".
    engine::Status run(const MemberHandler& onMember, const BatchHandler& onEventBatch);
    /// Whether a "traceEvents" array was met (it may have been empty).
    bool sawEventsArray() const { return m_sawEvents; }

private:
    bool more(); // appends the next block; false at the end of input
    bool ensure(); // a byte available at m_pos (reading more if needed)
    void skipSpace();
    bool scanValue(std::size_t& end); // from m_pos; end = one past the value
    engine::Status error(std::size_t at, const std::string& what) const;
    engine::Status flushBatch(std::size_t begin, std::size_t end, const BatchHandler& onEventBatch);

    ByteSource& m_source;
    std::string m_name;
    std::size_t m_batchBytes;
    std::size_t m_blockBytes;
    std::string m_buf; // window of the input: m_buf[0] is input byte m_base
    std::int64_t m_base = 0; // input offset of m_buf[0]
    std::size_t m_pos = 0;
    std::int64_t m_keep = 0; // input offset: bytes before it may be dropped on the next refill
    bool m_eof = false;
    bool m_sawEvents = false;
    engine::Status m_readError;
    std::string m_piece; // reused buffer for handed-over text
};

} // namespace clusterscope::importers
