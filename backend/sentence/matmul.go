package sentence

// matmul adds x W to columns j0 to j1 of y: x is n rows of width k, W is k
// rows of width m, y is n rows of width m. W's float32 values (f) are
// used when it has them, else its int8 ones, unscaled (see matrix). It is
// the encoder's hot loop; a build with GOEXPERIMENT=simd on amd64 replaces
// it with a vector version on int8 when the CPU has AVX2 or AVX-512, and
// sets vectorKernel. On amd64 with AVX2 it runs only in a build without
// assembly (-tags purego): otherwise the products run on 8-bit activations
// in assembly (affineVNNI).
var matmul = matmulGo

// vectorKernel says matmul is a vector kernel that reads int8 weights.
var vectorKernel = false

// kernelName names matmul for Kernel.
var kernelName = "portable Go code (no SIMD)"

// Kernel names the matrix product the encoder runs on this machine (as
// SHRIMP_KERNEL allows) and reports whether it is a vector one (shrimp
// doctor shows it).
func Kernel() (name string, vector bool) {
	capKernels()
	switch {
	case hasAMX && amxReady():
		return "AMX int8 tiles", true
	case hasVNNI:
		return "AVX-512 VNNI on 8-bit activations", true
	case hasAVXVNNI:
		return "AVX-VNNI on 8-bit activations", true
	case hasAVX2:
		return "AVX2 on 8-bit activations", true
	}
	return kernelName, vectorKernel
}

// matmulGo is the portable version: four rows of W per pass over a row of
// y, which cuts the loads and stores of y to a quarter.
//
// The encoder's loops are not instrumented by the race detector (norace):
// they read the read-only weights and write buffers their call allocated,
// and instrumented they run 25 times slower, too slow for the race-enabled
// tests that encode every stored trigger.
//
//go:norace
func matmulGo(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
	if w.f == nil {
		matmulGoInt8(y, x, w.q, n, k, m, j0, j1)
		return
	}
	for t := range n {
		out := y[t*m+j0 : t*m+j1]
		in := x[t*k : (t+1)*k]
		i := 0
		for ; i+4 <= k; i += 4 {
			a0, a1, a2, a3 := in[i], in[i+1], in[i+2], in[i+3]
			r0 := w.f[i*m+j0 : i*m+j1]
			r1 := w.f[(i+1)*m+j0 : (i+1)*m+j1]
			r2 := w.f[(i+2)*m+j0 : (i+2)*m+j1]
			r3 := w.f[(i+3)*m+j0 : (i+3)*m+j1]
			for j := range out {
				out[j] += a0*r0[j] + a1*r1[j] + a2*r2[j] + a3*r3[j]
			}
		}
		for ; i < k; i++ {
			a, r := in[i], w.f[i*m+j0:i*m+j1]
			for j := range out {
				out[j] += a * r[j]
			}
		}
	}
}

// matmulGoInt8 is matmulGo on int8 weights (a vector kernel's fallback for
// shapes it does not take; the model has none).
//
//go:norace
func matmulGoInt8(y, x []float32, w []int8, n, k, m, j0, j1 int) {
	for t := range n {
		out := y[t*m+j0 : t*m+j1]
		in := x[t*k : (t+1)*k]
		for i, a := range in {
			r := w[i*m+j0 : i*m+j1]
			for j := range out {
				out[j] += a * float32(r[j])
			}
		}
	}
}
