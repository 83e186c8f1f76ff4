//go:build !purego

package sentence

import (
	"log/slog"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/cpu"
)

// amxReady says the encoder may run its products on AMX tiles: the CPU
// has AMX with int8 (Sapphire Rapids and later Xeons) and Linux let this
// process use the tiles' state, which it must ask for once
// (arch_prctl ARCH_REQ_XCOMP_PERM). Asked at the first encoding, not at
// start, so a process that never encodes never asks. Once granted, Linux
// refuses alternate signal stacks smaller than the tiles' signal frame
// (about 11 KB; Go's are 32 KB): SHRIMP_NO_AMX=1 keeps the process from
// asking, should a C library in it need a smaller one.
var amxReady = sync.OnceValue(func() bool {
	if !cpu.X86.HasAMXTile || !cpu.X86.HasAMXInt8 || !hasVNNI || os.Getenv("SHRIMP_NO_AMX") != "" {
		return false
	}
	const reqXcompPerm, xtiledata = 0x1023, 18
	if _, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, reqXcompPerm, xtiledata, 0); errno != 0 {
		slog.Debug("AMX tiles refused by the kernel; the encoder uses AVX-512 VNNI", "err", errno)
		return false
	}
	return true
})

// hasAMX lets the encoder use AMX when amxReady; a test turns it off to
// compare with the VNNI kernel.
var hasAMX = true

// amxConfig configures the eight tiles as 16 rows of 64 bytes (palette 1).
var amxConfig = func() (c [64]byte) {
	c[0] = 1
	for t := range 8 {
		c[16+2*t] = 64 // bytes per row, little-endian uint16
		c[48+t] = 16   // rows
	}
	return c
}()

// dotAMX is in amx_linux_amd64.s.
//
//go:noescape
func dotAMX(acc *int32, xq *uint8, w *int8, cfg *byte, blocks, k, m int)

// outputAVX512 is in amx_linux_amd64.s.
//
//go:noescape
func outputAVX512(y *float32, acc *int32, n, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32)
