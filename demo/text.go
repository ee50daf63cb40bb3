package demo

import (
	"strconv"
	"strings"
)

// The text pools below make generated content look like a coding agent at
// work: prose in the assistant's voice, source lines, file paths and
// command output.

var words = strings.Fields(`the a to of and in for is that this with on it be as we will should can
file function test error config handler request response module package import return value type
struct interface method field call update check add remove fix refactor migration database schema
table index query cache token session auth middleware route server client build run pass fail log
output input path directory version dependency lock stream event journal checkpoint approval plan
step task agent tool result change diff line code now next first then also because so but if when
after before existing new old legacy current retry timeout context parser reader writer buffer
handle edge case nil empty guard loop goroutine channel mutex race flaky coverage benchmark commit`)

var openers = []string{
	"Let me", "I'll", "Next I need to", "Now I'll", "First, let me", "I should", "To be safe, I'll",
	"Looking at this,", "The failing test shows that", "It seems", "Good:", "Okay,", "Before editing, I'll",
}

var codeLines = []string{
	"func (s *Store) Append(ctx context.Context, ev Event) error {",
	"\tif err := s.lock.Acquire(ctx); err != nil {",
	"\t\treturn fmt.Errorf(\"append %s: %w\", ev.ID, err)",
	"\t}",
	"\tdefer s.lock.Release()",
	"\tb, err := json.Marshal(ev)",
	"\tif err != nil {",
	"\t\treturn err",
	"}",
	"export async function refreshToken(session: Session): Promise<string> {",
	"  const res = await fetch(`${API_URL}/auth/refresh`, { method: \"POST\" });",
	"  if (!res.ok) throw new Error(`refresh failed: ${res.status}`);",
	"  return (await res.json()).access_token;",
	"import { describe, it, expect } from \"vitest\";",
	"const TOKEN_TTL_MS = 15 * 60 * 1000;",
	"  await db.schema.alterTable(\"sessions\", (t) => t.string(\"refresh_hash\"));",
	"// TODO(auth): drop the legacy cookie path once clients migrate",
	"\tfor _, row := range rows {",
	"\t\tout = append(out, row.Decode())",
	"\tmu.Lock()",
	"\tdefer mu.Unlock()",
	"type Config struct {",
	"\tTimeout time.Duration `json:\"timeout\"`",
	"\tRetries int           `json:\"retries\"`",
	"CREATE INDEX CONCURRENTLY idx_sessions_user ON sessions (user_id);",
	"ALTER TABLE sessions ADD COLUMN refresh_hash TEXT;",
	"  expect(await refreshToken(s)).toMatch(/^eyJ/);",
	"    return <Spinner label=\"Loading…\" />;",
	"\tlog.Printf(\"migrated %d rows in %s\", n, time.Since(start))",
	"\tselect {",
	"\tcase <-ctx.Done():",
	"\t\treturn ctx.Err()",
}

var paths = []string{
	"src/auth/session.ts", "src/auth/refresh.ts", "src/auth/middleware.ts", "src/db/migrations/0042_refresh_tokens.sql",
	"src/db/client.ts", "src/routes/login.tsx", "src/routes/api/users.ts", "test/auth/refresh.test.ts",
	"internal/store/store.go", "internal/store/store_test.go", "internal/migrate/migrate.go", "cmd/server/main.go",
	"package.json", "tsconfig.json", "go.mod", "README.md", "docs/adr/0007-token-refresh.md", "scripts/deploy.sh",
}

var commands = []string{
	"npm test -- --run", "go test ./...", "npx tsc --noEmit", "git status --short", "npm run lint",
	"go vet ./...", "git diff --stat", "npm run build", "ls -la src/auth", "pnpm vitest run test/auth",
}

// appendProse appends about n bytes of assistant-style prose.
func (e *engine) appendProse(b []byte, n int) []byte {
	start := len(b)
	for len(b)-start < n {
		b = append(b, pick(e, openers)...)
		for k := e.between(5, 16); k > 0; k-- {
			b = append(b, ' ')
			if e.intn(14) == 0 {
				b = append(b, '`')
				b = append(b, pick(e, paths)...)
				b = append(b, '`')
				continue
			}
			b = append(b, pick(e, words)...)
		}
		b = append(b, '.')
		if e.intn(5) == 0 {
			b = append(b, '\n', '\n')
		} else {
			b = append(b, ' ')
		}
	}
	return b
}

// appendTokens appends a short streaming delta of k words, the size of
// one chunk of a model's streamed output.
func (e *engine) appendTokens(b []byte, k int) []byte {
	for i := 0; i < k; i++ {
		if i > 0 || e.intn(3) == 0 {
			b = append(b, ' ')
		}
		b = append(b, pick(e, words)...)
	}
	if e.intn(9) == 0 {
		b = append(b, '.')
	}
	if e.intn(25) == 0 {
		b = append(b, '\n', '\n')
	}
	return b
}

// appendSource appends about n bytes of source lines; numbered lines get
// OpenCode's read-tool prefix "00001| ".
func (e *engine) appendSource(b []byte, n int, numbered bool) []byte {
	start := len(b)
	for i := 1; len(b)-start < n; i++ {
		if numbered {
			b = append(b, "00000"[:max(0, 5-digits(i))]...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '|', ' ')
		}
		b = append(b, pick(e, codeLines)...)
		b = append(b, '\n')
	}
	return b
}

func digits(i int) int {
	n := 1
	for i >= 10 {
		i /= 10
		n++
	}
	return n
}

// appendCommandOutput appends about n bytes of plausible output of cmd.
func (e *engine) appendCommandOutput(b []byte, cmd string, n int) []byte {
	start := len(b)
	switch {
	case strings.HasPrefix(cmd, "go test"), strings.HasPrefix(cmd, "go vet"):
		for len(b)-start < n {
			if e.intn(9) == 0 {
				b = append(b, "--- FAIL: TestRefreshExpired (0.01s)\n    store_test.go:88: got 401, want 200\nFAIL\n"...)
			}
			b = append(b, "ok  \tgithub.com/acme/app/internal/"...)
			b = append(b, pick(e, words)...)
			b = append(b, "\t0."...)
			b = strconv.AppendInt(b, int64(e.between(100, 999)), 10)
			b = append(b, "s\n"...)
		}
	case strings.Contains(cmd, "test"), strings.Contains(cmd, "vitest"):
		for len(b)-start < n {
			b = append(b, " ✓ "...)
			b = append(b, pick(e, paths)...)
			b = append(b, " > "...)
			b = e.appendTokens(b, e.between(3, 7))
			b = append(b, " "...)
			b = strconv.AppendInt(b, int64(e.between(1, 90)), 10)
			b = append(b, "ms\n"...)
		}
		b = append(b, "\n Test Files  12 passed (12)\n      Tests  148 passed (148)\n"...)
	case strings.HasPrefix(cmd, "ls"):
		b = append(b, "total 48\ndrwxr-xr-x  6 dev dev 4096 Jan  5 09:12 .\ndrwxr-xr-x 14 dev dev 4096 Jan  5 09:02 ..\n"...)
		for len(b)-start < n {
			b = append(b, "-rw-r--r--  1 dev dev "...)
			b = strconv.AppendInt(b, int64(e.between(200, 30000)), 10)
			b = append(b, " Jan  5 09:"...)
			b = strconv.AppendInt(b, int64(e.between(10, 59)), 10)
			b = append(b, ' ')
			b = append(b, pick(e, paths)...)
			b = append(b, '\n')
		}
	case strings.HasPrefix(cmd, "git"):
		for len(b)-start < n {
			b = append(b, " M "...)
			b = append(b, pick(e, paths)...)
			b = append(b, '\n')
		}
	default:
		for len(b)-start < n {
			b = append(b, pick(e, paths)...)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(e.between(1, 400)), 10)
			b = append(b, ':', ' ')
			b = append(b, strings.TrimSpace(pick(e, codeLines))...)
			b = append(b, '\n')
		}
	}
	return b
}

// appendDiff appends a unified diff of about n bytes for path.
func (e *engine) appendDiff(b []byte, path string, n int) []byte {
	start := len(b)
	b = append(b, "Index: "...)
	b = append(b, path...)
	b = append(b, "\n===================================================================\n--- "...)
	b = append(b, path...)
	b = append(b, "\n+++ "...)
	b = append(b, path...)
	b = append(b, '\n')
	for len(b)-start < n {
		l := e.between(1, 300)
		b = append(b, "@@ -"...)
		b = strconv.AppendInt(b, int64(l), 10)
		b = append(b, ",6 +"...)
		b = strconv.AppendInt(b, int64(l), 10)
		b = append(b, ",7 @@\n"...)
		for k := 0; k < 6; k++ {
			switch e.intn(5) {
			case 0:
				b = append(b, '-')
			case 1:
				b = append(b, '+')
			default:
				b = append(b, ' ')
			}
			b = append(b, pick(e, codeLines)...)
			b = append(b, '\n')
		}
	}
	return b
}
