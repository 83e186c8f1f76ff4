//go:build !amd64 || purego

package lexicon

// hasAVX2 is false: dotAVX2 is amd64 assembly.
var hasAVX2 = false

func dotAVX2(x, y *int8, n int) int32 {
	panic("lexicon: no AVX2 kernel in this build")
}
