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
