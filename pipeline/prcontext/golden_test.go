package prcontext

import "flag"

// update rewrites the golden files under testdata/: go test ./pipeline/prcontext -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")
