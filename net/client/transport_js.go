//go:build js

package client

import (
	"context"
	"errors"
	"net"
)

// errNoSockets is the error of the default transport in a browser, which
// has neither TCP nor UDP. Leaving the sockets out of the browser's build
// also leaves out package net's dialer and resolver, some 140 KB of the
// served wasm.
var errNoSockets = errors.New("client: a browser has no TCP or UDP sockets: set Config.Transport (WebTransport)")

// tcpUDP is the default Transport, which a browser does not have.
type tcpUDP struct{}

func (tcpUDP) DialStream(context.Context, string) (net.Conn, error) { return nil, errNoSockets }

func (tcpUDP) DialDatagrams(context.Context, net.Conn) (net.Conn, error) { return nil, errNoSockets }

// dialUDP is Rebind's socket, which a browser does not have.
func dialUDP(*net.UDPAddr) (*net.UDPConn, error) { return nil, errNoSockets }
