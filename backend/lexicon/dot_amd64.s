//go:build !purego

#include "textflag.h"

// func dotAVX2(x, y *int8, n int) int32
//
// Sixteen bytes of each vector a step, widened to 16 bits (VPMOVSXBW)
// and multiplied and added in pairs (VPMADDWD): products of -128..127 in
// pairs fit in 32 bits, so the sum is exact, as the Go loop's is.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ  x+0(FP), SI
	MOVQ  y+8(FP), DI
	MOVQ  n+16(FP), CX
	VPXOR Y0, Y0, Y0
	XORQ  AX, AX

step:
	CMPQ      AX, CX
	JGE       sum
	VPMOVSXBW (SI)(AX*1), Y1
	VPMOVSXBW (DI)(AX*1), Y2
	VPMADDWD  Y2, Y1, Y1
	VPADDD    Y1, Y0, Y0
	ADDQ      $16, AX
	JMP       step

sum:
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	MOVL         AX, ret+24(FP)
	VZEROUPPER
	RET
