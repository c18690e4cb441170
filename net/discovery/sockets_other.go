//go:build !js

package discovery

// noUDP is true in a browser, which has no UDP (sockets_js.go).
const noUDP = false
