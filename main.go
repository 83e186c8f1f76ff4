// Command shrimp is Shrimp's composition root: with no arguments it opens
// the window; with a subcommand it runs the headless CLI and never touches
// GTK, so `shrimp version` works over SSH with no display.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/app/cli"
	"github.com/shrimp-harness/shrimp/app/desktop"
	"github.com/shrimp-harness/shrimp/backend/redact"
	"github.com/shrimp-harness/shrimp/internal/logfile"
)

func main() {
	if cli.Handles(os.Args[1:]) {
		os.Exit(cli.Run(os.Args[1:]))
	}
	dataDir := app.Config{}.FromEnv().DataDir
	// One window per data folder: a second launch brings the first forward
	// before it opens anything.
	inst, err := desktop.Claim(dataDir)
	if errors.Is(err, desktop.ErrAlreadyOpen) {
		fmt.Fprintf(os.Stderr, "shrimp: %v\n", err)
		os.Exit(0)
	}
	defer inst.Close()
	// Started from the menu, standard error goes nowhere: the window's log
	// is kept in the data folder too, secrets taken out.
	var logOut io.Writer = os.Stderr
	secrets := redact.FromEnv()
	if lf, err := logfile.Open(filepath.Join(dataDir, app.LogFile), app.LogMax, func(s string) string { out, _ := secrets.String(s); return out }); err == nil {
		defer lf.Close()
		logOut = io.MultiWriter(lf, os.Stderr) // the file first: a closed stderr must not keep records from it
	} else {
		fmt.Fprintf(os.Stderr, "shrimp: no log file: %v\n", err)
	}
	log := slog.New(slog.NewTextHandler(logOut, nil))
	a, err := app.Open(app.Config{}, log)
	if err != nil {
		log.Error("the window cannot open", "err", err)
		desktop.ShowFatal("Shrimp cannot start", err.Error())
		os.Exit(1)
	}
	runErr := desktop.Run(a, inst, frontendAssets(), appIcon())
	if err := a.Close(context.Background()); err != nil {
		log.Warn("close", "err", err)
	}
	if runErr != nil {
		log.Error("the window ended with an error", "err", runErr)
		os.Exit(1)
	}
}
