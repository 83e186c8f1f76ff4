package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/shrimp-harness/shrimp/backend/store"
)

// salvageHolderEnv names the data directory a child of
// TestSalvageRefusedWhileOpen holds its database open in.
const salvageHolderEnv = "SHRIMP_TEST_HOLD_DB"

// fillSessions stores n sessions of a few long messages each in data,
// and closes the store.
func fillSessions(t *testing.T, data string, n int) {
	t.Helper()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("s%04d", i)
		if err := st.CreateSession(ctx, store.Session{ID: id, Title: "request " + id, Model: "m"}); err != nil {
			t.Fatal(err)
		}
		msgs := []api.Message{
			{Role: "user", Content: "request " + id},
			{Role: "assistant", Content: strings.Repeat("an answer of "+id+" ", 40)},
			{Role: "user", Content: "and then " + id},
			{Role: "assistant", Content: strings.Repeat("another answer of "+id+" ", 40)},
		}
		if err := st.AppendMessages(ctx, id, msgs); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSalvageDatabase damages a data directory's database, salvages it,
// and checks Shrimp opens the new one with what could be read, the
// damaged file kept beside it and the procedure index dropped.
func TestSalvageDatabase(t *testing.T) {
	data := t.TempDir()
	fillSessions(t, data, 300)
	if err := os.MkdirAll(filepath.Join(data, indexDir), 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(data, store.FileName)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	r := rand.New(rand.NewPCG(5, 6))
	noise := make([]byte, 4096*4)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	// Four pages a third of the way in: messages, by then.
	if _, err := f.WriteAt(noise, (info.Size()/4096/3)*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, err := SalvageDatabase(context.Background(), Config{DataDir: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Lost() {
		t.Errorf("salvage of a damaged database says nothing was lost: %+v", got)
	}
	if !strings.HasPrefix(got.Damaged, db+".damaged-") {
		t.Errorf("damaged database kept as %q", got.Damaged)
	}
	if _, err := os.Stat(got.Damaged); err != nil {
		t.Errorf("the damaged database is not kept: %v", err)
	}
	for _, gone := range []string{indexDir, "salvage"} {
		if _, err := os.Stat(filepath.Join(data, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.IntegrityCheck(context.Background()); err != nil {
		t.Error(err)
	}
	sessions, err := st.Sessions(context.Background())
	if err != nil || len(sessions) < 250 {
		t.Errorf("%d of 300 sessions after the salvage (%v)", len(sessions), err)
	}
	var messages int
	for _, s := range sessions {
		m, err := st.Messages(context.Background(), s.ID)
		if err != nil {
			t.Fatalf("messages of %s: %v", s.ID, err)
		}
		messages += len(m)
	}
	if messages == 0 || messages >= 1200 {
		t.Errorf("%d of 1200 messages after the salvage of damaged message pages", messages)
	}
	t.Logf("%d sessions, %d messages; %+v", len(sessions), messages, got.Salvaged)
}

// TestSalvageRefusedWhileOpen: a database another process has open is not
// replaced (that process would go on writing to the damaged file).
func TestSalvageRefusedWhileOpen(t *testing.T) {
	if data := os.Getenv(salvageHolderEnv); data != "" {
		st, err := store.Open(data)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("open")
		var b [1]byte
		os.Stdin.Read(b[:]) // until the test lets go
		st.Close()
		return
	}
	data := t.TempDir()
	fillSessions(t, data, 3)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSalvageRefusedWhileOpen$", "-test.count=1")
	cmd.Env = append(os.Environ(), salvageHolderEnv+"="+data)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	line := make([]byte, 5)
	deadline := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	if _, err := out.Read(line); err != nil || string(line[:4]) != "open" {
		t.Fatalf("the child did not open the database: %q %v", line, err)
	}
	before, _ := os.ReadFile(filepath.Join(data, store.FileName))
	_, err = SalvageDatabase(context.Background(), Config{DataDir: data}, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("salvage while another process has the database open: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(data, store.FileName))
	if string(before) != string(after) {
		t.Error("the refused salvage changed the database")
	}
	matches, _ := filepath.Glob(filepath.Join(data, "*.damaged-*"))
	if len(matches) > 0 {
		t.Errorf("the refused salvage left %v", matches)
	}
}
