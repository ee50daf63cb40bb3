module github.com/microcosm-cc/bluemonday

go 1.26.8

require golang.org/x/net v0.39.0
