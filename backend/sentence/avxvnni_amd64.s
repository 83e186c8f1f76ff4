//go:build !purego

#include "textflag.h"

// func dotAVXVNNI(y *float32, xq *uint8, w *int8, blocks, k, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// dotVNNI for CPUs with AVX-VNNI but not AVX-512 (Intel's desktop and
// laptop CPUs from Alder Lake on): the same arguments, packed weights and
// floats out, on 256-bit registers. Each panel's sixteen columns are two
// registers of eight (the first and second 32 bytes of each 64-byte
// group), so four rows keep eight sums.
//
// Go's assembler writes VPDPBUSD only in its AVX-512 (EVEX) form, which
// these CPUs do not run, so the AVX-VNNI (VEX) form is spelt out in bytes:
// C4, then R̄X̄B̄ and the 0F38 map, then W, the inverted first source
// (vvvv), L=256 and the 66 prefix, then the opcode 50 and ModRM. The
// sums are in Y0-Y7 (ModRM.reg), the rows' bytes in Y10-Y13 (vvvv: the
// unsigned operand), the weights in Y8 or Y9 (ModRM.rm, B̄ clear: the
// signed operand).
#define DPBUSD(vvvv, modrm) \
	BYTE $0xc4; BYTE $0xc2; BYTE vvvv; BYTE $0x50; BYTE modrm

// The second byte after C4 for the first source Y10 to Y13.
#define Y10SRC $0x2d
#define Y11SRC $0x25
#define Y12SRC $0x1d
#define Y13SRC $0x15

// OUTPUT8 writes one row's eight outputs to off2(R12) from its dot
// products in acc: s*scale*(acc - z*colsum) + bias, the row's s and z at
// off(BX) and off(CX), the panel's colsum, scale and bias at (R11), (DX)
// and (AX) plus off2 (dotVNNI's output step on eight columns).
#define OUTPUT8(acc, off, off2) \
	VPBROADCASTD off(CX), Y14 \
	VPMULLD      off2(R11), Y14, Y14 \
	VPSUBD       Y14, acc, acc \
	VCVTDQ2PS    acc, acc \
	VBROADCASTSS off(BX), Y15 \
	VMULPS       off2(DX), Y15, Y15 \
	VFMADD213PS  off2(AX), Y15, acc \
	VMOVUPS      acc, off2(R12)

TEXT ·dotAVXVNNI(SB), NOSPLIT, $0-88
	MOVQ y+0(FP), DI
	MOVQ xq+8(FP), SI
	MOVQ blocks+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ m+40(FP), R10
	SHLQ $2, R10 // y's row stride in bytes

block:
	TESTQ R8, R8
	JZ    done
	XORQ  R13, R13 // the panel's first column

panel:
	CMPQ R13, m+40(FP)
	JGE  nextblock

	MOVQ  R13, AX
	IMULQ R9, AX
	ADDQ  w+16(FP), AX      // the panel's weights, at 16k per panel
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
	VMOVDQU      (AX), Y8   // columns 0-7, four weights each
	VMOVDQU      32(AX), Y9 // columns 8-15
	VPBROADCASTD (BX), Y10
	VPBROADCASTD (BX)(R9*1), Y11
	VPBROADCASTD (CX), Y12
	VPBROADCASTD (CX)(R9*1), Y13
	DPBUSD(Y10SRC, $0xc0)   // Y0 += Y10 · Y8
	DPBUSD(Y10SRC, $0xc9)   // Y1 += Y10 · Y9
	DPBUSD(Y11SRC, $0xd0)   // Y2 += Y11 · Y8
	DPBUSD(Y11SRC, $0xd9)   // Y3 += Y11 · Y9
	DPBUSD(Y12SRC, $0xe0)   // Y4 += Y12 · Y8
	DPBUSD(Y12SRC, $0xe9)   // Y5 += Y12 · Y9
	DPBUSD(Y13SRC, $0xf0)   // Y6 += Y13 · Y8
	DPBUSD(Y13SRC, $0xf9)   // Y7 += Y13 · Y9
	ADDQ $64, AX
	ADDQ $4, BX
	ADDQ $4, CX
	DECQ R11
	JNZ  group

	// The output step for the panel's sixteen columns.
	MOVQ colsum+72(FP), R11
	LEAQ (R11)(R13*4), R11
	MOVQ scale+64(FP), DX
	LEAQ (DX)(R13*4), DX
	MOVQ bias+80(FP), AX
	LEAQ (AX)(R13*4), AX
	MOVQ blocks+24(FP), BX
	SUBQ R8, BX
	SHLQ $4, BX             // the block's first row's s and z
	MOVQ BX, CX
	ADDQ s+48(FP), BX
	ADDQ z+56(FP), CX
	LEAQ (DI)(R13*4), R12
	OUTPUT8(Y0, 0, 0)
	OUTPUT8(Y1, 0, 32)
	ADDQ R10, R12
	OUTPUT8(Y2, 4, 0)
	OUTPUT8(Y3, 4, 32)
	ADDQ R10, R12
	OUTPUT8(Y4, 8, 0)
	OUTPUT8(Y5, 8, 32)
	ADDQ R10, R12
	OUTPUT8(Y6, 12, 0)
	OUTPUT8(Y7, 12, 32)
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
