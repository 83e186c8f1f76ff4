//go:build !purego

#include "textflag.h"

// func dotVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// For each block of four rows of xq (k bytes each) and each panel of
// sixteen of the m columns, y's four rows get the panel's sixteen
// outputs: the int32 dot products of the rows with the columns, computed
// with VPDPBUSD (unsigned activations times signed weights, four at a
// time), then s[t]*scale[j]*(dot - z[t]*colsum[j]) + bias[j]. w is packed
// by matrix.packVNNI: panel p at p*16*k, its k/4 groups of 64 bytes in
// order, each holding four rows' bytes of every column side by side.

// OUTPUT writes one row's sixteen outputs to (R12) from its dot products
// in acc: s*scale*(acc - z*colsum) + bias, the row's s and z at off(BX)
// and off(CX).
#define OUTPUT(acc, off) \
	VPBROADCASTD off(CX), Z14 \
	VPMULLD      Z20, Z14, Z14 \
	VPSUBD       Z14, acc, acc \
	VCVTDQ2PS    acc, acc \
	VBROADCASTSS off(BX), Z15 \
	VMULPS       Z21, Z15, Z15 \
	VFMADD213PS  Z22, Z15, acc \
	VMOVUPS      acc, (R12)

// OUTPUTS writes the outputs of the block's four rows for the panel at
// column R13 from their dot products in a0..a3 (see OUTPUT), loading the
// panel's colsum, scale and bias to Z20, Z21, Z22 and the rows' s and z
// pointers to BX and CX; it uses AX and R12.
#define OUTPUTS(a0, a1, a2, a3) \
	MOVQ      colsum+72(FP), AX \
	VMOVDQU32 (AX)(R13*4), Z20 \
	MOVQ      scale+64(FP), AX \
	VMOVUPS   (AX)(R13*4), Z21 \
	MOVQ      bias+80(FP), AX \
	VMOVUPS   (AX)(R13*4), Z22 \
	MOVQ      blocks+24(FP), AX \
	SUBQ      R8, AX \
	SHLQ      $4, AX \
	MOVQ      s+48(FP), BX \
	ADDQ      AX, BX \
	MOVQ      z+56(FP), CX \
	ADDQ      AX, CX \
	LEAQ      (DI)(R13*4), R12 \
	OUTPUT(a0, 0) \
	ADDQ      R10, R12 \
	OUTPUT(a1, 4) \
	ADDQ      R10, R12 \
	OUTPUT(a2, 8) \
	ADDQ      R10, R12 \
	OUTPUT(a3, 12)

TEXT ·dotVNNI(SB), NOSPLIT, $0-88
	MOVQ y+0(FP), DI
	MOVQ xq+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ blocks+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ m+40(FP), R10
	SHLQ $2, R10 // y's row stride in bytes

block:
	TESTQ R8, R8
	JZ    done
	XORQ  R13, R13

panel:
	MOVQ m+40(FP), AX
	SUBQ R13, AX
	JLE  nextblock
	CMPQ AX, $32
	JL   single

	// Two panels at once: eight independent sums hide VPDPBUSD's latency.
	MOVQ  R13, AX
	IMULQ R9, AX
	ADDQ  DX, AX            // the first panel's weights; the second's at +16k
	MOVQ  R9, R12
	SHLQ  $4, R12
	MOVQ  SI, BX            // rows 0 and 1 at BX, BX+k
	LEAQ  (SI)(R9*2), CX    // rows 2 and 3 at CX, CX+k
	MOVQ  R9, R11
	SHRQ  $2, R11           // groups of four
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

pairgroup:
	VMOVDQU64    (AX), Z8
	VMOVDQU64    (AX)(R12*1), Z9
	VPBROADCASTD (BX), Z10
	VPBROADCASTD (BX)(R9*1), Z11
	VPBROADCASTD (CX), Z12
	VPBROADCASTD (CX)(R9*1), Z13
	VPDPBUSD     Z8, Z10, Z0
	VPDPBUSD     Z9, Z10, Z4
	VPDPBUSD     Z8, Z11, Z1
	VPDPBUSD     Z9, Z11, Z5
	VPDPBUSD     Z8, Z12, Z2
	VPDPBUSD     Z9, Z12, Z6
	VPDPBUSD     Z8, Z13, Z3
	VPDPBUSD     Z9, Z13, Z7
	ADDQ         $64, AX
	ADDQ         $4, BX
	ADDQ         $4, CX
	DECQ         R11
	JNZ          pairgroup

	OUTPUTS(Z0, Z1, Z2, Z3)
	ADDQ $16, R13
	OUTPUTS(Z4, Z5, Z6, Z7)
	ADDQ $16, R13
	JMP  panel

single:
	MOVQ  R13, AX
	IMULQ R9, AX
	ADDQ  DX, AX            // the panel's weights
	MOVQ  SI, BX
	LEAQ  (SI)(R9*2), CX
	MOVQ  R9, R11
	SHRQ  $2, R11
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

group:
	VMOVDQU64    (AX), Z8
	VPBROADCASTD (BX), Z10
	VPBROADCASTD (BX)(R9*1), Z11
	VPBROADCASTD (CX), Z12
	VPBROADCASTD (CX)(R9*1), Z13
	VPDPBUSD     Z8, Z10, Z0
	VPDPBUSD     Z8, Z11, Z1
	VPDPBUSD     Z8, Z12, Z2
	VPDPBUSD     Z8, Z13, Z3
	ADDQ         $64, AX
	ADDQ         $4, BX
	ADDQ         $4, CX
	DECQ         R11
	JNZ          group

	OUTPUTS(Z0, Z1, Z2, Z3)
	ADDQ $16, R13
	JMP  panel

nextblock:
	LEAQ (SI)(R9*4), SI
	LEAQ (DI)(R10*4), DI
	DECQ R8
	JMP  block

done:
	VZEROUPPER
	RET

// HREDUCE folds the sixteen lanes of z (y and x are its lower halves)
// into x's first lane with ps and, at the end, ss; tz, ty and tx are a
// spare register's names.
#define HREDUCE(ps, ss, z, y, x, tz, ty, tx) \
	VEXTRACTF64X4 $1, z, ty \
	ps            ty, y, y \
	VEXTRACTF128  $1, y, tx \
	ps            tx, x, x \
	VPSHUFD       $0x4e, x, tx \
	ps            tx, x, x \
	VPSHUFD       $0xb1, x, tx \
	ss            tx, x, x

// func scoresAVX512(out *float32, q *float32, k *float32, n, stride, depth int)
//
// out[s] = q · k[s*stride : s*stride+depth] for s < n; depth is a
// multiple of 16.
TEXT ·scoresAVX512(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $2, R9
	MOVQ depth+40(FP), R10
	SHLQ $2, R10

score:
	TESTQ  R8, R8
	JZ     scored
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   AX, AX

chunk:
	VMOVUPS     (SI)(AX*1), Z2
	VFMADD231PS (DX)(AX*1), Z2, Z0
	ADDQ        $64, AX
	CMPQ        AX, R10
	JGE         sum
	VMOVUPS     (SI)(AX*1), Z3
	VFMADD231PS (DX)(AX*1), Z3, Z1
	ADDQ        $64, AX
	CMPQ        AX, R10
	JL          chunk

sum:
	VADDPS        Z1, Z0, Z0
	HREDUCE(VADDPS, VADDSS, Z0, Y0, X0, Z1, Y1, X1)
	VMOVSS        X0, (DI)
	ADDQ          $4, DI
	ADDQ          R9, DX
	DECQ          R8
	JMP           score

scored:
	VZEROUPPER
	RET

// func mixAVX512(o *float32, p *float32, v *float32, n, stride, depth int)
//
// o[:depth] = Σ p[s] v[s*stride : s*stride+depth] for s < n; depth is a
// multiple of 16.
TEXT ·mixAVX512(SB), NOSPLIT, $0-48
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
	VPXORD Z0, Z0, Z0
	MOVQ   n+24(FP), R8
	MOVQ   DX, AX
	MOVQ   SI, BX

row:
	TESTQ        R8, R8
	JZ           stored
	VBROADCASTSS (BX), Z1
	VFMADD231PS  (AX), Z1, Z0
	ADDQ         $4, BX
	ADDQ         R9, AX
	DECQ         R8
	JMP          row

stored:
	VMOVUPS Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $64, DX
	DECQ    R10
	JMP     column

mixed:
	VZEROUPPER
	RET

// func rangeAVX512(x *float32, n int) (lo, hi float32)
//
// The least and the greatest of x[:n]; n is a positive multiple of 16.
TEXT ·rangeAVX512(SB), NOSPLIT, $0-24
	MOVQ    x+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVUPS (SI), Z0
	VMOVUPS Z0, Z1

extend:
	ADDQ    $64, SI
	SUBQ    $16, CX
	JLE     reduce
	VMOVUPS (SI), Z2
	VMINPS  Z2, Z0, Z0
	VMAXPS  Z2, Z1, Z1
	JMP     extend

reduce:
	HREDUCE(VMINPS, VMINSS, Z0, Y0, X0, Z2, Y2, X2)
	VMOVSS X0, lo+16(FP)
	HREDUCE(VMAXPS, VMAXSS, Z1, Y1, X1, Z2, Y2, X2)
	VMOVSS X1, hi+20(FP)
	VZEROUPPER
	RET

// func quantizeAVX512(q *uint8, x *float32, n int, inv, off float32)
//
// q[i] = x[i]*inv + off truncated and clamped to 0..255, for i < n; n is
// a multiple of 16.
TEXT ·quantizeAVX512(SB), NOSPLIT, $0-32
	MOVQ         q+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS inv+24(FP), Z1
	VBROADCASTSS off+28(FP), Z2
	VPXORD       Z3, Z3, Z3

next:
	TESTQ       CX, CX
	JZ          done
	VMOVUPS     (SI), Z0
	VFMADD213PS Z2, Z1, Z0
	VCVTTPS2DQ  Z0, Z0
	VPMAXSD     Z3, Z0, Z0
	VPMOVUSDB   Z0, X0
	VMOVDQU     X0, (DI)
	ADDQ        $64, SI
	ADDQ        $16, DI
	SUBQ        $16, CX
	JMP         next

done:
	VZEROUPPER
	RET
