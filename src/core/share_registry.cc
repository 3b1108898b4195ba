#include "share_registry.h"

#include <mutex>
#include <unordered_map>

namespace dlnode {
namespace share_registry {
namespace {

struct Registry {
  std::mutex mutex;
  struct Entry {
    HostMemory* memory;
    std::string device;
  };
  std::unordered_map<uint64_t, Entry> entries;
  uint64_t next_id = 1;
};

Registry& Instance() {
  static Registry* registry = new Registry();  // never destroyed: deleters may run at exit
  return *registry;
}

}  // namespace

uint64_t Add(HostMemory* memory, const std::string& device) {
  Registry& r = Instance();
  memory->Retain();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint64_t id = r.next_id++;
  r.entries.emplace(id, Registry::Entry{memory, device});
  return id;
}

HostMemory* Acquire(uint64_t id, std::string* device) {
  Registry& r = Instance();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(id);
  if (it == r.entries.end()) return nullptr;
  it->second.memory->Retain();
  *device = it->second.device;
  return it->second.memory;
}

void Remove(uint64_t id) {
  Registry& r = Instance();
  HostMemory* memory = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find(id);
    if (it == r.entries.end()) return;
    memory = it->second.memory;
    r.entries.erase(it);
  }
  memory->Release();  // outside the lock: it may run a producer's deleter
}

int64_t Size() {
  Registry& r = Instance();
  std::lock_guard<std::mutex> lock(r.mutex);
  return static_cast<int64_t>(r.entries.size());
}

}  // namespace share_registry
}  // namespace dlnode
