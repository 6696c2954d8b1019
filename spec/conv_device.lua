--- The convolutions' cases on a device, against sums written out in Lua: conv1d, conv2d and
--- conv3d (strides, paddings, "same" with even kernels, dilations, groups, bias, unbatched
--- inputs, strided views, inputs large enough to be cut into slices, zero-size batches) and
--- NumPy's convolve and correlate (every mode, the longer operand second, complex values, long
--- signals).
--- The values are small integers, so every float sum is exact and each device must give the
--- reference's values exactly. Used by conv_spec.lua (the CPU), oneapi_conv_spec.lua and
--- cuda_conv_spec.lua: require "spec.conv_device" (device, it, opts) inside a describe;
--- opts.integers: the device multiplies integer matrices (not CUDA's cuBLAS).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert"

local R = {}

--- n values: small integers from a fixed sequence (seed picks where it starts).
function R.values(n, seed)
  local out, x = {}, seed or 1
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    out[i] = x // 65536 % 7 - 3
  end
  return out
end

local numel, flat = h.numel, h.flat

--- PyTorch's convolution written out: x (N, C, spatial...) and w (C_out, C / groups, k...) as
--- flat row-major lists of their shapes xs and ws, b nil or a list; o.stride, o.lo, o.hi,
--- o.dilation lists of the spatial count, o.groups. Returns the output's flat list and shape.
function R.conv(x, xs, w, ws, b, o)
  local n = #xs - 2
  local function three(list, fill)
    local out = {}
    for s = 1, 3 - n do out[s] = fill end
    for s = 1, n do out[3 - n + s] = list[s] end
    return out
  end
  local in3 = three(table.move(xs, 3, #xs, 1, {}), 1)
  local k3 = three(table.move(ws, 3, #ws, 1, {}), 1)
  local st, dl = three(o.stride, 1), three(o.dilation, 1)
  local lo, hi = three(o.lo, 0), three(o.hi, 0)
  local N, C, CO, G = xs[1], xs[2], ws[1], o.groups
  local cg, og = C // G, CO // G
  local out3, shape = {}, { N, CO }
  for s = 1, 3 do
    out3[s] = (in3[s] + lo[s] + hi[s] - dl[s] * (k3[s] - 1) - 1) // st[s] + 1
    if s > 3 - n then shape[#shape + 1] = out3[s] end
  end
  local y = {}
  for b0 = 0, N - 1 do
    for oc = 0, CO - 1 do
      local g = oc // og
      for p0 = 0, out3[1] - 1 do
        for p1 = 0, out3[2] - 1 do
          for p2 = 0, out3[3] - 1 do
            local sum = b and b[oc + 1] or 0
            for c = 0, cg - 1 do
              local ic = g * cg + c
              for q0 = 0, k3[1] - 1 do
                local i0 = p0 * st[1] + q0 * dl[1] - lo[1]
                if i0 >= 0 and i0 < in3[1] then
                  for q1 = 0, k3[2] - 1 do
                    local i1 = p1 * st[2] + q1 * dl[2] - lo[2]
                    if i1 >= 0 and i1 < in3[2] then
                      for q2 = 0, k3[3] - 1 do
                        local i2 = p2 * st[3] + q2 * dl[3] - lo[3]
                        if i2 >= 0 and i2 < in3[3] then
                          local xi = (((b0 * C + ic) * in3[1] + i0) * in3[2] + i1) * in3[3] + i2
                          local wi = (((oc * cg + c) * k3[1] + q0) * k3[2] + q1) * k3[3] + q2
                          sum = sum + x[xi + 1] * w[wi + 1]
                        end
                      end
                    end
                  end
                end
              end
            end
            y[#y + 1] = sum
          end
        end
      end
    end
  end
  return y, shape
end

--- NumPy's correlate and convolve over Lua lists (complex values as {re, im} pairs), as its
--- _pyarray_correlate does them: v conjugated (correlate), the longer operand first, the sums
--- c[k] = sum of a[k + j] v[j] in the mode's window, then reversed when the operands were
--- swapped.
local function cmul(x, y)
  if type(x) ~= "table" then return x * y end
  return { x[1] * y[1] - x[2] * y[2], x[1] * y[2] + x[2] * y[1] }
end
local function cadd(x, y)
  if type(x) ~= "table" then return x + y end
  return { x[1] + y[1], x[2] + y[2] }
end
local function cconj(x) return type(x) == "table" and { x[1], -x[2] } or x end

local function slide(a, v, mode)
  local n, m = #a, #v
  local first, last = 0, n - m
  if mode == "same" then
    first = -(m // 2)
    last = first + n - 1
  elseif mode == "full" then
    first, last = -(m - 1), n - 1
  end
  local out = {}
  for k = first, last do
    local s = type(a[1]) == "table" and { 0, 0 } or 0
    for j = 0, m - 1 do
      if k + j >= 0 and k + j < n then s = cadd(s, cmul(a[k + j + 1], v[j + 1])) end
    end
    out[#out + 1] = s
  end
  return out
end

function R.correlate(a, v, mode)
  local vc = {}
  for i = 1, #v do vc[i] = cconj(v[i]) end
  if #a >= #v then return slide(a, vc, mode) end
  local r, out = slide(vc, a, mode), {}
  for i = 1, #r do out[i] = r[#r + 1 - i] end
  return out
end

function R.convolve(a, v, mode)
  if #v > #a then a, v = v, a end
  local rv = {}
  for i = 1, #v do rv[i] = v[#v + 1 - i] end
  return slide(a, rv, mode)
end

return function(device, it, opts)
  opts = opts or {}
  local function on(values, shape, dtype)
    return dlx.tensor(values, { dtype = dtype or "float32" }):view(shape):to(device)
  end
  local function expect(want, shape, got, dtype)
    assert.equal(device, tostring(got.device))
    assert.equal(dtype or "float32", got.dtype)
    assert.same(shape, got.shape)
    assert.same(want, flat(got))
  end

  -- A case: f the dlx function, n spatial dims, sizes, options (PyTorch's) and their expansion
  -- for the reference.
  local function check_conv(f, xs, ws, o, dtype, seed)
    local n = #xs - 2
    local x, w = R.values(numel(xs), seed), R.values(numel(ws), (seed or 1) + 7)
    local b = o.bias and R.values(ws[1], (seed or 1) + 3) or nil
    local lo, hi, stride, dilation = {}, {}, {}, {}
    for s = 1, n do
      local p = o.padding or 0
      stride[s] = type(o.stride) == "table" and o.stride[s] or o.stride or 1
      dilation[s] = type(o.dilation) == "table" and o.dilation[s] or o.dilation or 1
      if p == "same" then
        local total = dilation[s] * (ws[2 + s] - 1)
        lo[s], hi[s] = total // 2, total - total // 2
      elseif p == "valid" then
        lo[s], hi[s] = 0, 0
      else
        lo[s] = type(p) == "table" and p[s] or p
        hi[s] = lo[s]
      end
    end
    local want, shape = R.conv(x, xs, w, ws, b,
      { stride = stride, dilation = dilation, lo = lo, hi = hi, groups = o.groups or 1 })
    local call = {}
    for key, value in pairs(o) do call[key] = value end
    if b then call.bias = on(b, { #b }, dtype) end
    expect(want, shape, f(on(x, xs, dtype), on(w, ws, dtype), call), dtype)
  end

  it("computes conv1d, conv2d and conv3d as the sums say", function()
    check_conv(dlx.conv1d, { 2, 3, 11 }, { 4, 3, 3 }, {})
    check_conv(dlx.conv1d, { 2, 4, 13 }, { 6, 2, 4 },
      { stride = 2, padding = 3, dilation = 2, groups = 2, bias = true })
    check_conv(dlx.conv1d, { 1, 2, 9 }, { 3, 2, 4 }, { padding = "same", dilation = 3 })
    check_conv(dlx.conv2d, { 2, 3, 7, 6 }, { 5, 3, 3, 2 }, { bias = true })
    check_conv(dlx.conv2d, { 1, 4, 9, 8 }, { 4, 2, 3, 3 },
      { stride = { 2, 1 }, padding = { 1, 2 }, dilation = { 1, 2 }, groups = 2 })
    check_conv(dlx.conv2d, { 2, 2, 6, 7 }, { 3, 2, 2, 4 }, { padding = "same", bias = true })
    check_conv(dlx.conv2d, { 1, 6, 5, 5 }, { 6, 1, 3, 3 }, { groups = 6, padding = "valid" })
    check_conv(dlx.conv3d, { 2, 2, 4, 5, 6 }, { 3, 2, 2, 3, 2 },
      { stride = { 1, 2, 1 }, padding = 1, bias = true })
    check_conv(dlx.conv3d, { 1, 4, 5, 4, 5 }, { 4, 2, 3, 2, 3 },
      { padding = "same", dilation = { 2, 1, 1 }, groups = 2 })
  end)

  it("computes float64 and float16 as float32", function()
    check_conv(dlx.conv2d, { 2, 3, 6, 5 }, { 4, 3, 3, 3 }, { padding = 1, bias = true },
      "float64")
    check_conv(dlx.conv1d, { 2, 2, 10 }, { 3, 2, 3 }, { stride = 3, bias = true }, "float16")
  end)

  it("computes integer convolutions where the device multiplies integers", function()
    if not opts.integers then return end
    check_conv(dlx.conv2d, { 2, 2, 5, 6 }, { 3, 2, 2, 3 }, { padding = 1, bias = true }, "int32")
    check_conv(dlx.conv1d, { 1, 3, 12 }, { 2, 3, 5 }, { dilation = 2 }, "int64")
  end)

  it("cuts large inputs into slices of images and of rows", function()
    -- 16 channels x 9 taps x 64 x 64 positions: more columns than one slice holds on the host
    check_conv(dlx.conv2d, { 1, 16, 64, 64 }, { 2, 16, 3, 3 }, { padding = 1, bias = true },
      nil, 5)
    -- many small images: several in a slice, and a last slice with fewer
    check_conv(dlx.conv2d, { 37, 3, 8, 8 }, { 2, 3, 3, 3 }, { stride = 2 }, nil, 9)
    check_conv(dlx.conv1d, { 3, 8, 20000 }, { 1, 8, 3 }, { padding = 1 }, nil, 2)
  end)

  it("takes unbatched inputs and any layout", function()
    local x = on(R.values(3 * 8 * 7), { 3, 8, 7 })
    local w = on(R.values(2 * 3 * 3 * 3, 4), { 2, 3, 3, 3 })
    local want = dlx.conv2d(x:reshape({ 1, 3, 8, 7 }), w, { padding = 1 })
    local got = dlx.conv2d(x, w, { padding = 1 })
    assert.same({ 2, 8, 7 }, got.shape)
    assert.same(want:select(1, 1):totable(), got:totable())
    -- a transposed input and a strided weight give the values of their copies
    local xt = on(R.values(2 * 3 * 7 * 8, 3), { 2, 3, 7, 8 }):transpose(3, 4)
    local wide = on(R.values(4 * 3 * 3 * 6, 5), { 4, 3, 3, 6 }):slice(4, 1, 6, 2)
    h.same(dlx.conv2d(xt:contiguous(), wide:contiguous(), { stride = 2 }):totable(),
      dlx.conv2d(xt, wide, { stride = 2 }):totable())
    -- a zero-size batch
    local empty = dlx.conv2d(on({}, { 0, 3, 8, 7 }), w)
    assert.same({ 0, 2, 6, 5 }, empty.shape)
  end)

  -- convolve and correlate against the written-out sums, a of length n, v of length m.
  local function check_line(name, n, m, mode, complex)
    local dtype = complex and "complex128" or "float64"
    local a, v = R.values(n, n), R.values(m, m + 11)
    local la, lv = a, v
    if complex then
      local ai, vi = R.values(n, n + 5), R.values(m, m + 3)
      la, lv = {}, {}
      for i = 1, n do la[i] = { a[i], ai[i] } end
      for i = 1, m do lv[i] = { v[i], vi[i] } end
    end
    local function tensor(list)
      if not complex then return on(list, { #list }, dtype) end
      local zs = {}
      for i, z in ipairs(list) do zs[i] = { re = z[1], im = z[2] } end
      return on(zs, { #list }, dtype)
    end
    local want = R[name](la, lv, mode)
    local got = flat(dlx[name](tensor(la), tensor(lv), mode))
    if complex then
      for i, z in ipairs(want) do want[i] = { re = z[1], im = z[2] } end
    end
    assert.same(want, got, ("%s n %d m %d %s"):format(name, n, m, tostring(mode)))
  end

  it("convolves and correlates as NumPy, every mode, either operand longer", function()
    for _, name in ipairs({ "convolve", "correlate" }) do
      for _, mode in ipairs({ "full", "same", "valid" }) do
        for _, nm in ipairs({ { 9, 4 }, { 8, 5 }, { 4, 9 }, { 5, 8 }, { 6, 6 }, { 1, 3 },
          { 3, 1 } }) do
          check_line(name, nm[1], nm[2], mode)
          check_line(name, nm[1], nm[2], mode, true)
        end
      end
    end
    -- long signals: the blocked matrix product
    for _, name in ipairs({ "convolve", "correlate" }) do
      for _, mode in ipairs({ "full", "same", "valid" }) do
        check_line(name, 5000, 9, mode, name == "correlate")
        check_line(name, 9, 4999, mode)
        check_line(name, 4500, 40, mode, mode == "same")
      end
    end
    assert.same({ 12 }, dlx.convolve(on(R.values(8), { 8 }), on(R.values(5), { 5 })).shape)
    assert.same({ 4 }, dlx.correlate(on(R.values(8), { 8 }), on(R.values(5), { 5 })).shape)
  end)
end
