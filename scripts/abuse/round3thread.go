package main

// The thread and sanitizer classes of the third hardening round: one
// question in a finding's thread over a huge file. Each prints what it cost
// (time, peak RSS) against the per-request bounds below.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prscout/prscout/bitbucket/bitbuckettest"
	"github.com/prscout/prscout/pipeline/marker"
)

var threadOnly = flag.Bool("thread-only", false, "run only the third round's thread classes (round3thread.go)")

// Per-request bounds of the third round's timing and memory shapes.
const (
	round3MaxTime  = 5500 * time.Millisecond
	round3MaxRSSMB = 300
)

// threadRound3Only runs the third round's thread shapes alone (-thread-only)
// and returns the exit code.
func threadRound3Only(bin string) int {
	work, err := os.MkdirTemp("", "prscout-abuse-")
	must(err)
	defer os.RemoveAll(work)
	threadRound3(bin, work)
	return min(1, int(failures.Load()))
}

// threadRound3 runs the third round's thread shapes on a fake Bitbucket.
func threadRound3(bin, work string) {
	threadFindCode(bin, work)
}

// threadFindCode: a finding anchored on 1,000 lines, then a push making its
// file 1,000,000 short lines; a question in the finding's thread must not
// hash a 1,000-line window at every line.
func threadFindCode(bin, work string) {
	fake := bitbuckettest.NewServer()
	defer fake.Close()
	h1, h2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	fake.AddCommit("acme", "app", h1)
	fake.AddCommit("acme", "app", h2, h1)
	var file strings.Builder
	for i := 0; i < 1_000_000; i++ {
		file.WriteString("x;\n")
	}
	fake.SetFile("acme", "app", h2, "a.go", []byte(file.String()))
	fake.AddPullRequest("acme", "app", bitbuckettest.PullRequest{ID: 1, Title: "abuse", SourceCommit: h2, DestinationCommit: h1})
	anchor := make([]string, 1000)
	for i := range anchor {
		anchor[i] = fmt.Sprintf("v%d := f(%d)", i, i)
	}
	fp := "0123456789abcdef"
	self := bitbuckettest.DefaultAccountID
	fake.AddComment("acme", "app", 1, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Body: "summary\n\n" + marker.ReviewMarker(h1) + "\n\n" +
		marker.FindingDataLine(marker.FindingData{Fingerprint: fp, State: marker.StateOpen, Path: "a.go", Line: 1, Severity: "high",
			CodeHash: marker.CodeHash(anchor), CodeLines: len(anchor)})})
	one, last := 1, 1000
	root := fake.AddComment("acme", "app", 1, bitbuckettest.Comment{AccountID: self, Author: "prscout bot", Path: "a.go", StartTo: &one, To: &last,
		Body: "**High** · x\n\nbody\n\n" + marker.FindingMarker(fp)})
	q := fake.AddComment("acme", "app", 1, bitbuckettest.Comment{Author: "Mina", Parent: &root, Body: "Why is this a problem?"})
	p := bbServer(bin, fake, filepath.Join(work, "findcode-mirror"), "")
	defer p.stop()

	start := time.Now()
	stop := peakRSS(p.cmd.Process.Pid)
	a := callOn(p, "POST", "/v1/thread", map[string]any{"workspace": "acme", "repoSlug": "app", "prId": 1, "commentId": q})
	took, peak := time.Since(start), stop()
	var res struct {
		Action  string `json:"action"`
		Finding struct {
			CodeChanged string `json:"codeChanged"`
		} `json:"finding"`
	}
	_ = json.Unmarshal(a.body, &res)
	report(a.code == 200 && res.Action == "answer" && took <= round3MaxTime && peak <= round3MaxRSSMB && p.alive(), "thread-findcode",
		"question over a 1,000-line anchor in a 1,000,000-line file: %s, action %s, codeChanged %s, in %s (at most %s), peak RSS %d MB (at most %d)",
		a, res.Action, res.Finding.CodeChanged, round(took), round3MaxTime, peak, round3MaxRSSMB)
}
