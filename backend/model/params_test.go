package model

import (
	"strings"
	"testing"
)

func TestParseParams(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		set       string // Params.String of what is set
		unset     string
		wantError string
	}{
		{[]string{"temperature=0.2", "seed=7"}, "temperature 0.2, seed 7", "", ""},
		{[]string{"TOP_K=20", "top_p = 0.95"}, "top_p 0.95, top_k 20", "", ""},
		{[]string{"temperature=", "min_p=0.05"}, "min_p 0.05", "temperature", ""},
		{[]string{"seed=-1"}, "seed -1", "", ""},
		{[]string{"temperature"}, "", "", "not NAME=VALUE"},
		{[]string{"=1"}, "", "", "not NAME=VALUE"},
		{[]string{"num_ctx=4096"}, "", "", `"num_ctx" is not a sampling setting Shrimp sets: use temperature, top_p`},
		{[]string{"temperature=warm"}, "", "", `"warm" is not a number`},
		{[]string{"temperature=3"}, "", "", "temperature 3 is outside 0 to 2"},
		{[]string{"top_p=-0.1"}, "", "", "top_p -0.1 is outside 0 to 1"},
		{[]string{"top_k=2.5"}, "", "", "top_k must be a whole number"},
		{[]string{"temperature=NaN"}, "", "", "outside"},
		{[]string{"seed=1e12"}, "", "", "outside"},
	} {
		set, unset, err := ParseParams(tc.args)
		if tc.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantError) {
				t.Errorf("%q: err = %v, want %q", tc.args, err, tc.wantError)
			}
			continue
		}
		if err != nil || set.String() != tc.set || strings.Join(unset, ",") != tc.unset {
			t.Errorf("%q: set %q unset %q err %v, want %q and %q", tc.args, set.String(), unset, err, tc.set, tc.unset)
		}
	}
}

// TestParamOptions: whole-number settings go to Ollama as integers.
func TestParamOptions(t *testing.T) {
	o := Params{"top_k": 20, "seed": 7, "temperature": 0.2}.Options()
	if _, ok := o["top_k"].(int); !ok || o["seed"] != 7 || o["temperature"] != 0.2 || len(o) != 3 {
		t.Errorf("options %#v", o)
	}
	if (Params{"nonsense": 1}).Check() == nil {
		t.Error("an unknown setting passed Check")
	}
}

// TestModelfileParams reads /api/show's "parameters" as Ollama v0.24.0
// writes them (captured from the real server: ../shared/ollama/wire), a
// stop word's quotes included.
func TestModelfileParams(t *testing.T) {
	real := "num_ctx                        512\nnum_predict                    32\ntemperature                    0"
	if p := ModelfileParams(real); p.String() != "temperature 0" {
		t.Errorf("the captured parameters: %q", p.String())
	}
	qwen := "repeat_penalty                 1\nstop                           \"<|im_start|>\"\nstop                           \"<|im_end|>\"\ntemperature                    0.6\ntop_k                          20\ntop_p                          0.95\n"
	if p := ModelfileParams(qwen); p.String() != "temperature 0.6, top_p 0.95, top_k 20, repeat_penalty 1" {
		t.Errorf("qwen3's parameters: %q", p.String())
	}
	if p := ModelfileParams(""); len(p) != 0 {
		t.Errorf("none: %v", p)
	}
}
