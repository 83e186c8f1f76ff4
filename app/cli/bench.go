package cli

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/shrimp-harness/shrimp/app"
	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
	"github.com/shrimp-harness/shrimp/backend/bench"
	"github.com/shrimp-harness/shrimp/backend/metrics"
	"github.com/shrimp-harness/shrimp/internal/plural"
)

// runBench runs `shrimp bench procedures`: the task suite with procedural
// memory off and on.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "procedures" {
		return fmt.Errorf("%w: bench procedures --tasks DIR --model NAME [--repeats N] [--json] [--report FILE.html]", errUsage)
	}
	fs := newFlags("bench procedures")
	tasksDir := fs.String("tasks", "", "the task suite (for example bench/tasks)")
	repeats := fs.Int("repeats", 3, "paraphrased repeats run after each task's request (0 to 3)")
	asJSON := fs.Bool("json", false, "print one JSON line per run, then one summary line per arm")
	report := fs.String("report", "", "write an HTML report with charts to this file")
	if err := parseInterleaved(fs, args[1:], "tasks", "repeats", "report"); err != nil {
		return err
	}
	if *tasksDir == "" || len(fs.Args()) > 0 || *repeats < 0 || *repeats > 3 {
		return fmt.Errorf("%w: bench procedures --tasks DIR --model NAME [--repeats 0-3] [--json] [--report FILE.html]", errUsage)
	}
	if e.cfg.Model == "" && os.Getenv("SHRIMP_MODEL") == "" {
		return fmt.Errorf("%w: name the model to benchmark with --model (or SHRIMP_MODEL)", errUsage)
	}
	tasks, err := bench.LoadTasks(*tasksDir)
	if err != nil {
		return err
	}
	var host, model string
	open := func(name, dataDir string) (bench.Arm, error) {
		cfg := e.cfg
		cfg.DataDir = dataDir
		a, err := app.Open(cfg, e.log)
		if err != nil {
			return bench.Arm{}, err
		}
		host, model = a.Model.Host(), a.Config.Model
		return bench.Arm{
			Name:  name,
			Close: func() { _ = a.Close(context.Background()) },
			Run: func(ctx context.Context, ws, request string) (metrics.Run, error) {
				return benchRun(ctx, a, ws, request, name == "off")
			},
		}, nil
	}
	enc := e.jsonOut()
	if !*asJSON {
		fmt.Fprintf(e.stdout, "%s, %s each, memory off then on\n", plural.N(len(tasks), "task", "tasks"), plural.N(*repeats+1, "request", "requests"))
	}
	results, err := bench.Run(ctx, tasks, *repeats, open, func(r bench.Result) {
		if *asJSON {
			_ = enc.Encode(r)
			return
		}
		mark := "ok  "
		if !r.Success {
			mark = "FAIL"
		}
		proc := ""
		if r.Metrics.Followed != nil {
			proc = " followed " + *r.Metrics.Followed
		} else if len(r.Metrics.Recalled) > 0 {
			proc = " recalled " + strings.Join(r.Metrics.Recalled, ",")
		}
		fmt.Fprintf(e.stdout, "%-3s %s %-22s #%d  %2d turns %2d calls %5.1fs%s\n", r.Arm, mark, r.Task, r.Repeat, r.Metrics.Turns, r.Metrics.ToolCalls, float64(r.Metrics.WallMS)/1000, proc)
	})
	if err != nil {
		return err
	}
	sums := bench.Summarize(results)
	if *asJSON {
		for _, s := range sums {
			_ = enc.Encode(s)
		}
	} else {
		fmt.Fprintf(e.stdout, "\n%-4s %5s %8s %6s %6s", "arm", "runs", "success", "recall", "follow")
		for _, n := range bench.MeasureNames {
			fmt.Fprintf(e.stdout, " %16s", "median/total "+strings.TrimSuffix(n, "_calls"))
		}
		fmt.Fprintln(e.stdout)
		for _, s := range sums {
			fmt.Fprintf(e.stdout, "%-4s %5d %7.0f%% %6d %6d", s.Arm, s.Runs, s.SuccessRate*100, s.Recalled, s.Followed)
			for _, n := range bench.MeasureNames {
				m := s.Measures[n]
				fmt.Fprintf(e.stdout, " %16s", fmt.Sprintf("%.0f/%.0f", m.Median, m.Total))
			}
			fmt.Fprintln(e.stdout)
		}
	}
	if *report != "" {
		f, err := os.Create(*report)
		if err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
		defer f.Close()
		hostname, _ := os.Hostname()
		info := bench.ReportInfo{Model: model, Host: host, When: time.Now(), Machine: fmt.Sprintf("%s (%d CPUs, %s/%s)", hostname, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)}
		if err := bench.WriteReport(f, info, results); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
		if !*asJSON {
			fmt.Fprintf(e.stdout, "report: %s\n", *report)
		}
	}
	return nil
}

// benchRun runs one request with every tool allowed in the workspace and
// measures it from its own events (the same subscriber the app runs).
func benchRun(ctx context.Context, a *app.App, ws, request string, noMemory bool) (metrics.Run, error) {
	var run metrics.Run
	meter := &metrics.Recorder{Emit: func(_ context.Context, _ string, _ agent.Type, data any) error {
		run = data.(metrics.Run)
		return nil
	}}
	_, events, done, err := a.Chat(ctx, app.ChatOptions{Workspace: ws, Text: request, Approve: approval.ModeAll, NoMemory: noMemory})
	if err != nil {
		return run, err
	}
	defer done()
	var runErr error
	for ev, err := range events {
		if err != nil {
			runErr = err
			continue
		}
		_ = meter.Handle(ctx, ev)
	}
	// Learning happens on the bus: let it land before the next request.
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_ = a.Settle(sctx)
	return run, runErr
}
