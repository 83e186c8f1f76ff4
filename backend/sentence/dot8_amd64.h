// The loop dotAVXVNNI and dotAVX2 share (included by avxvnni_amd64.s
// and avx2_amd64.s), for the first cols (a multiple of 16) of y's m
// columns: for each block of four rows and each panel of sixteen
// columns, the four rows' bytes broadcast a group of four at a time
// against the panel's 64 bytes of weights, eight sums of eight columns in
// Y0-Y7, then the output step. The including file defines DOT8 (the
// function's name), PANEL (what each panel starts with; it may set Y15)
// and PRODUCTS (Y0-Y7 += the rows in Y10-Y13 times the weights in Y8 and
// Y9; Y14 and what PANEL set are its own). The output step overwrites
// Y14 and Y15.

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

TEXT DOT8(SB), NOSPLIT, $0-96
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
	CMPQ R13, cols+48(FP)
	JGE  nextblock

	MOVQ     R13, AX
	IMULQ    R9, AX
	ADDQ     w+16(FP), AX    // the panel's weights, at 16k per panel
	MOVQ     SI, BX          // rows 0 and 1 at BX, BX+k
	LEAQ     (SI)(R9*2), CX  // rows 2 and 3 at CX, CX+k
	MOVQ     R9, R11
	SHRQ     $2, R11         // groups of four
	VPXOR    Y0, Y0, Y0
	VPXOR    Y1, Y1, Y1
	VPXOR    Y2, Y2, Y2
	VPXOR    Y3, Y3, Y3
	VPXOR    Y4, Y4, Y4
	VPXOR    Y5, Y5, Y5
	VPXOR    Y6, Y6, Y6
	VPXOR    Y7, Y7, Y7
	PANEL

group:
	VMOVDQU      (AX), Y8   // columns 0-7, four weights each
	VMOVDQU      32(AX), Y9 // columns 8-15
	VPBROADCASTD (BX), Y10
	VPBROADCASTD (BX)(R9*1), Y11
	VPBROADCASTD (CX), Y12
	VPBROADCASTD (CX)(R9*1), Y13
	PRODUCTS
	ADDQ $64, AX
	ADDQ $4, BX
	ADDQ $4, CX
	DECQ R11
	JNZ  group

	// The output step for the panel's sixteen columns.
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
