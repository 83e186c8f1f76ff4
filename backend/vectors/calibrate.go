package vectors

import (
	"cmp"
	"hash/fnv"
	"iter"
	"math"
	"slices"
)

// Calibration maps cosines between vectors of one store (another encoder's)
// onto another store's scale (the built-in encoder's): A·c + B.
type Calibration struct {
	A, B float64
	N    int // texts with both vectors when it was computed; 0: not yet
	seen int // the other store's vectors when it was last tried
}

// Map returns cosine c on the base scale.
func (c Calibration) Map(cos float64) float64 { return c.A*cos + c.B }

// MinCalibration is how many texts need vectors in both stores before
// they are calibrated.
const MinCalibration = 20

// calibrationPairs is how many texts' vectors Recalibrate compares, every
// pair of them (40: 780 pairs).
const calibrationPairs = 40

// Recalibrate returns c computed again (Calibrate over calibrationPairs
// of the texts with vectors in both base and other) when other holds a
// quarter more vectors than at c's last try and at least MinCalibration
// texts have both; otherwise c. It walks texts only then, so a caller may
// call it on every request. The texts compared are the ones whose hashes
// come first: the same for the same store whatever order texts come in,
// so recall decides the same in every run.
func Recalibrate(c Calibration, base, other *Store, texts iter.Seq[string]) Calibration {
	have := other.Count()
	if have < max(MinCalibration, c.seen*5/4) {
		return c
	}
	c.seen = have
	type both struct {
		hash uint64
		b, o []int8
	}
	var all []both
	for t := range texts {
		if b, o := base.Get(t), other.Get(t); b != nil && o != nil {
			h := fnv.New64a()
			h.Write([]byte(t))
			all = append(all, both{h.Sum64(), b, o})
		}
	}
	slices.SortFunc(all, func(x, y both) int { return cmp.Compare(x.hash, y.hash) })
	all = slices.CompactFunc(all, func(x, y both) bool { return x.hash == y.hash }) // a text met twice
	if len(all) < MinCalibration {
		return c
	}
	var bs, ov [][]int8
	for _, x := range all[:min(len(all), calibrationPairs)] {
		bs, ov = append(bs, x.b), append(ov, x.o)
	}
	a, b, ok := Calibrate(bs, ov)
	if !ok {
		return c
	}
	return Calibration{A: a, B: b, N: len(all), seen: c.seen}
}

// Calibrate returns a and b such that a·c + b maps a cosine c between two
// texts' vectors under one encoder (other) onto another encoder's scale
// (base): they match the two encoders' mean and spread of cosines over
// every pair of the texts given (base[i] and other[i] are one text's
// vectors). Each encoder puts unrelated sentences at its own cosine (0.1-0.4
// for the built-in one, 0.3-0.5 for nomic-embed-text), so cosines from
// two encoders compare only after this. ok is false when other's cosines
// do not vary (fewer than two texts, or identical vectors).
func Calibrate(base, other [][]int8) (a, b float64, ok bool) {
	var cb, co []float64
	for i := range min(len(base), len(other)) {
		for j := i + 1; j < len(base) && j < len(other); j++ {
			cb, co = append(cb, Cosine8(base[i], base[j])), append(co, Cosine8(other[i], other[j]))
		}
	}
	if len(co) == 0 {
		return 0, 0, false
	}
	mb, sb := meanStd(cb)
	mo, so := meanStd(co)
	if so == 0 {
		return 0, 0, false
	}
	a = sb / so
	return a, mb - a*mo, true
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// Cosine8 is the cosine of two quantised vectors (0 when one is zero).
func Cosine8(a, b []int8) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
