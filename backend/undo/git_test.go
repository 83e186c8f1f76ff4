package undo_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shrimp-harness/shrimp/backend/undo"
)

// gitFixture is a fixture whose workspace is a git repository with one
// commit (a.txt, run.sh, keep.txt, src/lib/main.go), a.txt changed since,
// an untracked notes.txt (work nobody committed), an ignored .env and an
// ignored build folder.
func gitFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed: %v (apt-get install git)", err)
	}
	f := newFixture(t)
	f.file("a.txt", "one\n", 0o644)
	f.file("run.sh", "echo hi\n", 0o755)
	f.file("keep.txt", "keep\n", 0o644)
	f.file("src/lib/main.go", "package main\n", 0o644)
	f.file(".gitignore", "build/\n.env\n", 0o644)
	f.sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm first")
	f.file("a.txt", "one\ntwo, not committed\n", 0o644)
	f.file("notes.txt", "my notes, never added\n", 0o644)
	f.file("build/out.bin", "built\n", 0o644)
	f.file(".env", "TOKEN=mine\n", 0o600)
	return f
}

// sh runs a command in the workspace, as shell.run would.
func (f *fixture) sh(command string) {
	f.t.Helper()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = f.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("%s: %v\n%s", command, err, out)
	}
}

// watched runs a command as a shell call of the current run, watched.
func (f *fixture) watched(command string) {
	f.t.Helper()
	f.at.Call++
	f.at.Tool = "shell.run"
	after := f.w.Journal.(*undo.Journal).Watch(context.Background())
	f.sh(command)
	after()
}

// TestCommandsInAGitWorkTree: what a shell command did to a git work
// tree's files (discarding uncommitted changes, removing untracked and
// tracked files, creating one, switching commits) is put back by undo;
// ignored files and files it did not touch are not recorded.
func TestCommandsInAGitWorkTree(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command string
		want    map[string]string // file → action
	}{
		{"discard and clean", "git checkout -- . && git clean -fdq", map[string]string{"a.txt": undo.Restore, "notes.txt": undo.Restore}},
		{"remove and create", "rm keep.txt run.sh && echo new > new.txt && rm -r build", map[string]string{"keep.txt": undo.Restore, "run.sh": undo.Restore, "new.txt": undo.Remove}},
		{"clean the ignored too", "git clean -fdxq", map[string]string{"notes.txt": undo.Restore, ".env": undo.Restore}},
		{"remove a folder", "rm -r src", map[string]string{"src/lib/main.go": undo.Restore}},
		{"edit in place", "sed -i s/e/E/ a.txt keep.txt", map[string]string{"a.txt": undo.Restore, "keep.txt": undo.Restore}},
		{"commit and switch", "git stash -q -u && git checkout -qb other && echo other > keep.txt && git -c user.name=t -c user.email=t@t commit -qam other",
			map[string]string{"a.txt": undo.Restore, "notes.txt": undo.Restore, "keep.txt": undo.Restore}},
		{"nothing", "true", map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gitFixture(t).undoneAsBefore(tt.command, tt.want, "a.txt", "run.sh", "keep.txt", "notes.txt", "new.txt", "src/lib/main.go", ".env")
		})
	}
}

// undoneAsBefore runs command as a watched shell call, undoes the run,
// and checks what undo did to each file (want) and that the files named
// hold what they held before, run.sh still executable.
func (f *fixture) undoneAsBefore(command string, want map[string]string, files ...string) {
	f.t.Helper()
	before := map[string]string{}
	for _, name := range files {
		before[name], _ = f.read(name)
	}
	f.watched(command)
	plan, err := f.keep.Undo(context.Background(), "s1", 1)
	if err != nil {
		f.t.Fatal(err)
	}
	if got := actions(plan); !maps.Equal(got, want) {
		f.t.Errorf("undo did %v, want %v (%+v)", got, want, plan.Files)
	}
	for name, was := range before {
		if got, _ := f.read(name); got != was {
			f.t.Errorf("%s after undo: %q, want %q", name, got, was)
		}
	}
	if _, mode := f.read("run.sh"); mode != 0o755 {
		f.t.Errorf("run.sh after undo: mode %v", mode)
	}
}

// TestManyIgnoredFiles: a repository that ignores more than 100 files one
// by one (build output beside the sources) has none of them kept or
// recorded: a build rewrites them all.
func TestManyIgnoredFiles(t *testing.T) {
	f := gitFixture(t)
	f.file(".gitignore", "build/\n.env\n*.o\n", 0o644)
	for i := range 101 {
		f.file(fmt.Sprintf("src/%03d.o", i), "object\n", 0o644)
	}
	f.watched("rm .env src/000.o && echo x > a.txt")
	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(plan); !maps.Equal(got, map[string]string{"a.txt": undo.Restore}) {
		t.Errorf("plan: %v", got)
	}
}

// TestFsmonitorDoesNotRun: a command that sets a git fsmonitor in the
// repository's config (which git would run on every status) does not get
// it run by the watch, outside the sandbox.
func TestFsmonitorDoesNotRun(t *testing.T) {
	f := gitFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	f.sh("git config core.fsmonitor 'touch " + marker + "; false'")
	f.watched("echo x > a.txt")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's fsmonitor ran")
	}
	plan, _ := f.keep.Plan(context.Background(), "s1", 1)
	if got := actions(plan); got["a.txt"] != undo.Restore {
		t.Errorf("plan: %+v", plan.Files)
	}
	if !strings.Contains(strings.Join(f.kept(), " "), f.keep.Dir) {
		t.Errorf("nothing kept: %v", f.kept())
	}
}

// TestFiltersDoNotRun: a command that sets a clean or process filter for
// the repository's files (git runs it on a status to compare a file whose
// size has not changed) does not get it run by the watch, outside the
// sandbox, whether it set the filter in an earlier call or in the one
// watched, in the repository's config or a file it includes.
func TestFiltersDoNotRun(t *testing.T) {
	const commit = "git -c user.name=t -c user.email=t@t commit -qm"
	for _, tt := range []struct {
		name, set string
		file      string // the file with the filter, changed by the command
		recorded  bool   // whether the command's other change is recorded
	}{
		{"clean", "git config filter.evil.clean 'touch MARK; cat'", "keep.txt", true},
		{"process", "git config filter.evil.process 'touch MARK'", "keep.txt", true},
		{"a name with a dot", "git config filter.e.vil.clean 'touch MARK; cat' && echo 'keep.txt filter=e.vil' > .gitattributes", "keep.txt", true},
		// git fails on a required filter it cannot run: nothing is known.
		{"required", "git config filter.evil.clean 'touch MARK; cat' && git config filter.evil.required true", "keep.txt", false},
		{"included", "printf '[filter \"evil\"]\\n\\tclean = touch MARK; cat\\n' > .git/more && git config include.path more", "keep.txt", true},
		{"a submodule's", "git init -q sub && cd sub && echo keep > keep.txt && echo 'keep.txt filter=evil' > .gitattributes && git add -A && " + commit + " s && git config filter.evil.clean 'touch MARK; cat' && cd .. && git add sub 2>/dev/null && " + commit + " sub", "sub/keep.txt", true},
	} {
		for _, when := range []string{"before", "during"} {
			t.Run(tt.name+" "+when, func(t *testing.T) {
				f := gitFixture(t)
				marker := filepath.Join(t.TempDir(), "ran")
				set := strings.ReplaceAll(tt.set, "MARK", marker)
				if !strings.Contains(set, ".gitattributes") {
					set += " && echo 'keep.txt filter=evil' > .gitattributes"
				}
				// A change of the same size: git compares contents.
				change := "sed -i s/keep/KEEP/ " + tt.file + " && echo new > new.txt"
				if when == "before" {
					f.sh(set)
				} else {
					change = set + " && " + change
				}
				f.watched(change)
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("the repository's filter ran")
				}
				// A file with a filter is left out (undo could not write
				// back what git would check out); the watch goes on.
				plan, _ := f.keep.Plan(context.Background(), "s1", 1)
				got := actions(plan)
				if got[tt.file] != "" || (got["new.txt"] == undo.Remove) != tt.recorded {
					t.Errorf("plan: %+v", plan.Files)
				}
			})
		}
	}
}

// BenchmarkWatch: what watching adds to one shell call in a git work tree
// of 2,000 committed files, 10 of them changed and 5 untracked (the
// command itself does nothing).
func BenchmarkWatch(b *testing.B) {
	f := newFixture(b)
	for i := range 2000 {
		f.file(filepath.Join(fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.go", i)), strings.Repeat("package x\n", 40), 0o644)
	}
	f.sh("git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm first")
	for i := range 10 {
		f.file(filepath.Join(fmt.Sprintf("d%02d", i%40), fmt.Sprintf("f%04d.go", i)), "changed\n", 0o644)
	}
	for i := range 5 {
		f.file(fmt.Sprintf("new%d.txt", i), "new\n", 0o644)
	}
	j := f.w.Journal.(*undo.Journal)
	b.ResetTimer()
	for b.Loop() {
		j.Watch(context.Background())()
	}
}

// TestTooManyUntracked: past 2,000 untracked files (a tree nobody
// ignored), the rest are not read before a command, and what it does to
// them is not recorded; the first 2,000 are covered.
func TestTooManyUntracked(t *testing.T) {
	f := gitFixture(t)
	for i := range 2005 {
		f.file(fmt.Sprintf("u/%04d.txt", i), "untracked\n", 0o644)
	}
	f.watched("rm u/0000.txt u/2004.txt")
	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := actions(plan)
	if got["u/0000.txt"] != undo.Restore || got["u/2004.txt"] != "" {
		t.Errorf("plan: %v", got)
	}
}

// TestALinkIsNotAFile: a tracked link the command replaces with a file is
// not recorded as a file the command created (undo would remove it and
// leave neither).
func TestALinkIsNotAFile(t *testing.T) {
	f := gitFixture(t)
	f.sh("ln -s a.txt link && git add link && git -c user.name=t -c user.email=t@t commit -qm link && ln -sf keep.txt link")
	f.watched("rm link && echo file > link")
	plan, err := f.keep.Plan(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(plan); got["link"] != "" {
		t.Errorf("plan: %+v", plan.Files)
	}
}
