package writer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/rewind-tui/rewind/journal/lockfile"
)

// The test binary doubles as a helper process: when REWIND_WRITER_HELPER is
// set, TestMain runs the named helper instead of the tests.
const helperEnv = "REWIND_WRITER_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "append":
		os.Exit(helperAppend())
	case "rlimit":
		os.Exit(helperRlimit())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperCmd returns a command that re-runs the test binary as helper mode
// with the given extra environment.
func helperCmd(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	return cmd
}

// seqRecord is the record the concurrency tests append: seq is the last
// seq in the journal plus one, computed under the lock, so that lost
// mutual exclusion shows up as duplicate seqs.
type seqRecord struct {
	Writer string `json:"writer"`
	N      int    `json:"n"`
	Seq    int    `json:"seq"`
}

// lastSeq returns the seq of the last complete line of data that has one.
func lastSeq(data []byte) int {
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var r struct{ Seq *int }
		if json.Unmarshal(lines[i], &r) == nil && r.Seq != nil {
			return *r.Seq
		}
	}
	return 0
}

// appendSeq appends one seqRecord to path under Append.
func appendSeq(path, writer string, n int, o Options) error {
	_, err := Append(context.Background(), path, o, func(size int64) ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data := make([]byte, size)
		if _, err := f.ReadAt(data, 0); err != nil && size > 0 {
			return nil, err
		}
		return json.Marshal(seqRecord{Writer: writer, N: n, Seq: lastSeq(data) + 1})
	})
	return err
}

// helperAppend appends REWIND_HELPER_N seqRecords to REWIND_HELPER_FILE as
// writer REWIND_HELPER_ID.
func helperAppend() int {
	path, id := os.Getenv("REWIND_HELPER_FILE"), os.Getenv("REWIND_HELPER_ID")
	n, _ := strconv.Atoi(os.Getenv("REWIND_HELPER_N"))
	for i := range n {
		// REWIND_HELPER_LOCKPATH (negative controls only) makes this
		// writer use a different lock, i.e. no mutual exclusion.
		o := Options{Lock: lockfile.Options{LockPath: os.Getenv("REWIND_HELPER_LOCKPATH")}}
		if err := appendSeq(path, id, i, o); err != nil {
			fmt.Fprintln(os.Stderr, "helper append:", err)
			return 1
		}
	}
	return 0
}

// helperRlimit sets RLIMIT_FSIZE to REWIND_HELPER_LIMIT bytes and appends a
// record of REWIND_HELPER_RECLEN bytes to REWIND_HELPER_FILE; with
// REWIND_HELPER_SKIPCHECK=1 the pre-check is disabled so the kernel's own
// behaviour (EFBIG or a short write) is seen. It prints the error and the
// Result as JSON on stdout.
func helperRlimit() int {
	limit, _ := strconv.ParseUint(os.Getenv("REWIND_HELPER_LIMIT"), 10, 64)
	reclen, _ := strconv.Atoi(os.Getenv("REWIND_HELPER_RECLEN"))
	testHookSkipLimitCheck = os.Getenv("REWIND_HELPER_SKIPCHECK") == "1"
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rl.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 1
	}
	rec := fmt.Appendf(nil, `{"pad":"%s"}`, bytes.Repeat([]byte("x"), reclen-10))
	res, err := Append(context.Background(), os.Getenv("REWIND_HELPER_FILE"), Options{}, func(int64) ([]byte, error) {
		return rec, nil
	})
	out := struct {
		Err string
		Res Result
	}{Res: res}
	if err != nil {
		out.Err = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}
