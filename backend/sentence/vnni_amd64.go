//go:build !purego

package sentence

import "golang.org/x/sys/cpu"

// hasVNNI says the CPU has AVX-512 with VNNI, so the encoder runs its
// products on 8-bit activations with dotVNNI.
var hasVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// dotVNNI is in vnni_amd64.s.
//
//go:noescape
func dotVNNI(y *float32, xq *uint8, w *int8, blocks, k, m, j0, j1 int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
