--- #gpu: var, std, logsumexp, norm, cumsum, cumprod, softmax and log_softmax on CUDA devices
--- against the CPU's results on the same data (the cases of spec/stats_device.lua): the CUB
--- block and warp reductions, the block scans and softmaxes of long rows, the thread-per-line
--- kernels, and the copies that make rows of lines across the memory.
local h = require "spec.helper"

describe("#gpu CUDA statistics and ops along a dim", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.stats_device" ("cuda:0", it)

  it("reduces and scans long tensors in pieces, and long lines across the memory", function()
    local dlx = h.dlx
    local x = dlx.arange(1 << 20, { dtype = "float32", device = "cpu" }):mul(1e-4):sin()
    local d = x:to("cuda:0")
    for _, op in ipairs{ "var", "std", "logsumexp" } do
      h.same_as_cpu("cuda:0", x[op](x), d[op](d))
    end
    h.same_as_cpu("cuda:0", x:norm(), d:norm())
    local cols = x:view{ 1 << 19, 2 } -- two long lines across the memory: copied into rows
    local dcols = d:view{ 1 << 19, 2 }
    h.same_as_cpu("cuda:0", cols:var(1), dcols:var(1))
    h.same_as_cpu("cuda:0", dlx.softmax(cols, 1), dlx.softmax(dcols, 1))
    h.same_as_cpu("cuda:0", cols:cumsum(1), dcols:cumsum(1))
  end)
end)
