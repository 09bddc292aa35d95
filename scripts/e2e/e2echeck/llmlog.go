package main

import (
	"bufio"
	"encoding/json"
	"os"
)

// llmCall is one request of the fake LLM's log.
type llmCall struct {
	Kind   string `json:"kind"`
	PR     int    `json:"pr"`
	Part   string `json:"part"`
	Model  string `json:"model"`
	AuthOK bool   `json:"authOk"`
	User   string `json:"user"`
	System string `json:"system"`
	Status int    `json:"status"`
}

// llmCalls reads the fake LLM's log entries for pull request pr (-1: all).
func llmCalls(c *checker, path string, pr int) []llmCall {
	f, err := os.Open(path)
	if err != nil {
		c.check(false, "read LLM log: %v", err)
		return nil
	}
	defer f.Close()
	var out []llmCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e llmCall
		if json.Unmarshal(sc.Bytes(), &e) == nil && (pr < 0 || e.PR == pr) {
			out = append(out, e)
		}
	}
	return out
}

func llmPrompt(c *checker, path string, pr int, kind string) string {
	f, err := os.Open(path)
	if err != nil {
		c.check(false, "read LLM log: %v", err)
		return ""
	}
	defer f.Close()
	var prompt string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Kind   string `json:"kind"`
			PR     int    `json:"pr"`
			AuthOK bool   `json:"authOk"`
			User   string `json:"user"`
			System string `json:"system"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Kind == kind && e.PR == pr {
			c.check(e.AuthOK, "the %s LLM call carried the LLM credential's key", kind)
			prompt = e.System + "\n" + e.User
		}
	}
	c.check(prompt != "", "the fake LLM received a %s request for PR %d", kind, pr)
	return prompt
}
