package main

import (
	"flag"
	"fmt"

	"rtype/net/discovery"
	"rtype/server"
)

// discoveryFlags are the flags of LAN discovery (PROTOCOL.md section 8).
type discoveryFlags struct {
	listen       *string
	name         *string
	nameFromHost *bool
}

// addDiscoveryFlags registers -discovery-listen, -name and -name-from-host.
func addDiscoveryFlags() discoveryFlags {
	return discoveryFlags{
		listen: flag.String("discovery-listen", fmt.Sprintf(":%d", discovery.Port),
			`UDP address that answers LAN discovery queries (the game port's neighbour, 4243, by default); "" answers none`),
		name:         flag.String("name", "", "the server's name in LAN discovery answers, at most 35 bytes (default none: the join screens show the address)"),
		nameFromHost: flag.Bool("name-from-host", false, "with no -name, answer LAN discovery with the machine's host name"),
	}
}

// apply sets the discovery fields of cfg.
func (f discoveryFlags) apply(cfg *server.Config) {
	cfg.Discovery, cfg.Name, cfg.NameFromHost = *f.listen, *f.name, *f.nameFromHost
}
