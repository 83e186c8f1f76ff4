//go:build !purego

#include "textflag.h"

// func dotAVX2(q *float32, v *int8, n int) float32
//
// Eight int8s a register, widened to int32 (VPMOVSXBD) and converted to
// float32, multiplied by q's and added with FMA into four sums, which are
// added at the end.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   q+0(FP), SI
	MOVQ   v+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

step:
	CMPQ        AX, CX
	JGE         sum
	VPMOVSXBD   (DI)(AX*1), Y4
	VPMOVSXBD   8(DI)(AX*1), Y5
	VPMOVSXBD   16(DI)(AX*1), Y6
	VPMOVSXBD   24(DI)(AX*1), Y7
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS (SI)(AX*4), Y4, Y0
	VFMADD231PS 32(SI)(AX*4), Y5, Y1
	VFMADD231PS 64(SI)(AX*4), Y6, Y2
	VFMADD231PS 96(SI)(AX*4), Y7, Y3
	ADDQ        $32, AX
	JMP         step

sum:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VADDPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, ret+24(FP)
	VZEROUPPER
	RET

// func hammingsAVX512(q *[8]uint64, signs *[8]uint64, n int, out *uint16)
//
// out[i] = the number of bits in which signs[i] differs from q, for i < n,
// a multiple of 8 (each distance at most 512, so a uint16). Eight vectors
// at a time: each XORed with q and its eight words counted (VPOPCNTQ),
// then the eight registers of counts added across in three rounds (pairs
// of words within 128-bit lanes, then pairs of lanes twice), which leaves
// vector k's total in word k, narrowed to 16 bits and stored.
TEXT ·hammingsAVX512(SB), NOSPLIT, $0-32
	MOVQ      q+0(FP), AX
	MOVQ      signs+8(FP), SI
	MOVQ      n+16(FP), CX
	MOVQ      out+24(FP), DI
	VMOVDQU64 (AX), Z8

eight:
	TESTQ       CX, CX
	JZ          counted
	VPXORQ      (SI), Z8, Z0
	VPXORQ      64(SI), Z8, Z1
	VPXORQ      128(SI), Z8, Z2
	VPXORQ      192(SI), Z8, Z3
	VPXORQ      256(SI), Z8, Z4
	VPXORQ      320(SI), Z8, Z5
	VPXORQ      384(SI), Z8, Z6
	VPXORQ      448(SI), Z8, Z7
	VPOPCNTQ    Z0, Z0
	VPOPCNTQ    Z1, Z1
	VPOPCNTQ    Z2, Z2
	VPOPCNTQ    Z3, Z3
	VPOPCNTQ    Z4, Z4
	VPOPCNTQ    Z5, Z5
	VPOPCNTQ    Z6, Z6
	VPOPCNTQ    Z7, Z7
	// Lane j of the sums of vectors a and b: [a's words 2j+2j+1, b's].
	VPUNPCKLQDQ Z1, Z0, Z9
	VPUNPCKHQDQ Z1, Z0, Z10
	VPADDQ      Z10, Z9, Z0
	VPUNPCKLQDQ Z3, Z2, Z9
	VPUNPCKHQDQ Z3, Z2, Z10
	VPADDQ      Z10, Z9, Z1
	VPUNPCKLQDQ Z5, Z4, Z9
	VPUNPCKHQDQ Z5, Z4, Z10
	VPADDQ      Z10, Z9, Z2
	VPUNPCKLQDQ Z7, Z6, Z9
	VPUNPCKHQDQ Z7, Z6, Z10
	VPADDQ      Z10, Z9, Z3
	// Lanes 0+1 and 2+3 of two registers: [ab's halves, cd's halves].
	VSHUFI64X2  $0x88, Z1, Z0, Z9
	VSHUFI64X2  $0xdd, Z1, Z0, Z10
	VPADDQ      Z10, Z9, Z0
	VSHUFI64X2  $0x88, Z3, Z2, Z9
	VSHUFI64X2  $0xdd, Z3, Z2, Z10
	VPADDQ      Z10, Z9, Z1
	// And once more: word k is vector k's total.
	VSHUFI64X2  $0x88, Z1, Z0, Z9
	VSHUFI64X2  $0xdd, Z1, Z0, Z10
	VPADDQ      Z10, Z9, Z0
	VPMOVQW     Z0, X0
	VMOVDQU     X0, (DI)
	ADDQ        $512, SI
	ADDQ        $16, DI
	SUBQ        $8, CX
	JMP         eight

counted:
	VZEROUPPER
	RET

// func hammingsPOPCNT(q *[8]uint64, signs *[8]uint64, n int, out *uint16)
//
// hammingsAVX512 for CPUs without AVX-512 VPOPCNTDQ, any n: each vector's
// eight words XORed with q's and counted with POPCNT in eight registers,
// added in a tree.
TEXT ·hammingsPOPCNT(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), AX
	MOVQ signs+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DI

one:
	TESTQ   CX, CX
	JZ      done
	MOVQ    (SI), BX
	XORQ    (AX), BX
	POPCNTQ BX, BX
	MOVQ    8(SI), DX
	XORQ    8(AX), DX
	POPCNTQ DX, DX
	MOVQ    16(SI), R8
	XORQ    16(AX), R8
	POPCNTQ R8, R8
	MOVQ    24(SI), R9
	XORQ    24(AX), R9
	POPCNTQ R9, R9
	MOVQ    32(SI), R10
	XORQ    32(AX), R10
	POPCNTQ R10, R10
	MOVQ    40(SI), R11
	XORQ    40(AX), R11
	POPCNTQ R11, R11
	MOVQ    48(SI), R12
	XORQ    48(AX), R12
	POPCNTQ R12, R12
	MOVQ    56(SI), R13
	XORQ    56(AX), R13
	POPCNTQ R13, R13
	ADDQ    DX, BX
	ADDQ    R9, R8
	ADDQ    R11, R10
	ADDQ    R13, R12
	ADDQ    R8, BX
	ADDQ    R12, R10
	ADDQ    R10, BX
	MOVW    BX, (DI)
	ADDQ    $64, SI
	ADDQ    $2, DI
	DECQ    CX
	JMP     one

done:
	RET
