--- dlx.image: dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate (docs/lua-api.md#pooling-and-
--- resizing). The options are read and the output sizes computed here; a device whose backend
--- has the entry image_op (the CPU) runs its kernels (dlx.core.image_op), any other device gets
--- the op composed of views, reductions, gathers and elementwise ops: pooling from a padded copy
--- and a strided view of its windows, resizing from index_select along each dim and weighted
--- sums, with the CPU's source positions and weights (computed here in the dtype's precision).
local raise = require "dlx.raise"

local M = {}

--- For tests: true makes every call compose the op, as on a device without image_op.
M.force_composed = false

local FLOAT = { float32 = true, float64 = true }

-- A number rounded to float32 (double rounding is exact for +, -, * and / of float32 values).
local function f32(x) return (string.unpack("f", string.pack("f", x))) end
local function f64(x) return x end

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
  local function use_kernel(x) return not M.force_composed and core.image_op_available(x) end

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
    return x, h, w, p, shape_of
  end

  -- x [P, h, w] padded with `value` so that every window lies inside, and the windows as a
  -- [P, out_h, out_w, kh * kw] tensor.
  local function windows(x, h, w, p, value)
    local planes = x.shape[1]
    local hp = math.max(p.ph + h, (p.out_h - 1) * p.sh + (p.kh - 1) * p.dh + 1)
    local wp = math.max(p.pw + w, (p.out_w - 1) * p.sw + (p.kw - 1) * p.dw + 1)
    local padded = dlx.full({ planes, hp, wp }, value, { dtype = x.dtype, device = x.device })
    padded:slice(2, p.ph + 1, p.ph + h):slice(3, p.pw + 1, p.pw + w):copy_(x)
    local view = padded:as_strided({ planes, p.out_h, p.out_w, p.kh, p.kw },
      { hp * wp, p.sh * wp, p.sw, p.dh * wp, p.dw }, padded.offset)
    return view:reshape({ planes, p.out_h, p.out_w, p.kh * p.kw })
  end

  -- The 1-based flat input position of each window slot (0 outside the input), [oh, ow, K],
  -- and each window's first position inside the input (PyTorch's default), [oh, ow].
  local function slot_tables(h, w, p, device)
    local slots, first = {}, {}
    for oh = 0, p.out_h - 1 do
      local srow, frow = {}, {}
      for ow = 0, p.out_w - 1 do
        local ih0, iw0 = oh * p.sh - p.ph, ow * p.sw - p.pw
        local cell = {}
        for i = 0, p.kh - 1 do
          for j = 0, p.kw - 1 do
            local ih, iw = ih0 + i * p.dh, iw0 + j * p.dw
            cell[#cell + 1] = (ih >= 0 and ih < h and iw >= 0 and iw < w) and ih * w + iw + 1 or 0
          end
        end
        while ih0 < 0 do ih0 = ih0 + p.dh end
        while iw0 < 0 do iw0 = iw0 + p.dw end
        srow[ow + 1], frow[ow + 1] = cell, ih0 * w + iw0 + 1
      end
      slots[oh + 1], first[oh + 1] = srow, frow
    end
    return dlx.tensor(slots, { dtype = "int64", device = device }),
      dlx.tensor(first, { dtype = "int64", device = device })
  end

  local function max_pool_composed(x, h, w, p)
    local win = windows(x, h, w, p, -math.huge)
    local values = win:max(4)
    if not p.indices then return values end
    local k = p.kh * p.kw
    local slots, first = slot_tables(h, w, p, x.device)
    -- the first valid slot equal to the maximum, or for a NaN maximum the last NaN
    local hit = dlx.logical_and(dlx.eq(win, values:unsqueeze(4)), slots:gt(0))
    local at_max = hit:astype("int32"):argmax(4)
    local nan_last = dlx.sub(k + 1, win:isnan():flip(4):astype("int32"):argmax(4))
    local pos = dlx.where(values:isnan(), nan_last, at_max)
    local full = slots:unsqueeze(1):expand({ x.shape[1], p.out_h, p.out_w, k })
    local idx = full:gather(4, pos:unsqueeze(4)):squeeze(4)
    return values, dlx.where(idx:eq(0), first, idx)
  end

  local function avg_pool_composed(x, h, w, p)
    local sums = windows(x, h, w, p, 0):sum(4)
    local div = {}
    for oh = 0, p.out_h - 1 do
      local row = {}
      for ow = 0, p.out_w - 1 do
        local ih0, iw0 = oh * p.sh - p.ph, ow * p.sw - p.pw
        local ih1 = math.min(ih0 + p.kh, h + p.ph)
        local iw1 = math.min(iw0 + p.kw, w + p.pw)
        local n = (ih1 - ih0) * (iw1 - iw0)
        ih0, iw0, ih1, iw1 = math.max(ih0, 0), math.max(iw0, 0), math.min(ih1, h), math.min(iw1, w)
        if p.divisor then
          n = p.divisor
        elseif not p.count_include_pad then
          n = (ih1 - ih0) * (iw1 - iw0)
        end
        row[ow + 1] = n > 0 and n or 1 -- an empty window sums to 0
      end
      div[oh + 1] = row
    end
    return dlx.div(sums, dlx.tensor(div, { dtype = x.dtype, device = x.device }))
  end

  --- dlx.max_pool2d(t, kernel_size[, opts]): the maximum of each window, and with
  --- opts.return_indices its 1-based flat position in its plane.
  function dlx.max_pool2d(t, kernel_size, opts)
    local x, h, w, p, shape_of = pool_params("max_pool2d", t, kernel_size, opts, true)
    local values, indices
    if use_kernel(x) then
      values, indices = core.image_op(x, "max_pool", p)
    else
      values, indices = max_pool_composed(x, h, w, p)
    end
    local shape = shape_of(p.out_h, p.out_w)
    if indices then return values:reshape(shape), indices:reshape(shape) end
    return values:reshape(shape)
  end

  --- dlx.avg_pool2d(t, kernel_size[, opts]): the mean of each window.
  function dlx.avg_pool2d(t, kernel_size, opts)
    local x, h, w, p, shape_of = pool_params("avg_pool2d", t, kernel_size, opts, false)
    local out
    if use_kernel(x) then
      out = core.image_op(x, "avg_pool", p)
    else
      out = avg_pool_composed(x, h, w, p)
    end
    return out:reshape(shape_of(p.out_h, p.out_w))
  end

  -- ---- interpolate

  local MODES = { nearest = 1, bilinear = 2, bicubic = 4 }

  -- The taps' 1-based source indices and weights of one dim, as src/cpu/image.c computes them
  -- (in float32 for float32: each step rounded).
  local function axis_table(mode, n_in, n_out, align, given, r)
    local idx, wts = {}, {}
    for j = 1, MODES[mode] do idx[j], wts[j] = {}, {} end
    local scale
    if align and mode ~= "nearest" then
      scale = n_out > 1 and r(r(n_in - 1) / r(n_out - 1)) or 0
    elseif given > 0 then
      scale = r(1 / given)
    else
      scale = r(r(n_in) / r(n_out))
    end
    if mode == "nearest" then scale = f32(scale) end
    for o = 0, n_out - 1 do
      if mode == "nearest" then
        local i
        if n_out == n_in then
          i = o
        elseif n_out == 2 * n_in then
          i = o // 2
        else
          i = math.floor(f32(o * scale))
        end
        idx[1][o + 1] = math.min(i, n_in - 1) + 1
      elseif mode == "bilinear" and n_out == n_in then
        idx[1][o + 1], idx[2][o + 1], wts[1][o + 1], wts[2][o + 1] = o + 1, o + 1, 1, 0
      else
        local real
        if align then
          real = r(scale * o)
        else
          real = r(r(scale * r(o + 0.5)) - 0.5)
          if mode == "bilinear" and real < 0 then real = 0 end
        end
        local i0 = math.min(math.floor(f32(real)), n_in - 1)
        local lambda = math.min(math.max(r(real - i0), 0), 1)
        if mode == "bilinear" then
          idx[1][o + 1], idx[2][o + 1] = i0 + 1, (i0 < n_in - 1 and i0 + 1 or i0) + 1
          wts[1][o + 1], wts[2][o + 1] = r(1 - lambda), lambda
        else
          local a = -0.75
          local x1, x2 = lambda, r(1 - lambda)
          local y1, y2 = r(x1 + 1), r(x2 + 1)
          -- Keys' cubic with A = -0.75 for |x| in [1, 2] (far) and [0, 1] (near), step by step
          local function far(y)
            local v = r(r(r(a * y) - r(5 * a)) * y)
            return r(r(r(v + r(8 * a)) * y) - r(4 * a))
          end
          local function near(x) return r(r(r(r(r((a + 2) * x) - (a + 3)) * x) * x) + 1) end
          local c = { far(y1), near(x1), near(x2), far(y2) }
          for j = 1, 4 do
            idx[j][o + 1] = math.max(math.min(i0 - 2 + j, n_in - 1), 0) + 1
            wts[j][o + 1] = c[j]
          end
        end
      end
    end
    return idx, wts
  end

  -- x [P, h, w] resized with the composed ops.
  local function resize_composed(x, mode, oh, ow, p)
    local r = x.dtype == "float32" and f32 or f64
    local iy, wy = axis_table(mode, x.shape[2], oh, p.align_corners, p.scale_h, r)
    local ix, wx = axis_table(mode, x.shape[3], ow, p.align_corners, p.scale_w, r)
    local function ints(list) return dlx.tensor(list, { dtype = "int64", device = x.device }) end
    local function weights(list, shape)
      return dlx.tensor(list, { dtype = x.dtype, device = x.device }):reshape(shape)
    end
    if mode == "nearest" then return x:index_select(2, ints(iy[1])):index_select(3, ints(ix[1])) end
    local out
    for a = 1, #iy do
      local rows = x:index_select(2, ints(iy[a]))
      local along_w
      for b = 1, #ix do
        local term = dlx.mul(rows:index_select(3, ints(ix[b])), weights(wx[b], { ow }))
        along_w = along_w and dlx.add(along_w, term) or term
      end
      local term = dlx.mul(along_w, weights(wy[a], { oh, 1 }))
      out = out and dlx.add(out, term) or term
    end
    return out
  end

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
    local out
    if use_kernel(x) then
      out = core.image_op(x, mode, p)
    else
      out = resize_composed(x, mode, oh, ow, p)
    end
    return out:reshape(shape_of(oh, ow))
  end
end

return M
