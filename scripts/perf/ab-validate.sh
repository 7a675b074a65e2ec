#!/bin/bash
# Interleaved compiled `validate` of a project (default: the current folder),
# both roots built (node scripts/build.js):
#   scripts/perf/ab-validate.sh N A_ROOT B_ROOT [PROJECT_DIR]
if [ $# -lt 3 ]; then echo "usage: ab-validate.sh N A_ROOT B_ROOT [PROJECT_DIR]" >&2; exit 2; fi
N=$1; A=$2; B=$3; DIR=${4:-$PWD}; RES=$(mktemp)
for i in $(seq 1 $N); do
  for R in $( [ $((i%2)) = 1 ] && echo "$A $B" || echo "$B $A" ); do
    L=$([ "$R" = "$A" ] && echo A || echo B)
    cd $DIR; /usr/bin/time -o $RES.t -f "$L %e %U %S" env TOOLMARK_DIST=1 TOOLMARK_CACHE_DIR=$(mktemp -d) node $R/bin/toolmark.js validate --root $DIR >/dev/null 2>&1; cat $RES.t >> $RES
  done
done
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for L in A B; do
  w=$(awk -v L=$L '$1==L{print $2}' $RES | med); c=$(awk -v L=$L '$1==L{print $3+$4}' $RES | med)
  echo "$L median wall $w cpu $c (n=$(grep -c "^$L " $RES))"
done
cat /proc/loadavg
