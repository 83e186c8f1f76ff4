package app

import (
	"errors"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/doctor"
)

type fakeIndex struct {
	n, indexed int
	current    bool
	err        error
}

func (f fakeIndex) IndexHealth() (int, int, bool, error) { return f.n, f.indexed, f.current, f.err }

func TestJudgeIndex(t *testing.T) {
	for _, c := range []struct {
		ix   fakeIndex
		want doctor.Status
	}{
		{fakeIndex{3, 3, true, nil}, doctor.Pass},
		{fakeIndex{3, 2, true, nil}, doctor.Warn},
		{fakeIndex{3, 3, false, nil}, doctor.Warn},
		{fakeIndex{0, 0, false, errors.New("broken")}, doctor.Fail},
	} {
		if r := judgeIndex(c.ix); r.Status != c.want || (r.Status != doctor.Pass && r.Fix == "") {
			t.Errorf("%+v: %+v, want %s", c.ix, r, c.want)
		}
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		v, than string
		less    bool
	}{
		{"0.24.0", "0.5.0", false},
		{"0.4.7", "0.5.0", true},
		{"v0.5.0", "0.5.0", false},
		{"0.5.0-rc1", "0.5.1", true},
		{"garbage", "0.5.0", false},
		{"1.0", "0.5.0", false},
	} {
		if got := versionLess(c.v, c.than); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v", c.v, c.than, got)
		}
	}
}
