#!/bin/bash
# Measures an idle cluster's CPU a second, per process, over 40 s after a 45 s start (readings.txt beside it).
cd "$(git rev-parse --show-toplevel)"
d=$(mktemp -d)
(DATA_DIR=$d PORT=38124 LOG_LEVEL=warn ./dev start --cluster > /tmp/idle-cluster.log 2>&1 &)
sleep 45
pids=$(pgrep -f "services/.*/src/main.ts|nats-server -js|redis-server 127" | tr '\n' ' ')
snap(){ for p in $pids; do echo "$p $(awk '{print $14+$15}' /proc/$p/stat)"; done; }
snap > /tmp/c1; sleep 40; snap > /tmp/c2
join <(sort /tmp/c1) <(sort /tmp/c2) | while read p a b; do name=$(ps -o args= -p $p | sed 's#.*/services/##; s#/src/main.ts##' | cut -c1-24); printf "%-26s %6.2f ms/s\n" "$name" $(echo "($b-$a)*10/40" | bc -l); done | sort
awk 'NR==FNR{a[$1]=$2;next}{s+=$2-a[$1]}END{printf "total %.1f ms/s\n", s*10/40}' /tmp/c1 /tmp/c2
pkill -TERM -f "scripts/start.ts --cluster"; sleep 6
