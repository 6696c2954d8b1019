--- dlx.conv: convolutions on core.conv (src/core/conv.c, composed of copies and the matrix
--- product, so every device with matmul runs them): PyTorch's dlx.conv1d, conv2d and conv3d,
--- and NumPy's dlx.convolve and dlx.correlate (docs/lua-api.md#convolutions).
local check = require "dlx.check"
local raise = require "dlx.raise"

local M = {}

local function shape_text(t) return "[" .. table.concat(t.shape, ", ") .. "]" end

function M.install(dlx, core)
  local check_tensor, check_integer = check.tensor, check.integer

  -- An integer, or a list of n of them, as a list of n integers (PyTorch's _pair and _triple).
  local function check_sizes(name, v, n, what)
    if type(v) ~= "table" then
      local i = check_integer(name, v, what)
      local out = {}
      for s = 1, n do out[s] = i end
      return out
    end
    if #v ~= n then
      raise("ValueError", "%s: expected %s to be a single integer value or a list of %d values "
        .. "to match the convolution dimensions, but got %s of %d values", name, what, n, what, #v)
    end
    local out = {}
    for s = 1, n do out[s] = check_integer(name, v[s], what) end
    return out
  end

  local KNOWN = { bias = true, stride = true, padding = true, dilation = true, groups = true }

  -- padding: "valid", "same" (PyTorch's: the kernel's reach split in two, the extra zero after)
  -- or sizes; returns the zeros before and after each spatial dim.
  local function paddings(name, padding, weight, n, stride, dilation)
    local lo, hi = {}, {}
    if padding == "valid" then
      for s = 1, n do lo[s], hi[s] = 0, 0 end
    elseif padding == "same" then
      for s = 1, n do
        if stride[s] ~= 1 then
          raise("ValueError", "%s: padding='same' is not supported for strided convolutions", name)
        end
        local total = dilation[s] * (weight.shape[2 + s] - 1)
        lo[s] = total // 2
        hi[s] = total - lo[s]
      end
    elseif type(padding) == "string" then
      raise("ValueError", "%s: Invalid padding string: '%s' (expected \"same\", \"valid\" or "
        .. "sizes)", name, padding)
    else
      lo = check_sizes(name, padding, n, "padding")
      for s = 1, n do hi[s] = lo[s] end
    end
    return lo, hi
  end

  local function conv(name, n, input, weight, opts)
    check_tensor(name, input, "input")
    check_tensor(name, weight, "weight")
    if opts ~= nil and type(opts) ~= "table" then
      raise("TypeError", "%s: opts must be a table {bias =, stride =, padding =, dilation =, "
        .. "groups =}, not a %s", name, type(opts))
    end
    opts = opts or {}
    for key in pairs(opts) do
      if not KNOWN[key] then raise("TypeError", "%s: unknown option %s", name, tostring(key)) end
    end
    local batched = input.ndim == n + 2
    if not batched and input.ndim ~= n + 1 then
      raise("ValueError", "%s: Expected %dD (unbatched) or %dD (batched) input to %s, but got "
        .. "input of size: %s", name, n + 1, n + 2, name, shape_text(input))
    end
    if weight.ndim ~= n + 2 then
      raise("ValueError", "%s: expected a %d-d weight (out_channels, in_channels / groups, "
        .. "kernel sizes), got size %s", name, n + 2, shape_text(weight))
    end
    local bias = opts.bias
    if bias ~= nil then check_tensor(name, bias, "bias") end
    local stride = check_sizes(name, opts.stride or 1, n, "stride")
    local dilation = check_sizes(name, opts.dilation or 1, n, "dilation")
    local groups = check_integer(name, opts.groups or 1, "groups")
    local lo, hi = paddings(name, opts.padding or 0, weight, n, stride, dilation)
    if batched then
      return core.conv(name, input, weight, bias, stride, lo, hi, dilation, groups)
    end
    local sizes = { 1 }
    for d = 1, input.ndim do sizes[d + 1] = input.shape[d] end
    local out = core.conv(name, input:reshape(sizes), weight, bias, stride, lo, hi, dilation,
      groups)
    return out:reshape(table.move(out.shape, 2, out.ndim, 1, {}))
  end

  --- dlx.conv1d(input, weight[, {bias =, stride =, padding =, dilation =, groups =}]):
  --- PyTorch's conv1d; input (N, C, L) or (C, L), weight (C_out, C / groups, k).
  function dlx.conv1d(input, weight, opts) return conv("conv1d", 1, input, weight, opts) end
  --- dlx.conv2d(input, weight[, opts]): PyTorch's conv2d; input (N, C, H, W) or (C, H, W).
  function dlx.conv2d(input, weight, opts) return conv("conv2d", 2, input, weight, opts) end
  --- dlx.conv3d(input, weight[, opts]): PyTorch's conv3d; input (N, C, D, H, W) or (C, D, H, W).
  function dlx.conv3d(input, weight, opts) return conv("conv3d", 3, input, weight, opts) end

  local COMPLEX = { complex64 = true, complex128 = true }
  local MODES = { full = true, same = true, valid = true }

  local function check_line(name, t, what)
    check_tensor(name, t, what)
    if t.ndim > 1 then
      raise("ValueError", "%s: %s must be 1-d, got shape %s", name, what, shape_text(t))
    end
    return t:reshape({ t.numel })
  end

  -- Long signals: the sums of blocks of B outputs are one matrix product. Row r of windows
  -- (the padded a from r B, B + m - 1 values: an unfold copied contiguous) times the band matrix
  -- T[u][t] = v[u - t] (v down each column, one place lower per column: a strided view of v
  -- between zeros) gives outputs r B .. r B + B - 1. The product does (B + m - 1) / m times the
  -- multiplications of the sums, in the BLAS's speed; the columns of the general path would copy
  -- m values per output (bench/conv.py: 1 Mi by 64 taps). B: the taps, at least 32.
  local BLOCKED_OUTPUTS, BLOCKED_TAPS = 4096, 8

  local function blocked(a, v, lo, count)
    local n, m = a.numel, v.numel
    local B = math.max(m, 32)
    local rows = (count + B - 1) // B
    local padded = dlx.zeros({ rows * B + m - 1 }, { dtype = a.dtype, device = a.device })
    padded:slice(1, lo + 1, lo + n):copy_(a)
    local windows = padded:unfold(1, B + m - 1, B):contiguous()
    local around = dlx.zeros({ m + 2 * B - 2 }, { dtype = v.dtype, device = v.device })
    around:slice(1, B, B + m - 1):copy_(v)
    local band = around:as_strided({ B + m - 1, B }, { 1, -1 }, around.offset + B - 1):contiguous()
    return dlx.matmul(windows, band):reshape({ rows * B }):slice(1, 1, count)
  end

  -- NumPy's sliding sums of a[k + j] * v[j] over the longer a (its _pyarray_correlate): mode
  -- "valid" where v lies inside a, "same" with v's length // 2 zeros before (the rest after),
  -- "full" with every overlap.
  local function slide(name, a, v, mode)
    local n, m = a.numel, v.numel
    local lo, hi = 0, 0
    if mode == "same" then
      lo = m // 2
      hi = m - 1 - lo
    elseif mode == "full" then
      lo, hi = m - 1, m - 1
    end
    local count = n + lo + hi - m + 1
    if count >= BLOCKED_OUTPUTS and m >= BLOCKED_TAPS then return blocked(a, v, lo, count) end
    local out = core.conv(name, a:reshape({ 1, 1, n }), v:reshape({ 1, 1, m }), nil, { 1 },
      { lo }, { hi }, { 1 }, 1)
    return out:reshape({ out.numel })
  end

  local function check_mode(name, mode, default)
    if mode == nil then return default end
    if not MODES[mode] then
      raise("ValueError", "%s: mode must be one of 'valid', 'same', or 'full' (got %s)", name,
        tostring(mode))
    end
    return mode
  end

  --- dlx.convolve(a, v[, mode]): NumPy's convolve of two 1-d (or 0-d) tensors, mode "full"
  --- (default), "same" or "valid"; the longer one slides over the shorter, as NumPy swaps them.
  function dlx.convolve(a, v, mode)
    a, v = check_line("convolve", a, "a"), check_line("convolve", v, "v")
    mode = check_mode("convolve", mode, "full")
    if v.numel > a.numel then a, v = v, a end
    if a.numel == 0 then raise("ValueError", "convolve: a cannot be empty") end
    if v.numel == 0 then raise("ValueError", "convolve: v cannot be empty") end
    return slide("convolve", a, v:flip(1), mode)
  end

  --- dlx.correlate(a, v[, mode]): NumPy's correlate, sum of a[k + j] * conj(v[j]), mode "valid"
  --- (default), "same" or "full"; when v is longer, NumPy's result: conj(v) slides over a and
  --- the sums come reversed (the window of "same" is then NumPy's, not a centred one).
  function dlx.correlate(a, v, mode)
    a, v = check_line("correlate", a, "a"), check_line("correlate", v, "v")
    mode = check_mode("correlate", mode, "valid")
    if a.numel == 0 then raise("ValueError", "correlate: first array argument cannot be empty") end
    if v.numel == 0 then raise("ValueError", "correlate: second array argument cannot be empty") end
    if COMPLEX[v.dtype] then v = v:conj() end
    if a.numel >= v.numel then return slide("correlate", a, v, mode) end
    -- the sums of conj(v)[k + j] a[j], reversed, are the sums of a[j] conj(v[j - k])
    return slide("correlate", v, a, mode):flip(1):contiguous()
  end
end

return M
