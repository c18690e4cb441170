// Command rtype is the game: host a game on this machine or join one.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "rtype: the game client is not built yet; run bin/rtype-server and bin/rtype-bot meanwhile")
	os.Exit(1)
}
