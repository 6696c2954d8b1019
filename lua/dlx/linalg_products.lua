--- dlx.linalg_products: the products built on dlx.matmul and views (docs/linalg.md):
--- dlx.outer, dlx.tensordot, dlx.einsum, dlx.kron, dlx.cross, dlx.diag and t:trace.
--- Contractions are matrix products after permutes and reshapes, never loops over elements.
local M = {}

local function fail(class, fmt, ...)
  error(class .. ": " .. fmt:format(...), 3)
end

local function shape_text(t) return "{" .. table.concat(t.shape, ", ") .. "}" end

local function is_tensor(core, v) return core.is_tensor(v) end

local function product(list, first, last)
  local n = 1
  for i = first or 1, last or #list do n = n * list[i] end
  return n
end

-- The dtype a and b promote to, as dlx's products and elementwise ops promote them.
local function promoted(dlx, a, b)
  return (dlx.zeros({}, { dtype = a.dtype }) + dlx.zeros({}, { dtype = b.dtype })).dtype
end

function M.install(dlx, core)
  local function check(name, ...)
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      if not is_tensor(core, v) then
        fail("TypeError", "%s: argument %d must be a tensor, not a %s", name, i, type(v))
      end
    end
  end

  --- dlx.outer(a, b): the 2-d outer product of two 1-d tensors.
  function dlx.outer(a, b)
    check("outer", a, b)
    if a.ndim ~= 1 or b.ndim ~= 1 then
      fail("ValueError", "outer: both operands must be 1-d, got shapes %s and %s",
        shape_text(a), shape_text(b))
    end
    return a:unsqueeze(2):matmul(b:unsqueeze(1))
  end

  --- t:trace(): the sum of the main diagonal of a 2-d tensor (as t:sum() types it).
  function core.Tensor.trace(t)
    check("trace", t)
    if t.ndim ~= 2 then fail("ValueError", "trace: t must be 2-d, got shape %s", shape_text(t)) end
    return t:diagonal():sum()
  end

  --- dlx.diag(t[, k]): a 1-d t as the k-th diagonal of a square matrix, or the k-th diagonal of a
  --- 2-d t as a new 1-d tensor (Torch7's and NumPy's diag).
  function dlx.diag(t, k)
    check("diag", t)
    k = k or 0
    if math.type(k) ~= "integer" then
      fail("TypeError", "diag: k must be an integer, not %s", tostring(k))
    end
    if t.ndim == 2 then return t:diagonal(k):clone() end
    if t.ndim ~= 1 then
      fail("ValueError", "diag: t must be 1-d or 2-d, got shape %s", shape_text(t))
    end
    local n = t.shape[1] + math.abs(k)
    local m = dlx.zeros({ n, n }, { dtype = t.dtype, device = t.device })
    m:diagonal(k):copy_(t)
    return m
  end

  -- ---- tensordot

  local function dim_list(name, t, dims)
    local out, seen = {}, {}
    for i, d in ipairs(dims) do
      if math.type(d) ~= "integer" or d == 0 or d > t.ndim or d < -t.ndim then
        fail("ValueError", "%s: dim %s out of range for shape %s", name, tostring(d), shape_text(t))
      end
      if d < 0 then d = t.ndim + d + 1 end
      if seen[d] then fail("ValueError", "%s: dim %d given twice", name, d) end
      seen[d], out[i] = true, d
    end
    return out, seen
  end

  -- t permuted to (free dims..., dims...) (or (dims..., free...) when first), as a matrix.
  local function as_matrix(t, dims, seen, first)
    local free, perm, fshape = {}, {}, {}
    for d = 1, t.ndim do
      if not seen[d] then free[#free + 1] = d; fshape[#fshape + 1] = t.shape[d] end
    end
    local k = 1
    for _, d in ipairs(dims) do k = k * t.shape[d] end
    if first then
      table.move(dims, 1, #dims, 1, perm); table.move(free, 1, #free, #dims + 1, perm)
    else
      table.move(free, 1, #free, 1, perm); table.move(dims, 1, #dims, #free + 1, perm)
    end
    local p = #perm > 0 and t:permute(perm) or t
    local rows = product(fshape)
    return p:reshape(first and { k, rows } or { rows, k }), fshape
  end

  --- dlx.tensordot(a, b, dims): contracts the last `dims` dims of a with the first of b, or the
  --- dims of a in dims[1] with those of b in dims[2] (1-based).
  function dlx.tensordot(a, b, dims)
    check("tensordot", a, b)
    local da, db
    if math.type(dims) == "integer" then
      if dims < 0 or dims > a.ndim or dims > b.ndim then
        fail("ValueError", "tensordot: cannot contract %d dims of shapes %s and %s", dims,
          shape_text(a), shape_text(b))
      end
      da, db = {}, {}
      for i = 1, dims do da[i], db[i] = a.ndim - dims + i, i end
    elseif type(dims) == "table" and type(dims[1]) == "table" and type(dims[2]) == "table" then
      da, db = dims[1], dims[2]
    else
      fail("TypeError", "tensordot: dims must be an integer or two lists of dims, not %s",
        type(dims))
    end
    if #da ~= #db then
      fail("ValueError", "tensordot: %d dims of the first against %d of the second", #da, #db)
    end
    local la, sa = dim_list("tensordot", a, da)
    local lb, sb = dim_list("tensordot", b, db)
    for i = 1, #la do
      if a.shape[la[i]] ~= b.shape[lb[i]] then
        fail("ValueError", "tensordot: shapes %s and %s do not match (dim %d of the first has "
          .. "size %d, dim %d of the second %d)", shape_text(a), shape_text(b), la[i],
          a.shape[la[i]], lb[i], b.shape[lb[i]])
      end
    end
    local ma, fa = as_matrix(a, la, sa, false)
    local mb, fb = as_matrix(b, lb, sb, true)
    local shape = table.move(fb, 1, #fb, #fa + 1, table.move(fa, 1, #fa, 1, {}))
    return ma:matmul(mb):reshape(shape)
  end

  -- ---- kron and cross

  --- dlx.kron(a, b): the Kronecker product (NumPy's kron: the shorter shape padded with 1s in
  --- front).
  function dlx.kron(a, b)
    check("kron", a, b)
    local n = math.max(a.ndim, b.ndim)
    local xa, xb = a, b
    for _ = a.ndim + 1, n do xa = xa:unsqueeze(1) end
    for _ = b.ndim + 1, n do xb = xb:unsqueeze(1) end
    local shape = {}
    for d = n, 1, -1 do
      xa = xa:unsqueeze(d + 1)
      xb = xb:unsqueeze(d)
    end
    for d = 1, n do shape[d] = xa.shape[2 * d - 1] * xb.shape[2 * d] end
    return (xa * xb):reshape(shape)
  end

  --- dlx.cross(a, b[, dim = -1]): the cross product of 3-vectors along dim (broadcasting the
  --- others).
  function dlx.cross(a, b, dim)
    check("cross", a, b)
    dim = dim or -1
    local n = math.max(a.ndim, b.ndim)
    if math.type(dim) ~= "integer" or dim == 0 or dim > n or dim < -n then
      fail("ValueError", "cross: dim %s out of range for shapes %s and %s", tostring(dim),
        shape_text(a), shape_text(b))
    end
    local function part(t, i)
      local d = dim < 0 and t.ndim + dim + 1 or dim - (n - t.ndim)
      if d < 1 or t.shape[d] ~= 3 then
        fail("ValueError", "cross: shapes %s and %s must have size 3 in dim %d", shape_text(a),
          shape_text(b), dim)
      end
      return t:narrow(d, i, 1)
    end
    local a1, a2, a3 = part(a, 1), part(a, 2), part(a, 3)
    local b1, b2, b3 = part(b, 1), part(b, 2), part(b, 3)
    local d = dim < 0 and n + dim + 1 or dim
    return dlx.cat({ a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1 }, d)
  end

  -- ---- einsum

  -- The labels of one operand's subscripts, with "..." expanded into ellipsis labels (numbers,
  -- aligned to the right over `width` dims); letters stay strings.
  local function parse_operand(text, t, width, where)
    local labels, ell = {}, text:find("...", 1, true)
    local letters = text:gsub("%.%.%.", "")
    if letters:find("[^%a]") then
      fail("ValueError", "einsum: subscripts may hold letters and one '...', got '%s'", text)
    end
    if select(2, text:gsub("%.%.%.", "")) > 1 or text:gsub("%.%.%.", ""):find("%.") then
      fail("ValueError", "einsum: bad '...' in '%s'", text)
    end
    local named = #letters
    if t ~= nil and (ell and named > t.ndim or not ell and named ~= t.ndim) then
      fail("ValueError", "einsum: operand %d has shape %s but subscripts '%s'", where,
        shape_text(t), text)
    end
    local before = ell and text:sub(1, ell - 1) or text
    local after = ell and text:sub(ell + 3) or ""
    for c in before:gmatch("%a") do labels[#labels + 1] = c end
    if ell then
      local count = t and t.ndim - named or width
      for i = width - count + 1, width do labels[#labels + 1] = i end
    end
    for c in after:gmatch("%a") do labels[#labels + 1] = c end
    return labels, ell ~= nil, t and ell and t.ndim - named or 0
  end

  -- Makes labels unique within one operand: a repeated label takes the diagonal (a view).
  local function take_diagonals(t, labels)
    local i = 1
    while i <= #labels do
      local j = i + 1
      while j <= #labels and labels[j] ~= labels[i] do j = j + 1 end
      if j <= #labels then
        if t.shape[i] ~= t.shape[j] then
          fail("ValueError", "einsum: label '%s' repeated over dims of sizes %d and %d",
            tostring(labels[i]), t.shape[i], t.shape[j])
        end
        local label = labels[i]
        t = t:diagonal(0, i, j)
        table.remove(labels, j)
        table.remove(labels, i)
        labels[#labels + 1] = label
      else
        i = i + 1
      end
    end
    return t, labels
  end

  local function index_of(labels)
    local at = {}
    for i, l in ipairs(labels) do at[l] = i end
    return at
  end

  -- Sums t over the labels no one else needs (keep[label] false).
  local function sum_unneeded(t, labels, keep)
    local dims, rest = {}, {}
    for i, l in ipairs(labels) do
      if keep[l] then rest[#rest + 1] = l else dims[#dims + 1] = i end
    end
    if #dims == 0 then return t, labels end
    return t:sum(dims), rest
  end

  -- The size of each label over the operands (size-1 dims broadcast).
  local function label_sizes(ops)
    local size = {}
    for _, op in ipairs(ops) do
      for i, l in ipairs(op.labels) do
        local s = op.t.shape[i]
        if size[l] == nil or size[l] == 1 then
          size[l] = s
        elseif s ~= 1 and s ~= size[l] then
          fail("ValueError", "einsum: label '%s' has sizes %d and %d", tostring(l), size[l], s)
        end
      end
    end
    return size
  end

  -- t (labels) permuted to `order`, with labels it lacks as size-1 dims and size-1 dims of
  -- labels in `full` expanded to their size, then reshaped into the groups' products.
  local function arrange(t, labels, order, size, groups)
    local at, perm = index_of(labels), {}
    local x = t
    for _, l in ipairs(order) do
      if at[l] == nil then
        x = x:unsqueeze(x.ndim + 1)
        labels = table.move(labels, 1, #labels, 1, {})
        labels[#labels + 1] = l
        at[l] = #labels
      end
    end
    for i, l in ipairs(order) do perm[i] = at[l] end
    if #perm > 0 then x = x:permute(perm) end
    local shape = {}
    for i, l in ipairs(order) do shape[i] = size[l] end
    if #shape > 0 then x = x:expand(shape) end
    local out, k = {}, 1
    for g, count in ipairs(groups) do
      local n = 1
      for _ = 1, count do n = n * shape[k]; k = k + 1 end
      out[g] = n
    end
    return x:reshape(out)
  end

  -- Contracts two operands into one by a batched matrix product.
  local function contract(x, y, needed, size)
    local in_y, in_x = index_of(y.labels), index_of(x.labels)
    local batch, left, inner, right = {}, {}, {}, {}
    for _, l in ipairs(x.labels) do
      if in_y[l] then
        if needed[l] then batch[#batch + 1] = l else inner[#inner + 1] = l end
      else
        left[#left + 1] = l
      end
    end
    for _, l in ipairs(y.labels) do
      if not in_x[l] then right[#right + 1] = l end
    end
    local function concat(...)
      local out = {}
      for _, list in ipairs({ ... }) do table.move(list, 1, #list, #out + 1, out) end
      return out
    end
    local a = arrange(x.t, x.labels, concat(batch, left, inner), size, { #batch, #left, #inner })
    local b = arrange(y.t, y.labels, concat(batch, inner, right), size, { #batch, #inner, #right })
    local r = a:matmul(b)
    local labels, shape = concat(batch, left, right), {}
    for i, l in ipairs(labels) do shape[i] = size[l] end
    return { t = r:reshape(shape), labels = labels }
  end

  -- The labels needed besides operands i and j of ops (lists of labels): the output's and the
  -- other operands'.
  local function needed_besides(sets, i, j, output)
    local needed = {}
    for _, l in ipairs(output) do needed[l] = true end
    for k, labels in ipairs(sets) do
      if k ~= i and k ~= j then
        for _, l in ipairs(labels) do needed[l] = true end
      end
    end
    return needed
  end

  local function size_of(labels, size)
    local n = 1
    for _, l in ipairs(labels) do n = n * size[l] end
    return n
  end

  -- The contraction of operands i < j of sets as NumPy's greedy optimizer rates it: the labels
  -- of the result, the elements it removes (the two operands' sizes less the result's) and its
  -- cost (the product of every label's size, twice that when labels are summed).
  local function rate_pair(sets, i, j, output, size)
    local needed = needed_besides(sets, i, j, output)
    local seen, result, all, summed = {}, {}, 1, false
    for _, labels in ipairs({ sets[i], sets[j] }) do
      for _, l in ipairs(labels) do
        if not seen[l] then
          seen[l] = true
          all = all * size[l]
          if needed[l] then result[#result + 1] = l else summed = true end
        end
      end
    end
    return { i = i, j = j, result = result,
      removed = size_of(sets[i], size) + size_of(sets[j], size) - size_of(result, size),
      cost = summed and 2 * all or all }
  end

  local function disjoint(x, y)
    local at = index_of(x)
    for _, l in ipairs(y) do
      if at[l] then return false end
    end
    return true
  end

  -- The order of the pairwise contractions of operands with these labels (lists, each label
  -- once): NumPy's greedy path. Each step contracts the pair that removes the most elements
  -- (ties: the cheaper, then the pair found first), among the pairs that share a label when
  -- there are any; the two leave the list and their product joins it at the end. Returns the
  -- steps as pairs of positions {i, j} (1-based, i < j) in the list as it is at each step.
  -- (NumPy's path also stops at a memory limit and at the cost of one n-ary einsum, which dlx
  -- does not have: dlx always contracts pairwise.)
  local function greedy_path(sets, output, size)
    sets = table.move(sets, 1, #sets, 1, {})
    local path, known = {}, {}
    if #sets == 2 then return { { 1, 2 } } end
    local function consider(i, j, outer)
      if outer or not disjoint(sets[i], sets[j]) then
        known[#known + 1] = rate_pair(sets, i, j, output, size)
      end
    end
    for i = 1, #sets - 1 do
      for j = i + 1, #sets do consider(i, j, false) end
    end
    while #sets > 1 do
      if #known == 0 then -- no pair shares a label: outer products
        for i = 1, #sets - 1 do
          for j = i + 1, #sets do consider(i, j, true) end
        end
      end
      local best = known[1]
      for _, c in ipairs(known) do
        if c.removed > best.removed or c.removed == best.removed and c.cost < best.cost then
          best = c
        end
      end
      local rest = {}
      for _, c in ipairs(known) do -- the others keep their rating, at their new positions
        if c.i ~= best.i and c.i ~= best.j and c.j ~= best.i and c.j ~= best.j then
          local function moved(k) return k - (k > best.i and 1 or 0) - (k > best.j and 1 or 0) end
          c.i, c.j = moved(c.i), moved(c.j)
          rest[#rest + 1] = c
        end
      end
      known = rest
      path[#path + 1] = { best.i, best.j }
      table.remove(sets, best.j)
      table.remove(sets, best.i)
      sets[#sets + 1] = best.result
      for i = 1, #sets - 1 do consider(i, #sets, false) end
    end
    return path
  end

  local function parse_spec(spec, tensors)
    local lhs, rhs = spec:gsub("%s", ""):match("^([^%-]*)%->(.*)$")
    if lhs == nil then lhs = spec:gsub("%s", "") end
    if lhs:find("[%->]") then fail("ValueError", "einsum: bad subscripts '%s'", spec) end
    local texts = {}
    for text in (lhs .. ","):gmatch("([^,]*),") do texts[#texts + 1] = text end
    if #texts ~= #tensors then
      fail("ValueError", "einsum: '%s' names %d operands, %d given", spec, #texts, #tensors)
    end
    local width = 0
    for i, text in ipairs(texts) do
      local _, _, count = parse_operand(text, tensors[i], 0, i)
      width = math.max(width, count)
    end
    local ops, counts = {}, {}
    for i, text in ipairs(texts) do
      local labels = parse_operand(text, tensors[i], width, i)
      ops[i] = { t = tensors[i], labels = labels }
      for _, l in ipairs(labels) do counts[l] = (counts[l] or 0) + 1 end
    end
    local output = {}
    if rhs ~= nil then
      output = parse_operand(rhs, nil, width, 0)
      local seen = {}
      for _, l in ipairs(output) do
        if seen[l] then fail("ValueError", "einsum: output label '%s' repeated", tostring(l)) end
        if counts[l] == nil then
          fail("ValueError", "einsum: output label '%s' is in no operand", tostring(l))
        end
        seen[l] = true
      end
    else -- implicit: the ellipsis dims, then the labels seen once, in alphabetical order
      local once = {}
      for l, n in pairs(counts) do
        if type(l) == "string" and n == 1 then once[#once + 1] = l end
      end
      table.sort(once)
      for i = 1, width do output[#output + 1] = i end
      table.move(once, 1, #once, #output + 1, output)
    end
    return ops, output
  end

  -- The operands of an einsum call (diagonals taken), its output labels, the size of each label,
  -- the result's dtype and the contraction path.
  local function plan(name, spec, ...)
    if type(spec) ~= "string" then
      fail("TypeError", "%s: the subscripts must be a string, not a %s", name, type(spec))
    end
    local tensors = { ... }
    if #tensors == 0 then fail("ValueError", "%s: no operands", name) end
    check(name, ...)
    local ops, output = parse_spec(spec, tensors)
    local dtype = ops[1].t.dtype
    for i = 2, #ops do dtype = promoted(dlx, ops[i].t, { dtype = dtype }) end
    for _, op in ipairs(ops) do op.t, op.labels = take_diagonals(op.t, op.labels) end
    local size, sets = label_sizes(ops), {}
    for i, op in ipairs(ops) do sets[i] = op.labels end
    return ops, output, size, dtype, greedy_path(sets, output, size)
  end

  --- dlx.einsum_path(spec, a, b, ...): the order in which dlx.einsum contracts the operands,
  --- NumPy's greedy path: a list of pairs of 1-based positions in the list of operands as it
  --- is at each step (the pair leaves it, their product joins it at the end).
  function dlx.einsum_path(spec, ...)
    local _, _, _, _, path = plan("einsum_path", spec, ...)
    return path
  end

  --- dlx.einsum(spec, a, b, ...): NumPy's einsum subscripts ("ij,jk->ik", "...", implicit
  --- output), by diagonal views, sums and pairwise matrix products in the greedy order.
  function dlx.einsum(spec, ...)
    local ops, output, size, dtype, path = plan("einsum", spec, ...)
    for _, step in ipairs(path) do
      local i, j = step[1], step[2]
      local x, y = ops[i], ops[j]
      local sets = {}
      for k, op in ipairs(ops) do sets[k] = op.labels end
      local needed = needed_besides(sets, i, j, output)
      -- each sums the labels that neither the other nor anyone after needs
      local keep = setmetatable(index_of(y.labels), { __index = needed })
      x.t, x.labels = sum_unneeded(x.t, x.labels, keep)
      keep = setmetatable(index_of(x.labels), { __index = needed })
      y.t, y.labels = sum_unneeded(y.t, y.labels, keep)
      table.remove(ops, j)
      table.remove(ops, i)
      ops[#ops + 1] = contract(x, y, needed, size)
    end
    local acc, keep = ops[1], {}
    for _, l in ipairs(output) do keep[l] = true end
    acc.t, acc.labels = sum_unneeded(acc.t, acc.labels, keep)
    local r = arrange(acc.t, acc.labels, output, size, (function()
      local g = {}
      for i = 1, #output do g[i] = 1 end
      return g
    end)())
    if r.dtype ~= dtype then r = r:astype(dtype) end
    return r
  end
end

return M
