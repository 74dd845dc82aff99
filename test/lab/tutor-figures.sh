# shellcheck shell=bash
# The tutor's figures on the real lab (test/lab/tutor.sh's part 6): the time from n8n's stoppedAt to the
# card, and the console's processor, memory and bytes to n8n idle and in a burst of runs, with a page open
# and without; and the probes that measure them (the console's n8n-front bytes, its process's processor
# time, docker stats sampled), which test/lab/truth.sh uses too.
#   needs: tutor.sh (TUTOR_* settings, tutor_panel, tutor_panel_bg, ready_within, holds, runs_stamp,
#   console_token, console_alert), exercise.sh (LAB_PROJECT), lib.sh; sets TUTOR_FIGURES

# console_front_bytes: the bytes the console's n8n-front interface has carried both ways (everything it
# says to n8n goes there; the page's event stream and the gate's connections go through the editor network).
console_front_bytes() {
  local id pid ip dev
  id=$(container_of "$LAB_PROJECT" console)
  pid=$(docker inspect -f '{{.State.Pid}}' "$id")
  ip=$(docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{$v.IPAddress}}{{"\n"}}{{end}}' "$id" |
    awk '$1 ~ /n8n-front$/ {print $2}')
  dev=$(nsenter -t "$pid" -n ip -o -4 addr show | awk -v ip="$ip" 'index($4, ip "/") == 1 {print $2}')
  [ -n "$dev" ] || { echo "no n8n-front interface ($ip)" >&2; return 1; }
  sed 's/:/ /' "/proc/$pid/net/dev" | awk -v dev="$dev" '$1 == dev {print $2 + $10}'
}

# bytes_between A B: B - A, or "unknown" when either is not a count.
bytes_between() {
  if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]; then echo $(($2 - $1)); else echo unknown; fi
}

# console_cpu_ms: the processor time the console's own process (node dist/app/console/main.js) has used,
# in ms (/proc's utime + stime): exact where docker stats samples, and without the container's healthcheck
# (a node process every 30 s) or a check's checker.
console_cpu_ms() {
  local pid
  pid=$(docker top "$(container_of "$LAB_PROJECT" console)" -eo pid,args | awk '$2 == "node" && $3 == "dist/app/console/main.js" {print $1; exit}')
  [ -n "$pid" ] || return 1
  sed 's/.*) //' "/proc/$pid/stat" | awk -v hz="$(getconf CLK_TCK)" '{printf "%d\n", ($12 + $13) * 1000 / hz}'
}

# The console's docker stats, one sample a line ("<cpu %> <memory MiB>"), into FILE until stopped; its
# process's processor time and the clock (ms) at the start and at the stop in FILE.cpu.
TUTOR_SAMPLER=""
TUTOR_SAMPLES=""
sampler_start() {
  local id
  id=$(container_of "$LAB_PROJECT" console)
  TUTOR_SAMPLES=$1
  echo "$(console_cpu_ms 2>/dev/null || echo -) $(date +%s%3N)" >"$1.cpu"
  (
    while :; do
      docker stats --no-stream --format '{{.CPUPerc}} {{.MemUsage}}' "$id" |
        awk '{c = $1; sub(/%/, "", c); m = $2; u = m; gsub(/[0-9.]/, "", u); sub(/[A-Za-z]+$/, "", m);
          f = (u == "GiB") ? 1024 : (u == "MiB") ? 1 : (u == "KiB") ? 1 / 1024 : 1 / 1048576; printf "%s %.1f\n", c, m * f}'
    done
  ) >"$1" 2>/dev/null &
  TUTOR_SAMPLER=$!
}
sampler_stop() {
  [ -z "$TUTOR_SAMPLER" ] || kill_tree "$TUTOR_SAMPLER"
  wait "$TUTOR_SAMPLER" 2>/dev/null || true
  TUTOR_SAMPLER=""
  [ -z "$TUTOR_SAMPLES" ] || echo "$(console_cpu_ms 2>/dev/null || echo -) $(date +%s%3N)" >>"$TUTOR_SAMPLES.cpu"
  TUTOR_SAMPLES=""
}
# stats_of FILE: "processor M% mean (X% max) of a core, memory N MiB max (K samples); its process P ms in
# S s (Q%)": docker stats' samples, and the console's process's processor time over the whole span.
stats_of() {
  local own
  own=$(awk 'NR == 1 {c = $1; t = $2} NR == 2 {if (c != "-" && $1 != "-" && $2 > t) printf "its process %d ms in %.0f s (%.2f%%)", $1 - c, ($2 - t) / 1000, 100 * ($1 - c) / ($2 - t); else printf "its process ?"}' "$1.cpu" 2>/dev/null)
  awk -v own="${own:-its process ?}" 'NF == 2 {n++; s += $1; if ($1 > c) c = $1; if ($2 > m) m = $2}
    END {if (n) printf "processor %.1f%% mean (%.1f%% max), memory %.0f MiB max (%d samples; %s)", s / n, c, m, n, own; else printf "no sample"}' "$1"
}
# sample_for SECONDS FILE: docker stats for SECONDS, in the foreground.
sample_for() {
  sampler_start "$2"
  sleep "$1"
  sampler_stop
}

# --- 6. the figures -----------------------------------------------------------------------------------------
tutor_figures() {
  local token stamp0 stamp1 since bytes0 bytes1 ids code sent=0 out=$WORK/tutor-series.json caught n
  local idle_off idle_on burst_off burst_on front_off front_on lat base
  log "the tutor's figures: $TUTOR_RUNS runs a burst, one every $TUTOR_EVERY_MS ms; idle $TUTOR_IDLE_SECONDS s"
  # Off: no console page open (nothing listens: the tutor does not poll).
  sleep 3
  bytes0=$(console_front_bytes || true)
  stamp0=$(runs_stamp)
  sample_for "$TUTOR_IDLE_SECONDS" "$WORK/tutor-idle-off.stats"
  bytes1=$(console_front_bytes || true)
  idle_off=$(stats_of "$WORK/tutor-idle-off.stats")
  front_off=$(bytes_between "$bytes0" "$bytes1")
  check "no page open, idle $TUTOR_IDLE_SECONDS s: the console says nothing to n8n ($front_off bytes on n8n-front): its executions not listed" \
    test "$front_off" != unknown -a "${front_off/unknown/0}" -lt 1024
  token=$(console_token || true)
  since=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  sampler_start "$WORK/tutor-burst-off.stats"
  for _ in $(seq "$TUTOR_RUNS"); do
    code=$(console_alert "$token" low_confidence || true)
    [ "$code" = 200 ] && sent=$((sent + 1))
    sleep "$((TUTOR_EVERY_MS / 1000)).$(printf '%03d' $((TUTOR_EVERY_MS % 1000)))"
  done
  sleep 3
  sampler_stop
  burst_off=$(stats_of "$WORK/tutor-burst-off.stats")
  stamp1=$(runs_stamp)
  ids=$(n8n_runs_since "$since" | wc -l || true)
  check "no page open, a burst: $sent of $TUTOR_RUNS test alerts taken (POST /api/alert), n8n ran $ids runs" \
    test "$sent" = "$TUTOR_RUNS" -a "$ids" -ge "$TUTOR_RUNS"
  check "... runs.json did not move: no run explained without a page (${stamp0} -> ${stamp1})" test "$stamp0" = "$stamp1"

  # On: a page open catches up on them, then idles.
  rm -f "$WORK/tutor-ready" "$WORK/tutor-stop"
  tutor_panel_bg "$WORK/tutor-watch-idle.log" watch "$WORK/tutor-watch-idle.json" --until "$WORK/tutor-stop" --ready "$WORK/tutor-ready"
  if ready_within "$WORK/tutor-ready" 60; then
    caught=""
    base=${stamp1%% *}
    [[ $base =~ ^[0-9]+$ ]] || base=0
    n=$SECONDS
    while [ $((SECONDS - n)) -lt 30 ]; do
      caught=$(runs_stamp | cut -d' ' -f1)
      [ "$caught" = "$((base + TUTOR_RUNS))" ] && break
      sleep 0.5
    done
    check "control: a page opened, the runs made without one are caught up on (runs.json total ${stamp1%% *} -> $caught, within $((SECONDS - n)) s)" \
      test "$caught" = "$((base + TUTOR_RUNS))"
    sleep 2
    bytes0=$(console_front_bytes || true)
    sample_for "$TUTOR_IDLE_SECONDS" "$WORK/tutor-idle-on.stats"
    bytes1=$(console_front_bytes || true)
    front_on=$(bytes_between "$bytes0" "$bytes1")
    idle_on=$(stats_of "$WORK/tutor-idle-on.stats")
    check "control: a page open, idle $TUTOR_IDLE_SECONDS s: the console polls n8n ($front_on bytes on n8n-front)" \
      test "$front_on" != unknown -a "${front_on/unknown/0}" -ge 1024
  else
    fail "a console page open in Chromium" "$(cat "$WORK/tutor-watch-idle.log")"
  fi
  touch "$WORK/tutor-stop"
  wait "$TUTOR_BG" 2>/dev/null || true
  TUTOR_BG=""

  # On, a burst: each run timed from n8n's stoppedAt to its card.
  rm -f "$WORK/tutor-ready"
  tutor_panel_bg "$WORK/tutor-series.log" series "$out" --kind low_confidence --runs "$TUTOR_RUNS" \
    --every-ms "$TUTOR_EVERY_MS" --ready "$WORK/tutor-ready"
  # The driver sends its first alert 2 s after it says it is ready.
  if ready_within "$WORK/tutor-ready" 60; then
    sampler_start "$WORK/tutor-burst-on.stats"
  fi
  if wait "$TUTOR_BG"; then
    pass "in Chromium, $TUTOR_RUNS test alerts one every $TUTOR_EVERY_MS ms, each card timed ($(tail -n 1 "$WORK/tutor-series.log"))"
  else
    fail "in Chromium, $TUTOR_RUNS test alerts, each card timed" "$(tail -n 2 "$WORK/tutor-series.log" | tr '\n' ' ')"
  fi
  TUTOR_BG=""
  sampler_stop
  burst_on=$(stats_of "$WORK/tutor-burst-on.stats")
  [ -s "$out" ] || echo '{"cards":[]}' >"$out"
  lat=$(json_get "$out" "(() => { const l = r.cards.map((c) => c.latency_ms).filter((x) => x !== null).sort((a, b) => a - b);
    return l.length ? 'median ' + l[Math.floor((l.length - 1) / 2)] + ' ms, worst ' + l.at(-1) + ' ms of ' + l.length : 'none'; })()" || true)
  check "... every one on the page within 2 s of its end ($lat)" \
    holds "$out" "r.cards.length === $TUTOR_RUNS && r.cards.every((c) => c.latency_ms !== null && c.latency_ms >= 0 && c.latency_ms < $TUTOR_WITHIN_MS)" \
    "JSON.stringify(r.cards.map((c) => c.latency_ms))"
  check "... each the run of its own alert, none overlapping another ($(json_get "$out" 'Object.entries(r.cards.reduce((a, c) => ((a[c.verdict] = (a[c.verdict] || 0) + 1), a), {})).map((e) => e.join(" ")).join(", ")'))" \
    holds "$out" "r.cards.every((c, i) => c.event === r.sent[i] && c.verdict === 'as-asked')" \
    "JSON.stringify(r.cards.filter((c, i) => c.event !== r.sent[i] || c.verdict !== 'as-asked').map((c) => [c.event, c.verdict, c.summary]).slice(0, 2))"
  TUTOR_FIGURES="from a run's end (n8n's stoppedAt) to its card: $lat; the console, idle $TUTOR_IDLE_SECONDS s, no page: $idle_off, $front_off B to n8n;"
  TUTOR_FIGURES="$TUTOR_FIGURES a page open: ${idle_on:-?}, ${front_on:-?} B to n8n; a burst of $TUTOR_RUNS runs, no page: $burst_off; a page open: $burst_on"
  log "tutor figures: $TUTOR_FIGURES"
}
