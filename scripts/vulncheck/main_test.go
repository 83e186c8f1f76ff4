package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuildDB(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"GO-1.json": `{"id":"GO-1","modified":"2025-01-02T00:00:00Z","aliases":["CVE-1"],"affected":[{"package":{"name":"example.com/a"}},{"package":{"name":"stdlib"}}]}`,
		"GO-2.json": `{"id":"GO-2","modified":"2026-03-04T00:00:00Z","affected":[{"package":{"name":"example.com/a"}}]}`,
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := buildDB(src, dst)
	if err != nil || n != 2 {
		t.Fatalf("buildDB = %d, %v; want 2 entries", n, err)
	}
	var db map[string]string
	var mods []modEntry
	var vulns []vulnEntry
	for file, v := range map[string]any{"index/db.json": &db, "index/modules.json": &mods, "index/vulns.json": &vulns} {
		raw, err := os.ReadFile(filepath.Join(dst, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if db["modified"] != "2026-03-04T00:00:00Z" {
		t.Errorf("db.json modified = %q, want the latest entry's", db["modified"])
	}
	var paths []string
	for _, m := range mods {
		paths = append(paths, m.Path)
		if m.Path == "example.com/a" && len(m.Vulns) != 2 {
			t.Errorf("example.com/a has %v, want both entries", m.Vulns)
		}
	}
	if !slices.Equal(paths, []string{"example.com/a", "stdlib"}) {
		t.Errorf("modules.json paths = %v, want sorted example.com/a, stdlib", paths)
	}
	if len(vulns) != 2 || vulns[0].ID != "GO-1" || vulns[0].Aliases[0] != "CVE-1" {
		t.Errorf("vulns.json = %+v", vulns)
	}
	if _, err := os.Stat(filepath.Join(dst, "ID", "GO-2.json")); err != nil {
		t.Errorf("entry not written: %v", err)
	}
	if _, err := buildDB(t.TempDir(), t.TempDir()); err == nil {
		t.Error("an empty source built a database")
	}
}

func TestCalledVulns(t *testing.T) {
	stream := `{"config":{"protocol_version":"v1.0.0"}}
{"osv":{"id":"GO-A","summary":"reached"}}
{"osv":{"id":"GO-B","summary":"imported only"}}
{"finding":{"osv":"GO-B","trace":[{"module":"m","package":"m/p"}]}}
{"finding":{"osv":"GO-A","trace":[{"module":"m","package":"m/p","function":"F"}]}}
{"finding":{"osv":"GO-A","trace":[{"module":"m","package":"m/p","function":"G"}]}}
`
	called, sums, err := calledVulns(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(called, []string{"GO-A"}) {
		t.Errorf("called = %v, want only the one with a function in its trace, once", called)
	}
	if sums["GO-B"] != "imported only" {
		t.Errorf("summaries = %v", sums)
	}
	if _, _, err := calledVulns(strings.NewReader(`{"finding":`)); err == nil {
		t.Error("a cut stream read without error")
	}
}

func TestAcceptedList(t *testing.T) {
	ok, err := readAccepted("accepted.txt")
	if err != nil {
		t.Fatal(err)
	}
	for id, reason := range ok {
		if !strings.HasPrefix(id, "GO-") || len(reason) < 10 {
			t.Errorf("%q %q: want a GO- ID and its reason", id, reason)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("GO-2025-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAccepted(bad); err == nil {
		t.Error("an ID without a reason was accepted")
	}
}
