package app

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/doctor"
	"github.com/shrimp-harness/shrimp/backend/protected"
	"github.com/shrimp-harness/shrimp/backend/tool/shell"
	"github.com/shrimp-harness/shrimp/internal/sandbox"
)

// SettingShellSandbox is the saved choice for the shell sandbox: "off"
// runs shell commands unconfined; anything else, the default, confines
// them where the kernel can.
const SettingShellSandbox = "shell_sandbox"

// EnvShellSandbox switches the sandbox off for one process
// (SHRIMP_SANDBOX=off), whatever the setting.
const EnvShellSandbox = "SHRIMP_SANDBOX"

// Sandbox says whether shell commands run confined (internal/sandbox):
// writing only in the workspace and the temporary folders.
type Sandbox struct {
	On     bool   `json:"on"`     // commands run confined
	Wanted bool   `json:"wanted"` // the user has not switched it off
	Detail string `json:"detail"` // what it means, or why it is off
}

// shellSandbox decides from the saved setting, the environment and what
// the kernel offers.
func shellSandbox(setting string, getenv func(string) string, available func() (int, error)) Sandbox {
	unconfined := "approved commands can change anything you can"
	switch {
	case strings.EqualFold(getenv(EnvShellSandbox), "off"):
		return Sandbox{Detail: "switched off by " + EnvShellSandbox + "=off: " + unconfined}
	case setting == "off":
		return Sandbox{Detail: "switched off in Settings: " + unconfined}
	}
	abi, err := available()
	if err != nil {
		return Sandbox{Wanted: true, Detail: fmt.Sprintf("not available here (%v): %s", err, unconfined)}
	}
	return Sandbox{On: true, Wanted: true, Detail: fmt.Sprintf("shell commands write only in the workspace and the temporary folders (Landlock ABI %d); they read and run anything", abi)}
}

// ShellSandbox says whether this process's shell commands run confined.
func (a *App) ShellSandbox(ctx context.Context) Sandbox {
	setting, _ := a.Store.Setting(ctx, SettingShellSandbox)
	return shellSandbox(setting, os.Getenv, sandbox.Check)
}

// SetShellSandbox saves the choice; it applies from the next request.
func (a *App) SetShellSandbox(ctx context.Context, on bool) error {
	v := ""
	if !on {
		v = "off"
	}
	if err := a.Store.SetSetting(ctx, SettingShellSandbox, v); err != nil {
		return fmt.Errorf("save the shell sandbox setting: %w", err)
	}
	return nil
}

// checkSandbox is the doctor's view of the shell sandbox.
func checkSandbox(ctx context.Context, p doctorParts) doctor.Result {
	setting := ""
	if p.st != nil {
		setting, _ = p.st.Setting(ctx, SettingShellSandbox)
	}
	s := shellSandbox(setting, os.Getenv, sandbox.Check)
	switch {
	case s.On:
		return doctor.Result{Status: doctor.Pass, Detail: s.Detail}
	case !s.Wanted:
		return doctor.Result{Status: doctor.Warn, Detail: s.Detail, Fix: "switch it on in Settings (or unset " + EnvShellSandbox + ") unless a command you need writes outside the workspace"}
	}
	return doctor.Result{Status: doctor.Warn, Detail: s.Detail, Fix: "approval is the only boundary for shell commands here: keep the approval mode at ask; Linux 5.13 or later with Landlock confines them"}
}

// WorkspaceNotes says what a user should know of dir as a workspace
// before a request runs there: that the sandbox cannot keep commands out
// of Shrimp's own folders it holds (so every command is asked), that
// its repository's git folder lies outside it (git cannot record), and that
// what commands change there cannot be undone (a folder too large to
// watch). A path that is not a folder gets none: the run says what is
// wrong with it.
func (a *App) WorkspaceNotes(ctx context.Context, dir string) []string {
	notes := []string{}
	if fi, err := os.Stat(dir); dir == "" || err != nil || !fi.IsDir() {
		return notes
	}
	sandboxed := a.ShellSandbox(ctx).On
	if f, ok := protected.Holds(dir, a.ownFolders()...); ok && sandboxed {
		notes = append(notes, fmt.Sprintf("This folder holds %s, which the shell sandbox cannot keep commands out of, so no stored \"always\" covers a command here: in ask mode every command is asked. Choose a project folder to let it answer.", f.Dir))
	}
	if gitDir, top, ok := shell.OutsideGitDir(dir); ok && sandboxed {
		notes = append(notes, fmt.Sprintf("This folder is in the git repository at %s, whose git folder (%s) lies outside it, where the shell sandbox lets no command write: git add, commit, checkout and stash fail here. Choose %s as the workspace for commands to use git.", top, gitDir, top))
	}
	if undoShellOn() && !a.Undo.Covered(ctx, dir) {
		notes = append(notes, "What shell commands change in this folder cannot be undone: it is too large to watch (more than 2,000 files, outside git). Choose a project folder, or a git repository, for undo to cover them.")
	}
	return notes
}
