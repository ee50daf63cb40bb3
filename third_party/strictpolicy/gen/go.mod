module strictpolicy/gen

go 1.26.8

require github.com/microcosm-cc/bluemonday v1.0.27

require (
	github.com/aymerick/douceur v0.2.0 // indirect
	github.com/gorilla/css v1.0.1 // indirect
	golang.org/x/net v0.39.0 // indirect
)
