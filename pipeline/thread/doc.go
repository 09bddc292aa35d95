// Package thread is the /v1/thread and /v1/thread/answer stages: it reads a
// comment event on a pull request, guards against answering itself, carries
// out a command ("prscout pause", "full review", "dismiss", ...) with its
// reply, or turns a question under a finding into one answer prompt whose
// model answer it checks and renders for posting in the thread.
package thread
