--- dlx.image: dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate (docs/lua-api.md#pooling-and-
--- resizing). The options are read and the output sizes computed here; every device's backend
--- runs the op with its image_op kernels (dlx.core.image_op): the CPU's src/cpu/image.c, CUDA's
--- src/cuda/image_kernels.cu and Level Zero's src/ze/kernels/image.cl, one set of element rules
--- (src/common/image_rules.h).
local raise = require "dlx.raise"

local M = {}

local FLOAT = { float32 = true, float64 = true }

local function check_integer(name, v, what, min)
  local i = type(v) == "number" and math.tointeger(v) or nil
  if type(v) ~= "number" then
    raise("TypeError", "%s: %s must be an integer or a pair of integers, not %s", name, what,
      type(v))
  end
  if i == nil or i < min then
    raise("ValueError", "%s: %s must be an integer >= %d, got %s", name, what, min, v)
  end
  return i
end

-- An integer or a pair {h, w} of integers >= min, as h, w.
local function check_pair(name, v, what, min)
  if type(v) == "table" then
    if #v ~= 2 then raise("ValueError", "%s: %s must hold 2 values, got %d", name, what, #v) end
    return check_integer(name, v[1], what, min), check_integer(name, v[2], what, min)
  end
  local i = check_integer(name, v, what, min)
  return i, i
end

local function check_options(name, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then raise("TypeError", "%s: options must be a table, not %s", name,
    type(opts)) end
  for k in pairs(opts) do
    if not known[k] then raise("TypeError", "%s: unknown option %s", name, tostring(k)) end
  end
  return opts
end

local function check_boolean(name, v, what)
  if v ~= nil and type(v) ~= "boolean" then
    raise("TypeError", "%s: %s must be a boolean, not %s", name, what, type(v))
  end
  return v == true
end

-- t as planes [P, h, w] (a view when it can be), and the shape of a result of out_h x out_w.
local function planes_of(name, t, ndims, core)
  if not core.is_tensor(t) then
    raise("TypeError", "%s: t must be a tensor, not %s", name, type(t))
  end
  if not FLOAT[t.dtype] then
    raise("TypeError", "%s: dtype %s is not supported (float32 or float64)", name, t.dtype)
  end
  if not ndims[t.ndim] then
    raise("ValueError", "%s: expected a %s tensor, got %d-d", name, ndims.text, t.ndim)
  end
  local s = t.shape
  local h, w = s[t.ndim - 1], s[t.ndim]
  if h < 1 or w < 1 then
    raise("ValueError", "%s: expected planes of at least 1 x 1 elements, got %d x %d", name, h, w)
  end
  local lead = {}
  for d = 1, t.ndim - 2 do lead[d] = s[d] end
  local planes = 1
  for d = 1, #lead do planes = planes * lead[d] end
  local function shape_of(oh, ow)
    local out = {}
    for d = 1, #lead do out[d] = lead[d] end
    out[#lead + 1], out[#lead + 2] = oh, ow
    return out
  end
  return t:reshape({ planes, h, w }), h, w, shape_of
end

local POOL_DIMS = { [3] = true, [4] = true, text = "3-d (C, H, W) or 4-d (N, C, H, W)" }
local RESIZE_DIMS = { [4] = true, text = "4-d (N, C, H, W)" }

-- The output size of a pool along one dim (core/image.c's dlx_pool_out_size).
local function pool_out(n, k, s, p, d, ceil)
  local num = n + 2 * p - d * (k - 1) - 1 + (ceil and s - 1 or 0)
  local out = num // s + 1
  if ceil and (out - 1) * s >= n + p then out = out - 1 end
  return out
end

function M.install(dlx, core)
  -- ---- pooling

  local function pool_params(name, t, kernel_size, opts, max)
    local known = { stride = true, padding = true, ceil_mode = true }
    if max then
      known.dilation, known.return_indices = true, true
    else
      known.count_include_pad, known.divisor_override = true, true
    end
    opts = check_options(name, opts, known)
    local x, h, w, shape_of = planes_of(name, t, POOL_DIMS, core)
    local p = {}
    p.kh, p.kw = check_pair(name, kernel_size, "kernel_size", 1)
    if opts.stride == nil then
      p.sh, p.sw = p.kh, p.kw
    else
      p.sh, p.sw = check_pair(name, opts.stride, "stride", 1)
    end
    p.ph, p.pw = check_pair(name, opts.padding or 0, "padding", 0)
    p.dh, p.dw = check_pair(name, opts.dilation or 1, "dilation", 1)
    if p.ph > p.kh // 2 or p.pw > p.kw // 2 then
      raise("ValueError", "%s: padding %d x %d must be at most half the kernel size %d x %d", name,
        p.ph, p.pw, p.kh, p.kw)
    end
    local ceil = check_boolean(name, opts.ceil_mode, "ceil_mode")
    p.out_h = pool_out(h, p.kh, p.sh, p.ph, p.dh, ceil)
    p.out_w = pool_out(w, p.kw, p.sw, p.pw, p.dw, ceil)
    if p.out_h < 1 or p.out_w < 1 then
      raise("ValueError", "%s: the input's %d x %d planes are too small for the windows " ..
        "(output size %d x %d)", name, h, w, p.out_h, p.out_w)
    end
    if max then
      p.indices = check_boolean(name, opts.return_indices, "return_indices")
    else
      p.count_include_pad = opts.count_include_pad == nil or
        check_boolean(name, opts.count_include_pad, "count_include_pad")
      if opts.divisor_override ~= nil then
        p.divisor = check_integer(name, opts.divisor_override, "divisor_override", 1)
      end
    end
    return x, p, shape_of
  end

  --- dlx.max_pool2d(t, kernel_size[, opts]): the maximum of each window, and with
  --- opts.return_indices its 1-based flat position in its plane.
  function dlx.max_pool2d(t, kernel_size, opts)
    local x, p, shape_of = pool_params("max_pool2d", t, kernel_size, opts, true)
    local values, indices = core.image_op(x, "max_pool", p)
    local shape = shape_of(p.out_h, p.out_w)
    if indices then return values:reshape(shape), indices:reshape(shape) end
    return values:reshape(shape)
  end

  --- dlx.avg_pool2d(t, kernel_size[, opts]): the mean of each window.
  function dlx.avg_pool2d(t, kernel_size, opts)
    local x, p, shape_of = pool_params("avg_pool2d", t, kernel_size, opts, false)
    return core.image_op(x, "avg_pool", p):reshape(shape_of(p.out_h, p.out_w))
  end

  -- ---- interpolate

  local MODES = { nearest = true, bilinear = true, bicubic = true }

  local function check_size(name, t, opts)
    local h, w = t.shape[3], t.shape[4]
    if (opts.size == nil) == (opts.scale_factor == nil) then
      raise("ValueError", "%s: give exactly one of size and scale_factor", name)
    end
    if opts.size ~= nil then
      local oh, ow = check_pair(name, opts.size, "size", 1)
      return oh, ow, 0, 0
    end
    local sh, sw
    if type(opts.scale_factor) == "table" then
      if #opts.scale_factor ~= 2 then
        raise("ValueError", "%s: scale_factor must hold 2 values, got %d", name, #opts.scale_factor)
      end
      sh, sw = opts.scale_factor[1], opts.scale_factor[2]
    else
      sh, sw = opts.scale_factor, opts.scale_factor
    end
    for _, s in ipairs({ sh, sw }) do
      if type(s) ~= "number" then
        raise("TypeError", "%s: scale_factor must be a number or a pair of numbers, not %s", name,
          type(s))
      end
      if not (s > 0 and s < math.huge) then
        raise("ValueError", "%s: scale_factor must be positive and finite, got %s", name, s)
      end
    end
    local oh, ow = math.floor(h * sh), math.floor(w * sw)
    if oh < 1 or ow < 1 then
      raise("ValueError", "%s: scale_factor gives an empty output (%d x %d)", name, oh, ow)
    end
    return oh, ow, sh + 0.0, sw + 0.0
  end

  --- dlx.interpolate(t, opts): t (N, C, H, W) resized to opts.size or by opts.scale_factor.
  function dlx.interpolate(t, opts)
    local name = "interpolate"
    if type(opts) ~= "table" then
      raise("TypeError", "interpolate: opts must be a table with size or scale_factor, not %s",
        type(opts))
    end
    check_options(name, opts,
      { size = true, scale_factor = true, mode = true, align_corners = true })
    local x, _, _, shape_of = planes_of(name, t, RESIZE_DIMS, core)
    local mode = opts.mode == nil and "nearest" or opts.mode
    if type(mode) ~= "string" then raise("TypeError", "interpolate: mode must be a string, not %s",
      type(mode)) end
    if not MODES[mode] then
      raise("ValueError",
        "interpolate: mode must be \"nearest\", \"bilinear\" or \"bicubic\", got \"%s\"", mode)
    end
    if mode == "nearest" and opts.align_corners ~= nil then
      raise("ValueError", "interpolate: align_corners applies to \"bilinear\" and \"bicubic\" only")
    end
    local oh, ow, sh, sw = check_size(name, t, opts)
    local p = { out_h = oh, out_w = ow, scale_h = sh, scale_w = sw,
      align_corners = check_boolean(name, opts.align_corners, "align_corners") }
    return core.image_op(x, mode, p):reshape(shape_of(oh, ow))
  end
end

return M
