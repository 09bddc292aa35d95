package pipeline

import "flag"

// update rewrites the golden files under testdata/ (context, needs, merge,
// comments): go test ./pipeline -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")
