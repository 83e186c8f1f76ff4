// Command vulncheck runs govulncheck on Shrimp against a pinned snapshot of
// the Go vulnerability database (`make vulncheck`, part of `make test`).
// vuln.go.dev is not reachable from every build machine, but the module
// proxy serves the database's source, golang.org/x/vulndb: its data/osv
// entries are written out in the database's v1 layout (index/db.json,
// index/modules.json, index/vulns.json, ID/<id>.json) and govulncheck reads
// them with -db file://.
//
// The arguments after the flags go to govulncheck (the Makefile passes
// the shipped build's tags and ./...).
//
// It fails, naming each one, when Shrimp's code calls into a vulnerability
// that accepted.txt (beside this file) does not list with a reason. It
// also names listed entries govulncheck no longer reports, so the list
// does not outlive its reasons.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	vulndb := flag.String("vulndb", "", "golang.org/x/vulndb@VERSION: the database snapshot")
	tool := flag.String("govulncheck", "", "golang.org/x/vuln/cmd/govulncheck@VERSION")
	accepted := flag.String("accepted", "scripts/vulncheck/accepted.txt", "vulnerabilities accepted, one ID and its reason a line")
	flag.Parse()
	if *vulndb == "" || *tool == "" {
		log.Fatal("vulncheck: -vulndb and -govulncheck are required (see the Makefile's vulncheck target)")
	}
	if err := run(*vulndb, *tool, *accepted, flag.Args()); err != nil {
		log.Fatalf("vulncheck: %v", err)
	}
}

func run(vulndb, tool, acceptedFile string, pkgs []string) error {
	ok, err := readAccepted(acceptedFile)
	if err != nil {
		return err
	}
	src, err := moduleDir(vulndb)
	if err != nil {
		return err
	}
	db, err := os.MkdirTemp("", "shrimp-vulndb-")
	if err != nil {
		return fmt.Errorf("make the database folder: %w", err)
	}
	defer os.RemoveAll(db)
	n, err := buildDB(filepath.Join(src, "data", "osv"), db)
	if err != nil {
		return err
	}
	fmt.Printf("vulncheck: %d entries of %s\n", n, vulndb)
	cmd := exec.Command("go", append([]string{"run", tool, "-format", "json", "-db", "file://" + db}, pkgs...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("govulncheck: %w", err)
	}
	called, summaries, err := calledVulns(bytes.NewReader(out))
	if err != nil {
		return err
	}
	var bad []string
	for _, id := range called {
		if reason, found := ok[id]; found {
			fmt.Printf("accepted %s (%s): %s\n", id, summaries[id], reason)
			continue
		}
		bad = append(bad, fmt.Sprintf("%s: %s", id, summaries[id]))
	}
	for id := range ok {
		if !slices.Contains(called, id) {
			fmt.Printf("note: %s is in %s but no longer reported; take it out\n", id, acceptedFile)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the code reaches %d known vulnerabilities (update the module or Go, or list each in %s with the reason it does not apply):\n  %s",
			len(bad), acceptedFile, strings.Join(bad, "\n  "))
	}
	fmt.Printf("vulncheck: no vulnerability reached but the %d accepted\n", len(called))
	return nil
}

// readAccepted reads lines of "ID reason"; # starts a comment.
func readAccepted(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the accepted list: %w", err)
	}
	defer f.Close()
	ok := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s: %s has no reason", path, id)
		}
		ok[id] = strings.TrimSpace(reason)
	}
	return ok, sc.Err()
}

// moduleDir downloads mod (path@version) through the module proxy and
// returns its folder in the module cache.
func moduleDir(mod string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return "", fmt.Errorf("download %s: %w", mod, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("download %s: %s %v", mod, m.Error, err)
	}
	return m.Dir, nil
}

// osv is the part of an OSV entry the index needs.
type osv struct {
	ID       string   `json:"id"`
	Modified string   `json:"modified"`
	Aliases  []string `json:"aliases"`
	Summary  string   `json:"summary"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []struct {
			Events []map[string]string `json:"events"`
		} `json:"ranges"`
	} `json:"affected"`
}

// modVuln is a module's entry in index/modules.json. Its optional
// "fixed" (the latest fixed version) is left out: govulncheck then reads
// every entry of a module it finds and decides by the entry's own ranges.
type modVuln struct {
	ID       string `json:"id"`
	Modified string `json:"modified"`
}

type modEntry struct {
	Path  string    `json:"path"`
	Vulns []modVuln `json:"vulns"`
}

type vulnEntry struct {
	ID       string   `json:"id"`
	Modified string   `json:"modified"`
	Aliases  []string `json:"aliases"`
}

// buildDB writes the entries in src (one OSV JSON file each) to dst in
// the v1 database layout and returns how many there are.
func buildDB(src, dst string) (int, error) {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("no OSV entries in %s (%v)", src, err)
	}
	if err := os.MkdirAll(filepath.Join(dst, "ID"), 0o755); err != nil {
		return 0, err
	}
	mods := map[string][]modVuln{}
	var vulns []vulnEntry
	latest := ""
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		var e osv
		if err := json.Unmarshal(raw, &e); err != nil || e.ID == "" {
			return 0, fmt.Errorf("%s: not an OSV entry (%v)", f, err)
		}
		if err := os.WriteFile(filepath.Join(dst, "ID", e.ID+".json"), raw, 0o644); err != nil {
			return 0, err
		}
		latest = max(latest, e.Modified)
		vulns = append(vulns, vulnEntry{e.ID, e.Modified, e.Aliases})
		for _, a := range e.Affected {
			mods[a.Package.Name] = append(mods[a.Package.Name], modVuln{e.ID, e.Modified})
		}
	}
	var index []modEntry
	for _, p := range slices.Sorted(maps.Keys(mods)) {
		index = append(index, modEntry{p, mods[p]})
	}
	for name, v := range map[string]any{
		"db.json":      map[string]string{"modified": latest},
		"modules.json": index,
		"vulns.json":   vulns,
	} {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := os.MkdirAll(filepath.Join(dst, "index"), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dst, "index", name), raw, 0o644); err != nil {
			return 0, err
		}
	}
	return len(files), nil
}

// calledVulns reads govulncheck's JSON stream and returns the IDs of the
// vulnerabilities the code calls (a finding whose trace starts at a
// function), sorted, with every entry's summary.
func calledVulns(r io.Reader) ([]string, map[string]string, error) {
	dec := json.NewDecoder(r)
	summaries := map[string]string{}
	var called []string
	for {
		var msg struct {
			OSV     *osv `json:"osv"`
			Finding *struct {
				OSV   string `json:"osv"`
				Trace []struct {
					Function string `json:"function"`
				} `json:"trace"`
			} `json:"finding"`
		}
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("read govulncheck's output: %w", err)
		}
		if msg.OSV != nil {
			summaries[msg.OSV.ID] = msg.OSV.Summary
		}
		if f := msg.Finding; f != nil && len(f.Trace) > 0 && f.Trace[0].Function != "" && !slices.Contains(called, f.OSV) {
			called = append(called, f.OSV)
		}
	}
	slices.Sort(called)
	return called, summaries, nil
}
