#include "share_registry.h"

#include <mutex>
#include <unordered_map>
#include <utility>

namespace dlnode {
namespace share_registry {
namespace {

struct Registry {
  std::mutex mutex;
  struct Entry {
    Ref<NativeMemory> memory;
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

uint64_t Add(Ref<NativeMemory> memory, const std::string& device) {
  Registry& r = Instance();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint64_t id = r.next_id++;
  r.entries.emplace(id, Registry::Entry{std::move(memory), device});
  return id;
}

Ref<NativeMemory> Acquire(uint64_t id, std::string* device) {
  Registry& r = Instance();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(id);
  if (it == r.entries.end()) return {};
  *device = it->second.device;
  return it->second.memory.share();
}

void Remove(uint64_t id) {
  Registry& r = Instance();
  Ref<NativeMemory> memory;  // released outside the lock: it may run a producer's deleter
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find(id);
    if (it == r.entries.end()) return;
    memory = std::move(it->second.memory);
    r.entries.erase(it);
  }
}

int64_t Size() {
  Registry& r = Instance();
  std::lock_guard<std::mutex> lock(r.mutex);
  return static_cast<int64_t>(r.entries.size());
}

}  // namespace share_registry
}  // namespace dlnode
