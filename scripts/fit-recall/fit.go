package main

import (
	"errors"
	"math"
)

// FitLogistic fits logistic regression weights (bias first) to rows x and
// labels y (0 or 1) by Newton's method with an L2 penalty l2 on the
// weights (not the bias), and returns them. Rows are weighted by w when it
// is not nil (to balance rare positives).
func FitLogistic(x [][]float64, y, w []float64, l2 float64) ([]float64, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, errors.New("fit: no rows, or rows and labels differ in number")
	}
	n := len(x[0]) + 1
	beta := make([]float64, n)
	for iter := 0; iter < 100; iter++ {
		grad := make([]float64, n)
		hess := make([][]float64, n)
		for i := range hess {
			hess[i] = make([]float64, n)
		}
		for r, row := range x {
			xi := append([]float64{1}, row...)
			p := sigmoid(dot(beta, xi))
			wt := 1.0
			if w != nil {
				wt = w[r]
			}
			for a := range n {
				grad[a] += wt * (y[r] - p) * xi[a]
				for b := range n {
					hess[a][b] += wt * p * (1 - p) * xi[a] * xi[b]
				}
			}
		}
		for a := 1; a < n; a++ {
			grad[a] -= l2 * beta[a]
			hess[a][a] += l2
		}
		step, err := solve(hess, grad)
		if err != nil {
			return nil, err
		}
		change := 0.0
		for a := range n {
			beta[a] += step[a]
			change = max(change, math.Abs(step[a]))
		}
		if change < 1e-9 {
			break
		}
	}
	return beta, nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve solves h·x = g by Gaussian elimination with partial pivoting.
func solve(h [][]float64, g []float64) ([]float64, error) {
	n := len(g)
	a := make([][]float64, n)
	for i := range a {
		a[i] = append(append([]float64{}, h[i]...), g[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, errors.New("fit: singular system (a feature never varies)")
		}
		a[c], a[p] = a[p], a[c]
		for r := range n {
			if r == c {
				continue
			}
			k := a[r][c] / a[c][c]
			for j := c; j <= n; j++ {
				a[r][j] -= k * a[c][j]
			}
		}
	}
	x := make([]float64, n)
	for i := range n {
		x[i] = a[i][n] / a[i][i]
	}
	return x, nil
}
