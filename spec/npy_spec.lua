-- Bytes and .npy files: t:tobytes(), dlx.frombuffer, dlx.save_npy and dlx.load_npy (a copy or a
-- mapping), files written here by hand (every version, byte order, Fortran order) and broken ones
-- (each must be a ValueError, never a crash or a huge allocation), and files exchanged with NumPy
-- when python3 has it.
local h = require "spec.helper"
local dlx = h.dlx

local NUMPY_DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
  "uint64", "float16", "float32", "float64", "complex64", "complex128" }

-- Temporary files, removed after each spec.
local made = {}
local function tmpname()
  local name = os.tmpname()
  made[#made + 1] = name
  return name
end

local function write_file(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
end

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- A .npy file by hand: the preamble of the version, the dict padded as NumPy pads it, the data.
local function npy_file(dict, data, version)
  version = version or 1
  local fixed = version == 1 and 10 or 12
  local hlen = #dict + 1
  local pad = 64 - (fixed + hlen) % 64
  local len = string.pack(version == 1 and "<I2" or "<I4", hlen + pad)
  return "\x93NUMPY" .. string.char(version, 0) .. len .. dict .. (" "):rep(pad) .. "\n"
    .. (data or "")
end

local function dict(descr, shape, fortran)
  return ("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }"):format(descr,
    fortran and "True" or "False", shape)
end

-- A tensor of dtype with small values that every dtype holds exactly.
local function sample(dtype, shape)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  local t = dlx.arange(n):astype(dtype)
  return t:view(#shape == 0 and {} or shape)
end

after_each(function()
  for _, name in ipairs(made) do os.remove(name) end
  made = {}
end)

describe("t:tobytes()", function()
  it("gives the elements' bytes in C order, in this machine's (little-endian) order", function()
    local t = dlx.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = "int32" })
    assert.equal(string.pack("<i4i4i4i4i4i4", 1, 2, 3, 4, 5, 6), t:tobytes())
    assert.equal(string.pack("<dd", 1.5, -2), dlx.tensor({ 1.5, -2 }, { dtype = "float64" })
      :tobytes())
  end)

  it("writes bool, float16, bfloat16 and complex as NumPy and PyTorch store them", function()
    assert.equal("\1\0\1", dlx.tensor({ true, false, true }):tobytes())
    assert.equal(string.pack("<I2I2", 0x3c00, 0xc000),
      dlx.tensor({ 1, -2 }, { dtype = "float16" }):tobytes())
    assert.equal(string.pack("<I2I2", 0x3f80, 0xc000),
      dlx.tensor({ 1, -2 }, { dtype = "bfloat16" }):tobytes())
    assert.equal(string.pack("<ffff", 1, 2, 3, -4),
      dlx.tensor({ { re = 1, im = 2 }, { re = 3, im = -4 } }):tobytes())
    assert.equal(string.pack("<dd", 1, 2),
      dlx.tensor({ { re = 1, im = 2 } }, { dtype = "complex128" }):tobytes())
  end)

  it("reads any layout in C order: transposed, flipped, stepped, broadcast, at an offset",
    function()
      local t = dlx.arange(12, { dtype = "int16" }):view({ 3, 4 })
      local views = {
        t:transpose(1, 2), t:flip(1), t:slice(2, 1, -1, 2), t:select(1, 2),
        dlx.arange(3, { dtype = "int16" }):view({ 1, 3 }):expand({ 2, 3 }),
      }
      for _, v in ipairs(views) do
        assert.equal(v:contiguous():tobytes(), v:tobytes())
        assert.equal(v.numel * 2, #v:tobytes())
      end
      assert.equal(string.pack("<i2i2i2", 0, 4, 8), t:select(2, 1):tobytes())
    end)

  it("gives one item for a 0-d tensor and an empty string for a zero-size one", function()
    assert.equal(string.pack("<f", 7), dlx.tensor(7.0):tobytes())
    assert.equal("", dlx.empty({ 0, 3 }):tobytes())
  end)

  it("copies storage-only dtypes bit for bit, packed fp4 and fp6 included", function()
    local bytes = "\x01\x7f\x80\xff"
    for _, dtype in ipairs { "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn_x2" } do
      assert.equal(bytes, dlx.frombuffer(bytes, dtype):tobytes())
    end
    local fp4 = dlx.frombuffer(bytes, "float4_e2m1fn")
    assert.same({ 8 }, fp4.shape)
    assert.equal(bytes, fp4:tobytes())
    assert.equal("\x7f", fp4:narrow(1, 3, 2):tobytes()) -- at a byte boundary
    local fp6 = dlx.frombuffer("\1\2\3", "float6_e2m3fn")
    assert.same({ 4 }, fp6.shape)
    assert.equal("\1\2\3", fp6:tobytes())
  end)

  it("refuses a closed tensor", function()
    local t = dlx.zeros(2)
    t:close()
    h.raises("ValueError", t.tobytes, t)
  end)
end)

describe("dlx.frombuffer(s, dtype[, shape])", function()
  it("makes a new CPU tensor with a copy of the bytes, 1-D without a shape", function()
    local s = string.pack("<i4i4i4i4i4i4", 1, 2, 3, 4, 5, 6)
    local t = dlx.frombuffer(s, "int32")
    assert.same({ 6 }, t.shape)
    assert.equal("cpu", tostring(t.device))
    assert.is_false(t.readonly)
    h.exact({ 1, 2, 3, 4, 5, 6 }, t:totable())
    local m = dlx.frombuffer(s, "int32", { 2, 3 })
    h.exact({ { 1, 2, 3 }, { 4, 5, 6 } }, m:totable())
    m:fill_(0) -- a copy: the string (immutable in Lua) is untouched
    assert.equal(string.pack("<i4", 1), s:sub(1, 4))
    h.exact({ 1, 2, 3, 4, 5, 6 }, t:totable())
  end)

  it("round-trips every dtype through tobytes", function()
    for _, dtype in ipairs(h.dtype_names(true)) do
      local t = sample(dtype, { 2, 3 })
      local back = dlx.frombuffer(t:tobytes(), dtype, { 2, 3 })
      assert.equal(dtype, back.dtype)
      assert.same(t:totable(), back:totable())
    end
  end)

  it("takes a 0-d shape and empty strings", function()
    local t = dlx.frombuffer(string.pack("<d", 2.5), "float64", {})
    assert.equal(0, t.ndim)
    assert.equal(2.5, t:item())
    assert.same({ 0 }, dlx.frombuffer("", "float32").shape)
    assert.same({ 0, 4 }, dlx.frombuffer("", "int64", { 0, 4 }).shape)
  end)

  it("refuses a length that is not whole items or does not match the shape, naming both",
    function()
      local err = h.raises("ValueError", dlx.frombuffer, "abcdefg", "float32")
      assert.truthy(err:find("7 bytes", 1, true), err)
      assert.truthy(err:find("float32", 1, true), err)
      err = h.raises("ValueError", dlx.frombuffer, ("x"):rep(16), "float32", { 3, 2 })
      assert.truthy(err:find("16 bytes", 1, true), err)
      assert.truthy(err:find("{3, 2}", 1, true), err)
      assert.truthy(err:find("24 bytes", 1, true), err)
      h.raises("ValueError", dlx.frombuffer, "ab", "float6_e2m3fn")
      h.raises("ValueError", dlx.frombuffer, "abcd", "int8", { -4 })
    end)

  it("refuses what is not a string, and unknown dtypes", function()
    h.raises("TypeError", dlx.frombuffer, 12, "int8")
    h.raises("TypeError", dlx.frombuffer, dlx.zeros(2), "int8")
    h.raises("TypeError", dlx.frombuffer, "ab", "half")
    h.raises("TypeError", dlx.frombuffer, "ab")
  end)
end)

describe("dlx.save_npy and dlx.load_npy", function()
  it("round-trip every dtype NumPy has, and 0-d and zero-size arrays", function()
    for _, dtype in ipairs(NUMPY_DTYPES) do
      for _, shape in ipairs { { 2, 3, 4 }, {}, { 0, 3 }, { 5 } } do
        local t = sample(dtype, shape)
        local path = tmpname()
        dlx.save_npy(path, t)
        local back = dlx.load_npy(path)
        assert.equal(dtype, back.dtype)
        assert.same(t.shape, back.shape)
        assert.equal(t:tobytes(), back:tobytes())
        assert.is_false(back.readonly)
      end
    end
  end)

  it("writes the header NumPy writes: version 1.0, '<f4', padded to 64 bytes", function()
    local path = tmpname()
    dlx.save_npy(path, dlx.zeros({ 2, 3 }))
    local bytes = read_file(path)
    assert.equal(128 + 24, #bytes)
    assert.equal("\x93NUMPY\1\0", bytes:sub(1, 8))
    assert.equal(118, string.unpack("<I2", bytes, 9))
    local text = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    assert.equal(text, bytes:sub(11, 10 + #text))
    assert.equal("\n", bytes:sub(128, 128))
  end)

  it("saves any layout, device or read-only tensor in C order", function()
    local t = dlx.arange(24, { dtype = "float64" }):view({ 2, 3, 4 })
    local views = { t:permute({ 3, 1, 2 }), t:flip(2), t:slice(3, 1, -1, 3), (h.readonly_tensor()) }
    for _, v in ipairs(views) do
      local path = tmpname()
      dlx.save_npy(path, v)
      local back = dlx.load_npy(path)
      assert.same(v.shape, back.shape)
      assert.same(dlx.empty(v.shape).strides, back.strides) -- C order
      assert.equal(v:tobytes(), back:tobytes())
    end
  end)

  it("refuses to save bfloat16 and storage-only dtypes, which NumPy does not have", function()
    local path = tmpname()
    local err = h.raises("TypeError", dlx.save_npy, path, dlx.zeros(2, { dtype = "bfloat16" }))
    assert.truthy(err:find("astype", 1, true), err)
    h.raises("TypeError", dlx.save_npy, path, dlx.empty(2, { dtype = "float8_e4m3fn" }))
  end)

  it("reads versions 2.0 and 3.0, which have a 4-byte header length", function()
    for _, version in ipairs { 1, 2, 3 } do
      local path = tmpname()
      write_file(path, npy_file(dict("<i2", "(3,)"), string.pack("<i2i2i2", 7, -8, 9), version))
      h.exact({ 7, -8, 9 }, dlx.load_npy(path):totable())
      h.exact({ 7, -8, 9 }, dlx.load_npy(path, { mmap = true }):totable())
    end
  end)

  it("swaps big-endian data into this machine's order", function()
    local cases = {
      { ">i4", "int32", ">i4i4", { 1, -2 } },
      { ">u2", "uint16", ">I2I2", { 258, 65535 } },
      { ">f8", "float64", ">dd", { 1.5, -0.25 } },
      { ">f4", "float32", ">ff", { 3.5, -1.5 } },
      { ">i8", "int64", ">i8i8", { 1 << 40, -3 } },
    }
    for _, c in ipairs(cases) do
      local path = tmpname()
      write_file(path, npy_file(dict(c[1], "(2,)"), string.pack(c[3], c[4][1], c[4][2])))
      local t = dlx.load_npy(path)
      assert.equal(c[2], t.dtype)
      h.exact(c[4], t:totable())
    end
    local path = tmpname()
    write_file(path, npy_file(dict(">c8", "(1,)"), string.pack(">ff", 1.5, -2)))
    h.same({ { re = 1.5, im = -2 } }, dlx.load_npy(path):totable())
    write_file(path, npy_file(dict(">f2", "(1,)"), string.pack(">I2", 0x3c00)))
    h.same({ 1 }, dlx.load_npy(path):totable())
    write_file(path, npy_file(dict("|b1", "(2,)"), "\1\0"))
    h.same({ true, false }, dlx.load_npy(path):totable())
  end)

  it("loads Fortran order as a tensor with transposed strides over the same bytes", function()
    local path = tmpname()
    -- the 2 x 3 matrix {{1, 2, 3}, {4, 5, 6}} stored column by column
    write_file(path, npy_file(dict("<i4", "(2, 3)", true), string.pack("<i4i4i4i4i4i4",
      1, 4, 2, 5, 3, 6)))
    for _, opts in ipairs { {}, { mmap = true } } do
      local t = dlx.load_npy(path, opts)
      assert.same({ 2, 3 }, t.shape)
      assert.same({ 1, 2 }, t.strides)
      h.exact({ { 1, 2, 3 }, { 4, 5, 6 } }, t:totable())
    end
    write_file(path, npy_file(dict(">i2", "(2, 2)", true), string.pack(">i2i2i2i2", 1, 3, 2, 4)))
    h.exact({ { 1, 2 }, { 3, 4 } }, dlx.load_npy(path):totable())
  end)

  it("reads the header's Python literal however it is spaced, quoted and ordered", function()
    local path = tmpname()
    write_file(path, npy_file("{\"shape\":(2,),'fortran_order':False,  'descr':'<u1'}", "\5\6"))
    h.exact({ 5, 6 }, dlx.load_npy(path):totable())
  end)

  it("ignores bytes after the data, as NumPy does", function()
    local path = tmpname()
    write_file(path, npy_file(dict("|u1", "(2,)"), "\5\6\7\8"))
    h.exact({ 5, 6 }, dlx.load_npy(path):totable())
  end)

  it("checks its arguments and options", function()
    h.raises("TypeError", dlx.load_npy, 3)
    h.raises("TypeError", dlx.save_npy, {}, dlx.zeros(1))
    h.raises("TypeError", dlx.save_npy, tmpname(), { 1, 2 })
    h.raises("TypeError", dlx.load_npy, "x.npy", "mmap")
    local err = h.raises("TypeError", dlx.load_npy, "x.npy", { nmap = true })
    assert.truthy(err:find("mmap", 1, true), err)
    h.raises("TypeError", dlx.load_npy, "x.npy", { mmap = 1 })
    h.raises("ValueError", dlx.load_npy, "x.npy", { writable = true })
  end)
end)

describe("dlx.load_npy with mmap = true", function()
  local function saved(t)
    local path = tmpname()
    dlx.save_npy(path, t)
    return path
  end

  -- Whether the file is mapped into this process (Linux: /proc/self/maps), or nil elsewhere.
  local function mapped(path)
    local f = io.open("/proc/self/maps", "r")
    if not f then return nil end
    local maps = f:read("a")
    f:close()
    return maps:find(path, 1, true) ~= nil
  end

  it("gives a read-only tensor over the file", function()
    local path = saved(dlx.arange(6, { dtype = "float32" }))
    local t = dlx.load_npy(path, { mmap = true })
    assert.is_true(t.readonly)
    h.same({ 0, 1, 2, 3, 4, 5 }, t:totable())
    h.raises("ValueError", t.fill_, t, 1)
    assert.equal(t:tobytes(), dlx.arange(6, { dtype = "float32" }):tobytes())
  end)

  it("with writable = true writes through to the file", function()
    local path = saved(dlx.zeros(4, { dtype = "int32" }))
    local t = dlx.load_npy(path, { mmap = true, writable = true })
    assert.is_false(t.readonly)
    t:narrow(1, 2, 2):fill_(7)
    t = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    h.exact({ 0, 7, 7, 0 }, dlx.load_npy(path):totable())
  end)

  it("keeps the mapping until the last view and export are gone, then unmaps it", function()
    local path = saved(dlx.arange(8, { dtype = "int64" }))
    local t = dlx.load_npy(path, { mmap = true })
    local view = t:narrow(1, 3, 2)
    local capsule = t:__dlpack({ max_version = { 1, 3 } })
    t = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    h.exact({ 2, 3 }, view:totable())
    view = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    local back = dlx.from_dlpack(capsule)
    h.exact({ 0, 1, 2, 3, 4, 5, 6, 7 }, back:totable())
    if mapped(path) == nil then return end
    assert.is_true(mapped(path))
    back, capsule = nil, nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.is_false(mapped(path))
  end)

  it("stays readable when the file is saved over: save_npy replaces it by renaming", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. h.shquote(dir)))
    finally(function() os.execute("rm -rf " .. h.shquote(dir)) end)
    local path = dir .. "/a.npy"
    dlx.save_npy(path, dlx.arange(1000, { dtype = "int32" }))
    local m = dlx.load_npy(path, { mmap = true })
    dlx.save_npy(path, m:narrow(1, 1, 2)) -- a shorter file at the same path
    assert.equal(499500, m:sum():item()) -- the mapping still holds the old file
    h.exact({ 0, 1 }, dlx.load_npy(path):totable())
    local p = assert(io.popen("ls -A " .. h.shquote(dir)))
    assert.equal("a.npy\n", p:read("a")) -- no temporary file left beside it
    p:close()
  end)

  it("refuses big-endian data, which a mapping cannot swap", function()
    local path = tmpname()
    write_file(path, npy_file(dict(">i4", "(1,)"), string.pack(">i4", 1)))
    local err = h.raises("ValueError", dlx.load_npy, path, { mmap = true })
    assert.truthy(err:find("without mmap", 1, true), err)
  end)

  it("maps zero-size and 0-d arrays", function()
    local t = dlx.load_npy(saved(dlx.empty({ 0, 2 })), { mmap = true })
    assert.same({ 0, 2 }, t.shape)
    assert.is_true(t.readonly)
    assert.equal(5, dlx.load_npy(saved(dlx.tensor(5)), { mmap = true }):item())
  end)
end)

describe("dlx.load_npy of damaged, truncated and hostile files", function()
  local good = dict("<f4", "(2,)")
  local data = string.pack("<ff", 1, 2)
  local cases = {
    { "an empty file", "", "truncated" },
    { "a few bytes of magic", "\x93NUM", "truncated" },
    { "a text file", "hello, world: not numbers\n", "magic" },
    { "another magic", "\x93NUMPZ" .. npy_file(good, data):sub(7), "magic" },
    { "an unknown version", npy_file(good, data):gsub("^(\x93NUMPY)\1", "%1\4"), "version 4.0" },
    { "a minor version", npy_file(good, data):gsub("^(\x93NUMPY\1)\0", "%1\1"), "version 1.1" },
    { "a header length past the file", npy_file(good, data):sub(1, 8) .. "\xff\xff" ..
      npy_file(good, data):sub(11), "past its" },
    { "a header cut short", npy_file(good, data):sub(1, 40), "past its" },
    { "a 4 GiB header length (2.0)", "\x93NUMPY\2\0\xff\xff\xff\xff{}", "longer than" },
    { "a header that is code", npy_file("__import__('os').system('true')", data), "dict literal" },
    { "a header with no shape", npy_file("{'descr': '<f4', 'fortran_order': False}", data),
      "missing" },
    { "a negative dim", npy_file(dict("<f4", "(-2,)"), data), "negative" },
    { "a dim past int64", npy_file(dict("<f4", "(99999999999999999999,)"), data), "overflows" },
    { "dims whose product overflows", npy_file(dict("<f4", "(4294967296, 4294967296)"), data),
      "overflows" },
    { "33 dims", npy_file(dict("<f4", "(" .. ("1, "):rep(33) .. ")"), data), "32 dims" },
    { "an object array", npy_file(dict("|O", "(2,)"), data), "object" },
    { "an unknown descr", npy_file(dict("<f16", "(2,)"), data), "not a type dlx reads" },
    { "a string descr", npy_file(dict("<U3", "(2,)"), data), "not a type dlx reads" },
    { "a structured descr", npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, "
      .. "'shape': (2,), }", data), "structured" },
    { "data shorter than the shape", npy_file(dict("<f4", "(3,)"), data), "need 12 bytes" },
    { "a huge shape over a tiny file", npy_file(dict("<f8", "(1099511627776,)"), data),
      "need 8796093022208 bytes" },
  }
  for _, c in ipairs(cases) do
    it("refuses " .. c[1] .. " with a ValueError that says so", function()
      local path = tmpname()
      write_file(path, c[2])
      for _, opts in ipairs { {}, { mmap = true } } do
        local err = h.raises("ValueError", dlx.load_npy, path, opts)
        assert.truthy(err:find(c[3], 1, true), err)
        assert.truthy(err:find(path, 1, true), err)
      end
    end)
  end

  it("reports what the OS refuses as an OSError naming the path", function()
    local missing = tmpname() .. ".missing"
    local err = h.raises("OSError", dlx.load_npy, missing)
    assert.truthy(err:find(missing, 1, true), err)
    assert.equal("OSError", dlx.error_class(err))
    h.raises("OSError", dlx.save_npy, missing .. "/in/no/directory.npy", dlx.zeros(1))
    h.raises("OSError", dlx.load_npy, "/")
  end)
end)

-- ---- NumPy writes, dlx reads; dlx writes, NumPy reads

-- A python3 that has numpy, or nil (as spec/property_spec.lua finds it).
local function python_with_numpy()
  for _, python in ipairs { os.getenv("DLX_PYTHON") or "python3", "/usr/bin/python3" } do
    python = "env -u LD_PRELOAD " .. python
    if os.execute(python .. " -c 'import numpy' >/dev/null 2>&1") == true then return python end
  end
  return nil
end
local PYTHON = python_with_numpy()

-- Runs a Python script (numpy imported as np, sys.argv[1:] the arguments); its output.
local function python(script, ...)
  local file = tmpname()
  write_file(file, "import sys\nimport numpy as np\nfrom numpy.lib import format as fmt\n"
    .. script)
  local args = { PYTHON, file }
  for _, a in ipairs { ... } do args[#args + 1] = h.shquote(a) end
  local p = assert(io.popen(table.concat(args, " ") .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  assert(ok, "python failed: " .. out)
  return out
end

describe("files exchanged with NumPy", function()
  if not PYTHON then
    pending("python3 has no numpy (apt-get install python3-numpy): skipped")
    return
  end

  -- For each dtype, byte order, order and version: the file NumPy wrote, and NumPy's own C-order,
  -- native bytes of the same array (a.bin), which dlx's tobytes must equal.
  local WRITE = [[
out = sys.argv[1]
codes = sys.argv[2].split(",")
n = 0
for code in codes:
    for order in "<>":
        for fortran in (False, True):
            for version in ((1, 0), (2, 0), (3, 0)):
                dt = np.dtype(code).newbyteorder(order)
                a = (np.arange(24) - 5).astype(dt).reshape(2, 3, 4)
                if fortran:
                    a = np.asfortranarray(a)
                name = "%s/%d" % (out, n)
                with open(name + ".npy", "wb") as f:
                    fmt.write_array(f, a, version=version)
                with open(name + ".bin", "wb") as f:
                    f.write(np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="))).tobytes())
                print(n, code, order, int(fortran), version[0])
                n += 1
]]

  local CODES = { "?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8",
    "c16" }
  local DTYPE_OF = {
    ["?"] = "bool", i1 = "int8", i2 = "int16", i4 = "int32", i8 = "int64", u1 = "uint8",
    u2 = "uint16", u4 = "uint32", u8 = "uint64", f2 = "float16", f4 = "float32", f8 = "float64",
    c8 = "complex64", c16 = "complex128",
  }

  -- A fresh directory, removed with its files when the spec ends.
  local function tmpdir()
    local dir = tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. h.shquote(dir)))
    finally(function() os.execute("rm -rf " .. h.shquote(dir)) end)
    return dir
  end

  it("dlx loads what NumPy writes: every dtype, byte order, order and version", function()
    local dir = tmpdir()
    local out = python(WRITE, dir, table.concat(CODES, ","))
    local count = 0
    for n, code, order, fortran, version in out:gmatch("(%d+) (%S+) (%S) (%d) (%d)\n") do
      local name = dir .. "/" .. n
      local t = dlx.load_npy(name .. ".npy")
      local what = ("%s %s fortran=%s v%s"):format(code, order, fortran, version)
      assert.equal(DTYPE_OF[code], t.dtype, what)
      assert.same({ 2, 3, 4 }, t.shape, what)
      local c_order = dlx.empty(t.shape).strides
      assert.equal(fortran == "1", c_order[1] ~= t.strides[1], what)
      assert.equal(read_file(name .. ".bin"), t:tobytes(), what)
      local byte_swapped = order == ">" and code ~= "?" and code ~= "i1" and code ~= "u1"
      if not byte_swapped then
        assert.equal(read_file(name .. ".bin"), dlx.load_npy(name .. ".npy", { mmap = true })
          :tobytes(), what)
      end
      count = count + 1
    end
    assert.equal(#CODES * 2 * 2 * 3, count)
  end)

  it("NumPy loads what dlx writes, dtype and values, bit for bit the file np.save writes",
    function()
      local READ = [[
for path in sys.argv[1:]:
    a = np.load(path + ".npy")
    b = open(path + ".bin", "rb").read()
    assert a.tobytes() == b, path
    again = path + ".again.npy"
    np.save(again, a)
    same = open(again, "rb").read() == open(path + ".npy", "rb").read()
    print(a.dtype.str, a.shape, "same" if same else "differs")
]]
      local dir, paths = tmpdir(), {}
      for _, dtype in ipairs(NUMPY_DTYPES) do
        for _, shape in ipairs { { 2, 3 }, {}, { 0 }, { 7 } } do
          local t = sample(dtype, shape)
          if #shape == 2 then t = t:transpose(1, 2) end -- saved in C order all the same
          local path = ("%s/%s-%d"):format(dir, dtype, #shape)
          dlx.save_npy(path .. ".npy", t)
          write_file(path .. ".bin", t:tobytes())
          paths[#paths + 1] = path
        end
      end
      local out = python(READ, table.unpack(paths))
      local lines = 0
      for line in out:gmatch("[^\n]+") do
        lines = lines + 1
        assert.truthy(line:find("same$"), line)
      end
      assert.equal(#paths, lines, out)
    end)
end)
