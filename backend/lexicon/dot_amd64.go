//go:build !purego

package lexicon

import "golang.org/x/sys/cpu"

// hasAVX2 says dot may run dotAVX2.
var hasAVX2 = cpu.X86.HasAVX2

// dotAVX2 is in dot_amd64.s: the dot product of the n int8s at x and y,
// n a multiple of 16.
//
//go:noescape
func dotAVX2(x, y *int8, n int) int32
