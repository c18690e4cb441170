package main

import (
	"io"
	"testing"
)

// TestRendezvousFlags: -rendezvous takes host[:port] (4250 when none) or
// off, -portmap its four values; anything else is refused, naming the
// flag.
func TestRendezvousFlags(t *testing.T) {
	for _, c := range []struct {
		args           []string
		rendezvous, pm string
	}{
		{[]string{"-host"}, "", "auto"},
		{[]string{"-host", "-rendezvous", "11.0.0.1:4250"}, "11.0.0.1:4250", "auto"},
		{[]string{"-host", "-rendezvous", "rv.example.org", "-portmap", "upnp"}, "rv.example.org:4250", "upnp"},
		{[]string{"-rendezvous", "off", "-portmap", "off"}, "off", "off"},
	} {
		opt, _, err := parseFlags(c.args, io.Discard)
		if err != nil || opt.Rendezvous != c.rendezvous || opt.PortMap != c.pm {
			t.Errorf("%q: rendezvous %q, portmap %q, %v; want %q, %q", c.args, opt.Rendezvous, opt.PortMap, err, c.rendezvous, c.pm)
		}
	}
	for _, args := range [][]string{{"-rendezvous", "http://rv/"}, {"-rendezvous", "rv:0"}, {"-portmap", "pcp"}} {
		if _, _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
