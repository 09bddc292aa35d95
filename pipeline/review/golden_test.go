package review

import "flag"

// update rewrites the golden files under testdata/: go test ./pipeline/review -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")
