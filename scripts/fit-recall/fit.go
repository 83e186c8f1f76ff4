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

// FitLogisticNonNeg is FitLogistic with every feature's weight kept at
// zero or above (the bias is free): while the fit gives some features
// negative weights, the most negative is dropped (its weight 0) and the
// rest fitted again. For evidence features (more overlap, closer meaning)
// it makes the model monotone: a row at least as high on every feature
// never scores lower.
func FitLogisticNonNeg(x [][]float64, y, w []float64, l2 float64) ([]float64, error) {
	if len(x) == 0 {
		return FitLogistic(x, y, w, l2)
	}
	keep := make([]int, len(x[0])) // the features still fitted
	for i := range keep {
		keep[i] = i
	}
	for {
		sub := make([][]float64, len(x))
		for r, row := range x {
			sub[r] = make([]float64, len(keep))
			for j, f := range keep {
				sub[r][j] = row[f]
			}
		}
		beta, err := FitLogistic(sub, y, w, l2)
		if err != nil {
			return nil, err
		}
		worst := -1
		for j := range keep {
			if beta[1+j] < 0 && (worst < 0 || beta[1+j] < beta[1+worst]) {
				worst = j
			}
		}
		if worst < 0 {
			out := make([]float64, len(x[0])+1)
			out[0] = beta[0]
			for j, f := range keep {
				out[1+f] = beta[1+j]
			}
			return out, nil
		}
		keep = append(keep[:worst], keep[worst+1:]...)
	}
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
