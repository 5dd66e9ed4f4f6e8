# Sourced by the start benchmarks (task_start.sh, deep_modules_start.sh):
# `measure_starts BIN...`, run in the directory holding the committed
# repository `r`, prints per binary five start times (a fresh clone each,
# one changed source file), the processes a start runs (strace -f) and its
# tier.
measure_starts() {
  local b k s e times procs sorted
  for b in "$@"; do
    times=()
    for k in 1 2 3 4 5; do
      rm -rf c; git clone -q r c; cd c || return; git config user.email a@b; git config user.name a
      echo "fn changed() {}" >> src/m5.rs
      "$b" init >/dev/null 2>&1
      s=$(date +%s%N); "$b" start --json > ../out.json 2>&1; e=$(date +%s%N)
      times+=($(( (e-s)/1000000 )))
      cd ..
    done
    rm -rf c; git clone -q r c; cd c || return; echo "fn changed() {}" >> src/m5.rs; "$b" init >/dev/null 2>&1
    procs=$(strace -f -e trace=execve -o ../st.txt "$b" start --json >/dev/null 2>&1; grep -c 'execve(' ../st.txt)
    cd ..
    sorted=$(printf '%s\n' "${times[@]}" | sort -n | tr '\n' ' ')
    echo "$b: start ms (5 runs, sorted): $sorted; processes: $procs; $(jq -c '[.risk_level,.risk_reasons]' out.json)"
  done
}
