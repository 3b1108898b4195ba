#include "shm.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <random>
#include <unordered_map>

namespace dlnode {
namespace {

constexpr char kPrefix[] = "dlpack-";
constexpr size_t kTokenDigits = 32;
constexpr unsigned kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

// python/FORMAT.md "Names": a ticket's memfd is its name and this suffix, so
// a segment's place never opens as a ticket nor a ticket's as a segment.
constexpr char kTicketSuffix[] = ".ticket";

// A segment smaller than its descriptor says.
ShmResult TooSmall(const std::string& name, uint64_t holds, uint64_t needs) {
  return {ShmFailure::kInvalid, HoldsFewerBytes("Segment '" + name + "'", holds, needs)};
}

ShmFailure FailureOf(int error) {
  if (error == ENOENT || error == ESRCH) return ShmFailure::kGone;
  if (error == EACCES || error == EPERM) return ShmFailure::kDenied;
  if (error == ENOMEM || error == ENOSPC || error == EFBIG || error == EMFILE || error == ENFILE) {
    return ShmFailure::kNoMemory;
  }
  return ShmFailure::kSystem;
}

uint64_t PageRound(uint64_t n) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

std::string NewName() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  uint64_t bits[2];
  for (uint64_t& b : bits) b = (static_cast<uint64_t>(device()) << 32) ^ device();
  bits[1] ^= counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL;
  char name[64];
  std::snprintf(name, sizeof name, "%s%016llx%016llx", kPrefix,
                static_cast<unsigned long long>(bits[0]), static_cast<unsigned long long>(bits[1]));
  return name;
}

// A closed descriptor when it leaves scope, unless released.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// A new sealed memfd of `size` bytes, its pages reserved (posix_fallocate: a
// full tmpfs fails here, not with SIGBUS on first touch); -1 with `*result` set.
int NewMemfd(const std::string& name, uint64_t size, ShmResult* result) {
  // MFD_NOEXEC_SEAL (Linux 6.3): where vm.memfd_noexec = 2 a memfd without it
  // is refused; older kernels refuse the flag (EINVAL) and get none.
  constexpr unsigned kNoExecSeal = 0x0008U;
  int raw = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | kNoExecSeal);
  if (raw < 0 && errno == EINVAL) raw = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  Fd fd(raw);
  if (fd.get() < 0) {
    const int error = errno;
    *result = ShmFail(FailureOf(error), "Could not create a shared-memory segment", error);
    return -1;
  }
  int error = fchmod(fd.get(), 0600) == 0 ? 0 : errno;
  if (error == 0 && ftruncate(fd.get(), static_cast<off_t>(size)) != 0) error = errno;
  if (error == 0) error = posix_fallocate(fd.get(), 0, static_cast<off_t>(size));
  if (error == 0 && fcntl(fd.get(), F_ADD_SEALS, kSeals) != 0) error = errno;
  if (error != 0) {
    *result = ShmFail(FailureOf(error), "Could not size and seal the shared-memory segment", error);
    return -1;
  }
  return fd.release();
}

std::string ProcFd(int64_t pid, int64_t fd) {
  return "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
}

// What /proc/<pid>/fd/<n> reads for the memfd of segment or ticket `name`.
std::string LinkOf(const std::string& name, PlaceKind kind) {
  return "/memfd:" + name + (kind == PlaceKind::kTicket ? kTicketSuffix : "") + " (deleted)";
}

bool LinkIs(const std::string& path, const std::string& expected) {
  char buffer[512];
  errno = 0;
  const ssize_t n = readlink(path.c_str(), buffer, sizeof buffer);
  return n >= 0 && static_cast<size_t>(n) == expected.size() &&
         std::memcmp(buffer, expected.data(), n) == 0;
}

// This process's segments by name: threads and repeated opens of one segment
// share one hold (one descriptor, one mapping). The mutex guards only the
// table: nothing waits for another process under it. Process-wide on
// purpose; never destroyed (deleters may run at exit).
struct Holds {
  std::mutex mutex;
  std::unordered_map<std::string, ShmSegment*> by_name;
  pid_t pid = getpid();
};

Holds& holds() {
  static Holds* h = new Holds();
  return *h;
}

// Callers hold the mutex. A fork()ed child starts afresh.
std::unordered_map<std::string, ShmSegment*>& held() {
  Holds& h = holds();
  if (h.pid != getpid()) {
    h.by_name.clear();
    h.pid = getpid();
  }
  return h.by_name;
}

// The held segment `name` (a new reference), or empty; callers hold the mutex.
// A segment smaller than `min_data_size` sets `result` and is still returned:
// the caller drops it after unlocking, since dropping the last reference
// (another thread may have released its own meanwhile) runs Destroy(), which
// takes the mutex.
Ref<ShmSegment> Reuse(const std::string& name, uint64_t min_data_size, ShmResult* result) {
  auto it = held().find(name);
  if (it == held().end() || !it->second->TryRetain()) return {};
  auto segment = Ref<ShmSegment>::adopt(it->second);
  if (segment->length() < min_data_size) {
    *result = TooSmall(name, segment->length(), min_data_size);
  }
  return segment;
}

}  // namespace

ShmResult ShmFail(ShmFailure failure, const std::string& what, int error) {
  std::string message = what;
  if (error != 0) message += ": " + std::string(std::strerror(error));
  return {failure, message};
}

std::string HoldsFewerBytes(const std::string& what, uint64_t holds, uint64_t needs) {
  return what + " holds " + std::to_string(holds) + " bytes, fewer than the " +
         std::to_string(needs) + " the descriptor needs";
}

int CreateMemfd(PlaceKind kind, uint64_t size, std::string* name, ShmResult* result) {
  *name = NewName();
  return NewMemfd(kind == PlaceKind::kTicket ? *name + kTicketSuffix : *name, size, result);
}

// python/FORMAT.md "Opening": reopens the segment (or ticket) `place` names. The place
// is first opened O_PATH, which has no side effect whatever it names (a FIFO
// does not wait for a writer, a tty does not become the controlling one),
// and every check reads that descriptor: the link's name (the random token),
// a regular file of `owner` (this user: every caller passes geteuid(); tests
// pass another uid, since only root can make a file another user owns). Only that checked file is
// then reopened for reading and writing, through this process's own /proc/self/fd entry, so a place
// flipped to another file meanwhile never reaches the open; then the seals and the size (at least
// `min_size` bytes).
int OpenShmPlace(const ShmPlace& place, PlaceKind kind, uint64_t min_size, uid_t owner,
                 uint64_t* size, ShmResult* result) {
  const std::string& name = place.name;
  if (!ValidShmName(name)) {
    *result = ShmFail(ShmFailure::kMalformed,
                      "Expected a segment name 'dlpack-' + 32 lowercase hex digits");
    return -1;
  }
  if (place.pid <= 0 || place.pid > INT32_MAX || place.fd < 0 || place.fd > INT32_MAX) {
    *result = ShmFail(ShmFailure::kMalformed, "Expected a process id and a descriptor number");
    return -1;
  }
  const std::string path = ProcFd(place.pid, place.fd);
  const bool ticket = kind == PlaceKind::kTicket;
  const std::string where = (ticket ? "Ticket '" : "Segment '") + name + "' (process " +
                            std::to_string(place.pid) + ", descriptor " + std::to_string(place.fd) +
                            ")";
  const std::string link = LinkOf(name, kind);
  // A cheap first look; the decisive checks read the opened descriptor below.
  if (!LinkIs(path, link)) {
    const int error = errno;
    if (LinkIs(path, LinkOf(name, ticket ? PlaceKind::kSegment : PlaceKind::kTicket))) {
      *result = ShmFail(ShmFailure::kInvalid, where + (ticket ? " is a data segment, not a ticket"
                                                              : " is a CUDA-IPC ticket, not a data "
                                                                "segment"));
    } else if (error == EACCES || error == EPERM) {
      *result = ShmFail(ShmFailure::kDenied,
                        where + " cannot be inspected (another user's process?)", error);
    } else {
      *result = ShmFail(ShmFailure::kGone,
                        where + " is no longer open there (released, or its process ended)");
    }
    return -1;
  }
  Fd handle(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (handle.get() < 0) {
    const int error = errno;
    *result = ShmFail(FailureOf(error), where + " could not be opened", error);
    return -1;
  }
  struct stat checked;
  if (fstat(handle.get(), &checked) != 0) {
    const int error = errno;
    *result = ShmFail(FailureOf(error), where + " could not be read", error);
    return -1;
  }
  if (!LinkIs(ProcFd(getpid(), handle.get()), link)) {
    *result = ShmFail(ShmFailure::kGone, where + " changed while it was opened");
    return -1;
  }
  if (!S_ISREG(checked.st_mode) || checked.st_uid != owner) {
    *result = ShmFail(ShmFailure::kDenied, where + " is not a segment of this user");
    return -1;
  }
  Fd fd(open(ProcFd(getpid(), handle.get()).c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    const int error = errno;
    *result = ShmFail(FailureOf(error), where + " could not be opened", error);
    return -1;
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || st.st_dev != checked.st_dev || st.st_ino != checked.st_ino) {
    *result = ShmFail(ShmFailure::kGone, where + " changed while it was opened");
    return -1;
  }
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || (static_cast<unsigned>(seals) & kSeals) != kSeals) {
    *result = ShmFail(ShmFailure::kInvalid, where + " is not sealed against shrinking and growing");
    return -1;
  }
  if (static_cast<uint64_t>(st.st_size) < min_size) {
    *result = TooSmall(name, static_cast<uint64_t>(st.st_size), min_size);
    return -1;
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd.release();
}

bool ValidShmName(const std::string& name) {
  if (name.size() != sizeof kPrefix - 1 + kTokenDigits ||
      name.compare(0, sizeof kPrefix - 1, kPrefix) != 0) {
    return false;
  }
  for (size_t i = sizeof kPrefix - 1; i < name.size(); ++i) {
    const char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

ShmSegment::ShmSegment(std::string name, int fd, void* map, uint64_t map_size, uint64_t data_size)
    : NativeMemory(map, data_size),
      name_(std::move(name)),
      fd_(fd),
      map_(map),
      map_size_(map_size) {}

Ref<ShmSegment> ShmSegment::Create(uint64_t data_size, ShmResult* result) {
  // One page at least: mmap refuses an empty mapping.
  const uint64_t map_size = PageRound(data_size == 0 ? 1 : data_size);
  const std::string name = NewName();
  const int fd = NewMemfd(name, map_size, result);
  if (fd < 0) return {};
  void* map = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    close(fd);
    *result = ShmFail(FailureOf(error), "Could not map the shared-memory segment", error);
    return {};
  }
  auto* segment = new ShmSegment(name, fd, map, map_size, data_size);
  std::lock_guard<std::mutex> guard(holds().mutex);
  held()[name] = segment;
  return Ref<ShmSegment>::adopt(segment);
}

Ref<ShmSegment> ShmSegment::Open(const ShmPlace& place, uint64_t min_data_size, ShmResult* result) {
  Ref<ShmSegment> existing;
  {
    std::lock_guard<std::mutex> guard(holds().mutex);
    existing = Reuse(place.name, min_data_size, result);
  }
  if (!result->ok()) return {};  // `existing` is dropped here, unlocked
  if (existing) return existing;
  uint64_t size = 0;
  const int fd = OpenShmPlace(place, PlaceKind::kSegment, min_data_size, geteuid(), &size, result);
  if (fd < 0) return {};
  void* map =
      size == 0 ? MAP_FAILED : mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    const int error = size == 0 ? EINVAL : errno;
    close(fd);
    *result = ShmFail(FailureOf(error), "Could not map segment '" + place.name + "'", error);
    return {};
  }
  // The data is the whole file: its size was sealed before it was shared.
  auto* opened = new ShmSegment(place.name, fd, map, size, size);
  {
    std::lock_guard<std::mutex> guard(holds().mutex);
    // Another thread may have opened it meanwhile: one hold per process.
    existing = Reuse(place.name, min_data_size, result);
    if (!existing && result->ok()) {
      held()[place.name] = opened;
      return Ref<ShmSegment>::adopt(opened);
    }
  }
  munmap(map, size);
  close(fd);
  delete opened;
  if (!result->ok()) return {};  // `existing` is dropped here, unlocked
  return existing;
}

void ShmSegment::Destroy() noexcept {
  {
    std::lock_guard<std::mutex> guard(holds().mutex);
    auto& by_name = held();
    auto it = by_name.find(name_);
    if (it != by_name.end() && it->second == this) by_name.erase(it);
  }
  munmap(map_, map_size_);
  close(fd_);
  delete this;
}

}  // namespace dlnode
