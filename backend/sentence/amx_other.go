//go:build !(linux && amd64) || purego

package sentence

// amxReady is false: the AMX kernel is Linux amd64 assembly.
func amxReady() bool { return false }

// hasAMX is false: see amxReady.
var hasAMX = false

var amxConfig [64]byte

func dotAMX(acc *int32, xq *uint8, w *int8, cfg *byte, blocks, k, m int) {
	panic("sentence: no AMX kernel in this build")
}

func outputAVX512(y *float32, acc *int32, n, m int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32) {
	panic("sentence: no AMX kernel in this build")
}
