package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/approval"
)

// ErrBusy means a request is already running in the session, in this
// process or in another Shrimp process on the same data folder.
var ErrBusy = errors.New("a request is already running in this session")

// LocksDir is the folder, inside the data folder, of the files a running
// session holds locked.
const LocksDir = "running"

// InterruptedError is the error of a tool call whose run was interrupted:
// what the history tells the model and the window shows on the call.
const InterruptedError = "interrupted: Shrimp was closed or stopped while this ran, so it may have done part of its work; check what it changed before running it again"

// NotRunError is the error of a call whose run was interrupted before
// the call ran: it was waiting for approval, or was denied.
const NotRunError = "interrupted before this ran (it was waiting for approval or had been denied): it did nothing"

// plainID is a session id that can name a file as it is.
var plainID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// lockWait is how long a request waits for the session's previous run to
// let go of it: a run's last writes follow the agent:run-ended the window
// waits for before it lets the user send again.
const lockWait = 2 * time.Second

// lock marks the session as running until the returned file is closed,
// waiting up to wait for a run that holds it. It is an flock, so a run in
// another Shrimp process counts too, and the kernel drops it when its
// process ends however it ends: what tells a run that was killed from one
// still going. Two opens of the file conflict even within one process.
func (rn *Runner) lock(id string, wait time.Duration) (*os.File, error) {
	dir := filepath.Join(filepath.Dir(rn.Store.Path()), LocksDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	f, err := os.OpenFile(lockPath(dir, id), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s): wait for it to end or stop it, or start a new session", ErrBusy, id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func lockPath(dir, id string) string {
	if !plainID.MatchString(id) {
		sum := sha256.Sum256([]byte(id))
		id = hex.EncodeToString(sum[:16])
	}
	return filepath.Join(dir, id+".lock")
}

// Delete removes a session with everything kept of it, unless a request
// is running in it ([ErrBusy]).
func (rn *Runner) Delete(ctx context.Context, id string) error {
	f, err := rn.lock(id, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	// Removed while locked: a run starting now fails on the missing session.
	defer os.Remove(f.Name())
	return rn.Store.DeleteSession(ctx, id)
}

// Locked runs fn while no request can run in the session (here or in
// another process), or fails with [ErrBusy] when one is running: for
// changes a run must not overlap, such as undoing its files.
func (rn *Runner) Locked(ctx context.Context, id string, fn func(context.Context) error) error {
	if _, err := rn.Store.Session(ctx, id); err != nil {
		return err // no lock file for a session that does not exist
	}
	f, err := rn.lock(id, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(ctx)
}

// CloseInterrupted ends the session's last run when the process that ran
// it ended first (it was closed or killed): see [Runner.closeInterrupted].
// A run still going, here or in another process, is left alone. It
// reports whether it closed one.
func (rn *Runner) CloseInterrupted(ctx context.Context, id string) (bool, error) {
	if _, err := rn.Store.Session(ctx, id); err != nil {
		return false, err // no lock file for a session that does not exist
	}
	f, err := rn.lock(id, 0)
	if errors.Is(err, ErrBusy) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	return rn.closeInterrupted(ctx, id)
}

// closeInterrupted ends the session's last run if it has no
// agent:run-ended; the caller holds the session's lock, so no process is
// running it. Each tool call without a result gets one saying it was
// interrupted ([InterruptedError]), then the run gets its end, status
// [agent.StatusInterrupted]: the window and `sessions show` show what
// happened, and the tools are never run again on their own. The history
// gets the same: the calls the model made and those results, so the next
// request's model knows a command may have half run (the runner keeps a
// turn's assistant message only once a result of it is in, and each
// result as it comes).
func (rn *Runner) closeInterrupted(ctx context.Context, id string) (bool, error) {
	ctx = context.WithoutCancel(ctx)
	run, err := rn.Store.LastRun(ctx, id)
	if err != nil || len(run) == 0 {
		return false, err
	}
	tr := &transcript{}
	var started agent.RunStarted
	calls := 0
	answered := map[string]agent.ToolResult{} // by call id: the results kept as events
	allowed := map[string]bool{}              // by call id, once the gate was asked: whether it let the call run
	for _, e := range run {
		e = typed(e)
		switch d := e.Data.(type) {
		case agent.RunStarted:
			started = d
			tr.add(api.Message{Role: "user", Content: d.Text})
		case agent.RunEnded:
			return false, nil
		case agent.ToolCall:
			calls++
		case agent.ToolResult:
			answered[d.ID] = d
		}
		switch e.Type {
		case approval.TypeRequested, approval.TypeDecided:
			var d approval.Decided // the call's id, and for a decision its answer
			if raw, ok := e.Data.(json.RawMessage); ok && json.Unmarshal(raw, &d) == nil {
				allowed[d.ID] = e.Type == approval.TypeDecided && d.Allow
			}
		}
		tr.observe(e)
	}
	add, open, err := rn.openTurn(ctx, id, tr, answered, allowed)
	if err != nil {
		return false, err
	}
	if err := rn.Store.AppendMessages(ctx, id, add); err != nil {
		return false, err
	}
	if err := rn.Recorder.Resync(ctx, id); err != nil {
		return false, err
	}
	for _, c := range open {
		if err := rn.Recorder.Emit(ctx, id, agent.TypeToolResult, interrupted(c.ID, c.Name, allowed)); err != nil {
			return false, err
		}
	}
	ended := agent.RunEnded{Status: agent.StatusInterrupted, Model: started.Model, ToolCalls: calls,
		Error: "Shrimp was closed or stopped before this request finished"}
	if err := rn.Recorder.Emit(ctx, id, agent.TypeRunEnded, ended); err != nil {
		return false, err
	}
	return true, rn.Recorder.sync(ctx, id)
}

// openTurn reads the run's last turn with tool calls (in tr): the calls
// without a result kept, neither as an event (answered) nor in the history
// (open), and the messages the history lacks (add): the turn's assistant
// message with its calls, unless it was kept, and each call's result
// (interrupted for the open ones).
func (rn *Runner) openTurn(ctx context.Context, id string, tr *transcript, answered map[string]agent.ToolResult, allowed map[string]bool) (add []api.Message, open []agent.ToolCall, err error) {
	turn := -1
	for i := len(tr.msgs) - 1; i >= 0; i-- {
		if len(tr.msgs[i].ToolCalls) > 0 {
			turn = i
			break
		}
	}
	if turn < 0 || !slices.ContainsFunc(tr.msgs[turn].ToolCalls, func(c api.ToolCall) bool { _, ok := answered[c.ID]; return !ok }) {
		return nil, nil, nil
	}
	calls := tr.msgs[turn].ToolCalls
	msgs, err := rn.Store.Messages(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	inTurn := func(c api.ToolCall) bool {
		return slices.ContainsFunc(calls, func(t api.ToolCall) bool { return t.ID == c.ID })
	}
	kept, results := false, map[string]bool{}
	// Only this run's messages count: those after its request.
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
		if msgs[i].Role == "tool" {
			results[msgs[i].ToolCallID] = true
		}
		kept = kept || slices.ContainsFunc(msgs[i].ToolCalls, inTurn)
	}
	if !kept {
		add = append(add, tr.msgs[turn])
	}
	for _, c := range calls {
		if results[c.ID] {
			continue
		}
		if r, ok := answered[c.ID]; ok { // its event kept, its message not
			add = append(add, toolMessage(r))
			continue
		}
		args, _ := json.Marshal(c.Function.Arguments)
		open = append(open, agent.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
		add = append(add, toolMessage(interrupted(c.ID, c.Function.Name, allowed)))
	}
	return add, open, nil
}

// interrupted is the result of a call its run's end cut off: it did
// nothing when the gate had asked and not (yet) allowed it, and may have
// done part of its work otherwise.
func interrupted(id, name string, allowed map[string]bool) agent.ToolResult {
	if ok, asked := allowed[id]; asked && !ok {
		return agent.ToolResult{ID: id, Name: name, Error: NotRunError}
	}
	return agent.ToolResult{ID: id, Name: name, Error: InterruptedError}
}

// typed decodes a stored event's data into the loop's types (those the
// transcript and closeInterrupted read); other data stays raw.
func typed(e agent.Event) agent.Event {
	raw, ok := e.Data.(json.RawMessage)
	if !ok {
		return e
	}
	switch e.Type {
	case agent.TypeRunStarted:
		return decoded[agent.RunStarted](e, raw)
	case agent.TypeToken, agent.TypeThinking:
		return decoded[agent.Delta](e, raw)
	case agent.TypeToolCall:
		return decoded[agent.ToolCall](e, raw)
	case agent.TypeToolResult:
		return decoded[agent.ToolResult](e, raw)
	case agent.TypeResponse:
		return decoded[agent.Response](e, raw)
	case agent.TypeSentBack:
		return decoded[agent.SentBack](e, raw)
	case agent.TypeRunEnded:
		return decoded[agent.RunEnded](e, raw)
	}
	return e
}

func decoded[T any](e agent.Event, raw json.RawMessage) agent.Event {
	var v T
	if json.Unmarshal(raw, &v) == nil {
		e.Data = v
	}
	return e
}
