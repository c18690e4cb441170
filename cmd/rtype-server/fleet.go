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
	redis, public, prefix, keyFile *string
	insecure                       *bool
}

func addFleetFlags() fleetFlags {
	return fleetFlags{
		redis: flag.String("redis", "", "Redis shared by the servers of a fleet: room codes and quick join resolve across them; "+
			"a URL, redis://[user:password@]host:port[/db] (rediss:// for TLS), or its short form host:port "+
			"(default none: a single server)"),
		public: flag.String("public-addr", "", "with -redis, the host:port other servers send players to "+
			"(default: -listen's address, or the host name with -listen's port when -listen names no host)"),
		prefix: flag.String("redis-prefix", "rtype:", "with -redis, the prefix of the fleet's keys (one per fleet sharing a Redis)"),
		keyFile: flag.String("fleet-key-file", "", fmt.Sprintf("with -redis, a file holding the fleet key, a secret of at least %d bytes "+
			"shared by the fleet's servers: they sign what they publish in Redis and follow only what verifies", fleet.MinKeyLen)),
		insecure: flag.Bool("fleet-insecure", false, "with -redis and no -fleet-key-file, publish and trust unsigned entries: "+
			"whoever can write to the Redis chooses where players are redirected"),
	}
}

// apply sets cfg.Fleet from the flags; the registry is nil without
// -redis. The caller closes it. -redis needs -fleet-key-file, or
// -fleet-insecure to do without.
func (f fleetFlags) apply(cfg *server.Config, log *slog.Logger) (*fleet.Registry, error) {
	if *f.redis == "" {
		switch {
		case *f.public != "":
			return nil, fmt.Errorf("-public-addr needs -redis")
		case *f.keyFile != "" || *f.insecure:
			return nil, fmt.Errorf("-fleet-key-file and -fleet-insecure need -redis")
		}
		return nil, nil
	}
	var key []byte
	switch {
	case *f.keyFile != "" && *f.insecure:
		return nil, fmt.Errorf("-fleet-key-file and -fleet-insecure: choose one")
	case *f.keyFile != "":
		var err error
		if key, err = fleet.ReadKey(*f.keyFile); err != nil {
			return nil, fmt.Errorf("-fleet-key-file: %w", err)
		}
	case !*f.insecure:
		return nil, fmt.Errorf("-redis needs -fleet-key-file (a secret of at least %d bytes shared by the fleet's servers, "+
			"e.g. head -c 32 /dev/urandom | base64 > fleet.key), or -fleet-insecure to trust whoever can write to the Redis",
			fleet.MinKeyLen)
	}
	reg, err := fleet.New(fleet.Config{Redis: *f.redis, Key: key, PublicAddr: *f.public, Prefix: *f.prefix, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("-redis -public-addr %q: %w", *f.public, err)
	}
	cfg.Fleet = reg
	return reg, nil
}
