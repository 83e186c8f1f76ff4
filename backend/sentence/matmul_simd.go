//go:build goexperiment.simd && amd64

package sentence

import "simd/archsimd"

func init() {
	if k := kernels(); k["avx512"] != nil {
		matmul, vectorKernel = k["avx512"], true
	} else if k["avx2"] != nil {
		matmul, vectorKernel = k["avx2"], true
	}
}

// kernels lists the vector matmuls this CPU can run.
func kernels() map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
	out := map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int){}
	if archsimd.X86.AVX512() {
		out["avx512"] = func(y, x []float32, w *matrix, n, k, m, j0, j1 int) { matmul16(y, x, w.q, n, k, m, j0, j1) }
	}
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		out["avx2"] = func(y, x []float32, w *matrix, n, k, m, j0, j1 int) { matmul8(y, x, w.q, n, k, m, j0, j1) }
	}
	return out
}

// matmul16 is matmul with AVX-512: sixteen columns of four rows of y at a
// time, each load of sixteen weights widened to float32 once for the four.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul16(y, x []float32, w []int8, n, k, m, j0, j1 int) {
	if j0%16 != 0 || j1%16 != 0 || m%16 != 0 {
		matmulGoInt8(y, x, w, n, k, m, j0, j1)
		return
	}
	t := 0
	for ; t+4 <= n; t += 4 {
		x0, x1, x2, x3 := x[t*k:(t+1)*k], x[(t+1)*k:(t+2)*k], x[(t+2)*k:(t+3)*k], x[(t+3)*k:(t+4)*k]
		for j := j0; j < j1; j += 16 {
			y0, y1, y2, y3 := y[t*m+j:], y[(t+1)*m+j:], y[(t+2)*m+j:], y[(t+3)*m+j:]
			a0 := archsimd.LoadFloat32x16Slice(y0)
			a1 := archsimd.LoadFloat32x16Slice(y1)
			a2 := archsimd.LoadFloat32x16Slice(y2)
			a3 := archsimd.LoadFloat32x16Slice(y3)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(w[i*m+j:]).ExtendToInt32().ConvertToFloat32()
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
	}
	for ; t < n; t++ {
		xt := x[t*k : (t+1)*k]
		for j := j0; j < j1; j += 16 {
			yt := y[t*m+j:]
			a := archsimd.LoadFloat32x16Slice(yt)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(w[i*m+j:]).ExtendToInt32().ConvertToFloat32()
				a = v.MulAdd(archsimd.BroadcastFloat32x16(xt[i]), a)
			}
			a.StoreSlice(yt)
		}
	}
}

// matmul8 is matmul with AVX2 and FMA: eight columns of four rows at a
// time. Each load takes sixteen weights and uses the first eight; the
// matrix's padding keeps the last row's load in bounds.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul8(y, x []float32, w []int8, n, k, m, j0, j1 int) {
	if j0%8 != 0 || j1%8 != 0 || m%8 != 0 || len(w) < k*m+8 {
		matmulGoInt8(y, x, w, n, k, m, j0, j1)
		return
	}
	t := 0
	for ; t+4 <= n; t += 4 {
		x0, x1, x2, x3 := x[t*k:(t+1)*k], x[(t+1)*k:(t+2)*k], x[(t+2)*k:(t+3)*k], x[(t+3)*k:(t+4)*k]
		for j := j0; j < j1; j += 8 {
			y0, y1, y2, y3 := y[t*m+j:], y[(t+1)*m+j:], y[(t+2)*m+j:], y[(t+3)*m+j:]
			a0 := archsimd.LoadFloat32x8Slice(y0)
			a1 := archsimd.LoadFloat32x8Slice(y1)
			a2 := archsimd.LoadFloat32x8Slice(y2)
			a3 := archsimd.LoadFloat32x8Slice(y3)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(w[i*m+j:]).ExtendLo8ToInt32().ConvertToFloat32()
				a0 = v.MulAdd(archsimd.BroadcastFloat32x8(x0[i]), a0)
				a1 = v.MulAdd(archsimd.BroadcastFloat32x8(x1[i]), a1)
				a2 = v.MulAdd(archsimd.BroadcastFloat32x8(x2[i]), a2)
				a3 = v.MulAdd(archsimd.BroadcastFloat32x8(x3[i]), a3)
			}
			a0.StoreSlice(y0)
			a1.StoreSlice(y1)
			a2.StoreSlice(y2)
			a3.StoreSlice(y3)
		}
	}
	for ; t < n; t++ {
		xt := x[t*k : (t+1)*k]
		for j := j0; j < j1; j += 8 {
			yt := y[t*m+j:]
			a := archsimd.LoadFloat32x8Slice(yt)
			for i := range k {
				v := archsimd.LoadInt8x16Slice(w[i*m+j:]).ExtendLo8ToInt32().ConvertToFloat32()
				a = v.MulAdd(archsimd.BroadcastFloat32x8(xt[i]), a)
			}
			a.StoreSlice(yt)
		}
	}
}
