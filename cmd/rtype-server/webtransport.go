package main

import (
	"flag"
	"fmt"

	"rtype/server"
)

// webTransportFlags are the flags of the WebTransport binding (PROTOCOL.md
// Part IV).
type webTransportFlags struct {
	listen, cert, key *string
}

// addWebTransportFlags registers -webtransport, -tls-cert and -tls-key.
func addWebTransportFlags() webTransportFlags {
	return webTransportFlags{
		listen: flag.String("webtransport", "",
			`UDP address of the WebTransport binding for browsers (HTTP/3, session URL https://HOST:PORT/rtype), a port of its own such as ":4244"; "" serves none`),
		cert: flag.String("tls-cert", "",
			"PEM certificate (chain) of the WebTransport binding; default: short-lived self-made certificates, trusted by their published hashes"),
		key: flag.String("tls-key", "", "PEM private key of -tls-cert"),
	}
}

// apply sets the WebTransport fields of cfg.
func (f webTransportFlags) apply(cfg *server.Config) error {
	if (*f.cert == "") != (*f.key == "") {
		return fmt.Errorf("-tls-cert and -tls-key go together")
	}
	if *f.cert != "" && *f.listen == "" {
		return fmt.Errorf("-tls-cert is for the WebTransport binding: give -webtransport too")
	}
	cfg.WebTransportAddr, cfg.TLSCert, cfg.TLSKey = *f.listen, *f.cert, *f.key
	return nil
}
