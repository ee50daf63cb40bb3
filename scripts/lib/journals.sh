# Sourced by scripts/bench and scripts/pgo: the generated journals both time
# (scripts/lib/timed.sh times the runs).

# bytes SIZE: SIZE with a K, M or G suffix in bytes (250M -> 262144000).
bytes() {
  local v=${1%[KMG]} u=${1: -1}
  case $u in K) echo $((v << 10)) ;; M) echo $((v << 20)) ;; G) echo $((v << 30)) ;; *) echo "$1" ;; esac
}

# journal DIR FORMAT SIZE: prints the path of a journal of FORMAT of about
# SIZE bytes under DIR ($DIR/$FORMAT.$SIZE.jsonl), which $REWIND demo --out
# generates (seed 1) when it is missing, with as many events as a
# 20,000-event sample of the format says fit.
journal() {
  local dir=$1 f=$2 size=$3
  local sample="$dir/$f.sample.jsonl" file="$dir/$f.$size.jsonl"
  [[ -f $sample ]] || "$REWIND" demo --out "$sample" --format "$f" --events 20000 --seed 1 >&2
  if [[ ! -f $file ]]; then
    local per=$(($(stat -c %s "$sample") / 20000))
    echo "generating $file" >&2
    "$REWIND" demo --out "$file" --format "$f" --events $(($(bytes "$size") / per)) --seed 1 >&2
  fi
  echo "$file"
}
