-- An image pipeline: an H x W x 3 uint8 image resized to a model's input size, normalised per
-- channel, and class ids sampled from the softmax of some logits.
--   lua5.4 examples/image_pipeline.lua        (with package.path/cpath pointing at dlx)
local dlx = require "dlx"
dlx.manual_seed(7)

-- An image as a camera gives it (here random): 480 x 640 x 3 bytes.
local image = dlx.randint(0, 256, { 480, 640, 3 }, { dtype = "uint8" })

-- To (1, 3, H, W) float32 in [0, 1], resized to 224 x 224.
local x = image:permute({ 3, 1, 2 }):unsqueeze(1):astype("float32") / 255
x = dlx.interpolate(x, { size = { 224, 224 }, mode = "bilinear" })

-- Normalised with ImageNet's per-channel mean and standard deviation.
local mean = dlx.tensor({ 0.485, 0.456, 0.406 }):view({ 1, 3, 1, 1 })
local std = dlx.tensor({ 0.229, 0.224, 0.225 }):view({ 1, 3, 1, 1 })
x = (x - mean) / std

-- A stand-in model: global average pooling, then a random linear layer to 10 classes.
local features = dlx.avg_pool2d(x, 224):view({ 1, 3 })
local logits = dlx.matmul(features, dlx.randn({ 3, 10 }))
local probs = dlx.softmax(logits, 2)
local ids = dlx.multinomial(probs, 5, { replacement = true })

print("input shape", table.concat(x.shape, " x "))
print("class probabilities", probs)
print("sampled class ids", ids)
