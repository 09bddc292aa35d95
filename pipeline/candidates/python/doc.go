// Package python is the candidates' Python reader: it resolves names
// through imports, packages (__init__.py), stubs (.pyi) and re-exports,
// types receivers from annotations and assignments, and lists the files
// that declare what added lines use and the files that refer to a touched
// declaration.
package python
