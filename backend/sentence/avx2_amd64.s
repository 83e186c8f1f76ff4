//go:build !purego

#include "textflag.h"

// func dotAVX2(y *float32, xq *uint8, w *int8, blocks, k, m, cols int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// dotVNNI for CPUs with AVX2 but no VNNI (most desktops before 2021):
// the same arguments, the same packed weights and the same output step,
// for the first cols (a multiple of 16) of y's m columns, so that two
// goroutines can share a product (y, w, scale, colsum and bias then point
// at the second one's first column). It is dotAVXVNNI with each VPDPBUSD
// done in three instructions: VPMADDUBSW multiplies a row's bytes by a
// column's and adds them in pairs to 16 bits, VPMADDWD by ones adds the
// pairs to the group's 32-bit dot product, VPADDD accumulates it.
// VPMADDUBSW saturates at 16 bits, so the sums are exact only for
// activations of at most 128 against weights of -127..127 (2 x 128 x 127
// = 32,512 < 32,767): affineVNNI quantises activations to 0..127 for this
// kernel (activationMax), and the model's weights are symmetric. With
// those, its integer sums are VPDPBUSD's. The kernel is bound by its
// VPMADDUBSW and VPMADDWD (16 per 256 products); the one before it, which
// widened bytes to 16 bits for VPMADDWD and so took 8-bit activations,
// was bound by the widening shuffles and took 1.5 times as long.

// MADDU adds the dot products of the row in row with the eight columns'
// four weights in wt to acc, with Y14 spare and sixteen 16-bit ones in
// Y15.
#define MADDU(row, wt, acc) \
	VPMADDUBSW wt, row, Y14 \
	VPMADDWD   Y15, Y14, Y14 \
	VPADDD     Y14, acc, acc

// PANEL and PRODUCTS for dot8_amd64.h: sixteen 16-bit ones in Y15 for
// VPMADDWD, and MADDU for each row and half panel.
#define PANEL \
	VPCMPEQW Y15, Y15, Y15 \
	VPSRLW   $15, Y15, Y15

#define PRODUCTS \
	MADDU(Y10, Y8, Y0) \
	MADDU(Y10, Y9, Y1) \
	MADDU(Y11, Y8, Y2) \
	MADDU(Y11, Y9, Y3) \
	MADDU(Y12, Y8, Y4) \
	MADDU(Y12, Y9, Y5) \
	MADDU(Y13, Y8, Y6) \
	MADDU(Y13, Y9, Y7)

#define DOT8 ·dotAVX2
#include "dot8_amd64.h"

// The attention and quantisation kernels below are vnni_amd64.s's
// AVX-512 ones on 256-bit registers: each 16-lane register is two, and
// sums are added in the same order, so they give the same floats.

// HREDUCE8 folds the sixteen lanes held in lo and hi (xlo is lo's lower
// half) into xlo's first lane with ps and, at the end, ss, in the order
// of vnni_amd64.s's HREDUCE; yt and xt name a spare register.
#define HREDUCE8(ps, ss, lo, hi, xlo, yt, xt) \
	ps           hi, lo, lo \
	VEXTRACTF128 $1, lo, xt \
	ps           xt, xlo, xlo \
	VPSHUFD      $0x4e, xlo, xt \
	ps           xt, xlo, xlo \
	VPSHUFD      $0xb1, xlo, xt \
	ss           xt, xlo, xlo

// func scoresAVX2(out *float32, q *float32, k *float32, n, stride, depth int)
//
// out[s] = q · k[s*stride : s*stride+depth] for s < n; depth is a
// multiple of 16.
TEXT ·scoresAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ depth+40(FP), R10
	SHLQ $2, R10

score:
	TESTQ R8, R8
	JZ    scored
	VXORPS Y0, Y0, Y0 // the even chunks' sums, lanes 0-7 and 8-15
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2 // the odd chunks'
	VXORPS Y3, Y3, Y3
	XORQ  AX, AX

chunk:
	VMOVUPS     (SI)(AX*1), Y4
	VMOVUPS     32(SI)(AX*1), Y5
	VFMADD231PS (DX)(AX*1), Y4, Y0
	VFMADD231PS 32(DX)(AX*1), Y5, Y1
	ADDQ        $64, AX
	CMPQ        AX, R10
	JGE         sum
	VMOVUPS     (SI)(AX*1), Y4
	VMOVUPS     32(SI)(AX*1), Y5
	VFMADD231PS (DX)(AX*1), Y4, Y2
	VFMADD231PS 32(DX)(AX*1), Y5, Y3
	ADDQ        $64, AX
	CMPQ        AX, R10
	JL          chunk

sum:
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	HREDUCE8(VADDPS, VADDSS, Y0, Y1, X0, Y4, X4)
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	ADDQ   R9, DX
	DECQ   R8
	JMP    score

scored:
	VZEROUPPER
	RET

// func mixAVX2(o *float32, p *float32, v *float32, n, stride, depth int)
//
// o[:depth] = Σ p[s] v[s*stride : s*stride+depth] for s < n; depth is a
// multiple of 16.
TEXT ·mixAVX2(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ depth+40(FP), R10
	SHRQ $4, R10

column:
	TESTQ  R10, R10
	JZ     mixed
	VXORPS Y0, Y0, Y0
	VXORPS Y2, Y2, Y2
	MOVQ   n+24(FP), R8
	MOVQ   DX, AX
	MOVQ   SI, BX

row:
	TESTQ        R8, R8
	JZ           stored
	VBROADCASTSS (BX), Y1
	VFMADD231PS  (AX), Y1, Y0
	VFMADD231PS  32(AX), Y1, Y2
	ADDQ         $4, BX
	ADDQ         R9, AX
	DECQ         R8
	JMP          row

stored:
	VMOVUPS Y0, (DI)
	VMOVUPS Y2, 32(DI)
	ADDQ    $64, DI
	ADDQ    $64, DX
	DECQ    R10
	JMP     column

mixed:
	VZEROUPPER
	RET

// func rangeAVX2(x *float32, n int) (lo, hi float32)
//
// The least and the greatest of x[:n]; n is a positive multiple of 16.
TEXT ·rangeAVX2(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, Y2
	VMOVUPS Y1, Y3

extend:
	ADDQ    $64, SI
	SUBQ    $16, CX
	JLE     reduce
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMINPS  Y4, Y0, Y0
	VMINPS  Y5, Y1, Y1
	VMAXPS  Y4, Y2, Y2
	VMAXPS  Y5, Y3, Y3
	JMP     extend

reduce:
	HREDUCE8(VMINPS, VMINSS, Y0, Y1, X0, Y4, X4)
	VMOVSS X0, lo+16(FP)
	HREDUCE8(VMAXPS, VMAXSS, Y2, Y3, X2, Y4, X4)
	VMOVSS X2, hi+20(FP)
	VZEROUPPER
	RET

// func quantizeAVX2(q *uint8, x *float32, n int, inv, off float32)
//
// q[i] = x[i]*inv + off truncated and clamped to 0..255, for i < n; n is
// a multiple of 16.
TEXT ·quantizeAVX2(SB), NOSPLIT, $0-32
	MOVQ         q+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS inv+24(FP), Y1
	VBROADCASTSS off+28(FP), Y2
	VPXOR        Y3, Y3, Y3

next:
	TESTQ        CX, CX
	JZ           done
	VMOVUPS      (SI), Y0
	VFMADD213PS  Y2, Y1, Y0
	VCVTTPS2DQ   Y0, Y0
	VPMAXSD      Y3, Y0, Y0
	VEXTRACTI128 $1, Y0, X4
	VPACKUSDW    X4, X0, X0 // eight words, saturated at 65535
	VPACKUSWB    X0, X0, X0 // eight bytes, saturated at 255
	VMOVQ        X0, (DI)
	ADDQ         $32, SI
	ADDQ         $8, DI
	SUBQ         $8, CX
	JMP          next

done:
	VZEROUPPER
	RET

// func normAVX2(o, x, scale, bias *float32, n int, mean, inv float32)
//
// o[j] = (x[j]-mean)*inv*scale[j] + bias[j] for j < n, a multiple of 8:
// layerNorm's last step, each operation rounded as the Go loop rounds it
// (no fused multiply-add), so it gives the loop's floats.
TEXT ·normAVX2(SB), NOSPLIT, $0-48
	MOVQ         o+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         scale+16(FP), DX
	MOVQ         bias+24(FP), R8
	MOVQ         n+32(FP), CX
	VBROADCASTSS mean+40(FP), Y1
	VBROADCASTSS inv+44(FP), Y2
	XORQ         AX, AX

norm:
	CMPQ    AX, CX
	JGE     normed
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS  Y1, Y0, Y0
	VMULPS  Y2, Y0, Y0
	VMULPS  (DX)(AX*4), Y0, Y0
	VADDPS  (R8)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     norm

normed:
	VZEROUPPER
	RET
