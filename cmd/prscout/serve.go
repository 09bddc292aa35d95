package main

import (
	"fmt"
	"io"
)

// runServe is written by the lead (config, wiring, graceful shutdown).
func runServe(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "serve: not built yet")
	return 2
}
