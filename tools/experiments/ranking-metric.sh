# Sourced by privirec-dp.sh and privirec-k-dp.sh (not run on its own).
# metric NAME LOG: the value of NAME (recall20, ndcg20) on fedmf-sim's last event=evaluation
# line of LOG, or in fedmf-central's table (| Recall@20 | mean | ...).
metric() {
  if grep -q ' event=evaluation ' "$2"; then
    grep ' event=evaluation ' "$2" | tail -n 1 | sed -E "s/.* $1=([^ ]*).*/\1/"
  else
    local row
    row=$(sed -E 's/recall20/Recall@20/; s/ndcg20/NDCG@20/' <<<"$1")
    grep "^| ${row} |" "$2" | awk -F'|' '{gsub(/ /, "", $3); print $3}'
  fi
}
