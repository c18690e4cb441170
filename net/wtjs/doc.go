// Package wtjs is the client.Transport of the browser: the session's
// stream and datagrams over the browser's WebTransport API (PROTOCOL.md,
// "WebTransport binding"), through syscall/js.
//
// Memory stays bounded whatever the server sends: a Read copies at most
// len(p) bytes out of the chunk the browser handed over, and the next
// chunk is asked for only once this one is used up, so the browser's own
// flow control holds what the game has not read yet. Datagrams beyond
// the browser's queue are dropped, as UDP drops them.
package wtjs
