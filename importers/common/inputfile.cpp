#include "importers/common/inputfile.h"

#include "engine/core/atomicfile.h"

#include <zlib.h>

namespace clusterscope::importers {

using engine::Status;

engine::Result<std::string> gunzip(const std::string& compressed, const std::string& name)
{
    z_stream zs {};
    // 16 + MAX_WBITS: expect a gzip header (zlib manual, inflateInit2).
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return Status::error(name + ": cannot initialise the gzip decoder");
    std::string out;
    out.reserve(compressed.size() * 4);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    zs.avail_in = static_cast<uInt>(compressed.size());
    char buffer[1 << 16];
    int rc = Z_OK;
    while (true) {
        zs.next_out = reinterpret_cast<Bytef*>(buffer);
        zs.avail_out = sizeof buffer;
        rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - zs.avail_out);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members (pigz, appended logs) continue with another header.
            if (zs.avail_in == 0)
                break;
            if (inflateReset(&zs) != Z_OK)
                break;
            continue;
        }
        if (rc != Z_OK) {
            const auto offset = zs.total_in;
            inflateEnd(&zs);
            return Status::error(name + ": compressed byte " + std::to_string(offset) + ": damaged gzip data ("
                + (zs.msg ? zs.msg : "inflate failed") + ")");
        }
        if (zs.avail_in == 0) {
            const auto offset = zs.total_in;
            inflateEnd(&zs);
            return Status::error(
                name + ": compressed byte " + std::to_string(offset) + ": the gzip stream is truncated");
        }
    }
    inflateEnd(&zs);
    return out;
}

engine::Result<std::string> readInputFile(const std::string& path)
{
    auto data = engine::readWholeFile(path);
    if (!data)
        return data.status();
    if (data->size() >= 2 && static_cast<unsigned char>((*data)[0]) == 0x1f
        && static_cast<unsigned char>((*data)[1]) == 0x8b)
        return gunzip(*data, path);
    return data;
}

} // namespace clusterscope::importers
