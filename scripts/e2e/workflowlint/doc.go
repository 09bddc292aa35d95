// Package workflowlint checks the shipped n8n workflows and their compose
// files without starting n8n: node wiring, credentials, retries, the
// editor layout and the ports each service exposes.
package workflowlint
