-- The script that examples/embed/embed.c runs. The host calls it with two capsules: `host`,
-- which wraps the host's own 2x3 float32 buffer, and `unused`, which the script never consumes
-- (dlx calls its deleter when it is collected). It returns a tensor that the host takes back.
local dlx = require "dlx" -- preloaded by dlx_openlibs: no files needed
local host, unused = ...
assert(dlx.is_capsule(host) and host.name == "dltensor_versioned")
assert(dlx.is_capsule(unused))

local t = dlx.from_dlpack(host) -- zero-copy: t is the host's memory
assert(host.name == "used_dltensor_versioned")
assert(t.dtype == "float32" and t.ndim == 2 and t.shape[1] == 2 and t.shape[2] == 3)

t:select(1, 2):fill_(10) -- row 2 := 10, in the host's buffer
return t:sum(1) -- column sums, a new float32 tensor {3}
