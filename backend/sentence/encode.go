package sentence

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Encode returns text's vector: Dim values of unit length. Empty text has
// no vector: nil. Only the first 128 pieces are read, as by the reference.
func (e *Encoder) Encode(text string) []float32 {
	v, _ := e.EncodeContext(context.Background(), text)
	return v
}

// EncodeContext is Encode that stops early, with ctx's error, once ctx is
// done: it looks between the model's steps (a 27-piece request takes about
// 1 ms in all), so a caller that no longer needs the vector gets the core
// back within a fraction of that.
func (e *Encoder) EncodeContext(ctx context.Context, text string) ([]float32, error) {
	ids := e.tokenize(text)
	if len(ids) > maxPieces {
		ids = ids[:maxPieces]
	}
	if len(ids) == 0 {
		return nil, ctx.Err()
	}
	return e.forward(ctx, ids)
}

// forward runs the model on piece ids: token embeddings (twice) plus a
// sinusoidal timing signal, two pre-norm transformer layers, the mean over
// positions, a tanh layer, and normalisation to unit length.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func (e *Encoder) forward(ctx context.Context, ids []int) ([]float32, error) {
	n, w := len(ids), e.width
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.reset()
	x := sc.floats(n * w)
	for t, id := range ids {
		// The reference graph adds the embedding twice: once as the
		// input and once inside its "add timing signal" step.
		row := x[t*w : (t+1)*w]
		scale := 2 * e.embScale[id]
		for i, v := range e.emb[id*w : (id+1)*w] {
			row[i] = scale * float32(v)
		}
		for i, v := range e.signal[t*w : (t+1)*w] {
			row[i] += v
		}
	}
	for i := range e.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x = e.layers[i].apply(ctx, sc, x, n); x == nil {
			return nil, ctx.Err()
		}
	}
	pooled := sc.floats(Dim)
	clear(pooled)
	for t := range n {
		for j, v := range x[t*Dim : (t+1)*Dim] {
			pooled[j] += v
		}
	}
	for j := range pooled {
		pooled[j] /= float32(n)
	}
	out := slices.Clone(affine(sc, pooled, 1, Dim, e.tanhW, e.tanhB, Dim))
	var sum float64
	for j, v := range out {
		out[j] = float32(math.Tanh(float64(v)))
		sum += float64(out[j]) * float64(out[j])
	}
	inv := float32(1 / math.Sqrt(max(sum, 1e-12)))
	for j := range out {
		out[j] *= inv
	}
	return out, nil
}

// apply runs one layer on x (n rows of l.in) and returns n rows of
// l.model; nil when ctx is done half way.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func (l *layer) apply(ctx context.Context, sc *scratch, x []float32, n int) []float32 {
	h := layerNorm(sc, x, n, l.in, l.ln1s, l.ln1b)
	qkv := affine(sc, h, n, l.in, l.qkvW, l.qkvB, 3*l.in)
	att := attention(sc, qkv, n, l.in, l.heads)
	y := affine(sc, att, n, l.in, l.outW, l.outB, l.model)
	// The residual: the input itself, or its projection where the layer
	// widens the model.
	res := x
	if l.resW.scale != nil {
		res = affine(sc, x, n, l.in, l.resW, l.resB, l.model)
	}
	for i := range y {
		y[i] += res[i]
	}
	if ctx.Err() != nil {
		return nil
	}
	h = layerNorm(sc, y, n, l.model, l.ln2s, l.ln2b)
	f := affine(sc, h, n, l.model, l.ff1W, l.ff1B, l.hidden)
	relu(f)
	f = affine(sc, f, n, l.hidden, l.ff2W, l.ff2B, l.model)
	for i := range y {
		y[i] += f[i]
	}
	return y
}

// affine returns x W + b for n rows of width in, each output of width out.
// Without the VNNI kernel a large product is split by columns between two
// goroutines, which halves the float kernels' time when the other core is
// free.
func affine(sc *scratch, x []float32, n, in int, w matrix, b []float32, out int) []float32 {
	if w.v != nil {
		return affineVNNI(sc, x, n, in, w, b, out)
	}
	y := sc.floats(n * out)
	clear(y) // matmul adds to it
	byColumns(n*in*out, out, func(j0, j1 int) { matmul(y, x, &w, n, in, out, j0, j1) })
	for t := range n {
		row := y[t*out : (t+1)*out]
		for j, v := range row {
			if w.f == nil {
				v *= w.scale[j] // int8 weights: the kernel summed them unscaled
			}
			row[j] = v + b[j]
		}
	}
	return y
}

// affineVNNI is affine on 8-bit activations: each row of x is quantised
// to 0..255 with its own scale and zero point (x = s(q - z)), and dotVNNI
// (or, without AVX-512, dotAVXVNNI or dotAVX2) computes s scale_j (q W_j - z
// colsum_j) + b_j four rows at a time.
// Vectors stay within a cosine of 0.9999 of the float computation's.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func affineVNNI(sc *scratch, x []float32, n, in int, w matrix, b []float32, out int) []float32 {
	if hasAMX && in%64 == 0 && amxReady() {
		return affineAMX(sc, x, n, in, w, b, out)
	}
	rows := (n + 3) / 4 * 4 // the kernel's blocks
	xq, s, z := quantizeRows(sc, x, n, in, rows)
	y := sc.floats(rows * out)
	// One goroutine for VNNI: at this speed handing half the columns to
	// another costs more than it saves (12 pieces: 0.61 ms split, 0.51 ms
	// not), and recall encodes beside its word search anyway.
	switch {
	case hasVNNI:
		dotVNNI(&y[0], &xq[0], &w.v[0], rows/4, in, out, &s[0], &z[0], &w.scale[0], &w.colsum[0], &b[0])
		return y[:n*out]
	case hasAVXVNNI:
		dotAVXVNNI(&y[0], &xq[0], &w.v[0], rows/4, in, out, &s[0], &z[0], &w.scale[0], &w.colsum[0], &b[0])
		return y[:n*out]
	}
	// AVX2 alone: the same floats, about three times slower, so a large
	// product is split by columns between two goroutines as the float
	// kernels' are.
	byColumns(n*in*out, out, func(j0, j1 int) {
		dotAVX2(&y[j0], &xq[0], &w.v[j0*in], rows/4, in, out, j1-j0, &s[0], &z[0], &w.scale[j0], &w.colsum[j0], &b[j0])
	})
	return y[:n*out]
}

// byColumns has f compute columns j0 to j1 of a product of out columns and
// work multiply-adds: all at once, or, when the product is large and
// another core may be free, split at a multiple of 16 between this
// goroutine and another.
func byColumns(work, out int, f func(j0, j1 int)) {
	if work < parallelWork || runtime.GOMAXPROCS(0) < 2 {
		f(0, out)
		return
	}
	half := out / 2 / 16 * 16
	var wg sync.WaitGroup
	wg.Go(func() { f(half, out) })
	f(0, half)
	wg.Wait()
}

// affineAMX is affineVNNI with the int32 products on AMX tiles (dotAMX:
// sixteen rows by sixteen columns, 64 bytes of each row per instruction)
// and the same output step, so it gives the same floats. in is a multiple
// of 64.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func affineAMX(sc *scratch, x []float32, n, in int, w matrix, b []float32, out int) []float32 {
	rows := (n + 15) / 16 * 16 // the kernel's blocks; extra rows are not read back
	xq, s, z := quantizeRows(sc, x, n, in, rows)
	acc := sc.ints(rows * out)
	dotAMX(&acc[0], &xq[0], &w.v[0], &amxConfig[0], rows/16, in, out)
	y := sc.floats(n * out)
	outputAVX512(&y[0], &acc[0], n, out, &s[0], &z[0], &w.scale[0], &w.colsum[0], &b[0])
	return y
}

// quantizeRows quantises the n rows of x (width in) for the 8-bit
// kernels into rows rows: the bytes, and each row's scale and zero point
// (see quantize). The padding rows' bytes are left as they are (their
// outputs are not read back); their scale and zero point are zero, so
// those outputs are finite.
func quantizeRows(sc *scratch, x []float32, n, in, rows int) (xq []uint8, s []float32, z []int32) {
	xq, s, z = sc.bytes(rows*in), sc.floats(rows), sc.ints(rows)
	clear(s[n:])
	clear(z[n:])
	for t := range n {
		s[t], z[t] = quantize(xq[t*in:(t+1)*in], x[t*in:(t+1)*in])
	}
	return xq, s, z
}

// quantize writes x's values to q as 0..255 and returns the scale and the
// zero point: x is about s(q - z). The range includes zero, so zero is
// exact and a row of one value keeps it.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func quantize(q []uint8, x []float32) (s float32, z int32) {
	vector := (hasAVX512 || hasAVX2) && len(x)%16 == 0 && len(x) > 0
	var lo, hi float32
	if vector {
		if hasAVX512 {
			lo, hi = rangeAVX512(&x[0], len(x))
		} else {
			lo, hi = rangeAVX2(&x[0], len(x))
		}
		lo, hi = min(lo, 0), max(hi, 0)
	} else {
		for _, v := range x {
			// Not min and max: their NaN rules make a slow chain here.
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
	}
	s = (hi - lo) / 255
	if s == 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
		s = 1
	}
	z = int32(math.Round(float64(-lo / s)))
	// v/s + z + 0.5 is within [0.5, 255.5] but for rounding; truncating it
	// rounds to nearest.
	inv, off := 1/s, float32(z)+0.5
	q = q[:len(x)]
	switch {
	case vector && hasAVX512:
		quantizeAVX512(&q[0], &x[0], len(x), inv, off)
		return s, z
	case vector:
		quantizeAVX2(&q[0], &x[0], len(x), inv, off)
		return s, z
	}
	for i, v := range x {
		q[i] = uint8(min(max(int32(v*inv+off), 0), 255))
	}
	return s, z
}

// relu sets x's negative values to zero. It clears the sign bit's values
// without branching: max(v, 0), whose NaN and signed-zero rules compile to
// branches that a layer's half-negative values mispredict, took a tenth
// of an encoding. The same values for every v but NaN.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func relu(x []float32) {
	for i, v := range x {
		b := math.Float32bits(v)
		x[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}

// parallelWork is the size of product (multiply-adds) worth a goroutine.
const parallelWork = 1 << 20

// layerNorm normalises each of n rows of width w to zero mean and unit
// variance, then scales and shifts them.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func layerNorm(sc *scratch, x []float32, n, w int, scale, bias []float32) []float32 {
	out := sc.floats(n * w)
	for t := range n {
		row := x[t*w : (t+1)*w]
		mean := sum32(row) / float32(w)
		variance := sqDist32(row, mean) / float32(w)
		inv := float32(1 / math.Sqrt(float64(variance)+1e-6))
		o, scale, bias := out[t*w:(t+1)*w], scale[:w], bias[:w]
		if hasAVX2 && w%8 == 0 && w > 0 {
			normAVX2(&o[0], &row[0], &scale[0], &bias[0], w, mean, inv)
			continue
		}
		for j, v := range row {
			// float32(…) keeps the compiler from fusing the last
			// multiply and add, as normAVX2 does not.
			o[j] = float32((v-mean)*inv*scale[j]) + bias[j]
		}
	}
	return out
}

// sum32 is the sum of a's values, in four independent chains so the
// additions overlap.
//
//go:norace
func sum32(a []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0, s1, s2, s3 = s0+a[i], s1+a[i+1], s2+a[i+2], s3+a[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// sqDist32 is the sum of a's squared distances from c, as sum32 does.
//
//go:norace
func sqDist32(a []float32, c float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-c, a[i+1]-c, a[i+2]-c, a[i+3]-c
		s0, s1, s2, s3 = s0+d0*d0, s1+d1*d1, s2+d2*d2, s3+d3*d3
	}
	for ; i < len(a); i++ {
		s0 += (a[i] - c) * (a[i] - c)
	}
	return (s0 + s1) + (s2 + s3)
}

// attention is multi-head self-attention over n positions: qkv holds each
// position's queries, keys and values side by side (3 x width), split into
// heads; it returns the heads' outputs side by side (n x width). With
// AVX-512 the scores and the weighted sums run in assembly.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func attention(sc *scratch, qkv []float32, n, width, heads int) []float32 {
	depth := width / heads
	scale := float32(1 / math.Sqrt(float64(depth)))
	out := sc.floats(n * width)
	p := sc.floats(n)
	q := sc.floats(depth)
	stride := 3 * width
	// The AVX-512 and AVX2 kernels give the same floats; the Go loops add
	// in another order.
	scores, mix := scoresAVX512, mixAVX512
	if !hasAVX512 {
		scores, mix = scoresAVX2, mixAVX2
	}
	vector := (hasAVX512 || hasAVX2) && depth%16 == 0
	for hd := range heads {
		qo, ko, vo := hd*depth, width+hd*depth, 2*width+hd*depth
		for t := range n {
			for i, v := range qkv[t*stride+qo : t*stride+qo+depth] {
				q[i] = v * scale
			}
			if vector {
				scores(&p[0], &q[0], &qkv[ko], n, stride, depth)
			} else {
				for s := range n {
					p[s] = dot32(q, qkv[s*stride+ko:s*stride+ko+depth])
				}
			}
			top := p[0]
			for _, l := range p {
				if l > top { // not max: its NaN rule makes a slow chain
					top = l
				}
			}
			var sum float32
			for s, l := range p {
				p[s] = float32(math.Exp(float64(l - top)))
				sum += p[s]
			}
			for s := range p {
				p[s] /= sum
			}
			o := out[t*width+hd*depth : t*width+(hd+1)*depth]
			if vector {
				mix(&o[0], &p[0], &qkv[vo], n, stride, depth)
				continue
			}
			clear(o)
			for s, a := range p {
				v := qkv[s*stride+vo : s*stride+vo+len(o)]
				for i := range o {
					o[i] += a * v[i]
				}
			}
		}
	}
	return out
}

// dot32 is the dot product of a and b (as long as a), summed in four
// independent chains so the additions overlap.
//
//go:norace
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// scratch hands out the buffers of one encoding from backing arrays kept
// between encodings, so an encoding allocates almost nothing and leaves
// the garbage collector little to do. Buffers are valid until the next
// reset and hold what the last encoding left there: a caller that adds to
// a buffer rather than writing it clears it first.
type scratch struct {
	f []float32
	b []uint8
	i []int32
}

// scratchPool keeps scratch spaces for the next encodings (the memory
// package encodes from recall and from its background workers at once).
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// reset makes every buffer handed out free again.
func (s *scratch) reset() { s.f, s.b, s.i = s.f[:0], s.b[:0], s.i[:0] }

func (s *scratch) floats(n int) []float32 { return grab(&s.f, n) }
func (s *scratch) bytes(n int) []uint8    { return grab(&s.b, n) }
func (s *scratch) ints(n int) []int32     { return grab(&s.i, n) }

// grab takes n values from the free end of *buf. When they do not
// fit, a backing array twice as large replaces it; the buffers already
// handed out keep the old one until the encoding ends.
func grab[T any](buf *[]T, n int) []T {
	if cap(*buf)-len(*buf) < n {
		*buf = make([]T, 0, max(2*cap(*buf), 2*n, 4096))
	}
	l := len(*buf)
	*buf = (*buf)[:l+n]
	return (*buf)[l : l+n : l+n]
}
