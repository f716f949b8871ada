#include "engine/core/atomicfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace clusterscope::engine {

namespace {
    std::string errnoText() { return std::strerror(errno); }
}

Status writeFileAtomically(const std::string& path, std::string_view contents)
{
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return Status::error(path + ": cannot create a temporary file beside it (" + errnoText() + ")");
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const std::string why = errnoText();
            ::close(fd);
            ::unlink(temporary.c_str());
            return Status::error(path + ": write failed (" + why + ")");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = errnoText();
        ::unlink(temporary.c_str());
        return Status::error(path + ": flushing to disk failed (" + why + ")");
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string why = errnoText();
        ::unlink(temporary.c_str());
        return Status::error(path + ": cannot replace the file (" + why + ")");
    }
    return Status::success();
}

Result<std::string> readWholeFile(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return Status::error(path + ": cannot open the file for reading (" + errnoText() + ")");
    std::string data;
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
        data.append(buffer, n);
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed)
        return Status::error(path + ": read error");
    return data;
}

} // namespace clusterscope::engine
