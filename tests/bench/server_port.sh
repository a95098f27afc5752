# server_port.sh — sourced by run_bench.sh and run_abuse.sh (POSIX sh).
#
# tapisd_port WHO LOG PID: wait for the tapisd started as PID, logging to LOG,
# to say "listening on 127.0.0.1:PORT"; sets $port, or prints why (prefixed
# WHO) with the log and exits 1 when it died or said nothing in 5 s.
# cpu_ticks PID: utime + stime of PID, in clock ticks (0 once it is gone).

tapisd_running() { # running, not a zombie
    [ -r "/proc/$1/status" ] && ! grep -Eq '^State:[[:space:]]*[ZX]' "/proc/$1/status" 2>/dev/null
}

tapisd_port() {
    port=""
    _i=0
    while [ $_i -lt 100 ]; do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$2" | head -n 1)
        [ -n "$port" ] && return 0
        if ! tapisd_running "$3"; then
            echo "$1: tapisd exited at start:" >&2
            cat "$2" >&2
            exit 1
        fi
        sleep 0.05
        _i=$((_i + 1))
    done
    echo "$1: tapisd did not say where it listens:" >&2
    cat "$2" >&2
    exit 1
}

cpu_ticks() {
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}
