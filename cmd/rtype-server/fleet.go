package main

import (
	"flag"
	"fmt"
	"log/slog"

	"rtype/server"
	"rtype/server/fleet"
)

// fleetFlags are the flags of a fleet's shared rooms (PROTOCOL.md 7.18).
type fleetFlags struct {
	redis, public, prefix *string
}

func addFleetFlags() fleetFlags {
	return fleetFlags{
		redis: flag.String("redis", "", "Redis address (host:port) shared by the servers of a fleet: room codes and quick join "+
			"resolve across them (default none: a single server)"),
		public: flag.String("public-addr", "", "with -redis, the host:port other servers send players to "+
			"(default: -listen's address, or the host name with -listen's port when -listen names no host)"),
		prefix: flag.String("redis-prefix", "rtype:", "with -redis, the prefix of the fleet's keys (one per fleet sharing a Redis)"),
	}
}

// apply sets cfg.Fleet from the flags; the registry is nil without
// -redis. The caller closes it.
func (f fleetFlags) apply(cfg *server.Config, log *slog.Logger) (*fleet.Registry, error) {
	if *f.redis == "" {
		if *f.public != "" {
			return nil, fmt.Errorf("-public-addr needs -redis")
		}
		return nil, nil
	}
	reg, err := fleet.New(fleet.Config{Redis: *f.redis, PublicAddr: *f.public, Prefix: *f.prefix, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("-redis %s -public-addr %q: %w", *f.redis, *f.public, err)
	}
	cfg.Fleet = reg
	return reg, nil
}
