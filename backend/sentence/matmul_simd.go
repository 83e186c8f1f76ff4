//go:build goexperiment.simd && amd64

package sentence

import "simd/archsimd"

func init() {
	if k := kernels(); k["avx512"] != nil {
		matmul, vectorKernel, kernelName = k["avx512"], true, "AVX-512"
	} else if k["avx2"] != nil {
		matmul, vectorKernel, kernelName = k["avx2"], true, "AVX2 and FMA"
	}
}

// kernels lists the vector matmuls this CPU can run. They read packed
// weights (see matrix.pack); a matrix that is not packed, or a column
// range that does not fall on panels, goes to the portable int8 loop.
func kernels() map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
	out := map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int){}
	if archsimd.X86.AVX512() {
		out["avx512"] = onPanels(matmul16)
	}
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		out["avx2"] = onPanels(matmul8)
	}
	return out
}

// onPanels is kernel as a matmul: on packed weights and whole panels, else
// the portable int8 loop.
func onPanels(kernel func(y, x []float32, p []int8, n, k, m, j0, j1 int)) func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
	return func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
		if w.p == nil || j0%panel != 0 || j1%panel != 0 {
			matmulGoInt8(y, x, w.q, n, k, m, j0, j1)
			return
		}
		kernel(y, x, w.p, n, k, m, j0, j1)
	}
}

// matmul16 is matmul with AVX-512 on packed weights: one panel (sixteen
// columns) of four rows of y at a time, each panel row widened to float32
// once for the four.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul16(y, x []float32, p []int8, n, k, m, j0, j1 int) {
	for j := j0; j < j1; j += panel {
		wp := p[j*k : (j+panel)*k]
		t := 0
		for ; t+4 <= n; t += 4 {
			x0, x1, x2, x3 := x[t*k:(t+1)*k], x[(t+1)*k:(t+2)*k], x[(t+2)*k:(t+3)*k], x[(t+3)*k:(t+4)*k]
			y0, y1, y2, y3 := y[t*m+j:], y[(t+1)*m+j:], y[(t+2)*m+j:], y[(t+3)*m+j:]
			a0 := archsimd.LoadFloat32x16Slice(y0)
			a1 := archsimd.LoadFloat32x16Slice(y1)
			a2 := archsimd.LoadFloat32x16Slice(y2)
			a3 := archsimd.LoadFloat32x16Slice(y3)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(wp[i*panel:]).ExtendToInt32().ConvertToFloat32()
				a0 = v.MulAdd(archsimd.BroadcastFloat32x16(x0[i]), a0)
				a1 = v.MulAdd(archsimd.BroadcastFloat32x16(x1[i]), a1)
				a2 = v.MulAdd(archsimd.BroadcastFloat32x16(x2[i]), a2)
				a3 = v.MulAdd(archsimd.BroadcastFloat32x16(x3[i]), a3)
			}
			a0.StoreSlice(y0)
			a1.StoreSlice(y1)
			a2.StoreSlice(y2)
			a3.StoreSlice(y3)
		}
		for ; t < n; t++ {
			xt, yt := x[t*k:(t+1)*k], y[t*m+j:]
			a := archsimd.LoadFloat32x16Slice(yt)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(wp[i*panel:]).ExtendToInt32().ConvertToFloat32()
				a = v.MulAdd(archsimd.BroadcastFloat32x16(xt[i]), a)
			}
			a.StoreSlice(yt)
		}
	}
	// Leave no upper vector bits set: scalar code after this (math.Exp in
	// attention, math.Tanh) runs several times slower otherwise.
	archsimd.ClearAVXUpperBits()
}

// matmul8 is matmul with AVX2 and FMA on packed weights: a panel's two
// halves of eight columns for four rows at a time. The load of the second
// half reads eight bytes past the panel row; the padding keeps the last
// one in bounds.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul8(y, x []float32, p []int8, n, k, m, j0, j1 int) {
	for j := j0; j < j1; j += panel {
		wp := p[j*k : (j+panel)*k+8]
		t := 0
		for ; t+4 <= n; t += 4 {
			x0, x1, x2, x3 := x[t*k:(t+1)*k], x[(t+1)*k:(t+2)*k], x[(t+2)*k:(t+3)*k], x[(t+3)*k:(t+4)*k]
			y0, y1, y2, y3 := y[t*m+j:], y[(t+1)*m+j:], y[(t+2)*m+j:], y[(t+3)*m+j:]
			a0, b0 := archsimd.LoadFloat32x8Slice(y0), archsimd.LoadFloat32x8Slice(y0[8:])
			a1, b1 := archsimd.LoadFloat32x8Slice(y1), archsimd.LoadFloat32x8Slice(y1[8:])
			a2, b2 := archsimd.LoadFloat32x8Slice(y2), archsimd.LoadFloat32x8Slice(y2[8:])
			a3, b3 := archsimd.LoadFloat32x8Slice(y3), archsimd.LoadFloat32x8Slice(y3[8:])
			for i := range k {
				lo := archsimd.LoadInt8x16Slice(wp[i*panel:]).ExtendLo8ToInt32().ConvertToFloat32()
				hi := archsimd.LoadInt8x16Slice(wp[i*panel+8:]).ExtendLo8ToInt32().ConvertToFloat32()
				s0, s1 := archsimd.BroadcastFloat32x8(x0[i]), archsimd.BroadcastFloat32x8(x1[i])
				s2, s3 := archsimd.BroadcastFloat32x8(x2[i]), archsimd.BroadcastFloat32x8(x3[i])
				a0, b0 = lo.MulAdd(s0, a0), hi.MulAdd(s0, b0)
				a1, b1 = lo.MulAdd(s1, a1), hi.MulAdd(s1, b1)
				a2, b2 = lo.MulAdd(s2, a2), hi.MulAdd(s2, b2)
				a3, b3 = lo.MulAdd(s3, a3), hi.MulAdd(s3, b3)
			}
			a0.StoreSlice(y0)
			b0.StoreSlice(y0[8:])
			a1.StoreSlice(y1)
			b1.StoreSlice(y1[8:])
			a2.StoreSlice(y2)
			b2.StoreSlice(y2[8:])
			a3.StoreSlice(y3)
			b3.StoreSlice(y3[8:])
		}
		for ; t < n; t++ {
			xt, yt := x[t*k:(t+1)*k], y[t*m+j:]
			a, b := archsimd.LoadFloat32x8Slice(yt), archsimd.LoadFloat32x8Slice(yt[8:])
			for i := range k {
				s := archsimd.BroadcastFloat32x8(xt[i])
				a = archsimd.LoadInt8x16Slice(wp[i*panel:]).ExtendLo8ToInt32().ConvertToFloat32().MulAdd(s, a)
				b = archsimd.LoadInt8x16Slice(wp[i*panel+8:]).ExtendLo8ToInt32().ConvertToFloat32().MulAdd(s, b)
			}
			a.StoreSlice(yt)
			b.StoreSlice(yt[8:])
		}
	}
	archsimd.ClearAVXUpperBits()
}
