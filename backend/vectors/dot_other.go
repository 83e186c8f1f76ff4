//go:build !amd64 || purego

package vectors

// hasAVX2, hasVPOPCNT and hasPOPCNT are false: their kernels are amd64
// assembly.
var hasAVX2, hasVPOPCNT, hasPOPCNT = false, false, false

func dotAVX2(q *float32, v *int8, n int) float32 {
	panic("vectors: no AVX2 kernel in this build")
}

func hammingsAVX512(q *[signWords]uint64, signs *[signWords]uint64, n int, out *uint16) {
	panic("vectors: no AVX-512 kernel in this build")
}

func hammingsPOPCNT(q *[signWords]uint64, signs *[signWords]uint64, n int, out *uint16) {
	panic("vectors: no POPCNT kernel in this build")
}
