//go:build !purego

package vectors

import "golang.org/x/sys/cpu"

// hasAVX2 says cosineTo may run dotAVX2.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasVPOPCNT says hammings may run hammingsAVX512, hasPOPCNT
// hammingsPOPCNT.
var (
	hasVPOPCNT = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VPOPCNTDQ
	hasPOPCNT  = cpu.X86.HasPOPCNT
)

// dotAVX2 is in dot_amd64.s: the dot product of the n float32s at q and
// the n int8s at v, n a multiple of 32.
//
//go:noescape
func dotAVX2(q *float32, v *int8, n int) float32

// hammingsAVX512 is in dot_amd64.s: n a multiple of 8.
//
//go:noescape
func hammingsAVX512(q *[signWords]uint64, signs *[signWords]uint64, n int, out *uint16)

// hammingsPOPCNT is in dot_amd64.s.
//
//go:noescape
func hammingsPOPCNT(q *[signWords]uint64, signs *[signWords]uint64, n int, out *uint16)
