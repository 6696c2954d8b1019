-- Elementwise arithmetic: add, sub, mul, div as methods, functions, in place, out= and
-- operators; every layout (contiguous, transposed, stepped, negative strides, broadcast, 0-d,
-- zero-size), dtype families, weak Lua scalars, overlap, and errors. Expected values come from
-- Lua (spec/elementwise_ref.lua).
local h = require "spec.helper"
local R = require "spec.elementwise_ref"
local dlx = h.dlx
-- The CPU is the reference here; the GPUs are compared with it in spec/elementwise_device.lua.
dlx.set_default_device("cpu")

local A = { { 1, -2, 3 }, { 4, 5, -6 } }
local B = { { 7, 8, -9 }, { -1, 2, 3 } }

local ops = {
  add = function(x, y) return x + y end,
  sub = function(x, y) return x - y end,
  mul = function(x, y) return x * y end,
  div = function(x, y) return x / y end,
}

describe("elementwise arithmetic", function()
  for _, dtype in ipairs({ "int8", "int32", "int64", "uint8", "float32", "float64", "float16",
    "bfloat16" }) do
    for name, fn in pairs(ops) do
      it(name .. " on " .. dtype .. " in every layout pair", function()
        local a, b = A, B
        if dtype:match("^uint") then -- keep the values and sub's results in range
          a = R.unary(math.abs, A)
          b = R.unary(function(v) return math.abs(v) % 2 end, B)
          if name == "div" then b = R.unary(function(v) return math.abs(v) + 1 end, B) end
        end
        local want = R.binary(fn, a, b)
        local integer = dtype:match("int") ~= nil
        local want_dtype = (name == "div" and integer) and "float32" or dtype
        for _, la in ipairs(R.layouts(a, dtype)) do
          for _, lb in ipairs(R.layouts(b, dtype)) do
            local got = la[2][name](la[2], lb[2])
            assert.are.equal(want_dtype, got.dtype)
            local rel = (name == "div" or dtype:match("16")) and 1e-2 or nil
            if name == "div" and not dtype:match("16") then rel = 1e-6 end
            R.same(got:totable(), want, rel, la[1] .. " x " .. lb[1])
          end
        end
      end)
    end
  end

  it("broadcasts as NumPy", function()
    local m = dlx.tensor(A)
    R.same((m + dlx.tensor({ 10, 20, 30 })):totable(), R.binary(ops.add, A, { 10, 20, 30 }))
    R.same((m * dlx.tensor({ { 2 }, { 3 } })):totable(), R.binary(ops.mul, A, { { 2 }, { 3 } }))
    local col, row = dlx.tensor({ { 1 }, { 2 } }), dlx.tensor({ { 10, 20, 30 } })
    local sum = col + row
    assert.are.same({ 2, 3 }, sum.shape)
    R.same(sum:totable(), { { 11, 21, 31 }, { 12, 22, 32 } })
    -- every input one value along the inner dim: computed once, then repeated
    local c1 = dlx.tensor({ { 1 }, { 2 } }):expand({ 2, 3 })
    local c2 = dlx.tensor({ { 10 }, { 20 } }, { dtype = "int8" }):expand({ 2, 3 })
    R.same((c1 + c2):totable(), { { 11, 11, 11 }, { 22, 22, 22 } })
    local hc = dlx.tensor({ { 1.5 }, { 2.5 } }, { dtype = "float16" }):expand({ 2, 3 })
    R.same((hc * hc):totable(), { { 2.25, 2.25, 2.25 }, { 6.25, 6.25, 6.25 } })
    local zero = R.binary(ops.sub, A, A)
    R.same((m - m:expand({ 2, 2, 3 })):totable(), { zero, zero })
  end)

  it("takes 0-d and zero-size tensors", function()
    local s = dlx.tensor(5)
    local r = s + dlx.tensor(A)
    assert.are.same({ 2, 3 }, r.shape)
    R.same(r:totable(), R.binary(ops.add, 5, A))
    local z = s * s
    assert.are.equal(0, z.ndim)
    assert.are.equal(25, z:item())
    local e = dlx.zeros({ 0, 3 }) + dlx.ones({ 3 })
    assert.are.same({ 0, 3 }, e.shape)
    assert.are.same({ 0, 3 }, dlx.zeros({ 0, 3 }):add_(1).shape)
    assert.are.same({ 0 }, (dlx.zeros({ 0 }) / 2).shape)
  end)

  it("computes large tensors on several threads, strided ones through buffers", function()
    local n = 3000000
    local t = dlx.arange(n, { dtype = "float64" })
    local r = t * 2 + 1
    assert.are.equal(n * n, r:sum():item()) -- sum of 2i + 1 for i < n
    local stepped = dlx.arange(2 * n, { dtype = "int32" }):slice(1, 1, -1, 2) -- 0, 2, 4, ...
    local q = stepped + dlx.ones({ n }, { dtype = "float32" })
    assert.are.equal("float32", q.dtype)
    assert.are.equal(2 * n - 1, q:max():item())
    assert.are.equal(1, q:min():item())
    local flipped = (t:flip() - t)
    assert.are.equal(n - 1, flipped:max():item())
    assert.are.equal(1 - n, flipped:min():item())
  end)
end)

describe("weak Lua scalars", function()
  it("keep the tensor's dtype when their kind is not above it", function()
    local i8 = dlx.tensor({ 1, 2, 127 }, { dtype = "int8" })
    local r = i8 + 1
    assert.are.equal("int8", r.dtype)
    assert.are.same({ 2, 3, -128 }, r:totable()) -- integers wrap
    assert.are.equal("int8", (1 - i8).dtype)
    assert.are.same({ 0, -1, -126 }, (1 - i8):totable())
    assert.are.equal("float16", (dlx.ones({ 2 }, { dtype = "float16" }) * 2).dtype)
    assert.are.equal("uint8", (dlx.ones({ 2 }, { dtype = "uint8" }) + true).dtype)
  end)

  it("promote past it: float32 for an integer tensor and a float, int64 for bool and an integer",
    function()
      local r = dlx.tensor({ 1, 2 }, { dtype = "int16" }) + 1.5
      assert.are.equal("float32", r.dtype)
      assert.are.same({ 2.5, 3.5 }, r:totable())
      local b = dlx.tensor({ true, false }) + 2
      assert.are.equal("int64", b.dtype)
      assert.are.same({ 3, 2 }, b:totable())
      local c = dlx.tensor({ 1.0 }, { dtype = "float64" }) + { re = 0, im = 2 }
      assert.are.equal("complex128", c.dtype)
      assert.are.same({ { re = 1, im = 2 } }, c:totable())
      assert.are.equal("complex64", (dlx.tensor({ 1 }, { dtype = "float32" }) * { re = 1 }).dtype)
      assert.are.equal("complex64", (dlx.tensor({ 1 }) - { re = 1, im = 1 }).dtype)
    end)

  it("must fit the dtype they join: no silent wrap", function()
    local u8 = dlx.tensor({ 1 }, { dtype = "uint8" })
    local err = h.raises("ValueError", function() return u8 + 300 end)
    assert.truthy(err:find("300", 1, true) and err:find("uint8", 1, true))
    h.raises("ValueError", function() return u8 - (-1) end)
    h.raises("ValueError", function() return dlx.tensor({ 1 }, { dtype = "int8" }) + 1000 end)
    local i8 = dlx.tensor({ 1 }, { dtype = "int8" })
    h.raises("ValueError", function() return dlx.add(i8, -129) end)
    assert.are.same({ 255 }, (u8 + 254):totable())
  end)

  it("divide integers into float32, or float64 next to a float64", function()
    local r = dlx.tensor({ 1, 2, 3 }) / 2
    assert.are.equal("float32", r.dtype)
    assert.are.same({ 0.5, 1, 1.5 }, r:totable())
    local f64 = dlx.tensor({ 2 }, { dtype = "float64" })
    assert.are.equal("float64", (dlx.tensor({ 1 }) / f64).dtype)
    assert.are.equal("float32", (dlx.tensor({ true }) / dlx.tensor({ true })).dtype)
  end)
end)

describe("float results", function()
  it("follow IEEE: x / 0 is inf or NaN", function()
    local r = dlx.tensor({ 1, -1, 0 }, { dtype = "float64" }) / 0
    local v = r:totable()
    assert.are.equal(math.huge, v[1])
    assert.are.equal(-math.huge, v[2])
    assert.is_true(v[3] ~= v[3])
  end)

  it("compute float16 and bfloat16 in float32 and round once", function()
    local h16 = dlx.tensor({ 2048, 2048 }, { dtype = "float16" })
    assert.are.same({ 2048, 2052 }, (h16 + dlx.tensor({ 1, 3 }, { dtype = "float16" })):totable())
    local bf = dlx.tensor({ 256 }, { dtype = "bfloat16" })
    assert.are.same({ 256 }, (bf + 1):totable()) -- 257 is a tie between 256 and 258: even
    assert.are.same({ 260 }, (bf + 3):totable())
    assert.are.equal("float32", (h16 + dlx.tensor({ 1 }, { dtype = "bfloat16" })).dtype)
  end)
end)

describe("destinations", function()
  it("in place: t:add_(b) writes t and returns it", function()
    local t = dlx.tensor(A)
    local r = t:add_(dlx.tensor({ 1, 1, 1 }))
    assert.are.equal(t, r)
    R.same(t:totable(), R.binary(ops.add, A, 1))
    t:mul_(2):sub_(1)
    R.same(t:totable(), R.binary(function(x) return (x + 1) * 2 - 1 end, A, 0))
    local f = dlx.tensor({ 1, 2 }, { dtype = "float32" })
    f:div_(4)
    assert.are.same({ 0.25, 0.5 }, f:totable())
  end)

  it("in place into a view: a slice of a bigger tensor", function()
    local big = dlx.zeros({ 3, 4 }, { dtype = "int32" })
    big:slice(2, 2, 3):add_(dlx.tensor({ 5, 6 }, { dtype = "int32" }))
    assert.are.same({ { 0, 5, 6, 0 }, { 0, 5, 6, 0 }, { 0, 5, 6, 0 } }, big:totable())
  end)

  it("out=: the result cast by the same-kind rule", function()
    local a, b = dlx.tensor(A), dlx.tensor(B)
    local out = dlx.empty({ 2, 3 }, { dtype = "float64" })
    local r = dlx.add(a, b, { out = out })
    assert.are.equal(out, r)
    R.same(out:totable(), R.binary(ops.add, A, B))
    local narrow = dlx.empty({ 2, 3 }, { dtype = "int8" })
    dlx.mul(a, b, { out = narrow }) -- int64 into int8: the same kind, may narrow
    R.same(narrow:totable(), R.binary(ops.mul, A, B))
    local wide = dlx.empty({ 4, 2, 3 }, { dtype = "float32" })
    dlx.sub(a, 1, { out = wide }) -- the operands broadcast to out's shape
    R.same(wide:totable()[4], R.binary(ops.sub, A, 1))
    local int_out = dlx.empty({ 2, 3 }, { dtype = "int64" })
    local err = h.raises("TypeError", function() return dlx.div(a, b, { out = int_out }) end)
    assert.truthy(err:find("float32", 1, true) and err:find("int64", 1, true))
  end)

  it("refuse to go down a kind: int:add_(1.5) is a TypeError", function()
    local t = dlx.tensor({ 1, 2 })
    h.raises("TypeError", function() return t:add_(1.5) end)
    h.raises("TypeError", function() return t:div_(2) end)
    h.raises("TypeError", function() return dlx.tensor({ true }):add_(1) end)
    assert.are.same({ 1, 2 }, t:totable()) -- untouched
  end)

  it("refuse broadcast destinations and shapes that do not broadcast to them", function()
    local base = dlx.zeros({ 3 })
    h.raises("ValueError", function() return base:expand({ 2, 3 }):add_(1) end)
    local err = h.raises("ValueError",
      function() return dlx.zeros({ 3 }):add_(dlx.ones({ 2, 3 })) end)
    assert.truthy(err:find("{2, 3}", 1, true) and err:find("{3}", 1, true))
    local four = dlx.zeros({ 4 })
    h.raises("ValueError", function() return dlx.add(dlx.ones({ 3 }), 1, { out = four }) end)
    h.raises("TypeError", function() return dlx.add(dlx.ones({ 3 }), 1, { out = 5 }) end)
    h.raises("TypeError", function() return dlx.add(dlx.ones({ 3 }), 1, { into = 5 }) end)
    h.raises("TypeError", function() return dlx.add(dlx.ones({ 3 }), 1, 5) end)
  end)
end)

describe("overlap", function()
  it("a:add_(a:flip(2)) reads a before writing it", function()
    local a = dlx.tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
    a:add_(a:flip(2))
    assert.are.same({ { 4, 4, 4 }, { 10, 10, 10 } }, a:totable())
  end)

  it("a shifted out= sees the inputs as they were", function()
    local x = dlx.arange(10)
    dlx.mul(x:narrow(1, 1, 9), 2, { out = x:narrow(1, 2, 9) })
    assert.are.same({ 0, 0, 2, 4, 6, 8, 10, 12, 14, 16 }, x:totable())
    local y = dlx.arange(6):view({ 2, 3 })
    y:add_(y:transpose(1, 2):contiguous():view({ 2, 3 }))
    local z = dlx.arange(4):view({ 2, 2 })
    z:add_(z:transpose(1, 2)) -- overlaps z other than exactly
    assert.are.same({ { 0, 3 }, { 3, 6 } }, z:totable())
  end)

  it("exactly the same view in place: a:add_(a), a:mul_(a)", function()
    local a = dlx.tensor({ 1, 2, 3 })
    a:add_(a)
    assert.are.same({ 2, 4, 6 }, a:totable())
    a:mul_(a)
    assert.are.same({ 4, 16, 36 }, a:totable())
    local s = dlx.arange(8):slice(1, 1, -1, 2)
    dlx.sub(s, s, { out = s })
    assert.are.same({ 0, 0, 0, 0 }, s:totable())
  end)
end)

describe("operators", function()
  local a = dlx.tensor({ 6, -7, 8 })
  it("+ - * / on tensors and numbers in either order", function()
    assert.are.same({ 7, -6, 9 }, (a + 1):totable())
    assert.are.same({ -4, 9, -6 }, (2 - a):totable())
    assert.are.same({ 12, -14, 16 }, (2 * a):totable())
    assert.are.same({ 3, -3.5, 4 }, (a / 2):totable())
    R.same((12 / a):totable(), { 2, 12 / -7, 1.5 }, 1e-6)
    assert.are.same({ -6, 7, -8 }, (-a):totable())
    assert.are.same({ 12, -14, 16 }, (a + a):totable())
  end)

  it("give a tensor whichever side the tensor is on, and refuse other values", function()
    local r = 1 + a
    assert.are.equal("tensor", dlx.type(r))
    assert.are.same({ 7, -6, 9 }, r:totable())
    assert.are.same({ 36, 49, 64 }, (a * a):abs():totable())
    assert.are.same({ 2, -1 }, (~dlx.tensor({ -3, 0 }, { dtype = "int8" })):totable())
    for _, other in ipairs({ io.stdout, a:__dlpack(), "x", setmetatable({}, {}), print }) do
      h.raises("TypeError", function() return a + other end)
      h.raises("TypeError", function() return other * a end)
    end
  end)

  it("on small 1-d operands of any stride give the general path's results", function()
    local x = dlx.arange(16, { dtype = "float32" })
    local s = x:slice(1, 1, -1, 2) -- 0, 2, ..., 14: stride 2
    assert.are.same({ 0, 4, 8, 12, 16, 20, 24, 28 }, (s + s):totable())
    assert.are.same({ 1, 5, 9, 13, 17, 21, 25, 29 }, (s + x:slice(1, 2, -1, 2)):totable())
    local one = x:slice(1, 4, 4) -- one element, its stride of no account
    assert.are.same({ 6 }, (one + one):totable())
    local back = x:slice(1, -1, 1, -1) -- negative stride
    local fifteens = {}
    for i = 1, 16 do fifteens[i] = 15 end
    assert.are.same(fifteens, (back + x):totable())
  end)

  it("== stays identity", function()
    local b = dlx.tensor({ 6, -7, 8 })
    assert.is_false(a == b)
    assert.is_true(a == a)
  end)
end)

describe("errors", function()
  it("name the class and point at the caller's line", function()
    local err = h.raises("TypeError", function() return dlx.tensor({ 1 }) + "x" end)
    assert.truthy(err:find("elementwise_arith_spec.lua:%d+: TypeError"))
    h.raises("TypeError", function() return dlx.tensor({ 1 }) + {} end)
    h.raises("TypeError", function() return dlx.add(1, 2) end)
    h.raises("TypeError", function() return dlx.tensor({ 1 }):add() end)
  end)

  it("refuse closed tensors and storage-only dtypes", function()
    local t = dlx.tensor({ 1 })
    t:close()
    h.raises("ValueError", function() return t + 1 end)
    h.raises("ValueError", function() return dlx.tensor({ 1 }) * t end)
    local f8 = dlx.empty({ 2 }, { dtype = "float8_e4m3fn" })
    local err = h.raises("TypeError", function() return f8 + 1 end)
    assert.truthy(err:find("float8_e4m3fn", 1, true))
    h.raises("TypeError", function() return dlx.ones({ 2 }) + f8 end)
  end)

  it("refuse bool sub", function()
    h.raises("TypeError", function() return dlx.tensor({ true }) - dlx.tensor({ false }) end)
  end)
end)

-- Two tensors of one dtype and shape into a new tensor take a shorter path in the core: the
-- same results and the same errors as any other pair.
describe("pairs of one dtype and shape", function()
  it("give the results of the general path", function()
    local a, b = dlx.tensor(A), dlx.tensor(B)
    local bt = dlx.tensor({ { 7, -1 }, { 8, 2 }, { -9, 3 } }):transpose(1, 2) -- B, transposed
    assert.are.same((a + bt):totable(), (a + b):totable())
    assert.are.same(R.binary(function(x, y) return x * y end, A, B), (a * b):totable())
    assert.are.same({ { false, false, true }, { true, true, false } }, a:gt(b):totable())
    local i, j = dlx.tensor({ 7, -7 }, { dtype = "int8" }), dlx.tensor({ 2, 2 }, { dtype = "int8" })
    assert.are.same("float32", (i / j).dtype)
    assert.are.same({ 3.5, -3.5 }, (i / j):totable())
    assert.are.same({ 3, -4 }, (i // j):totable())
    local e = dlx.empty({ 0, 3 }) + dlx.empty({ 0, 3 })
    assert.are.same({ 0, 3 }, e.shape)
  end)

  it("raise the errors of the general path", function()
    local a = dlx.tensor({ 5, 6, 7 })
    local err = h.raises("ValueError", function() return a // dlx.tensor({ 1, 0, 2 }) end)
    assert.truthy(err:find("division by zero", 1, true))
    h.raises("ValueError", function() return a ^ dlx.tensor({ 1, -1, 2 }) end)
    h.raises("TypeError", function() return dlx.ones({ 2 }) & dlx.ones({ 2 }) end)
    h.raises("TypeError", function() return dlx.tensor({ true }) - dlx.tensor({ true }) end)
    local f8 = dlx.empty({ 2 }, { dtype = "float8_e4m3fn" })
    err = h.raises("TypeError", function() return f8 + f8 end)
    assert.truthy(err:find("float8_e4m3fn", 1, true))
    local closed = dlx.tensor({ 1, 2, 3 })
    closed:close()
    h.raises("ValueError", function() return a + closed end)
  end)
end)
