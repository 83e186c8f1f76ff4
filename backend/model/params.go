package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Sampling settings: how a model picks each token. Ollama takes them from
// the model's Modelfile (`PARAMETER temperature 0.6`) unless a request
// says otherwise; a user may set their own for a model (a community build
// with a high temperature calls tools less reliably, a fixed seed repeats
// an answer). Params holds the ones set, by Ollama's option name.

// ParamSpec is one sampling setting Shrimp lets the user set: its name
// as Ollama's options spell it, whether it is a whole number, the values
// it takes, and what it does.
type ParamSpec struct {
	Name  string  `json:"name"`
	Int   bool    `json:"int"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	About string  `json:"about"`
}

// ParamSpecs are the settings, in the order they are shown.
var ParamSpecs = []ParamSpec{
	{"temperature", false, 0, 2, "how freely each token is chosen: lower for tool calls that must be exact, higher for varied writing"},
	{"top_p", false, 0, 1, "only tokens within this share of the probability are chosen from"},
	{"top_k", true, 0, 1000, "only the k likeliest tokens are chosen from (0: no limit)"},
	{"min_p", false, 0, 1, "tokens less likely than this share of the likeliest are never chosen"},
	{"repeat_penalty", false, 0, 2, "how much tokens already written are held back (1: not at all)"},
	{"seed", true, math.MinInt32, math.MaxInt32, "the same seed, settings and request give the same answer"},
}

// Params are sampling settings by name (ParamSpecs); a setting not in it
// is the model's own.
type Params map[string]float64

// spec returns the named setting's spec.
func spec(name string) (ParamSpec, bool) {
	i := slices.IndexFunc(ParamSpecs, func(s ParamSpec) bool { return s.Name == name })
	if i < 0 {
		return ParamSpec{}, false
	}
	return ParamSpecs[i], true
}

// unknownParam is the error for a name that is no setting, naming those
// that are.
func unknownParam(name string) error {
	var names []string
	for _, s := range ParamSpecs {
		names = append(names, s.Name)
	}
	return fmt.Errorf("%q is not a sampling setting Shrimp sets: use %s", name, strings.Join(names, ", "))
}

// Check returns an error naming the first setting that is unknown or out
// of its range, and what it takes.
func (p Params) Check() error {
	for _, name := range slices.Sorted(maps.Keys(p)) {
		v := p[name]
		s, ok := spec(name)
		if !ok {
			return unknownParam(name)
		}
		switch {
		case math.IsNaN(v) || v < s.Min || v > s.Max:
			return fmt.Errorf("%s %v is outside %v to %v", name, v, s.Min, s.Max)
		case s.Int && v != math.Trunc(v):
			return fmt.Errorf("%s must be a whole number, not %v", name, v)
		}
	}
	return nil
}

// ParseParams reads settings written NAME=VALUE; NAME= (no value) leaves
// the setting out, so its model's own applies. It returns the settings
// set and the names left out.
func ParseParams(args []string) (set Params, unset []string, err error) {
	set = Params{}
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !ok || name == "" {
			return nil, nil, fmt.Errorf("%q is not NAME=VALUE (such as temperature=0.2; temperature= for the model's own)", a)
		}
		if _, known := spec(name); !known {
			return nil, nil, unknownParam(name)
		}
		if value = strings.TrimSpace(value); value == "" {
			unset = append(unset, name)
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s=%s: %q is not a number", name, value, value)
		}
		set[name] = v
	}
	return set, unset, set.Check()
}

// Options returns the settings as a request's Ollama options (whole
// numbers as integers: Ollama refuses 20.0 for top_k).
func (p Params) Options() map[string]any {
	out := map[string]any{}
	for name, v := range p {
		if s, ok := spec(name); ok && s.Int {
			out[name] = int(v)
		} else if ok {
			out[name] = v
		}
	}
	return out
}

// String lists the settings in ParamSpecs' order: "temperature 0.2, seed 7".
func (p Params) String() string {
	var parts []string
	for _, s := range ParamSpecs {
		if v, ok := p[s.Name]; ok {
			parts = append(parts, s.Name+" "+strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return strings.Join(parts, ", ")
}

// ModelfileParams reads the settings ParamSpecs names from the
// parameters Ollama shows for a model (`/api/show`'s "parameters": one
// "name value" a line, as its Modelfile sets them); the rest (stop words,
// num_ctx) are left out.
func ModelfileParams(text string) Params {
	out := Params{}
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if _, ok := spec(f[0]); !ok {
			continue
		}
		if v, err := strconv.ParseFloat(strings.Trim(f[1], `"`), 64); err == nil {
			out[f[0]] = v
		}
	}
	return out
}
