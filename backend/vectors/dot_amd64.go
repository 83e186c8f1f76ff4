//go:build !purego

package vectors

import "golang.org/x/sys/cpu"

// hasAVX2 says cosineTo may run dotAVX2.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotAVX2 is in dot_amd64.s: the dot product of the n float32s at q and
// the n int8s at v, n a multiple of 32.
//
//go:noescape
func dotAVX2(q *float32, v *int8, n int) float32
