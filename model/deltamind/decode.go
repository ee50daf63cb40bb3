package deltamind

import (
	"github.com/rewind-tui/rewind/internal/rawjson"
)

// The member readers are internal/rawjson's (model.Unmarshal's rules).
func strVal(v []byte) (string, bool)                     { return rawjson.Str(v) }
func optInt(v []byte) (opt, bool)                        { return rawjson.OptInt(v) }
func elements(arr []byte, fn func(v []byte) bool) bool   { return rawjson.Elements(arr, fn) }
func strList(v []byte) ([]string, bool)                  { return rawjson.StrList(v) }
func object(v []byte, fn func(name, v []byte) bool) bool { return rawjson.Object(v, fn) }
func boolean(v []byte) (bool, bool)                      { return rawjson.Bool(v) }

// opt is an optional integer (a *int64 field of the old decoding).
type opt = rawjson.Opt
