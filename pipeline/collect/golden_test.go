package collect

import "flag"

// update rewrites the golden files under testdata/: go test ./pipeline/collect -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")
