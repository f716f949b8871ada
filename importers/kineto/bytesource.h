#pragma once

#include "engine/core/status.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace clusterscope::importers {

/// A forward-only stream of input bytes, so that a trace never has to be held in memory whole.
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Reads up to `capacity` bytes into `out`; 0 at the end. Errors name the input and the place.
    virtual engine::Result<std::size_t> read(char* out, std::size_t capacity) = 0;
};

/// Bytes of a string in memory (not copied: the string must outlive the source).
class MemoryByteSource : public ByteSource {
public:
    explicit MemoryByteSource(std::string_view text)
        : m_text(text)
    {
    }
    engine::Result<std::size_t> read(char* out, std::size_t capacity) override;

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
};

/// A file, inflated on the fly when it starts with the gzip magic bytes (concatenated members too).
class FileByteSource : public ByteSource {
public:
    static engine::Result<std::unique_ptr<FileByteSource>> open(const std::string& path);
    ~FileByteSource() override;
    engine::Result<std::size_t> read(char* out, std::size_t capacity) override;

private:
    FileByteSource() = default;
    struct Gzip;
    std::FILE* m_file = nullptr;
    std::string m_path;
    std::unique_ptr<Gzip> m_gzip; ///< null for plain files
};

} // namespace clusterscope::importers
