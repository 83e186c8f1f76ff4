//go:build !amd64 || purego

package sentence

// hasVNNI is false: the VNNI kernel is amd64 assembly.
var hasVNNI = false

// hasAVX2 is false: the AVX2 int8 kernel is amd64 assembly.
var hasAVX2 = false

// hasAVXVNNI is false: the AVX-VNNI kernel is amd64 assembly.
var hasAVXVNNI = false

// hasAVX512 is false: the attention kernels are amd64 assembly.
var hasAVX512 = false

func dotVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32) {
	panic("sentence: no VNNI kernel in this build")
}

func dotAVX2(y *float32, xq *uint8, w *int8, blocks, k, m, cols int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32) {
	panic("sentence: no AVX2 int8 kernel in this build")
}

func dotAVXVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32) {
	panic("sentence: no AVX-VNNI kernel in this build")
}

func scoresAVX512(out *float32, q *float32, k *float32, n, stride, depth int) {
	panic("sentence: no AVX-512 kernel in this build")
}

func mixAVX512(o *float32, p *float32, v *float32, n, stride, depth int) {
	panic("sentence: no AVX-512 kernel in this build")
}

func rangeAVX512(x *float32, n int) (lo, hi float32) {
	panic("sentence: no AVX-512 kernel in this build")
}

func quantizeAVX512(q *uint8, x *float32, n int, inv, off float32) {
	panic("sentence: no AVX-512 kernel in this build")
}

func scoresAVX2(out *float32, q *float32, k *float32, n, stride, depth int) {
	panic("sentence: no AVX2 kernel in this build")
}

func mixAVX2(o *float32, p *float32, v *float32, n, stride, depth int) {
	panic("sentence: no AVX2 kernel in this build")
}

func rangeAVX2(x *float32, n int) (lo, hi float32) {
	panic("sentence: no AVX2 kernel in this build")
}

func quantizeAVX2(q *uint8, x *float32, n int, inv, off float32) {
	panic("sentence: no AVX2 kernel in this build")
}

func normAVX2(o, x, scale, bias *float32, n int, mean, inv float32) {
	panic("sentence: no AVX2 kernel in this build")
}
