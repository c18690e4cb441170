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
	conns, connsPerIP *int // 0: server.Config's defaults
}

// addWebTransportFlags registers -webtransport, -tls-cert, -tls-key,
// -max-webtransport-conns and -max-webtransport-conns-per-ip.
func addWebTransportFlags() webTransportFlags {
	return webTransportFlags{
		listen: flag.String("webtransport", "",
			`UDP address of the WebTransport binding for browsers (HTTP/3, session URL https://HOST:PORT/rtype), a port of its own such as ":4244"; "" serves none`),
		cert: flag.String("tls-cert", "",
			"PEM certificate (chain) of the WebTransport binding; default: short-lived self-made certificates, trusted by their published hashes"),
		key: flag.String("tls-key", "", "PEM private key of -tls-cert"),
		conns: flag.Int("max-webtransport-conns", 0,
			"QUIC connections of the WebTransport binding at once; more are refused at their first packet (PROTOCOL.md 9.5); 0: the players and logins the server takes (96 by default)"),
		connsPerIP: flag.Int("max-webtransport-conns-per-ip", 0,
			"QUIC connections of the WebTransport binding from one IP address; 0: the players and logins an address may have (16 by default)"),
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
	if f.conns != nil && f.connsPerIP != nil {
		if *f.conns < 0 || *f.connsPerIP < 0 {
			return fmt.Errorf("-max-webtransport-conns and -max-webtransport-conns-per-ip take 0 (the default) or more")
		}
		cfg.MaxWebTransportConns, cfg.MaxWebTransportConnsPerIP = *f.conns, *f.connsPerIP
	}
	return nil
}
