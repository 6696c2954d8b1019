-- A tour of dlx: tensors for Lua 5.4 that speak DLPack.
--
--   lua5.4 examples/tour.lua        (with package.path/cpath pointing at dlx)
--
-- Every step prints what it did and checks it; an unexpected result stops the tour with an
-- error (and a non-zero exit status).
local dlx = require "dlx"

local function section(title) print(("\n== %s"):format(title)) end

local function show(label, value) print(("%-34s %s"):format(label, tostring(value))) end

-- Compares nested tables of plain values.
local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function check(cond, what)
  if not cond then error("tour: unexpected result: " .. what, 2) end
end

section("dlx")
show("dlx.version", dlx.version)
show("DLPack version", table.concat(dlx.DLPACK_VERSION, "."))
check(dlx.version:match("^%d+%.%d+%.%d+$"), "version")

section("Devices")
local dev = dlx.default_device()
local names = {}
for _, d in ipairs(dlx.devices()) do names[#names + 1] = tostring(d) end
show("dlx.devices()", table.concat(names, ", "))
show("dlx.default_device()", dev)
show("its DLPack pair", ("{%d, %d}"):format(dev.dltype, dev.id))
check(dlx.devices()[1].type == "cpu", "cpu comes first")
check(dlx.device({ dev.dltype, dev.id }) == dev, "a device from its DLPack pair")

section("Creation")
local z = dlx.zeros({ 2, 3 })
show("dlx.zeros{2, 3}", z)
local r = dlx.arange(6)
show("dlx.arange(6)", r)
local f = dlx.full({ 2 }, 0.5, { dtype = "float64" })
show("dlx.full({2}, 0.5, float64)", f)
local m = dlx.tensor({ { 1, 2 }, { 3, 4 } })
show("dlx.tensor{{1, 2}, {3, 4}}", m)
check(z.dtype == "float32" and r.dtype == "int64" and m.dtype == "int64", "default dtypes")
check(z.device == dev, "creation uses the default device")
local ok, err = pcall(dlx.zeros, { 2, -1 })
show("a negative size", err)
check(not ok and err:find("ValueError:", 1, true), "a negative size is a ValueError")

section("Dtypes and properties")
for _, name in ipairs({ "bool", "int8", "uint64", "float16", "bfloat16", "complex64",
  "float8_e4m3fn", "float4_e2m1fn" }) do
  local t = dlx.empty({ 4 }, { dtype = name })
  show(name, ("itemsize %s, nbytes %d"):format(tostring(t.itemsize), t.nbytes))
end
local fp8 = dlx.empty({ 4 }, { dtype = "float8_e4m3fn" })
ok, err = pcall(fp8.sum, fp8)
show("computing on float8", err)
check(not ok and err:find("TypeError:", 1, true), "float8 is storage-only")
show("shape, strides of a 2x3", table.concat(z.shape, "x") .. ", {" .. table.concat(z.strides,
  ", ") .. "}")
check(same(z.strides, { 3, 1 }) and z.ndim == 2 and z.numel == 6 and #z == 2, "properties")

section("Views (dims and indices are 1-based; negative ones count from the end)")
local t = dlx.arange(6):view({ 2, 3 })
show("t = arange(6):view{2, 3}", t)
show("t:transpose(1, 2)", t:transpose(1, 2))
show("t:select(1, 2)", t:select(1, 2))
show("t:slice(2, 1, -1, 2)", t:slice(2, 1, -1, 2))
show("t:flip(-1)   (a negative stride)", t:flip(-1))
show("dlx.tensor{1, 2}:expand{3, 2}", dlx.tensor({ 1, 2 }):expand({ 3, 2 }))
show("strides of the flip", "{" .. table.concat(t:flip(-1).strides, ", ") .. "}")
check(same(t:transpose(1, 2):totable(), { { 0, 3 }, { 1, 4 }, { 2, 5 } }), "transpose")
check(same(t:slice(2, 1, -1, 2):totable(), { { 0, 2 }, { 3, 5 } }), "slice with a step")
check(same(t:flip(-1).strides, { 3, -1 }), "flip has a negative stride")
t:select(1, 1):fill_(9)
show("after t:select(1, 1):fill_(9)", t)
check(same(t:totable(), { { 9, 9, 9 }, { 3, 4, 5 } }), "views share memory")

section("Copies")
local tt = t:transpose(1, 2)
local c = tt:contiguous()
show("t:transpose(1, 2):contiguous()", c)
show("its strides", "{" .. table.concat(c.strides, ", ") .. "}")
check(same(c.strides, { 2, 1 }), "contiguous strides")
check(rawequal(t:contiguous(), t), "contiguous is itself when already contiguous")
local half = dlx.tensor({ 1.0, 2049.0, 65520.0 }, { dtype = "float32" }):astype("float16")
show("float32 -> float16", half)
check(same(half:totable(), { 1.0, 2048.0, math.huge }), "float16 rounds to nearest even")
local dst = dlx.zeros({ 2, 3 }, { dtype = "int32" })
dst:copy_(dlx.tensor({ 1.9, 2.9, 3.9 }))
show("copy_ with broadcast and cast", dst)
check(same(dst:totable(), { { 1, 2, 3 }, { 1, 2, 3 } }), "copy_ broadcasts and truncates")

section("Reductions (dims = nil, a dim or a list; keepdim)")
local a = dlx.arange(6):view({ 2, 3 })
show("a:sum()", a:sum())
show("a:sum(1)", a:sum(1))
show("a:mean(2, true)", a:mean(2, true))
show("a:argmax()   (1-based)", a:argmax())
show("a:max(-1)", a:max(-1))
check(a:sum():item() == 15, "sum")
check(same(a:sum(2):totable(), { 3, 12 }), "sum along dim 2")
check(same(a:mean(2, true).shape, { 2, 1 }), "keepdim")
check(a:argmax():item() == 6, "argmax is 1-based")
local tenth = dlx.full({ 1000000 }, 0.1, { dtype = "float32" }):sum():item()
show("a million float32 0.1, summed", ("%.6f"):format(tenth))
check(math.abs(tenth - 100000.0015) < 0.1, "pairwise summation")

section("Values in Lua")
show("dlx.tensor(7):item()", dlx.tensor(7):item())
local cz = dlx.tensor({ { re = 1, im = 2 } })
show("complex totable()[1].im", cz:totable()[1].im)
local big = dlx.tensor({ -1 }):astype("uint64"):item()
show("uint64 2^64-1 as a Lua value", ("%.17g"):format(big))
check(math.type(dlx.tensor(7):item()) == "integer", "integers stay integers")
check(cz:totable()[1].im == 2, "complex values are {re, im} tables")
check(big == 2.0 ^ 64, "uint64 above maxinteger comes back as a float")

section("Compute: what a script does with a tensor a host hands it")
-- A host would push its image as a capsule (dlx_push_capsule); a capsule of our own stands in.
local frame = dlx.from_dlpack(dlx.arange(12, { dtype = "float32" }):view({ 3, 4 }):__dlpack({
  max_version = { 1, 3 },
}))
local mean, std = frame:mean(), frame:std()
local normalised = (frame - mean) / std            -- operators broadcast; Lua numbers are weak
show("normalised mean, std",
  ("%.3g, %.3g"):format(normalised:mean():item(), normalised:std():item()))
check(math.abs(normalised:mean():item()) < 1e-6, "normalised mean is 0")
check(math.abs(normalised:std():item() - 1) < 1e-5, "normalised std is 1")
local mask = normalised:gt(0.5)                    -- comparisons are methods: == stays identity
local thresholded = dlx.where(mask, normalised, 0)
show("thresholded", thresholded)
check(mask.dtype == "bool" and thresholded:gt(0):sum():item() == mask:sum():item(), "where")
local p = dlx.softmax(normalised, 2)               -- stable: each row's max comes off first
show("softmax rows sum to", p:sum(2))
check(p:sum(2):sub(1):abs():max():item() < 1e-6, "softmax rows sum to 1")
check(p:argmax(2):totable()[1] == 4, "the largest value gets the largest share")
local clipped = frame:clamp(2, 9):exp():log()      -- method chains; math is within 1 ulp
check(math.abs(clipped:max():item() - 9) < 1e-5 and clipped:min():item() == 2, "clamp, exp, log")
local ok2, err2 = pcall(function() return frame + dlx.zeros({ 5 }) end)
show("shapes that do not broadcast", err2)
check(not ok2 and err2:find("ValueError:", 1, true), "a broadcast error names the shapes")

section("Indexing, joining, sorting, random numbers and files")
local g = dlx.Generator(42)                        -- counter-based: the same bits everywhere
local x = dlx.randn({ 4, 3 }, { generator = g })
show("dlx.randn({4, 3}, seeded)", x)
check(dlx.equal(x, dlx.randn({ 4, 3 }, { generator = dlx.Generator(42) })), "a seed repeats")
show("x[2][3] (an element)", x[2][3])
check(math.type(x[2][3]) == "float" and x[2][3] == x:select(1, 2):select(1, 3):item(), "t[i]")
local corner = x[{ { 1, 2 }, -1 }]                 -- Torch7's ranges: inclusive, negatives
check(same(corner.shape, { 2 }) and corner[2] == x[2][3], "t[{range, i}] is a view")
local rows = 0
for _, row in ipairs(x) do rows = rows + (row.ndim == 1 and 1 or 0) end
check(rows == #x and #x == 4, "ipairs and # agree: rows of a matrix")
x[x:lt(0)] = 0                                     -- assignment through a bool mask
check(x:min():item() == 0, "masked assignment")
local values, order = x[{ {}, 1 }]:sort(1, true)   -- stable, with 1-based positions
show("column 1 sorted, descending", values)
check(values[1] == x[{ {}, 1 }]:max():item() and order.dtype == "int64", "sort")
local by_first = x:index_select(1, order)          -- the rows in that order (a copy)
check(dlx.equal(by_first[{ {}, 1 }], values), "index_select")
local joined = dlx.cat({ x, by_first }, 1)
check(same(joined.shape, { 8, 3 }) and dlx.equal(joined:chunk(2, 1)[2], by_first), "cat, chunk")
local path = os.tmpname()
dlx.save_npy(path, joined)                         -- NumPy's .npy format
local loaded = dlx.load_npy(path)
os.remove(path)
show("save_npy / load_npy", ("%s %s"):format(table.concat(loaded.shape, "x"), loaded.dtype))
check(dlx.equal(loaded, joined), "a .npy file round-trips")

section("Linear algebra: a pose applied to points, a least-squares fit")
-- The pose: a turn of 90 degrees about z, then a move by (1, 2, 0), as one 4x4 matrix.
local pose = dlx.tensor({ { 0, -1, 0, 1 }, { 1, 0, 0, 2 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } },
  { dtype = "float32" })
local points = dlx.tensor({ { 1, 0, 0 }, { 0, 1, 0 }, { 2, 3, 4 } }, { dtype = "float32" })
local hom = dlx.cat({ points, dlx.ones({ 3, 1 }) }, 2)    -- rows (x, y, z, 1)
local moved = hom:matmul(pose:transpose(1, 2))[{ {}, { 1, 3 } }] -- pose @ p for every row p
show("the points moved by the pose", moved)
check(same(moved:totable(), { { 1, 3, 0 }, { 0, 2, 0 }, { -2, 4, 4 } }), "pose @ points")
check(dlx.equal(pose:matmul(hom:select(1, 3)), hom:matmul(pose:transpose(1, 2)):select(1, 3)),
  "one point at a time gives the same")
local many = dlx.randn({ 1000, 4, 4 }, { generator = dlx.Generator(3) })
local twice = dlx.matmul(many, many)                -- a batch of 1000 4x4 products at once
check(dlx.equal(twice:select(1, 500), many:select(1, 500):matmul(many:select(1, 500))),
  "a batch of products is the products of its elements")
local xs = dlx.linspace(0, 1, 50, { dtype = "float64" })
local noise = dlx.randn({ 50 }, { generator = dlx.Generator(7), dtype = "float64" })
local ys = 2 * xs + 1 + 0.05 * noise               -- samples of the line y = 2x + 1, with noise
local design = dlx.stack({ xs, dlx.ones_like(xs) }, 2) -- a row (x, 1) for each sample
local coef, residual, rank = dlx.linalg.lstsq(design, ys)
show("lstsq: slope, intercept", ("%.3f, %.3f"):format(coef[1], coef[2]))
check(("%.3f %.3f"):format(coef[1], coef[2]) == "1.985 1.018", "the fitted line (seeded noise)")
check(rank:item() == 2, "rank of the design matrix")
-- least squares: the residual is orthogonal to the columns (the normal equations)
local misfit = design:matmul(coef) - ys
check(design:transpose(1, 2):matmul(misfit):abs():max():item() < 1e-12, "normal equations")
check(math.abs((misfit * misfit):sum():item() - residual:item()) < 1e-12, "the squared residual")

section("Lifetime")
collectgarbage()
local before = dlx.memory_allocated(dev)
do
  local scratch <close> = dlx.empty({ 1 << 20 }, { dtype = "uint8" })
  show("inside a <close> scope", ("%d bytes more"):format(dlx.memory_allocated(dev) - before))
  check(scratch.nbytes == 1 << 20, "scratch size")
end
show("after the scope", ("%d bytes more"):format(dlx.memory_allocated(dev) - before))
local gone = dlx.zeros({ 2 })
gone:close()
ok, err = pcall(function() return gone.shape end)
show("use after close", err)
check(not ok and err:find("ValueError:", 1, true), "use after close is a ValueError")

section("DLPack")
local src = dlx.arange(4, { dtype = "float32" })
show("src:__dlpack_device()", table.concat({ src:__dlpack_device() }, ", "))
local cap = src:__dlpack({ max_version = { 1, 3 } })
show("capsule", cap.name)
local back = dlx.from_dlpack(cap)
show("after from_dlpack the capsule is", cap.name)
back:select(1, 1):fill_(42)
show("write through the import, read src", src)
check(cap.name == "used_dltensor_versioned", "capsules are consumed once")
check(src:totable()[1] == 42, "from_dlpack is zero-copy")
ok, err = pcall(dlx.from_dlpack, cap)
show("a second from_dlpack", err)
check(not ok and err:find("ValueError:", 1, true), "a second use is a ValueError")
local legacy = src:__dlpack()
show("no max_version gives", legacy.name)
check(legacy.name == "dltensor", "legacy capsule")
-- any value with __dlpack and __dlpack_device is a producer
local producer = {
  __dlpack_device = function() return src:__dlpack_device() end,
  __dlpack = function(_, kw) return src:__dlpack(kw) end,
}
local copy = dlx.from_dlpack(producer, { copy = true })
copy:fill_(0)
show("from_dlpack(producer, {copy = true})", copy)
check(src:totable()[1] == 42, "copy = true does not share memory")

print("\ntour: all checks passed")
