package scope

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/prscout/prscout/pipeline"
)

func TestNormalizePath(t *testing.T) {
	long := strings.Repeat("a/", 600) + "x.go" // 1204 bytes
	tests := []struct {
		name   string
		raw    string
		want   string
		reason string // "" when accepted
	}{
		// Parent escapes, plain and disguised.
		{"parent", "../x", "", ReasonParentEscape},
		{"parent deep", "a/../../etc/passwd", "", ReasonParentEscape},
		{"parent inside", "src/../a.go", "", ReasonParentEscape},
		{"parent trailing", "src/..", "", ReasonParentEscape},
		{"parent alone", "..", "", ReasonParentEscape},
		{"parent percent", "%2e%2e/x", "", ReasonParentEscape},
		{"parent percent upper", "%2E%2E%2Fetc%2Fpasswd", "", ReasonParentEscape},
		{"parent mixed percent", ".%2e/x", "", ReasonParentEscape},
		{"parent double percent", "%252e%252e/", "", ReasonBadEncoding},
		{"double percent slash", "src%252f..%252fx", "", ReasonBadEncoding},
		{"double percent percent", "a%2525b", "", ReasonBadEncoding},
		{"encoded percent", "a%250x", "", ReasonBadEncoding},
		{"encoded query", "a.go%3Fraw=1", "", ReasonBadEncoding},
		{"encoded fragment", "a.go%23L1", "", ReasonBadEncoding},
		{"nested quotes", "\"'`a.go`'\"", "a.go", ""},
		{"quotes behind slash", "/'a/b'", "a/b", ""},
		{"parent backslash", "..\\..\\win.ini", "", ReasonParentEscape},
		{"parent encoded backslash", "..%5c..%5cwin.ini", "", ReasonParentEscape},
		{"parent after query cut", "src/a.go?x=../../y", "src/a.go", ""},
		{"parent quoted", "\"../x\"", "", ReasonParentEscape},
		// Absolute, URL-ish and home paths.
		{"absolute unix", "/etc/passwd", "etc/passwd", ""},
		{"many slashes", "///src/a.go", "src/a.go", ""},
		{"unc", "\\\\server\\share\\x", "server/share/x", ""},
		{"drive", "C:\\x", "", ReasonDrivePath},
		{"drive slash", "c:/Windows/win.ini", "", ReasonDrivePath},
		{"file url", "file:///etc/passwd", "", ReasonURL},
		{"https url", "https://host/x", "", ReasonURL},
		{"ssh url", "ssh://git@host/repo.git", "", ReasonURL},
		{"javascript url", "javascript:alert(1)", "", ReasonURL},
		{"home", "~/.aws/credentials", "", ReasonHomeDir},
		{"home user", "~root/.ssh/id_rsa", "", ReasonHomeDir},
		{"home alone", "~", "", ReasonHomeDir},
		{"tilde file", "~$report.docx", "~$report.docx", ""},
		{"colon in name", "docs/a:b.md", "docs/a:b.md", ""},
		// Control and invisible characters.
		{"nul", "src/a.go\x00.png", "", ReasonControlChar},
		{"nul percent", "src/a.go%00", "", ReasonControlChar},
		{"tab inside", "src/\ta.go", "", ReasonControlChar},
		{"newline inside", "src/a\n.go", "", ReasonControlChar},
		{"escape", "src/\x1b[31ma.go", "", ReasonControlChar},
		{"del", "src/a\x7f.go", "", ReasonControlChar},
		{"c1", "src/a\u0085b.go", "", ReasonControlChar},
		{"rtl override", "src/evil\u202Eog.exe", "", ReasonControlChar},
		{"zero width space", "src/a\u200b.go", "", ReasonControlChar},
		{"line separator", "src/a\u2028.go", "", ReasonControlChar},
		{"bom", "\ufeffsrc/a.go", "", ReasonControlChar},
		// Encoding.
		{"bad escape", "src/100%.md", "", ReasonBadEncoding},
		{"bad escape short", "src/a%2", "", ReasonBadEncoding},
		{"invalid utf8", "src/\xff.go", "", ReasonBadEncoding},
		{"overlong utf8 dot", "%c0%ae%c0%ae/x", "", ReasonBadEncoding},
		{"replacement char", "src/\ufffd.go", "", ReasonBadEncoding},
		{"space encoded", "docs/a%20b.md", "docs/a b.md", ""},
		{"plus kept", "a+b.go", "a+b.go", ""},
		// Length.
		{"too long", long, "", ReasonTooLong},
		{"absurdly long", strings.Repeat("x", 100_000), "", ReasonTooLong},
		// Tidying that is accepted.
		{"query and fragment", "./src/a.go?raw=1#L10", "src/a.go", ""},
		{"fragment only", "src/a.go#L3-L9", "src/a.go", ""},
		{"double slash", "src//a.go", "src/a.go", ""},
		{"dot segment", "src/./a.go", "src/a.go", ""},
		{"dot slash prefix", "./src/a.go", "src/a.go", ""},
		{"many dot slash", "././src/a.go", "src/a.go", ""},
		{"trailing slash", "src/", "src", ""},
		{"quoted", "\"quoted\"", "quoted", ""},
		{"backticks", "`src/a.go`", "src/a.go", ""},
		{"single quotes", "'src/a.go'", "src/a.go", ""},
		{"spaced", "  spaced  ", "spaced", ""},
		{"tabs around", "\tsrc/a.go\n", "src/a.go", ""},
		{"backslashes", "src\\pkg\\a.go", "src/pkg/a.go", ""},
		{"dots in names", "a..b/.../c..", "a..b/.../c..", ""},
		{"unicode name", "docs/한글.md", "docs/한글.md", ""},
		{"root empty", "", "", ""},
		{"root dot", ".", "", ""},
		{"root slash", "/", "", ""},
		{"root query", "?x", "", ""},
	}
	if len(tests) < 30 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizePath(tt.raw, 1024)
			if tt.reason != "" {
				if err == nil {
					t.Fatalf("NormalizePath(%q) = %q, want refusal %s", tt.raw, got, tt.reason)
				}
				if r := reasonOf(err); r != tt.reason {
					t.Fatalf("NormalizePath(%q) reason %q (%v), want %q", tt.raw, r, err, tt.reason)
				}
				if err.Error() == "" {
					t.Fatal("empty error text")
				}
				return
			}
			if err != nil {
				t.Fatalf("NormalizePath(%q) refused: %v", tt.raw, err)
			}
			if got != tt.want {
				t.Fatalf("NormalizePath(%q) = %q, want %q", tt.raw, got, tt.want)
			}
		})
	}
}

func TestPathErrorSentinels(t *testing.T) {
	_, err := NormalizePath("../x", 0)
	if !errors.Is(err, errPathParent) {
		t.Fatalf("errors.Is(%v, ErrPathParent) = false", err)
	}
	_, _, err = CheckRequestPath(".env", pipeline.Limits{})
	if !errors.Is(err, pipeline.ErrSecret) {
		t.Fatalf("errors.Is(%v, ErrSecret) = false", err)
	}
	if got, want := err.Error(), "secret path refused: .env files are never read"; got != want {
		t.Fatalf("secret error = %q, want %q", got, want)
	}
	for _, r := range Reasons {
		if ReasonMessage(r) == "" {
			t.Errorf("reason %q has no message", r)
		}
	}
}

func TestCheckRequestPath(t *testing.T) {
	tests := []struct {
		raw, want, reason string
	}{
		{".env", "", ReasonSecret},
		{"config/.env.production", "", ReasonSecret},
		{"/app/.ENV.local", "", ReasonSecret},
		{".ssh/id_rsa", "", ReasonSecret},
		{"id_ed25519", "", ReasonSecret},
		{"keys/x.pem", "", ReasonSecret},
		{".git/config", "", ReasonSecret},
		{".npmrc", "", ReasonSecret},
		{"%2eenv", "", ReasonSecret},
		{".\\.env", "", ReasonSecret},
		{"~/.aws/credentials", "", ReasonHomeDir},
		{"./src/a.go?raw=1#L10", "src/a.go", ""},
		{".", "", ""},
	}
	for _, tt := range tests {
		got, reason, err := CheckRequestPath(tt.raw, pipeline.DefaultLimits())
		if reason != tt.reason || (err == nil) != (tt.reason == "") {
			t.Errorf("CheckRequestPath(%q) = %q, %q, %v; want reason %q", tt.raw, got, reason, err, tt.reason)
			continue
		}
		if tt.reason == "" && got != tt.want {
			t.Errorf("CheckRequestPath(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if tt.reason != "" && reasonOf(err) != reason {
			t.Errorf("CheckRequestPath(%q): ReasonOf(err) = %q, reason %q", tt.raw, reasonOf(err), reason)
		}
	}
}

func TestCheckNeed(t *testing.T) {
	tests := []struct {
		op, path   string
		want       pipeline.Need
		reason     string
		wantErrTxt string
	}{
		{"", "src/a.go", pipeline.Need{Op: pipeline.OpGetFile, Path: "src/a.go"}, "", ""},
		{"Get-File", "src/a.go", pipeline.Need{Op: pipeline.OpGetFile, Path: "src/a.go"}, "", ""},
		{"list_dir", ".", pipeline.Need{Op: pipeline.OpListDir, Path: ""}, "", ""},
		{"LIST_DIR", "/src/", pipeline.Need{Op: pipeline.OpListDir, Path: "src"}, "", ""},
		{"get_file", "", pipeline.Need{Op: pipeline.OpGetFile, Path: ""}, ReasonEmpty, "empty path: get_file needs a file path"},
		{"get_file", "/", pipeline.Need{Op: pipeline.OpGetFile, Path: "/"}, ReasonEmpty, "get_file of the repository root refused: it is a directory, use list_dir"},
		{"delete_file", "src/a.go", pipeline.Need{Op: "delete_file", Path: "src/a.go"}, ReasonUnsupportedOp, `unsupported op "delete_file" refused: use get_file or list_dir`},
		{"list_dir", ".ssh", pipeline.Need{Op: pipeline.OpListDir, Path: ".ssh"}, ReasonSecret, "secret path refused: SSH keys and configuration are never read"},
	}
	for _, tt := range tests {
		got, reason, err := CheckNeed(tt.op, tt.path, pipeline.DefaultLimits())
		if got != tt.want || reason != tt.reason {
			t.Errorf("CheckNeed(%q, %q) = %+v, %q; want %+v, %q", tt.op, tt.path, got, reason, tt.want, tt.reason)
		}
		if tt.wantErrTxt != "" && (err == nil || err.Error() != tt.wantErrTxt) {
			t.Errorf("CheckNeed(%q, %q) error %v, want %q", tt.op, tt.path, err, tt.wantErrTxt)
		}
	}
}

func TestIsSecretPath(t *testing.T) {
	secret := []string{
		".env", ".env.local", ".env.production", ".env.example", "config/.env.production",
		"APP/.Env", "prod.env", ".envrc", ".ssh/id_rsa", "deploy/.ssh/known_hosts", ".ssh",
		"id_rsa", "id_rsa.pub", "keys/id_ecdsa", "id_ed25519", "x.pem", "tls/server.KEY",
		"cert.p12", "android/release.keystore", "a.jks", "putty.ppk", ".git/config", ".git",
		".npmrc", "web/.npmrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".git-credentials",
		".gitconfig", ".aws/credentials", ".aws/config", ".kube/config", ".docker/config.json",
		"credentials.json", "client_secret_123.apps.json", "service-account-prod.json",
		"config/secrets.yml", "secrets.json", ".htpasswd", ".pgpass", "infra/terraform.tfstate",
		"terraform.tfstate.backup", "prod.tfvars", "config/master.key", ".vault-token",
		// TestAbuseSecretPaths: credential files outside the first list
		"serviceAccountKey.json", "config/firebase-adminsdk-x1y2z-0123456789.json", "app/secrets.toml",
		"terraform.tfvars", "env/prod.tfvars.json", "home/.gnupg2/secring.gpg", "secring.gpg",
		"keys/private.asc", "gcloud/application_default_credentials.json", ".config/gh/hosts.yml",
		"home/u/.config/gh/hosts.yml", "rclone.conf", "func/local.settings.json", "web/app.env.local",
	}
	for _, p := range secret {
		if !IsSecretPath(p) {
			t.Errorf("IsSecretPath(%q) = false, want true", p)
		}
	}
	plain := []string{
		"src/env.go", "environment.md", "docs/.envoy.yaml", "pkg/credentials/creds.go",
		"keyboard.go", "src/key.go", "monkey.ts", "sshd.go", ".github/workflows/ci.yml",
		".gitignore", ".gitattributes", "internal/secret_test.go", "id_rsa_parser.go.txt/..x",
		"README.md", "go.mod", "pem/README.md",
	}
	for _, p := range plain {
		if IsSecretPath(p) {
			t.Errorf("IsSecretPath(%q) = true (%s), want false", p, secretKind(p))
		}
	}
}

// defaultPathCases are paths IsDefaultPath must match, one or more per
// entry of the table in defaults.go, and paths it must leave alone. The
// needs stage refuses the same list (lookup.TestNeedsRefusesDefaultPaths).
var defaultPathCases = struct{ yes, no []string }{
	yes: []string{
		"dist/app.js", "web/build/index.html", "out/x", "target/classes/A.class",
		"node_modules/react/index.js", "vendor/github.com/x/y.go", "coverage/lcov.info",
		".next/server.js", "src/__snapshots__/a.test.js.snap", "yarn.lock", "Cargo.lock",
		"package-lock.json", "pnpm-lock.yaml", "go.sum", "a.snap", "app.min.js", "app.MIN.CSS",
		"app.js.map", "logo.png", "photo.JPEG", "icon.svg", "anim.gif", "favicon.ico",
		"font.woff2", "font.ttf", "img.webp", "vendor/", "Dist/x.js",
		"api/v1/api.pb.go", "proto/x_pb2.py", "pkg/zz_generated.deepcopy.go", "ui/src/generated/types.ts",
		"gen/go/x.go", "web/.yarn/cache/a.zip", "ios/Pods/X/y.m", "py/.venv/lib/x.py",
		"app/__pycache__/m.cpython-311.pyc", "infra/.terraform/modules/m.json", "bin/Release/app.dll",
		"poetry.lock", "Gemfile.lock", "bun.lockb", "gradle.lockfile", "pkg/testdata/case.json",
		"test/fixtures/user.json", "src/__mocks__/api.ts", "x/expected.golden", "third_party/lib/a.c",
		"deps/zlib/inflate.c", "src/3rdparty/x.h", "thirdparty/y.cc",
	},
	no: []string{
		"BUILD", "pkg/build.go", "cmd/out.go", "vendor", "src/distance.ts", "lockfile.go",
		"src/map.go", "mapper.ts", "docs/png.md", "builder/x.go", "README.md", "gen.go",
		"pkg/generator/gen.go", "src/fixture.go", "api/handler_test.go", "testdata", "deps.go", "pkg/deps",
	},
}

func TestIsDefaultPath(t *testing.T) {
	for _, p := range defaultPathCases.yes {
		if !IsDefaultPath(p) {
			t.Errorf("IsDefaultPath(%q) = false, want true", p)
		}
	}
	for _, p := range defaultPathCases.no {
		if IsDefaultPath(p) {
			t.Errorf("IsDefaultPath(%q) = true, want false", p)
		}
	}
}

func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{
		"../x", "a/../../etc/passwd", "%2e%2e/x", "%252e%252e/", "..\\..\\win.ini", "/etc/passwd",
		"C:\\x", "file:///etc/passwd", "https://host/x", "a\x00b", "\t", "a\u202eb", ".env",
		"./src/a.go?raw=1#L10", "src//a.go", "src/./a.go", "\"quoted\"", " spaced ", "~/.ssh/id_rsa",
		"%c0%ae", "a%2", ".%2e/x", "`..`/x", "'./../x'",
	} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, raw string, maxLen int) {
		if maxLen < 0 || maxLen > 4096 {
			maxLen = 64
		}
		p, err := NormalizePath(raw, maxLen)
		if err != nil {
			if p != "" {
				t.Fatalf("refusal with a path %q", p)
			}
			if reasonOf(err) == "" || ReasonMessage(reasonOf(err)) == "" {
				t.Fatalf("refusal %v without a known reason", err)
			}
			return
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." {
				t.Fatalf("NormalizePath(%q) = %q holds ..", raw, p)
			}
			if p != "" && (seg == "" || seg == ".") {
				t.Fatalf("NormalizePath(%q) = %q holds an empty or . segment", raw, p)
			}
		}
		if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
			t.Fatalf("NormalizePath(%q) = %q is not a clean relative path", raw, p)
		}
		for _, r := range p {
			if r == 0 || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("NormalizePath(%q) = %q holds control %U", raw, p, r)
			}
		}
		if maxLen > 0 && len(p) > maxLen {
			t.Fatalf("NormalizePath(%q) = %d bytes > %d", raw, len(p), maxLen)
		}
		// Idempotent: a clean path stays as it is.
		// A fixed point: a later stage re-checking gets the same path.
		if q, err := NormalizePath(p, maxLen); err != nil || q != p {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, p, q, err)
		}
	})
}

// FuzzTrimSimple: the allocation-free fast path of NormalizePath gives
// what the full normalization gives, whenever it answers.
//
//	go test -run '^$' -fuzz FuzzTrimSimple -fuzztime 20s ./pipeline/scope
func FuzzTrimSimple(f *testing.F) {
	for _, s := range []string{"./src/a.go", "/src/a.go", "src/dir/", "src/a.go?raw=1#L10", "././/a", "a/./b", "./", "/", "a//b", "..", "./..", "a.go#x?y", `"a.go"?x"`} {
		f.Add(s, 1024)
	}
	f.Fuzz(func(t *testing.T, raw string, maxLen int) {
		maxLen %= 4096
		got, ok := trimSimple(raw, maxLen)
		if !ok {
			return
		}
		want, err := normalizeSlow(raw, maxLen)
		if err != nil || got != want {
			t.Fatalf("trimSimple(%q, %d) = %q; normalization gives %q, %v", raw, maxLen, got, want, err)
		}
	})
}

// TestDefaultSuffixesAreTheGlobs: the generated-code patterns kept as name
// suffixes (a lookup, not a glob match) decide as the globs did.
func TestDefaultSuffixesAreTheGlobs(t *testing.T) {
	globs := mustGlobs("**/*.pb.go", "**/*.pb.gw.go", "**/*_pb2.py", "**/*_pb2_grpc.py", "**/*.pb.ts", "**/*_grpc.pb.go",
		"**/*_generated.go", "**/*.gen.go", "**/*.g.dart", "**/*.freezed.dart")
	for _, p := range []string{
		"api/v1/api.pb.go", "x.pb.gw.go", "m_pb2.py", "py/m_pb2_grpc.py", "a.pb.ts", "a_grpc.pb.go", "deep/a/b_generated.go",
		"a.gen.go", "w.g.dart", "m.freezed.dart", ".pb.go", "A.PB.GO", "_generated.go",
		"pb.go", "apb.go", "x.pb.gox", "m_pb2.pyx", "a.gen.golang", "gdart", "x_generated.gob", "x.pb.go/", "src/main.go",
	} {
		want := false
		for _, g := range globs {
			want = want || g.Match(p)
		}
		if got := IsDefaultPath(p); got != want {
			t.Errorf("IsDefaultPath(%q) = %v, the globs say %v", p, got, want)
		}
	}
}
