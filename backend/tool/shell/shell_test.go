package shell

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shrimp-harness/shrimp/internal/sandbox"
	"github.com/shrimp-harness/shrimp/internal/sandbox/sandboxtest"
)

// confinements are the ways a command can run here: unconfined, and
// confined where the kernel can.
func confinements(t *testing.T) []bool {
	if _, err := sandbox.Check(); err != nil {
		t.Logf("commands run unconfined only: %v", err)
		return []bool{false}
	}
	return []bool{false, true}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	envs, tools := t.TempDir(), sandboxtest.Outside(t) // a folder in /tmp is left off commands' PATH
	envFile, badEnv := filepath.Join(envs, "session.sh"), filepath.Join(envs, "bad.sh")
	for path, text := range map[string]string{envFile: "export JAVA_HOME=/opt/jdk-25\n", badEnv: "false\n", filepath.Join(tools, "mytool"): "#!/bin/sh\necho from the PATH you have\n"} {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	type runCase struct {
		name    string
		r       Runner
		cmd     string
		wantOut string
		wantErr string
	}
	tests := []runCase{
		{"output and cwd", Runner{Dir: dir}, "echo hi; pwd", "hi\n" + dir, ""},
		{"minimal env", Runner{Dir: dir}, "echo ${SECRET_TOKEN:-unset}", "unset", ""},
		{"exit status", Runner{Dir: dir}, "echo oops >&2; exit 3", "oops", "exited with status 3"},
		{"output cap keeps both ends", Runner{Dir: dir, MaxOutput: 40}, "echo START; yes | head -c 1000; echo 'ERROR: x'", "START\ny\ny\ny\ny\ny\ny\ny\n\n[… 975 bytes of output not kept …]\n\ny\ny\ny\ny\ny\nERROR: x\n\n[the command printed 1015 bytes; 975 between its first and last part were not kept]", ""},
		{"timeout", Runner{Dir: dir, Timeout: 200 * time.Millisecond}, "sleep 30", "", "timed out"},
		{"the session's environment", Runner{Dir: dir, EnvFile: envFile}, `echo "$JAVA_HOME"`, "/opt/jdk-25", ""},
		{"a session environment that fails", Runner{Dir: dir, EnvFile: badEnv}, "echo ran", "the session environment", "exited with status 1"},
		{"no session environment yet", Runner{Dir: dir, EnvFile: filepath.Join(dir, "none.sh")}, "echo ran", "ran", ""},
		{"the user's toolchains on PATH", Runner{Dir: dir}, "mytool", "from the PATH you have", ""},
		// A folder changed alone is gone with the call's shell: said.
		{"cd alone is told it does not carry over", Runner{Dir: dir}, "cd /", "each shell.run starts a new shell in the workspace", ""},
		// Commands have no terminal (internal/childproc): one that asks
		// there fails at once and the model is told why.
		{"a question at the terminal", Runner{Dir: dir}, "read answer </dev/tty", "/dev/tty", "commands here have no terminal"},
		{"sudo's password", Runner{Dir: dir}, "echo 'sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper' >&2; exit 1", "sudo:", "run it in their own terminal"},
		// A file a Windows program wrote, shown by cat: read as the file
		// tools read it, not as U+FFFD, and said so.
		{"legacy output read as Windows-1252", Runner{Dir: dir}, `printf 'name;city\nRen\351e;Z\374rich\n'`, "name;city\nRenée;Zürich\n\n[the output is not UTF-8: shown read as Windows-1252", ""},
		{"UTF-8 with a stray byte stays UTF-8", Runner{Dir: dir}, `printf 'Zürich \377 Genève'`, "Zürich \xff Genève", ""},
		{"what a terminal shows", Runner{Dir: dir}, `printf 'get 10%%\rget 50%%\rget 100%%\n\033[1;31merror\033[0m: x\n'; echo "NO_COLOR=$NO_COLOR"`, "get 100%\nerror: x\nNO_COLOR=1", ""},
		// 50,000 redraws of a progress bar (1.4 MB) are one line: the
		// lines around it all fit in a 200-byte cap, nothing dropped.
		{"a progress bar within the cap", Runner{Dir: dir, MaxOutput: 200}, `echo 'step 1: resolving'; i=0; while [ $i -lt 50000 ]; do printf '\r[%-20s] %d' '#' $i; i=$((i+1)); done; echo; echo 'ERROR: the end'`,
			"step 1: resolving\n[#                   ] 49999\nERROR: the end\n", ""},
	}
	if slices.Contains(confinements(t), true) {
		tests = append(tests,
			runCase{"confined: writes in the workspace and /tmp", Runner{Dir: dir, Confined: true}, "echo a > in.txt && f=$(mktemp) && echo b > $f && rm $f && cat in.txt", "a", ""},
			runCase{"confined: a question written to the terminal is not taken for a refused write", Runner{Dir: dir, Confined: true}, "echo 'Password:' >/dev/tty", "/dev/tty", "commands here have no terminal"},
			runCase{"confined: a write outside is refused and explained", Runner{Dir: dir, Confined: true}, "echo x > " + sandboxtest.Outside(t) + "/x.txt", "Permission denied", "shell sandbox"},
		)
	}
	t.Setenv("SECRET_TOKEN", "s3cret")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.r.run(context.Background(), Args{Command: tt.cmd})
			if !strings.Contains(out, tt.wantOut) {
				t.Fatalf("output %q lacks %q", out, tt.wantOut)
			}
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestBashSyntax: what models write as bash runs as bash. Under dash
// (Debian's /bin/sh) each of these printed something else or nothing:
// a folder named "{a,b}", "source: not found", "[[: not found", a
// syntax error at "(", and "echo start &> out.txt" ran echo in the
// background and emptied out.txt.
func TestBashSyntax(t *testing.T) {
	if !IsBash(Interpreter()) {
		t.Skipf("no bash on this system: commands run with %s", Interpreter())
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "env.sh"), []byte("V=from-source\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Shrimp's own environment may name a startup file: bash -c would
	// read it first, were it passed on.
	startup := filepath.Join(t.TempDir(), "startup.sh")
	if err := os.WriteFile(startup, []byte("echo LEAKED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BASH_ENV", startup)
	t.Setenv("ENV", startup)
	// HOME is the workspace: a cloned repository's .bashrc or .profile
	// would run before every command of a login or interactive shell
	// (bash -lc, as some harnesses run them).
	for _, rc := range []string{".bashrc", ".bash_profile", ".profile", ".bash_login"} {
		if err := os.WriteFile(filepath.Join(dir, rc), []byte("echo LEAKED\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ name, cmd, want string }{
		{"brace expansion", "mkdir -p d/{a,b} && ls d | tr '\\n' ' '", "a b "},
		{"process substitution", "diff <(printf 'x\\n') <(printf 'x\\n') && echo same", "same"},
		{"double brackets", "[[ -f env.sh && $PWD == /* ]] && echo yes", "yes"},
		{"source", "source ./env.sh && echo $V", "from-source"},
		{"&> redirects both streams", "{ echo start; echo err >&2; } &> out.txt; wc -l < out.txt", "2"},
		{"arrays", "arr=(a b c); echo ${#arr[@]} ${arr[1]}", "3 b"},
		{"no startup file is read, not interactive", "echo ${BASH_ENV:-none}; case $- in *i*) echo interactive;; *) echo batch;; esac", "none\nbatch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := (&Runner{Dir: dir}).run(context.Background(), Args{Command: tt.cmd})
			if err != nil || strings.TrimSpace(out) != strings.TrimSpace(tt.want) {
				t.Fatalf("%s: output %q, err %v; want %q", tt.cmd, out, err, tt.want)
			}
		})
	}
	if d := (&Runner{Dir: dir}).Tool().Description(); !strings.Contains(d, "with bash") {
		t.Errorf("the description does not say the shell: %q", d)
	}
}

// TestTimeoutAsked: a call may ask for the time its command needs (a
// build); a larger number than allowed (milliseconds, as another harness
// counts) is cut to the most and said; none gives the default.
func TestTimeoutAsked(t *testing.T) {
	r := &Runner{Dir: t.TempDir(), Timeout: 200 * time.Millisecond}
	out, err := r.run(context.Background(), Args{Command: "sleep 1; echo built", Timeout: 5})
	if err != nil || !strings.Contains(out, "built") {
		t.Errorf("a command given 5 s: %q %v", out, err)
	}
	if _, err := r.run(context.Background(), Args{Command: "sleep 1"}); err == nil || !strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), "larger timeout") {
		t.Errorf("the runner's own limit: %v", err)
	}
	for _, c := range []struct {
		ask  int
		want time.Duration
		note bool
	}{
		{0, DefaultTimeout, false},
		{300, 5 * time.Minute, false},
		{1800, MaxTimeout, false},
		{600000, MaxTimeout, true},
	} {
		d, note := (&Runner{}).timeout(Args{Timeout: c.ask})
		if d != c.want || (note != "") != c.note {
			t.Errorf("timeout %d: %v %q, want %v (noted %v)", c.ask, d, note, c.want, c.note)
		}
	}
}

// TestTimeoutKillsTheGroup: a background child of the shell dies with it.
func TestTimeoutKillsTheGroup(t *testing.T) {
	for _, confined := range confinements(t) {
		t.Run(fmt.Sprint("confined=", confined), func(t *testing.T) { timeoutKillsTheGroup(t, confined) })
	}
}

func timeoutKillsTheGroup(t *testing.T, confined bool) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	r := Runner{Dir: dir, Timeout: 300 * time.Millisecond, Confined: confined}
	_, err := r.run(context.Background(), Args{Command: "sleep 60 & echo $! > pid; wait"})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err %v", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNothingOutlivesTheCall: background jobs, nohup, setsid and double
// forks are gone (not even zombies) when the call returns, and the output
// of a backgrounded command is returned without an error.
func TestNothingOutlivesTheCall(t *testing.T) {
	tests := []struct {
		name, cmd, wantOut string
	}{
		{"background job", "sleep 300 & echo $! > pids; echo x", "x"},
		{"nohup", "nohup sleep 300 >/dev/null 2>&1 & echo $! > pids; echo started", "started"},
		{"setsid", "setsid sleep 300 & echo $! > pids; echo ok", "ok"},
		{"double fork", "(sh -c 'sleep 300 & echo $! >> pids' &); sleep 0.2; echo forked", "forked"},
		{"setsid double fork", "setsid sh -c 'sleep 300 & echo $! >> pids; wait' & sleep 0.2; echo daemon", "daemon"},
		{"background writer holds the output", "(while :; do echo tick; sleep 0.05; done) & echo $! > pids; echo first", "first"},
	}
	for _, confined := range confinements(t) {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/confined=%v", tt.name, confined), func(t *testing.T) {
				nothingOutlives(t, Runner{Dir: t.TempDir(), Timeout: 2 * time.Minute, Confined: confined}, tt.cmd, tt.wantOut)
			})
		}
	}
}

func nothingOutlives(t *testing.T, r Runner, cmd, wantOut string) {
	out, err := r.run(context.Background(), Args{Command: cmd})
	if err != nil {
		t.Fatalf("err %v (output %q)", err, out)
	}
	if !strings.Contains(out, wantOut) {
		t.Fatalf("output %q lacks %q", out, wantOut)
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat("/proc/" + f); err == nil {
			stat, _ := os.ReadFile("/proc/" + f + "/stat")
			t.Errorf("process %d outlived the call: %s", pid, stat)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// BenchmarkRun: one short command, unconfined and confined (the confined
// one starts Shrimp's own binary first, which confines itself and
// becomes the shell).
func BenchmarkRun(b *testing.B) {
	for _, confined := range []bool{false, true} {
		b.Run(fmt.Sprint("confined=", confined), func(b *testing.B) {
			if _, err := sandbox.Check(); confined && err != nil {
				b.Skipf("no sandbox here: %v", err)
			}
			r := Runner{Dir: b.TempDir(), Confined: confined}
			for b.Loop() {
				if _, err := r.run(context.Background(), Args{Command: "true"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCapped: whatever is written, in whatever pieces, what is kept is
// the first and the last half of the cap, whole characters, and a note
// that counts exactly the bytes between them.
func TestCapped(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	pieces := []string{"a", "é", "中", "😀", "\n", "ERROR: x"}
	for round := range 500 {
		var all strings.Builder
		c := &capped{n: 2 + rng.IntN(64)}
		for range rng.IntN(80) {
			var p strings.Builder
			for range 1 + rng.IntN(6) {
				p.WriteString(pieces[rng.IntN(len(pieces))])
			}
			all.WriteString(p.String())
			_, _ = c.Write([]byte(p.String()))
		}
		got, whole := c.String(), all.String()
		if !utf8.ValidString(got) {
			t.Fatalf("round %d: kept text cut inside a character: %q", round, got)
		}
		if len(whole) <= c.n {
			if got != whole {
				t.Fatalf("round %d: %q kept as %q", round, whole, got)
			}
			continue
		}
		head, rest, ok := strings.Cut(got, "\n[… ")
		note, tail, ok2 := strings.Cut(rest, " bytes of output not kept …]\n")
		tail, last, ok3 := strings.Cut(tail, "\n[the command printed ")
		dropped, err := strconv.Atoi(note)
		if !ok3 || last != fmt.Sprintf("%d bytes; %d between its first and last part were not kept]", len(whole), dropped) {
			t.Fatalf("round %d: last note %q", round, last)
		}
		if !ok || !ok2 || err != nil {
			t.Fatalf("round %d: no note in %q", round, got)
		}
		if !strings.HasPrefix(whole, head) || !strings.HasSuffix(whole, tail) || len(head)+dropped+len(tail) != len(whole) {
			t.Fatalf("round %d: %d + %d + %d bytes for %d", round, len(head), dropped, len(tail), len(whole))
		}
		if len(head) > c.n/2 || len(tail) > c.n-c.n/2 || len(head) < c.n/2-3 || len(tail) < c.n-c.n/2-3 {
			t.Fatalf("round %d: cap %d kept %d and %d bytes", round, c.n, len(head), len(tail))
		}
	}
}

// TestPath: commands get the user's PATH but for folders a command could
// plant a program in (relative ones, the workspace, the temporary
// folders), then the system's.
func TestPath(t *testing.T) {
	ws := "/home/u/project"
	tests := []struct{ own, want string }{
		{"", "/usr/local/bin:/usr/bin:/bin"},
		{"/usr/local/go/bin:/home/u/.local/bin:/usr/bin:/bin", "/usr/local/go/bin:/home/u/.local/bin:/usr/bin:/bin:/usr/local/bin"},
		{".:bin:node_modules/.bin:/home/u/project/node_modules/.bin:/home/u/project:/tmp/x:/home/u/.cargo/bin/", "/home/u/.cargo/bin:/usr/local/bin:/usr/bin:/bin"},
		{"/usr/bin:/usr/bin/:/usr/bin", "/usr/bin:/usr/local/bin:/bin"},
		{"/home/u/project-tools/bin", "/home/u/project-tools/bin:/usr/local/bin:/usr/bin:/bin"}, // a sibling, not the workspace
	}
	for _, tt := range tests {
		if got := Path(ws, tt.own); got != tt.want {
			t.Errorf("Path(%q) = %q, want %q", tt.own, got, tt.want)
		}
	}
}

// TestHomes: a command's HOME is the workspace, so tools are pointed at
// what they keep in the user's home folder by their own variables: the
// value Shrimp's environment has, else the first path there that exists;
// none for a workspace that is the home folder.
func TestHomes(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{".config/git/config", ".rustup/settings.toml"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) (string, bool) { return "", false }
	tests := []struct {
		name, workspace string
		lookup          func(string) (string, bool)
		want            string
	}{
		{"a project in the home folder", filepath.Join(home, "src", "app"), none, "GIT_CONFIG_GLOBAL=" + home + "/.config/git/config,RUSTUP_HOME=" + home + "/.rustup"},
		{"set in Shrimp's environment", "/srv/app", func(k string) (string, bool) {
			return map[string]string{"RUSTUP_HOME": "/opt/rustup"}[k], k == "RUSTUP_HOME"
		},
			"GIT_CONFIG_GLOBAL=" + home + "/.config/git/config,RUSTUP_HOME=/opt/rustup"},
		{"the home folder itself", home, none, ""},
		{"above the home folder", filepath.Dir(home), none, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(Homes(tt.workspace, home, tt.lookup), ","); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestGitIdentity: a command in a project (HOME the workspace) commits as
// the user their git config names, as a terminal would: without it, git
// says "Please tell me who you are" and the model cannot commit.
func TestGitIdentity(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ann Example\n\temail = ann@example.org\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("EMAIL", "")
	out, err := (&Runner{Dir: ws}).run(context.Background(), Args{Command: "git init -q && git commit -q --allow-empty -m first && git log -1 --format=%an"})
	if err != nil || strings.TrimSpace(out) != "Ann Example" {
		t.Fatalf("%q %v", out, err)
	}
}

// TestCaches: a command's tools keep their caches in the workspace's own
// folder in the user's cache folder, which a confined command may write,
// not in the project (go's modules and builds under HOME, the workspace,
// filled it); one workspace's folder is not another's; unconfined, the
// user's own cache settings are passed on.
func TestCaches(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", sandboxtest.Outside(t))
	a, b := t.TempDir(), t.TempDir()
	if CacheDir(a) == "" || CacheDir(a) == CacheDir(b) || !strings.HasPrefix(CacheDir(a), os.Getenv("XDG_CACHE_HOME")) {
		t.Fatalf("cache folders %q and %q", CacheDir(a), CacheDir(b))
	}
	user := func(k string) (string, bool) { return map[string]string{"GOPATH": "/home/u/go"}[k], k == "GOPATH" }
	if got := strings.Join(Caches(a, false, user), ","); !strings.Contains(got, "GOPATH=/home/u/go") || !strings.Contains(got, "XDG_CACHE_HOME="+CacheDir(a)) {
		t.Errorf("unconfined: %s", got)
	}
	if got := strings.Join(Caches(a, true, user), ","); !strings.Contains(got, "GOPATH="+filepath.Join(CacheDir(a), "go")) {
		t.Errorf("confined: %s", got)
	}
	t.Setenv("GOPATH", "") // not the user's: ours
	for _, confined := range confinements(t) {
		out, err := (&Runner{Dir: a, Confined: confined}).run(context.Background(), Args{Command: `mkdir -p "$XDG_CACHE_HOME/tool" && echo kept > "$XDG_CACHE_HOME/tool/x" && echo "$GOPATH"`})
		if err != nil || strings.TrimSpace(out) != filepath.Join(CacheDir(a), "go") {
			t.Fatalf("confined %v: %q %v", confined, out, err)
		}
		cache := os.Getenv("XDG_CACHE_HOME") // unconfined: the user's own
		if confined {
			cache = filepath.Join(CacheDir(a), "cache")
		}
		if b, err := os.ReadFile(filepath.Join(cache, "tool", "x")); err != nil || string(b) != "kept\n" {
			t.Fatalf("confined %v: the cache was not kept: %q %v", confined, b, err)
		}
		if entries, _ := os.ReadDir(a); len(entries) != 0 {
			t.Fatalf("confined %v: the project holds %v", confined, entries)
		}
	}
	// A command that keeps nothing leaves no folder behind.
	if _, err := (&Runner{Dir: b}).run(context.Background(), Args{Command: "true"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CacheDir(b)); !os.IsNotExist(err) {
		t.Errorf("an empty cache folder was left: %v", err)
	}
}

// TestPassed: behind a company proxy a command reaches the network as
// web.fetch does (its proxy and certificate authority are passed on, with
// the time zone), and gets nothing else of Shrimp's environment.
func TestPassed(t *testing.T) {
	env := map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128", "no_proxy": "localhost,.corp", "SSL_CERT_FILE": "/etc/corp/ca.pem", "GITHUB_TOKEN": "x", "SSH_AUTH_SOCK": "/run/agent", "TZ": "Europe/Paris"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got := strings.Join(Passed(lookup), " ")
	if got != "HTTPS_PROXY=http://proxy.corp:3128 no_proxy=localhost,.corp SSL_CERT_FILE=/etc/corp/ca.pem TZ=Europe/Paris" {
		t.Errorf("passed: %s", got)
	}
	t.Setenv("HTTPS_PROXY", "http://proxy.corp:3128")
	t.Setenv("GITHUB_TOKEN", "not for commands")
	for _, confined := range confinements(t) {
		out, err := (&Runner{Dir: t.TempDir(), Confined: confined}).run(context.Background(), Args{Command: `echo "[$HTTPS_PROXY][$GITHUB_TOKEN]"`})
		if err != nil || strings.TrimSpace(out) != "[http://proxy.corp:3128][]" {
			t.Errorf("confined %v: %q %v", confined, out, err)
		}
	}
}
