// Package pipeline holds prscout's domain types, the deterministic review
// stages (context, needs, batch lookup, merge, comments, workflow gate) and the
// small interfaces (ports) the stages need from the outside world.
//
// The package performs no I/O of its own: it imports no net/http, no gin and no
// SDK. Adapters (localgit, bitbucket, jira) implement the ports; api turns HTTP
// into stage calls. Each stage can be read and tested as plain Go.
package pipeline
