#include "stats.h"

namespace dlnode {
namespace stats {

std::atomic<int64_t> managed_live{0};
std::atomic<int64_t> foreign_live{0};
std::atomic<int64_t> js_keepalive_live{0};
std::atomic<int64_t> managed_made{0};
std::atomic<int64_t> managed_freed{0};
std::atomic<int64_t> foreign_made{0};
std::atomic<int64_t> foreign_freed{0};
std::atomic<int64_t> host_blocks_live{0};
std::atomic<int64_t> host_blocks_made{0};
std::atomic<int64_t> host_blocks_freed{0};
std::atomic<int64_t> huge_page_requests{0};
std::atomic<int64_t> cuda_streams_live{0};

}  // namespace stats
}  // namespace dlnode
