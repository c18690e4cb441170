// Package e2e holds the end-to-end tests of the headless game: the real
// server, real clients and bots, over real sockets on 127.0.0.1, with the
// impairment relay in between where a test needs a bad network. It has no
// code of its own.
package e2e
