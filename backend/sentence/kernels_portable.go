//go:build !(goexperiment.simd && amd64)

package sentence

// kernels lists the vector matmuls this build has: none.
func kernels() map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int) {
	return map[string]func(y, x []float32, w *matrix, n, k, m, j0, j1 int){}
}
