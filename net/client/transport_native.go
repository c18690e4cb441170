//go:build !js

package client

import (
	"context"
	"fmt"
	"net"
)

// tcpUDP is the default Transport: TCP, then UDP to the same address and
// port (1.1).
type tcpUDP struct{}

func (tcpUDP) DialStream(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

func (tcpUDP) DialDatagrams(_ context.Context, stream net.Conn) (net.Conn, error) {
	ta, _ := stream.RemoteAddr().(*net.TCPAddr)
	if ta == nil {
		return nil, fmt.Errorf("cannot open the game's UDP socket: the TCP connection has no IP address")
	}
	udp, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: ta.IP, Port: ta.Port, Zone: ta.Zone})
	if err != nil {
		return nil, fmt.Errorf("cannot open the game's UDP socket to %s: %w", ta, err)
	}
	return udp, nil
}

// dialUDP opens the UDP socket that Rebind moves the session to.
func dialUDP(raddr *net.UDPAddr) (*net.UDPConn, error) {
	return net.DialUDP("udp", nil, raddr)
}
