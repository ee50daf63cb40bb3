module github.com/alecthomas/chroma/v2

go 1.26.8
