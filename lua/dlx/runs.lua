--- dlx.runs: t:unique_consecutive (the runs of equal elements or slices) and t:argwhere (the
--- positions of the nonzero elements), built from comparisons, sums, nonzero and index_select, so
--- they run on every device without kernels of their own (docs/lua-api.md).
local check = require "dlx.check"
local raise = require "dlx.raise"

local M = {}

function M.install(dlx, core)
  local Tensor = core.Tensor

  local function check_tensor(name, v) check.tensor(name, v, "t") end
  local check_dim = check.dim

  local function flag(opts, key)
    local v = opts[key]
    if v ~= nil and type(v) ~= "boolean" then
      raise("TypeError", "unique_consecutive: %s must be a boolean, not a %s", key, type(v))
    end
    return v == true
  end

  -- PyTorch refuses a zero-size tensor whose empty dim is not the one walked (or that has two).
  local function check_empty(t, dim)
    local zeros, other = 0, false
    for d = 1, t.ndim do
      if t.shape[d] == 0 then zeros, other = zeros + 1, other or d ~= dim end
    end
    if zeros > 1 or other then
      raise("ValueError", "unique_consecutive: a tensor of shape {%s} has empty dims other "
        .. "than dim %d: its slices cannot be told apart", table.concat(t.shape, ", "), dim)
    end
  end

  -- bool {L}: true where a run starts along dim 1 of m (slices compared whole: a run goes on
  -- while every element equals the one before it, so NaN starts a run of its own).
  local function run_starts(m)
    local L = m.shape[1]
    local opts = { dtype = "bool", device = m.device }
    if L <= 1 then return dlx.ones({ L }, opts) end
    local differ = m:narrow(1, 2, L - 1):ne(m:narrow(1, 1, L - 1))
    if m.ndim > 1 then
      local rest = {}
      for d = 2, m.ndim do rest[#rest + 1] = d end
      differ = differ:any(rest)
    end
    return dlx.cat({ dlx.ones({ 1 }, opts), differ })
  end

  -- The lengths of the runs that start at the 1-based positions `starts` of a dim of size L.
  local function run_lengths(starts, L)
    local g = starts.shape[1]
    if g == 0 then return starts:clone() end
    local last = dlx.full({ 1 }, L + 1, { dtype = "int64", device = starts.device })
    return dlx.cat({ starts:narrow(1, 2, g - 1), last }) - starts
  end

  --- t:unique_consecutive([opts]): the first element of each run of equal consecutive elements
  --- of t flattened (opts.dim: of each run of equal consecutive slices along dim), then the
  --- 1-based run of each element (return_inverse) and the length of each run (return_counts),
  --- as torch.unique_consecutive.
  function Tensor.unique_consecutive(t, opts)
    check_tensor("unique_consecutive", t)
    if opts == nil then opts = {} end
    if type(opts) ~= "table" then
      raise("TypeError", "unique_consecutive: opts must be a table or nil, got %s", type(opts))
    end
    local want_inverse, want_counts = flag(opts, "return_inverse"), flag(opts, "return_counts")
    local dim, m = opts.dim
    if dim == nil then
      m = t:reshape({ t.numel })
    else
      dim = check_dim("unique_consecutive", dim, t.ndim)
      if t.numel == 0 then check_empty(t, dim) end
      m = t:movedim(dim, 1)
    end
    local starts = run_starts(m)
    local at = starts:nonzero():view({ -1 })
    local values = m:index_select(1, at)
    if dim ~= nil then values = values:movedim(1, dim):contiguous() end
    local out = { values }
    if want_inverse then
      local inverse = starts:cumsum(1)
      out[#out + 1] = dim == nil and inverse:reshape(t.shape) or inverse
    end
    if want_counts then out[#out + 1] = run_lengths(at, m.shape[1]) end
    return table.unpack(out)
  end

  --- t:argwhere(): the 1-based positions of the nonzero elements, {n, t.ndim} int64, as
  --- numpy.argwhere (a 0-d tensor gives {1, 0} or {0, 0}).
  function Tensor.argwhere(t)
    check_tensor("argwhere", t)
    if t.ndim > 0 then return t:nonzero() end
    local n = t:reshape({ 1 }):nonzero().shape[1]
    return dlx.zeros({ n, 0 }, { dtype = "int64", device = t.device })
  end

  dlx.unique_consecutive = Tensor.unique_consecutive
  dlx.argwhere = Tensor.argwhere
end

return M
