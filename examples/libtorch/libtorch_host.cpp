// libtorch_host.cpp -- a C++ host that hands PyTorch tensors to a Lua script and takes the
// results back, through DLPack and without copying:
//
//   torch tensor --at::toDLPack--> dlx_push_capsule_legacy --> script.lua
//   script.lua's result --dlx_to_dlpack_legacy--> at::fromDLPack --> torch tensor
//
// PyTorch 1.13 (Debian's libtorch-dev) speaks only legacy DLPack (DLManagedTensor), hence the
// _legacy calls. It checks the values, that both directions share memory, and that every
// deleter ran once.
//
//   dlx_libtorch script.lua
//
// dlx.h comes first: ATen/dlpack.h is DLPack 0.6 and has the same include guard, so dlx's 1.3
// header (whose DLManagedTensor has the same layout) serves both. lua.hpp gives Lua C linkage.
#include <lua.hpp>

#include <dlx.h>

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char *what, int line) {
  if (!ok) {
    std::fprintf(stderr, "libtorch_host.cpp:%d: expected %s\n", line, what);
    failures++;
  }
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

int traceback(lua_State *L) {
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

// PyTorch 1.13's at::fromDLPack ignores byte_offset (fixed in later PyTorch), while dlx exports
// a view as its buffer plus byte_offset. For CPU memory the offset can be folded into the data
// pointer; dlx's deleter reads only manager_ctx, so changing data is safe.
void fold_byte_offset(DLManagedTensor *mt) {
  if (mt->dl_tensor.device.device_type != kDLCPU) return;
  mt->dl_tensor.data = static_cast<char *>(mt->dl_tensor.data) + mt->dl_tensor.byte_offset;
  mt->dl_tensor.byte_offset = 0;
}

// The tensor at the top of the stack, through DLPack, popped; an undefined tensor on error.
at::Tensor take_result(lua_State *L) {
  DLManagedTensor *out = nullptr;
  if (dlx_to_dlpack_legacy(L, -1, &out) != 0) {
    std::fprintf(stderr, "dlx_to_dlpack_legacy: %s\n", lua_tostring(L, -1));
    lua_pop(L, 2);
    return at::Tensor();
  }
  lua_pop(L, 1);
  fold_byte_offset(out);
  return at::fromDLPack(out); // the at::Tensor calls dlx's deleter when its storage dies
}

// Pushes a torch tensor as a legacy capsule; ownership passes to dlx, even on error.
bool push_tensor(lua_State *L, const at::Tensor &t) {
  if (dlx_push_capsule_legacy(L, at::toDLPack(t)) == 0) return true;
  std::fprintf(stderr, "dlx_push_capsule_legacy: %s\n", lua_tostring(L, -1));
  return false;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s script.lua\n", argv[0]);
    return 2;
  }
  at::Tensor weights = at::arange(6, at::kFloat).view({2, 3}); // [[0, 1, 2], [3, 4, 5]]
  at::Tensor grid = at::arange(12, at::kLong).view({4, 3});
  at::Tensor column = grid.select(1, 1); // [1, 4, 7, 10], stride 3, storage offset 1
  // A DLPack export holds a reference to the tensor's storage until its deleter runs.
  const auto weights_refs = weights.storage().use_count();
  const auto grid_refs = grid.storage().use_count();

  lua_State *L = luaL_newstate();
  if (L == nullptr) return 1;
  luaL_openlibs(L);
  dlx_openlibs(L);
  lua_pushcfunction(L, traceback);
  if (luaL_loadfile(L, argv[1]) != LUA_OK || !push_tensor(L, weights) || !push_tensor(L, column) ||
      lua_pcall(L, 2, 3, 1) != LUA_OK) {
    std::fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  EXPECT(weights.storage().use_count() == weights_refs + 1); // held by dlx, zero-copy

  // The results, last first (they are at the top of the stack).
  at::Tensor transposed = take_result(L);
  at::Tensor every_other = take_result(L);
  at::Tensor sums = take_result(L);
  lua_close(L); // releases Lua's tensors; what the results still view stays alive
  // transposed views weights' storage and every_other grid's, through dlx: each torch result
  // holds a dlx buffer, which holds torch's export of the storage.
  EXPECT(weights.storage().use_count() == weights_refs + 1);
  EXPECT(grid.storage().use_count() == grid_refs + 1);

  // The script wrote row 1 of weights in torch's own storage.
  EXPECT(weights.select(0, 0).eq(-1).all().item<bool>());
  EXPECT(weights.select(0, 1).equal(at::arange(3, 6, at::kFloat)));
  EXPECT(sums.defined() && sums.equal(at::tensor(std::vector<float>{-3, 12})));
  // every_other is column[2:4:2] = [4, 10] of grid's storage (stride 6, byte offset 4 * 8).
  EXPECT(every_other.defined() && every_other.equal(at::tensor(std::vector<int64_t>{4, 10})));
  EXPECT(every_other.defined() && every_other.stride(0) == 6);
  EXPECT(every_other.defined() && every_other.data_ptr<int64_t>() == grid.data_ptr<int64_t>() + 4);
  // transposed is weights' storage seen through dlx's view, after lua_close.
  EXPECT(transposed.defined() && transposed.sizes() == at::IntArrayRef({3, 2}));
  EXPECT(transposed.defined() && transposed.data_ptr() == weights.data_ptr());
  if (transposed.defined()) {
    transposed.fill_(7); // and torch writes into it: weights sees the write
    EXPECT(weights.eq(7).all().item<bool>());
  }
  // Dropping torch's results calls dlx's deleters (no lua_State needed), which release dlx's
  // buffers, which call torch's deleters: every export is released, once.
  transposed = at::Tensor();
  every_other = at::Tensor();
  sums = at::Tensor();
  EXPECT(weights.storage().use_count() == weights_refs);
  EXPECT(grid.storage().use_count() == grid_refs);

  if (failures == 0) std::printf("libtorch: ok (zero-copy both ways, every deleter ran)\n");
  return failures == 0 ? 0 : 1;
}
