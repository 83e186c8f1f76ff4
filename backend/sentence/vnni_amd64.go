//go:build !purego

package sentence

import "golang.org/x/sys/cpu"

// hasVNNI says the CPU has AVX-512 with VNNI, so the encoder runs its
// products on 8-bit activations with dotVNNI.
var hasVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// hasAVX2 says the CPU has AVX2 and FMA, so without VNNI the encoder still runs
// its products on 8-bit activations, with dotAVX2.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVXVNNI says the CPU has VNNI on 256-bit registers (AVX-VNNI: Intel
// desktops and laptops from Alder Lake on, which lack AVX-512), so without
// AVX-512 VNNI the encoder runs dotAVXVNNI rather than dotAVX2.
var hasAVXVNNI = hasAVX2 && cpu.X86.HasAVXVNNI

// hasAVX512 says attention may use scoresAVX512 and mixAVX512.
var hasAVX512 = cpu.X86.HasAVX512F

// dotVNNI is in vnni_amd64.s.
//
//go:noescape
func dotVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)

// dotAVX2 is in avx2_amd64.s.
//
//go:noescape
func dotAVX2(y *float32, xq *uint8, w *int8, blocks, k, m, cols int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)

// dotAVXVNNI is in avxvnni_amd64.s.
//
//go:noescape
func dotAVXVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)

// scoresAVX512 is in vnni_amd64.s.
//
//go:noescape
func scoresAVX512(out *float32, q *float32, k *float32, n, stride, depth int)

// mixAVX512 is in vnni_amd64.s.
//
//go:noescape
func mixAVX512(o *float32, p *float32, v *float32, n, stride, depth int)

// rangeAVX512 is in vnni_amd64.s.
//
//go:noescape
func rangeAVX512(x *float32, n int) (lo, hi float32)

// quantizeAVX512 is in vnni_amd64.s.
//
//go:noescape
func quantizeAVX512(q *uint8, x *float32, n int, inv, off float32)

// scoresAVX2 is in avx2_amd64.s.
//
//go:noescape
func scoresAVX2(out *float32, q *float32, k *float32, n, stride, depth int)

// mixAVX2 is in avx2_amd64.s.
//
//go:noescape
func mixAVX2(o *float32, p *float32, v *float32, n, stride, depth int)

// rangeAVX2 is in avx2_amd64.s.
//
//go:noescape
func rangeAVX2(x *float32, n int) (lo, hi float32)

// quantizeAVX2 is in avx2_amd64.s.
//
//go:noescape
func quantizeAVX2(q *uint8, x *float32, n int, inv, off float32)

// normAVX2 is in avx2_amd64.s.
//
//go:noescape
func normAVX2(o, x, scale, bias *float32, n int, mean, inv float32)
