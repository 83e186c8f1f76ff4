package desktop

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/webview"
)

// Run opens the window on a and blocks until it is closed. inst is the
// process's claim on a's data folder (Claim): a second launch brings this
// window forward. assets is the built frontend (frontend/dist); icon is
// the window icon (PNG, may be nil).
func Run(a *app.App, inst *Instance, assets fs.FS, icon []byte) error {
	started := time.Now()
	fixLocale()
	bridge := NewBridge(0)
	sub, err := bridge.Subscribe(a.Bus)
	if err != nil {
		return fmt.Errorf("start ui bridge: %w", err)
	}
	system := NewSystem(a, 0)
	approvals := NewApprovals()
	chat := NewChat(a, approvals)
	procedures := NewProcedures(a)
	sessions := NewSessions(a)
	settings := NewSettings(a, system)
	models := NewModels(a, system)
	mem := NewMemory(a)
	extensions := NewExtensions(a)
	firstRun := NewFirstRun(a, system)
	// MCP servers start with the window (their processes stop with it);
	// one that fails is shown in Extensions and retried.
	if _, err := a.MCP(); err != nil {
		a.Log.Warn("MCP servers not started", "err", err)
	}
	if _, err := a.Memory(context.Background()); err != nil {
		// The window still opens; the procedure browser shows the error.
		a.Log.Warn("procedural memory unavailable", "err", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	followed := make(chan struct{}) // closed when Follow has returned

	// The desktop's light or dark preference, before the window draws.
	FollowColorScheme(ctx, func(dark bool) {
		a.Log.Info("window follows the desktop's color scheme", "dark", dark)
		preferDark(dark)
	}, func(msg string, args ...any) { a.Log.Warn(msg, args...) })

	// Desktop notifications while the window is in the background; a
	// click brings it forward on the notification's session.
	notifier := NewNotifier(func(msg string, args ...any) { a.Log.Warn(msg, args...) })
	notifier.Attention = setUrgent
	nsub, err := notifier.Subscribe(a.Bus)
	if err != nil {
		return fmt.Errorf("start notifier: %w", err)
	}
	defer notifier.Close()
	system.mu.Lock()
	system.focus = notifier.Focused
	system.mu.Unlock()

	// How the web view draws, decided before WebKit starts (its
	// variables are read once, by processes it starts later). Wails
	// turns the GPU off only when no Linux options are given; Shrimp
	// gives some, so it decides here.
	draw := webview.Choose("/", os.LookupEnv)
	for k, v := range draw.Set {
		os.Setenv(k, v)
	}
	if draw.Problem != "" {
		a.Log.Warn("window drawing", "problem", draw.Problem)
	}
	a.Log.Info("window draws " + draw.Why)
	gpu := linux.WebviewGpuPolicyNever
	if draw.GPU {
		gpu = linux.WebviewGpuPolicyAlways
	}

	// The size the window was left at, maximised if it was, made to fit
	// the screen it opens on (left at 1200x800 on a large monitor, or
	// the default, it would run past a laptop screen's edges).
	g := savedGeometry(a.Store)
	if aw, ah, ok := workArea(); ok {
		if f, changed := fitted(g, aw, ah); changed {
			a.Log.Info("window made to fit its screen", "was", g.String(), "now", f.String(), "work area", fmt.Sprintf("%dx%d", aw, ah))
			g = f
		}
	}
	start := options.Normal
	if g.Maximised {
		start = options.Maximised
	}

	err = wails.Run(&options.App{
		Title:            "Shrimp",
		Width:            g.Width,
		Height:           g.Height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		WindowStartState: start,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 23, G: 25, B: 31, A: 255},
		OnStartup: func(wctx context.Context) {
			bridge.Attach(func(name string, data ...any) { runtime.EventsEmit(wctx, name, data...) })
			system.mu.Lock()
			system.size = func() geometry {
				w, h := runtime.WindowGetSize(wctx)
				return geometry{Width: w, Height: h, Maximised: runtime.WindowIsMaximised(wctx)}
			}
			system.mu.Unlock()
			chat.tell = func(name string, data ...any) { runtime.EventsEmit(wctx, name, data...) }
			chat.openURL = func(u string) {
				if !openWithBROWSER(u) {
					runtime.BrowserOpenURL(wctx, u)
				}
			}
			extensions.mu.Lock()
			extensions.openURL = chat.openURL
			extensions.mu.Unlock()
			approvals.mu.Lock()
			approvals.openURL = chat.openURL
			approvals.mu.Unlock()
			procedures.files.set(func(save bool, title, name string) (string, error) {
				home, _ := os.UserHomeDir()
				json := []runtime.FileFilter{{DisplayName: "Shrimp procedures (*.json)", Pattern: "*.json"}}
				if save {
					return runtime.SaveFileDialog(wctx, runtime.SaveDialogOptions{Title: title, DefaultDirectory: home, DefaultFilename: name, Filters: json, CanCreateDirectories: true})
				}
				return runtime.OpenFileDialog(wctx, runtime.OpenDialogOptions{Title: title, DefaultDirectory: home, Filters: json})
			})
			chat.pickFolder = func(title, start string) (string, error) {
				return runtime.OpenDirectoryDialog(wctx, runtime.OpenDialogOptions{Title: title, DefaultDirectory: start, CanCreateDirectories: true})
			}
			raise := func() {
				runtime.WindowUnminimise(wctx)
				runtime.WindowShow(wctx)
			}
			inst.OnShow(raise)
			notifier.OnShow(func(session string) {
				raise()
				runtime.EventsEmit(wctx, ShowSessionName, session)
			})
			go system.Watch(ctx)
			// What `shrimp chat` in a terminal does on this data folder
			// shows in the timeline as it happens.
			from, err := a.Store.EventsEnd(ctx)
			if err != nil {
				a.Log.Warn("what a terminal does on this data folder will not show here", "err", err)
				close(followed)
			} else {
				go func() {
					defer close(followed)
					bridge.Follow(ctx, a.Store, from, a.Recorder.Wrote, a.Runner.CloseInterrupted, FollowEvery)
				}()
			}
		},
		OnDomReady: func(context.Context) {
			a.Log.Info("window ready", "after", time.Since(started).Round(time.Millisecond))
		},
		OnShutdown: func(context.Context) {
			chat.StopAll()
			firstRun.Stop() // the Ollama the window started, if any
			cancel()
			// The follower may be ending a killed terminal's run in the
			// store, which closes once Run returns: let it finish.
			select {
			case <-followed:
			case <-time.After(5 * time.Second):
				a.Log.Warn("the window's follower of other processes did not stop within 5s")
			}
			sub.Close()
			nsub.Close()
		},
		// A link or file dropped on the window would load in it, in place
		// of the app (no way back), and a page loaded there can post to
		// the app's IPC: drops do nothing.
		DragAndDrop: &options.DragAndDrop{DisableWebViewDrop: true},
		Linux:       &linux.Options{Icon: icon, ProgramName: "shrimp", WebviewGpuPolicy: gpu},
		Bind:        []any{system, chat, approvals, procedures, sessions, settings, models, mem, extensions, firstRun},
	})
	if err != nil {
		slog.Error("window", "err", err)
		return fmt.Errorf("run window: %w", err)
	}
	return nil
}

// fixLocale gives WebKit a real language when the process runs with the C
// or POSIX locale (services, SSH, Xvfb): WebKitGTK then reports
// navigator.language "C", which Intl rejects ("invalid language tag: C"),
// breaking any script that formats numbers with the user's language.
func fixLocale() {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if v != "C" && v != "POSIX" && !strings.HasPrefix(v, "C.") {
			return // a real locale decides
		}
		break
	}
	os.Setenv("LC_ALL", "en_US.UTF-8")
	os.Setenv("LANG", "en_US.UTF-8")
}

// openWithBROWSER opens u with the command $BROWSER names, when it names
// one that starts (the user's choice, as `shrimp mcp login` honours it,
// and a way for a session without a desktop to hand pages elsewhere);
// false leaves it to the desktop's handler.
func openWithBROWSER(u string) bool {
	b := os.Getenv("BROWSER")
	if b == "" {
		return false
	}
	cmd := exec.Command(b, u)
	if err := cmd.Start(); err != nil {
		slog.Warn("$BROWSER could not be started; the desktop's browser opens the page", "browser", b, "err", err)
		return false
	}
	go func() { _ = cmd.Wait() }()
	return true
}
