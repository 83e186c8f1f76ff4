package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shrimp-harness/shrimp/backend/webview"
)

func TestRun(t *testing.T) {
	checks := []Check{
		{Name: "ok", Run: func(context.Context) Result { return Result{Status: Pass, Detail: "fine"} }},
		{Name: "hangs", Run: func(ctx context.Context) Result { <-ctx.Done(); select {} }},
		{Name: "panics", Run: func(context.Context) Result { panic("boom") }},
		{Name: "warns", Run: func(context.Context) Result { return Result{Status: Warn, Detail: "meh", Fix: "do x"} }},
	}
	rs := Run(context.Background(), checks, 200*time.Millisecond)
	want := []struct {
		name   string
		status Status
		text   string
	}{{"ok", Pass, "fine"}, {"hangs", Fail, "no answer within 200ms"}, {"panics", Fail, "boom"}, {"warns", Warn, "meh"}}
	for i, w := range want {
		if rs[i].Check != w.name || rs[i].Status != w.status || !strings.Contains(rs[i].Detail, w.text) {
			t.Errorf("result %d: %+v, want %s %s %q", i, rs[i], w.name, w.status, w.text)
		}
		if rs[i].Status != Pass && rs[i].Fix == "" {
			t.Errorf("%s: no fix", rs[i].Check)
		}
	}
	if !Failed(rs) || Failed(rs[:1]) {
		t.Error("Failed")
	}
}

func TestMachineChecks(t *testing.T) {
	free := func(n uint64, err error) func(string) (uint64, error) {
		return func(string) (uint64, error) { return n, err }
	}
	has := func(libs ...string) func(string) bool {
		return func(l string) bool { return strings.Contains(strings.Join(libs, " "), l) }
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	all := has("libgtk-3.so.0", webkitLib)
	for _, c := range []struct {
		name   string
		r      Result
		status Status
		text   string
	}{
		{"writable", Writable(t.TempDir()), Pass, "writable"},
		{"not writable", Writable("/proc"), Fail, "--data-dir"},
		{"plenty of disk", DiskFree("/d", free(50<<30, nil)), Pass, "50.0 GiB free"},
		{"low disk", DiskFree("/d", free(500<<20, nil)), Warn, "500 MiB"},
		{"full disk", DiskFree("/d", free(10<<20, nil)), Fail, "free some space"},
		{"statfs fails", DiskFree("/d", free(0, errors.New("no"))), Warn, "df -h"},
		{"window ok", Window(all, env("DISPLAY", ":0")), Pass, "display"},
		{"wayland", Window(all, env("WAYLAND_DISPLAY", "wayland-0")), Pass, "display"},
		{"no display", Window(all, env()), Warn, "use the CLI"},
		{"no webkit", Window(has("libgtk-3.so.0"), env("DISPLAY", ":0")), Warn, "apt install " + webkitPackage},
		{"nothing", Window(has(), env()), Warn, "libgtk-3-0 " + webkitPackage},
		{"drawn with the GPU", Drawing(webview.Choice{GPU: true, Why: "with the GPU (render node /dev/dri/renderD128)"}), Pass, "renderD128"},
		{"no GPU here", Drawing(webview.Choice{Why: "in software: no GPU render node"}), Pass, "in software"},
		{"a GPU out of reach", Drawing(webview.Choice{Why: "in software: …", Blocked: "/dev/dri/renderD128"}), Warn, "usermod -aG render"},
		{"a GPU asked for out of reach", Drawing(webview.Choice{GPU: true, Why: "with the GPU, as asked", Blocked: "/dev/dri/renderD128"}), Pass, "as asked"},
		{"an override not understood", Drawing(webview.Choice{Problem: `SHRIMP_WINDOW_GPU="x" is neither on nor off`}), Warn, "on or off, or unset it"},
		{"vector encoder", Encoder("AVX2 on 8-bit activations", true), Pass, "AVX2"},
		{"portable encoder", Encoder("portable Go code", false), Warn, "words alone"},
	} {
		if c.r.Status != c.status || !strings.Contains(c.r.Detail+" "+c.r.Fix, c.text) {
			t.Errorf("%s: %+v, want %s with %q", c.name, c.r, c.status, c.text)
		}
	}
	if n, err := Free(t.TempDir()); err != nil || n == 0 {
		t.Errorf("Free: %d %v", n, err)
	}
}
