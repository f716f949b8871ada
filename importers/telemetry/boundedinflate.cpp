#include "importers/telemetry/boundedinflate.h"

#include <zlib.h>

namespace clusterscope::importers {

using engine::Status;

engine::Result<std::string> inflateBounded(const std::string& compressed, std::size_t limitBytes)
{
    z_stream zs {};
    // 16 + MAX_WBITS: expect a gzip header (zlib manual, inflateInit2).
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return Status::error("cannot initialise the gzip decoder");
    std::string out;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    zs.avail_in = static_cast<uInt>(compressed.size());
    char buffer[1 << 16];
    while (true) {
        zs.next_out = reinterpret_cast<Bytef*>(buffer);
        zs.avail_out = sizeof buffer;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        const std::size_t produced = sizeof buffer - zs.avail_out;
        if (out.size() + produced > limitBytes) {
            inflateEnd(&zs);
            return Status::error("the gzip answer inflates beyond the " + std::to_string(limitBytes >> 20)
                + " MiB limit; narrow the query (fewer series, a larger step or a shorter window)");
        }
        out.append(buffer, produced);
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK || (produced == 0 && zs.avail_in == 0)) {
            const auto offset = zs.total_in;
            const std::string why
                = zs.msg ? zs.msg : (rc == Z_OK || rc == Z_BUF_ERROR ? "truncated stream" : "inflate failed");
            inflateEnd(&zs);
            return Status::error("damaged gzip answer at compressed byte " + std::to_string(offset) + " (" + why + ")");
        }
    }
    inflateEnd(&zs);
    return out;
}

} // namespace clusterscope::importers
