// Package portmap asks a home router for a UDP (or TCP) port mapping, so
// that a game hosted behind it is reachable from the internet (issue 29,
// the "mapped" path; TCP for the game's page, which browsers load): NAT-PMP (RFC 6886, github.com/jackpal/go-nat-pmp) first,
// UPnP IGD (github.com/huin/goupnp) when the router does not speak it.
// Keep maps a port, renews the mapping and removes it at the end.
package portmap

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/huin/goupnp/dcps/internetgateway2"
	natpmp "github.com/jackpal/go-nat-pmp"
)

// Method is how a mapping was made.
type Method string

// The methods.
const (
	NATPMP Method = "NAT-PMP"
	UPnP   Method = "UPnP"
)

// Config configures the mappings.
type Config struct {
	// Gateway is the router. Default: the default route's gateway
	// (Linux: /proc/net/route).
	Gateway netip.Addr
	// Lifetime is the lifetime asked for a mapping; Keep renews it at
	// half. Default 10 minutes.
	Lifetime time.Duration
	// Timeout bounds each method's attempt. Default 3 s.
	Timeout time.Duration
	// Description names the mapping in the router's table (UPnP).
	// Default "rtype".
	Description string
	// Methods are the methods tried, in order. Default NAT-PMP, then
	// UPnP.
	Methods []Method
	// Logger logs. Default slog.Default().
	Logger *slog.Logger
	// TCP maps a TCP port instead of a UDP one.
	TCP bool
}

// proto is the protocol's name for NAT-PMP ("udp", "tcp"); UPnP's is in
// capitals.
func (c *Config) proto() string {
	if c.TCP {
		return "tcp"
	}
	return "udp"
}

func (c *Config) defaults() error {
	if c.Lifetime <= 0 {
		c.Lifetime = 10 * time.Minute
	}
	if c.Timeout <= 0 {
		c.Timeout = 3 * time.Second
	}
	if c.Description == "" {
		c.Description = "rtype"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if len(c.Methods) == 0 {
		c.Methods = []Method{NATPMP, UPnP}
	}
	if !c.Gateway.IsValid() {
		gw, err := DefaultGateway()
		if err != nil {
			return err
		}
		c.Gateway = gw
	}
	return nil
}

// Mapping is a port mapping of the router.
type Mapping struct {
	// External is the mapping's address on the internet.
	External netip.AddrPort
	// Internal is the mapped local port.
	Internal uint16
	// Method is how it was made.
	Method Method
	// Lifetime is what the router granted.
	Lifetime time.Duration

	cfg  Config
	igd  igd // UPnP's
	self string
}

// igd is a UPnP WANIPConnection service (version 1 or 2).
type igd interface {
	AddPortMappingCtx(ctx context.Context, remoteHost string, externalPort uint16, protocol string,
		internalPort uint16, internalClient string, enabled bool, description string, lease uint32) error
	DeletePortMappingCtx(ctx context.Context, remoteHost string, externalPort uint16, protocol string) error
	GetExternalIPAddressCtx(ctx context.Context) (string, error)
}

// Map asks the router to map UDP (Config.TCP: TCP) port internal of this
// machine, on the same external port when it can.
func Map(ctx context.Context, cfg Config, internal uint16) (*Mapping, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var errs []error
	for _, how := range cfg.Methods {
		var m *Mapping
		var err error
		switch how {
		case NATPMP:
			m, err = mapPMP(cfg, internal)
		case UPnP:
			m, err = mapUPnP(ctx, cfg, internal)
		default:
			err = errors.New("unknown method")
		}
		if err == nil {
			return m, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", how, err))
	}
	return nil, fmt.Errorf("portmap: %w", errors.Join(errs...))
}

func mapPMP(cfg Config, internal uint16) (*Mapping, error) {
	c := natpmp.NewClientWithTimeout(net.IP(cfg.Gateway.AsSlice()), cfg.Timeout)
	ext, err := c.GetExternalAddress()
	if err != nil {
		return nil, err
	}
	r, err := c.AddPortMapping(cfg.proto(), int(internal), int(internal), int(cfg.Lifetime/time.Second))
	if err != nil {
		return nil, err
	}
	return &Mapping{External: netip.AddrPortFrom(netip.AddrFrom4(ext.ExternalIPAddress), r.MappedExternalPort),
		Internal: internal, Method: NATPMP, Lifetime: time.Duration(r.PortMappingLifetimeInSeconds) * time.Second, cfg: cfg}, nil
}

func mapUPnP(ctx context.Context, cfg Config, internal uint16) (*Mapping, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	self, err := localAddr(cfg.Gateway)
	if err != nil {
		return nil, err
	}
	var svcs []igd
	if cs, _, err := internetgateway2.NewWANIPConnection2ClientsCtx(ctx); err == nil {
		for _, c := range cs {
			svcs = append(svcs, c)
		}
	}
	if len(svcs) == 0 {
		if cs, _, err := internetgateway2.NewWANIPConnection1ClientsCtx(ctx); err == nil {
			for _, c := range cs {
				svcs = append(svcs, c)
			}
		}
	}
	if len(svcs) == 0 {
		return nil, errors.New("no internet gateway device found")
	}
	var errs []error
	for _, s := range svcs {
		ip, err := s.GetExternalIPAddressCtx(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ext, err := netip.ParseAddr(ip)
		if err != nil {
			errs = append(errs, fmt.Errorf("external address %q: %w", ip, err))
			continue
		}
		err = s.AddPortMappingCtx(ctx, "", internal, strings.ToUpper(cfg.proto()), internal, self.String(), true, cfg.Description,
			uint32(cfg.Lifetime/time.Second))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return &Mapping{External: netip.AddrPortFrom(ext.Unmap(), internal), Internal: internal, Method: UPnP,
			Lifetime: cfg.Lifetime, cfg: cfg, igd: s, self: self.String()}, nil
	}
	return nil, errors.Join(errs...)
}

// Renew asks for the mapping again; the router may give another port.
func (m *Mapping) Renew(ctx context.Context) error {
	var n *Mapping
	var err error
	switch m.Method {
	case NATPMP:
		n, err = mapPMP(m.cfg, m.Internal)
	default:
		ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		defer cancel()
		err = m.igd.AddPortMappingCtx(ctx, "", m.External.Port(), strings.ToUpper(m.cfg.proto()), m.Internal, m.self, true, m.cfg.Description,
			uint32(m.cfg.Lifetime/time.Second))
		if err == nil {
			return nil
		}
	}
	if err != nil {
		return err
	}
	m.External, m.Lifetime = n.External, n.Lifetime
	return nil
}

// Delete removes the mapping.
func (m *Mapping) Delete(ctx context.Context) error {
	if m.Method == NATPMP {
		c := natpmp.NewClientWithTimeout(net.IP(m.cfg.Gateway.AsSlice()), m.cfg.Timeout)
		_, err := c.AddPortMapping(m.cfg.proto(), int(m.Internal), 0, 0)
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	return m.igd.DeletePortMappingCtx(ctx, "", m.External.Port(), strings.ToUpper(m.cfg.proto()))
}

// Keep maps UDP (Config.TCP: TCP) port internal and keeps the mapping until ctx ends, then
// removes it. It calls change with the mapping's address every time it
// changes (the zero address when it is lost), and returns the first
// mapping's error, or nil once ctx ended.
func Keep(ctx context.Context, cfg Config, internal uint16, change func(netip.AddrPort, Method)) error {
	m, err := Map(ctx, cfg, internal)
	if err != nil {
		return err
	}
	log := m.cfg.Logger
	change(m.External, m.Method)
	log.Info("port mapped", "method", string(m.Method), "protocol", m.cfg.proto(), "external", m.External.String(), "internal", internal,
		"lifetime", m.Lifetime)
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), m.cfg.Timeout)
		defer cancel()
		if err := m.Delete(dctx); err != nil {
			log.Warn("port mapping not removed", "method", string(m.Method), "err", err)
		} else {
			log.Info("port mapping removed", "method", string(m.Method), "protocol", m.cfg.proto(), "external", m.External.String())
		}
	}()
	for {
		every := max(m.Lifetime/2, 10*time.Second)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
		was := m.External
		if err := m.Renew(ctx); err != nil {
			log.Warn("port mapping not renewed", "method", string(m.Method), "err", err)
			if was.IsValid() {
				change(netip.AddrPort{}, m.Method)
			}
			m.External = netip.AddrPort{}
			continue
		}
		if m.External != was {
			change(m.External, m.Method)
		}
	}
}

// DefaultGateway returns the gateway of the default IPv4 route (Linux).
func DefaultGateway() (netip.Addr, error) {
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return netip.Addr{}, fmt.Errorf("portmap: no default gateway: %w", err)
	}
	defer f.Close()
	return parseRoutes(f)
}

// parseRoutes reads /proc/net/route's table: the gateway of the
// destination 0.0.0.0.
func parseRoutes(f interface{ Read([]byte) (int, error) }) (netip.Addr, error) {
	s := bufio.NewScanner(f)
	for s.Scan() {
		fs := strings.Fields(s.Text())
		if len(fs) < 3 || fs[1] != "00000000" {
			continue
		}
		b, err := hex.DecodeString(fs[2])
		if err != nil || len(b) != 4 {
			continue
		}
		var a [4]byte
		binary.LittleEndian.PutUint32(a[:], binary.BigEndian.Uint32(b))
		if gw := netip.AddrFrom4(a); !gw.IsUnspecified() {
			return gw, nil
		}
	}
	return netip.Addr{}, errors.New("portmap: no default gateway")
}

// localAddr returns this machine's address toward gw.
func localAddr(gw netip.Addr) (netip.Addr, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(gw, 9)))
	if err != nil {
		return netip.Addr{}, err
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(), nil
}
