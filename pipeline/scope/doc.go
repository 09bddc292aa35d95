// Package scope decides what a review may see: it normalizes and checks
// repository paths (parent escapes, secret paths, default paths such as
// generated or vendored code), runs the file gates of /v1/context in
// GateOrder and resolves the rule layers (request, the destination branch's
// .prscout/rules.json, the service's rule file, built-in rules). Secret
// values inside text are pipeline/redact's job.
package scope
