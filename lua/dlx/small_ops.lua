--- dlx.small_ops: small ops built from views and other ops, so they run on every device without
--- kernels of their own (docs/lua-api.md): t:movedim, t:rot90, dlx.meshgrid and
--- dlx.broadcast_tensors (views); t:roll, t:diff, dlx.dist and t:renorm (new tensors).
local check = require "dlx.check"
local raise = require "dlx.raise"

local M = {}

local function shape_text(t) return "{" .. table.concat(t.shape, ", ") .. "}" end

local FLOAT = { float16 = true, bfloat16 = true, float32 = true, float64 = true }
local COMPLEX = { complex64 = true, complex128 = true }

function M.install(dlx, core)
  local Tensor = core.Tensor

  local check_tensor, check_integer, check_dim = check.tensor, check.integer, check.dim

  -- A dim or a list of dims, as a list of distinct 1-based dims.
  local function check_dims(name, dims, ndim, what)
    if type(dims) == "number" then dims = { dims } end
    if type(dims) ~= "table" then
      raise("TypeError", "%s: %s must be a dim or a list of dims, not %s", name, what,
        tostring(dims))
    end
    local out, seen = {}, {}
    for i = 1, #dims do
      local d = check_dim(name, dims[i], ndim)
      if seen[d] then raise("ValueError", "%s: dim %d appears twice in %s", name, d, what) end
      seen[d], out[i] = true, d
    end
    return out
  end

  -- ---- views: movedim, rot90, meshgrid, broadcast_tensors

  --- t:movedim(source, destination): the dims of source (a dim or a list) moved to the positions
  --- of destination, the others kept in their order (a view).
  function Tensor.movedim(t, source, destination)
    check_tensor("movedim", t, "t")
    local src = check_dims("movedim", source, t.ndim, "source")
    local dst = check_dims("movedim", destination, t.ndim, "destination")
    if #src ~= #dst then
      raise("ValueError", "movedim: %d source dims but %d destination dims", #src, #dst)
    end
    local order, taken, moved = {}, {}, {}
    for i = 1, #src do order[dst[i]], moved[src[i]] = src[i], true end
    for i = 1, #dst do taken[dst[i]] = true end
    local rest = 1
    for pos = 1, t.ndim do
      if not taken[pos] then
        while moved[rest] do rest = rest + 1 end
        order[pos], rest = rest, rest + 1
      end
    end
    return t:permute(order)
  end

  --- t:rot90([k[, dims]]): rotated k times (default 1, any integer) by 90 degrees in the plane of
  --- the two dims (default {1, 2}), from the first towards the second, as numpy.rot90 (a view).
  function Tensor.rot90(t, k, dims)
    check_tensor("rot90", t, "t")
    k = k == nil and 1 or check_integer("rot90", k, "k")
    if t.ndim < 2 then raise("ValueError", "rot90: t must have at least 2 dims, got %d", t.ndim) end
    dims = check_dims("rot90", dims == nil and { 1, 2 } or dims, t.ndim, "dims")
    if #dims ~= 2 then raise("ValueError", "rot90: dims must list 2 dims, got %d", #dims) end
    local d1, d2 = dims[1], dims[2]
    k = k % 4
    if k == 1 then return t:flip(d2):transpose(d1, d2) end
    if k == 2 then return t:flip({ d1, d2 }) end
    if k == 3 then return t:flip(d1):transpose(d1, d2) end
    local identity = {}
    for d = 1, t.ndim do identity[d] = d end
    return t:permute(identity)
  end

  local function check_list(name, list)
    if type(list) ~= "table" then
      raise("TypeError", "%s takes a list of tensors, got %s", name, type(list))
    end
    for i = 1, #list do check_tensor(name, list[i], ("list[%d]"):format(i)) end
  end

  --- dlx.meshgrid(list[, {indexing = "ij"|"xy"}]): for n 1-d (or 0-d) tensors, n views of one
  --- n-d shape, the i-th varying along dim i ("ij", the default) or with the first two dims
  --- swapped ("xy", NumPy's default).
  function dlx.meshgrid(list, opts)
    check_list("meshgrid", list)
    local indexing = "ij"
    if opts ~= nil then
      if type(opts) ~= "table" then
        raise("TypeError", "meshgrid: opts must be a table {indexing =}, not a %s", type(opts))
      end
      for key in pairs(opts) do
        if key ~= "indexing" then
          raise("TypeError", "meshgrid: unknown option %s", tostring(key))
        end
      end
      indexing = opts.indexing or indexing
      if indexing ~= "ij" and indexing ~= "xy" then
        raise("ValueError", 'meshgrid: indexing must be "ij" or "xy", got %s', tostring(indexing))
      end
    end
    local n, shape, place = #list, {}, {}
    for i = 1, n do
      local t = list[i]
      if t.ndim > 1 then
        raise("ValueError", "meshgrid: list[%d] must be 1-d or 0-d, got shape %s", i,
          shape_text(t))
      end
      place[i] = i
    end
    if indexing == "xy" and n >= 2 then place[1], place[2] = 2, 1 end
    for i = 1, n do shape[place[i]] = list[i].numel end
    local out = {}
    for i = 1, n do
      local sizes = {}
      for d = 1, n do sizes[d] = 1 end
      sizes[place[i]] = list[i].numel
      out[i] = list[i]:reshape(sizes):expand(shape)
    end
    return out
  end

  --- dlx.broadcast_tensors(list): views of the tensors expanded to their common shape (NumPy's
  --- broadcasting: sizes agree from the last dim, or one of them is 1).
  function dlx.broadcast_tensors(list)
    check_list("broadcast_tensors", list)
    local shape, ndim = {}, 0
    for i = 1, #list do ndim = math.max(ndim, list[i].ndim) end
    for d = 1, ndim do shape[d] = 1 end
    for i = 1, #list do
      local t = list[i]
      for d = 1, t.ndim do
        local at, size = ndim - t.ndim + d, t.shape[d]
        if size ~= 1 then
          if shape[at] ~= 1 and shape[at] ~= size then
            raise("ValueError", "broadcast_tensors: list[%d] of shape %s does not broadcast "
              .. "with the others (size %d against %d at dim %d)", i, shape_text(t), size,
              shape[at], at)
          end
          shape[at] = size
        end
      end
    end
    local out = {}
    for i = 1, #list do out[i] = list[i]:expand(shape) end
    return out
  end

  -- ---- new tensors: roll, diff, dist, renorm

  local function roll_dim(t, shift, dim)
    local size = t.shape[dim]
    if size == 0 then return t end
    shift = shift % size
    if shift == 0 then return t end
    return dlx.cat({ t:narrow(dim, size - shift + 1, shift), t:narrow(dim, 1, size - shift) }, dim)
  end

  --- t:roll(shifts[, dims]): a new tensor with the elements moved shifts places along dims (a
  --- number and a dim, or lists of one length), wrapping around; without dims, along the
  --- flattened tensor, as torch.roll.
  function Tensor.roll(t, shifts, dims)
    check_tensor("roll", t, "t")
    if dims == nil then
      local flat = t:reshape({ t.numel })
      local rolled = roll_dim(flat, check_integer("roll", shifts, "shifts (without dims)"), 1)
      return rolled == flat and t:clone() or rolled:reshape(t.shape)
    end
    if t.ndim == 0 then raise("ValueError", "roll: a 0-d tensor has no dims to roll along") end
    local list = type(shifts) == "number" and { shifts } or shifts
    if type(list) ~= "table" then
      raise("TypeError", "roll: shifts must be an integer or a list, not %s", tostring(shifts))
    end
    local dlist = type(dims) == "number" and { dims } or dims
    if type(dlist) ~= "table" then
      raise("TypeError", "roll: dims must be a dim or a list of dims, not %s", tostring(dims))
    end
    if #list ~= #dlist then
      raise("ValueError", "roll: %d shifts for %d dims", #list, #dlist)
    end
    local out = t
    for i = 1, #list do
      local d = check_dim("roll", dlist[i], t.ndim)
      out = roll_dim(out, check_integer("roll", list[i], "shift"), d)
    end
    return out == t and t:clone() or out
  end

  --- t:diff([n[, dim]]): the n-th forward difference along dim (default 1 and the last dim),
  --- t[i + 1] - t[i] n times (bool: ~=), as numpy.diff; n = 0 gives t itself.
  function Tensor.diff(t, n, dim)
    check_tensor("diff", t, "t")
    n = n == nil and 1 or check_integer("diff", n, "n")
    if n < 0 then raise("ValueError", "diff: n must be >= 0, got %d", n) end
    if t.ndim == 0 then raise("ValueError", "diff: t must have at least 1 dim") end
    dim = check_dim("diff", dim == nil and -1 or dim, t.ndim)
    local out = t
    for _ = 1, n do
      local size = out.shape[dim]
      local m = size > 0 and size - 1 or 0
      local hi, lo = out:narrow(dim, size - m + 1, m), out:narrow(dim, 1, m)
      out = out.dtype == "bool" and hi:ne(lo) or hi - lo
    end
    return out
  end

  -- The p-norm of x over dims (a list, maybe empty: elementwise), as PyTorch's norm: p = 0
  -- counts the nonzero elements, inf and -inf are the largest and smallest magnitudes.
  local function pnorm(x, p, dims, keepdim)
    local mag = x:abs()
    if #dims == 0 then
      return p == 0 and mag:ne(0):astype(mag.dtype) or mag
    end
    if p == 0 then return mag:ne(0):astype(mag.dtype):sum(dims, keepdim) end
    if p == 1 or p == 2 or p == math.huge then
      return x:norm { p = p, dim = dims, keepdim = keepdim }
    end
    if p == -math.huge then return mag:min(dims, keepdim) end
    return (mag ^ p):sum(dims, keepdim) ^ (1 / p)
  end

  local function check_p(name, p)
    if type(p) ~= "number" then
      raise("TypeError", "%s: p must be a number, not a %s", name, type(p))
    end
    if p ~= p then raise("ValueError", "%s: p must not be NaN", name) end
    return p
  end

  --- dlx.dist(a, b[, p]): the p-norm (default 2) of a - b, broadcast, as torch.dist: a 0-d tensor
  --- of their float dtype (float32 for bool and integers, the real dtype for complex).
  function dlx.dist(a, b, p)
    check_tensor("dist", a, "a")
    check_tensor("dist", b, "b")
    p = p == nil and 2 or check_p("dist", p)
    local inexact = FLOAT[a.dtype] or COMPLEX[a.dtype] or FLOAT[b.dtype] or COMPLEX[b.dtype]
    if not inexact then a, b = a:astype("float32"), b:astype("float32") end
    local d = a - b
    local dims = {}
    for i = 1, d.ndim do dims[i] = i end
    return pnorm(d, p, dims, false)
  end

  --- t:renorm(p, dim, maxnorm): t with each slice along dim whose p-norm exceeds maxnorm scaled
  --- to maxnorm (by maxnorm / (norm + 1e-7), as Torch7 and PyTorch); floats only.
  function Tensor.renorm(t, p, dim, maxnorm)
    check_tensor("renorm", t, "t")
    check_p("renorm", p)
    if not FLOAT[t.dtype] then
      raise("TypeError", "renorm takes a float tensor, not %s", t.dtype)
    end
    if t.ndim == 0 then raise("ValueError", "renorm: t must have at least 1 dim") end
    dim = check_dim("renorm", dim, t.ndim)
    if type(maxnorm) ~= "number" or maxnorm ~= maxnorm or maxnorm < 0 then
      raise("ValueError", "renorm: maxnorm must be a number >= 0, got %s", tostring(maxnorm))
    end
    if p <= 0 then raise("ValueError", "renorm: p must be > 0, got %s", tostring(p)) end
    local others = {}
    for d = 1, t.ndim do
      if d ~= dim then others[#others + 1] = d end
    end
    local norm = pnorm(t, p, others, true)
    local factor = dlx.where(norm:gt(maxnorm), maxnorm / (norm + 1e-7), 1)
    return t * factor:astype(t.dtype)
  end
end

return M
