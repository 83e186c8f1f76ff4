// Command third-party-licenses prints the licence texts of every Go
// module compiled into the shipped binary (the main package built with
// the tags desktop,production,webkit2_41, as the Makefile builds it), for the package's
// /usr/share/doc/shrimp/THIRD-PARTY-LICENSES. A module without a licence
// file fails it: nothing ships without its terms.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)(\.(md|txt|rst))?$|^licen[cs]e[-_.]`)

func main() {
	out, err := exec.Command("go", "list", "-deps", "-tags", "desktop,production,webkit2_41",
		"-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}", ".").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "third-party-licenses: go list:", err)
		os.Exit(1)
	}
	seen := map[string]bool{}
	var mods []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !seen[line] {
			seen[line] = true
			mods = append(mods, line)
		}
	}
	slices.Sort(mods)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "The Go modules compiled into /usr/bin/shrimp (%d) and their licences.\n\n", len(mods))
	var missing []string
	for _, m := range mods {
		f := strings.Fields(m)
		if len(f) != 3 {
			continue
		}
		entries, err := os.ReadDir(f[2])
		if err != nil {
			missing = append(missing, f[0])
			continue
		}
		found := false
		for _, e := range entries {
			if e.IsDir() || !licenceFile.MatchString(e.Name()) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(f[2], e.Name()))
			if err != nil {
				continue
			}
			found = true
			fmt.Fprintf(w, "================================================================\n%s %s — %s\n================================================================\n%s\n\n",
				f[0], f[1], e.Name(), strings.TrimSpace(string(b)))
		}
		if !found {
			// Some modules state their licence only in the README.
			if text := readmeLicence(f[2], entries); text != "" {
				found = true
				fmt.Fprintf(w, "================================================================\n%s %s — the licence section of its README (it has no licence file)\n================================================================\n%s\n\n", f[0], f[1], text)
			}
		}
		if !found {
			missing = append(missing, f[0])
		}
	}
	if len(missing) > 0 {
		w.Flush()
		fmt.Fprintln(os.Stderr, "third-party-licenses: no licence file in:", strings.Join(missing, ", "))
		os.Exit(1)
	}
}

// readmeLicence returns the "License" section of a module's README.
func readmeLicence(dir string, entries []os.DirEntry) string {
	for _, e := range entries {
		if !strings.HasPrefix(strings.ToLower(e.Name()), "readme") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var section []string
		in := false
		for _, line := range strings.Split(string(b), "\n") {
			heading := strings.HasPrefix(line, "#")
			switch {
			case heading && regexp.MustCompile(`(?i)licen[cs]e`).MatchString(line):
				in = true
				section = append(section, line)
			case heading && in:
				in = false
			case in:
				section = append(section, line)
			}
		}
		if text := strings.TrimSpace(strings.Join(section, "\n")); strings.Count(text, "\n") >= 1 {
			return text
		}
	}
	return ""
}
