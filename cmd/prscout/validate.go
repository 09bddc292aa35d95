package main

import (
	"fmt"
	"io"
)

// runValidateWorkflow is replaced by the gate work (issue: validate-workflow).
func runValidateWorkflow(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "validate-workflow: not built yet")
	return 2
}
