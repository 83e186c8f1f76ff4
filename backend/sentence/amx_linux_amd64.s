//go:build !purego

#include "textflag.h"

// AMX instructions, which Go's assembler does not know, as bytes; each
// name says its tiles and registers. Tiles: tmm2 the weights; tmm1, tmm6,
// tmm7 and tmm1 again the activations of blocks 0-3; tmm0, tmm3, tmm4,
// tmm5 their sums.
#define LDTILECFG_DI       BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x07
#define TILERELEASE        BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0
#define TILEZERO_T0        BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0
#define TILEZERO_T3        BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD8
#define TILEZERO_T4        BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xE0
#define TILEZERO_T5        BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xE8
#define TILELOADD_T2_DXBX  BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x14; BYTE $0x1A
#define TILELOADD_T1_AXCX  BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x0C; BYTE $0x08
#define TILELOADD_T6_SICX  BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x34; BYTE $0x0E
#define TILELOADD_T7_DICX  BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x3C; BYTE $0x0F
#define TILELOADD_T1_R8CX  BYTE $0xC4; BYTE $0xC2; BYTE $0x7B; BYTE $0x4B; BYTE $0x0C; BYTE $0x08
#define TDPBUSD_T0_T1_T2   BYTE $0xC4; BYTE $0xE2; BYTE $0x69; BYTE $0x5E; BYTE $0xC1
#define TDPBUSD_T3_T6_T2   BYTE $0xC4; BYTE $0xE2; BYTE $0x69; BYTE $0x5E; BYTE $0xDE
#define TDPBUSD_T4_T7_T2   BYTE $0xC4; BYTE $0xE2; BYTE $0x69; BYTE $0x5E; BYTE $0xE7
#define TDPBUSD_T5_T1_T2   BYTE $0xC4; BYTE $0xE2; BYTE $0x69; BYTE $0x5E; BYTE $0xE9
#define TILESTORED_AXDX_T0 BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x10
#define TILESTORED_AXDX_T3 BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x1C; BYTE $0x10
#define TILESTORED_AXDX_T4 BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x24; BYTE $0x10
#define TILESTORED_AXDX_T5 BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x2C; BYTE $0x10

// func dotAMX(acc *int32, xq *uint8, w *int8, cfg *byte, blocks, k, m int)
//
// For the blocks of sixteen rows of xq (k bytes each) and each panel of
// sixteen columns, acc's rows (m int32 each) get the int32 dot products,
// on AMX tiles: up to four blocks per pass over the weights (weights are
// read from memory once per pass, which is what limits the kernel), each
// step loading the panel's next sixteen groups of four weight rows (the
// packVNNI layout is the tile's) and each block's next 64 bytes, and
// TDPBUSD adding their products to the block's sums. cfg configures the
// tiles as 16 rows x 64 bytes; k is a multiple of 64, m of 16.
TEXT ·dotAMX(SB), NOSPLIT, $8-56
	MOVQ cfg+24(FP), DI
	LDTILECFG_DI
	MOVQ xq+8(FP), R12      // the group's activations
	MOVQ acc+0(FP), R13     // the group's sums
	MOVQ blocks+32(FP), AX
	MOVQ AX, left-8(SP)     // blocks not done
	MOVQ k+40(FP), CX       // the activations' row stride
	MOVQ $64, BX            // the weights' group stride

group:
	MOVQ  left-8(SP), R9
	TESTQ R9, R9
	JZ    done
	CMPQ  R9, $4
	JLE   sized
	MOVQ  $4, R9

sized:
	SUBQ R9, left-8(SP)
	XORQ R11, R11           // the panel's first column

panel:
	CMPQ  R11, m+48(FP)
	JGE   nextgroup
	MOVQ  R11, DX
	IMULQ CX, DX
	ADDQ  w+16(FP), DX      // the panel's weights
	MOVQ  R12, AX           // the blocks' rows at AX, SI, DI, R8
	MOVQ  CX, SI
	SHLQ  $4, SI
	ADDQ  AX, SI
	MOVQ  CX, DI
	SHLQ  $4, DI
	ADDQ  SI, DI
	MOVQ  CX, R8
	SHLQ  $4, R8
	ADDQ  DI, R8
	MOVQ  CX, R10
	SHRQ  $6, R10           // steps of 64 bytes
	TILEZERO_T0
	TILEZERO_T3
	TILEZERO_T4
	TILEZERO_T5

step:
	TILELOADD_T2_DXBX
	TILELOADD_T1_AXCX
	TDPBUSD_T0_T1_T2
	CMPQ R9, $2
	JL   stepped
	TILELOADD_T6_SICX
	TDPBUSD_T3_T6_T2
	CMPQ R9, $3
	JL   stepped
	TILELOADD_T7_DICX
	TDPBUSD_T4_T7_T2
	CMPQ R9, $4
	JL   stepped
	TILELOADD_T1_R8CX
	TDPBUSD_T5_T1_T2

stepped:
	ADDQ $64, AX
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $1024, DX
	DECQ R10
	JNZ  step

	// Store each block's sixteen rows of this panel: AX at the block's
	// first, DX acc's row stride; blocks are 16 rows apart.
	MOVQ m+48(FP), DX
	SHLQ $2, DX
	LEAQ (R13)(R11*4), AX
	TILESTORED_AXDX_T0
	CMPQ R9, $2
	JL   stored
	MOVQ DX, SI
	SHLQ $4, SI
	ADDQ SI, AX
	TILESTORED_AXDX_T3
	CMPQ R9, $3
	JL   stored
	ADDQ SI, AX
	TILESTORED_AXDX_T4
	CMPQ R9, $4
	JL   stored
	ADDQ SI, AX
	TILESTORED_AXDX_T5

stored:
	ADDQ $16, R11
	JMP  panel

nextgroup:
	// R12 += R9 blocks of 16 rows of k bytes; R13 of 16 rows of m int32.
	MOVQ  R9, AX
	SHLQ  $4, AX
	MOVQ  AX, SI
	IMULQ CX, AX
	ADDQ  AX, R12
	IMULQ m+48(FP), SI
	SHLQ  $2, SI
	ADDQ  SI, R13
	JMP   group

done:
	TILERELEASE
	RET

// func outputAVX512(y *float32, acc *int32, n, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// y[t][j] = s[t]*scale[j]*(acc[t][j] - z[t]*colsum[j]) + bias[j] for the
// n rows of m (a multiple of 16) values, with the operations of dotVNNI's
// output step, so the two give the same floats.
TEXT ·outputAVX512(SB), NOSPLIT, $0-72
	MOVQ y+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ m+24(FP), R9
	SHLQ $2, R9             // a row's bytes
	MOVQ s+32(FP), BX
	MOVQ z+40(FP), CX
	MOVQ scale+48(FP), R10
	MOVQ colsum+56(FP), R11
	MOVQ bias+64(FP), R12

row:
	TESTQ        R8, R8
	JZ           finished
	VPBROADCASTD (CX), Z14
	VBROADCASTSS (BX), Z15
	XORQ         AX, AX

column:
	VMOVDQU32   (SI)(AX*1), Z0
	VPMULLD     (R11)(AX*1), Z14, Z1
	VPSUBD      Z1, Z0, Z0
	VCVTDQ2PS   Z0, Z0
	VMULPS      (R10)(AX*1), Z15, Z2
	VFMADD213PS (R12)(AX*1), Z2, Z0
	VMOVUPS     Z0, (DI)(AX*1)
	ADDQ        $64, AX
	CMPQ        AX, R9
	JL          column

	ADDQ R9, SI
	ADDQ R9, DI
	ADDQ $4, BX
	ADDQ $4, CX
	DECQ R8
	JMP  row

finished:
	VZEROUPPER
	RET
