#include "importers/kineto/bytesource.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace clusterscope::importers {

using engine::Status;

engine::Result<std::size_t> MemoryByteSource::read(char* out, std::size_t capacity)
{
    const std::size_t n = std::min(capacity, m_text.size() - m_pos);
    std::memcpy(out, m_text.data() + m_pos, n);
    m_pos += n;
    return n;
}

struct FileByteSource::Gzip {
    z_stream zs {};
    std::vector<unsigned char> in = std::vector<unsigned char>(1 << 18);
    bool finished = false;
    ~Gzip() { inflateEnd(&zs); }
};

engine::Result<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path)
{
    std::unique_ptr<FileByteSource> s(new FileByteSource);
    s->m_path = path;
    s->m_file = std::fopen(path.c_str(), "rb");
    if (!s->m_file)
        return Status::error(path + ": cannot open the file for reading (" + std::strerror(errno) + ")");
    unsigned char magic[2] = {};
    const std::size_t n = std::fread(magic, 1, 2, s->m_file);
    std::rewind(s->m_file);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        s->m_gzip = std::make_unique<Gzip>();
        // 16 + MAX_WBITS: expect a gzip header (zlib manual, inflateInit2).
        if (inflateInit2(&s->m_gzip->zs, 16 + MAX_WBITS) != Z_OK)
            return Status::error(path + ": cannot initialise the gzip decoder");
    }
    return s;
}

FileByteSource::~FileByteSource()
{
    if (m_file)
        std::fclose(m_file);
}

engine::Result<std::size_t> FileByteSource::read(char* out, std::size_t capacity)
{
    if (!m_gzip) {
        const std::size_t n = std::fread(out, 1, capacity, m_file);
        if (n == 0 && std::ferror(m_file))
            return Status::error(m_path + ": read error");
        return n;
    }
    Gzip& g = *m_gzip;
    if (g.finished)
        return std::size_t(0);
    g.zs.next_out = reinterpret_cast<Bytef*>(out);
    g.zs.avail_out = uInt(capacity);
    while (g.zs.avail_out > 0) {
        if (g.zs.avail_in == 0) {
            const std::size_t n = std::fread(g.in.data(), 1, g.in.size(), m_file);
            if (n == 0) {
                if (std::ferror(m_file))
                    return Status::error(m_path + ": read error");
                if (g.zs.avail_out == capacity)
                    return Status::error(m_path + ": compressed byte " + std::to_string(g.zs.total_in)
                        + ": the gzip stream is truncated");
                break; // deliver what we have; the next call reports the truncation
            }
            g.zs.next_in = g.in.data();
            g.zs.avail_in = uInt(n);
        }
        const int rc = inflate(&g.zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members (pigz, appended logs) continue with another header.
            if (g.zs.avail_in == 0) {
                const int c = std::fgetc(m_file);
                if (c == EOF) {
                    g.finished = true;
                    break;
                }
                std::ungetc(c, m_file);
            }
            if (inflateReset(&g.zs) != Z_OK) {
                g.finished = true;
                break;
            }
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return Status::error(m_path + ": compressed byte " + std::to_string(g.zs.total_in) + ": damaged gzip data ("
                + (g.zs.msg ? g.zs.msg : "inflate failed") + ")");
    }
    return capacity - g.zs.avail_out;
}

} // namespace clusterscope::importers
