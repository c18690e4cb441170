// Package testserver starts a real game server for a test: server.New on
// 127.0.0.1 port 0, Run until the test ends. It is apart from package
// testutil because it imports package server, whose own tests use
// testutil.
package testserver

import (
	"testing"

	"rtype/internal/testutil"
	"rtype/net/wire"
	"rtype/server"
)

// Start runs a server.Server on 127.0.0.1 port 0 (TCP and UDP) until the
// test ends; the cleanup stops it and waits for Run to return. cfg.Listen
// is ignored; a nil cfg.Logger becomes testutil.Logger(t); a zero
// cfg.Mode becomes wire.ModeClassic, so that the v1 and v2 clients of a
// test share the game of Part I as before Stage mode (a test of Stage
// mode sets cfg.Mode, or its clients ask for wire.ModeStage). A zero
// cfg.MaxTickLoad becomes 1, no back-pressure: under -race on a loaded
// machine a few games' ticks can pass the default's duty cycle, and a
// test that is not about back-pressure must not see logins refused for
// it. The other defaults are the server's: a test whose clients log in
// more than 5 times in 10 s from 127.0.0.1 raises cfg.LoginLimit.
func Start(t testing.TB, cfg server.Config) *server.Server {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	if cfg.MaxTickLoad == 0 {
		cfg.MaxTickLoad = 1
	}
	if cfg.Mode == wire.ModeAny {
		cfg.Mode = wire.ModeClassic
	}
	if cfg.Logger == nil {
		cfg.Logger = testutil.Logger(t)
	}
	return testutil.Start(t, server.New, cfg)
}
