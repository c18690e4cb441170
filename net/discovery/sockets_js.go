//go:build js

package discovery

// noUDP: a browser has no UDP, so NewQuerier fails at once. Being a
// constant, it also leaves package net's resolver out of the browser's
// build.
const noUDP = true
