// Package store is Shrimp's durable record on SQLite (GORM over
// github.com/glebarez/sqlite): sessions, their messages, every event in its
// JSON form, and the per-tool approval rules. Migrations are numbered and
// applied once, in order, inside a transaction each; a database from a
// newer Shrimp is refused rather than damaged.
//
// The store is the source of truth; everything else (the window, the
// procedure index) can be rebuilt from it.
package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/samber/lo"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/shrimp-harness/shrimp/backend/agent"
	"github.com/shrimp-harness/shrimp/backend/attach"
	"github.com/shrimp-harness/shrimp/internal/jsoncut"
	"github.com/shrimp-harness/shrimp/internal/modelname"
	"github.com/shrimp-harness/shrimp/internal/sqlite"
	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/tokens"
)

// FileName is the database's name inside the data directory.
const FileName = "shrimp.db"

// Session is one conversation.
type Session struct {
	ID               string    `gorm:"primaryKey" json:"id"`
	Title            string    `json:"title"` // the first request
	Model            string    `json:"model"`
	Workspace        string    `json:"workspace"`
	CreatedAt        time.Time `json:"created"`
	UpdatedAt        time.Time `gorm:"index" json:"updated"`
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	EvalMS           int64     `json:"eval_ms"` // time the model spent generating
	// Outside is the first thing from outside the user's machine and files
	// the session's model read (a URL, an MCP server); "" for none. From
	// then on the approval gate asks about calls a rule would answer.
	Outside string `gorm:"not null;default:''" json:"outside,omitempty"`
}

// Message is one chat message of a session, in order.
type Message struct {
	ID         uint      `gorm:"primaryKey" json:"-"`
	SessionID  string    `gorm:"index;not null;constraint:OnDelete:CASCADE" json:"-"`
	Role       string    `json:"role"`
	Content    string    `json:"content"`
	Thinking   string    `json:"thinking,omitempty"`
	ToolName   string    `json:"tool_name,omitempty"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
	ToolCalls  string    `json:"tool_calls,omitempty"` // JSON of []api.ToolCall
	Tokens     int       `json:"tokens"`               // Ollama's count for model output, an estimate for other text
	CreatedAt  time.Time `json:"created"`
	// Run is the seq of the agent:run-started of the run that wrote the
	// message (0: a note written outside a run, or by an older Shrimp).
	Run int64 `gorm:"not null;default:0" json:"-"`
	// Replaced is set when the user retried or edited a request at or
	// before this message: it stays in the record, no longer in the
	// history the model is sent.
	Replaced bool `gorm:"not null;default:false" json:"-"`
}

// Image is an image attached to a request (package attach), kept once
// however many messages hold it: the same screenshot sent in two
// requests is one row.
type Image struct {
	SHA256    string    `gorm:"primaryKey"`
	Type      string    `gorm:"not null"` // image/png, image/jpeg…
	Data      []byte    `gorm:"not null"`
	CreatedAt time.Time `gorm:"not null"`
}

// MessageImage is one of a message's images, in the order they were
// attached.
type MessageImage struct {
	ID        uint   `gorm:"primaryKey"`
	SessionID string `gorm:"index;not null"`
	MessageID uint   `gorm:"index;not null"`
	SHA256    string `gorm:"not null"`
}

// EventRow is one stored event.
type EventRow struct {
	SessionID string    `gorm:"primaryKey;constraint:OnDelete:CASCADE"`
	Seq       int64     `gorm:"primaryKey;autoIncrement:false"`
	Type      string    `gorm:"index;not null"`
	Time      time.Time `gorm:"not null"`
	Data      string    `gorm:"not null"` // JSON
}

// TableName keeps the table named "events".
func (EventRow) TableName() string { return "events" }

// Rule is the first schema's approval rule, for every workspace at once.
// Migration 10 moved the "never" rules to [ApprovalRule] and dropped the
// "always" ones (nobody knows which workspace they were given in); the
// table is no longer read.
type Rule struct {
	Tool      string `gorm:"primaryKey"`
	Rule      string `gorm:"not null"` // "always", "ask" or "never"
	UpdatedAt time.Time
}

// AnyWorkspace is the workspace of a rule that applies in every workspace
// (only "never" rules are kept that way).
const AnyWorkspace = ""

// ApprovalRule is a remembered approval answer for one tool in one
// workspace (an absolute path, or [AnyWorkspace]).
type ApprovalRule struct {
	Workspace string `gorm:"primaryKey" json:"workspace"`
	Tool      string `gorm:"primaryKey" json:"tool"`
	Rule      string `gorm:"not null" json:"rule"` // "always", "ask" or "never"
	// Pin is, for a tool another party defines (an MCP server's), a digest
	// of its definition when the rule was given ("" for none).
	Pin       string    `gorm:"not null;default:''" json:"pin,omitempty"`
	UpdatedAt time.Time `json:"updated"`
}

// CallRule is an "always" answer for one exact call of a tool in one
// workspace: a shell command as it was typed, or another tool's arguments
// in canonical JSON (approval.CallKey). It answers for that call only.
type CallRule struct {
	Workspace string    `gorm:"primaryKey" json:"workspace"`
	Tool      string    `gorm:"primaryKey" json:"tool"`
	Call      string    `gorm:"primaryKey" json:"call"`
	UpdatedAt time.Time `json:"updated"`
}

// ModelSetting holds per-model options.
type ModelSetting struct {
	Model     string `gorm:"primaryKey"`
	NumCtx    int    `gorm:"not null"`
	UpdatedAt time.Time
}

// Procedure is one learned procedure: how a kind of request was handled.
// JSON columns hold lists.
type Procedure struct {
	ID        string    `gorm:"primaryKey"`
	Trigger   string    `gorm:"not null"` // the first request
	Triggers  string    `gorm:"not null"` // JSON []string: every wording it was learned or reused from
	Tools     string    `gorm:"not null"` // JSON []string: the chain, in call order
	Examples  string    `gorm:"not null"` // JSON []json.RawMessage: arguments of the first run, per step
	Sessions  string    `gorm:"not null"` // JSON []string: sessions it came from or was used in
	Uses      int       `gorm:"not null"`
	Demerits  int       `gorm:"not null"`
	Forgotten bool      `gorm:"not null"`       // forgotten by the user: out of recall until restored
	Seq       int64     `gorm:"index;not null"` // change counter, for the index watermark
	CreatedAt time.Time `gorm:"not null"`
	LastUsed  time.Time `gorm:"not null"`
}

// RunMetric is what one run measured (package metrics writes it): one row
// per run, keyed by its session and the seq of its agent:run-started.
type RunMetric struct {
	SessionID   string    `gorm:"primaryKey"`
	RunSeq      int64     `gorm:"primaryKey"`
	Request     string    `gorm:"not null"`
	Model       string    `gorm:"not null"`
	StartedAt   time.Time `gorm:"index;not null"`
	Turns       int       `gorm:"not null"`
	ToolCalls   int       `gorm:"not null"`
	Malformed   int       `gorm:"not null"`
	Denied      int       `gorm:"not null"`
	Repeated    int       `gorm:"not null;default:0"` // calls that gave what the same call gave before
	Refetched   int       `gorm:"not null;default:0"` // calls made again because their result was left out to fit the context
	TokensIn    int       `gorm:"not null"`
	TokensOut   int       `gorm:"not null"`
	WallMS      int64     `gorm:"not null"`
	FirstToolMS int64     `gorm:"not null"`       // -1: no tool was called
	Recalled    string    `gorm:"not null"`       // JSON [{id, score}]
	Followed    string    `gorm:"index;not null"` // the recalled procedure whose chain the run repeated ("" for none)
	Chain       string    `gorm:"not null"`       // JSON []string: the tools called, in order
	Status      string    `gorm:"not null"`       // responded, error, cancelled
}

// SentenceVector caches the meaning vector of a sentence (a procedure's
// trigger) under one sentence model. It is derived data: rows of another
// model are ignored, and a missing row is computed again.
type SentenceVector struct {
	Text  string `gorm:"primaryKey"`
	Model string `gorm:"primaryKey"`
	Vec   []byte `gorm:"not null"` // int8 per dimension, a unit vector scaled by 127
}

// ToolOutput is a tool output too long to show the model whole.
type ToolOutput struct {
	Handle    string    `gorm:"primaryKey"`
	SessionID string    `gorm:"index;not null"`
	Workspace string    `gorm:"not null;default:''"` // the workspace of the run that kept it
	Tool      string    `gorm:"not null"`
	Content   string    `gorm:"not null"`
	CreatedAt time.Time `gorm:"not null"`
}

// Fact is a long-term fact about the user and their world.
type Fact struct {
	Key     string    `gorm:"primaryKey" json:"key"`
	Value   string    `gorm:"not null" json:"value"`
	Source  string    `gorm:"not null" json:"source"`
	Updated time.Time `gorm:"not null" json:"updated"`
	Flagged bool      `gorm:"not null" json:"flagged"` // looks like instructions: never injected unless approved
	// Approved means the user read the flagged fact and let it into
	// prompts (still as quoted data); a new value clears it.
	Approved bool `gorm:"not null;default:false" json:"approved"`
}

// WorkingEntry is one note of a session's working memory.
type WorkingEntry struct {
	SessionID string    `gorm:"primaryKey" json:"-"`
	Key       string    `gorm:"primaryKey" json:"key"`
	Value     string    `gorm:"not null" json:"value"`
	Updated   time.Time `gorm:"not null" json:"updated"`
}

// RecallDecline records that a procedure was recalled for a request and
// the run did not use it: recall does not offer it for that wording again.
type RecallDecline struct {
	ProcedureID string    `gorm:"primaryKey"`
	Wording     string    `gorm:"primaryKey"` // the request, normalised (agentmem.Wording)
	Request     string    `gorm:"not null"`   // the request as typed, for the user
	Session     string    `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null"`
}

// SessionSummary is a session's summary of its earliest messages, made
// when its history outgrew the model's context and kept so the next
// request adds to it instead of summarising again.
type SessionSummary struct {
	SessionID string    `gorm:"primaryKey"`
	Text      string    `gorm:"not null"`
	Covers    int       `gorm:"not null"` // how many leading messages of the session it replaces
	Digest    string    `gorm:"not null"` // of those messages, to notice a history that changed
	UpdatedAt time.Time `gorm:"not null"`
}

// FileChange records that a file tool replaced or created a file of a
// workspace (recorded just before it does): what it held before (a
// content hash, its bytes kept by package undo outside the database) and
// what the tool wrote, so the run's changes can be undone without touching
// later edits.
type FileChange struct {
	ID        int64  `gorm:"primaryKey;autoIncrement"`
	SessionID string `gorm:"index;not null"`
	RunSeq    int64  `gorm:"not null"` // the seq of the run's agent:run-started
	CallSeq   int64  `gorm:"not null"` // the seq of the call's agent:tool-call
	Tool      string `gorm:"not null"`
	Workspace string `gorm:"not null"`
	Path      string `gorm:"not null"` // relative to the workspace, slash-separated
	Before    string `gorm:"not null"` // sha256 of the earlier content; "" when there was no file
	Kept      bool   `gorm:"not null"` // the earlier content is kept (false: there was none, or it was too large)
	Mode      uint32 `gorm:"not null"` // the earlier file's permission bits
	After     string `gorm:"not null"` // sha256 of what the tool wrote
	// Folders the tool made for a file it created (they did not exist),
	// outermost first, one a line.
	Folders string `gorm:"not null;default:''"`
	// Shared: a shell command's watch found the change while another run
	// was changing files in the workspace, so it may be that run's; undo
	// leaves it.
	Shared    bool      `gorm:"not null;default:false"`
	CreatedAt time.Time `gorm:"index;not null"`
	UndoneAt  *time.Time
	// Redoable: undone by an undo that changed the file (and kept what it
	// held first), so a redo can put the change back.
	Redoable bool `gorm:"not null;default:false"`
	// RedoMode is the file's permission bits when the undo replaced or
	// removed it (0: not known), which a redo gives it back: a script
	// made executable after it was written stays so.
	RedoMode uint32 `gorm:"not null;default:0"`
}

// ShellWatch is a shell command's watch of a workspace (package undo),
// under way (EndedAt nil) or ended: a change the watch finds may be
// another run's when another watch of the same or an overlapping
// workspace, in this process or another one, overlaps it in time.
type ShellWatch struct {
	ID        int64     `gorm:"primaryKey;autoIncrement"`
	Workspace string    `gorm:"not null"` // absolute
	PID       int       `gorm:"not null"` // the watching process (one that is gone ended it)
	StartedAt time.Time `gorm:"index;not null"`
	EndedAt   *time.Time
}

// Setting is one saved preference.
type Setting struct {
	Key   string `gorm:"primaryKey"`
	Value string `gorm:"not null"`
}

type migration struct {
	Version int `gorm:"primaryKey;autoIncrement:false"`
	Applied time.Time
}

func (migration) TableName() string { return "schema_migrations" }

// migrations are applied in order; never edit one that has shipped.
var migrations = []func(tx *gorm.DB) error{
	1: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&Session{}, &Message{}, &EventRow{}, &Rule{})
	},
	2: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&ModelSetting{})
	},
	3: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&Procedure{})
	},
	4: func(tx *gorm.DB) error {
		// Migration 1 creates tables from the current structs, so a new
		// database already has the column; an old one gets it here.
		if tx.Migrator().HasColumn(&Session{}, "eval_ms") {
			return nil
		}
		return tx.Exec("ALTER TABLE sessions ADD COLUMN eval_ms integer NOT NULL DEFAULT 0").Error
	},
	5: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&Setting{})
	},
	6: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&ToolOutput{})
	},
	7: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&Fact{}, &WorkingEntry{})
	},
	8: func(tx *gorm.DB) error {
		if tx.Migrator().HasColumn(&Message{}, "tokens") {
			return nil
		}
		return tx.Exec("ALTER TABLE messages ADD COLUMN tokens integer NOT NULL DEFAULT 0").Error
	},
	9: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&SentenceVector{})
	},
	10: func(tx *gorm.DB) error {
		// Rules become per workspace. A "never" keeps applying everywhere;
		// an "always" was given in a workspace nobody recorded, so it is
		// dropped and the user is asked again.
		if err := tx.Migrator().CreateTable(&ApprovalRule{}); err != nil {
			return err
		}
		return tx.Exec("INSERT INTO approval_rules (workspace, tool, rule, updated_at) SELECT '', tool, rule, updated_at FROM rules WHERE rule = 'never'").Error
	},
	11: func(tx *gorm.DB) error {
		// Kept outputs are read only from the session and workspace that
		// kept them; older ones (no workspace recorded) only from their
		// session.
		if tx.Migrator().HasColumn(&ToolOutput{}, "workspace") {
			return nil
		}
		return tx.Exec("ALTER TABLE tool_outputs ADD COLUMN workspace text NOT NULL DEFAULT ''").Error
	},
	12: func(tx *gorm.DB) error {
		// Facts are checked again by the stricter classifier when they are
		// loaded; a flagged one waits for the user's approval.
		if tx.Migrator().HasColumn(&Fact{}, "approved") {
			return nil
		}
		return tx.Exec("ALTER TABLE facts ADD COLUMN approved numeric NOT NULL DEFAULT false").Error
	},
	13: func(tx *gorm.DB) error {
		// Per-run measures: what procedural memory saves is measured.
		return tx.Migrator().CreateTable(&RunMetric{})
	},
	14: func(tx *gorm.DB) error {
		// Recalls a run did not use are not offered again for the request.
		return tx.Migrator().CreateTable(&RecallDecline{})
	},
	15: func(tx *gorm.DB) error {
		// A long session's summary outlives the run that made it.
		return tx.Migrator().CreateTable(&SessionSummary{})
	},
	16: func(tx *gorm.DB) error {
		// What a session read from outside outlives the run that read it.
		if tx.Migrator().HasColumn(&Session{}, "outside") {
			return nil
		}
		return tx.Exec("ALTER TABLE sessions ADD COLUMN outside text NOT NULL DEFAULT ''").Error
	},
	17: func(tx *gorm.DB) error {
		// An "always" for an MCP tool holds for the definition it was given for.
		if tx.Migrator().HasColumn(&ApprovalRule{}, "pin") {
			return nil
		}
		return tx.Exec("ALTER TABLE approval_rules ADD COLUMN pin text NOT NULL DEFAULT ''").Error
	},
	18: func(tx *gorm.DB) error {
		// "Always" for one exact command, not the whole shell.
		return tx.Migrator().CreateTable(&CallRule{})
	},
	19: boundExamples,
	20: func(tx *gorm.DB) error {
		// What the file tools changed, so a run can be undone (package undo).
		return tx.Migrator().CreateTable(&FileChange{})
	},
	21: func(tx *gorm.DB) error {
		// The folders a file tool made, so undo removes them with the file.
		if tx.Migrator().HasColumn(&FileChange{}, "folders") {
			return nil
		}
		return tx.Exec("ALTER TABLE file_changes ADD COLUMN folders text NOT NULL DEFAULT ''").Error
	},
	22: func(tx *gorm.DB) error {
		// A change a command's watch found while another run was changing
		// files in the workspace: undo leaves it.
		if tx.Migrator().HasColumn(&FileChange{}, "shared") {
			return nil
		}
		return tx.Exec("ALTER TABLE file_changes ADD COLUMN shared numeric NOT NULL DEFAULT false").Error
	},
	23: func(tx *gorm.DB) error {
		// The shell's watches, so one process knows of another's commands.
		return tx.Migrator().CreateTable(&ShellWatch{})
	},
	24: func(tx *gorm.DB) error {
		// Which undone changes a redo can put back.
		if tx.Migrator().HasColumn(&FileChange{}, "redoable") {
			return nil
		}
		return tx.Exec("ALTER TABLE file_changes ADD COLUMN redoable numeric NOT NULL DEFAULT false").Error
	},
	25: func(tx *gorm.DB) error {
		// The permissions a redo gives a file back.
		if tx.Migrator().HasColumn(&FileChange{}, "redo_mode") {
			return nil
		}
		return tx.Exec("ALTER TABLE file_changes ADD COLUMN redo_mode integer NOT NULL DEFAULT 0").Error
	},
	26: tagModelSettings,
	27: func(tx *gorm.DB) error {
		// The window lists the latest sessions a page at a time: with
		// 50,000 of them, reading all took 0.5 s and 14 MB to the page.
		return tx.Exec("CREATE INDEX IF NOT EXISTS idx_sessions_updated_at ON sessions(updated_at)").Error
	},
	28: func(tx *gorm.DB) error {
		// The window offers the folders sessions worked in, latest first
		// (RecentWorkspaces): 124–134 ms with 50,000 sessions in 40
		// folders read whole, 17–23 ms through this index.
		return tx.Exec("CREATE INDEX IF NOT EXISTS idx_sessions_workspace_updated ON sessions(workspace, updated_at)").Error
	},
	29: func(tx *gorm.DB) error {
		// The images attached to requests for models that can see: sent
		// again with each later request of the session, as its history.
		return tx.Migrator().CreateTable(&Image{}, &MessageImage{})
	},
	30: func(tx *gorm.DB) error {
		// A request the user retries or edits takes its run's messages,
		// and those after them, out of the model's history: each message
		// says which run wrote it, and whether it was replaced so.
		for _, c := range []struct{ name, sql string }{
			{"run", "ALTER TABLE messages ADD COLUMN run integer NOT NULL DEFAULT 0"},
			{"replaced", "ALTER TABLE messages ADD COLUMN replaced numeric NOT NULL DEFAULT false"},
		} {
			if tx.Migrator().HasColumn(&Message{}, c.name) {
				continue // made with the table (a new database)
			}
			if err := tx.Exec(c.sql).Error; err != nil {
				return err
			}
		}
		return tx.Exec("CREATE INDEX IF NOT EXISTS idx_messages_session_run ON messages(session_id, run)").Error
	},
	31: func(tx *gorm.DB) error {
		// How many of a run's calls gave what the same call had given
		// before (agent.RunEnded.Repeated): calls that told the model
		// nothing new.
		if tx.Migrator().HasColumn(&RunMetric{}, "repeated") {
			return nil
		}
		return tx.Exec("ALTER TABLE run_metrics ADD COLUMN repeated integer NOT NULL DEFAULT 0").Error
	},
	32: func(tx *gorm.DB) error {
		// How many of a run's calls were made again because their result
		// had been left out to fit the context (agent.RunEnded.Refetched):
		// what a larger context would have spared.
		if tx.Migrator().HasColumn(&RunMetric{}, "refetched") {
			return nil
		}
		return tx.Exec("ALTER TABLE run_metrics ADD COLUMN refetched integer NOT NULL DEFAULT 0").Error
	},
}

// tagModelSettings keeps every model's settings under the name Ollama
// lists it by (modelname.Canonical): one set with `shrimp models ctx qwen3`
// was never read for qwen3:latest, the window's name for the same model,
// nor the other way round. Where both were kept, the later one stays.
func tagModelSettings(tx *gorm.DB) error {
	var rows []ModelSetting
	if err := tx.Find(&rows).Error; err != nil {
		return err
	}
	latest := map[string]ModelSetting{}
	for _, r := range rows {
		r.Model = modelname.Canonical(r.Model)
		if had, ok := latest[r.Model]; !ok || r.UpdatedAt.After(had.UpdatedAt) {
			latest[r.Model] = r
		}
	}
	if !slices.ContainsFunc(rows, func(r ModelSetting) bool { return r.Model != modelname.Canonical(r.Model) }) {
		return nil // all kept under their listed names already
	}
	if err := tx.Where("1 = 1").Delete(&ModelSetting{}).Error; err != nil {
		return err
	}
	for _, r := range latest {
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
	}
	return nil
}

// boundExamples bounds the example arguments procedures learned before
// they were bounded when learned (jsoncut): a 3 MB fs.write was kept
// whole, loaded at every start and held in memory.
func boundExamples(tx *gorm.DB) error {
	var rows []Procedure
	if err := tx.Select("id", "examples").Where("length(examples) > ?", jsoncut.Max).Find(&rows).Error; err != nil {
		return err
	}
	for _, p := range rows {
		var steps []json.RawMessage
		if json.Unmarshal([]byte(p.Examples), &steps) != nil {
			continue // not the stored form: left as it is
		}
		for i, a := range steps {
			steps[i] = jsoncut.Bound(a)
		}
		b, err := json.Marshal(steps)
		if err != nil {
			return err
		}
		if err := tx.Model(&Procedure{}).Where("id = ?", p.ID).UpdateColumn("examples", string(b)).Error; err != nil {
			return err
		}
	}
	return nil
}

// Store is an open database.
type Store struct {
	db   *gorm.DB
	path string
}

// ErrNotFound means the requested row does not exist.
var ErrNotFound = errors.New("not found")

// Open opens (creating if needed) the store in dir and migrates it.
func Open(dir string) (*Store, error) {
	path := filepath.Join(dir, FileName)
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(); err != nil {
		s.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

// Path returns the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// MigrationWait is how long opening the database waits for another
// Shrimp (the window and a terminal started together, both after an
// upgrade) to finish migrating it, rather than the usual busy timeout.
const MigrationWait = 2 * time.Minute

// migrate applies the migrations not yet recorded. Several processes may
// open one database at once: each migration runs in an immediate
// transaction (it holds the write lock from its start) and first looks
// again whether another process applied it meanwhile, so each is applied
// once and the others wait for it instead of failing on a table that
// already exists.
func (s *Store) migrate() error {
	return s.db.Connection(func(conn *gorm.DB) error {
		// A fresh statement on the connection for each call below, or
		// they pile up their models and conditions.
		conn = conn.Session(&gorm.Session{NewDB: true})
		if err := conn.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", MigrationWait.Milliseconds())).Error; err != nil {
			return err
		}
		defer conn.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", sqlite.BusyTimeout.Milliseconds()))
		if err := conn.Transaction(func(tx *gorm.DB) error { return tx.AutoMigrate(&migration{}) }); err != nil {
			return busyError(err)
		}
		var applied []int
		if err := conn.Model(&migration{}).Order("version").Pluck("version", &applied).Error; err != nil {
			return err
		}
		done := map[int]bool{}
		for _, v := range applied {
			done[v] = true
			if v >= len(migrations) {
				return fmt.Errorf("the database is from a newer Shrimp (schema %d, this one knows %d); upgrade Shrimp or use another --data-dir", v, len(migrations)-1)
			}
		}
		for v := 1; v < len(migrations); v++ {
			if done[v] {
				continue
			}
			err := conn.Transaction(func(tx *gorm.DB) error {
				var n int64
				if err := tx.Model(&migration{}).Where("version = ?", v).Count(&n).Error; err != nil || n > 0 {
					return err // applied by another process meanwhile
				}
				if err := migrations[v](tx); err != nil {
					return err
				}
				return tx.Create(&migration{Version: v, Applied: time.Now().UTC()}).Error
			})
			if err != nil {
				return fmt.Errorf("migration %d: %w", v, busyError(err))
			}
		}
		return nil
	})
}

// busyError says what to do when another process held the database for
// longer than MigrationWait.
func busyError(err error) error {
	if sqlite.IsBusy(err) {
		return fmt.Errorf("%w: another Shrimp has held the database for %v; close the other Shrimp windows and commands using this data directory and try again", err, MigrationWait)
	}
	return err
}

// CreateSession stores a new session.
func (s *Store) CreateSession(ctx context.Context, sess Session) error {
	if err := s.db.WithContext(ctx).Create(&sess).Error; err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return nil
}

// Session returns one session.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	var sess Session
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&sess).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return sess, fmt.Errorf("session %s: %w (list sessions with `shrimp sessions list`)", id, ErrNotFound)
	}
	if err != nil {
		return sess, fmt.Errorf("session %s: %w", id, err)
	}
	return sess, nil
}

// SetTitle renames session id (an edit of its first request).
func (s *Store) SetTitle(ctx context.Context, id, title string) error {
	if err := s.db.WithContext(ctx).Model(&Session{}).Where("id = ?", id).UpdateColumn("title", title).Error; err != nil {
		return fmt.Errorf("session %s: rename: %w", id, err)
	}
	return nil
}

// MarkOutside records that session id's model read content from outside
// (source: a URL, a server); the first source is kept.
func (s *Store) MarkOutside(ctx context.Context, id, source string) error {
	err := s.db.WithContext(ctx).Model(&Session{}).Where("id = ? AND outside = ''", id).UpdateColumn("outside", source).Error
	if err != nil {
		return fmt.Errorf("session %s: mark content read from outside: %w", id, err)
	}
	return nil
}

// RecentSessions returns the limit most recently updated sessions (all
// when limit is 0 or less), most recent first, and how many sessions
// there are.
func (s *Store) RecentSessions(ctx context.Context, limit int) ([]Session, int, error) {
	var out []Session
	var total int64
	db := s.db.WithContext(ctx)
	if err := db.Model(&Session{}).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count sessions: %w", err)
	}
	q := db.Order("updated_at desc")
	if limit > 0 {
		q = q.Limit(limit)
	}
	if err := q.Find(&out).Error; err != nil {
		return nil, 0, fmt.Errorf("list sessions: %w", err)
	}
	return out, int(total), nil
}

// UsagePoint is one session's token counts at its last update.
type UsagePoint struct {
	Updated          int64 // Unix seconds
	PromptTokens     int
	CompletionTokens int
}

// UsagePoints returns every session's token counts, oldest first: what a
// chart of usage over time needs, without the rest of each session (or
// parsing its times: 0.14 s instead of 0.24 for 50,000 sessions).
func (s *Store) UsagePoints(ctx context.Context) ([]UsagePoint, error) {
	var out []UsagePoint
	err := s.db.WithContext(ctx).Model(&Session{}).Select("CAST(strftime('%s', updated_at) AS INTEGER) AS updated, prompt_tokens, completion_tokens").Order("updated_at").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("usage over time: %w", err)
	}
	return out, nil
}

// Sessions returns all sessions, most recently updated first.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	var out []Session
	if err := s.db.WithContext(ctx).Order("updated_at desc").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// WorkspaceUse is a folder sessions worked in.
type WorkspaceUse struct {
	Workspace string `json:"workspace"`
	Sessions  int    `json:"sessions"`
	// Last is when one of them was last updated, as stored.
	Last string `json:"last"`
}

// RecentWorkspaces returns the folders sessions worked in, the most
// recently used first, at most limit.
func (s *Store) RecentWorkspaces(ctx context.Context, limit int) ([]WorkspaceUse, error) {
	var out []WorkspaceUse
	err := s.db.WithContext(ctx).Raw(`SELECT workspace, count(*) AS sessions, max(updated_at) AS last FROM sessions
		WHERE workspace != '' GROUP BY workspace ORDER BY last DESC LIMIT ?`, limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("recent workspaces: %w", err)
	}
	return out, nil
}

// DeleteSession removes a session with its messages, events and records
// of changed files.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, m := range []any{&EventRow{}, &Message{}, &MessageImage{}, &ToolOutput{}, &WorkingEntry{}, &SessionSummary{}, &FileChange{}} {
			if err := tx.Where("session_id = ?", id).Delete(m).Error; err != nil {
				return err
			}
		}
		// An image no other session holds goes with it.
		if err := tx.Exec("DELETE FROM images WHERE sha256 NOT IN (SELECT sha256 FROM message_images)").Error; err != nil {
			return err
		}
		res := tx.Where("id = ?", id).Delete(&Session{})
		if res.Error == nil && res.RowsAffected == 0 {
			return fmt.Errorf("session %s: %w", id, ErrNotFound)
		}
		return res.Error
	})
}

// AddUsage adds token counts and generation time to a session and touches
// its update time.
func (s *Store) AddUsage(ctx context.Context, id string, prompt, completion int, evalMS int64) error {
	return s.db.WithContext(ctx).Model(&Session{}).Where("id = ?", id).Updates(map[string]any{
		"prompt_tokens":     gorm.Expr("prompt_tokens + ?", prompt),
		"completion_tokens": gorm.Expr("completion_tokens + ?", completion),
		"eval_ms":           gorm.Expr("eval_ms + ?", evalMS),
		"updated_at":        time.Now().UTC(),
	}).Error
}

// ModelUsage is token accounting summed per model.
type ModelUsage struct {
	Model            string `json:"model"`
	Sessions         int    `json:"sessions"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	EvalMS           int64  `json:"eval_ms"`
}

// UsageByModel sums the sessions' usage per model.
func (s *Store) UsageByModel(ctx context.Context) ([]ModelUsage, error) {
	var out []ModelUsage
	err := s.db.WithContext(ctx).Raw(`SELECT model, count(*) AS sessions, sum(prompt_tokens) AS prompt_tokens,
		sum(completion_tokens) AS completion_tokens, sum(eval_ms) AS eval_ms FROM sessions GROUP BY model ORDER BY model`).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("usage by model: %w", err)
	}
	// "qwen3" (as typed) and "qwen3:latest" (as listed) are one model.
	byName := map[string]*ModelUsage{}
	var merged []ModelUsage
	for _, u := range out {
		u.Model = modelname.Canonical(u.Model)
		if m, ok := byName[u.Model]; ok {
			m.Sessions, m.PromptTokens, m.CompletionTokens, m.EvalMS = m.Sessions+u.Sessions, m.PromptTokens+u.PromptTokens, m.CompletionTokens+u.CompletionTokens, m.EvalMS+u.EvalMS
			continue
		}
		byName[u.Model] = &u
	}
	for _, m := range byName {
		merged = append(merged, *m)
	}
	slices.SortFunc(merged, func(a, b ModelUsage) int { return strings.Compare(a.Model, b.Model) })
	return merged, nil
}

// AppendMessages stores messages at the end of a session's history. counts,
// when given, holds each message's token count (Ollama's count for model
// output); missing counts are estimated (internal/tokens).
func (s *Store) AppendMessages(ctx context.Context, sessionID string, msgs []api.Message, counts ...int) error {
	return s.AppendRunMessages(ctx, sessionID, 0, msgs, counts...)
}

// AppendRunMessages is AppendMessages for the messages of one run: run is
// the seq of its agent:run-started, which [Store.ReplaceRuns] names.
func (s *Store) AppendRunMessages(ctx context.Context, sessionID string, run int64, msgs []api.Message, counts ...int) error {
	if len(msgs) == 0 {
		return nil
	}
	rows := make([]Message, 0, len(msgs))
	now := time.Now().UTC()
	for i, m := range msgs {
		row := Message{SessionID: sessionID, Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID, CreatedAt: now, Run: run}
		if i < len(counts) && counts[i] > 0 {
			row.Tokens = counts[i]
		} else {
			row.Tokens = tokens.Count(m.Content) + tokens.Count(m.Thinking) + attach.Tokens*len(m.Images)
		}
		if len(m.ToolCalls) > 0 {
			b, err := json.Marshal(m.ToolCalls)
			if err != nil {
				return fmt.Errorf("encode tool calls: %w", err)
			}
			row.ToolCalls = string(b)
		}
		rows = append(rows, row)
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&rows).Error; err != nil {
			return fmt.Errorf("append messages to %s: %w", sessionID, err)
		}
		for i, m := range msgs {
			if err := addImages(tx, sessionID, rows[i].ID, m.Images, now); err != nil {
				return fmt.Errorf("append the images of a message to %s: %w", sessionID, err)
			}
		}
		return tx.Model(&Session{}).Where("id = ?", sessionID).Update("updated_at", now).Error
	})
}

// addImages keeps a message's images, each image's data once.
func addImages(tx *gorm.DB, sessionID string, messageID uint, images []api.ImageData, now time.Time) error {
	for _, data := range images {
		sum := sha256.Sum256(data)
		img := Image{SHA256: hex.EncodeToString(sum[:]), Type: http.DetectContentType(data), Data: data, CreatedAt: now}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&img).Error; err != nil {
			return err
		}
		if err := tx.Create(&MessageImage{SessionID: sessionID, MessageID: messageID, SHA256: img.SHA256}).Error; err != nil {
			return err
		}
	}
	return nil
}

// StoredImage returns the image kept under its SHA-256 (hex), or an error
// wrapping [ErrNotFound] when no session holds it any more.
func (s *Store) StoredImage(ctx context.Context, sha string) (Image, error) {
	var img Image
	err := s.db.WithContext(ctx).Where("sha256 = ?", sha).Take(&img).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Image{}, fmt.Errorf("image %.12s: %w", sha, ErrNotFound)
	}
	if err != nil {
		return Image{}, fmt.Errorf("image %.12s: %w", sha, err)
	}
	return img, nil
}

// messageImages returns the images of a session's messages by message.
func (s *Store) messageImages(ctx context.Context, sessionID string) (map[uint][]api.ImageData, error) {
	var links []MessageImage
	if err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&links).Error; err != nil || len(links) == 0 {
		return nil, err
	}
	var imgs []Image
	if err := s.db.WithContext(ctx).Where("sha256 IN ?", lo.Uniq(lo.Map(links, func(l MessageImage, _ int) string { return l.SHA256 }))).Find(&imgs).Error; err != nil {
		return nil, err
	}
	data := lo.SliceToMap(imgs, func(i Image) (string, []byte) { return i.SHA256, i.Data })
	out := map[uint][]api.ImageData{}
	for _, l := range links {
		if d, ok := data[l.SHA256]; ok {
			out[l.MessageID] = append(out[l.MessageID], d)
		}
	}
	return out, nil
}

// Messages returns a session's history, oldest first: what the model is
// sent, without the messages a retried or edited request replaced.
func (s *Store) Messages(ctx context.Context, sessionID string) ([]api.Message, error) {
	msgs, _, err := s.messages(ctx, sessionID, true)
	return msgs, err
}

// TextMessages is Messages without the images' data (a transcript of the
// session reads the text alone), and when each message was stored.
func (s *Store) TextMessages(ctx context.Context, sessionID string) ([]api.Message, []time.Time, error) {
	msgs, rows, err := s.messages(ctx, sessionID, false)
	at := make([]time.Time, len(rows))
	for i, r := range rows {
		at[i] = r.CreatedAt
	}
	return msgs, at, err
}

// messages reads the history, as the model is sent it and as stored.
func (s *Store) messages(ctx context.Context, sessionID string, withImages bool) ([]api.Message, []Message, error) {
	var rows []Message
	if err := s.db.WithContext(ctx).Where("session_id = ? AND NOT replaced", sessionID).Order("id").Find(&rows).Error; err != nil {
		return nil, nil, fmt.Errorf("messages of %s: %w", sessionID, err)
	}
	var images map[uint][]api.ImageData
	if withImages {
		var err error
		if images, err = s.messageImages(ctx, sessionID); err != nil {
			return nil, nil, fmt.Errorf("images of %s: %w", sessionID, err)
		}
	}
	out := make([]api.Message, 0, len(rows))
	for _, r := range rows {
		m := api.Message{Role: r.Role, Content: r.Content, Thinking: r.Thinking, ToolName: r.ToolName, ToolCallID: r.ToolCallID, Images: images[r.ID]}
		if r.ToolCalls != "" {
			if err := json.Unmarshal([]byte(r.ToolCalls), &m.ToolCalls); err != nil {
				return nil, nil, fmt.Errorf("decode tool calls of %s: %w", sessionID, err)
			}
		}
		out = append(out, m)
	}
	return out, rows, nil
}

// AppendEvents stores events in one transaction. Their data is marshalled
// to JSON here.
func (s *Store) AppendEvents(ctx context.Context, events []agent.Event) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]EventRow, len(events))
	for i, e := range events {
		raw, err := e.RawData()
		if err != nil {
			return fmt.Errorf("encode %s event: %w", e.Type, err)
		}
		rows[i] = EventRow{SessionID: e.Session, Seq: e.Seq, Type: string(e.Type), Time: e.Time, Data: string(raw)}
	}
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(&rows, 200)
	if res.Error != nil {
		return fmt.Errorf("store %d events: %w", len(rows), res.Error)
	}
	if res.RowsAffected < int64(len(rows)) {
		return s.sameEvents(ctx, rows)
	}
	return nil
}

// sameEvents checks events some of which were already stored: storing an
// event again is a no-op, but another event under its seq means two
// processes wrote the session at once ([ErrSeqTaken]).
func (s *Store) sameEvents(ctx context.Context, rows []EventRow) error {
	taken := 0
	for _, r := range rows {
		var got EventRow
		if err := s.db.WithContext(ctx).Where("session_id = ? AND seq = ?", r.SessionID, r.Seq).Take(&got).Error; err != nil {
			return fmt.Errorf("check event %s/%d: %w", r.SessionID, r.Seq, err)
		}
		if got.Type != r.Type || got.Data != r.Data {
			taken++
		}
	}
	if taken > 0 {
		return fmt.Errorf("%w: %d of %d events of session %s were not stored", ErrSeqTaken, taken, len(rows), rows[0].SessionID)
	}
	return nil
}

// ErrSeqTaken means events came with seqs their session already had: two
// processes wrote the session at the same time.
var ErrSeqTaken = errors.New("another Shrimp process is writing this session at the same time")

// Events returns a session's events with seq greater than after, in order.
// Their data is raw JSON.
func (s *Store) Events(ctx context.Context, sessionID string, after int64) ([]agent.Event, error) {
	// Scanned row by row rather than through GORM's reflection: a long
	// session is hundreds of thousands of events (BenchmarkEvents).
	rows, err := s.db.WithContext(ctx).Raw("SELECT seq, type, time, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq", sessionID, after).Rows()
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", sessionID, err)
	}
	out, err := scanEvents(rows, func(e *agent.Event, typ *string, data *[]byte) []any {
		return []any{&e.Seq, typ, &e.Time, data}
	})
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", sessionID, err)
	}
	for i := range out {
		out[i].Session = sessionID
	}
	return out, nil
}

// scanEvents reads stored events from rows, and then closes them: cols
// gives, once, where a row's columns go (into the event being read, its
// type and its data).
func scanEvents(rows *sql.Rows, cols func(e *agent.Event, typ *string, data *[]byte) []any) ([]agent.Event, error) {
	defer rows.Close()
	var out []agent.Event
	var e agent.Event
	var typ string
	var data []byte
	dest := cols(&e, &typ, &data)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		e.Type, e.Time, e.Data = agent.Type(typ), e.Time.UTC(), json.RawMessage(data)
		out = append(out, e)
		data = nil // each row's data is its own
	}
	return out, rows.Err()
}

// EventsEnd returns the position of the last stored event (its rowid; 0
// when none), for EventsAfter.
func (s *Store) EventsEnd(ctx context.Context) (int64, error) {
	var end int64
	if err := s.db.WithContext(ctx).Raw("SELECT COALESCE(MAX(rowid), 0) FROM events").Scan(&end).Error; err != nil {
		return 0, fmt.Errorf("last event: %w", err)
	}
	return end, nil
}

// EventsAfter returns up to limit events of every session stored after
// position pos (see EventsEnd), in the order they were stored, and the
// position of the last one returned (pos when none). Their data is raw
// JSON. What another process (`shrimp chat` beside the window) stores is
// followed this way.
func (s *Store) EventsAfter(ctx context.Context, pos int64, limit int) ([]agent.Event, int64, error) {
	rows, err := s.db.WithContext(ctx).Raw("SELECT rowid, session_id, seq, type, time, data FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?", pos, limit).Rows()
	if err != nil {
		return nil, pos, fmt.Errorf("events after %d: %w", pos, err)
	}
	from := pos
	out, err := scanEvents(rows, func(e *agent.Event, typ *string, data *[]byte) []any {
		return []any{&pos, &e.Session, &e.Seq, typ, &e.Time, data}
	})
	if err != nil {
		return nil, from, fmt.Errorf("events after %d: %w", from, err)
	}
	return out, pos, nil
}

// LastRun returns the events of a session's last run: from its last
// agent:run-started on (none when it has no run).
func (s *Store) LastRun(ctx context.Context, sessionID string) ([]agent.Event, error) {
	seq, err := s.seqOf(ctx, sessionID, "max", agent.TypeRunStarted, "last run")
	if err != nil || seq == 0 {
		return nil, err
	}
	return s.Events(ctx, sessionID, seq-1)
}

// FirstRun returns the seq of the session's first agent:run-started (0
// when none).
func (s *Store) FirstRun(ctx context.Context, sessionID string) (int64, error) {
	return s.seqOf(ctx, sessionID, "min", agent.TypeRunStarted, "first run")
}

// LastSeq returns the highest stored seq of a session (0 when none).
func (s *Store) LastSeq(ctx context.Context, sessionID string) (int64, error) {
	return s.seqOf(ctx, sessionID, "max", "", "last seq")
}

// seqOf returns the max or min (agg) seq of a session's events, of type t
// when it is not "" (0 when none; seqs start at 1); what names it in an
// error.
func (s *Store) seqOf(ctx context.Context, sessionID, agg string, t agent.Type, what string) (int64, error) {
	q := s.db.WithContext(ctx).Model(&EventRow{}).Where("session_id = ?", sessionID)
	if t != "" {
		q = q.Where("type = ?", string(t))
	}
	var seq *int64
	if err := q.Select(agg + "(seq)").Scan(&seq).Error; err != nil {
		return 0, fmt.Errorf("%s of %s: %w", what, sessionID, err)
	}
	if seq == nil {
		return 0, nil
	}
	return *seq, nil
}

// Rule returns the approval rule that applies to tool in workspace ("" when
// none): a "never" for any workspace wins, else the workspace's own rule.
func (s *Store) Rule(ctx context.Context, workspace, tool string) (string, error) {
	var rows []ApprovalRule
	err := s.db.WithContext(ctx).Where("tool = ? AND workspace IN ?", tool, []string{workspace, AnyWorkspace}).Find(&rows).Error
	if err != nil {
		return "", fmt.Errorf("approval rule for %s: %w", tool, err)
	}
	rule := ""
	for _, r := range rows {
		switch {
		case r.Rule == "never":
			return r.Rule, nil
		case r.Workspace == workspace:
			rule = r.Rule
		}
	}
	return rule, nil
}

// SetRule remembers an approval rule for tool in workspace; an empty rule
// removes it (not the rules for the tool's exact calls).
func (s *Store) SetRule(ctx context.Context, workspace, tool, rule string) error {
	db := s.db.WithContext(ctx)
	if rule == "" { // the tool's own rule; its exact calls' stay
		if err := db.Where("workspace = ? AND tool = ?", workspace, tool).Delete(&ApprovalRule{}).Error; err != nil {
			return fmt.Errorf("revoke approval rule for %s: %w", tool, err)
		}
		return nil
	}
	err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&ApprovalRule{Workspace: workspace, Tool: tool, Rule: rule, UpdatedAt: time.Now().UTC()}).Error
	if err != nil {
		return fmt.Errorf("set approval rule for %s: %w", tool, err)
	}
	return nil
}

// PinRule records the digest of the definition tool's rule in workspace
// was given for.
func (s *Store) PinRule(ctx context.Context, workspace, tool, pin string) error {
	err := s.db.WithContext(ctx).Model(&ApprovalRule{}).Where("workspace = ? AND tool = ?", workspace, tool).UpdateColumn("pin", pin).Error
	if err != nil {
		return fmt.Errorf("pin approval rule for %s: %w", tool, err)
	}
	return nil
}

// RulePin returns workspace's own rule for tool and the digest it was
// pinned to ("" and "" when there is none).
func (s *Store) RulePin(ctx context.Context, workspace, tool string) (rule, pin string, err error) {
	var rows []ApprovalRule
	if err := s.db.WithContext(ctx).Where("workspace = ? AND tool = ?", workspace, tool).Find(&rows).Error; err != nil {
		return "", "", fmt.Errorf("approval rule for %s: %w", tool, err)
	}
	if len(rows) == 0 {
		return "", "", nil
	}
	return rows[0].Rule, rows[0].Pin, nil
}

// RevokeRules removes tool's rules, its exact calls' included: in one
// workspace, or in all of them when workspace is nil. It returns the rules
// removed.
func (s *Store) RevokeRules(ctx context.Context, tool string, workspace *string) (gone []ApprovalRule, calls []CallRule, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		scope := func(q *gorm.DB) *gorm.DB {
			q = q.Where("tool = ?", tool)
			if workspace != nil {
				q = q.Where("workspace = ?", *workspace)
			}
			return q
		}
		if err := tx.Scopes(scope).Find(&gone).Error; err != nil {
			return err
		}
		if err := tx.Scopes(scope).Find(&calls).Error; err != nil {
			return err
		}
		if err := tx.Scopes(scope).Delete(&CallRule{}).Error; err != nil {
			return err
		}
		return tx.Scopes(scope).Delete(&ApprovalRule{}).Error
	})
	if err != nil {
		return nil, nil, fmt.Errorf("revoke approval rules for %s: %w", tool, err)
	}
	return gone, calls, nil
}

// CallRule reports whether workspace has an "always" for this exact call
// of tool (call is its key).
func (s *Store) CallRule(ctx context.Context, workspace, tool, call string) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&CallRule{}).Where("workspace = ? AND tool = ? AND call = ?", workspace, tool, call).Count(&n).Error; err != nil {
		return false, fmt.Errorf("approval rule for this %s call: %w", tool, err)
	}
	return n > 0, nil
}

// SetCallRule remembers an "always" for one exact call of tool in
// workspace.
func (s *Store) SetCallRule(ctx context.Context, workspace, tool, call string) error {
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{UpdateAll: true}).Create(&CallRule{Workspace: workspace, Tool: tool, Call: call, UpdatedAt: time.Now().UTC()}).Error
	if err != nil {
		return fmt.Errorf("set approval rule for this %s call: %w", tool, err)
	}
	return nil
}

// RevokeCallRule removes one exact call's rule; it reports whether there
// was one.
func (s *Store) RevokeCallRule(ctx context.Context, workspace, tool, call string) (bool, error) {
	res := s.db.WithContext(ctx).Where("workspace = ? AND tool = ? AND call = ?", workspace, tool, call).Delete(&CallRule{})
	if res.Error != nil {
		return false, fmt.Errorf("revoke approval rule for this %s call: %w", tool, res.Error)
	}
	return res.RowsAffected > 0, nil
}

// CallRules returns every exact call's rule, by tool, workspace and call.
func (s *Store) CallRules(ctx context.Context) ([]CallRule, error) {
	var out []CallRule
	if err := s.db.WithContext(ctx).Order("tool, workspace, call").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("approval rules for exact calls: %w", err)
	}
	return out, nil
}

// Rules returns every remembered rule, by tool then workspace.
func (s *Store) Rules(ctx context.Context) ([]ApprovalRule, error) {
	var out []ApprovalRule
	if err := s.db.WithContext(ctx).Order("tool, workspace").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("approval rules: %w", err)
	}
	return out, nil
}

// NumCtx returns the context size set for a model (0 when none).
func (s *Store) NumCtx(ctx context.Context, model string) (int, error) {
	var m ModelSetting
	err := s.db.WithContext(ctx).Where("model = ?", modelname.Canonical(model)).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("settings of %s: %w", model, err)
	}
	return m.NumCtx, nil
}

// SetNumCtx sets a model's context size; 0 removes the setting.
func (s *Store) SetNumCtx(ctx context.Context, model string, n int) error {
	db := s.db.WithContext(ctx)
	model = modelname.Canonical(model) // "qwen3" and "qwen3:latest" are one model
	if n == 0 {
		return db.Where("model = ?", model).Delete(&ModelSetting{}).Error
	}
	return db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&ModelSetting{Model: model, NumCtx: n, UpdatedAt: time.Now().UTC()}).Error
}

// SearchSessions returns the limit most recently updated sessions (all
// when limit is 0 or less) whose title or any message contains text
// (case-insensitive), most recent first, and how many match.
func (s *Store) SearchSessions(ctx context.Context, text string, limit int) ([]Session, int, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(text)) + "%"
	// One pass over the messages for the page and the count (a count of
	// its own read them all again: twice the time with many stored).
	var rows []struct {
		Session `gorm:"embedded"`
		Matches int
	}
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	err := s.db.WithContext(ctx).Raw(`SELECT *, count(*) OVER () AS matches FROM sessions
		WHERE lower(title) LIKE ? ESCAPE '\' OR id IN (SELECT session_id FROM messages WHERE lower(content) LIKE ? ESCAPE '\')
		ORDER BY updated_at DESC LIMIT ?`, like, like, limit).Scan(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("search sessions: %w", err)
	}
	out := make([]Session, len(rows))
	total := 0
	for i, r := range rows {
		out[i], total = r.Session, r.Matches
	}
	return out, total, nil
}

// Setting returns a saved preference ("" when unset).
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	var st Setting
	err := s.db.WithContext(ctx).Where("key = ?", key).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("setting %s: %w", key, err)
	}
	return st.Value, nil
}

// SetSetting saves a preference; "" removes it.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	db := s.db.WithContext(ctx)
	if value == "" {
		return db.Where("key = ?", key).Delete(&Setting{}).Error
	}
	return db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Setting{Key: key, Value: value}).Error
}

// KeepOutput stores a whole tool output of a session's run in workspace
// and returns its handle.
func (s *Store) KeepOutput(ctx context.Context, sessionID, workspace, tool, content string) (string, error) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	h := "out-" + hex.EncodeToString(b[:])
	err := s.db.WithContext(ctx).Create(&ToolOutput{Handle: h, SessionID: sessionID, Workspace: workspace, Tool: tool, Content: content, CreatedAt: time.Now().UTC()}).Error
	if err != nil {
		return "", fmt.Errorf("keep output of %s: %w", tool, err)
	}
	return h, nil
}

// ReadOutput returns up to length bytes of a kept output from offset, in
// whole UTF-8 characters (from the start of the character offset falls
// in, which it returns as start; at least one character), and the
// output's total size. Only the session and workspace that kept it can
// read it; any other reader is told, as for a handle that does not exist,
// that there is no such output.
func (s *Store) ReadOutput(ctx context.Context, sessionID, workspace, handle string, offset, length int) (text string, start, total int, err error) {
	var o ToolOutput
	err = s.db.WithContext(ctx).Where("handle = ? AND session_id = ? AND workspace IN ?", handle, sessionID, []string{workspace, ""}).Take(&o).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", 0, 0, fmt.Errorf("no kept output %q in this session: use the handle from a cut tool result of this conversation", handle)
	}
	if err != nil {
		return "", 0, 0, fmt.Errorf("read output %s: %w", handle, err)
	}
	c := o.Content
	total = len(c)
	if offset < 0 || offset > total {
		return "", 0, total, fmt.Errorf("offset %d is outside the output (%d bytes)", offset, total)
	}
	// Whole characters only: a piece cut inside one reaches the model as
	// U+FFFD at each end (JSON has no half characters), and text in most
	// of the world's scripts would lose a letter at every page.
	start = offset
	for start > 0 && start < total && !utf8.RuneStart(c[start]) && offset-start < utf8.UTFMax-1 {
		start--
	}
	end := max(start, textcut.Before(c, min(total, offset+max(length, 0))))
	if end == start && start < total { // less than the first character asked for: that character
		_, n := utf8.DecodeRuneInString(c[start:])
		end = start + n
	}
	return c[start:end], start, total, nil
}

// MessageTokens returns the token count stored for each message of a
// session, oldest first.
func (s *Store) MessageTokens(ctx context.Context, sessionID string) ([]int, error) {
	var out []int
	err := s.db.WithContext(ctx).Model(&Message{}).Where("session_id = ? AND NOT replaced", sessionID).Order("id").Pluck("tokens", &out).Error
	return out, err
}

// ErrNotReplaceable means a request cannot be retried or edited: its run
// kept no messages this Shrimp can tell apart (an older Shrimp wrote
// them), or they were replaced already.
var ErrNotReplaceable = errors.New("the request cannot be retried or edited")

// ReplaceRuns takes the messages of session's run that started at seq run,
// and every message after them, out of the history the model is sent
// ([Store.Messages]); the record keeps them. It returns how many it took
// out, or an error wrapping [ErrNotReplaceable].
func (s *Store) ReplaceRuns(ctx context.Context, sessionID string, run int64) (int, error) {
	var first *uint
	db := s.db.WithContext(ctx)
	if err := db.Model(&Message{}).Where("session_id = ? AND run = ? AND NOT replaced", sessionID, run).Select("min(id)").Scan(&first).Error; err != nil {
		return 0, fmt.Errorf("messages of run %d of %s: %w", run, sessionID, err)
	}
	if first == nil || run <= 0 {
		return 0, fmt.Errorf("%w: its messages were written by an older Shrimp, or replaced already; send it again as a new request instead", ErrNotReplaceable)
	}
	res := db.Model(&Message{}).Where("session_id = ? AND id >= ? AND NOT replaced", sessionID, *first).UpdateColumn("replaced", true)
	if res.Error != nil {
		return 0, fmt.Errorf("replace run %d of %s: %w", run, sessionID, res.Error)
	}
	return int(res.RowsAffected), nil
}

// IntegrityCheck runs SQLite's integrity_check and returns nil when the
// database is sound, else an error with its first findings.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	var rows []string
	if err := s.db.WithContext(ctx).Raw("PRAGMA integrity_check(20)").Scan(&rows).Error; err != nil {
		// SQLite stops the check itself on pages it cannot read.
		return fmt.Errorf("%s is damaged: the integrity check could not finish: %w", s.path, err)
	}
	if len(rows) == 1 && rows[0] == "ok" {
		return nil
	}
	return fmt.Errorf("%s is damaged: %s", s.path, strings.Join(rows, "; "))
}

// Rewrite passes the stored texts that hold what sessions saw (event data,
// message contents and tool calls, kept outputs, session titles and
// summaries, working-memory notes, runs' requests, and what procedures
// learned from them: triggers, wordings and example arguments) through
// text, or data for JSON text, and saves each row that changed. Derived
// rows keyed by such a text (sentence vectors, declined recalls) are
// deleted when the text changes: they are computed or learned again. Then
// it rewrites the file (VACUUM, and the WAL emptied) so the old texts are
// gone from the disk too. It returns how many rows changed, by table; when
// procedures changed, every procedure's change counter moves on, so a
// procedure index indexes them again when it catches up (a rebuild also
// drops the old words from its files). It is for taking secrets out of
// what an older Shrimp kept.
func (s *Store) Rewrite(ctx context.Context, text, data func(string) string) (map[string]int, error) {
	targets := []struct {
		table string
		cols  []string
		json  []bool
	}{
		{"events", []string{"data"}, []bool{true}},
		{"messages", []string{"content", "thinking", "tool_calls"}, []bool{false, false, true}},
		{"tool_outputs", []string{"content"}, []bool{false}},
		{"sessions", []string{"title"}, []bool{false}},
		{"session_summaries", []string{"text"}, []bool{false}},
		{"working_entries", []string{"value"}, []bool{false}},
		{"run_metrics", []string{"request"}, []bool{false}},
		{"procedures", []string{"\"trigger\"", "triggers", "examples"}, []bool{false, true, true}},
	}
	changed := map[string]int{}
	for _, t := range targets {
		n, err := s.rewriteTable(ctx, t.table, t.cols, t.json, text, data)
		if n > 0 {
			changed[t.table] = n
		}
		if err != nil {
			return changed, fmt.Errorf("rewrite %s: %w", t.table, err)
		}
	}
	for _, d := range []struct {
		table string
		cols  []string
	}{
		{"sentence_vectors", []string{"text"}},
		{"recall_declines", []string{"wording", "request"}},
	} {
		n, err := s.dropRewritten(ctx, d.table, d.cols, text)
		if n > 0 {
			changed[d.table] = n
		}
		if err != nil {
			return changed, fmt.Errorf("rewrite %s: %w", d.table, err)
		}
	}
	if changed["procedures"] > 0 {
		if err := s.db.WithContext(ctx).Exec("UPDATE procedures SET seq = seq + (SELECT max(seq) FROM procedures)").Error; err != nil {
			return changed, fmt.Errorf("mark the rewritten procedures for indexing: %w", err)
		}
	}
	if len(changed) > 0 {
		if err := s.db.WithContext(ctx).Exec("VACUUM").Error; err != nil {
			return changed, fmt.Errorf("compact the database: %w", err)
		}
		if err := s.db.WithContext(ctx).Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
			return changed, fmt.Errorf("empty the write-ahead log: %w", err)
		}
	}
	return changed, nil
}

// dropRewritten deletes the rows of table whose cols text would change.
func (s *Store) dropRewritten(ctx context.Context, table string, cols []string, text func(string) string) (int, error) {
	dropped := 0
	err := s.eachBatch(ctx, table, cols, func(batch []storedRow) error {
		var drop []int64
		for _, r := range batch {
			if slices.ContainsFunc(r.vals, func(v string) bool { return text(v) != v }) {
				drop = append(drop, r.id)
			}
		}
		if len(drop) == 0 {
			return nil
		}
		if err := s.db.WithContext(ctx).Exec("DELETE FROM "+table+" WHERE rowid IN ?", drop).Error; err != nil {
			return err
		}
		dropped += len(drop)
		return nil
	})
	return dropped, err
}

// rewriteTable rewrites cols of table in batches of 500 rows, each batch
// in one transaction.
func (s *Store) rewriteTable(ctx context.Context, table string, cols []string, isJSON []bool, text, data func(string) string) (int, error) {
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = ?"
	}
	q := "UPDATE " + table + " SET " + strings.Join(set, ", ") + " WHERE rowid = ?"
	changed := 0
	err := s.eachBatch(ctx, table, cols, func(batch []storedRow) error {
		var updates []storedRow
		for _, r := range batch {
			u := storedRow{id: r.id}
			differs := false
			for i, old := range r.vals {
				f := text
				if isJSON[i] {
					f = data
				}
				nv := old
				if old != "" {
					nv = f(old)
				}
				differs = differs || nv != old
				u.vals = append(u.vals, nv)
			}
			if differs {
				updates = append(updates, u)
			}
		}
		if len(updates) == 0 {
			return nil
		}
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			for _, u := range updates {
				args := make([]any, 0, len(u.vals)+1)
				for _, v := range u.vals {
					args = append(args, v)
				}
				if err := tx.Exec(q, append(args, u.id)...).Error; err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			changed += len(updates)
		}
		return err
	})
	return changed, err
}

// storedRow is one row's rowid and text columns (NULL read as "").
type storedRow struct {
	id   int64
	vals []string
}

// eachBatch reads cols of table in rowid order, 500 rows at a time, and
// hands each batch to fn; rows fn deletes or changes do not upset the walk.
func (s *Store) eachBatch(ctx context.Context, table string, cols []string, fn func([]storedRow) error) error {
	after := int64(0)
	for {
		rows, err := s.db.WithContext(ctx).Raw("SELECT rowid, "+strings.Join(cols, ", ")+" FROM "+table+" WHERE rowid > ? ORDER BY rowid LIMIT 500", after).Rows()
		if err != nil {
			return err
		}
		var batch []storedRow
		for rows.Next() {
			vals := make([]*string, len(cols))
			dest := []any{&after}
			for i := range vals {
				dest = append(dest, &vals[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return err
			}
			r := storedRow{id: after, vals: make([]string, len(cols))}
			for i, v := range vals {
				if v != nil {
					r.vals[i] = *v
				}
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := fn(batch); err != nil {
				return err
			}
		}
		if len(batch) < 500 {
			return nil
		}
	}
}
