// Command fit-tokens fits internal/tokens' weights (weights.json) to real
// BPE tokenizers' counts and prints how close the estimate comes, per
// kind of text. It is a module of its own, so the tokenizers (tiktoken's
// cl100k_base and o200k_base, embedded offline) never enter Shrimp's.
//
// The texts come from the machine, as a fresh Debian with `make deps-gui`
// and `make frontend` has them: translations in ten languages (the
// locale catalogs of GTK, GLib and the rest), Go's own sources, Svelte's
// JavaScript, the frontend's package-lock.json, dpkg's log, and base64
// and hex from a fixed seed. Some kinds are held out of the fit and only
// measured.
//
//	go run . [-out ../../internal/tokens/weights.json] [-worst KIND]
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/shrimp-harness/shrimp/internal/tokens"
)

// kind is one kind of text and whether the fit sees it.
type kind struct {
	name string
	fit  bool
	text func() (string, error)
}

func main() {
	out := flag.String("out", "", "write the fitted weights to this weights.json")
	worst := flag.String("worst", "", "print the text of this kind the fit underestimates most")
	flag.Parse()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	var encs []*tiktoken.Tiktoken
	for _, e := range []string{"cl100k_base", "o200k_base"} {
		t, err := tiktoken.GetEncoding(e)
		if err != nil {
			fail(err)
		}
		encs = append(encs, t)
	}
	kinds := []kind{
		{"en", true, func() (string, error) { return catalogs("de", true) }},
		{"de", true, func() (string, error) { return catalogs("de", false) }},
		{"ru", true, func() (string, error) { return catalogs("ru", false) }},
		{"zh", true, func() (string, error) { return catalogs("zh_CN", false) }},
		{"ja", true, func() (string, error) { return catalogs("ja", false) }},
		{"go", true, func() (string, error) { return files(filepath.Join(runtime.GOROOT(), "src", "net", "http"), ".go") }},
		{"json", true, func() (string, error) { return files("../../frontend/package-lock.json", "") }},
		{"log", true, func() (string, error) { return files("/var/log/dpkg.log", "") }},
		{"base64", true, func() (string, error) { return base64.StdEncoding.EncodeToString(random(300_000)), nil }},
		{"fr", false, func() (string, error) { return catalogs("fr", false) }},
		{"ko", false, func() (string, error) { return catalogs("ko", false) }},
		{"el", true, func() (string, error) { return catalogs("el", false) }},
		{"hi", false, func() (string, error) { return catalogs("hi", false) }},
		{"ar", false, func() (string, error) { return catalogs("ar", false) }},
		{"js", false, func() (string, error) { return files("../../frontend/node_modules/svelte/src", ".js") }},
		{"hex", false, func() (string, error) { return hex.EncodeToString(random(200_000)), nil }},
	}
	type sample struct {
		kind string
		fit  bool
		f    tokens.Features
		n    float64 // the larger of the tokenizers' counts
		each []int
		text string
	}
	var samples []sample
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range kinds {
		text, err := k.text()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: left out: %v\n", k.name, err)
			continue
		}
		for _, c := range chunks(text, rng, 150) {
			s := sample{kind: k.name, fit: k.fit, f: tokens.Of(c), text: c}
			for _, e := range encs {
				n := len(e.Encode(c, nil, nil))
				s.each = append(s.each, n)
				s.n = math.Max(s.n, float64(n))
			}
			samples = append(samples, s)
		}
	}
	// Non-negative least squares on relative error: each sample's row and
	// target divided by its count, so a short text weighs as a long one.
	var rows [][tokens.NumFeatures]float64
	var ys []float64
	for _, s := range samples {
		if !s.fit {
			continue
		}
		var r [tokens.NumFeatures]float64
		for i := range r {
			r[i] = s.f[i] / s.n
		}
		rows, ys = append(rows, r), append(ys, 1)
	}
	w := nnls(rows, ys)
	// A margin: the estimate should rather be over than under (an
	// estimate under the truth lets Ollama cut the prompt's front).
	const margin = 1.1
	for i := range w {
		w[i] = math.Round(w[i]*margin*1e4) / 1e4
	}
	fmt.Printf("weights (×%.1f): %v\n\n", margin, w)
	fmt.Printf("%-7s %-5s %9s %9s | %s\n", "kind", "fit", "bytes/4", "fitted", "tokens ÷ estimate: median and 95th percentile, against the larger count (cl100k, o200k)")
	byKind := map[string][]sample{}
	var order []string
	for _, s := range samples {
		if _, ok := byKind[s.kind]; !ok {
			order = append(order, s.kind)
		}
		byKind[s.kind] = append(byKind[s.kind], s)
	}
	for _, k := range order {
		var old, fitted []float64
		fit := false
		for _, s := range byKind[k] {
			fit = s.fit
			est := 0.0
			for i := range w {
				est += w[i] * s.f[i]
			}
			old = append(old, s.n/math.Ceil(float64(len(s.text))/4))
			fitted = append(fitted, s.n/est)
		}
		fmt.Printf("%-7s %-5v %4.2f %4.2f %4.2f %4.2f\n", k, fit, quantile(old, .5), quantile(old, .95), quantile(fitted, .5), quantile(fitted, .95))
		if *worst == k {
			worst, at := 0.0, 0
			for i, s := range byKind[k] {
				est := 0.0
				for j := range w {
					est += w[j] * s.f[j]
				}
				if r := s.n / est; r > worst {
					worst, at = r, i
				}
			}
			fmt.Printf("worst %.2f %v %v\n%q\n", worst, byKind[k][at].each, byKind[k][at].f, byKind[k][at].text[:min(600, len(byKind[k][at].text))])
		}
	}
	if *out != "" {
		d := struct {
			Doc      string                      `json:"_doc"`
			Features [tokens.NumFeatures]string  `json:"features"`
			Weights  [tokens.NumFeatures]float64 `json:"weights"`
		}{"Weights of internal/tokens' features: tokens per feature, fitted by scripts/fit-tokens (make fit-tokens) to the larger of cl100k_base's and o200k_base's counts, times 1.1.", tokens.Names, w}
		b, _ := json.MarshalIndent(d, "", "  ")
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

// chunks cuts n pieces of 200 to 4,000 bytes (whole characters) from text.
func chunks(text string, rng *rand.Rand, n int) []string {
	var out []string
	for range n {
		size := 200 + rng.IntN(3800)
		if len(text) <= size {
			return append(out, text)
		}
		i := rng.IntN(len(text) - size)
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		j := i + size
		for j < len(text) && !utf8.RuneStart(text[j]) {
			j++
		}
		out = append(out, text[i:j])
	}
	return out
}

func quantile(x []float64, q float64) float64 {
	sort.Float64s(x)
	return x[int(q*float64(len(x)-1))]
}

func random(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// files concatenates the files under root with the extension ext (root
// itself when it is a file).
func files(root, ext string) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (ext != "" && filepath.Ext(p) != ext) || b.Len() > 2<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if b.Len() == 0 && err == nil {
		err = fmt.Errorf("nothing under %s", root)
	}
	return strings.ToValidUTF8(b.String(), ""), err
}

// catalogs returns the translations (or, with source, the English
// originals) of the gettext catalogs of a locale.
func catalogs(locale string, source bool) (string, error) {
	paths, _ := filepath.Glob(filepath.Join("/usr/share/locale", locale, "LC_MESSAGES", "*.mo"))
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "iso_") {
			continue // lists of place and language names, not text
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, s := range readMO(data, source) {
			if len(s) >= 8 {
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("no catalogs for %s", locale)
	}
	return b.String(), nil
}

// readMO reads a GNU .mo file's messages or their translations.
func readMO(b []byte, source bool) []string {
	if len(b) < 28 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(b) != 0x950412de {
		bo = binary.BigEndian
	}
	n, orig, trans := bo.Uint32(b[8:]), bo.Uint32(b[12:]), bo.Uint32(b[16:])
	table := trans
	if source {
		table = orig
	}
	var out []string
	for i := uint32(0); i < n; i++ {
		at := int(table) + int(i)*8
		if at+8 > len(b) {
			break
		}
		l, off := int(bo.Uint32(b[at:])), int(bo.Uint32(b[at+4:]))
		if off+l > len(b) || l == 0 {
			continue
		}
		s := string(b[off : off+l])
		if utf8.ValidString(s) && !strings.HasPrefix(s, "Project-Id-Version") {
			out = append(out, strings.ReplaceAll(s, "\x00", "\n"))
		}
	}
	return out
}

// nnls solves min ‖Xw − y‖ with w ≥ 0 by coordinate descent.
func nnls(x [][tokens.NumFeatures]float64, y []float64) [tokens.NumFeatures]float64 {
	var w [tokens.NumFeatures]float64
	for range 20000 {
		moved := 0.0
		for j := range w {
			num, den := 0.0, 0.0
			for i, r := range x {
				pred := 0.0
				for k := range w {
					pred += w[k] * r[k]
				}
				num += r[j] * (y[i] - pred + w[j]*r[j])
				den += r[j] * r[j]
			}
			if den == 0 {
				continue
			}
			nw := math.Max(0, num/den)
			moved = math.Max(moved, math.Abs(nw-w[j]))
			w[j] = nw
		}
		if moved < 1e-9 {
			break
		}
	}
	return w
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fit-tokens:", err)
	os.Exit(1)
}
