//go:build goexperiment.simd && amd64

package sentence

import "simd/archsimd"

func init() {
	switch {
	case archsimd.X86.AVX512():
		matmul = matmul16
	case archsimd.X86.AVX2() && archsimd.X86.FMA():
		matmul = matmul8
	}
}

// matmul16 is matmul with AVX-512: sixteen columns of four rows of y at a
// time, so each load of W serves four rows.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul16(y, x, w []float32, n, k, m, j0, j1 int) {
	if j0%16 != 0 || j1%16 != 0 || m%16 != 0 {
		matmulGo(y, x, w, n, k, m, j0, j1)
		return
	}
	// Each x value is spread over a whole vector once, ahead: broadcasting
	// a scalar inside the loop mixes scalar and vector code, which is slow.
	xb := make([]float32, 4*k*16)
	t := 0
	for ; t+4 <= n; t += 4 {
		for i := range k {
			for r := range 4 {
				v := x[(t+r)*k+i]
				b := xb[(i*4+r)*16 : (i*4+r+1)*16]
				for l := range b {
					b[l] = v
				}
			}
		}
		for j := j0; j < j1; j += 16 {
			y0, y1, y2, y3 := y[t*m+j:], y[(t+1)*m+j:], y[(t+2)*m+j:], y[(t+3)*m+j:]
			a0 := archsimd.LoadFloat32x16Slice(y0)
			a1 := archsimd.LoadFloat32x16Slice(y1)
			a2 := archsimd.LoadFloat32x16Slice(y2)
			a3 := archsimd.LoadFloat32x16Slice(y3)
			for i := range k {
				v := archsimd.LoadFloat32x16Slice(w[i*m+j:])
				b := xb[i*64 : i*64+64]
				a0 = v.MulAdd(archsimd.LoadFloat32x16Slice(b), a0)
				a1 = v.MulAdd(archsimd.LoadFloat32x16Slice(b[16:]), a1)
				a2 = v.MulAdd(archsimd.LoadFloat32x16Slice(b[32:]), a2)
				a3 = v.MulAdd(archsimd.LoadFloat32x16Slice(b[48:]), a3)
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
				a = archsimd.LoadFloat32x16Slice(w[i*m+j:]).MulAdd(archsimd.BroadcastFloat32x16(xt[i]), a)
			}
			a.StoreSlice(yt)
		}
	}
}

// matmul8 is matmul with AVX2 and FMA: as matmul16, eight columns at a time.
//
// Not instrumented by the race detector: see matmulGo.
//
//go:norace
func matmul8(y, x, w []float32, n, k, m, j0, j1 int) {
	if j0%8 != 0 || j1%8 != 0 || m%8 != 0 {
		matmulGo(y, x, w, n, k, m, j0, j1)
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
				v := archsimd.LoadFloat32x8Slice(w[i*m+j:])
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
				a = archsimd.LoadFloat32x8Slice(w[i*m+j:]).MulAdd(archsimd.BroadcastFloat32x8(xt[i]), a)
			}
			a.StoreSlice(yt)
		}
	}
}
