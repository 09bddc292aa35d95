// Command fakebitbucket serves the bitbuckettest fake Bitbucket on loopback
// for the ops scripts: one repository (acme/app) with one commit holding
// slow1.go ... slowN.go, where every source request (get_src) waits -delay
// first, and every pull request request answers 404 after -pr-delay.
// prscout pointed at it has a stage that runs long for certain: a
// batch lookup of one file takes two source requests (meta and content).
// It prints "BASE_URL=<api root>" and "COMMIT=<id>" and runs until SIGINT or
// SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

func main() {
	delay := flag.Duration("delay", 2500*time.Millisecond, "wait before answering each source request")
	files := flag.Int("files", 20, "number of slow files")
	prDelay := flag.Duration("pr-delay", 3*time.Second, "wait before answering 404 to every pull request request (a stage that fails late)")
	flag.Parse()

	s := bitbuckettest.NewServer()
	defer s.Close()
	s.AddCommit("acme", "app", commit)
	s.SetBranch("acme", "app", "main", commit)
	for i := 1; i <= *files; i++ {
		s.SetFile("acme", "app", commit, fmt.Sprintf("slow%d.go", i), []byte(fmt.Sprintf("package slow\n\nconst N = %d\n", i)))
	}
	if *delay > 0 {
		s.Fail(bitbuckettest.OpGetSrc, bitbuckettest.Fault{Delay: *delay, Times: 1 << 30})
	}
	if *prDelay > 0 {
		s.Fail(bitbuckettest.OpGetPullRequest, bitbuckettest.Fault{Status: 404, Delay: *prDelay, Times: 1 << 30})
	}
	fmt.Printf("BASE_URL=%s\nCOMMIT=%s\n", s.BaseURL, commit)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
