#include "shm.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
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

constexpr char kMagic[8] = {'D', 'L', 'P', 'K', 'S', 'H', 'M', 1};
constexpr char kPrefix[] = "dlpack-";

struct Header {
  char magic[8];
  uint32_t header_size;
  uint32_t slot_count;
  uint64_t data_size;
  uint64_t reserved;
  int32_t pids[kShmSlots];
};
static_assert(offsetof(Header, pids) == 32, "python/FORMAT.md: slots start at byte 32");
static_assert(sizeof(Header) <= kShmHeaderSize, "header fits its page");

ShmResult Fail(ShmFailure failure, const std::string& what, int error = 0) {
  std::string message = what;
  if (error != 0) message += ": " + std::string(std::strerror(error));
  return {failure, message};
}

ShmFailure FailureOf(int error) {
  if (error == ENOENT) return ShmFailure::kGone;
  if (error == ENOMEM || error == ENOSPC || error == EFBIG) return ShmFailure::kNoMemory;
  return ShmFailure::kSystem;
}

uint64_t PageRound(uint64_t n) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// Holds flock(LOCK_EX) for a scope.
class FileLock {
 public:
  explicit FileLock(int fd) : fd_(fd) {
    while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { flock(fd_, LOCK_UN); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

bool Alive(int32_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

// Clears the slots of dead processes; returns how many slots stay in use.
int Prune(Header* h) {
  int used = 0;
  for (uint32_t i = 0; i < kShmSlots; ++i) {
    if (h->pids[i] == 0) continue;
    if (Alive(h->pids[i])) {
      ++used;
    } else {
      h->pids[i] = 0;
    }
  }
  return used;
}

// Slots held by live processes other than this one.
int Others(const Header* h) {
  const auto self = static_cast<int32_t>(getpid());
  int others = 0;
  for (uint32_t i = 0; i < kShmSlots; ++i) {
    if (h->pids[i] != 0 && h->pids[i] != self) ++others;
  }
  return others;
}

bool TakeSlot(Header* h) {
  for (uint32_t i = 0; i < kShmSlots; ++i) {
    if (h->pids[i] == 0) {
      h->pids[i] = static_cast<int32_t>(getpid());
      return true;
    }
  }
  return false;
}

void DropSlot(Header* h) {
  const auto self = static_cast<int32_t>(getpid());
  for (uint32_t i = 0; i < kShmSlots; ++i) {
    if (h->pids[i] == self) {
      h->pids[i] = 0;
      return;
    }
  }
}

bool ValidHeader(const Header* h, uint64_t file_size) {
  return std::memcmp(h->magic, kMagic, sizeof kMagic) == 0 && h->header_size == kShmHeaderSize &&
         h->slot_count == kShmSlots && h->data_size <= file_size - kShmHeaderSize;
}

// The name still names the object behind `fd` (not unlinked and recreated).
bool StillNamed(int fd, const std::string& name) {
  struct stat by_fd;
  struct stat by_name;
  const std::string path = "/dev/shm/" + name;
  return fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_name) == 0 &&
         by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino;
}

std::string NewName() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  const uint64_t bits = (static_cast<uint64_t>(device()) << 32) ^ device() ^
                        (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL);
  char name[64];
  std::snprintf(name, sizeof name, "%s%d-%016llx", kPrefix, static_cast<int>(getpid()),
                static_cast<unsigned long long>(bits));
  return name;
}

// This process's attachments by name: threads and repeated opens of one
// segment share one attachment (one slot, one mapping). Process-wide on
// purpose, like the slots themselves; never destroyed (deleters may run at exit).
struct Attachments {
  std::mutex mutex;
  std::unordered_map<std::string, ShmSegment*> by_name;
  pid_t pid = getpid();
};

// Callers hold the mutex. A fork()ed child inherits the parent's entries but
// not its slots: it starts afresh.
Attachments& attachments() {
  static Attachments* a = new Attachments();
  return *a;
}

std::unordered_map<std::string, ShmSegment*>& attached() {
  Attachments& a = attachments();
  if (a.pid != getpid()) {
    a.by_name.clear();
    a.pid = getpid();
  }
  return a.by_name;
}

// Removes `segment` from this process's attachments, if it is still listed.
// Callers hold the mutex.
void Unlist(const ShmSegment* segment) {
  auto& by_name = attached();
  auto it = by_name.find(segment->name());
  if (it != by_name.end() && it->second == segment) by_name.erase(it);
}

}  // namespace

ShmSegment::ShmSegment(std::string name, void* map, uint64_t map_size, uint64_t data_size)
    : HostMemory(static_cast<char*>(map) + kShmHeaderSize, data_size),
      name_(std::move(name)),
      map_(map),
      map_size_(map_size) {}

ShmSegment* ShmSegment::Create(uint64_t data_size, ShmResult* result) {
  const uint64_t map_size = PageRound(kShmHeaderSize + data_size);
  std::string name;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    name = NewName();
    fd = shm_open(("/" + name).c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const int error = errno;
    *result = Fail(FailureOf(error), "Could not create a shared-memory segment", error);
    return nullptr;
  }
  // posix_fallocate reserves the pages now: on a small /dev/shm a later
  // first touch would otherwise kill the process with SIGBUS.
  int reserve = ftruncate(fd, static_cast<off_t>(map_size)) == 0 ? 0 : errno;
  if (reserve == 0) reserve = posix_fallocate(fd, 0, static_cast<off_t>(map_size));
  if (reserve != 0) {
    const int error = reserve;
    shm_unlink(("/" + name).c_str());
    close(fd);
    *result = Fail(FailureOf(error), "Could not size the shared-memory segment", error);
    return nullptr;
  }
  void* map = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    shm_unlink(("/" + name).c_str());
    close(fd);
    *result = Fail(FailureOf(error), "Could not map the shared-memory segment", error);
    return nullptr;
  }
  auto* h = static_cast<Header*>(map);
  {
    FileLock lock(fd);
    std::memcpy(h->magic, kMagic, sizeof kMagic);
    h->header_size = kShmHeaderSize;
    h->slot_count = kShmSlots;
    h->data_size = data_size;
    TakeSlot(h);  // a fresh header has every slot free
  }
  close(fd);  // the slot keeps the name linked; detach reopens it
  auto* segment = new ShmSegment(name, map, map_size, data_size);
  std::lock_guard<std::mutex> guard(attachments().mutex);
  attached()[name] = segment;
  return segment;
}

ShmSegment* ShmSegment::Open(const std::string& name, uint64_t min_data_size, ShmResult* result) {
  if (name.compare(0, sizeof kPrefix - 1, kPrefix) != 0 || name.find('/') != std::string::npos ||
      name.size() > 200) {
    *result = Fail(ShmFailure::kInvalid, "Expected a segment name starting with 'dlpack-', received '" +
                                             name + "'");
    return nullptr;
  }
  // Held across the attach so that two threads opening one segment share it.
  std::lock_guard<std::mutex> guard(attachments().mutex);
  auto existing = attached().find(name);
  if (existing != attached().end() && existing->second->TryRetain()) {
    if (existing->second->length() < min_data_size) {
      existing->second->Release();
      *result = Fail(ShmFailure::kInvalid, "Segment '" + name + "' holds " +
                                               std::to_string(existing->second->length()) +
                                               " bytes, fewer than the " + std::to_string(min_data_size) +
                                               " the descriptor needs");
      return nullptr;
    }
    return existing->second;
  }
  const int fd = shm_open(("/" + name).c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    const int error = errno;
    *result = Fail(FailureOf(error), "Could not open shared-memory segment '" + name + "'", error);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kShmHeaderSize) {
    close(fd);
    *result = Fail(ShmFailure::kInvalid, "Segment '" + name + "' is not a dlpack segment");
    return nullptr;
  }
  const auto map_size = static_cast<uint64_t>(st.st_size);
  void* map = mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    close(fd);
    *result = Fail(FailureOf(error), "Could not map segment '" + name + "'", error);
    return nullptr;
  }
  auto* h = static_cast<Header*>(map);
  ShmResult failure;
  {
    FileLock lock(fd);
    if (!ValidHeader(h, map_size)) {
      failure = Fail(ShmFailure::kInvalid, "Segment '" + name + "' has no dlpack header");
    } else if (h->data_size < min_data_size) {
      failure = Fail(ShmFailure::kInvalid, "Segment '" + name + "' holds " +
                                               std::to_string(h->data_size) + " bytes, fewer than the " +
                                               std::to_string(min_data_size) + " the descriptor needs");
    } else if (!StillNamed(fd, name)) {
      failure = Fail(ShmFailure::kGone, "Segment '" + name + "' was released by every process");
    } else {
      Prune(h);
      if (!TakeSlot(h)) {
        failure = Fail(ShmFailure::kSystem, "Segment '" + name + "' has no free attachment slot (128 in use)");
      }
    }
  }
  if (!failure.ok()) {
    munmap(map, map_size);
    close(fd);
    *result = failure;
    return nullptr;
  }
  close(fd);  // the slot keeps the name linked; detach reopens it
  auto* segment = new ShmSegment(name, map, map_size, h->data_size);
  attached()[name] = segment;
  return segment;
}

void ShmSegment::Destroy() noexcept {
  {
    std::lock_guard<std::mutex> guard(attachments().mutex);
    Unlist(this);
  }
  // An attachment holds no descriptor (a process may hold thousands of
  // attachments); this one's slot kept the name linked, so it reopens.
  const int fd = shm_open(("/" + name_).c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd >= 0) {
    auto* h = static_cast<Header*>(map_);
    FileLock lock(fd);
    DropSlot(h);
    // Unlink under the lock: an attach in progress either took its slot
    // first, or sees the name gone (StillNamed) and fails cleanly.
    if (Prune(h) == 0 && StillNamed(fd, name_)) shm_unlink(("/" + name_).c_str());
  }
  if (fd >= 0) close(fd);
  munmap(map_, map_size_);
  delete this;
}

bool ShmSegment::RetireIfAlone() {
  std::lock_guard<std::mutex> guard(attachments().mutex);
  const int fd = shm_open(("/" + name_).c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno != ENOENT) return false;  // cannot tell now; the caller asks again later
    Unlist(this);                       // unlinked already: nobody else can attach
    return true;
  }
  bool alone = false;
  {
    auto* h = static_cast<Header*>(map_);
    FileLock lock(fd);
    Prune(h);
    alone = Others(h) == 0;
    if (alone) {
      Unlist(this);  // this process stops reusing it too
      DropSlot(h);
      if (StillNamed(fd, name_)) shm_unlink(("/" + name_).c_str());
    }
  }
  close(fd);
  return alone;
}

int SweepShmSegments() {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  int removed = 0;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.compare(0, sizeof kPrefix - 1, kPrefix) != 0) continue;
    const int fd = shm_open(("/" + name).c_str(), O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) continue;
    struct stat st;
    if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= kShmHeaderSize &&
        flock(fd, LOCK_EX | LOCK_NB) == 0) {
      void* map = mmap(nullptr, kShmHeaderSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        auto* h = static_cast<Header*>(map);
        if (ValidHeader(h, static_cast<uint64_t>(st.st_size)) && Prune(h) == 0 && StillNamed(fd, name)) {
          shm_unlink(("/" + name).c_str());
          ++removed;
        }
        munmap(map, kShmHeaderSize);
      }
      flock(fd, LOCK_UN);
    }
    close(fd);
  }
  closedir(dir);
  return removed;
}

}  // namespace dlnode
