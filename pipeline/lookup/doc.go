// Package lookup turns the scout model's answer into repository lookups and
// runs them: Needs (/v1/needs) reads the answer, normalizes and caps the
// requested paths and refuses unsafe ones; Batcher (/v1/repository/batch)
// resolves each (repository, ref) once, runs the lookups in parallel with a
// per-lookup timeout, isolates failures and caches results by commit.
package lookup
