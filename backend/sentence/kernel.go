package sentence

import (
	"log/slog"
	"os"
	"slices"
	"sync"
)

// kernelLevels names the encoder's products, fastest first, as
// SHRIMP_KERNEL takes them.
var kernelLevels = []string{"amx", "avx512-vnni", "avx-vnni", "avx2", "portable"}

// capKernels applies SHRIMP_KERNEL once, before the first model is laid
// out for its kernel: it names the fastest product the encoder may use
// (one of kernelLevels), so one machine can measure what a CPU without
// its newer instructions gets, and a user can step around a kernel that
// misbehaves. It never enables what the CPU lacks. The vectors are the
// same with every 8-bit kernel (amx to avx2) and within a cosine of 0.999
// with the others.
var capKernels = sync.OnceFunc(func() {
	name := os.Getenv("SHRIMP_KERNEL")
	if name == "" {
		return
	}
	level := slices.Index(kernelLevels, name)
	if level < 0 {
		slog.Warn("SHRIMP_KERNEL names no kernel; ignored", "value", name, "kernels", kernelLevels)
		return
	}
	capAt(level)
})

// capAt turns off every product faster than kernelLevels[level].
func capAt(level int) {
	if level >= 1 {
		hasAMX = false
	}
	if level >= 2 {
		hasVNNI, hasAVX512 = false, false
	}
	if level >= 3 {
		hasAVXVNNI = false
	}
	if level >= 4 {
		hasAVX2 = false
		matmul, vectorKernel, kernelName = matmulGo, false, "portable Go code (no SIMD, SHRIMP_KERNEL=portable)"
	}
}
