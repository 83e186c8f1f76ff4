package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/shrimp-harness/shrimp/backend/agent"
)

// SettingMaxTurns is the saved turn limit: the model turns one request
// may take (Settings in the window; "" for DefaultMaxTurns).
const SettingMaxTurns = "max_turns"

// MaxTurnsEnv, when set, is the turn limit over Settings.
const MaxTurnsEnv = "SHRIMP_MAX_TURNS"

// DefaultMaxTurns is the turn limit when none is set (the loop's own).
const DefaultMaxTurns = agent.DefaultMaxTurns

// MostTurns is the largest turn limit taken: a request of more turns is
// better split, and a model in a loop would run for hours on a CPU.
const MostTurns = 500

// ParseMaxTurns reads a turn limit: a whole number from 3 to MostTurns
// ("" is 0: the default).
func ParseMaxTurns(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, turnsError(s)
	}
	if err := checkTurns(n); err != nil {
		return 0, err
	}
	return n, nil
}

// checkTurns refuses a turn limit outside 3 to MostTurns.
func checkTurns(n int) error {
	if n < 3 || n > MostTurns {
		return turnsError(strconv.Itoa(n))
	}
	return nil
}

func turnsError(s string) error {
	return fmt.Errorf("the turn limit %q is not a whole number of model turns from 3 to %d: give for example 50", s, MostTurns)
}

// MaxTurns is the turn limit a request runs with when it gives none:
// $SHRIMP_MAX_TURNS, else Settings, else DefaultMaxTurns. A value that
// cannot be read is an error naming where it came from.
func (a *App) MaxTurns(ctx context.Context) (int, error) {
	if v := os.Getenv(MaxTurnsEnv); v != "" {
		n, err := ParseMaxTurns(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", MaxTurnsEnv, err)
		}
		return n, nil
	}
	v, err := a.Store.Setting(ctx, SettingMaxTurns)
	if err != nil {
		return 0, err
	}
	n, _ := ParseMaxTurns(v) // checked when it was set
	return cmp.Or(n, DefaultMaxTurns), nil
}

// SetMaxTurns saves the turn limit (0: back to DefaultMaxTurns).
func (a *App) SetMaxTurns(ctx context.Context, n int) error {
	v := ""
	if n != 0 {
		if err := checkTurns(n); err != nil {
			return err
		}
		v = strconv.Itoa(n)
	}
	return a.Store.SetSetting(ctx, SettingMaxTurns, v)
}
