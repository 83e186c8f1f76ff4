//go:build !purego

#include "textflag.h"

// func dotAVXVNNI(y *float32, xq *uint8, w *int8, blocks, k, m, cols int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
//
// dotVNNI for CPUs with AVX-VNNI but not AVX-512 (Intel's desktop and
// laptop CPUs from Alder Lake on): the same arguments and cols (as
// dotAVX2's), packed weights and floats out, on 256-bit registers (the
// loop in dot8_amd64.h). Each panel's sixteen columns are two registers
// of eight (the first and second 32 bytes of each 64-byte group), so four
// rows keep eight sums.
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

// PANEL and PRODUCTS for dot8_amd64.h.
#define PANEL

#define PRODUCTS \
	DPBUSD(Y10SRC, $0xc0) /* Y0 += Y10 · Y8 */ \
	DPBUSD(Y10SRC, $0xc9) /* Y1 += Y10 · Y9 */ \
	DPBUSD(Y11SRC, $0xd0) /* Y2 += Y11 · Y8 */ \
	DPBUSD(Y11SRC, $0xd9) /* Y3 += Y11 · Y9 */ \
	DPBUSD(Y12SRC, $0xe0) /* Y4 += Y12 · Y8 */ \
	DPBUSD(Y12SRC, $0xe9) /* Y5 += Y12 · Y9 */ \
	DPBUSD(Y13SRC, $0xf0) /* Y6 += Y13 · Y8 */ \
	DPBUSD(Y13SRC, $0xf9) /* Y7 += Y13 · Y9 */

#define DOT8 ·dotAVXVNNI
#include "dot8_amd64.h"
