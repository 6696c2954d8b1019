-- The script that examples/python/example.py runs. Its functions take DLPack capsules from
-- Python (NumPy arrays, PyTorch tensors) and return dlx tensors, which Python takes back with
-- numpy.from_dlpack or torch.from_dlpack.
local dlx = require "dlx"

local M = {}

-- Zeroes the diagonal of a square matrix in place: in the caller's own memory.
function M.zero_diagonal(capsule)
  local x = dlx.from_dlpack(capsule) -- zero-copy: x is the caller's array
  for i = 1, #x do
    x:select(1, i):select(1, i):fill_(0)
  end
end

-- The sums of the rows: a new tensor, in dlx's memory.
function M.row_sums(capsule)
  return dlx.from_dlpack(capsule):sum(2)
end

-- Every other column, last first: a view of the caller's memory (negative strides), and the
-- same as a contiguous copy, for peers that cannot take negative strides (PyTorch).
function M.every_other_column_reversed(capsule)
  local view = dlx.from_dlpack(capsule):flip(2):slice(2, 1, -1, 2)
  return view, view:contiguous()
end

return M
