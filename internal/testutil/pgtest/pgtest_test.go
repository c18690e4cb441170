package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Server serves on its port as a user that is not root, in a directory
// of that user's; Stop leaves no process of its group and no directory.
func TestStartStop(t *testing.T) {
	var sh Shared
	srv := sh.Get(t) // skips without PostgreSQL, as the tests that use it
	pid := srv.cmd.Process.Pid
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			srv.Stop()
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.NewSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	var user, schema, enc string
	if err := conn.QueryRow(ctx, "SELECT current_user, current_schema(), current_setting('server_encoding')").Scan(&user, &schema, &enc); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if user != User || schema != "test1" || enc != "UTF8" {
		t.Errorf("connected as %q in schema %q, encoding %s: want %s, test1, UTF8", user, schema, enc, User)
	}

	var st syscall.Stat_t
	if err := syscall.Stat(fmt.Sprintf("/proc/%d", pid), &st); err != nil {
		t.Fatal(err)
	}
	var data syscall.Stat_t
	if err := syscall.Stat(filepath.Join(srv.dir, "data"), &data); err != nil {
		t.Fatal(err)
	}
	if st.Uid == 0 || data.Uid != st.Uid {
		t.Errorf("the server runs as uid %d, its data directory is uid %d's: want one user, not root", st.Uid, data.Uid)
	}

	if err := sh.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Stop, the server's process group %d: %v, want none (ESRCH)", pid, err)
	}
	if _, err := os.Stat(srv.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Stop, %s: %v, want it removed", srv.dir, err)
	}
}
