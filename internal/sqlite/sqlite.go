// Package sqlite opens SQLite databases for GORM (pure Go, through
// github.com/glebarez/sqlite) with the settings a desktop app that must not
// lose data needs, all in the connection string so every pooled connection
// gets them: WAL journal, synchronous(FULL), a busy timeout, foreign keys,
// and immediate transactions (writers take the lock at BEGIN, so two
// writers queue instead of failing on upgrade).
package sqlite

import (
	"fmt"
	"net/url"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DSN returns the connection string for the database file at path.
func DSN(path string) string {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(5000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path.
func Open(path string) (*gorm.DB, error) {
	db, err := gorm.Open(sqlite.Open(DSN(path)), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// One writer at a time is SQLite's rule anyway; a few readers may run
	// beside it under WAL.
	sqlDB.SetMaxOpenConns(4)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	var mode string
	if err := db.Raw("PRAGMA journal_mode").Scan(&mode).Error; err != nil {
		return nil, fmt.Errorf("open database %s: %w (is it a SQLite file? move it away to start fresh)", path, err)
	}
	return db, nil
}
