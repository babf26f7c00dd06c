// Crash-safe file replacement with POSIX calls (write, fsync, rename).
#include "runtime/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "runtime/io/write_faults.h"
#include "runtime/support/machine_memory.h"

namespace plastic::rt {

namespace {

/// Closes a descriptor on scope exit unless released.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    const int f = fd;
    fd = -1;
    return f;
  }
};

/// write(2) until everything is written, retrying on EINTR and short writes.
bool write_all(int fd, const std::byte* data, size_t size, const std::filesystem::path& path) {
  if (inject_write_failure(path.native())) return false;
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::filesystem::path parent_or_dot(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

} // namespace

bool is_temporary_name(std::string_view name) {
  return name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string_view::npos;
}

Status<TrainError> sync_directory(const std::filesystem::path& dir) {
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) return io_error(dir.string(), errno_message("cannot open directory", errno));
  if (::fsync(d.fd) != 0 && errno != EINVAL) // some file systems cannot sync directories
    return io_error(dir.string(), errno_message("fsync of directory failed", errno));
  return {};
}

namespace {

/// Writes `pieces` into what `path` already is when that is not a regular
/// file: a device (/dev/stdout, /dev/full), a FIFO a reader is waiting on.
/// Renaming a temporary over it would replace the device or FIFO by a
/// regular file and report success (issue 19); writing into it reports what
/// the device says (ENOSPC for /dev/full). Nothing to make atomic or durable.
Status<TrainError> write_into_special_file(const std::filesystem::path& path,
                                           std::span<const std::span<const std::byte>> pieces) {
  Fd f{::open(path.c_str(), O_WRONLY | O_CLOEXEC)};
  if (f.fd < 0) return io_error(path.string(), errno_message("cannot open for writing", errno));
  for (std::span<const std::byte> piece : pieces)
    if (!write_all(f.fd, piece.data(), piece.size(), path))
      return io_error(path.string(), errno_message("write failed", errno));
  if (::close(f.release()) != 0)
    return io_error(path.string(), errno_message("close failed", errno));
  return {};
}

/// The file a chain of symbolic links starting at `path` ends in (which
/// need not exist yet), or an error for a loop or an unreadable link.
Result<std::filesystem::path, TrainError> follow_links(std::filesystem::path path) {
  for (int hops = 0; hops < 40; ++hops) { // the kernel's own limit (ELOOP)
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) return io_error(path.string(), "cannot follow the link: " + ec.message());
    path = target.is_absolute() ? target : parent_or_dot(path) / target;
  }
  return io_error(path.string(), "too many levels of symbolic links");
}

} // namespace

Status<TrainError> write_file_atomic(const std::filesystem::path& given,
                                     std::span<const std::span<const std::byte>> pieces) {
  // What is at the path decides how it is replaced: a link is followed (its
  // target is replaced, as `>` in a shell would), a device or FIFO is written
  // into, a folder is an error; a regular file or nothing is replaced whole.
  Result<std::filesystem::path, TrainError> followed = follow_links(given);
  if (!followed) return followed.error();
  const std::filesystem::path& path = followed.value();
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return io_error(path.string(), "it is a folder, not a file");
    if (!S_ISREG(st.st_mode)) return write_into_special_file(path, pieces);
  }
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path dir = parent_or_dot(path);
  const std::filesystem::path tmp = dir / fmt::format(".{}.tmp.{}.{}", path.filename().string(),
                                                      ::getpid(), counter.fetch_add(1));
  Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
  if (f.fd < 0)
    return io_error(path.string(),
                    errno_message("cannot create a temporary file next to it", errno));
  auto fail = [&](const char* what) {
    const int e = errno;
    ::close(f.release());
    ::unlink(tmp.c_str());
    return Status<TrainError>(
        io_error(path.string(), errno_message(what, e), "check free space and permissions"));
  };
  for (std::span<const std::byte> piece : pieces)
    if (!write_all(f.fd, piece.data(), piece.size(), path)) return fail("write failed");
  // The data must be on disk before the rename makes it visible under the real name.
  if (::fsync(f.fd) != 0) return fail("fsync failed");
  if (::close(f.release()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return io_error(path.string(), errno_message("close failed", e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return io_error(path.string(), errno_message("rename into place failed", e));
  }
  return sync_directory(dir);
}

Status<TrainError> write_file_atomic(const std::filesystem::path& path, std::string_view text) {
  const std::span<const std::byte> piece(reinterpret_cast<const std::byte*>(text.data()),
                                         text.size());
  return write_file_atomic(path, std::span<const std::span<const std::byte>>(&piece, 1));
}

Result<std::vector<std::byte>, TrainError> read_file(const std::filesystem::path& path,
                                                     uint64_t max_bytes) {
  // Not blocking on open: a FIFO in place of a checkpoint would wait forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    const int e = errno;
    TrainError err = io_error(path.string(), errno_message("cannot open", e));
    if (e == ENOENT) err.kind = TrainErrorKind::NotFound;
    return err;
  }
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) return io_error(path.string(), errno_message("cannot stat", errno));
  if (!S_ISREG(st.st_mode)) return io_error(path.string(), "not a regular file");
  ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (max_bytes == 0 && size > largest_readable_file())
    return format_error(path.string(),
                        fmt::format("the file has {:.1f} GB, more than this machine's memory "
                                    "allows reading at once ({:.1f} GB)",
                                    static_cast<double>(size) / 1e9,
                                    static_cast<double>(largest_readable_file()) / 1e9));
  if (max_bytes != 0 && size > max_bytes)
    return format_error(
        path.string(), fmt::format("file has {} bytes, more than the {} allowed", size, max_bytes));
  std::vector<std::byte> data(size);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::read(f.fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path.string(), errno_message("read failed", errno));
    }
    if (n == 0) break; // the file shrank while we read it
    done += static_cast<size_t>(n);
  }
  data.resize(done);
  return data;
}

Status<TrainError> remove_file(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return io_error(path.string(), errno_message("cannot remove", errno));
  return {};
}

} // namespace plastic::rt
