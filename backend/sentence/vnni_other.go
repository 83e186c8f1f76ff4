//go:build !amd64 || purego

package sentence

// hasVNNI is false: the VNNI kernel is amd64 assembly.
const hasVNNI = false

func dotVNNI(y *float32, xq *uint8, w *int8, blocks, k, m, j0, j1 int, s *float32, z *int32, scale *float32, colsum *int32, bias *float32) {
	panic("sentence: no VNNI kernel in this build")
}
