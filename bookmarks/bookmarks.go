// Package bookmarks keeps the marks a user sets in the TUI (m and a letter,
// as in vim) for each journal file, in the user's state directory
// ($XDG_STATE_HOME/rewind/bookmarks, else ~/.local/state/rewind/bookmarks),
// never next to or inside the journal.
package bookmarks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
)

// Marks maps a mark letter to an event position (1-based).
type Marks map[string]int

// Dir returns the directory bookmarks are stored in.
func Dir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "rewind", "bookmarks"), nil
}

// file returns the bookmark file of a journal: one per absolute journal
// path, named by its SHA-256 so no journal text becomes a file name.
func file(journal string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(journal)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json"), nil
}

// Load returns the marks saved for journal; none (and no error) when there
// are none yet.
func Load(journal string) (Marks, error) {
	p, err := file(journal)
	if err != nil {
		return Marks{}, err
	}
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return Marks{}, nil
	}
	if err != nil {
		return Marks{}, err
	}
	var f struct {
		Journal string `json:"journal"`
		Marks   Marks  `json:"marks"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Marks == nil {
		return Marks{}, err
	}
	return f.Marks, nil
}

// Save writes the marks of journal atomically (a temporary file renamed
// over the old one).
func Save(journal string, m Marks) error {
	p, err := file(journal)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	abs, _ := filepath.Abs(journal)
	b, err := json.MarshalIndent(struct {
		Journal string `json:"journal"`
		Marks   Marks  `json:"marks"`
	}{abs, m}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".bookmarks-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), p)
}
