package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/prscout/prscout/pipeline/candidates"
)

// one prints the candidates of one commit of a clone, checked out at that
// commit already: the engine's view of a commit the recall run lists.
func one(args []string) int {
	fs := flag.NewFlagSet("one", flag.ContinueOnError)
	repo := fs.String("repo", "", "a clone checked out at -sha")
	sha := fs.String("sha", "", "the commit")
	if err := fs.Parse(args); err != nil || *repo == "" || *sha == "" {
		fmt.Fprintln(os.Stderr, "usage: candidates one -repo DIR -sha SHA")
		return 2
	}
	changes, err := loadChanges(*repo, *sha)
	if err != nil {
		fmt.Fprintln(os.Stderr, "one:", err)
		return 1
	}
	got, err := candidates.Find(context.Background(), gitTree{*repo}, changes, candidates.Options{Max: oneMax()})
	if cut := (*candidates.CutError)(nil); errors.As(err, &cut) {
		fmt.Fprintln(os.Stderr, "one:", err) // what was found is listed
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "one:", err)
		return 1
	}
	for i, c := range got {
		fmt.Printf("%2d %.3f %-6s %s: %s\n", i+1, c.Score, c.Kind, c.Path, c.Reason)
	}
	return 0
}

// oneMax is the number of candidates one prints: $ONE_MAX, else the default.
func oneMax() int {
	n, _ := strconv.Atoi(os.Getenv("ONE_MAX"))
	return n
}
