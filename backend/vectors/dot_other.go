//go:build !amd64 || purego

package vectors

// hasAVX2 is false: dotAVX2 is amd64 assembly.
var hasAVX2 = false

func dotAVX2(q *float32, v *int8, n int) float32 {
	panic("vectors: no AVX2 kernel in this build")
}
