//go:build !purego

#include "textflag.h"

// func dotAVX2(y *float32, xq *uint8, w *int8, blocks, k, m, cols int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// dotVNNI for CPUs with AVX2 but not AVX-512 VNNI (most desktops): the
// same arguments, the same packed weights and the same floats out, for
// the first cols (a multiple of 16) of y's m columns, so that two
// goroutines can share a product (y, w, scale, colsum and bias then point
// at the second one's first column). AVX2 has no instruction that
// multiplies bytes exactly (VPMADDUBSW saturates at 16 bits), so
// activations and weights are widened to 16 bits and VPMADDWD adds each
// column's products in pairs: for each block of four rows and each half
// panel of eight columns, a row keeps two sums per column in two
// registers (columns 0-3 and 4-7 of the half), which are added pairwise
// (VPHADDD) and put back in column order (VPERMQ) once, before the output
// step. Products of 0..255 and -128..127 in pairs fit in 32 bits, so the
// dot products are exact, as VPDPBUSD's are. The kernel is bound by its
// VPMADDWD and VPADDD (16 per 128 products); widening the activations
// beforehand measured no faster.

// WIDEN loads the four bytes of a row at addr, widened to 16 bits and
// repeated four times, into yr (xr is its lower half).
#define WIDEN(addr, xr, yr) \
	VPBROADCASTD addr, xr \
	VPMOVZXBW    xr, yr

// MADD adds the products of the row in xr with the two column quads in
// Y8 and Y9 to lo and hi, with Y14 and Y15 spare.
#define MADD(xr, lo, hi) \
	VPMADDWD Y8, xr, Y14 \
	VPADDD   Y14, lo, lo \
	VPMADDWD Y9, xr, Y15 \
	VPADDD   Y15, hi, hi

// OUTPUT8 writes one row's eight outputs to (R12) from its pair sums in
// lo (columns 0-3) and hi (4-7): s*scale*(dot - z*colsum) + bias, the
// row's s and z at off(BX) and off(CX), the half panel's colsum, scale
// and bias at (R11), (DX) and (AX) (dotVNNI's output step on eight
// columns).
#define OUTPUT8(lo, hi, off) \
	VPHADDD      hi, lo, lo \
	VPERMQ       $0xd8, lo, lo \
	VPBROADCASTD off(CX), Y14 \
	VPMULLD      (R11), Y14, Y14 \
	VPSUBD       Y14, lo, lo \
	VCVTDQ2PS    lo, lo \
	VBROADCASTSS off(BX), Y15 \
	VMULPS       (DX), Y15, Y15 \
	VFMADD213PS  (AX), Y15, lo \
	VMOVUPS      lo, (R12)

TEXT ·dotAVX2(SB), NOSPLIT, $0-96
	MOVQ y+0(FP), DI
	MOVQ xq+8(FP), SI
	MOVQ blocks+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ m+40(FP), R10
	SHLQ $2, R10 // y's row stride in bytes

block:
	TESTQ R8, R8
	JZ    done
	XORQ  R13, R13 // the half panel's first column

half:
	CMPQ R13, cols+48(FP)
	JGE  nextblock

	// The half panel's weights: panel R13/16 at (R13/16)*16k, the half
	// 32 bytes into each group of 64.
	MOVQ  R13, AX
	SHRQ  $4, AX
	IMULQ R9, AX
	SHLQ  $4, AX
	MOVQ  R13, DX
	ANDQ  $8, DX
	SHLQ  $2, DX
	ADDQ  DX, AX
	ADDQ  w+16(FP), AX
	MOVQ  SI, BX            // rows 0 and 1 at BX, BX+k
	LEAQ  (SI)(R9*2), CX    // rows 2 and 3 at CX, CX+k
	MOVQ  R9, R11
	SHRQ  $2, R11           // groups of four
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

group:
	VPMOVSXBW (AX), Y8       // columns 0-3 of the half, four weights each
	VPMOVSXBW 16(AX), Y9     // columns 4-7
	WIDEN((BX), X10, Y10)
	WIDEN((BX)(R9*1), X11, Y11)
	WIDEN((CX), X12, Y12)
	WIDEN((CX)(R9*1), X13, Y13)
	MADD(Y10, Y0, Y1)
	MADD(Y11, Y2, Y3)
	MADD(Y12, Y4, Y5)
	MADD(Y13, Y6, Y7)
	ADDQ $64, AX
	ADDQ $4, BX
	ADDQ $4, CX
	DECQ R11
	JNZ  group

	// The output step for the half panel's eight columns.
	MOVQ colsum+80(FP), R11
	LEAQ (R11)(R13*4), R11
	MOVQ scale+72(FP), DX
	LEAQ (DX)(R13*4), DX
	MOVQ bias+88(FP), AX
	LEAQ (AX)(R13*4), AX
	MOVQ blocks+24(FP), BX
	SUBQ R8, BX
	SHLQ $4, BX             // the block's first row's s and z
	MOVQ BX, CX
	ADDQ s+56(FP), BX
	ADDQ z+64(FP), CX
	LEAQ (DI)(R13*4), R12
	OUTPUT8(Y0, Y1, 0)
	ADDQ R10, R12
	OUTPUT8(Y2, Y3, 4)
	ADDQ R10, R12
	OUTPUT8(Y4, Y5, 8)
	ADDQ R10, R12
	OUTPUT8(Y6, Y7, 12)
	ADDQ $8, R13
	JMP  half

nextblock:
	LEAQ (SI)(R9*4), SI
	LEAQ (DI)(R10*4), DI
	DECQ R8
	JMP  block

done:
	VZEROUPPER
	RET

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
